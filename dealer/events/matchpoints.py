"""Matchpoints (WBF Law 78A), Neuberg, artificial and fouled boards.

Units: the WBF counts 2 per score beaten and 1 per tie, so n results on a
board have a top of 2(n-1) and the points add up to n(n-1). The ACBL counts
1 and 1/2: exactly half (``scale="acbl"``). Percentages do not depend on the
unit.

Seed 002's traveller (board 1; scores +420, +430, +500, +420, +450, -50, +170):

>>> matchpoints([420, 430, 500, 420, 450, -50, 170])
[5.0, 8.0, 12.0, 5.0, 10.0, 0.0, 2.0]
>>> matchpoints([420, 430, 500, 420, 450, -50, 170], scale="acbl")
[2.5, 4.0, 6.0, 2.5, 5.0, 0.0, 1.0]

Neuberg (EBU/WBF): a board played A times where E were expected is factored
to the top of E results: M' = (M + 1) * E / A - 1 in WBF units.

>>> [round(m, 2) for m in matchpoints([100, 200, 300], expected=4)]
[0.33, 3.0, 5.67]

The whole-field path :func:`matchpoint_arrays` does the same for hundreds of
thousands of results at once with one sort and two ``searchsorted`` calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dealer.events.model import Artificial, EventError, PairKey, Result

SCALES = {"wbf": 1.0, "acbl": 0.5}


def _unit(scale: str) -> float:
    try:
        return SCALES[scale]
    except KeyError:
        raise EventError(f"unknown matchpoint scale {scale!r} (use wbf or acbl)") from None


def matchpoints(
    scores: Sequence[float], *, expected: int | None = None, scale: str = "wbf"
) -> list[float]:
    """North-South matchpoints for each score on one board (higher NS score is better).

    East-West gets ``top(expected or len(scores)) - ns``.
    """
    if not scores:
        return []
    arr = np.asarray(scores, dtype=np.float64)
    mp = matchpoint_arrays(np.zeros(len(arr), dtype=np.int64), arr,
                           expected=None if expected is None else np.array([expected]),
                           scale=scale)
    return [float(x) for x in mp]


def top(results_expected: int, scale: str = "wbf") -> float:
    """The top on a board with that many (expected) results: 2(n-1) WBF units.

    >>> top(7), top(7, "acbl")
    (12.0, 6.0)
    """
    return 2.0 * max(results_expected - 1, 0) * _unit(scale)


def matchpoint_arrays(
    board: np.ndarray,
    score: np.ndarray,
    *,
    expected: np.ndarray | None = None,
    scale: str = "wbf",
) -> np.ndarray:
    """Matchpoint every result of a field at once; returns NS matchpoints.

    ``board`` holds any integer key per result (a board number, or a
    board-and-fouled-group code); results with equal keys are compared.
    ``expected``, if given, is indexed by the *sorted unique* keys and holds
    the number of results each comparison should be factored to (Neuberg).

    >>> matchpoint_arrays(np.array([1, 1, 2, 2, 1]), np.array([50, -50, 0, 0, 50]))
    array([3., 0., 1., 1., 3.])
    """
    board = np.asarray(board)
    score = np.asarray(score)
    if board.shape != score.shape or board.ndim != 1:
        raise EventError("board keys and scores must be one-dimensional and the same length")
    n_total = board.shape[0]
    if n_total == 0:
        return np.zeros(0)
    # Dense ranks for both keys, so one int64 composite key orders by board then score
    # whatever the scores' type (ints, Butler floats).
    _, b_idx = np.unique(board, return_inverse=True)
    s_vals, s_idx = np.unique(score, return_inverse=True)
    key = b_idx.astype(np.int64) * np.int64(len(s_vals)) + s_idx.astype(np.int64)
    sorted_key = np.sort(key)
    left = np.searchsorted(sorted_key, key, side="left")
    right = np.searchsorted(sorted_key, key, side="right")
    counts = np.bincount(b_idx)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    beaten = left - starts[b_idx]
    ties = right - left - 1
    mp = 2.0 * beaten + ties
    if expected is not None:
        exp = np.asarray(expected, dtype=np.float64)
        if exp.shape != counts.shape:
            raise EventError(f"expected counts has {exp.shape[0]} entries for "
                             f"{counts.shape[0]} boards")
        if np.any(exp < counts):
            raise EventError("a board has more results than it was expected to have")
        a = counts[b_idx].astype(np.float64)
        e = exp[b_idx]
        mp = (mp + 1.0) * e / a - 1.0  # Neuberg
    return mp * _unit(scale)


# --------------------------------------------------------------------------- event


@dataclass(frozen=True, slots=True)
class MatchpointOptions:
    """How an event is matchpointed.

    - ``scale``: ``"wbf"`` (2/1) or ``"acbl"`` (1/half).
    - ``across_field``: compare all sections together (one traveller per board).
    - ``numbering``: ``"unique"`` when pair numbers are unique in a section,
      ``"by_line"`` when NS and EW are both numbered from 1 (Mitchell).
    - ``session_adjust``: average-plus becomes the session percentage when
      that is higher, and average-minus when lower (WBF Laws Committee
      1998, EBU; Law 12C2 says "at least 60%" / "at most 40%").
    - ``expected``: results each board should have had, by board number;
      by default the lines on its traveller (scores, artificial, not played).
    - ``fouled``: ``"ebu"`` scores every group of a fouled board by the EBU
      formula (Neuberg within the group). ``"wbf1991"`` applies the WBF 1991
      rule as ASE implements it: groups of 4 or more by the formula; a group
      of 3 by the formula only if it is the largest group, else 70/60/50%;
      a group of 2 65/55%; a single result 60%. Each direction is ranked by
      its own score; tied results share the percentages of their places.
    """

    scale: str = "wbf"
    across_field: bool = True
    numbering: str = "unique"
    session_adjust: bool = True
    expected: Mapping[int, int] = field(default_factory=dict)
    fouled: str = "ebu"


@dataclass(frozen=True, slots=True)
class ScoredLine:
    """A traveller line with its matchpoints. ``ns_mp``/``ew_mp`` are ``None`` if not played."""

    result: Result
    ns_mp: float | None
    ew_mp: float | None
    top: float

    @property
    def ns_percent(self) -> float | None:
        return None if self.ns_mp is None or not self.top else 100.0 * self.ns_mp / self.top

    @property
    def ew_percent(self) -> float | None:
        return None if self.ew_mp is None or not self.top else 100.0 * self.ew_mp / self.top


@dataclass(slots=True)
class PairTotal:
    """A pair's matchpoints, the tops it could have scored, and the boards counted."""

    pair: PairKey
    mp: float = 0.0
    top: float = 0.0
    boards: int = 0

    @property
    def percent(self) -> float:
        return 100.0 * self.mp / self.top if self.top else 0.0


