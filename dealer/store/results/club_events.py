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

import json
import secrets
from collections.abc import Iterable, Mapping
from functools import lru_cache

from sqlalchemy import bindparam, delete, func, select

from dealer.board import DealSet
from dealer.events.model import EventError
from dealer.events.movements import Movement, howell, mitchell, with_section
from dealer.events.teams import round_robin
from dealer.formats.sealing import SEALED_TAG
from dealer.store.models import AuditEntry, DealSetRow, Event
from dealer.store.panel_models import ClubEvent, ResultRow, TableToken
from dealer.store.repository import Store, possible_id
from dealer.store.results.common import CLUB_EVENTS, EVENTS, TOKENS, EntryError, reading


def create_club_event(store: Store, name: str, *, date: str = "", kind: str = "pairs",
                      movement: str = "mitchell", tables: int, rounds: int | None = None,
                      boards_per_round: int = 2, sections: Iterable[str] = ("A",),
                      scoring: str = "matchpoints", deal_set_id: int | None = None,
                      options: Mapping[str, object] | None = None,
                      reveal_after: str = "round", ew_accept: bool = False) -> int:
    """Create a club event and one table token per table; returns its id.

    ``options`` are the movement generator's (:func:`check_options`). A deal
    set without every board the movement plays is refused here, before the
    first table finds a board missing. ``reveal_after`` is when a table sees a
    board it has entered (:data:`REVEAL`). ``ew_accept``: East-West accept each
    result at the table before it counts (:func:`~dealer.store.results.fairplay.accept_at_table`).
    """
    ce, secs = _checked(name, kind=kind, movement=movement, tables=tables, rounds=rounds,
                        boards_per_round=boards_per_round, sections=sections,
                        scoring=scoring, options=options)
    ce.deal_set_id = deal_set_id
    ce.reveal_after = check_reveal(reveal_after)
    ce.ew_accept = bool(ew_accept)
    m = movement_of(ce)  # refuse an impossible movement before anything is written
    check_fits(store, deal_set_id, m)
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


def _checked(name: str, *, kind: str, movement: str, tables: int, rounds: int | None,
             boards_per_round: int, sections: Iterable[str], scoring: str,
             options: Mapping[str, object] | None) -> tuple[ClubEvent, list[str]]:
    """A club event's settings checked one by one, each refusal naming its field."""
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
    if len(set(secs)) < len(secs):
        raise EntryError("each section name once", "sections")
    if movement == "teams" and kind != "teams":
        raise EntryError("the teams round robin is for a teams event (kind: teams)", "movement")
    opts = check_options(movement, tables, options or {})
    ce = ClubEvent(kind=kind, movement=movement, tables=tables, rounds=rounds,
                   boards_per_round=boards_per_round, sections=secs, scoring=scoring,
                   movement_options=opts or None)
    return ce, secs


#: Options of the movement generators a club event may set.
METHODS = ("auto", "plain", "skip", "relay")


