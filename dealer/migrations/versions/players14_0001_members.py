"""players: the club's member list and the names of each pair of a club event.

Revision ID: players14_0001
Revises: fairplay_0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "players14_0001"
down_revision: str | None = "fairplay_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("search_key", sa.String(length=100), nullable=False),
        sa.Column("scheme", sa.String(length=10), nullable=False),
        sa.Column("number", sa.String(length=20), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_members")),
        sa.UniqueConstraint("scheme", "number", name=op.f("uq_members_scheme")),
    )
    op.create_index(op.f("ix_members_search_key"), "members", ["search_key"])
    op.create_table(
        "pair_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_event_id", sa.Integer(), nullable=False),
        sa.Column("section", sa.String(length=4), nullable=False),
        sa.Column("line", sa.String(length=2), nullable=False),
        sa.Column("pair_no", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=True),
        sa.Column("scheme", sa.String(length=10), nullable=False),
        sa.Column("number", sa.String(length=20), nullable=False),
        sa.Column("entered_by", sa.String(length=100), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_event_id"], ["club_events.id"],
                                name=op.f("fk_pair_players_club_event_id_club_events"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"],
                                name=op.f("fk_pair_players_member_id_members"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pair_players")),
        sa.UniqueConstraint("club_event_id", "section", "line", "pair_no", "seat",
                            name=op.f("uq_pair_players_club_event_id")),
    )
    op.create_index(op.f("ix_pair_players_club_event_id"), "pair_players", ["club_event_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_pair_players_club_event_id"), table_name="pair_players")
    op.drop_table("pair_players")
    op.drop_index(op.f("ix_members_search_key"), table_name="members")
    op.drop_table("members")