@dataclass(slots=True)
class MatchpointEvent:
    """The scored event: every line, and every pair's total."""

    lines: list[ScoredLine]
    totals: dict[PairKey, PairTotal]
    options: MatchpointOptions

    def traveller(self, board: int, section: str | None = None) -> list[ScoredLine]:
        return [ln for ln in self.lines if ln.result.board == board
                and (section is None or ln.result.section == section)]


def pair_keys(result: Result, numbering: str) -> tuple[PairKey, PairKey]:
    """The pairs in the NS and in the EW seats of a line, as event identities.

    In a two-winner Mitchell (``by_line``) a line whose pairs sat the wrong way
    (``swapped``) has an EW pair in the NS seats: each keeps its own line.

    >>> r = Result(1, 5, 3, 420, swapped=True)   # EW pair 5 sat NS, NS pair 3 sat EW
    >>> [str(k) for k in pair_keys(r, "by_line")]
    ['A5 EW', 'A3 NS']
    """
    if numbering == "by_line":
        if result.swapped:
            return (PairKey(result.section, "EW", result.ns),
                    PairKey(result.section, "NS", result.ew))
        return (PairKey(result.section, "NS", result.ns), PairKey(result.section, "EW", result.ew))
    if numbering != "unique":
        raise EventError(f"unknown pair numbering {numbering!r} (use unique or by_line)")
    return PairKey(result.section, "", result.ns), PairKey(result.section, "", result.ew)


