"""Chicago (four-deal bridge), with its duplicate-scoring and Russian variants.

Rules from seed 002 ("Chicago" to "Chicago with Russian Scoring"):

* Four deals; the dealer rotates clockwise. Vulnerability by deal: 1 none,
  2 and 3 the *non-dealing* side, 4 both. The original version (``original=True``)
  makes the *dealing* side vulnerable on deals 2 and 3.
* A passed-out deal is redealt by the same dealer and does not count.
* ``scoring="chicago"``: trick scores accumulate below the line per side; 100
  makes a game, worth 500 vulnerable / 300 not (the vulnerability of the
  completing side on that deal), and wipes both sides' part scores. A part
  score made on deal 4 that does not complete a game gets 100; no other part
  score gets a premium. Overtricks, insult, slams and undertricks as Law 77.
* ``scoring="duplicate"``: each deal scored alone by Law 77 (50 for a part
  score), same vulnerability sequence.
* ``scoring="russian"``: each deal scored by Law 77; the side with more high
  card points has a target from seed 002's table (by its vulnerability); the
  difference between the actual score and the target is turned into IMPs
  (WBF scale, :func:`dealer.scoring.imps.imps`). At 20-20 the target is 0.

A session may run several chukkers of four (``deals`` a multiple of 4); part
scores do not carry from one chukker into the next.

>>> g = ChicagoGame()
>>> [g.vulnerability(n).value for n in (1, 2, 3, 4)]
['None', 'NS', 'EW', 'All']
>>> [ChicagoGame(original=True).vulnerability(n).value for n in (1, 2, 3, 4)]
['None', 'EW', 'NS', 'All']
>>> russian_target(24, vulnerable=True), russian_imps(170, 24, vulnerable=True)
(290, -3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer.contract import Contract, ContractError
from dealer.deal import Deal
from dealer.scoring.duplicate import duplicate_score, score_parts
from dealer.scoring.imps import imps
from dealer.seats import Seat, Side, Vulnerability

#: Seed 002's Russian target table: HCP of the stronger side -> (not vul, vul).
#: 37 to 40 all read 1300/1950 in the seed.
RUSSIAN_TARGETS: dict[int, tuple[int, int]] = {
    20: (0, 0), 21: (50, 50), 22: (70, 70), 23: (110, 110), 24: (200, 290),
    25: (300, 440), 26: (350, 520), 27: (400, 600), 28: (430, 630), 29: (460, 660),
    30: (490, 690), 31: (600, 900), 32: (700, 1050), 33: (900, 1350), 34: (1000, 1500),
    35: (1100, 1650), 36: (1200, 1800), 37: (1300, 1950), 38: (1300, 1950),
    39: (1300, 1950), 40: (1300, 1950),
}

SCORINGS = ("chicago", "duplicate", "russian")


def russian_target(hcp: int, vulnerable: bool) -> int:
    """The target score of the side holding ``hcp`` (20-40) high card points."""
    if not 20 <= hcp <= 40:
        raise ContractError(f"the Russian table is for the side with 20 to 40 HCP, not {hcp}")
    return RUSSIAN_TARGETS[hcp][1 if vulnerable else 0]


def russian_imps(score: int, hcp: int, vulnerable: bool, opponents_vulnerable: bool = False) -> int:
    """IMPs for a side that scored ``score`` (Law 77, negative if it lost points)
    while holding ``hcp`` of the 40 high card points.

    The side with more points is measured against its own target; the weaker
    side against minus the opponents' target.

    >>> russian_imps(420, 18, vulnerable=False, opponents_vulnerable=False)  # seed 002: +10
    10
    """
    if not 0 <= hcp <= 40:
        raise ContractError(f"a side holds 0 to 40 high card points, not {hcp}")
    if hcp >= 20:
        target = russian_target(hcp, vulnerable)
    else:
        target = -russian_target(40 - hcp, opponents_vulnerable)
    return imps(score - target)


@dataclass(frozen=True, slots=True)
class ChicagoDeal:
    """One deal of a Chicago as scored. Points are for NS and EW on this deal."""

    number: int                   # 1-based deal of the session (redeals not counted)
    dealer: Seat
    vulnerability: Vulnerability
    contract: Contract
    tricks: int
    ns: int | float
    ew: int | float
    notes: tuple[str, ...] = ()


@dataclass
class ChicagoGame:
    """A Chicago in progress. Call :meth:`record` once per deal played."""

    first_dealer: Seat = Seat.NORTH
    original: bool = False
    scoring: str = "chicago"
    deals: int = 4
    results: list[ChicagoDeal] = field(default_factory=list)
    redeals: int = 0
    _part: dict[Side, int] = field(default_factory=lambda: {Side.NS: 0, Side.EW: 0})

    def __post_init__(self) -> None:
        if self.scoring not in SCORINGS:
            raise ContractError(f"Chicago scoring {self.scoring!r} is not one of {SCORINGS}")
        if self.deals < 4 or self.deals % 4:
            raise ContractError(f"a Chicago has 4 deals (or a multiple of 4), not {self.deals}")

    # -- the schedule ------------------------------------------------------------
    def dealer(self, number: int) -> Seat:
        return self.first_dealer.rotate(number - 1)

    def vulnerability(self, number: int) -> Vulnerability:
        """Vulnerability of deal ``number`` (1-based; repeats every four)."""
        k = (number - 1) % 4
        if k == 0:
            return Vulnerability.NONE
        if k == 3:
            return Vulnerability.BOTH
        dealing = Side.of(self.dealer(number))
        vul_side = dealing if self.original else dealing.other
        return Vulnerability.NS if vul_side is Side.NS else Vulnerability.EW

    @property
    def next_deal(self) -> int:
        return len(self.results) + 1

    @property
    def is_over(self) -> bool:
        return len(self.results) >= self.deals

    # -- scoring -------------------------------------------------------------------
    def record(self, contract: Contract, tricks: int = 0, *, deal: Deal | None = None,
               hcp_ns: int | None = None) -> ChicagoDeal | None:
        """Score the next deal. Returns ``None`` for a passed-out deal (redealt).

        Russian scoring needs the HCP: from ``deal`` or ``hcp_ns`` (NS's points).
        """
        if self.is_over:
            raise ContractError(f"this Chicago is over after {self.deals} deals")
        if contract.is_passed_out:
            self.redeals += 1  # same dealer, same deal number (seed 002)
            return None
        if contract.declarer is None:
            raise ContractError(f"deal {self.next_deal}: {contract.ascii} needs a declarer")
        number = self.next_deal
        vul = self.vulnerability(number)
        side = Side.of(contract.declarer)
        vulnerable = vul.is_vulnerable(side)
        if self.scoring == "chicago":
            mine, theirs, notes = self._chicago(number, contract, tricks, side, vulnerable)
        else:
            mine = duplicate_score(contract, tricks, vulnerable)
            theirs, notes = 0, ()
            if mine < 0:
                mine, theirs = 0, -mine
            if self.scoring == "russian":
                hcp = hcp_ns if hcp_ns is not None else (
                    deal.hand(Seat.NORTH).hcp + deal.hand(Seat.SOUTH).hcp
                    if deal is not None else None)
                if hcp is None:
                    raise ContractError(
                        f"deal {number}: Russian scoring needs the deal or NS's high card points")
                my_hcp = hcp if side is Side.NS else 40 - hcp
                net = russian_imps(mine - theirs, my_hcp, vulnerable,
                                   vul.is_vulnerable(side.other))
                mine, theirs = net, -net
                notes = (f"{my_hcp} HCP for declarer's side",)
        ns, ew = (mine, theirs) if side is Side.NS else (theirs, mine)
        result = ChicagoDeal(number, self.dealer(number), vul, contract, tricks, ns, ew, notes)
        self.results.append(result)
        if number % 4 == 0:
            self._part = {Side.NS: 0, Side.EW: 0}  # the next chukker starts afresh
        return result

    def _chicago(self, number: int, contract: Contract, tricks: int, side: Side,
                 vulnerable: bool) -> tuple[int, int, tuple[str, ...]]:
        parts = score_parts(contract, tricks, vulnerable)
        if parts.undertricks:
            return 0, parts.undertricks, ()
        mine = parts.contract_points + parts.overtricks + parts.insult + parts.slam
        notes: list[str] = []
        self._part[side] += parts.contract_points
        if self._part[side] >= 100:
            mine += 500 if vulnerable else 300
            notes.append("game")
            self._part = {Side.NS: 0, Side.EW: 0}
        elif number % 4 == 0:
            mine += 100
            notes.append("part score on deal 4")
        return mine, 0, tuple(notes)

    def totals(self) -> dict[Side, int | float]:
        """Total points (or IMPs, for Russian scoring) for NS and EW."""
        return {Side.NS: sum(r.ns for r in self.results),
                Side.EW: sum(r.ew for r in self.results)}
