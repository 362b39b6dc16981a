"""Fair play at the tables: which boards a table may enter, see and change, and when.

A table may read a board's hand record and traveller only after it has played
the board, so the rules follow the movement and the table's own results:

* **Current round.** A table's current round is the earliest round in which it
  still has boards to enter (a round where it sits out or rests has none). It
  enters only that round's boards; a board of a later round is refused
  (:class:`Refused`) unless the director lets tables enter ahead
  (``ClubEvent.allow_ahead``), and then each such entry is written to the
  audit log. Once every round is done, the current round is the last one.
* **Reveal.** A board's hand record and traveller reach a table only after its
  own result on that board is entered, and then as the director's
  ``reveal_after`` says: ``"off"`` (never at the tables), ``"board"`` (at
  once) or ``"round"`` (the default: once the table has entered every board of
  that round). ``show_traveller`` and ``show_hand_record`` say *what* is shown;
  ``reveal_after`` says *when*. Showing it leaves a :class:`TableView` row.
* **Changes.** A table changes its own entry only in its current round (or a
  later one it entered ahead); a finished round is the director's. A change
  made after the table was shown the board is flagged (``changed_after_view``)
  for the desk.
* **Acceptance.** When the director asks for it (``ClubEvent.ew_accept``), a
  table's entry is *pending* until East-West accept it on the same phone
  (:func:`accept_at_table`): not scored, not shown to anyone else, and it does
  not finish a round (the table may still change it). Everywhere here "entered"
  means accepted.
* **Cards and closing.** New table cards for a session replace every token
  (``TableToken.issue`` counts up); an old card then says it was replaced.
  Closing an event ends its tokens. Both are in the audit log.

>>> from dealer.events.movements import mitchell
>>> m = mitchell(3, boards_per_round=2)
>>> [s.boards for s in playing(m, 1)]
[(1, 2), (3, 4), (5, 6)]
>>> current_round(m, 1, set()), current_round(m, 1, {1}), current_round(m, 1, {1, 2})
(1, 1, 2)
>>> current_round(m, 1, {1, 2, 3, 4, 5, 6})  # all done: the last round
3
>>> reveals("round", m, 1, 1, {1}), reveals("round", m, 1, 1, {1, 2})
(False, True)
>>> reveals("board", m, 1, 1, {1}), reveals("off", m, 1, 1, {1, 2}), reveals("board", m, 1, 2, {1})
(True, False, False)
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import (
    Exists,
    Table,
    and_,
    bindparam,
    exists,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dealer.events.movements import Movement, Sitting
from dealer.store import audit
from dealer.store.models import AuditEntry
from dealer.store.panel_models import ClubEvent, TableToken, TableView
from dealer.store.repository import Store
from dealer.store.results import postgres
from dealer.store.results.club_events import REVEAL, get_event, movement_of
from dealer.store.results.common import (
    CLUB_EVENTS,
    RESULTS,
    EntryError,
    Outcome,
    now,
    reading,
    transaction,
)
from dealer.store.results.entry import Entry, submit
from dealer.store.results.reading import AT_TABLE_BOARD, describe, detached


class Refused(EntryError):
    """Not this table's to do now (a later round, a finished round, a closed event):
    the panel answers 403, with the sentence."""


# ---------------------------------------------------------------- the rules (pure)
def playing(m: Movement, table: int) -> list[Sitting]:
    """The table's sittings with boards to enter, by round (no sit-outs, no rests)."""
    return list(_by_table(m).get(table, ()))


# Every table request asks playing() two or three times; walking a 25-table Mitchell's
# 625 sittings each time was a tenth of an entry's cost. The panel's movements are
# built once and never changed (club_events.movement_of caches them), so each one's
# index is kept beside it: the entry holds the movement itself (an id is reused only
# once its object is gone) and its number of sittings (a caller's own movement changed
# since would be indexed again).
_TABLES: dict[int, tuple[Movement, int, dict[int, tuple[Sitting, ...]]]] = {}


def _by_table(m: Movement) -> dict[int, tuple[Sitting, ...]]:
    kept = _TABLES.get(id(m))
    if kept is not None and kept[0] is m and kept[1] == len(m.sittings):
        return kept[2]
    index: dict[int, list[Sitting]] = {}
    for s in sorted(m.sittings, key=lambda s: s.round):
        if s.ns and s.ew and s.boards:
            index.setdefault(s.table, []).append(s)
    built = {t: tuple(ss) for t, ss in index.items()}
    if len(_TABLES) > 512:  # a bound, not a policy: the panel keeps 256 movements
        _TABLES.clear()
    _TABLES[id(m)] = (m, len(m.sittings), built)
    return built