def score_matchpoints(results: Iterable[Result],
                      options: MatchpointOptions | None = None) -> MatchpointEvent:
    """Matchpoint a pairs event.

    Per board: real scores are compared within their fouled-board group
    and factored by Neuberg to the board's expected count (EBU fouled-board
    formula, which is Neuberg within each group). Artificial scores get
    their percentage of the full top (Law 12C2). Not-played lines score
    nothing and do not count in the pair's total.
    """
    opts = options or MatchpointOptions()
    unit = _unit(opts.scale)
    if opts.numbering not in ("unique", "by_line"):
        raise EventError(f"unknown pair numbering {opts.numbering!r} (use unique or by_line)")
    by_line = opts.numbering == "by_line"
    lines = list(results)
    kinds = [r.kind for r in lines]
    board_code: dict[tuple, int] = {}
    line_board = [0] * len(lines)
    for i, r in enumerate(lines):
        if kinds[i] == "missing":
            raise EventError(f"board {r.board}, section {r.section}, pairs {r.ns}-{r.ew}: "
                             "the line has no score, no artificial score and is not marked "
                             "not played")
        line_board[i] = board_code.setdefault(_board_key(r, opts), len(board_code))
    counts = np.bincount(np.asarray(line_board, dtype=np.int64), minlength=len(board_code))
    expected = np.array([opts.expected.get(key[-1], int(counts[c]))
                         for key, c in board_code.items()], dtype=np.int64)
    short = np.flatnonzero(expected < counts)
    if short.size:
        key = list(board_code)[int(short[0])]
        raise EventError(f"board {key[-1]} has {int(counts[short[0]])} results but only "
                         f"{int(expected[short[0]])} were expected")
    board_tops = 2.0 * (expected - 1) * unit
    tops = board_tops[line_board].tolist() if lines else []

    # One vectorised pass over every real score: compare within (board, fouled group)
    # and factor each comparison to its board's expected count (Neuberg / EBU fouled).
    real = [i for i, k in enumerate(kinds) if k == "score"]
    ns_mp: list[float | None] = [None] * len(lines)
    if real:
        group_code: dict[tuple[int, int], int] = {}
        codes = [group_code.setdefault((line_board[i], lines[i].group), len(group_code))
                 for i in real]
        group_expected = np.array([expected[b] for b, _ in group_code], dtype=np.int64)
        mps = matchpoint_arrays(np.asarray(codes, dtype=np.int64),
                                np.asarray([lines[i].score for i in real]),
                                expected=group_expected, scale=opts.scale)
        for i, m in zip(real, mps.tolist(), strict=True):
            ns_mp[i] = m
    weighted = [i for i, k in enumerate(kinds) if k == "weighted"]
    if weighted:
        _weighted_matchpoints(lines, line_board, expected, weighted, ns_mp, unit)
    ew_fixed: dict[int, float] = {}
    if opts.fouled == "wbf1991":
        _wbf1991_small_groups(lines, real, line_board, tops, ns_mp, ew_fixed)
    elif opts.fouled != "ebu":
        raise EventError(f"unknown fouled-board rule {opts.fouled!r} (use ebu or wbf1991)")

    # Pair totals from real scores first: they give the session percentage
    # that may move average-plus and average-minus (Law 12C2, EBU practice).
    acc: dict[tuple[str, str, int], list[float]] = {}
    ew_mp: list[float | None] = [None] * len(lines)

    def add(key: tuple[str, str, int], mp: float, top_: float) -> None:
        t = acc.get(key)
        if t is None:
            acc[key] = [mp, top_, 1]
        else:
            t[0] += mp
            t[1] += top_
            t[2] += 1

    def keys(r: Result) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
        if by_line and r.swapped:  # the pairs sat the wrong way: each keeps its line
            return (r.section, "EW", r.ns), (r.section, "NS", r.ew)
        return ((r.section, "NS" if by_line else "", r.ns),
                (r.section, "EW" if by_line else "", r.ew))

    for i in sorted(real + weighted):
        r = lines[i]
        ew_mp[i] = ew_fixed.get(i, tops[i] - ns_mp[i])  # type: ignore[operator]
        kn, ke = keys(r)
        add(kn, ns_mp[i], tops[i])  # type: ignore[arg-type]
        add(ke, ew_mp[i], tops[i])  # type: ignore[arg-type]
    session = {k: 100.0 * v[0] / v[1] for k, v in acc.items() if v[1]}
    for i, r in enumerate(lines):
        if kinds[i] == "artificial":
            kn, ke = keys(r)
            ns_pct = _artificial_percent(r.ns_artificial, session.get(kn), opts)  # type: ignore[arg-type]
            ew_pct = _artificial_percent(r.ew_artificial, session.get(ke), opts)  # type: ignore[arg-type]
            ns_mp[i] = ns_pct / 100.0 * tops[i]
            ew_mp[i] = ew_pct / 100.0 * tops[i]
            add(kn, ns_mp[i], tops[i])  # type: ignore[arg-type]
            add(ke, ew_mp[i], tops[i])  # type: ignore[arg-type]
        elif kinds[i] == "not_played":
            for k in keys(r):
                acc.setdefault(k, [0.0, 0.0, 0])
    totals = {}
    for k, (mp, top_, n) in acc.items():
        pk = PairKey(*k)
        totals[pk] = PairTotal(pk, mp, top_, int(n))
    scored = [ScoredLine(r, ns_mp[i], ew_mp[i], tops[i]) for i, r in enumerate(lines)]
    return MatchpointEvent(scored, totals, opts)


