"""Club events in the store: creating one with a token per table, its movement, its
settings, and finding a table by its token.

>>> from dealer.store import Store
>>> with Store.open("sqlite://") as st:
...     ce = create_club_event(st, "Monday", tables=3, movement="mitchell")
...     t, club, ev = find_table(st, tokens(st, ce)[0].token)
>>> (ev.name, club.tables, t.section, t.table_no)
('Monday', 3, 'A', 1)
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from functools import lru_cache

from sqlalchemy import bindparam, select

from dealer.board import DealSet
from dealer.events.model import EventError
from dealer.events.movements import Movement, howell, mitchell, with_section
from dealer.events.teams import round_robin
from dealer.store.models import DealSetRow, Event
from dealer.store.panel_models import ClubEvent, TableToken
from dealer.store.repository import Store
from dealer.store.results.common import CLUB_EVENTS, EVENTS, TOKENS, EntryError, reading


def create_club_event(store: Store, name: str, *, date: str = "", kind: str = "pairs",
                      movement: str = "mitchell", tables: int, rounds: int | None = None,
                      boards_per_round: int = 2, sections: Iterable[str] = ("A",),
                      scoring: str = "matchpoints", deal_set_id: int | None = None) -> int:
    """Create a club event and one table token per table; returns its id."""
    secs = [s.strip().upper() for s in sections if s.strip()] or ["A"]
    if kind not in ("pairs", "teams"):
        raise EntryError(f"kind must be pairs or teams, not {kind!r}", "kind")
    if scoring not in ("matchpoints", "butler", "cross"):
        raise EntryError(f"scoring must be matchpoints, butler or cross, not {scoring!r}",
                         "scoring")
    if not 1 <= boards_per_round <= 8:
        raise EntryError("boards per round must be 1 to 8", "boards_per_round")
    if not 2 <= tables <= 40:
        raise EntryError("an event needs 2 to 40 tables", "tables")
    if len(name) > 200 or not name.strip():
        raise EntryError("the event needs a name of at most 200 characters", "name")
    if any(len(s) > 4 or not s.isalnum() for s in secs):
        raise EntryError("section names are up to 4 letters or digits", "sections")
    ce = ClubEvent(kind=kind, movement=movement, tables=tables, rounds=rounds,
                   boards_per_round=boards_per_round, sections=secs, scoring=scoring,
                   deal_set_id=deal_set_id)
    if movement == "teams" and kind != "teams":
        raise EntryError("the teams round robin is for a teams event (kind: teams)", "movement")
    m = movement_of(ce)  # refuse an impossible movement before anything is written
    with store.write() as s:
        ev = Event(name=name.strip(), date=date, site="")
        s.add(ev)
        s.flush()
        ce.event_id = ev.id
        s.add(ce)
        s.flush()
        for sec in secs:
            for t in range(1, m.tables + 1):  # teams: `tables` counts teams
                s.add(TableToken(club_event_id=ce.id, section=sec, table_no=t,
                                 token=secrets.token_urlsafe(18)))
        return ce.id


def movement_of(ce: ClubEvent, section: str = "A") -> Movement:
    """The movement of one section of ``ce`` (built once, then cached)."""
    return _built(ce.movement, ce.tables, ce.rounds, ce.boards_per_round, section)


@lru_cache(maxsize=256)
def _built(kind: str, tables: int, rounds: int | None, per_round: int, section: str
           ) -> Movement:
    # Movements never change once built (callers only read them), and building a big
    # Howell takes a search: every entry would pay for it again without this cache.
    ce = ClubEvent(movement=kind, tables=tables, rounds=rounds, boards_per_round=per_round)
    try:
        if ce.movement == "howell":
            m = howell(ce.tables, boards_per_round=ce.boards_per_round, section=section)
        elif ce.movement == "mitchell":
            m = mitchell(ce.tables, rounds=ce.rounds, boards_per_round=ce.boards_per_round,
                         section=section)
        elif ce.movement == "teams":  # `tables` is the number of teams here
            m = round_robin(ce.tables, boards_per_round=ce.boards_per_round, rounds=ce.rounds,
                            section=section).movement()
        else:
            raise EntryError(f"unknown movement {ce.movement!r} (mitchell, howell or teams)",
                             "movement")
    except EventError as exc:
        raise EntryError(str(exc), "movement") from None
    return m if m.section == section else with_section(m, section)


@lru_cache(maxsize=256)
def _max_board(kind: str, tables: int, rounds: int | None, per_round: int, section: str) -> int:
    return max(_built(kind, tables, rounds, per_round, section).boards, 1)


def max_board(ce: ClubEvent, section: str = "A") -> int:
    """The highest board number of one section's movement (at least 1; cached)."""
    return _max_board(ce.movement, ce.tables, ce.rounds, ce.boards_per_round, section)