def current_round(m: Movement, table: int, entered: Collection[int]) -> int:
    """The earliest round in which the table still has a board to enter; the last
    round once it has entered them all (1 for a table that never plays)."""
    plays = _by_table(m).get(table, ())
    for s in plays:
        if any(b not in entered for b in s.boards):
            return s.round
    return plays[-1].round if plays else 1


def round_of(m: Movement, table: int, board: int) -> int | None:
    """The round in which ``table`` plays ``board`` (``None``: it never does)."""
    return next((s.round for s in _by_table(m).get(table, ()) if board in s.boards), None)


def round_done(m: Movement, table: int, round_no: int, entered: Collection[int]) -> bool:
    """Whether the table has entered every board it plays in ``round_no``."""
    return all(b in entered for s in _by_table(m).get(table, ()) if s.round == round_no
               for b in s.boards)


def reveals(reveal_after: str, m: Movement, table: int, board: int,
            entered: Collection[int]) -> bool:
    """Whether the table may be shown ``board`` (its hand record, its traveller)."""
    if board not in entered or reveal_after == "off":
        return False
    if reveal_after == "board":
        return True
    rnd = round_of(m, table, board)
    return rnd is not None and round_done(m, table, rnd, entered)


def reveal_refusal(ce: ClubEvent, m: Movement, table: int, board: int,
                   entered: Collection[int]) -> str:
    """Why the table is not shown ``board`` now, in a sentence (empty: it may see it)."""
    if board not in entered:
        return (f"Board {board} is shown here only after this table has entered its own "
                "result on it.")
    if ce.reveal_after not in REVEAL[1:] or not (ce.show_traveller or ce.show_hand_record):
        return "The director does not show hand records or travellers at the tables."
    if not reveals(ce.reveal_after, m, table, board, entered):
        rnd = round_of(m, table, board)
        return (f"Board {board} is shown once this table has entered every board of "
                f"round {rnd}.")
    return ""


def may_change(allow_ahead: bool, m: Movement, table: int, board: int,
               entered: Collection[int]) -> bool:
    """Whether the table may still change its own entry on ``board``: only in its
    current round (or a later round it entered ahead of time, while that is allowed)."""
    rnd = round_of(m, table, board)
    if rnd is None:
        return False
    cur = current_round(m, table, entered)
    return rnd == cur or (allow_ahead and rnd > cur)


def rounds_open(ce: ClubEvent, m: Movement, table: int, entered: Collection[int]) -> range:
    """The rounds a table's page may show: up to its current round, or every round
    while the director lets tables enter ahead."""
    if ce.allow_ahead:
        return range(1, m.rounds + 1)
    return range(1, current_round(m, table, entered) + 1)


# ---------------------------------------------------------------- the table's state
@dataclass(frozen=True)
class TableState:
    """What a table's write is checked against, read fresh in one query (not the
    table context the panel keeps for a moment)."""

    entered: frozenset[int]
    allow_ahead: bool
    closed: bool
    published: bool
    ew_accept: bool = False


_STATE = (select(CLUB_EVENTS.c.allow_ahead, CLUB_EVENTS.c.closed_at, CLUB_EVENTS.c.published_at,
                 CLUB_EVENTS.c.ew_accept, RESULTS.c.board, RESULTS.c.pending)
          .select_from(CLUB_EVENTS.outerjoin(RESULTS, and_(
              RESULTS.c.club_event_id == CLUB_EVENTS.c.id,
              RESULTS.c.section == bindparam("section"),
              RESULTS.c.table_no == bindparam("table"))))
          .where(CLUB_EVENTS.c.id == bindparam("ce")))


def table_state(store: Store, club_event_id: int, section: str, table: int) -> TableState:
    """The table's entered (accepted) boards and the event's switches, in one query."""
    rows = postgres.run(store, _STATE, {"ce": club_event_id, "section": section,
                                        "table": table})
    if not rows:
        raise EntryError(f"there is no club event {club_event_id}")
    allow_ahead, closed_at, published_at, ew_accept = rows[0][:4]
    return TableState(frozenset(board for *_, board, pending in rows
                                if board is not None and not pending),
                      bool(allow_ahead), closed_at is not None,
                      published_at is not None, bool(ew_accept))


