"""Seats at the table and vulnerability.

>>> Seat.NORTH.lho, Seat.NORTH.partner, Seat.NORTH.rho
(<Seat.EAST: 1>, <Seat.SOUTH: 2>, <Seat.WEST: 3>)
>>> Seat.parse("w").rotate(2), Seat.WEST.title
(<Seat.EAST: 1>, 'West')
>>> Vulnerability.parse("All").is_vulnerable(Seat.EAST)
True
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum, IntEnum

from dealer.errors import CardError


class Seat(IntEnum):
    """North, East, South, West, in clockwise order."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    @property
    def letter(self) -> str:
        return "NESW"[self]

    @property
    def title(self) -> str:
        """The seat's name as people write it: ``North``, ``East``, ``South``, ``West``."""
        return self.name.title()

    @property
    def lho(self) -> Seat:
        """Left-hand opponent: the next seat clockwise (who plays after this seat)."""
        return _SEATS[(self + 1) % 4]

    @property
    def partner(self) -> Seat:
        return _SEATS[(self + 2) % 4]

    @property
    def rho(self) -> Seat:
        """Right-hand opponent: the previous seat clockwise."""
        return _SEATS[(self + 3) % 4]

    @property
    def is_ns(self) -> bool:
        return self in (Seat.NORTH, Seat.SOUTH)

    def rotate(self, steps: int) -> Seat:
        """The seat ``steps`` places clockwise from this one."""
        return _SEATS[(self + steps) % 4]

    def clockwise(self) -> Iterator[Seat]:
        """The four seats, starting at this one, clockwise."""
        return (_SEATS[(self + i) % 4] for i in range(4))

    @classmethod
    def parse(cls, text: str) -> Seat:
        key = text.strip().upper()
        try:
            return _SEAT_BY_TEXT[key]
        except KeyError:
            raise CardError(f"unknown seat {text!r} (use N, E, S or W)") from None

    def __str__(self) -> str:
        return self.letter


# Seat(n) goes through Enum.__call__, slow in the inner loops of play and checking.
_SEATS: tuple[Seat, ...] = tuple(Seat)
_SEAT_BY_TEXT = {s.letter: s for s in Seat} | {s.name: s for s in Seat}


class Side(Enum):
    NS = "NS"
    EW = "EW"

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return (Seat.NORTH, Seat.SOUTH) if self is Side.NS else (Seat.EAST, Seat.WEST)

    @property
    def other(self) -> Side:
        return Side.EW if self is Side.NS else Side.NS

    @classmethod
    def of(cls, seat: Seat) -> Side:
        return cls.NS if seat.is_ns else cls.EW


class Vulnerability(Enum):
    """Who is vulnerable. Values are the PBN 2.1 spellings."""

    NONE = "None"
    NS = "NS"
    EW = "EW"
    BOTH = "All"

    def is_vulnerable(self, seat_or_side: Seat | Side) -> bool:
        side = seat_or_side if isinstance(seat_or_side, Side) else Side.of(seat_or_side)
        if self is Vulnerability.BOTH:
            return True
        return self.value == side.value

    @classmethod
    def parse(cls, text: str) -> Vulnerability:
        """Accept PBN's spellings and the common others (``Both``, ``Love``, ``-``, ``o``)."""
        key = text.strip().upper()
        try:
            return _VUL_BY_TEXT[key]
        except KeyError:
            raise CardError(f"unknown vulnerability {text!r} (use None, NS, EW or All)") from None

    def __str__(self) -> str:
        return self.value


_VUL_BY_TEXT = {
    "NONE": Vulnerability.NONE, "LOVE": Vulnerability.NONE, "-": Vulnerability.NONE,
    "O": Vulnerability.NONE, "0": Vulnerability.NONE,
    "NS": Vulnerability.NS, "N-S": Vulnerability.NS, "N/S": Vulnerability.NS, "N": Vulnerability.NS,
    "EW": Vulnerability.EW, "E-W": Vulnerability.EW, "E/W": Vulnerability.EW, "E": Vulnerability.EW,
    "ALL": Vulnerability.BOTH, "BOTH": Vulnerability.BOTH, "B": Vulnerability.BOTH,
}


# Seed 002's board markings for boards 1-16; board 17 starts the cycle again.
_VUL_CYCLE = "- N E B N E B - E B - N B - N E".split()
_VUL_CODES = {"-": Vulnerability.NONE, "N": Vulnerability.NS, "E": Vulnerability.EW,
              "B": Vulnerability.BOTH}


def board_dealer(number: int) -> Seat:
    """The dealer of a board: N, E, S, W for boards 1, 2, 3, 4, and so on."""
    if number < 1:
        raise CardError(f"board number {number} must be 1 or more")
    return Seat((number - 1) % 4)


def board_vulnerability(number: int) -> Vulnerability:
    """The vulnerability of a board from the standard 16-board cycle (seed 002)."""
    if number < 1:
        raise CardError(f"board number {number} must be 1 or more")
    return _VUL_CODES[_VUL_CYCLE[(number - 1) % 16]]
