"""fair play and security: reveal rule, closing, token issues, table views, late and flagged
results, director sessions, per-account login limit, pad owners, the audit log.

Revision ID: fairplay_0001
Revises: panel_0003
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "fairplay_0001"
down_revision: str | None = "panel_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reveal_after", sa.String(length=8),
                                      server_default="round", nullable=False))
        batch_op.add_column(sa.Column("allow_ahead", sa.Boolean(),
                                      server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("issue", sa.Integer(), server_default="1", nullable=False))
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.add_column(sa.Column("late", sa.Boolean(), server_default=sa.false(),
                                      nullable=False))
        batch_op.add_column(sa.Column("changed_after_view", sa.Boolean(),
                                      server_default=sa.false(), nullable=False))
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.add_column(sa.Column("account", sa.String(length=100), nullable=True))
        batch_op.create_index(batch_op.f("ix_login_failures_account"), ["account"], unique=False)
    with op.batch_alter_table("pads", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client", sa.String(length=100), server_default="",
                                      nullable=False))
        batch_op.create_index(batch_op.f("ix_pads_client"), ["client"], unique=False)
    op.create_table(
        "table_views",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_event_id", sa.Integer(), nullable=False),
        sa.Column("section", sa.String(length=4), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["club_event_id"], ["club_events.id"],
                                name=op.f("fk_table_views_club_event_id_club_events"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_views")),
        sa.UniqueConstraint("club_event_id", "section", "table_no", "board",
                            name=op.f("uq_table_views_club_event_id")),
    )
    op.create_index(op.f("ix_table_views_club_event_id"), "table_views", ["club_event_id"])
    op.create_table(
        "director_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("director_id", sa.Integer(), nullable=False),
        sa.Column("client", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["director_id"], ["directors.id"],
                                name=op.f("fk_director_sessions_director_id_directors"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_director_sessions")),
    )
    op.create_index(op.f("ix_director_sessions_director_id"), "director_sessions",
                    ["director_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("who", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("detail", sa.String(length=500), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index(op.f("ix_audit_log_at"), "audit_log", ["at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_log_at"), table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_index(op.f("ix_director_sessions_director_id"), table_name="director_sessions")
    op.drop_table("director_sessions")
    op.drop_index(op.f("ix_table_views_club_event_id"), table_name="table_views")
    op.drop_table("table_views")
    with op.batch_alter_table("pads", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pads_client"))
        batch_op.drop_column("client")
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_failures_account"))
        batch_op.drop_column("account")
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_column("changed_after_view")
        batch_op.drop_column("late")
    with op.batch_alter_table("table_tokens", schema=None) as batch_op:
        batch_op.drop_column("issue")
    with op.batch_alter_table("club_events", schema=None) as batch_op:
        batch_op.drop_column("closed_at")
        batch_op.drop_column("allow_ahead")
        batch_op.drop_column("reveal_after")
