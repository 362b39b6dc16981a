"""Text diagrams of a board, with suit symbols, for terminals and plain-text reports.

>>> from dealer import Board, Deal
>>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
>>> print(board_diagram(Board(1, d)).splitlines()[0])
Board 1   Dealer N   Vul None
"""

from __future__ import annotations

from dealer.board import Board
from dealer.cards import SUITS_DESCENDING
from dealer.hand import Hand
from dealer.seats import Seat


def _hand_lines(hand: Hand, title: str) -> list[str]:
    lines = [f"{title} ({hand.hcp})"]
    for suit in SUITS_DESCENDING:
        holding = str(hand.suit(suit)) or "—"
        lines.append(f"{suit.symbol} {holding}")
    return lines


def board_diagram(board: Board, *, sealed: bool = False) -> str:
    """The board as a compass diagram; HCP beside each seat's name."""
    vul = board.vulnerability.value if board.vulnerability else "?"
    head = f"Board {board.number}   Dealer {board.dealer.letter if board.dealer is not None else '?'}   Vul {vul}"
    if sealed:
        return head + "\n  (sealed: the hands are hidden until the director unseals the set)"
    if board.deal is None:
        return head + "\n  (no deal recorded)"
    deal = board.deal
    names = {s: s.name.title() for s in Seat}
    north = _hand_lines(deal[Seat.NORTH], names[Seat.NORTH])
    south = _hand_lines(deal[Seat.SOUTH], names[Seat.SOUTH])
    west = _hand_lines(deal[Seat.WEST], names[Seat.WEST])
    east = _hand_lines(deal[Seat.EAST], names[Seat.EAST])
    pad = " " * 20
    out = [head, ""]
    out += [pad + line for line in north]
    out.append("")
    for w, e in zip(west, east, strict=True):
        out.append(f"{w:<40}{e}")
    out.append("")
    out += [pad + line for line in south]
    return "\n".join(out)
