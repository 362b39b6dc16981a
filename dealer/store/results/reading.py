"""Reading recorded results: an event's results and audit trail, one table's lines,
a result in words, and traveller lines for :mod:`dealer.events` scoring."""

from __future__ import annotations

from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, func, select

from dealer.contract import Contract
from dealer.events.model import Artificial, EventError, Result
from dealer.store.panel_models import ResultChange, ResultRow
from dealer.store.repository import Store
from dealer.store.results.common import CLUB_EVENTS, RESULTS, SUBMISSIONS, EntryError, reading


class ResultLine(SimpleNamespace):
    """A result as read for a table's page or a correction: the columns of ``results``
    as attributes, in no session. (Building a mapped :class:`ResultRow` for each
    read cost a twentieth of a table's request.)"""


def detached(r: object) -> ResultLine:
    """A :class:`ResultLine` from a Core row of ``results``."""
    return ResultLine(**r._asdict())  # type: ignore[attr-defined]


# Built once: composing a statement costs more than running it on this path.
AT_TABLE = select(RESULTS).where(RESULTS.c.club_event_id == bindparam("ce"),
                                 RESULTS.c.section == bindparam("section"),
                                 RESULTS.c.table_no == bindparam("table"))
AT_TABLE_BOARD = AT_TABLE.where(RESULTS.c.board == bindparam("board"))
SUBMISSION_SEEN = select(SUBMISSIONS.c.id).where(SUBMISSIONS.c.id == bindparam("sid"))
RESULT_BY_ID = select(RESULTS).where(RESULTS.c.id == bindparam("rid"))
CLUB_EVENT_BY_ID = select(CLUB_EVENTS).where(CLUB_EVENTS.c.id == bindparam("ce"))


def results(store: Store, club_event_id: int, *,
            include_pending: bool = False) -> list[ResultRow]:
    """The event's results by board, section and table. A result East-West have not
    accepted yet (``pending``) is not a result: it is left out unless asked for."""
    q = select(ResultRow).where(ResultRow.club_event_id == club_event_id)
    if not include_pending:
        q = q.where(ResultRow.pending.is_(False))
    with reading(store) as s:
        return list(s.scalars(q.order_by(ResultRow.board, ResultRow.section,
                                         ResultRow.table_no)))


def table_results(store: Store, club_event_id: int, section: str, table: int,
                  board: int | None = None) -> dict[int, ResultLine]:
    """One table's results by board (or just ``board``), read by the unique index.

    A table's page and its corrections need only its own lines; reading the
    whole event's results for them made every correction slower as the evening
    went on.
    """
    args = {"ce": club_event_id, "section": section, "table": table, "board": board}
    with store.reads.connect() as conn:
        rows = conn.execute(AT_TABLE if board is None else AT_TABLE_BOARD, args)
        return {r.board: detached(r) for r in rows}


_STAMP = select(func.count(RESULTS.c.id), func.coalesce(func.sum(RESULTS.c.version), 0)).where(
    RESULTS.c.club_event_id == bindparam("ce"))


def desk_stamp(store: Store, club_event_id: int) -> str:
    """A mark that changes whenever the event's results do: a result entered (the
    count) or changed (every change counts its row's version up). The desk's live
    refresh asks for the pages' parts again only when it changed."""
    with store.reads.connect() as conn:
        count, versions = conn.execute(_STAMP, {"ce": club_event_id}).one()
    return f"{count}.{versions}"


def result(store: Store, result_id: int) -> ResultRow:
    with reading(store) as s:
        row = s.get(ResultRow, result_id)
        if row is None:
            raise EntryError(f"there is no result {result_id}")
        return row


def changes(store: Store, club_event_id: int) -> list[ResultChange]:
    with reading(store) as s:
        return list(s.scalars(select(ResultChange).join(
            ResultRow, ResultChange.result_id == ResultRow.id)
            .where(ResultRow.club_event_id == club_event_id).order_by(ResultChange.id)))


