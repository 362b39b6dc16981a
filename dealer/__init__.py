"""boardwright's core: cards, deals, boards, formats, rules, scoring and storage.

Pure Python: nothing here imports OpenCV, Flask or pyserial.

>>> from dealer import Deal, Seat
>>> Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")[Seat.NORTH].hcp
10
"""

from dealer.board import Board, DealSet
from dealer.cards import SUITS_DESCENDING, Card, Rank, Strain, Suit
from dealer.deal import Deal
from dealer.errors import BoardwrightError, CardError, DealError, FormatError
from dealer.hand import Hand
from dealer.seats import Seat, Side, Vulnerability, board_dealer, board_vulnerability

__all__ = [
    "Board", "BoardwrightError", "Card", "CardError", "Deal", "DealError", "DealSet",
    "FormatError", "Hand", "Rank", "SUITS_DESCENDING", "Seat", "Side", "Strain", "Suit",
    "Vulnerability", "board_dealer", "board_vulnerability",
]
__version__ = "0.1.0"
