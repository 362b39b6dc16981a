"""dd: the double-dummy cache, one solved table per deal.

Revision ID: dd_0001
Revises: journal_0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "dd_0001"
down_revision: str | None = "journal_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dd_tables",
        sa.Column("deal", sa.LargeBinary(length=26), nullable=False),
        sa.Column("tricks", sa.LargeBinary(length=20), nullable=False),
        sa.PrimaryKeyConstraint("deal", name=op.f("pk_dd_tables")),
    )


def downgrade() -> None:
    op.drop_table("dd_tables")
