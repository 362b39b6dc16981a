"""Results of a club event in the store: entry, idempotent retries, conflicts, corrections.

The panel (and the load bench) call these functions; they hold the rules
about *recording*, while :mod:`dealer.events` holds the rules about
*scoring*. Every function takes a :class:`~dealer.store.Store`. The package
is split by concern; this module gathers the public names, so callers write
``from dealer.store import results as rs``:

===============================================  ===================================
:mod:`~dealer.store.results.club_events`         club events, their movements, table tokens
:mod:`~dealer.store.results.fairplay`            what a table may enter, see and change;
                                                 new table cards, closing, the audit log
:mod:`~dealer.store.results.entry`               what a table types, checked and recorded
:mod:`~dealer.store.results.reading`             reading results, a result in words
:mod:`~dealer.store.results.corrections`         corrections with the audit trail (Law 79C)
:mod:`~dealer.store.results.progress`            the tables' progress on the director's desk
:mod:`~dealer.store.results.publication`       publishing results, and taking it back (79C)
:mod:`~dealer.store.results.sessions`          the sessions of a multi-session event
:mod:`~dealer.store.results.postgres`            PostgreSQL's one-statement writes
:mod:`~dealer.store.results.common`              the error, the outcome, the units of work
===============================================  ===================================

>>> from dealer.store import Store
>>> with Store.open("sqlite://") as st:
...     ce = create_club_event(st, "Monday", tables=3, movement="mitchell")
...     e = Entry(board=1, contract="4S", declarer="N", tricks=10)
...     a = submit(st, ce, "A", 1, 1, e, submission_id="s1", who="table 1")
...     b = submit(st, ce, "A", 1, 1, e, submission_id="s1", who="table 1")
...     c = submit(st, ce, "A", 1, 1, e, submission_id="s2", who="table 1")
>>> a.status, a.score, b.status, c.status
('recorded', 420, 'duplicate', 'conflict')
"""

from dealer.store.results.club_events import (
    METHODS,
    REVEAL,
    check_fits,
    check_options,
    create_club_event,
    dealset_of,
    delete_club_event,
    delete_deal_set,
    edit_club_event,
    event_name,
    events_using,
    find_table,
    get_event,
    list_events,
    max_board,
    movement,
    movement_of,
    rename_deal_set,
    result_count,
    set_sealed,
    tokens,
    update_event,
)
from dealer.store.results.common import EDITABLE, REASON_MAX, EntryError, Outcome
from dealer.store.results.corrections import (
    correct,
    correct_at_table,
    correction_window_open,
    swap_pairs,
)
from dealer.store.results.entry import (
    LEADS,
    NOT_PLAYED_MAX,
    NOT_PLAYED_REASONS,
    Entry,
    Preview,
    director_entry,
    director_result,
    preview,
    relative,
    set_play,
    submit,
    vulnerability_of,
    warnings_for,
    weighted_code,
)
from dealer.store.results.fairplay import (
    Refused,
    TableState,
    accept_at_table,
    add_audit,
    audit_log,
    close_event,
    closed_message,
    current_round,
    may_change,
    new_table_cards,
    playing,
    record_view,
    replaced_card,
    reveal_refusal,
    reveals,
    round_done,
    round_of,
    rounds_open,
    submit_at_table,
    table_state,
)
from dealer.store.results.progress import TableProgress, table_progress
from dealer.store.results.publication import (
    may_unpublish,
    public_stamp,
    publish,
    published_event,
    published_events,
    undo_until,
    unpublish,
)
from dealer.store.results.reading import (
    ResultLine,
    TrailLine,
    as_results,
    changes,
    describe,
    desk_stamp,
    result,
    results,
    table_results,
    trail,
    weighted_parts,
)
from dealer.store.results.sessions import join, sessions, unit_of

__all__ = [
    "METHODS", "check_fits", "check_options", "delete_club_event", "delete_deal_set",
    "edit_club_event", "events_using", "rename_deal_set", "result_count",
    "EDITABLE", "REASON_MAX", "LEADS", "Entry", "EntryError", "Outcome", "ResultLine", "as_results",
    "changes", "correct", "correct_at_table", "correction_window_open", "create_club_event",
    "dealset_of", "describe", "director_entry", "director_result", "event_name", "find_table", "get_event",
    "list_events", "max_board", "movement", "movement_of", "result", "results", "set_play",
    "set_sealed", "submit", "swap_pairs", "table_results", "tokens", "update_event",
    "vulnerability_of", "warnings_for",
    "REVEAL", "Refused", "TableState", "add_audit", "audit_log", "close_event", "closed_message",
    "current_round", "may_change", "new_table_cards", "playing", "record_view",
    "replaced_card", "reveal_refusal", "reveals", "round_done", "round_of", "rounds_open",
    "submit_at_table", "table_state", "TrailLine", "trail", "desk_stamp", "TableProgress",
    "table_progress", "weighted_code", "weighted_parts",
    "may_unpublish", "publish", "public_stamp", "published_event", "published_events", "undo_until",
    "unpublish", "join", "sessions", "unit_of",
    "NOT_PLAYED_MAX", "NOT_PLAYED_REASONS", "Preview", "accept_at_table", "preview", "relative",
]
