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
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dealer.events.matchpoints import pair_keys
from dealer.events.model import Artificial, EventError, PairKey, Result
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


# ------------------------------------------------------------------ IMP pairs events


@dataclass(frozen=True, slots=True)
class ImpLine:
    """A traveller line with its IMPs (``None`` when not played)."""

    result: Result
    ns_imps: float | None
    ew_imps: float | None


@dataclass(slots=True)
class ImpPairsEvent:
    lines: list[ImpLine]
    totals: dict[PairKey, float]
    boards: dict[PairKey, int]

    def average(self, pair: PairKey) -> float:
        """IMPs per board played."""
        n = self.boards.get(pair, 0)
        return self.totals.get(pair, 0.0) / n if n else 0.0


def score_imp_pairs(
    results: Iterable[Result],
    *,
    method: str = "butler",
    butler_options: ButlerOptions | None = None,
    divisor: str = "n-1",
    numbering: str = "unique",
    across_field: bool = True,
    artificial_imps: float = 3.0,
) -> ImpPairsEvent:
    """Score an IMP pairs event by ``"butler"`` (against a datum) or ``"cross"`` IMPs.

    Scores are compared within their board (and fouled-board group).
    Artificial scores at IMPs are +-``artificial_imps`` for average-plus
    and average-minus and 0 for average (Law 12C2(b): 3 IMPs, variable by
    the organiser); an explicit percentage p gives (p - 50) / 10 * 3 IMPs.
    Not-played lines score nothing.
    """
    if method not in ("butler", "cross"):
        raise EventError(f"unknown IMP pairs method {method!r} (use butler or cross)")
    lines = list(results)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, r in enumerate(lines):
        if r.kind in ("score", "weighted"):
            key = (r.board, r.group) if across_field else (r.section, r.board, r.group)
            groups[key].append(i)
        elif r.kind == "missing":
            raise EventError(f"board {r.board}, section {r.section}, pairs {r.ns}-{r.ew}: "
                             "the line has no score, no artificial score and is not marked "
                             "not played")
    ns_imps: list[float | None] = [None] * len(lines)
    for idx in groups.values():
        got: Sequence[float]
        if any(lines[i].kind == "weighted" for i in idx):
            got = _weighted_imps([lines[i].parts for i in idx], method, butler_options,
                                 divisor)
        else:
            scores = [lines[i].score for i in idx]
            got = (butler(scores, butler_options) if method == "butler"  # type: ignore[arg-type]
                   else cross_imps(scores, divisor))  # type: ignore[arg-type]
        for i, v in zip(idx, got, strict=True):
            ns_imps[i] = float(v)
    out: list[ImpLine] = []
    totals: dict[PairKey, float] = defaultdict(float)
    boards: dict[PairKey, int] = defaultdict(int)
    for i, r in enumerate(lines):
        ns_key, ew_key = pair_keys(r, numbering)
        ns_v: float | None
        ew_v: float | None
        if r.kind == "artificial":
            ns_v = _artificial_imps(r.ns_artificial, artificial_imps)  # type: ignore[arg-type]
            ew_v = _artificial_imps(r.ew_artificial, artificial_imps)  # type: ignore[arg-type]
        elif r.kind in ("score", "weighted"):
            ns_v = ns_imps[i]
            ew_v = -ns_v if ns_v is not None else None
        else:
            out.append(ImpLine(r, None, None))
            totals[ns_key] += 0.0
            totals[ew_key] += 0.0
            continue
        out.append(ImpLine(r, ns_v, ew_v))
        for pair, imp in ((ns_key, ns_v), (ew_key, ew_v)):
            totals[pair] += imp  # type: ignore[operator]
            boards[pair] += 1
    return ImpPairsEvent(out, dict(totals), dict(boards))


def _weighted_imps(items: Sequence[tuple[tuple[float, int], ...]], method: str,
                   options: ButlerOptions | None, divisor: str) -> list[float]:
    """NS IMPs of a board with a weighted score (Law 12C1(c)): each part of a weighted
    score is scored as a result and counts its share.

    Butler: the datum is made from the scores played at the tables (from the
    weighted scores' averages when no table score is there), and a weighted
    score gets the share-weighted IMPs of its parts against it. Cross-IMPs:
    every pair of lines is compared part by part, each comparison counting the
    product of the two shares, so the board still adds up to zero.

    >>> _weighted_imps([((1.0, 420),), ((0.6, 420), (0.4, -50))], "cross", None, "n-1")
    [4.0, -4.0]
    """
    if method == "butler":
        played = [parts[0][1] for parts in items if len(parts) == 1]
        datum = butler_datum(played or [sum(w * s for w, s in parts) for parts in items],
                             options)
        return [sum(w * imps(s - datum) for w, s in parts) for parts in items]
    n = len(items)
    sums = [sum(wa * wb * imps(a - b) for j, other in enumerate(items) if j != i
                for wa, a in parts for wb, b in other) for i, parts in enumerate(items)]
    if divisor == "none":
        return sums
    d = {"n-1": n - 1, "n": n}.get(divisor)
    if d is None:
        raise EventError(f"unknown cross-IMP divisor {divisor!r} (use n-1, n or none)")
    return [s / d if d else 0.0 for s in sums]


def _artificial_imps(adj: Artificial | float, size: float) -> float:
    if isinstance(adj, Artificial):
        return {Artificial.AVE_PLUS: size, Artificial.AVE: 0.0, Artificial.AVE_MINUS: -size}[adj]
    return (float(adj) - 50.0) / 10.0 * size
