"""Results of a club event in the store: entry, idempotent retries, conflicts, corrections.

The panel (and the load bench) call these functions; they hold the rules
about *recording*, while :mod:`dealer.events` holds the rules about
*scoring*. Every function takes a :class:`~dealer.store.Store`.

- :func:`submit` records one table's result. The client's submission id
  makes it idempotent: the same id again returns ``"duplicate"`` and writes
  nothing. Another entry for a board already recorded at that table returns
  ``"conflict"`` with a message naming who entered it first.
- :func:`correct` changes fields of a recorded result and writes one audit
  row per changed field (who, when, old, new, reason, and whether it was
  inside the correction period of Law 79C: by default 30 minutes after the
  results were published, WBF Laws 2017 Law 79C).

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

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from types import SimpleNamespace

from sqlalchemy import (
    Boolean,
    Connection,
    DateTime,
    Executable,
    String,
    bindparam,
    func,
    insert,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dealer.board import DealSet
from dealer.contract import Contract, ContractError
from dealer.errors import BoardwrightError
from dealer.events.model import Artificial, EventError, Result
from dealer.events.movements import Movement, howell, mitchell, with_section
from dealer.events.teams import round_robin
from dealer.events.validation import check_results
from dealer.scoring.duplicate import score_ns
from dealer.seats import Seat, Vulnerability, board_vulnerability
from dealer.store.engine import writer_turn
from dealer.store.models import BoardRow, DealSetRow, Event
from dealer.store.panel_models import (
    ClubEvent,
    ResultChange,
    ResultRow,
    Submission,
    TableToken,
)
from dealer.store.repository import Store

LEADS = "23456789TJQKA"


class EntryError(BoardwrightError, ValueError):
    """A result form that cannot be recorded; ``field`` names the form field."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def _now() -> datetime:
    return datetime.now(UTC)


# The tables behind the models, for the entry path: a table's phone submits and
# corrects results all evening, and SQLAlchemy Core statements cost a fraction of
# the ORM's unit of work there (measured: a result entry 0.58 -> 0.33 ms).
_TOKENS = TableToken.__table__
_CLUB_EVENTS = ClubEvent.__table__
_EVENTS = Event.__table__
_RESULTS = ResultRow.__table__
_SUBMISSIONS = Submission.__table__
_CHANGES = ResultChange.__table__


@contextmanager
def _writing(store: Store) -> Iterator[Session]:
    """An ORM write transaction, after taking the writer's turn (see :func:`writer_turn`)."""
    with writer_turn(store.engine), store._sessions() as s, s.begin():
        yield s


@contextmanager
def _transaction(store: Store) -> Iterator[Connection]:
    """A Core write transaction, after taking the writer's turn."""
    with writer_turn(store.engine), store.engine.begin() as conn:
        yield conn


@contextmanager
def _reading(store: Store) -> Iterator[Session]:
    """A read-only session whose objects stay usable afterwards (detached, loaded)."""
    with store._read() as s:
        yield s
        s.expunge_all()  # before the rollback, which would expire them


def _aware(t: datetime) -> datetime:
    # SQLite gives naive datetimes back even for timezone=True columns; they were UTC.
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


# ----------------------------------------------------------------------------- events

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
    m = _movement(ce)  # refuse an impossible movement before anything is written
    with store._write() as s:
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


def _movement(ce: ClubEvent, section: str = "A") -> Movement:
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


def movement_of(ce: ClubEvent, section: str = "A") -> Movement:
    """The movement of one section of ``ce`` (built once, then cached)."""
    return _movement(ce, section)


def movement(store: Store, club_event_id: int, section: str = "A") -> Movement:
    """The movement of one section of a club event."""
    return _movement(get_event(store, club_event_id), section)


def get_event(store: Store, club_event_id: int) -> ClubEvent:
    with _reading(store) as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            raise EntryError(f"there is no club event {club_event_id}")
        return ce


def event_name(store: Store, club_event_id: int) -> tuple[str, str]:
    """(name, date) of the club event."""
    with _reading(store) as s:
        ev = s.scalars(select(Event).join(ClubEvent, ClubEvent.event_id == Event.id)
                       .where(ClubEvent.id == club_event_id)).one()
        return ev.name, ev.date


def list_events(store: Store) -> list[tuple[ClubEvent, Event]]:
    with _reading(store) as s:
        return [tuple(r) for r in s.execute(  # type: ignore[misc]
            select(ClubEvent, Event).join(Event, ClubEvent.event_id == Event.id)
            .order_by(ClubEvent.id.desc())).all()]


