"""The tables' progress, as a Bridgemate control program shows it on the director's desk.

For each table: the round it is in (the earliest with a board still to enter,
:func:`~dealer.store.results.fairplay.current_round`), how many of that
round's boards it has entered, when it entered its last one, and what that
means for the room:

- ``finished``: every board of the movement is entered;
- ``round done``: it is past the room's round (the earliest round a table is
  still playing) and waits for the move;
- ``slow``: it is still in the room's round and nothing has come from it for
  :data:`SLOW_MINUTES` longer than from a typical table (the median idle time
  of all the tables): about a board's play;
- ``playing``: any other table in the room's round.

A table that has entered nothing yet counts its idle time from the event's
first entry (nobody is slow before anything is entered).

>>> from dealer.events.movements import mitchell
>>> from datetime import datetime, UTC, timedelta
>>> from types import SimpleNamespace as Row
>>> t0 = datetime(2026, 11, 24, 19, 30, tzinfo=UTC)
>>> entries = [(1, 1, 14), (1, 2, 16), (2, 3, 15), (2, 4, 17), (3, 5, 18), (4, 7, 5)]
>>> rows = [Row(section="A", table_no=t, board=b, created_at=t0 + timedelta(minutes=m))
...         for t, b, m in entries]
>>> for p in table_progress({"A": mitchell(5)}, rows, t0 + timedelta(minutes=20)):
...     print(p.table, p.round, f"{p.entered}/{p.boards}", p.state, p.idle)
1 2 0/2 round done 4.0
2 2 0/2 round done 3.0
3 1 1/2 playing 2.0
4 1 1/2 slow 15.0
5 1 0/2 slow 15.0
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dealer.events.movements import Movement
from dealer.store.results.common import aware
from dealer.store.results.fairplay import current_round, playing

#: Minutes a table may be idle beyond the other tables before the desk calls it slow.
SLOW_MINUTES = 7.0


@dataclass(frozen=True)
class TableProgress:
    """One table's place in the evening (see the module's text for ``state``)."""

    section: str
    table: int
    round: int
    entered: int  # boards of ``round`` entered
    boards: int   # boards of ``round``
    last: datetime | None  # its last entry
    idle: float | None     # minutes since its last entry (or since the first of the event)
    state: str

    @property
    def name(self) -> str:
        return f"{self.section}{self.table}"


def table_progress(movements: Mapping[str, Movement], rows: Iterable[Any],
                   now: datetime) -> list[TableProgress]:
    """Every playing table of every section, in section and table order.

    ``rows`` are the event's results (``section``, ``table_no``, ``board``,
    ``created_at``); ``now`` is the time the idle minutes are counted to.
    """
    entered: dict[tuple[str, int], set[int]] = defaultdict(set)
    last: dict[tuple[str, int], datetime] = {}
    first: datetime | None = None
    for r in rows:
        key = (r.section, r.table_no)
        entered[key].add(r.board)
        at = aware(r.created_at)
        if key not in last or at > last[key]:
            last[key] = at
        first = at if first is None or at < first else first
    tables: list[tuple[str, int, int, int, int, bool]] = []
    for sec, m in movements.items():
        for t in range(1, m.tables + 1):
            plays = playing(m, t)
            if not plays:
                continue
            got = entered[(sec, t)]
            rnd = current_round(m, t, got)
            boards = [b for s in plays if s.round == rnd for b in s.boards]
            done = all(b in got for s in plays for b in s.boards)
            tables.append((sec, t, rnd, sum(b in got for b in boards), len(boards), done))
    room = min((rnd for *_, rnd, _, _, done in tables if not done), default=0)

    def idle(sec: str, t: int) -> float | None:
        since = last.get((sec, t), first)
        return None if since is None else round((now - since).total_seconds() / 60.0, 1)

    idles = {(sec, t): idle(sec, t) for sec, t, *_ in tables}
    known = [v for v in idles.values() if v is not None]
    typical = statistics.median(known) if known else 0.0
    out = []
    for sec, t, rnd, n_got, n_boards, done in tables:
        mine = idles[(sec, t)]
        if done:
            state = "finished"
        elif rnd > room:
            state = "round done"
        elif mine is not None and mine - typical >= SLOW_MINUTES:
            state = "slow"
        else:
            state = "playing"
        out.append(TableProgress(sec, t, rnd, n_got, n_boards, last.get((sec, t)), mine, state))
    return out
