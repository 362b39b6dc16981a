"""IMP scoring of events: teams, Butler, cross-IMPs and board-a-match.

All scores are North-South points; IMPs come from the WBF scale of Law 78B
(:func:`dealer.scoring.imps.imps`).

Teams of four: a team sits NS at table 1 and EW at table 2, so its net on a
board is (NS score at table 1) - (NS score at table 2). Seed 002's match:

>>> teams_match([(420, 450), (500, 620), (-690, -1440), (140, -100)])
[-1, -3, 13, 6]
>>> sum(teams_match([(420, 450), (500, 620), (-690, -1440), (140, -100)]))
15

Butler: IMPs against a datum, the mean NS score after leaving out the
extremes, rounded to the nearest 10.

>>> butler_datum([420, 450, 420, 400, -50, 980])
420
>>> cross_imps([420, 450, 420, 400, -50, 980])[0]
-0.2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dealer.events.model import EventError
from dealer.scoring.imps import imps


def teams_board(ns_table1: int, ns_table2: int) -> int:
    """IMPs for the team that sits NS at table 1 (and EW at table 2)."""
    return imps(ns_table1 - ns_table2)


def teams_match(boards: Sequence[tuple[int, int]]) -> list[int]:
    """IMPs per board for the team NS at table 1; the match margin is the sum."""
    return [teams_board(a, b) for a, b in boards]


# ------------------------------------------------------------------ Butler


def default_drop(n: int) -> int:
    """How many scores to leave out at each end: none below 4 results, then
    ceil((n - 10) / 15) + 1 (as ``bridge-scorer``'s Butler does; 1 up to 10
    results, 2 up to 25, 3 up to 40 ...).

    >>> [default_drop(n) for n in (3, 4, 10, 11, 25, 26)]
    [0, 1, 1, 2, 2, 3]
    """
    if n < 4:
        return 0
    return max(1, math.ceil((n - 10) / 15) + 1)


def round_to_10(x: float) -> int:
    """Nearest multiple of 10, halves away from zero (a datum of 415 is 420, -415 is -420)."""
    return int(math.copysign(math.floor(abs(x) / 10.0 + 0.5) * 10, x))


@dataclass(frozen=True)
class ButlerOptions:
    """How the datum is made.

    - ``method``: ``"trimmed"`` (mean after dropping the extremes, the
      default), ``"mean"`` (all scores) or ``"median"`` (ASE's "halfway").
    - ``drop``: scores left out at each end for ``trimmed``: a number, or a
      function of the count (default :func:`default_drop`).
    - ``round_datum``: round to the nearest 10 (the common practice).
    """

    method: str = "trimmed"
    drop: int | Callable[[int], int] = default_drop
    round_datum: bool = True


def butler_datum(scores: Sequence[float], options: ButlerOptions | None = None) -> float:
    """The datum of one board's NS scores."""
    opts = options or ButlerOptions()
    if not scores:
        raise EventError("a Butler datum needs at least one score")
    ordered = sorted(scores)
    if opts.method == "mean":
        value = sum(ordered) / len(ordered)
    elif opts.method == "median":
        mid = len(ordered) // 2
        value = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    elif opts.method == "trimmed":
        k = opts.drop(len(ordered)) if callable(opts.drop) else int(opts.drop)
        if k < 0 or 2 * k >= len(ordered):
            raise EventError(f"cannot leave out {k} scores at each end of {len(ordered)}")
        kept = ordered[k:len(ordered) - k]
        value = sum(kept) / len(kept)
    else:
        raise EventError(f"unknown Butler datum method {opts.method!r} "
                         "(use trimmed, mean or median)")
    return round_to_10(value) if opts.round_datum else value


def butler(scores: Sequence[int], options: ButlerOptions | None = None) -> list[int]:
    """NS IMPs of each score against the board's datum (EW gets the negation).

    >>> butler([420, 450, 420, 400, -50, 980])
    [0, 1, 0, -1, -10, 11]
    """
    datum = butler_datum(scores, options)
    return [imps(s - datum) for s in scores]


# ------------------------------------------------------------------ cross-IMPs


def cross_imps(scores: Sequence[int], divisor: str = "n-1") -> list[float]:
    """NS IMPs of each score against every other score on the board.

    ``divisor`` ``"n-1"`` averages over the comparisons (bridge55,
    ``bridge-scorer``), ``"n"`` over the results (one BBO reading), and
    ``"none"`` gives the plain sum.

    >>> cross_imps([100, 0, 0], divisor="none")
    [6, -3, -3]
    """
    n = len(scores)
    sums = [sum(imps(a - b) for j, b in enumerate(scores) if j != i)
            for i, a in enumerate(scores)]
    if divisor == "none":
        return sums  # type: ignore[return-value]
    d = {"n-1": n - 1, "n": n}.get(divisor)
    if d is None:
        raise EventError(f"unknown cross-IMP divisor {divisor!r} (use n-1, n or none)")
    return [s / d if d else 0.0 for s in sums]


# ------------------------------------------------------------------ board-a-match


def bam_board(ns_table1: int, ns_table2: int) -> float:
    """Board-a-match (point-a-board): 1 for the better aggregate, 1/2 a tie, 0 worse.

    >>> bam_board(420, 450), bam_board(620, 620), bam_board(-100, -200)
    (0.0, 0.5, 1.0)
    """
    net = ns_table1 - ns_table2
    return 1.0 if net > 0 else 0.5 if net == 0 else 0.0


def bam_match(boards: Sequence[tuple[int, int]]) -> float:
    """The board-a-match total for the team NS at table 1."""
    return sum(bam_board(a, b) for a, b in boards)