def update_event(store: Store, club_event_id: int, **values: object) -> None:
    """Change settings of a club event (current round, options, deal set, publication)."""
    allowed = {"current_round", "show_traveller", "show_hand_record", "deal_set_id",
               "correction_minutes", "published_at", "scoring"}
    with store._write() as s:
        ce = s.get(ClubEvent, club_event_id)
        if ce is None:
            raise EntryError(f"there is no club event {club_event_id}")
        for k, v in values.items():
            if k not in allowed:
                raise EntryError(f"{k} cannot be changed", k)
            setattr(ce, k, v)
    forget_contexts()


def tokens(store: Store, club_event_id: int) -> list[TableToken]:
    with _reading(store) as s:
        return list(s.scalars(select(TableToken).where(TableToken.club_event_id == club_event_id)
                              .order_by(TableToken.section, TableToken.table_no)))


_CONTEXT = (select(_TOKENS, _CLUB_EVENTS, _EVENTS)
            .join(_CLUB_EVENTS, _TOKENS.c.club_event_id == _CLUB_EVENTS.c.id)
            .join(_EVENTS, _CLUB_EVENTS.c.event_id == _EVENTS.c.id)
            .where(_TOKENS.c.token == bindparam("token")))


# Every request from a table needs its table and club event. They are kept here for
# a moment, so a table sending entries back to back reads them once: a change the
# director makes (the current round, the options) reaches the tables within
# CONTEXT_SECONDS, at once in this process. Nothing that guards a result relies on
# this copy: a table's change checks publication in its own query.
CONTEXT_SECONDS = 2.0
_contexts: dict[tuple[int, str], tuple[float, tuple[TableToken, ClubEvent, Event]]] = {}


def forget_contexts() -> None:
    """Drop the kept table contexts (after the director changed a club event)."""
    _contexts.clear()


def table_context(store: Store, token: str) -> tuple[TableToken, ClubEvent, Event] | None:
    """The table, its club event and event in one query (every table request needs them).

    The objects are built from one Core row and belong to no session: they
    are read, never written back (they are shared by the requests of the next
    :data:`CONTEXT_SECONDS`).
    """
    if not token or len(token) > 64:
        return None
    key = (id(store.engine), token)
    now = time.monotonic()
    kept = _contexts.get(key)
    if kept is not None and now - kept[0] < CONTEXT_SECONDS:
        return kept[1]
    with store.reads.connect() as conn:
        row = conn.execute(_CONTEXT, {"token": token}).first()
    if row is None:
        return None
    m = row._mapping
    found = (TableToken(**{c.key: m[c] for c in _TOKENS.c}),
             ClubEvent(**{c.key: m[c] for c in _CLUB_EVENTS.c}),
             Event(**{c.key: m[c] for c in _EVENTS.c}))
    if len(_contexts) > 10_000:  # a bound, not a policy: a club has a few hundred tables
        _contexts.clear()
    _contexts[key] = (now, found)
    return found


def dealset_of(store: Store, ce: ClubEvent) -> DealSet | None:
    if ce.deal_set_id is None:
        return None
    return store.load(ce.deal_set_id)


def set_sealed(store: Store, deal_set_id: int, sealed: bool) -> None:
    with store._write() as s:
        row = s.get(DealSetRow, deal_set_id)
        if row is None:
            raise EntryError(f"there is no deal set {deal_set_id}")
        row.sealed = sealed


# ----------------------------------------------------------------------------- entry

@dataclass(frozen=True)
class Entry:
    """What a table types: contract (``"4SX"``, ``"PASS"``), declarer, lead, tricks."""

    board: int
    contract: str
    declarer: str = ""
    tricks: int | None = None
    lead: str = ""

    def checked(self) -> tuple[Contract, str | None, str | None, int]:
        """The parsed contract, declarer letter, lead and tricks, or an :class:`EntryError`."""
        text = self.contract.strip().upper()
        if len(text) > 8:
            raise EntryError("the contract is too long (e.g. 4SX, 3NTXX, PASS)", "contract")
        try:
            c = Contract.parse(text)
        except ContractError as exc:
            raise EntryError(f"contract: {exc}", "contract") from None
        if c.is_passed_out:
            return c, None, None, 0
        decl = self.declarer.strip().upper()[:1]
        if decl not in ("N", "E", "S", "W"):
            raise EntryError("choose the declarer: N, E, S or W", "declarer")
        c = c.with_declarer(Seat.parse(decl))
        if self.tricks is None or not 0 <= self.tricks <= 13:
            raise EntryError("tricks taken by declarer must be 0 to 13", "tricks")
        lead = self.lead.strip().upper().replace("10", "T")
        if lead:
            if len(lead) != 2 or lead[0] not in "SHDC" or lead[1] not in LEADS:
                raise EntryError("the opening lead is a suit and a rank, e.g. SQ or H7", "lead")
        return c, decl, lead or None, self.tricks