def closed_message() -> str:
    return ("This event is closed: its table cards no longer open it. The director "
            "still has the results.")


def submit_at_table(store: Store, ce: ClubEvent, section: str, table: int, entry: Entry, *,
                    submission_id: str, who: str, confirm: bool = False) -> Outcome:
    """A table's entry, in the round the movement plays its board at this table.

    The round comes from the board, never from the page the form was on: a
    board of the table's current round is recorded; a board of an earlier
    round was entered already (a resent form is a duplicate, another a
    conflict); a board of a later round is :class:`Refused` unless the
    director lets tables enter ahead, and then it is audited. A board the
    table never plays is an :class:`EntryError` naming the board.
    """
    state = table_state(store, ce.id, section, table)
    if state.closed:
        raise Refused(closed_message(), "closed")
    m = movement_of(ce, section)
    rnd = round_of(m, table, entry.board)
    if rnd is None:
        boards = ", ".join(str(b) for s in playing(m, table) for b in s.boards)
        raise EntryError(f"board {entry.board} is not played at this table "
                         f"(its boards are {boards})", "board")
    cur = current_round(m, table, state.entered)
    ahead = rnd > cur
    if ahead and not state.allow_ahead:
        raise Refused(f"board {entry.board} is played in round {rnd}; this table is in "
                      f"round {cur} and enters its boards "
                      f"({', '.join(map(str, m.at(table, cur).boards))}) first. Ask the "
                      "director if the table must enter ahead.", "round")
    out = submit(store, ce.id, section, table, rnd, entry, submission_id=submission_id,
                 who=who, confirm=confirm, ce=ce, late=state.published,
                 pending=state.ew_accept)
    if ahead and out.status == "recorded":
        with store.write() as s:
            add_audit(s, who, "enter-ahead", f"event {ce.id} table {section}{table}",
                      f"board {entry.board} of round {rnd} entered in round {cur}")
    return out


# ---------------------------------------------------------------- the opponents accept
# Parameters named apart from the columns (an UPDATE reserves the column names).
_ACCEPT = (update(RESULTS)
           .where(RESULTS.c.club_event_id == bindparam("_ce"),
                  RESULTS.c.section == bindparam("_section"),
                  RESULTS.c.table_no == bindparam("_table"),
                  RESULTS.c.board == bindparam("_board"),
                  RESULTS.c.pending.is_(True), RESULTS.c.version == bindparam("_version"),
                  # Closing the event ends acceptance too: checked in the same statement,
                  # so the common case is one round trip (the reason is read on a miss).
                  ~exists().where(CLUB_EVENTS.c.id == bindparam("_ce"),
                                  CLUB_EVENTS.c.closed_at.is_not(None)))
           .values(pending=False, updated_at=bindparam("_at"))
           .returning(RESULTS.c.id))
_CLOSED = select(CLUB_EVENTS.c.closed_at).where(CLUB_EVENTS.c.id == bindparam("ce"))


def accept_at_table(store: Store, ce: ClubEvent, section: str, table: int, board: int, *,
                    version: int) -> Outcome | None:
    """East-West accept North-South's entry on ``board`` as they were shown it
    (``version``); from now on it counts. ``None``: the table has no entry there.

    One UPDATE on both backends, guarded by the version shown: a result North-South
    changed after East-West looked is a ``conflict`` (shown again), an accepted one
    a ``duplicate`` (a resent form), never accepted twice or in a form not seen.
    """
    args = {"_ce": ce.id, "_section": section, "_table": table, "_board": board,
            "_version": version, "_at": now()}
    if store.engine.dialect.name == "postgresql":
        rid = postgres.accept_entry(store, _ACCEPT, args)
    else:
        with transaction(store) as conn:
            rid = conn.execute(_ACCEPT, args).scalar()
    if rid is not None:
        return Outcome("accepted", rid, None, f"board {board} accepted")
    with store.reads.connect() as conn:
        if conn.execute(_CLOSED, {"ce": ce.id}).scalar() is not None:
            raise Refused(closed_message(), "closed")
        row = conn.execute(AT_TABLE_BOARD, {"ce": ce.id, "section": section, "table": table,
                                            "board": board}).first()
    if row is None:
        return None
    if not row.pending:
        return Outcome("duplicate", row.id, row.score, "already accepted; nothing changed")
    return Outcome("conflict", row.id, row.score,
                   f"North-South changed it meanwhile (now {describe(detached(row))}): check it "
                   "again before accepting")


