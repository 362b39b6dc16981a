"""Correcting recorded results, with the audit trail.

:func:`correct` changes fields of a recorded result, rescores it, and writes
one audit row per changed field (who, when, old, new, reason, and whether it
was inside the correction period of Law 79C: by default 30 minutes after the
results were published, WBF Laws 2017 Law 79C). Two people correcting at
once cannot both win: the write is guarded by the version that was read.

>>> from dealer.store import Store
>>> from dealer.store.results import create_club_event, Entry, submit, changes
>>> with Store.open("sqlite://") as st:
...     ce = create_club_event(st, "Monday", tables=3)
...     rid = submit(st, ce, "A", 1, 1, Entry(1, "4S", "N", 10), submission_id="s1",
...                  who="table 1").result_id
...     out = correct(st, rid, who="director", reason="typo", tricks=9)
...     trail = [(c.field, c.old, c.new) for c in changes(st, ce)]
>>> out.status, out.score, trail
('corrected', -50, [('tricks', '10', '9'), ('score', '420', '-50')])
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Select, String, bindparam, cast, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from dealer.scoring.duplicate import score_ns
from dealer.store.panel_models import ClubEvent, ResultRow
from dealer.store.repository import Store
from dealer.store.results import postgres
from dealer.store.results.club_events import movement_of
from dealer.store.results.common import (
    CHANGES,
    CLUB_EVENTS,
    EDITABLE,
    FLAGS,
    RESULTS,
    SUBMISSIONS,
    EntryError,
    Outcome,
    Resent,
    Stale,
    as_text,
    aware,
    check_reason,
    check_submission_id,
    now,
    transaction,
)
from dealer.store.results.entry import (
    Entry,
    artificial_code,
    contract_text,
    vulnerability_of,
    weighted_code,
)
from dealer.store.results.fairplay import (
    Refused,
    closed_message,
    current_round,
    may_change,
    round_of,
    viewed_clause,
)
from dealer.store.results.reading import (
    AT_TABLE_BOARD,
    CLUB_EVENT_BY_ID,
    RESULT_BY_ID,
    SUBMISSION_SEEN,
    ResultLine,
    describe,
    detached,
    result,
)

# The columns to set are the parameters' other keys; "WHERE version = <read>" means
# two people correcting at once cannot both win, on SQLite (whose reads take no
# lock) as on PostgreSQL.
_UPDATE_RESULT = update(RESULTS).where(RESULTS.c.id == bindparam("_rid"),
                                       RESULTS.c.version == bindparam("_read"))


@lru_cache(maxsize=4)
def _board_guarded(dialect: str) -> Select:
    """The table's result on one board with all that guards its change, in one row:
    whether the table was shown the board, publication, closing, entering ahead, and
    the boards the table has entered (accepted), as one text (``"1,2,5"``): one
    round trip, not every column of every result the table entered (fifty by the end
    of a night)."""
    mine = RESULTS.alias("mine")
    if dialect == "postgresql":
        boards = func.string_agg(cast(mine.c.board, String), ",")
    else:
        boards = func.group_concat(mine.c.board, ",")
    entered = (select(boards)
               .where(mine.c.club_event_id == RESULTS.c.club_event_id,
                      mine.c.section == RESULTS.c.section,
                      mine.c.table_no == RESULTS.c.table_no, mine.c.pending.is_(False))
               .scalar_subquery())
    return (AT_TABLE_BOARD
            .add_columns(viewed_clause().label("viewed"), CLUB_EVENTS.c.published_at,
                         CLUB_EVENTS.c.closed_at, CLUB_EVENTS.c.allow_ahead,
                         entered.label("entered"))
            .join(CLUB_EVENTS, CLUB_EVENTS.c.id == RESULTS.c.club_event_id))


def correction_window_open(ce: ClubEvent, at: datetime | None = None) -> bool:
    """Law 79C: corrections until ``correction_minutes`` after the results are published."""
    if ce.published_at is None:
        return True
    at = at or now()
    return at <= aware(ce.published_at) + timedelta(minutes=ce.correction_minutes)


def correct(store: Store, result_id: int, *, who: str, reason: str = "",
            submission_id: str | None = None, expected_version: int | None = None,
            **values: Any) -> Outcome:
    """Change fields of a result, rescoring it, with one audit row per changed field.

    ``expected_version`` guards against two people correcting at once: a
    stale version is a ``conflict``. A ``submission_id`` seen before is a
    ``duplicate`` and changes nothing. A reason or submission id too long to
    keep is refused (naming the field), never cut.
    """
    check_reason(reason)
    check_submission_id(submission_id, required=False)
    try:
        # Without an expected version (the director's desk) a change that slipped in
        # between our read and our write is read again, not reported as a conflict.
        for _ in range(2 if expected_version is None else 0):
            try:
                return _correct(store, result_id, who=who, reason=reason,
                                submission_id=submission_id, expected_version=None, **values)
            except Stale:
                continue
        return _correct(store, result_id, who=who, reason=reason, submission_id=submission_id,
                        expected_version=expected_version, **values)
    except Stale:
        row = result(store, result_id)
        return Outcome("conflict", result_id, row.score,
                       f"the result was changed meanwhile (now {describe(row)})")
    except Resent:
        return Outcome("duplicate", result_id, None, "already recorded; nothing changed")


def correct_at_table(store: Store, ce: ClubEvent, section: str, table: int, board: int, *,
                     who: str, reason: str, submission_id: str | None,
                     expected_version: int, **values: object) -> Outcome | None:
    """A table changes its own entry on ``board``; ``None`` if it has none.

    ``ce`` is the club event as read for this request; what guards the change is
    read again here, with the table's results, in one query: a table may change
    its entries only until the results are published (then only the director
    may), only while the event is open, and only in its current round (a
    finished round is the director's: :func:`~dealer.store.results.fairplay.may_change`).
    A change of a board the table was already shown is flagged ``changed_after_view``.
    """
    check_reason(reason)
    check_submission_id(submission_id, required=False)
    args = {"ce": ce.id, "section": section, "table": table, "board": board}
    found = next(iter(postgres.run(store, _board_guarded(store.engine.dialect.name), args)),
                 None)
    if found is None:
        return None
    *line, viewed, published_at, closed_at, allow_ahead, boards = found
    if published_at is not None:
        raise EntryError("the results are published: ask the director", "published")
    if closed_at is not None:
        raise Refused(closed_message(), "closed")
    m = movement_of(ce, section)
    # A pending result (East-West have not accepted it) does not finish a round: the
    # table may still change it, as in its current round.
    entered = {int(b) for b in boards.split(",")} if boards else set()
    if not may_change(bool(allow_ahead), m, table, board, entered):
        rnd = round_of(m, table, board)
        raise Refused(f"board {board} was played in round {rnd}, which this table has "
                      f"finished (it is in round {current_round(m, table, entered)}): "
                      "only the director changes it now", "round")
    row = ResultLine(**dict(zip(RESULTS.c.keys(), line, strict=True)))
    try:
        return _correct(store, row.id, who=who, reason=reason, submission_id=submission_id,
                        expected_version=expected_version, known=(row, ce),
                        viewed=bool(viewed), **values)
    except Stale:
        again = result(store, row.id)
        return Outcome("conflict", row.id, again.score,
                       f"the result was changed meanwhile (now {describe(again)})")
    except Resent:
        return Outcome("duplicate", row.id, None, "already recorded; nothing changed")


def _correct(store: Store, result_id: int, *, who: str, reason: str,
             submission_id: str | None, expected_version: int | None,
             known: tuple[ResultLine, ClubEvent] | None = None, viewed: bool = False,
             **values: object) -> Outcome:
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
            found = conn.execute(RESULT_BY_ID, {"rid": result_id}).first()
            if found is None:
                raise EntryError(f"there is no result {result_id}")
            row = detached(found)
            ce = ClubEvent(**conn.execute(CLUB_EVENT_BY_ID, {"ce": row.club_event_id}
                                          ).one()._asdict())
        if expected_version is not None and row.version != expected_version:
            # A form sent again after it was carried out is stale too: say which it is.
            if submission_id is not None and conn.execute(SUBMISSION_SEEN,
                                                          {"sid": submission_id}).first():
                return Outcome("duplicate", result_id, None, "already recorded; nothing changed")
            return Outcome("conflict", result_id, row.score,
                           f"the result was changed meanwhile (now {describe(row)})")
        old = {k: getattr(row, k) for k in (*EDITABLE, "score")}
        new = dict(old)
        new.update(values)
        _rescore(store, ce, row, new, conn)
    # The marks only ever go on: changed after publication (late), changed by the table
    # after it was shown the board (flagged on the desk).
    new["late"] = bool(row.late) or ce.published_at is not None
    new["changed_after_view"] = bool(row.changed_after_view) or viewed
    in_window = correction_window_open(ce)
    at = now()
    changed = {k: new[k] for k in (*EDITABLE, "score") if new[k] != old[k]}
    if store.engine.dialect.name == "postgresql":
        postgres.write_correction(store, row, new, changed, old, at=at, who=who, reason=reason,
                                  in_window=in_window, submission_id=submission_id)
    else:
        _write_correction(store, row, changed, {k: new[k] for k in FLAGS}, old, at=at,
                          who=who, reason=reason, in_window=in_window,
                          submission_id=submission_id)
    for k, v in changed.items():
        setattr(row, k, v)
    for k in FLAGS:
        setattr(row, k, new[k])
    row.version += 1
    return Outcome("corrected", row.id, row.score, describe(row))


def _write_correction(store: Store, row: ResultLine, changed: dict, flags: dict, old: dict, *,
                      at: datetime, who: str, reason: str, in_window: bool,
                      submission_id: str | None) -> None:
    with transaction(store) as conn:
        if submission_id is not None:
            try:  # a form seen before (however it arrived) changes nothing
                conn.execute(insert(SUBMISSIONS), {"id": submission_id, "result_id": row.id,
                                                   "kind": "correction"})
            except IntegrityError:
                raise Resent() from None
        done = conn.execute(_UPDATE_RESULT, {"_rid": row.id, "_read": row.version, **changed,
                                             **flags, "updated_at": at,
                                             "version": row.version + 1})
        if done.rowcount != 1:
            raise Stale()
        if changed:
            conn.execute(insert(CHANGES), [
                {"result_id": row.id, "who": who[:100], "at": at, "field": k,
                 "old": as_text(old[k]), "new": as_text(v), "reason": reason,
                 "in_window": in_window} for k, v in changed.items()])


def _rescore(store: Store, ce: ClubEvent, row: ResultRow | ResultLine, new: dict,
             conn: Connection | None = None) -> None:
    if new["ns_artificial"] or new["ew_artificial"]:
        if not (new["ns_artificial"] and new["ew_artificial"]):
            raise EntryError("an artificial score needs both sides, e.g. A+ and A-", "artificial")
        for k in ("ns_artificial", "ew_artificial"):
            new[k] = artificial_code(str(new[k]))
        new.update(contract=None, declarer=None, tricks=None, score=None, lead=None,
                   not_played=False, not_played_reason=None, weighted=None)
        return
    if new["weighted"]:
        if new["weighted"] != row.weighted:  # as the director typed it: check and score it
            new["weighted"] = weighted_code(str(new["weighted"]), row.board,
                                            vulnerability_of(store, ce, row.board, conn))
        new.update(contract=None, declarer=None, tricks=None, score=None, lead=None,
                   not_played=False, not_played_reason=None)
        return
    new["weighted"] = None
    if new["not_played"]:
        new.update(contract=None, declarer=None, tricks=None, score=None, lead=None)
        return
    new["not_played_reason"] = None  # played after all: no reason stays behind
    e = Entry(row.board, str(new["contract"] or ""), str(new["declarer"] or ""),
              None if new["tricks"] is None else int(new["tricks"]), str(new["lead"] or ""))
    contract, decl, lead, tricks = e.checked()
    vul = vulnerability_of(store, ce, row.board, conn)
    new.update(contract="PASS" if contract.is_passed_out else contract_text(contract),
               declarer=decl, lead=lead, tricks=None if contract.is_passed_out else tricks,
               score=0 if contract.is_passed_out else score_ns(contract, tricks, vul))


def swap_pairs(store: Store, result_id: int, *, who: str, reason: str = "") -> Outcome:
    """The pairs sat the wrong way: the pair in the NS seats is the other one.

    The pair numbers change seats, so each pair is credited with the seats it
    played. In a two-winner Mitchell (NS and EW both numbered from 1) the
    numbers alone would name two other pairs, who were elsewhere: the line is
    marked ``swapped`` as well, and each pair keeps its own line (field) in the
    ranking (:func:`dealer.events.matchpoints.pair_keys`). Swapping again puts
    the line back.
    """
    row = result(store, result_id)
    with store.reads.connect() as conn:
        ce = ClubEvent(**conn.execute(CLUB_EVENT_BY_ID, {"ce": row.club_event_id}
                                      ).one()._asdict())
    values: dict[str, Any] = {"ns": row.ew, "ew": row.ns}
    if movement_of(ce, row.section).numbering == "by_line":
        values["swapped"] = not row.swapped
    return correct(store, result_id, who=who, reason=reason or "pairs sat the wrong way",
                   **values)
