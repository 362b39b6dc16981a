"""Victory points: converting a match's IMP margin into a 20-0 split.

Three kinds of scale, chosen per event with :func:`scale_named`:

- ``"wbf"``: the WBF 2013 continuous scale, to two decimals, with its
  concavity correction (each extra IMP is worth no more than the one before).
- ``"seed24"``: the 24-board table printed in seed 002 (15 IMPs gives 13-7).
- ``"acbl"``: the ACBL discrete 20-0 table for 6-8 and 9-11 boards.

The WBF formula, with N boards and margin M >= 0 IMPs: tau = (sqrt 5 - 1)/2,
blitz B = 15 * sqrt(N), VP = min(20, 10 + 10 * (1 - tau**(3M/B)) / (1 - tau**3)).

>>> [wbf_vp(m, 8)[0] for m in (0, 1, 2, 3, 5, 10, 20, 43)]
[10.0, 10.44, 10.86, 11.27, 12.05, 13.78, 16.46, 20.0]
>>> wbf_vp(-5, 8)
(7.95, 12.05)
>>> SEED_24_BOARDS.convert(15, 24)
(13, 7)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from dealer.events.model import EventError

#: (sqrt 5 - 1) / 2, the golden-ratio constant of the WBF 2013 scale.
TAU = (math.sqrt(5.0) - 1.0) / 2.0


def blitz(boards: int) -> float:
    """The margin that wins 20-0 on the WBF scale: 15 * sqrt(boards).

    >>> round(blitz(8), 2)
    42.43
    """
    if boards < 1:
        raise EventError(f"a match of {boards} boards cannot be converted to VPs")
    return 15.0 * math.sqrt(boards)


def _raw_cents(margin: int, boards: int) -> int:
    """The uncorrected winner's VP in hundredths, rounded half up."""
    b = blitz(boards)
    if margin >= b:
        return 2000
    vp = 10.0 + 10.0 * (1.0 - TAU ** (3.0 * margin / b)) / (1.0 - TAU**3)
    return min(2000, math.floor(vp * 100.0 + 0.5 + 1e-9))


@lru_cache(maxsize=256)
def wbf_table(boards: int) -> tuple[int, ...]:
    """The winner's VPs in hundredths for margins 0, 1, ... up to the blitz.

    Concavity correction (as the WBF tables and e.g. Shearer's BridgeScore do):
    after rounding to 0.01, wherever a step is larger than the step before,
    the middle value is raised by 0.01, repeating until every step is no
    larger than the previous one.
    """
    top = math.ceil(blitz(boards)) + 1
    cents = [_raw_cents(m, boards) for m in range(top + 1)]
    changed = True
    while changed:
        changed = False
        for i in range(2, len(cents)):
            if cents[i] - cents[i - 1] > cents[i - 1] - cents[i - 2]:
                cents[i - 1] += 1
                changed = True
                break
    return tuple(cents)


def wbf_vp(margin: int, boards: int) -> tuple[float, float]:
    """(VPs of the side with ``margin``, VPs of the other side) on the WBF 2013 scale."""
    m = abs(int(margin))
    table = wbf_table(boards)
    win = table[m] if m < len(table) else 2000
    a, b = win / 100.0, (2000 - win) / 100.0
    return (a, b) if margin >= 0 else (b, a)


class VpScale(Protocol):
    @property
    def name(self) -> str: ...

    def convert(self, margin: int, boards: int) -> tuple[float, float]: ...


@dataclass(frozen=True)
class WbfContinuous:
    """The WBF 2013 continuous scale (two decimals, concavity corrected)."""

    name: str = "wbf"

    def convert(self, margin: int, boards: int) -> tuple[float, float]:
        return wbf_vp(margin, boards)


@dataclass(frozen=True)
class DiscreteTable:
    """A whole-VP table: ``bands[board_range]`` lists the lowest margin for 11, 12, ... 20 VPs.

    ``bands`` maps (first board count, last board count) to the ascending
    lower bounds of the winner's 11-9, 12-8, ..., 20-0 bands.
    """

    name: str
    bands: dict[tuple[int, int], tuple[int, ...]]

    def convert(self, margin: int, boards: int) -> tuple[int, int]:  # type: ignore[override]
        for (lo, hi), bounds in self.bands.items():
            if lo <= boards <= hi:
                win = 10 + bisect_right(bounds, abs(margin))
                return (win, 20 - win) if margin >= 0 else (20 - win, win)
        ranges = ", ".join(f"{lo}-{hi}" for lo, hi in self.bands)
        raise EventError(f"the {self.name} VP table covers matches of {ranges} boards, "
                         f"not {boards}")


#: Seed 002's example table for a 24-board match: 0-2 IMPs 10-10, 3-6 11-9, ... 55+ 20-0.
SEED_24_BOARDS = DiscreteTable(
    "seed24", {(24, 24): (3, 7, 12, 17, 22, 28, 34, 40, 47, 55)})

#: The ACBL discrete 20-0 table (bridgehands.com, agreeing with Shearer's cut-offs).
ACBL_DISCRETE = DiscreteTable("acbl", {
    (6, 8): (1, 3, 5, 8, 11, 14, 17, 20, 24, 28),
    (9, 11): (1, 3, 6, 10, 14, 18, 22, 26, 31, 36),
})

_SCALES: dict[str, VpScale] = {
    "wbf": WbfContinuous(), "seed24": SEED_24_BOARDS, "acbl": ACBL_DISCRETE,
}


def scale_named(name: str) -> VpScale:
    """The VP scale an event configures by name: ``wbf``, ``seed24`` or ``acbl``."""
    try:
        return _SCALES[name]
    except KeyError:
        raise EventError(f"unknown VP scale {name!r} (use {', '.join(_SCALES)})") from None
