"""A board's hand record as an HTML fragment, with double-dummy results when endplay is here."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup

from dealer.board import Board
from dealer.records import board_html


@lru_cache(maxsize=512)
def _analysis(pbn: str, dealer: int, vul: str) -> tuple[object, object] | None:
    try:
        from dealer.dd import analyse
        from dealer.deal import Deal
        from dealer.seats import Seat, Vulnerability
    except ImportError:
        return None
    b = Board(1, Deal.from_pbn(pbn), dealer=Seat(dealer), vulnerability=Vulnerability(vul))
    try:
        return analyse([b])[0]
    except Exception:  # no solver installed, or it failed: show the deal alone
        return None


def board_fragment(b: Board) -> Markup:
    """Safe markup: :func:`dealer.records.board_html` escapes every text it writes."""
    if b.deal is None or b.dealer is None or b.vulnerability is None:
        return Markup(board_html(b))
    result = _analysis(b.deal.to_pbn(), int(b.dealer), b.vulnerability.value)
    return Markup(board_html(b, result))


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


def board_fragments(boards: list[Board], engine: object | None = None) -> dict[int, Markup]:
    """Many boards' fragments by number, solved in one batch and kept in the store's cache.

    A results page shows every board: solving them one by one costs a second each on a
    busy laptop, in one batch a fraction of that, and from the cache nothing the next time.
    """
    def key(b: Board) -> tuple[str, int, str]:
        return (b.deal.to_pbn(), int(b.dealer), b.vulnerability.value)  # type: ignore[union-attr, arg-type]

    full = [b for b in boards if b.deal is not None and b.dealer is not None
            and b.vulnerability is not None and b.deal.is_complete]
    todo = [b for b in full if key(b) not in _solved]
    if todo:
        try:
            from dealer.dd import analyse
            cache = _cache(engine) if engine is not None else None
            for b, res in zip(todo, analyse(todo, cache=cache), strict=True):  # type: ignore[arg-type]
                if len(_solved) > 4096:  # a bound, not a policy
                    _solved.clear()
                _solved[key(b)] = res
        except Exception:  # no solver, or it failed: the deals alone, as board_fragment does
            pass
    return {b.number: Markup(board_html(b, _solved.get(key(b)) if b in full else None))
            for b in boards}
