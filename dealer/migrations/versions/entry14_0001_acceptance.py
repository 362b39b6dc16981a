"""entry: the opponents' acceptance step (a setting per event, a pending result) and the
reason a table gives for a board not played.

Revision ID: entry14_0001
Revises: publish14_0001
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "entry14_0001"
down_revision: str | None = "publish14_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ew_accept", sa.Boolean(), server_default=sa.false(),
                                      nullable=False))
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pending", sa.Boolean(), server_default=sa.false(),
                                      nullable=False))
        batch_op.add_column(sa.Column("not_played_reason", sa.String(length=40),
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_column("not_played_reason")
        batch_op.drop_column("pending")
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.drop_column("ew_accept")