def movement(store: Store, club_event_id: int, section: str = "A") -> Movement:
    """The movement of one section of a club event."""
    return movement_of(get_event(store, club_event_id), section)


def get_event(store: Store, club_event_id: int) -> ClubEvent:
    with reading(store) as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            raise EntryError(f"there is no club event {club_event_id}")
        return ce


def event_name(store: Store, club_event_id: int) -> tuple[str, str]:
    """(name, date) of the club event."""
    with reading(store) as s:
        ev = s.scalars(select(Event).join(ClubEvent, ClubEvent.event_id == Event.id)
                       .where(ClubEvent.id == club_event_id)).one()
        return ev.name, ev.date


def list_events(store: Store) -> list[tuple[ClubEvent, Event]]:
    with reading(store) as s:
        return [tuple(r) for r in s.execute(  # type: ignore[misc]
            select(ClubEvent, Event).join(Event, ClubEvent.event_id == Event.id)
            .order_by(ClubEvent.id.desc())).all()]


#: The settings of a club event :func:`update_event` may change.
UPDATABLE = frozenset({"current_round", "show_traveller", "show_hand_record", "deal_set_id",
                       "correction_minutes", "published_at", "scoring"})


def update_event(store: Store, club_event_id: int, **values: object) -> None:
    """Change settings of a club event (current round, options, deal set, publication).

    A process that keeps copies of club events (the panel's table contexts)
    drops them itself after calling this.
    """
    with store.write() as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            raise EntryError(f"there is no club event {club_event_id}")
        for k, v in values.items():
            if k not in UPDATABLE:
                raise EntryError(f"{k} cannot be changed", k)
            setattr(ce, k, v)


def tokens(store: Store, club_event_id: int) -> list[TableToken]:
    with reading(store) as s:
        return list(s.scalars(select(TableToken).where(TableToken.club_event_id == club_event_id)
                              .order_by(TableToken.section, TableToken.table_no)))


_BY_TOKEN = (select(TOKENS, CLUB_EVENTS, EVENTS)
             .join(CLUB_EVENTS, TOKENS.c.club_event_id == CLUB_EVENTS.c.id)
             .join(EVENTS, CLUB_EVENTS.c.event_id == EVENTS.c.id)
             .where(TOKENS.c.token == bindparam("token")))


def find_table(store: Store, token: str) -> tuple[TableToken, ClubEvent, Event] | None:
    """The table, its club event and event in one query (every table request needs them).

    The objects are built from one Core row and belong to no session: they
    are for reading, never written back.
    """
    if not token or len(token) > 64:
        return None
    with store.reads.connect() as conn:
        row = conn.execute(_BY_TOKEN, {"token": token}).first()
    if row is None:
        return None
    m = row._mapping
    return (TableToken(**{c.key: m[c] for c in TOKENS.c}),
            ClubEvent(**{c.key: m[c] for c in CLUB_EVENTS.c}),
            Event(**{c.key: m[c] for c in EVENTS.c}))


def dealset_of(store: Store, ce: ClubEvent) -> DealSet | None:
    if ce.deal_set_id is None:
        return None
    return store.load(ce.deal_set_id)


def set_sealed(store: Store, deal_set_id: int, sealed: bool) -> None:
    with store.write() as s:
        row = s.get(DealSetRow, deal_set_id)
        if row is None:
            raise EntryError(f"there is no deal set {deal_set_id}")
        row.sealed = sealed