@dataclass
class Outcome:
    """What :func:`submit` or :func:`correct` did: ``recorded``, ``duplicate``,
    ``conflict``, ``corrected`` or ``needs-confirmation`` (warnings to confirm)."""

    status: str
    result_id: int | None = None
    score: int | None = None
    message: str = ""
    warnings: list[str] = field(default_factory=list)


_VULNERABILITY = select(BoardRow.__table__.c.vulnerability).where(
    BoardRow.__table__.c.deal_set_id == bindparam("ds"),
    BoardRow.__table__.c.number == bindparam("n"))


def _board_vulnerability(store: Store, ce: ClubEvent, board: int,
                         conn: Connection | None = None) -> Vulnerability:
    """The board's vulnerability from the event's deal set, else from its number (Law 2)."""
    if ce.deal_set_id is not None:
        args = {"ds": ce.deal_set_id, "n": board}
        if conn is not None:
            v = conn.execute(_VULNERABILITY, args).scalar()
        else:
            with store.reads.connect() as c:
                v = c.execute(_VULNERABILITY, args).scalar()
        if v is not None:
            return Vulnerability(v)
    return board_vulnerability(board)


def warnings_for(store: Store, ce: ClubEvent, section: str, table: int, round_no: int,
                 board: int, ns: int, ew: int) -> list[str]:
    """Doubts about a line from the movement, e.g. a board not played at this table now."""
    m = _movement(ce, section)
    try:
        s = m.at(table, round_no)
    except EventError:
        return [f"section {section} has no table {table} in round {round_no}"]
    out = []
    if board not in s.boards:
        out.append(f"board {board} is not played at this table in round {round_no} "
                   f"(boards {', '.join(map(str, s.boards))} are)")
    r = Result(board, ns, ew, section=section, table=table, round=round_no)
    out += [f.reason for f in check_results([r], m) if f.code in ("wrong-pairs", "wrong-way")]
    return out


def submit(store: Store, club_event_id: int, section: str, table: int, round_no: int,
           entry: Entry, *, submission_id: str, who: str, confirm: bool = False,
           ns: int | None = None, ew: int | None = None,
           ce: ClubEvent | None = None) -> Outcome:
    """Record one result. Idempotent on ``submission_id``; a second entry is a conflict."""
    if not submission_id or len(submission_id) > 64:
        raise EntryError("the form lost its submission id; reload the page", "submission_id")
    # A retry of a form we already have is not looked up first: its insert meets the
    # unique constraints and _after_race answers "duplicate". One query less per entry.
    if ce is None or ce.id != club_event_id:
        ce = get_event(store, club_event_id)
    contract, decl, lead, tricks = entry.checked()
    m = _movement(ce, section)
    try:
        sitting = m.at(table, round_no)
    except EventError as exc:
        raise EntryError(str(exc), "round") from None
    ns = sitting.ns if ns is None else ns
    ew = sitting.ew if ew is None else ew
    if not 1 <= entry.board <= _max_board(ce.movement, ce.tables, ce.rounds,
                                          ce.boards_per_round, section) * 4:
        raise EntryError(f"there is no board {entry.board} in this event", "board")
    warnings = warnings_for(store, ce, section, table, round_no, entry.board, ns, ew)
    if warnings and not confirm:
        return Outcome("needs-confirmation", message="; ".join(warnings), warnings=warnings)
    vul = _board_vulnerability(store, ce, entry.board)
    score = 0 if contract.is_passed_out else score_ns(contract, tricks, vul)
    values = dict(club_event_id=club_event_id, section=section, table_no=table,
                  round_no=round_no, board=entry.board, ns=ns, ew=ew,
                  contract="PASS" if contract.is_passed_out else _ascii(contract),
                  declarer=decl, lead=lead, tricks=None if contract.is_passed_out else tricks,
                  score=score, entered_by=who[:100])
    try:
        if store.engine.dialect.name == "postgresql":
            # One statement, so one round trip, in its own implicit transaction.
            now = _now()
            with store.reads.connect() as conn:
                rid = conn.execute(_PG_ENTRY, {
                    **values, "not_played": False, "fouled_group": 0, "version": 1,
                    "created_at": now, "updated_at": now, "_sid": submission_id}).scalar_one()
        else:
            with _transaction(store) as conn:
                rid = conn.execute(insert(_RESULTS), values).inserted_primary_key[0]
                conn.execute(insert(_SUBMISSIONS),
                             {"id": submission_id, "result_id": rid, "kind": "entry"})
    except IntegrityError:
        return _after_race(store, club_event_id, section, table, entry.board, submission_id)
    # What describe() reads, without building a mapped object for one sentence.
    row = SimpleNamespace(ns_artificial=None, not_played=False, **values)
    return Outcome("recorded", rid, score, f"board {entry.board}: {describe(row)}",
                   warnings)