def _weighted_matchpoints(lines: list[Result], line_board: list[int], expected: np.ndarray,
                          weighted: list[int], ns_mp: list[float | None], unit: float) -> None:
    """Matchpoint every line compared with a weighted score (Law 12C1(c)).

    A weighted score is compared with each other result part by part, each
    part counting its share: 60% of 4S= and 40% of 4S-1 against a +420 earns
    0.6 of a tie and 0.4 of a loss. The other line earns the opposite, so the
    board's matchpoints add up as on any board. Neuberg factors the group to
    the board's expected count as for real scores.
    """
    groups: dict[tuple[int, int], list[int]] = {}
    for i, r in enumerate(lines):
        if r.kind in ("score", "weighted"):
            groups.setdefault((line_board[i], r.group), []).append(i)
    for (b, _), members in groups.items():
        if not any(lines[i].kind == "weighted" for i in members):
            continue
        n = len(members)
        for i in members:
            mp = sum(wa * wb * (2.0 if a > c else 1.0 if a == c else 0.0)
                     for j in members if j != i
                     for wa, a in lines[i].parts for wb, c in lines[j].parts)
            ns_mp[i] = ((mp + 1.0) * float(expected[b]) / n - 1.0) * unit


_SMALL_GROUP_PERCENT = {1: (60.0,), 2: (65.0, 55.0), 3: (70.0, 60.0, 50.0)}


def _wbf1991_small_groups(lines: list[Result], real: list[int], line_board: list[int],
                          tops: list[float], ns_mp: list[float | None],
                          ew_fixed: dict[int, float]) -> None:
    """Replace the formula by fixed percentages for small groups of fouled boards."""
    groups: dict[int, dict[int, list[int]]] = {}
    for i in real:
        groups.setdefault(line_board[i], {}).setdefault(lines[i].group, []).append(i)
    for by_group in groups.values():
        if len(by_group) < 2:
            continue  # not fouled
        largest = max(len(m) for m in by_group.values())
        for members in by_group.values():
            n = len(members)
            if n >= 4 or (n == 3 and n == largest):
                continue
            pcts = _SMALL_GROUP_PERCENT[n]
            for sign, target in ((1, "ns"), (-1, "ew")):
                ranked = sorted(members, key=lambda i: -sign * lines[i].score)  # type: ignore[operator]
                pos = 0
                while pos < n:
                    end = pos
                    while end + 1 < n and lines[ranked[end + 1]].score == lines[ranked[pos]].score:
                        end += 1
                    share = sum(pcts[pos:end + 1]) / (end + 1 - pos)
                    for i in ranked[pos:end + 1]:
                        value = share / 100.0 * tops[i]
                        if target == "ns":
                            ns_mp[i] = value
                        else:
                            ew_fixed[i] = value
                    pos = end + 1


def _board_key(r: Result, opts: MatchpointOptions) -> tuple:
    return (r.board,) if opts.across_field else (r.section, r.board)


def _artificial_percent(adj: Artificial | float, session: float | None,
                        opts: MatchpointOptions) -> float:
    """Law 12C2: A+ at least 60%, A 50%, A- at most 40%; a number is an explicit percentage."""
    if not isinstance(adj, Artificial):
        pct = float(adj)
        if not 0.0 <= pct <= 100.0:
            raise EventError(f"an adjusted percentage of {pct:g} is not between 0 and 100")
        return pct
    pct = float(adj.value)
    if opts.session_adjust and session is not None:
        if adj is Artificial.AVE_PLUS:
            pct = max(pct, session)
        elif adj is Artificial.AVE_MINUS:
            pct = min(pct, session)
    return pct
