"""Boards' hand records as HTML fragments, with double-dummy results when endplay is here.

Solving a board takes about a tenth of a second of both cores (28 boards: 2-3 s on
an idle laptop, over 30 s on a busy one). Solved tables are kept by deal in the
store's ``dd_tables`` (:class:`dealer.dd.DDCache`), so each deal is solved once
for every worker and every restart, and a changed deal is simply another key.
The panel also solves a deal set's boards *ahead*, in a thread, as soon as it
has them (:func:`solve_ahead`: a set generated or imported, a set chosen for an
event), so the pages showing every board (the players' results page, its
download) find them solved; a page asked for before that solves what is
missing itself (in the same process it waits for the thread's batch instead).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from markupsafe import Markup

from dealer.board import Board
from dealer.records import board_html

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from dealer.deal import Deal

log = logging.getLogger(__name__)


def board_fragment(b: Board, engine: Engine | None = None) -> Markup:
    """Safe markup: :func:`dealer.records.board_html` escapes every text it writes."""
    return board_fragments([b], engine)[b.number]


_caches: dict[int, object] = {}


def _cache(engine: object) -> object | None:
    """The store's double-dummy cache (``dd_tables``), opened once per engine."""
    try:
        from dealer.dd import DDCache
    except ImportError:
        return None
    key = id(engine)
    if key not in _caches:
        _caches[key] = DDCache(engine)  # type: ignore[arg-type]
    return _caches[key]


#: Boards solved in this process, by (deal, dealer, vulnerability): a results page read
#: by every phone at the club solves nothing twice, not even a cache query.
_solved: dict[tuple[str, int, str], tuple[object, object]] = {}


def _full(boards: Iterable[Board]) -> list[Board]:
    return [b for b in boards if b.deal is not None and b.dealer is not None
            and b.vulnerability is not None and b.deal.is_complete and not b.deal.partial]


def board_fragments(boards: list[Board], engine: Engine | None = None, *,
                    analysis: bool = True) -> dict[int, Markup]:
    """Many boards' fragments by number, solved in one batch and kept in the store's cache.

    A results page shows every board: solving them one by one costs a second each on a
    busy laptop, in one batch a fraction of that, and from the cache nothing the next time.
    ``analysis=False``: the deals alone, nothing solved.
    """
    def key(b: Board) -> tuple[str, int, str]:
        return (b.deal.to_pbn(), int(b.dealer), b.vulnerability.value)  # type: ignore[union-attr, arg-type]

    full = _full(boards) if analysis else []
    todo = [b for b in full if key(b) not in _solved]
    if todo:
        try:
            from dealer.dd import analyse
            cache = _cache(engine) if engine is not None else None
            for b, res in zip(todo, analyse(todo, cache=cache), strict=True):  # type: ignore[arg-type]
                if len(_solved) > 4096:  # a bound, not a policy
                    _solved.clear()
                _solved[key(b)] = res
        except Exception:  # no solver, or it failed: the deals alone, as without endplay
            pass
    return {b.number: Markup(board_html(b, _solved.get(key(b)) if b in full else None))
            for b in boards}


# -- solving ahead -------------------------------------------------------------------------

_ahead: list[threading.Thread] = []
_ahead_lock = threading.Lock()


def solve_ahead(engine: Engine, boards: Iterable[Board]) -> threading.Thread | None:
    """Solve the boards' deals into the store's ``dd_tables`` in a thread of their own.

    Called where deals come into the panel, so the request that brought them does not
    wait (DDS leaves Python's lock free while it works: the worker's other requests
    go on). Nothing depends on it finishing: a worker that stops halfway leaves the
    rest to the first page that needs them. Deals already solved cost one query.
    """
    deals = list(dict.fromkeys(b.deal for b in _full(boards) if b.deal is not None))
    if not deals:
        return None
    t = threading.Thread(target=_solve_quietly, args=(engine, deals), daemon=True,
                         name="boardwright-dd-ahead")
    with _ahead_lock:
        _ahead[:] = [x for x in _ahead if x.is_alive()]
        _ahead.append(t)
    t.start()
    return t


def ahead(boards: Iterable[Board]) -> None:
    """:func:`solve_ahead` for the running panel, unless its ``DD_AHEAD`` setting is off
    (by default it is on, except under ``TESTING``: a test's thread would outlive it)."""
    from flask import current_app

    from webpanel.db import store

    on = current_app.config.get("DD_AHEAD")
    if on or (on is None and not current_app.testing):
        solve_ahead(store().engine, boards)


def _solve_quietly(engine: Engine, deals: list[Deal]) -> None:
    from dealer.dd import DDError, solve

    try:
        solve(deals, cache=_cache(engine))  # type: ignore[arg-type]
    except DDError:  # no endplay: the pages show the deals alone, as they always did
        pass
    except Exception as exc:  # a database error: the page solves the boards itself
        log.warning("could not solve %d deals ahead (the results page will): %s",
                    len(deals), str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def wait_ahead(timeout: float) -> bool:
    """Wait for this process's solving ahead to finish (tests, bench); True if it did."""
    end = time.monotonic() + timeout
    with _ahead_lock:
        threads = list(_ahead)
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    return not any(t.is_alive() for t in threads)