def _after_race(store: Store, club_event_id: int, section: str, table: int, board: int,
                submission_id: str) -> Outcome:
    # Either the same form arrived twice at once (duplicate) or another device got there first.
    with _reading(store) as s:
        done = s.get(Submission, submission_id)
        if done is not None:
            return Outcome("duplicate", done.result_id, None, "already recorded; nothing added")
        row = s.scalars(select(ResultRow).where(
            ResultRow.club_event_id == club_event_id, ResultRow.section == section,
            ResultRow.table_no == table, ResultRow.board == board)).first()
    if row is None:
        raise EntryError("the database refused the result; please try again")
    return Outcome("conflict", row.id, row.score,
                   f"board {board} was already entered at this table by {row.entered_by} "
                   f"({describe(row)}); ask the director to correct it if it is wrong")


def _ascii(c: Contract) -> str:
    return c.ascii.split()[0] if " " in c.ascii else c.ascii


def describe(row: ResultRow | ResultLine | SimpleNamespace) -> str:
    """A result in words: ``4S by N, 10 tricks, NS +420``, ``passed out``, ``artificial A+/A-``."""
    if row.ns_artificial:
        return f"artificial {row.ns_artificial}/{row.ew_artificial}"
    if row.not_played:
        return "not played"
    if row.contract == "PASS":
        return "passed out"
    return f"{row.contract} by {row.declarer}, {row.tricks} tricks, NS {row.score:+d}"


# ----------------------------------------------------------------------------- reading

def results(store: Store, club_event_id: int) -> list[ResultRow]:
    with _reading(store) as s:
        return list(s.scalars(select(ResultRow).where(ResultRow.club_event_id == club_event_id)
                              .order_by(ResultRow.board, ResultRow.section, ResultRow.table_no)))


def table_results(store: Store, club_event_id: int, section: str, table: int,
                  board: int | None = None) -> dict[int, ResultLine]:
    """One table's results by board (or just ``board``), read by the unique index.

    A table's page and its corrections need only its own lines; reading the
    whole event's results for them made every correction slower as the evening
    went on.
    """
    args = {"ce": club_event_id, "section": section, "table": table, "board": board}
    with store.reads.connect() as conn:
        rows = conn.execute(_AT_TABLE if board is None else _AT_TABLE_BOARD, args)
        return {r.board: _detached(r) for r in rows}


# Built once: composing a statement costs more than running it on this path.
_AT_TABLE = select(_RESULTS).where(_RESULTS.c.club_event_id == bindparam("ce"),
                                  _RESULTS.c.section == bindparam("section"),
                                  _RESULTS.c.table_no == bindparam("table"))
_AT_TABLE_BOARD = _AT_TABLE.where(_RESULTS.c.board == bindparam("board"))
_AT_TABLE_BOARD_PUBLISHED = (_AT_TABLE_BOARD.add_columns(_CLUB_EVENTS.c.published_at)
                             .join(_CLUB_EVENTS, _CLUB_EVENTS.c.id == _RESULTS.c.club_event_id))
