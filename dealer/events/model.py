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
>>> Result(3, 1, 8, weighted=((0.6, 420), (0.4, -50))).kind
'weighted'
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


def _check_weighted(board: int, parts: tuple[tuple[float, int], ...]) -> None:
    """Law 12C1(c): at least two scores, each with a share above 0, the shares adding to 1."""
    if len(parts) < 2:
        raise EventError(f"board {board}: a weighted score has at least two scores")
    if any(not 0.0 < w <= 1.0 for w, _ in parts):
        raise EventError(f"board {board}: each part of a weighted score has a share above "
                         "0 and at most 100%")
    if abs(sum(w for w, _ in parts) - 1.0) > 1e-6:
        raise EventError(f"board {board}: the shares of a weighted score add up to "
                         f"{100 * sum(w for w, _ in parts):g}%, not 100%")


@dataclass(frozen=True, slots=True)
class Result:
    """One traveller line. ``score`` is from North-South's side, as travellers write it.

    ``ns`` and ``ew`` are the pair numbers that actually sat North-South and
    East-West on this board (after any arrow switch). ``group`` separates the
    versions of a fouled board (Law 87): results are only compared within a
    group. ``declarer_pair`` is the pair number a scorer wrote as declaring,
    used to catch a declarer from the wrong pair.

    ``weighted`` is a weighted adjusted score (Law 12C1(c)): NS scores each
    with its share, the shares adding up to 1 (``((0.6, 420), (0.4, -50))``:
    60% of 4S= and 40% of 4S-1). It is compared with the other results part by
    part, each part counting its share (:mod:`dealer.events.matchpoints`,
    :mod:`dealer.events.imps_events`).

    ``swapped`` marks a line of a two-winner Mitchell (``by_line`` numbering)
    whose pairs sat the wrong way: ``ns`` is then the number of the East-West
    pair that sat North-South, and ``ew`` that of the North-South pair that
    sat East-West. Each pair keeps its own line and is credited with the seats
    it played (:func:`dealer.events.matchpoints.pair_keys`).
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
    weighted: tuple[tuple[float, int], ...] | None = None
    swapped: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.board, bool) or not isinstance(self.board, int) or self.board < 1:
            raise EventError(f"board number {self.board!r} must be a whole number, 1 or more")
        for side, num in (("NS", self.ns), ("EW", self.ew)):
            if isinstance(num, bool) or not isinstance(num, int) or num < 1:
                raise EventError(f"board {self.board}: {side} pair {num!r} is impossible "
                                 "(pairs are numbered from 1)")
        artificial = self.ns_artificial is not None or self.ew_artificial is not None
        if artificial and (self.ns_artificial is None or self.ew_artificial is None):
            raise EventError(
                f"board {self.board}, pairs {self.ns}-{self.ew}: an artificial score needs "
                "a value for both sides (e.g. A+ and A-)")
        if self.weighted is not None:
            _check_weighted(self.board, self.weighted)
        if sum((self.score is not None, artificial, self.not_played,
                self.weighted is not None)) > 1:
            raise EventError(
                f"board {self.board}, pairs {self.ns}-{self.ew}: a line is a score, an "
                "artificial score, a weighted score or not played, not more than one")

    @property
    def kind(self) -> str:
        """``"score"``, ``"artificial"``, ``"weighted"``, ``"not_played"`` or ``"missing"``."""
        if self.score is not None:
            return "score"
        if self.ns_artificial is not None:
            return "artificial"
        if self.weighted is not None:
            return "weighted"
        return "not_played" if self.not_played else "missing"

    @property
    def parts(self) -> tuple[tuple[float, int], ...]:
        """The NS scores this line is compared with, each with its share: the score
        itself (share 1), or the parts of a weighted score; none otherwise."""
        if self.score is not None:
            return ((1.0, self.score),)
        return self.weighted or ()


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
