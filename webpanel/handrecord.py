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
