"""panel: directors, club events, table tokens, results and their audit, pads, dealing jobs.

Revision ID: panel_0001
Revises: dealer_0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = 'panel_0001'
down_revision: str | None = 'dealer_0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('directors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('password_hash', sa.String(length=300), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_directors')),
    sa.UniqueConstraint('name', name=op.f('uq_directors_name'))
    )
    op.create_table('login_failures',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('client', sa.String(length=100), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_failures'))
    )
    with op.batch_alter_table('login_failures', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_login_failures_client'), ['client'], unique=False)

    op.create_table('pads',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('setup', sa.JSON(), nullable=False),
    sa.Column('entries', sa.JSON(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pads')),
    sa.UniqueConstraint('token', name=op.f('uq_pads_token'))
    )
    op.create_table('club_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('event_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('movement', sa.String(length=20), nullable=False),
    sa.Column('tables', sa.Integer(), nullable=False),
    sa.Column('rounds', sa.Integer(), nullable=True),
    sa.Column('boards_per_round', sa.Integer(), nullable=False),
    sa.Column('sections', sa.JSON(), nullable=False),
    sa.Column('scoring', sa.String(length=20), nullable=False),
    sa.Column('deal_set_id', sa.Integer(), nullable=True),
    sa.Column('show_traveller', sa.Boolean(), nullable=False),
    sa.Column('show_hand_record', sa.Boolean(), nullable=False),
    sa.Column('current_round', sa.Integer(), nullable=False),
    sa.Column('correction_minutes', sa.Integer(), nullable=False),
    sa.Column('published_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['deal_set_id'], ['deal_sets.id'], name=op.f('fk_club_events_deal_set_id_deal_sets'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['event_id'], ['events.id'], name=op.f('fk_club_events_event_id_events'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_club_events'))
    )
    with op.batch_alter_table('club_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_club_events_event_id'), ['event_id'], unique=False)

    op.create_table('dealing_jobs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('deal_set_id', sa.Integer(), nullable=False),
    sa.Column('machine', sa.String(length=200), nullable=False),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('command', sa.String(length=12), nullable=False),
    sa.Column('boards_total', sa.Integer(), nullable=False),
    sa.Column('boards_done', sa.Integer(), nullable=False),
    sa.Column('cards_done', sa.Integer(), nullable=False),
    sa.Column('current_board', sa.Integer(), nullable=True),
    sa.Column('message', sa.String(length=300), nullable=False),
    sa.Column('instruction', sa.String(length=300), nullable=False),
    sa.Column('image', sa.LargeBinary(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['deal_set_id'], ['deal_sets.id'], name=op.f('fk_dealing_jobs_deal_set_id_deal_sets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_dealing_jobs'))
    )
    op.create_table('results',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('club_event_id', sa.Integer(), nullable=False),
    sa.Column('section', sa.String(length=4), nullable=False),
    sa.Column('table_no', sa.Integer(), nullable=False),
    sa.Column('round_no', sa.Integer(), nullable=False),
    sa.Column('board', sa.Integer(), nullable=False),
    sa.Column('ns', sa.Integer(), nullable=False),
    sa.Column('ew', sa.Integer(), nullable=False),
    sa.Column('contract', sa.String(length=8), nullable=True),
    sa.Column('declarer', sa.String(length=1), nullable=True),
    sa.Column('lead', sa.String(length=3), nullable=True),
    sa.Column('tricks', sa.SmallInteger(), nullable=True),
    sa.Column('score', sa.Integer(), nullable=True),
    sa.Column('ns_artificial', sa.String(length=8), nullable=True),
    sa.Column('ew_artificial', sa.String(length=8), nullable=True),
    sa.Column('not_played', sa.Boolean(), nullable=False),
    sa.Column('fouled_group', sa.Integer(), nullable=False),
    sa.Column('play', sa.Text(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('entered_by', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['club_event_id'], ['club_events.id'], name=op.f('fk_results_club_event_id_club_events'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_results')),
    sa.UniqueConstraint('club_event_id', 'section', 'table_no', 'board', name=op.f('uq_results_club_event_id'))
    )
    with op.batch_alter_table('results', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_results_club_event_id'), ['club_event_id'], unique=False)

    op.create_table('table_tokens',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('club_event_id', sa.Integer(), nullable=False),
    sa.Column('section', sa.String(length=4), nullable=False),
    sa.Column('table_no', sa.Integer(), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['club_event_id'], ['club_events.id'], name=op.f('fk_table_tokens_club_event_id_club_events'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_table_tokens')),
    sa.UniqueConstraint('club_event_id', 'section', 'table_no', name=op.f('uq_table_tokens_club_event_id')),
    sa.UniqueConstraint('token', name=op.f('uq_table_tokens_token'))
    )
    op.create_table('result_changes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('result_id', sa.Integer(), nullable=False),
    sa.Column('who', sa.String(length=100), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('field', sa.String(length=30), nullable=False),
    sa.Column('old', sa.String(length=100), nullable=False),
    sa.Column('new', sa.String(length=100), nullable=False),
    sa.Column('reason', sa.String(length=300), nullable=False),
    sa.Column('in_window', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['result_id'], ['results.id'], name=op.f('fk_result_changes_result_id_results'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_result_changes'))
    )
    with op.batch_alter_table('result_changes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_result_changes_result_id'), ['result_id'], unique=False)

    op.create_table('submissions',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('result_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['result_id'], ['results.id'], name=op.f('fk_submissions_result_id_results'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_submissions'))
    )


def downgrade() -> None:
    op.drop_table('submissions')
    with op.batch_alter_table('result_changes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_result_changes_result_id'))

    op.drop_table('result_changes')
    op.drop_table('table_tokens')
    with op.batch_alter_table('results', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_results_club_event_id'))

    op.drop_table('results')
    op.drop_table('dealing_jobs')
    with op.batch_alter_table('club_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_club_events_event_id'))

    op.drop_table('club_events')
    op.drop_table('pads')
    with op.batch_alter_table('login_failures', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_login_failures_client'))

    op.drop_table('login_failures')
    op.drop_table('directors')
