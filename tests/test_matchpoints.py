"""Matchpoints: seed 002's traveller, Neuberg, artificial and fouled boards, properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.events.matchpoints import (
    MatchpointOptions,
    matchpoint_arrays,
    matchpoints,
    score_matchpoints,
    top,
)
from dealer.events.model import Artificial, EventError, PairKey, Result

# Seed 002, "A completed score sheet", board 1: (NS, EW, contract, by, tricks, NS score, NS MP, EW MP)
SEED_TRAVELLER = [
    (1, 8, "4S", "N", 10, 420, 5, 7),
    (2, 13, "3NT", "S", 10, 430, 8, 4),
    (3, 11, "5CX", "E", 8, 500, 12, 0),
    (4, 9, "4S", "N", 10, 420, 5, 7),
    (5, 14, "4S", "N", 11, 450, 10, 2),
    (6, 12, "5S", "N", 10, -50, 0, 12),
    (7, 10, "3S", "N", 10, 170, 2, 10),
]


def test_seed_traveller_scores_and_matchpoints() -> None:
    results = [Result.from_contract(1, ns, ew, c, tricks, declarer=by)
               for ns, ew, c, by, tricks, *_ in SEED_TRAVELLER]
    assert [r.score for r in results] == [row[5] for row in SEED_TRAVELLER]
    event = score_matchpoints(results)
    assert [ln.ns_mp for ln in event.lines] == [row[6] for row in SEED_TRAVELLER]
    assert [ln.ew_mp for ln in event.lines] == [row[7] for row in SEED_TRAVELLER]
    assert all(ln.top == 12 for ln in event.lines)
    # North America: 1 per pair beaten and 1/2 per tie, the same percentages.
    acbl = score_matchpoints(results, MatchpointOptions(scale="acbl"))
    assert [ln.ns_mp for ln in acbl.lines] == [row[6] / 2 for row in SEED_TRAVELLER]
    assert [ln.ns_percent for ln in acbl.lines] == [ln.ns_percent for ln in event.lines]
    assert event.totals[PairKey("A", "", 3)].percent == 100.0
    assert event.totals[PairKey("A", "", 11)].percent == 0.0


def test_ties_share_the_places() -> None:
    # Law 78A example in research: 4 tied at the top of a 10-result board get 15 each (top 18).
    mps = matchpoints([600] * 4 + [100, 90, 80, 70, 60, 50])
    assert mps[:4] == [15.0] * 4 and top(10) == 18


def test_neuberg_matches_ebu_example() -> None:
    # EBU: 10 results of 11 expected gives a top of 21 - 1.1 = 19.9.
    mps = matchpoints(list(range(10)), expected=11)
    assert max(mps) == pytest.approx(19.9)
    assert min(mps) == pytest.approx(0.1)
    assert sum(mps) == pytest.approx(10 * top(11) / 2)


def test_artificial_scores_law_12c2_with_session_percentage() -> None:
    lines = [Result(1, 1, 11, 420), Result(1, 2, 12, 420), Result(1, 3, 13, 100),
             Result(1, 4, 14, ns_artificial=Artificial.AVE_PLUS,
                    ew_artificial=Artificial.AVE_MINUS),
             # Pair 4 has a 100% session otherwise, pair 14 a 0% one.
             Result(2, 4, 14, 600), Result(2, 1, 11, 100), Result(2, 2, 12, 90),
             Result(2, 3, 13, 80)]
    event = score_matchpoints(lines)
    art = event.lines[3]
    assert art.top == 6
    assert art.ns_mp == pytest.approx(6.0)  # A+ = 100% session > 60%
    assert art.ew_mp == pytest.approx(0.0)  # A- = 0% session < 40%
    plain = score_matchpoints(lines, MatchpointOptions(session_adjust=False)).lines[3]
    assert (plain.ns_percent, plain.ew_percent) == pytest.approx((60.0, 40.0))
    # The three real results were Neuberg-factored from 3 to 4 expected.
    assert [ln.ns_mp for ln in event.lines[:3]] == pytest.approx([4.0 + 1 / 3, 4.0 + 1 / 3, 1 / 3])


def test_not_played_counts_nothing_for_the_pair() -> None:
    lines = [Result(1, 1, 11, 420), Result(1, 2, 12, 400), Result(1, 3, 13, not_played=True),
             Result(2, 3, 13, 50), Result(2, 1, 11, 0), Result(2, 2, 12, -50)]
    event = score_matchpoints(lines)
    t3 = event.totals[PairKey("A", "", 3)]
    assert (t3.boards, t3.top) == (1, 4.0) and t3.percent == 100.0
    assert event.lines[2].ns_mp is None
    # The other two results on board 1 are factored to the three expected.
    assert [event.lines[0].ns_mp, event.lines[1].ns_mp] == pytest.approx([3.5, 0.5])


def test_fouled_board_scored_by_group() -> None:
    # EBU example: 10 expected, split 7 + 3; the group tops become 17.6 and 15.7 (rounded 0.1).
    lines = [Result(1, i + 1, 21 + i, 10 * i) for i in range(7)]  # pairs from 1
    lines += [Result(1, 8 + i, 28 + i, 10 * i, group=1) for i in range(3)]
    event = score_matchpoints(lines)
    tops = [max(ln.ns_mp for ln in event.lines if ln.result.group == g) for g in (0, 1)]
    assert [round(t, 1) for t in tops] == [17.6, 15.7]
    assert {ln.top for ln in event.lines} == {18.0}


def test_two_winner_numbering_and_bad_lines() -> None:
    lines = [Result(1, 1, 1, 100), Result(1, 2, 2, 50)]
    event = score_matchpoints(lines, MatchpointOptions(numbering="by_line"))
    assert event.totals[PairKey("A", "NS", 1)].percent == 100.0
    assert event.totals[PairKey("A", "EW", 1)].percent == 0.0
    with pytest.raises(EventError, match="board 3.*pairs 1-2"):
        score_matchpoints([Result(3, 1, 2)])
    with pytest.raises(EventError, match="A\\+, A or A-"):
        Artificial.parse("A++")
    with pytest.raises(EventError, match="both sides"):
        Result(1, 1, 2, ns_artificial=Artificial.AVE)
    with pytest.raises(EventError, match="14 tricks is impossible"):
        Result.from_contract(1, 1, 2, "4S", 14, declarer="N")


def test_sections_compared_across_the_field_or_alone() -> None:
    lines = [Result(1, 1, 2, 100, section="A"), Result(1, 1, 2, 200, section="B")]
    across = score_matchpoints(lines)
    alone = score_matchpoints(lines, MatchpointOptions(across_field=False))
    assert [ln.ns_mp for ln in across.lines] == [0.0, 2.0]
    assert [ln.top for ln in alone.lines] == [0.0, 0.0]


scores_st = st.lists(st.integers(-200, 200).map(lambda x: x * 10), min_size=1, max_size=40)


@settings(max_examples=200, deadline=None)
@given(scores_st)
def test_property_sum_is_n_times_n_minus_1(scores: list[int]) -> None:
    n = len(scores)
    mps = matchpoints(scores)
    assert sum(mps) == n * (n - 1)
    assert all(0 <= m <= top(n) for m in mps)


@settings(max_examples=200, deadline=None)
@given(scores_st)
def test_property_swapping_ns_and_ew_mirrors(scores: list[int]) -> None:
    n = len(scores)
    ns = matchpoints(scores)
    swapped = matchpoints([-s for s in scores])  # EW's view of the same board
    assert swapped == [top(n) - m for m in ns]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(-20, 20)), min_size=1, max_size=60))
def test_property_vectorised_equals_per_board(rows: list[tuple[int, int]]) -> None:
    boards = np.array([b for b, _ in rows])
    scores = np.array([s * 10 for _, s in rows])
    mp = matchpoint_arrays(boards, scores)
    for b in set(boards.tolist()):
        idx = np.flatnonzero(boards == b)
        assert mp[idx].tolist() == matchpoints(scores[idx].tolist())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(-15, 15)), min_size=2, max_size=30),
       st.sampled_from(["wbf", "acbl"]))
def test_property_event_swap_mirrors_pair_totals(rows: list[tuple[int, int]], scale: str) -> None:
    # Line i is pair i (NS) against pair 100+i (EW). Swapping seats and negating the
    # scores must give every pair exactly the points it had before.
    lines = [Result(b, i + 1, 101 + i, s * 10) for i, (b, s) in enumerate(rows)]
    swapped = [Result(r.board, r.ew, r.ns, -r.score) for r in lines]  # type: ignore[operator]
    a = score_matchpoints(lines, MatchpointOptions(scale=scale))
    b = score_matchpoints(swapped, MatchpointOptions(scale=scale))
    assert a.totals.keys() == b.totals.keys()
    for k, t in a.totals.items():
        assert (t.mp, t.top) == pytest.approx((b.totals[k].mp, b.totals[k].top))
    for x, y in zip(a.lines, b.lines, strict=True):
        assert (x.ns_mp, x.ew_mp) == pytest.approx((y.ew_mp, y.ns_mp))


def test_fouled_board_wbf1991_small_groups() -> None:
    # 10 results: a group of 6, a group of 2 and a single result.
    lines = [Result(1, i, 20 + i, 10 * i) for i in range(1, 7)]
    lines += [Result(1, 7, 27, 300, group=1), Result(1, 8, 28, 100, group=1),
              Result(1, 9, 29, -50, group=2)]
    opts = MatchpointOptions(fouled="wbf1991")
    event = score_matchpoints(lines, opts)
    pct = [(round(ln.ns_percent, 2), round(ln.ew_percent, 2)) for ln in event.lines[6:]]
    assert pct == [(65.0, 55.0), (55.0, 65.0), (60.0, 60.0)]
    # The large group keeps the formula, as under the EBU rule.
    ebu = score_matchpoints(lines)
    assert [ln.ns_mp for ln in event.lines[:6]] == [ln.ns_mp for ln in ebu.lines[:6]]
    # A group of 3 that is the largest uses the formula; tied small-group results share.
    tie = [Result(2, 1, 11, 100), Result(2, 2, 12, 100, group=1), Result(2, 3, 13, 100, group=1),
           Result(2, 4, 14, 0), Result(2, 5, 15, 50)]
    ev2 = score_matchpoints(tie, opts)
    assert [round(ln.ns_percent, 2) for ln in ev2.lines[1:3]] == [60.0, 60.0]
    with pytest.raises(EventError, match="unknown fouled-board rule"):
        score_matchpoints(lines, MatchpointOptions(fouled="acbl"))