def check_options(movement: str, tables: int, options: Mapping[str, object]
                  ) -> dict[str, object]:
    """The movement options, checked and in their stored form (empty: the defaults).

    Mitchell: ``method`` (auto, plain, skip, relay), ``arrow_switch`` (round
    numbers), ``ew_offset`` (0, or at least the number of tables), ``missing``
    (``["EW", 7]``: the pair that does not exist, a half table). Howell:
    ``missing`` (a pair number). ``missing`` may be ``"last"``: the last EW
    pair of a Mitchell, the stationary pair of a Howell (its table is then the
    half table).

    >>> check_options("mitchell", 7, {"missing": "last", "arrow_switch": [7]})
    {'arrow_switch': [7], 'missing': ['EW', 14]}
    >>> check_options("howell", 4, {"missing": "last"})
    {'missing': 8}
    """
    allowed = {"mitchell": {"method", "arrow_switch", "ew_offset", "missing"},
               "howell": {"missing"}}.get(movement, set())
    given = {k: v for k, v in options.items() if v not in (None, "", [], (), "auto")}
    extra = sorted(set(given) - allowed)
    if extra:
        raise EntryError(f"a {movement} movement has no option {', '.join(extra)}", extra[0])
    out: dict[str, object] = {}
    if "method" in given:
        if given["method"] not in METHODS:
            raise EntryError(f"method must be one of {', '.join(METHODS)}, not "
                             f"{given['method']!r}", "method")
        out["method"] = given["method"]
    if "arrow_switch" in given:
        rounds = given["arrow_switch"]
        if not isinstance(rounds, list | tuple) or not all(
                isinstance(r, int) and not isinstance(r, bool) for r in rounds):
            raise EntryError("arrow-switch rounds must be round numbers", "arrow_switch")
        out["arrow_switch"] = sorted(set(rounds))
    if "ew_offset" in given:
        off = given["ew_offset"]
        if not isinstance(off, int) or isinstance(off, bool):
            raise EntryError("the EW offset must be a whole number", "ew_offset")
        out["ew_offset"] = off
    if "missing" in given:
        miss = given["missing"]
        if movement == "howell":
            if miss == "last":
                miss = 2 * tables
            if not isinstance(miss, int) or isinstance(miss, bool):
                raise EntryError("the missing pair of a Howell is a pair number", "missing")
        else:
            if miss == "last":
                off = out.get("ew_offset")
                off = (tables if out.get("arrow_switch") else 0) if off is None else off
                miss = ["EW", tables + int(off)]  # type: ignore[call-overload]
            if (not isinstance(miss, list | tuple) or len(miss) != 2 or miss[0] not in
                    ("NS", "EW") or not isinstance(miss[1], int)):
                raise EntryError("the missing pair of a Mitchell is NS or EW and a number",
                                 "missing")
            miss = [miss[0], miss[1]]
        out["missing"] = miss
    return out


def _options_key(ce: ClubEvent) -> str:
    return json.dumps(ce.movement_options or {}, sort_keys=True)


def check_fits(store: Store, deal_set_id: int | None, m: Movement) -> None:
    """Refuse a deal set that lacks a board the movement plays (one line, which boards)."""
    if deal_set_id is None:
        return
    with reading(store) as s:
        row = s.get(DealSetRow, deal_set_id)
        if row is None:
            raise EntryError(f"there is no deal set {deal_set_id}", "deal_set_id")
        name = row.name
    have = set(store.load(deal_set_id).numbers)
    need = sorted({b for st in m.sittings for b in st.boards})
    missing = [b for b in need if b not in have]
    if missing:
        shown = ", ".join(map(str, missing[:8])) + (" ..." if len(missing) > 8 else "")
        raise EntryError(
            f"deal set {deal_set_id} ({name}) has {len(have)} boards; the movement plays "
            f"boards {need[0]}-{need[-1]} and {len(missing)} of them are not in the set "
            f"({shown})", "deal_set_id")


def movement_of(ce: ClubEvent, section: str = "A") -> Movement:
    """The movement of one section of ``ce`` (built once, then cached)."""
    return _built(ce.movement, ce.tables, ce.rounds, ce.boards_per_round, section,
                  _options_key(ce))


@lru_cache(maxsize=256)
def _built(kind: str, tables: int, rounds: int | None, per_round: int, section: str,
           options: str = "{}") -> Movement:
    # Movements never change once built (callers only read them), and building a big
    # Howell takes a search: every entry would pay for it again without this cache.
    ce = ClubEvent(movement=kind, tables=tables, rounds=rounds, boards_per_round=per_round)
    opts = json.loads(options)
    try:
        if ce.movement == "howell":
            if rounds is not None and rounds != 2 * tables - 1:
                raise EntryError(f"a {tables}-table Howell plays {2 * tables - 1} rounds "
                                 "(leave Rounds blank)", "rounds")
            m = howell(ce.tables, boards_per_round=ce.boards_per_round, section=section,
                       missing=opts.get("missing"))
        elif ce.movement == "mitchell":
            miss = opts.get("missing")
            m = mitchell(ce.tables, rounds=ce.rounds, boards_per_round=ce.boards_per_round,
                         section=section, method=opts.get("method", "auto"),
                         arrow_switch=opts.get("arrow_switch", ()),
                         ew_offset=opts.get("ew_offset"),
                         missing=tuple(miss) if miss else None)
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
def _max_board(kind: str, tables: int, rounds: int | None, per_round: int, section: str,
               options: str = "{}") -> int:
    return max(_built(kind, tables, rounds, per_round, section, options).boards, 1)


