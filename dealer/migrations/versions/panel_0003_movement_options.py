"""panel: a club event's movement options (sit-out, Mitchell method, arrow switch, EW offset).

Revision ID: panel_0003
Revises: panel_0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "panel_0003"
down_revision: str | None = "panel_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("movement_options", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.drop_column("movement_options")
