"""publish: multi-session events (a club event's group: the id of its first session).

Revision ID: publish14_0001
Revises: desk14_0001
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "publish14_0001"
down_revision: str | None = "desk14_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_club_events_group_id"), ["group_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_club_events_group_id"))
        batch_op.drop_column("group_id")
