"""dealer core: events, deal sets and boards.

Revision ID: dealer_0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "dealer_0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("date", sa.String(length=32), nullable=False),
        sa.Column("site", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    op.create_table(
        "deal_sets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("meta", sa.JSON(), nullable=False),
        sa.Column("sealed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["event_id"], ["events.id"], ondelete="CASCADE",
                                name=op.f("fk_deal_sets_event_id_events")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deal_sets")),
    )
    op.create_index(op.f("ix_deal_sets_event_id"), "deal_sets", ["event_id"])
    op.create_table(
        "boards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deal_set_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("deal", sa.LargeBinary(length=26), nullable=True),
        sa.Column("partial", sa.Boolean(), nullable=False),
        sa.Column("pbn", sa.Text(), nullable=True),
        sa.Column("dealer", sa.SmallInteger(), nullable=False),
        sa.Column("vulnerability", sa.String(length=4), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("sections", sa.JSON(), nullable=False),
        sa.CheckConstraint("dealer BETWEEN 0 AND 3", name=op.f("ck_boards_dealer_seat")),
        sa.CheckConstraint("vulnerability IN ('None', 'NS', 'EW', 'All')",
                           name=op.f("ck_boards_vulnerability")),
        sa.CheckConstraint("number >= 1", name=op.f("ck_boards_number_positive")),
        sa.ForeignKeyConstraint(["deal_set_id"], ["deal_sets.id"], ondelete="CASCADE",
                                name=op.f("fk_boards_deal_set_id_deal_sets")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_boards")),
        sa.UniqueConstraint("deal_set_id", "position", name=op.f("uq_boards_deal_set_id")),
    )


def downgrade() -> None:
    op.drop_table("boards")
    op.drop_index(op.f("ix_deal_sets_event_id"), table_name="deal_sets")
    op.drop_table("deal_sets")
    op.drop_table("events")