def max_board(ce: ClubEvent, section: str = "A") -> int:
    """The highest board number of one section's movement (at least 1; cached)."""
    return _max_board(ce.movement, ce.tables, ce.rounds, ce.boards_per_round, section,
                      _options_key(ce))


def movement(store: Store, club_event_id: int, section: str = "A") -> Movement:
    """The movement of one section of a club event."""
    return movement_of(get_event(store, club_event_id), section)


def get_event(store: Store, club_event_id: int) -> ClubEvent:
    if not possible_id(club_event_id):
        raise EntryError(f"there is no club event {club_event_id}")
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
                       "correction_minutes", "published_at", "scoring", "reveal_after",
                       "allow_ahead", "ew_accept"})

#: When a table may see a board it has entered (:mod:`~dealer.store.results.fairplay`):
#: never, at once, or once it has entered every board of that round (the default).
REVEAL = ("off", "board", "round")


def check_reveal(value: object) -> str:
    """The reveal rule, or an error naming the field."""
    if value not in REVEAL:
        raise EntryError(f"reveal_after must be off, board or round, not {str(value)[:20]!r}",
                         "reveal_after")
    return str(value)


def update_event(store: Store, club_event_id: int, **values: object) -> None:
    """Change settings of a club event (current round, options, deal set, publication).

    A process that keeps copies of club events (the panel's table contexts)
    drops them itself after calling this.
    """
    for k in values:
        if k not in UPDATABLE:
            raise EntryError(f"{k} cannot be changed", k)
    if "reveal_after" in values:
        check_reveal(values["reveal_after"])
    if values.get("deal_set_id") is not None:
        check_fits(store, values["deal_set_id"],  # type: ignore[arg-type]
                   movement(store, club_event_id))
    with store.write() as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            raise EntryError(f"there is no club event {club_event_id}")
        for k, v in values.items():
            setattr(ce, k, v)


def result_count(store: Store, club_event_id: int) -> int:
    """How many results (lines at tables, adjusted or not) the event holds."""
    with reading(store) as s:
        return s.scalar(select(func.count()).select_from(ResultRow)
                        .where(ResultRow.club_event_id == club_event_id)) or 0


def edit_club_event(store: Store, club_event_id: int, name: str, *, date: str = "",
                    kind: str, movement: str, tables: int, rounds: int | None = None,
                    boards_per_round: int, sections: Iterable[str], scoring: str,
                    options: Mapping[str, object] | None = None,
                    reveal_after: str | None = None) -> None:
    """Change an event's name and date (and reveal rule, if given), and its movement
    while no result is entered.

    Once a table has entered a result the movement is what was played: changing
    it would move results to other pairs, so it is refused. Tables that stay
    keep their tokens (cards already printed still work); new tables get new
    ones; tables that go lose theirs.
    """
    new, secs = _checked(name, kind=kind, movement=movement, tables=tables, rounds=rounds,
                         boards_per_round=boards_per_round, sections=sections,
                         scoring=scoring, options=options)
    old = get_event(store, club_event_id)
    fields = ("kind", "movement", "tables", "rounds", "boards_per_round", "sections",
              "scoring", "movement_options")
    changed = [f for f in fields if getattr(old, f) != getattr(new, f)]
    m = movement_of(new)
    if changed:
        if result_count(store, club_event_id):
            raise EntryError("results have been entered: the movement, tables and scoring "
                             "can no longer change (only the name and date)", changed[0])
        check_fits(store, old.deal_set_id, m)
    with store.write() as s:
        ce = s.get(ClubEvent, club_event_id)
        ev = s.get(Event, ce.event_id) if ce is not None else None
        if ce is None or ev is None:
            raise EntryError(f"there is no club event {club_event_id}")
        ev.name, ev.date = name.strip(), date
        if reveal_after is not None:
            ce.reveal_after = check_reveal(reveal_after)
        if not changed:
            return
        for f in fields:
            setattr(ce, f, getattr(new, f))
        ce.current_round = min(ce.current_round, m.rounds)
        want = {(sec, t) for sec in secs for t in range(1, m.tables + 1)}
        have = {(t.section, t.table_no): t for t in s.scalars(
            select(TableToken).where(TableToken.club_event_id == club_event_id))}
        for key, tok in have.items():
            if key not in want:
                s.delete(tok)
        s.flush()
        for sec, t in sorted(want - set(have)):
            s.add(TableToken(club_event_id=club_event_id, section=sec, table_no=t,
                             token=secrets.token_urlsafe(18)))