_SUBMISSION_SEEN = select(_SUBMISSIONS.c.id).where(_SUBMISSIONS.c.id == bindparam("sid"))
_RESULT_BY_ID = select(_RESULTS).where(_RESULTS.c.id == bindparam("rid"))
_CLUB_EVENT_BY_ID = select(_CLUB_EVENTS).where(_CLUB_EVENTS.c.id == bindparam("ce"))
# The columns to set are the parameters' other keys; "WHERE version = <read>" means
# two people correcting at once cannot both win, on SQLite (whose reads take no
# lock) as on PostgreSQL.
_UPDATE_RESULT = update(_RESULTS).where(_RESULTS.c.id == bindparam("_rid"),
                                        _RESULTS.c.version == bindparam("_read"))


def _pg_statements() -> tuple[Executable, Executable, Executable]:
    """PostgreSQL: an entry, and a correction, each as ONE statement.

    A table's entry is two inserts and a correction an update and two inserts;
    in one transaction each that is four or five round trips to the server
    (BEGIN, the statements, COMMIT), and on the two cores of a club laptop the
    round trips cost more than the work. PostgreSQL runs data-modifying CTEs
    as one statement, atomically, so each becomes one round trip. The
    statements are built once with bound parameters (and prepared by psycopg
    after a few uses). SQLite cannot modify data in a CTE; it keeps the
    short transaction (it has no round trips to save).
    """
    stamp = DateTime(timezone=True)
    entry_cols = ("club_event_id", "section", "table_no", "round_no", "board", "ns", "ew",
                  "contract", "declarer", "lead", "tricks", "score", "not_played",
                  "fouled_group", "version", "entered_by", "created_at", "updated_at")
    row = (insert(_RESULTS).values({c: bindparam(c, type_=_RESULTS.c[c].type)
                                    for c in entry_cols})
           .returning(_RESULTS.c.id).cte("row"))
    entry = (insert(_SUBMISSIONS).from_select(
        ["id", "result_id", "kind", "at"],
        select(bindparam("_sid", type_=String), row.c.id, literal("entry"),
               bindparam("created_at", type_=stamp)))
        .returning(_SUBMISSIONS.c.result_id).add_cte(row))
    # Every editable column is set (unchanged ones to their old value): one shape
    # for every correction. "WHERE version = <read>" as on SQLite.
    upd = (update(_RESULTS).where(_RESULTS.c.id == bindparam("_rid"),
                                  _RESULTS.c.version == bindparam("_read"))
           .values({c: bindparam(c, type_=_RESULTS.c[c].type)
                    for c in (*EDITABLE, "score", "updated_at", "version")})
           .returning(_RESULTS.c.id).cte("upd"))
    fields = func.unnest(bindparam("_fields", type_=ARRAY(String)),
                         bindparam("_olds", type_=ARRAY(String)),
                         bindparam("_news", type_=ARRAY(String))
                         ).table_valued("field", "old", "new").render_derived(name="f")
    audit = insert(_CHANGES).from_select(
        ["result_id", "who", "at", "field", "old", "new", "reason", "in_window"],
        select(upd.c.id, bindparam("_who", type_=String), bindparam("updated_at", type_=stamp),
               fields.c.field, fields.c.old, fields.c.new, bindparam("_reason", type_=String),
               bindparam("_inw", type_=Boolean)).select_from(upd).join(fields, true())
    ).cte("audit")
    seen = insert(_SUBMISSIONS).from_select(
        ["id", "result_id", "kind", "at"],
        select(bindparam("_sid", type_=String), upd.c.id, literal("correction"),
               bindparam("updated_at", type_=stamp))).cte("seen")
    # Data-modifying CTEs run whether or not the SELECT reads them; the count says
    # whether the version still matched (0: someone else changed it meanwhile).
    counted = select(func.count()).select_from(upd).add_cte(audit)
    return entry, counted.add_cte(seen), counted



class ResultLine(SimpleNamespace):
    """A result as read for a table's page or a correction: the columns of ``results``
    as attributes, in no session. (Building a mapped :class:`ResultRow` for each
    read cost a twentieth of a table's request.)"""


def _detached(r: object) -> ResultLine:
    return ResultLine(**r._asdict())  # type: ignore[attr-defined]


def result(store: Store, result_id: int) -> ResultRow:
    with _reading(store) as s:
        row = s.get(ResultRow, result_id)
        if row is None:
            raise EntryError(f"there is no result {result_id}")
        return row


def changes(store: Store, club_event_id: int) -> list[ResultChange]:
    with _reading(store) as s:
        return list(s.scalars(select(ResultChange).join(
            ResultRow, ResultChange.result_id == ResultRow.id)
            .where(ResultRow.club_event_id == club_event_id).order_by(ResultChange.id)))


