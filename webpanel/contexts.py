"""The table contexts kept for a moment: a web request cache in front of the store.

Every request from a table needs its table and club event. They are kept here for
a moment, so a table sending entries back to back reads them once: a change the
director makes (the current round, the options) reaches the tables within
:data:`CONTEXT_SECONDS`, at once in this process (:func:`update_event` drops
the kept copies). Nothing that guards a result relies on this copy: a table's
change checks publication in its own query.
"""

from __future__ import annotations

import time

from dealer.store import results as rs
from dealer.store.models import Event
from dealer.store.panel_models import ClubEvent, TableToken
from dealer.store.repository import Store

CONTEXT_SECONDS = 2.0
_contexts: dict[tuple[int, str], tuple[float, tuple[TableToken, ClubEvent, Event]]] = {}


def forget_contexts() -> None:
    """Drop the kept table contexts (after the director changed a club event)."""
    _contexts.clear()


def table_context(store: Store, token: str) -> tuple[TableToken, ClubEvent, Event] | None:
    """The table, its club event and event (:func:`dealer.store.results.find_table`),
    kept for :data:`CONTEXT_SECONDS`.

    The objects are shared by the requests of the next :data:`CONTEXT_SECONDS`:
    they are read, never written back.
    """
    if not token or len(token) > 64:
        return None
    key = (id(store.engine), token)
    now = time.monotonic()
    kept = _contexts.get(key)
    if kept is not None and now - kept[0] < CONTEXT_SECONDS:
        return kept[1]
    found = rs.find_table(store, token)
    if found is None:
        return None
    if len(_contexts) > 10_000:  # a bound, not a policy: a club has a few hundred tables
        _contexts.clear()
    _contexts[key] = (now, found)
    return found


def update_event(store: Store, club_event_id: int, **values: object) -> None:
    """:func:`dealer.store.results.update_event`, then drop the kept contexts, so
    the tables served by this process see the change at once."""
    try:
        rs.update_event(store, club_event_id, **values)
    finally:
        forget_contexts()