def delete_club_event(store: Store, club_event_id: int) -> int:
    """Delete an event with its tables, results and their audit; returns the results gone.

    The deal set stays (another event may play it again).
    """
    n = result_count(store, club_event_id)
    with store.write() as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            raise EntryError(f"there is no club event {club_event_id}")
        # The database cascades from the event row: club event, tokens, results, audit.
        s.execute(delete(Event).where(Event.id == ce.event_id))
    return n


def events_using(store: Store, deal_set_id: int) -> list[str]:
    """The names of the club events that play a deal set."""
    with reading(store) as s:
        return list(s.scalars(select(Event.name).join(ClubEvent, ClubEvent.event_id == Event.id)
                              .where(ClubEvent.deal_set_id == deal_set_id)
                              .order_by(ClubEvent.id)))


def rename_deal_set(store: Store, deal_set_id: int, name: str) -> None:
    if not name.strip() or len(name) > 200:
        raise EntryError("a deal set's name is 1 to 200 characters", "name")
    with store.write() as s:
        row = s.get(DealSetRow, deal_set_id)
        if row is None:
            raise EntryError(f"there is no deal set {deal_set_id}")
        row.name = name.strip()


def delete_deal_set(store: Store, deal_set_id: int) -> None:
    """Delete a deal set no event plays (its scores would lose the boards' vulnerability)."""
    users = events_using(store, deal_set_id)
    if users:
        raise EntryError(f"deal set {deal_set_id} is played in {', '.join(users)}: choose "
                         "another set for those events, or delete them, first", "deal_set_id")
    with reading(store) as s:
        if s.get(DealSetRow, deal_set_id) is None:
            raise EntryError(f"there is no deal set {deal_set_id}")
    store.delete(deal_set_id)


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


def set_sealed(store: Store, deal_set_id: int, sealed: bool, *, who: str | None = None,
               detail: str = "") -> bool:
    """Seal or unseal a stored set; ``who`` given, the change goes in the audit log too
    (in the same transaction: no unsealing without its line). Returns whether it changed."""
    with store.write() as s:
        row = s.get(DealSetRow, deal_set_id)
        if row is None:
            raise EntryError(f"there is no deal set {deal_set_id}")
        changed = row.sealed != sealed
        row.sealed = sealed
        if not sealed:
            # A board's own [Sealed "Yes"] tag would keep the set sealed (sealing.is_sealed).
            for b in row.boards:
                kept = [tv for tv in b.tags if tv[0].split("#", 1)[0] != SEALED_TAG]
                if len(kept) != len(b.tags):
                    b.tags = kept
                    changed = True
        if who is not None and changed:
            s.add(AuditEntry(who=who[:100], action="seal" if sealed else "unseal",
                             subject=f"deal set {deal_set_id}"[:200], detail=detail[:500]))
    return changed
