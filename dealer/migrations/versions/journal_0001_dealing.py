"""journal: dealing runs and the per-card dealing journal.

Revision ID: journal_0001
Revises: panel_0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "journal_0001"
down_revision: str | None = "panel_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dealing_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("deal_set_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=12), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["deal_set_id"], ["deal_sets.id"],
                                name=op.f("fk_dealing_runs_deal_set_id_deal_sets"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dealing_runs")),
    )
    op.create_index(op.f("ix_dealing_runs_deal_set_id"), "dealing_runs", ["deal_set_id"])
    op.create_table(
        "dealing_journal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("boot_id", sa.BigInteger(), nullable=False),
        sa.Column("gate_id", sa.BigInteger(), nullable=False),
        sa.Column("card", sa.SmallInteger(), nullable=True),
        sa.Column("pocket", sa.SmallInteger(), nullable=True),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("deck", sa.String(length=40), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["dealing_runs.id"],
                                name=op.f("fk_dealing_journal_run_id_dealing_runs"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dealing_journal")),
    )
    op.create_index(op.f("ix_dealing_journal_run_id"), "dealing_journal", ["run_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_dealing_journal_run_id"), table_name="dealing_journal")
    op.drop_table("dealing_journal")
    op.drop_index(op.f("ix_dealing_runs_deal_set_id"), table_name="dealing_runs")
    op.drop_table("dealing_runs")