def as_results(rows: Iterable[ResultRow]) -> list[Result]:
    """Traveller lines for :mod:`dealer.events` scoring."""
    out = []
    for r in rows:
        common = dict(section=r.section, table=r.table_no, round=r.round_no, group=r.fouled_group)
        if r.ns_artificial and r.ew_artificial:
            out.append(Result(r.board, r.ns, r.ew, ns_artificial=_adj(r.ns_artificial),
                              ew_artificial=_adj(r.ew_artificial), **common))
        elif r.not_played:
            out.append(Result(r.board, r.ns, r.ew, not_played=True, **common))
        else:
            c = None
            if r.contract and r.contract != "PASS":
                c = Contract.parse(r.contract, r.declarer)
            out.append(Result(r.board, r.ns, r.ew, r.score, contract=c, tricks=r.tricks,
                              **common))
    return out


def _adj(text: str) -> Artificial | float:
    try:
        return Artificial.parse(text)
    except EventError:
        return float(text)


# ----------------------------------------------------------------------------- corrections

EDITABLE = ("contract", "declarer", "tricks", "lead", "ns", "ew", "ns_artificial",
            "ew_artificial", "not_played", "fouled_group")
_PG_ENTRY, _PG_CORRECTION, _PG_CORRECTION_UNSIGNED = _pg_statements()



def correction_window_open(ce: ClubEvent, at: datetime | None = None) -> bool:
    """Law 79C: corrections until ``correction_minutes`` after the results are published."""
    if ce.published_at is None:
        return True
    at = at or _now()
    return at <= _aware(ce.published_at) + timedelta(minutes=ce.correction_minutes)


class _Stale(Exception):
    """Someone else changed the result between our read and our write."""


class _Resent(Exception):
    """The same correction form arrived twice at once."""


def correct(store: Store, result_id: int, *, who: str, reason: str = "",
            submission_id: str | None = None, expected_version: int | None = None,
            **values: object) -> Outcome:
    """Change fields of a result, rescoring it, with one audit row per changed field.

    ``expected_version`` guards against two people correcting at once: a
    stale version is a ``conflict``. A ``submission_id`` seen before is a
    ``duplicate`` and changes nothing.
    """
    try:
        # Without an expected version (the director's desk) a change that slipped in
        # between our read and our write is read again, not reported as a conflict.
        for _ in range(2 if expected_version is None else 0):
            try:
                return _correct(store, result_id, who=who, reason=reason,
                                submission_id=submission_id, expected_version=None, **values)
            except _Stale:
                continue
        return _correct(store, result_id, who=who, reason=reason, submission_id=submission_id,
                        expected_version=expected_version, **values)
    except _Stale:
        row = result(store, result_id)
        return Outcome("conflict", result_id, row.score,
                       f"the result was changed meanwhile (now {describe(row)})")
    except _Resent:
        return Outcome("duplicate", result_id, None, "already recorded; nothing changed")


def correct_at_table(store: Store, ce: ClubEvent, section: str, table: int, board: int, *,
                     who: str, reason: str, submission_id: str | None,
                     expected_version: int, **values: object) -> Outcome | None:
    """A table changes its own entry on ``board``; ``None`` if it has none.

    ``ce`` is the club event as read for this request: a table may change its
    entries only until the results are published (then only the director may).
    """
    with store.reads.connect() as conn:
        found = conn.execute(_AT_TABLE_BOARD_PUBLISHED, {"ce": ce.id, "section": section,
                                                         "table": table, "board": board}
                             ).first()
    if found is None:
        return None
    *line, published_at = found
    if published_at is not None:
        raise EntryError("the results are published: ask the director", "published")
    row = ResultLine(**dict(zip(_RESULTS.c.keys(), line, strict=True)))
    try:
        return _correct(store, row.id, who=who, reason=reason, submission_id=submission_id,
                        expected_version=expected_version, known=(row, ce), **values)
    except _Stale:
        now = result(store, row.id)
        return Outcome("conflict", row.id, now.score,
                       f"the result was changed meanwhile (now {describe(now)})")
    except _Resent:
        return Outcome("duplicate", row.id, None, "already recorded; nothing changed")


