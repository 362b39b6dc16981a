"""the live desk: weighted adjusted scores (Law 12C1(c)) and pairs that sat the wrong way
in a two-winner Mitchell.

Revision ID: desk14_0001
Revises: players14_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "desk14_0001"
down_revision: str | None = "players14_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("weighted", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("swapped", sa.Boolean(), server_default=sa.false(),
                                      nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_column("swapped")
        batch_op.drop_column("weighted")