class TrailLine(SimpleNamespace):
    """A line of the audit trail with where its result was played: ``board``,
    ``section``, ``table_no`` and ``round_no`` beside the change's own columns."""

    @property
    def where(self) -> str:
        """``board 3, table A2, round 1``: what a director calls the result."""
        return f"board {self.board}, table {self.section}{self.table_no}, round {self.round_no}"


_TRAIL = (select(ResultChange, ResultRow.board, ResultRow.section, ResultRow.table_no,
                 ResultRow.round_no)
          .join(ResultRow, ResultChange.result_id == ResultRow.id)
          .where(ResultRow.club_event_id == bindparam("ce")).order_by(ResultChange.id))


def trail(store: Store, club_event_id: int) -> list[TrailLine]:
    """The event's audit trail, each change with the board, table and round it is of
    (the desk names a result as the director does, never by its row id)."""
    with reading(store) as s:
        return [TrailLine(**{k: getattr(c, k) for k in ("id", "result_id", "who", "at",
                                                       "field", "old", "new", "reason",
                                                       "in_window")},
                          board=board, section=section, table_no=table, round_no=rnd)
                for c, board, section, table, rnd in s.execute(_TRAIL, {"ce": club_event_id})]


def describe(row: ResultRow | ResultLine | SimpleNamespace) -> str:
    """A result in words: ``4S by N, 10 tricks, NS +420``, ``passed out``, ``artificial A+/A-``."""
    if row.ns_artificial:
        return f"artificial {row.ns_artificial}/{row.ew_artificial}"
    if getattr(row, "weighted", None):
        return f"weighted {row.weighted}"
    if row.not_played:
        why = getattr(row, "not_played_reason", None)
        return f"not played ({why})" if why else "not played"
    if row.contract == "PASS":
        return "passed out"
    return f"{row.contract} by {row.declarer}, {row.tricks} tricks, NS {row.score:+d}"


def as_results(rows: Iterable[ResultRow]) -> list[Result]:
    """Traveller lines for :mod:`dealer.events` scoring."""
    out = []
    for r in rows:
        common: dict[str, Any] = dict(section=r.section, table=r.table_no, round=r.round_no,
                                      group=r.fouled_group)
        # Rows from elsewhere (a results file, an older reader) may lack the newer columns.
        common["swapped"] = bool(getattr(r, "swapped", False))
        weighted = getattr(r, "weighted", None)
        if r.ns_artificial and r.ew_artificial:
            out.append(Result(r.board, r.ns, r.ew, ns_artificial=_adj(r.ns_artificial),
                              ew_artificial=_adj(r.ew_artificial), **common))
        elif weighted:
            out.append(Result(r.board, r.ns, r.ew, weighted=weighted_parts(str(weighted)),
                              **common))
        elif r.not_played:
            out.append(Result(r.board, r.ns, r.ew, not_played=True, **common))
        else:
            c = None
            if r.contract and r.contract != "PASS":
                c = Contract.parse(r.contract, r.declarer)
            out.append(Result(r.board, r.ns, r.ew, r.score, contract=c, tricks=r.tricks,
                              **common))
    return out


def weighted_parts(text: str) -> tuple[tuple[float, int], ...]:
    """A stored weighted score's parts as (share, NS score).

    >>> weighted_parts("60% 4S N 10 +420; 40% 4S N 9 -50")
    ((0.6, 420), (0.4, -50))
    """
    out = []
    for part in text.split(";"):
        words = part.split()
        try:
            out.append((float(words[0].rstrip("%")) / 100.0, int(words[-1])))
        except (IndexError, ValueError):
            raise EntryError(f"the stored weighted score {text!r} cannot be read",
                             "weighted") from None
    return tuple(out)


def _adj(text: str) -> Artificial | float:
    try:
        return Artificial.parse(text)
    except EventError:
        return float(text)