def _correct(store: Store, result_id: int, *, who: str, reason: str,
             submission_id: str | None, expected_version: int | None,
             known: tuple[ResultLine, ClubEvent] | None = None, **values: object) -> Outcome:
    for k in values:
        if k not in EDITABLE:
            raise EntryError(f"{k} cannot be corrected", k)
    # Read first, then write in a short transaction guarded by the version read: the
    # writer's turn is held only for the UPDATE and two INSERTs, not for the reads and
    # the rescoring (on SQLite every writer of every worker queues for that turn).
    with store.reads.connect() as conn:
        if known is not None:  # read by the caller in this request
            row, ce = known
        else:
            found = conn.execute(_RESULT_BY_ID, {"rid": result_id}).first()
            if found is None:
                raise EntryError(f"there is no result {result_id}")
            row = _detached(found)
            ce = ClubEvent(**conn.execute(_CLUB_EVENT_BY_ID, {"ce": row.club_event_id}
                                          ).one()._asdict())
        if expected_version is not None and row.version != expected_version:
            # A form sent again after it was carried out is stale too: say which it is.
            if submission_id is not None and conn.execute(_SUBMISSION_SEEN,
                                                          {"sid": submission_id}).first():
                return Outcome("duplicate", result_id, None, "already recorded; nothing changed")
            return Outcome("conflict", result_id, row.score,
                           f"the result was changed meanwhile (now {describe(row)})")
        old = {k: getattr(row, k) for k in (*EDITABLE, "score")}
        new = dict(old)
        new.update(values)
        _rescore(store, ce, row, new, conn)
    in_window = correction_window_open(ce)
    now = _now()
    changed = {k: new[k] for k in (*EDITABLE, "score") if new[k] != old[k]}
    if store.engine.dialect.name == "postgresql":
        _write_correction_pg(store, row, new, changed, old, now=now, who=who, reason=reason,
                             in_window=in_window, submission_id=submission_id)
    else:
        _write_correction(store, row, changed, old, now=now, who=who, reason=reason,
                          in_window=in_window, submission_id=submission_id)
    for k, v in changed.items():
        setattr(row, k, v)
    row.version += 1
    return Outcome("corrected", row.id, row.score, describe(row))


def _write_correction(store: Store, row: ResultLine, changed: dict, old: dict, *,
                      now: datetime, who: str, reason: str, in_window: bool,
                      submission_id: str | None) -> None:
    with _transaction(store) as conn:
        if submission_id is not None:
            try:  # a form seen before (however it arrived) changes nothing
                conn.execute(insert(_SUBMISSIONS), {"id": submission_id, "result_id": row.id,
                                                    "kind": "correction"})
            except IntegrityError:
                raise _Resent() from None
        # "WHERE version = <read>": two people correcting at once cannot both win,
        # on SQLite (whose reads take no lock) as on PostgreSQL.
        done = conn.execute(_UPDATE_RESULT, {"_rid": row.id, "_read": row.version, **changed,
                                             "updated_at": now, "version": row.version + 1})
        if done.rowcount != 1:
            raise _Stale()
        if changed:
            conn.execute(insert(_CHANGES), [
                {"result_id": row.id, "who": who[:100], "at": now, "field": k,
                 "old": _text(old[k]), "new": _text(v), "reason": reason[:300],
                 "in_window": in_window} for k, v in changed.items()])


def _write_correction_pg(store: Store, row: ResultLine, new: dict, changed: dict, old: dict, *,
                         now: datetime, who: str, reason: str, in_window: bool,
                         submission_id: str | None) -> None:
    """The same writes as :func:`_write_correction` in one statement (see _PG_CORRECTION)."""
    args = {**{k: new[k] for k in (*EDITABLE, "score")}, "updated_at": now,
            "version": row.version + 1, "_rid": row.id, "_read": row.version,
            "_who": who[:100], "_reason": reason[:300], "_inw": in_window,
            "_fields": list(changed), "_olds": [_text(old[k]) for k in changed],
            "_news": [_text(v) for v in changed.values()], "_sid": submission_id}
    try:
        with store.reads.connect() as conn:
            done = conn.execute(_PG_CORRECTION if submission_id is not None
                                else _PG_CORRECTION_UNSIGNED, args).scalar_one()
        if done != 1 and submission_id is not None and conn.execute(
                _SUBMISSION_SEEN, {"sid": submission_id}).first():
            raise _Resent()  # the same form twice at once: the other one changed it
    except IntegrityError:  # the submission id: this form was carried out already
        raise _Resent() from None
    if done != 1:
        raise _Stale()


