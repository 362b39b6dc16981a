"""The contract: level, strain, doubling and declarer.

A :class:`Contract` is what the auction ends with and what every scoring
function takes. ``doubled`` is 0 (undoubled), 1 (doubled, ``X``) or 2
(redoubled, ``XX``). A passed-out deal is :data:`PASSED_OUT` (level 0, no
strain); it scores 0 for both sides (WBF Law 77, last line).

>>> c = Contract.parse("4SX", declarer="N")
>>> c.level, c.strain, c.doubled, c.declarer
(4, <Strain.SPADES: 3>, 1, <Seat.NORTH: 0>)
>>> str(c), c.ascii, c.pbn
('4♠X N', '4SX', '4SX')
>>> str(Contract.parse("3NTXX S")), Contract.parse("pass").is_passed_out
('3NTXX S', True)
>>> Contract.parse("7C", declarer="W").tricks_needed
13
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dealer.cards import Strain
from dealer.errors import BoardwrightError
from dealer.seats import Seat, Side


class ContractError(BoardwrightError, ValueError):
    """A contract could not be read or is impossible (level 8, redouble 3 ...)."""


_DOUBLING_TEXT = ("", "X", "XX")

# Level, strain (letter, symbol or NT/N/SA), doubling (X, XX, * or **), then
# an optional declarer seat ("4SX N", "4SXN", "4S X by N").
_CONTRACT_RE = re.compile(
    r"""^\s*(?P<level>[1-7])\s*
        (?P<strain>NT|SA|N|[CDHS♣♦♥♠♧♢♡♤])\s*
        (?P<dbl>XX|X|\*\*|\*|R|D)?\s*
        (?:(?:BY\s+)?(?P<seat>NORTH|EAST|SOUTH|WEST|[NESW]))?\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_PASS_WORDS = {"PASS", "P", "AP", "PASSED", "PASSED OUT", "ALL PASS", "-", "0"}


@dataclass(frozen=True, slots=True)
class Contract:
    """A final contract. ``level`` 0 and ``strain`` ``None`` mean passed out.

    ``declarer`` may be ``None`` while a result is being entered; scoring for a
    side (:func:`dealer.scoring.duplicate.score_ns`) needs it.
    """

    level: int
    strain: Strain | None
    doubled: int = 0
    declarer: Seat | None = None

    def __post_init__(self) -> None:
        if self.level == 0:
            if self.strain is not None or self.doubled:
                raise ContractError("a passed-out deal has no strain and no double")
            return
        if not 1 <= self.level <= 7:
            raise ContractError(f"contract level {self.level} is not between 1 and 7")
        if self.strain is None:
            raise ContractError(f"a contract at level {self.level} needs a strain")
        if self.doubled not in (0, 1, 2):
            raise ContractError(
                f"doubling {self.doubled} must be 0 (undoubled), 1 (X) or 2 (XX)")
        # Accept ints from callers but keep enums, so str() and `is` work.
        object.__setattr__(self, "strain", Strain(self.strain))
        if self.declarer is not None:
            object.__setattr__(self, "declarer", Seat(self.declarer))

    # -- construction -------------------------------------------------------
    @classmethod
    def parse(cls, text: str, declarer: Seat | str | None = None) -> Contract:
        """Read ``4SX``, ``4♠X N``, ``3NTXX``, ``1N``, ``6H*`` or ``PASS``.

        ``declarer`` (a :class:`Seat` or a letter) is used when the text names
        none; if both name one they must agree.
        """
        raw = text.strip()
        if raw.upper() in _PASS_WORDS:
            return PASSED_OUT
        m = _CONTRACT_RE.match(raw)
        if m is None:
            raise ContractError(
                f"cannot read contract {text!r} (write e.g. 4S, 3NTX, 6HXX N or PASS)")
        strain = Strain.parse(m["strain"])
        dbl_text = (m["dbl"] or "").upper()
        doubled = {"": 0, "X": 1, "*": 1, "D": 1, "XX": 2, "**": 2, "R": 2}[dbl_text]
        seat = Seat.parse(m["seat"]) if m["seat"] else None
        given = Seat.parse(declarer) if isinstance(declarer, str) else declarer
        if seat is not None and given is not None and seat != given:
            raise ContractError(
                f"contract {text!r} names declarer {seat.letter} but {given.letter} was given")
        return cls(int(m["level"]), strain, doubled, seat if seat is not None else given)

    def with_declarer(self, declarer: Seat) -> Contract:
        """The same contract played by ``declarer``."""
        return Contract(self.level, self.strain, self.doubled, declarer)

    # -- facts ---------------------------------------------------------------
    @property
    def is_passed_out(self) -> bool:
        return self.level == 0

    @property
    def tricks_needed(self) -> int:
        """Tricks declarer must take: the level plus the book of six."""
        return self.level + 6 if self.level else 0

    @property
    def side(self) -> Side | None:
        """The declaring side, or ``None`` when passed out or declarer unknown."""
        return None if self.declarer is None else Side.of(self.declarer)

    @property
    def ascii(self) -> str:
        """Plain ASCII without declarer: ``4SX``, ``3NT``, ``PASS``."""
        if self.is_passed_out:
            return "PASS"
        assert self.strain is not None
        return f"{self.level}{self.strain.letter}{_DOUBLING_TEXT[self.doubled]}"

    #: PBN 2.1 writes the ``Contract`` tag exactly like this.
    pbn = ascii

    def __str__(self) -> str:
        if self.is_passed_out:
            return "PASS"
        assert self.strain is not None
        text = f"{self.level}{self.strain.symbol}{_DOUBLING_TEXT[self.doubled]}"
        return text if self.declarer is None else f"{text} {self.declarer.letter}"


#: The passed-out deal: no contract; both sides score 0.
PASSED_OUT = Contract(0, None)
