"""Boards and deal sets.

A :class:`Board` is a deal with its number; the dealer and vulnerability follow
from the number by the standard 16-board cycle (seed 002) unless a file says
otherwise. A :class:`DealSet` is an event's ordered boards with metadata.

>>> b = Board(17, None)
>>> b.dealer, b.vulnerability
(<Seat.NORTH: 0>, <Vulnerability.NONE: 'None'>)
>>> Board(7, None).vulnerability.value
'All'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from dealer.deal import Deal
from dealer.errors import DealError
from dealer.seats import Seat, Vulnerability, board_dealer, board_vulnerability

#: The highest board number boardwright accepts. Real sets stop far below it; a
#: larger number is a damaged file (23 digits once crashed the store's import).
MAX_BOARD = 999_999


@dataclass(slots=True)
class Board:
    """One board: its number, the deal (``None`` if unknown), dealer and vulnerability.

    ``tags`` keeps any other PBN-style tag values a file carried (``Event``,
    ``Contract``, ``Result`` ...) in file order, and ``sections`` the raw text
    of sections such as ``Auction`` and ``Play``, so conversions lose nothing
    the model holds.
    """

    number: int
    deal: Deal | None
    dealer: Seat | None = None
    vulnerability: Vulnerability | None = None
    tags: dict[str, str] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.number < 1:
            raise DealError(f"board number {self.number} must be 1 or more")
        if self.number > MAX_BOARD:
            raise DealError(f"board number {self.number} is too large (at most {MAX_BOARD:,})")
        if self.dealer is None:
            self.dealer = board_dealer(self.number)
        if self.vulnerability is None:
            self.vulnerability = board_vulnerability(self.number)

    @property
    def standard_markings(self) -> bool:
        """True when dealer and vulnerability match the board number's cycle."""
        return (self.dealer, self.vulnerability) == (
            board_dealer(self.number), board_vulnerability(self.number))


@dataclass(slots=True)
class DealSet:
    """An ordered collection of boards with event metadata.

    ``meta`` holds event-level facts by PBN tag name where one exists
    (``Event``, ``Site``, ``Date``, ``Generator`` ...). ``sealed`` marks a set
    whose hands must not be shown until the director unseals it.
    """

    boards: list[Board] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    sealed: bool = False

    def __iter__(self) -> Iterator[Board]:
        return iter(self.boards)

    def __len__(self) -> int:
        return len(self.boards)

    def board(self, number: int) -> Board:
        for b in self.boards:
            if b.number == number:
                return b
        raise DealError(f"board {number} is not in this set (boards {self.describe_range()})")

    @property
    def numbers(self) -> list[int]:
        return [b.number for b in self.boards]

    def describe_range(self) -> str:
        nums = self.numbers
        if not nums:
            return "none"
        return f"{min(nums)}-{max(nums)}" if len(nums) > 1 else str(nums[0])

    @property
    def deals(self) -> list[Deal | None]:
        return [b.deal for b in self.boards]
