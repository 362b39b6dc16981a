"""Results of a duplicate pairs or teams event: one traveller line each.

A :class:`Result` is one table's outcome on one board: the two pair numbers,
the North-South score, and optionally where it was played (section, table,
round), the contract, tricks and the declaring pair. Instead of a score a line
may carry an artificial adjusted score (:class:`Artificial`, Law 12C2) or be
marked *not played*.

>>> r = Result.from_contract(1, ns=1, ew=8, contract="4S", declarer="N", tricks=10)
>>> r.score, r.kind
(420, 'score')
>>> Result(2, 3, 11, ns_artificial=Artificial.parse("A+"),
...        ew_artificial=Artificial.parse("A-")).kind
'artificial'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.scoring.duplicate import score_ns
from dealer.seats import Seat, Vulnerability, board_vulnerability


class EventError(BoardwrightError, ValueError):
    """An event, movement or result that cannot be scored as given."""


class Artificial(Enum):
    """Artificial adjusted scores of Law 12C2(a) (WBF Laws 2017).

    The value is the nominal percentage. Average-plus is "at least 60%",
    average-minus "at most 40%"; how the session percentage moves them is an
    event option (:class:`dealer.events.matchpoints.MatchpointOptions`).

    >>> Artificial.parse("ave+"), Artificial.parse("A").value
    (<Artificial.AVE_PLUS: 60>, 50)
    """

    AVE_PLUS = 60
    AVE = 50
    AVE_MINUS = 40

    @property
    def code(self) -> str:
        return {60: "A+", 50: "A", 40: "A-"}[self.value]

    @classmethod
    def parse(cls, text: str) -> Artificial:
        key = text.strip().upper().replace("AVE", "A").replace("AVG", "A").replace(" ", "")
        key = key.replace("PLUS", "+").replace("MINUS", "-")
        try:
            return {"A+": cls.AVE_PLUS, "A": cls.AVE, "A=": cls.AVE, "A-": cls.AVE_MINUS,
                    "60": cls.AVE_PLUS, "50": cls.AVE, "40": cls.AVE_MINUS}[key]
        except KeyError:
            raise EventError(
                f"unknown artificial score {text!r} (use A+, A or A-)") from None


#: An adjusted score for one side: a Law 12C2 artificial score or an explicit percentage.
Adjustment = Artificial | float


@dataclass(frozen=True, slots=True)
class Result:
    """One traveller line. ``score`` is from North-South's side, as travellers write it.

    ``ns`` and ``ew`` are the pair numbers that actually sat North-South and
    East-West on this board (after any arrow switch). ``group`` separates the
    versions of a fouled board (Law 87): results are only compared within a
    group. ``declarer_pair`` is the pair number a scorer wrote as declaring,
    used to catch a declarer from the wrong pair.
    """

    board: int
    ns: int
    ew: int
    score: int | None = None
    contract: Contract | None = None
    tricks: int | None = None
    declarer_pair: int | None = None
    section: str = "A"
    table: int | None = None
    round: int | None = None
    ns_artificial: Adjustment | None = None
    ew_artificial: Adjustment | None = None
    not_played: bool = False
    group: int = 0

    def __post_init__(self) -> None:
        if self.board < 1:
            raise EventError(f"board number {self.board} must be 1 or more")
        for side, num in (("NS", self.ns), ("EW", self.ew)):
            if isinstance(num, bool) or not isinstance(num, int) or num < 1:
                raise EventError(f"board {self.board}: {side} pair {num!r} is impossible "
                                 "(pairs are numbered from 1)")
        artificial = self.ns_artificial is not None or self.ew_artificial is not None
        if artificial and (self.ns_artificial is None or self.ew_artificial is None):
            raise EventError(
                f"board {self.board}, pairs {self.ns}-{self.ew}: an artificial score needs "
                "a value for both sides (e.g. A+ and A-)")
        if sum((self.score is not None, artificial, self.not_played)) > 1:
            raise EventError(
                f"board {self.board}, pairs {self.ns}-{self.ew}: a line is a score, an "
                "artificial score or not played, not more than one")

    @property
    def kind(self) -> str:
        """``"score"``, ``"artificial"``, ``"not_played"`` or ``"missing"``."""
        if self.score is not None:
            return "score"
        if self.ns_artificial is not None:
            return "artificial"
        return "not_played" if self.not_played else "missing"

    @classmethod
    def from_contract(
        cls,
        board: int,
        ns: int,
        ew: int,
        contract: str | Contract,
        tricks: int,
        declarer: Seat | str | None = None,
        vulnerability: Vulnerability | None = None,
        **more: object,
    ) -> Result:
        """A line scored by Law 77 from the contract and tricks.

        The vulnerability defaults to the board number's (the 16-board cycle).
        """
        c = contract if isinstance(contract, Contract) else Contract.parse(contract, declarer)
        if isinstance(contract, Contract) and declarer is not None and c.declarer is None:
            c = c.with_declarer(Seat.parse(declarer) if isinstance(declarer, str) else declarer)
        if not 0 <= tricks <= 13:
            raise EventError(f"board {board}, pairs {ns}-{ew}: {tricks} tricks is impossible "
                             "(a deal has 13)")
        vul = vulnerability if vulnerability is not None else board_vulnerability(board)
        return cls(board, ns, ew, score_ns(c, tricks, vul), contract=c, tricks=tricks,
                   **more)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True, order=True)
class PairKey:
    """A pair's identity in an event: section, line and number.

    ``line`` is ``""`` when pair numbers are unique in the section (Howell,
    arrow-switched or offset Mitchell) and ``"NS"``/``"EW"`` when both lines
    are numbered from 1 (a two-winner Mitchell).

    >>> str(PairKey("A", "", 7)), str(PairKey("B", "EW", 3))
    ('A7', 'B3 EW')
    """

    section: str
    line: str
    number: int

    def __str__(self) -> str:
        return f"{self.section}{self.number}" + (f" {self.line}" if self.line else "")