# ---------------------------------------------------------------- what a table was shown
_VIEWED = select(TableView.id).where(
    TableView.club_event_id == bindparam("ce"), TableView.section == bindparam("section"),
    TableView.table_no == bindparam("table"), TableView.board == bindparam("board"))
VIEWS = cast(Table, TableView.__table__)


def record_view(store: Store, club_event_id: int, section: str, table: int,
                board: int) -> None:
    """Remember that the table was shown ``board`` (once; a reload adds nothing)."""
    args = {"ce": club_event_id, "section": section, "table": table, "board": board}
    with store.reads.connect() as conn:
        if conn.execute(_VIEWED, args).first() is not None:
            return
    try:
        with transaction(store) as conn:
            conn.execute(insert(VIEWS), {"club_event_id": club_event_id, "section": section,
                                         "table_no": table, "board": board, "at": now()})
    except IntegrityError:  # another request of the same table got there first
        pass


def viewed_clause() -> Exists:
    """``EXISTS`` a view of the result's board by the result's table (for a query on
    ``results``)."""
    return exists().where(VIEWS.c.club_event_id == RESULTS.c.club_event_id,
                          VIEWS.c.section == RESULTS.c.section,
                          VIEWS.c.table_no == RESULTS.c.table_no,
                          VIEWS.c.board == RESULTS.c.board)


# ---------------------------------------------------------------- the audit log
def add_audit(s: Session, who: str, action: str, subject: str, detail: str = "") -> None:
    """One line of the audit log (:mod:`dealer.store.audit`), in the caller's unit of work."""
    audit.add(s, who=who, action=action, subject=subject, detail=detail)


def audit_log(store: Store, club_event_id: int | None = None) -> list[AuditEntry]:
    """The audit log, oldest first (only one club event's lines, if given)."""
    q = select(AuditEntry).order_by(AuditEntry.id)
    if club_event_id is not None:
        subject = f"event {club_event_id}"
        q = q.where(or_(AuditEntry.subject == subject,
                        AuditEntry.subject.startswith(subject + " ", autoescape=True)))
    with reading(store) as s:
        return list(s.scalars(q))


# ---------------------------------------------------------------- new cards, closing
def _fingerprint(token: str) -> str:
    # The log keeps a replaced token's hash, never the token: a dead card's address
    # is recognised ("replaced") without the log holding a key.
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


def new_table_cards(store: Store, club_event_id: int, *, who: str) -> int:
    """New tokens for every table of the event, ending the old ones; returns the new
    issue number. Each replaced card is logged by its token's hash."""
    ce = get_event(store, club_event_id)
    if ce.closed_at is not None:
        raise EntryError("the event is closed: its tables get no new cards", "closed")
    with store.write() as s:
        toks = list(s.scalars(select(TableToken).where(
            TableToken.club_event_id == club_event_id)
            .order_by(TableToken.section, TableToken.table_no)))
        if not toks:
            raise EntryError(f"club event {club_event_id} has no tables")
        issue = max(t.issue for t in toks) + 1
        for t in toks:
            add_audit(s, who, "table-card-replaced",
                      f"event {club_event_id} table {t.section}{t.table_no}",
                      _fingerprint(t.token))
            t.token, t.issue = secrets.token_urlsafe(18), issue
        add_audit(s, who, "new-table-cards", f"event {club_event_id}",
                  f"issue {issue}: {len(toks)} tables; the earlier cards open nothing")
    return issue


_REPLACED = select(AuditEntry.id).where(AuditEntry.action == "table-card-replaced",
                                        AuditEntry.detail == bindparam("fp"))


def replaced_card(store: Store, token: str) -> bool:
    """Whether ``token`` was a table card that new cards replaced (asked only for a
    token that opens nothing, to say so plainly)."""
    if not token or len(token) > 64:
        return False
    with store.reads.connect() as conn:
        return conn.execute(_REPLACED, {"fp": _fingerprint(token)}).first() is not None


def close_event(store: Store, club_event_id: int, *, who: str,
                at: datetime | None = None) -> None:
    """Close the event: its table cards open nothing from now on (the director's pages
    still show everything). Closing again changes nothing."""
    ce = get_event(store, club_event_id)
    if ce.closed_at is not None:
        return
    with store.write() as s:
        s.execute(update(ClubEvent).where(ClubEvent.id == club_event_id)
                  .values(closed_at=at or now()))
        add_audit(s, who, "close-event", f"event {club_event_id}",
                  "the table cards no longer open it")