def _rescore(store: Store, ce: ClubEvent, row: ResultRow | ResultLine, new: dict,
             conn: Connection | None = None) -> None:
    if new["ns_artificial"] or new["ew_artificial"]:
        if not (new["ns_artificial"] and new["ew_artificial"]):
            raise EntryError("an artificial score needs both sides, e.g. A+ and A-", "artificial")
        for k in ("ns_artificial", "ew_artificial"):
            new[k] = _adj_text(str(new[k]))
        new.update(contract=None, declarer=None, tricks=None, score=None, lead=None,
                   not_played=False)
        return
    if new["not_played"]:
        new.update(contract=None, declarer=None, tricks=None, score=None, lead=None)
        return
    e = Entry(row.board, str(new["contract"] or ""), str(new["declarer"] or ""),
              None if new["tricks"] is None else int(new["tricks"]), str(new["lead"] or ""))
    contract, decl, lead, tricks = e.checked()
    vul = _board_vulnerability(store, ce, row.board, conn)
    new.update(contract="PASS" if contract.is_passed_out else _ascii(contract), declarer=decl,
               lead=lead, tricks=None if contract.is_passed_out else tricks,
               score=0 if contract.is_passed_out else score_ns(contract, tricks, vul))


def _adj_text(text: str) -> str:
    try:
        return Artificial.parse(text).code
    except EventError:
        try:
            v = float(text)
        except ValueError:
            raise EntryError(f"unknown artificial score {text!r} (A+, A, A- or a percentage)",
                             "artificial") from None
        if not 0 <= v <= 100:
            raise EntryError("a percentage is 0 to 100", "artificial") from None
        return f"{v:g}"


def _text(v: object) -> str:
    return "" if v is None else str(v)


def swap_pairs(store: Store, result_id: int, *, who: str, reason: str = "") -> Outcome:
    """A pair sat the wrong way: swap NS and EW, so the score changes side."""
    row = result(store, result_id)
    return correct(store, result_id, who=who, reason=reason or "pairs sat the wrong way",
                   ns=row.ew, ew=row.ns)


def director_entry(store: Store, club_event_id: int, section: str, table: int, round_no: int,
                   board: int, *, who: str, artificial: tuple[str, str] | None = None,
                   not_played: bool = False) -> Outcome:
    """The director records an artificial score or a not-played board where none was entered."""
    ce = get_event(store, club_event_id)
    sitting = _movement(ce, section).at(table, round_no)
    row = ResultRow(club_event_id=club_event_id, section=section, table_no=table,
                    round_no=round_no, board=board, ns=sitting.ns, ew=sitting.ew,
                    entered_by=who[:100], not_played=not_played and artificial is None)
    if artificial is not None:
        row.ns_artificial, row.ew_artificial = (_adj_text(a) for a in artificial)
    try:
        with _writing(store) as s:
            s.add(row)
    except IntegrityError:
        return _after_race(store, club_event_id, section, table, board, "-")
    return Outcome("recorded", row.id, None, describe(row))


_CARD = re.compile(r"^[SHDC][2-9TJQKA]$|^-$")


def set_play(store: Store, result_id: int, text: str, *, who: str) -> int:
    """Attach the recorded play (PBN ``Play`` section: a trick a line, ``-`` for a card
    not played); returns the number of tricks. Every card is checked; none twice."""
    tricks = [ln.upper().replace("10", "T").split() for ln in text.strip().splitlines()
              if ln.strip() and not ln.lstrip().startswith(";")]
    seen: set[str] = set()
    for n, trick in enumerate(tricks, 1):
        if len(trick) > 4 or n > 13:
            raise EntryError(f"trick {n}: a trick has at most 4 cards and a deal 13 tricks",
                             "play")
        for card in trick:
            if not _CARD.match(card):
                raise EntryError(f"trick {n}: {card[:10]!r} is not a card (e.g. SA, H7, -)",
                                 "play")
            if card != "-" and card in seen:
                raise EntryError(f"trick {n}: {card} was already played", "play")
            seen.add(card)
    with _writing(store) as s:
        row = s.get(ResultRow, result_id)
        if row is None:
            raise EntryError(f"there is no result {result_id}")
        s.add(ResultChange(result_id=row.id, who=who[:100], field="play",
                           old=f"{len((row.play or '').splitlines())} tricks",
                           new=f"{len(tricks)} tricks", reason="recorded play"))
        row.play = "\n".join(" ".join(t) for t in tricks)
    return len(tricks)
