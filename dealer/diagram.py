"""Text diagrams of a board, laid out like a printed hand record.

North sits at the top, South at the bottom, West and East either side of a
compass box that shows each hand's high-card points. Board number, dealer and
vulnerability fill the top-left corner, as on club hand records. Ten is
printed ``10`` and an empty suit ``—``.

>>> from dealer import Board, Deal
>>> d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
>>> print(board_diagram(Board(1, d)))
Board 1        ♠ A K Q J
Dealer North   ♥ 10 9 8
Vul None       ♦ 7 6 5
               ♣ 4 3 2
♠ 3 2        ┌──────────┐ ♠ 10 9 8 7
♥ A K Q J    │    10    │ ♥ 7 6 5
♦ 10 9 8     │ 10     9 │ ♦ 4 3 2
♣ 8 7 6 5    │    11    │ ♣ A K Q
             └──────────┘
               ♠ 6 5 4
               ♥ 4 3 2
               ♦ A K Q J
               ♣ J 10 9
"""

from __future__ import annotations

from dealer.board import Board
from dealer.cards import SUITS_DESCENDING
from dealer.hand import Hand
from dealer.seats import Seat, Vulnerability

_VUL_TEXT = {Vulnerability.NONE: "None", Vulnerability.NS: "N-S",
             Vulnerability.EW: "E-W", Vulnerability.BOTH: "All"}
_BOX_INNER = 10  # " 10    9 ": West and East HCP with room between


def _suit_lines(hand: Hand, *, unknown: bool) -> list[str]:
    if unknown:
        return ["(unknown)", "", "", ""]
    lines = []
    for suit in SUITS_DESCENDING:
        ranks = [("10" if r.char == "T" else r.char) for r in hand.suit(suit).ranks]
        lines.append(f"{suit.symbol} {' '.join(ranks) if ranks else '—'}")
    return lines


def _compass(hcp: dict[Seat, str]) -> list[str]:
    """The five lines of the compass box with the four HCP counts."""
    inner = _BOX_INNER
    side = f" {hcp[Seat.WEST]:<2}" + " " * (inner - 6) + f"{hcp[Seat.EAST]:>2} "
    return [
        "┌" + "─" * inner + "┐",
        "│" + hcp[Seat.NORTH].center(inner) + "│",
        "│" + side + "│",
        "│" + hcp[Seat.SOUTH].center(inner) + "│",
        "└" + "─" * inner + "┘",
    ]


def heading(board: Board) -> list[str]:
    """The board's three corner lines: number, dealer, vulnerability."""
    dealer = board.dealer.title if board.dealer is not None else "?"
    vul = _VUL_TEXT.get(board.vulnerability, "?") if board.vulnerability is not None else "?"
    return [f"Board {board.number}", f"Dealer {dealer}", f"Vul {vul}"]


def board_diagram(board: Board, *, sealed: bool = False) -> str:
    """The board as a hand diagram; a sealed set shows only the heading."""
    head = heading(board)
    if sealed:
        return "\n".join(head + ["(sealed: the hands stay hidden until the director unseals "
                                 "the set)"])
    if board.deal is None:
        return "\n".join(head + ["(no deal recorded)"])
    deal = board.deal
    # In a partial deal an empty hand is one nobody has recorded, not a void in every suit.
    unknown = {s: deal.partial and len(deal[s]) == 0 for s in Seat}
    hands = {s: _suit_lines(deal[s], unknown=unknown[s]) for s in Seat}
    hcp = {s: "?" if unknown[s] else str(deal[s].hcp) for s in Seat}
    box = _compass(hcp)
    left = max(len(x) for x in hands[Seat.WEST] + head)
    box_col = left + 1
    col = box_col + 2  # North and South line up just inside the compass box
    lines: list[str] = []
    for i, text in enumerate(hands[Seat.NORTH]):
        corner = head[i] if i < len(head) else ""
        lines.append(f"{corner:<{col}}{text}".rstrip())
    for i in range(5):
        west = hands[Seat.WEST][i] if i < 4 else ""
        east = hands[Seat.EAST][i] if i < 4 else ""
        lines.append(f"{west:<{box_col}}{box[i]} {east}".rstrip())
    for text in hands[Seat.SOUTH]:
        lines.append((" " * col + text).rstrip())
    return "\n".join(lines).rstrip()
