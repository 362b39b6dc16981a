"""Team-against-team matches (dealer.events.teams): schedule, IMPs, VPs, byes, ranking.

Every figure below is worked out by hand in the comments; VP values are the
WBF 2013 continuous scale, 10 + 10(1 - tau^(3M/B)) / (1 - tau^3), B = 15 sqrt(N).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from dealer.events.model import Artificial, EventError, Result
from dealer.events.teams import (
    Schedule,
    compare_board,
    round_robin,
    score_matches,
    team_of,
)
from dealer.events.vp import wbf_vp


def _lines(s: Schedule, outcome: dict[tuple[int, int], tuple[int, int]]) -> list[Result]:
    """Result lines for every sitting: ``outcome[(round, home)] = (home NS score, away NS score)``."""
    out = []
    for m in s.matches():
        if (m.round, m.home) not in outcome:
            continue
        home_ns, away_ns = outcome[(m.round, m.home)]
        for st in m.sittings():
            score = home_ns if team_of(st.ns) == m.home else away_ns
            out += [Result(b, st.ns, st.ew, score, table=st.table, round=st.round)
                    for b in st.boards]
    return out


# ------------------------------------------------------------------ schedule


@pytest.mark.parametrize("teams", range(2, 15))
def test_round_robin_meets_everyone_once_and_is_a_sound_movement(teams: int) -> None:
    s = round_robin(teams, boards_per_round=3)
    met = Counter(frozenset((m.home, m.away)) for m in s.matches())
    assert set(met) == {frozenset(p) for p in combinations(range(1, teams + 1), 2)}
    assert set(met.values()) == {1}
    mv = s.movement()
    assert mv.problems() == []
    assert mv.rounds == (teams - 1 if teams % 2 == 0 else teams)
    assert mv.tables == 2 * (teams // 2)
    # Each team is at home (its odd pair NS at the match's first table) in about half its matches.
    home = Counter(m.home for m in s.matches())
    assert max(home.values()) - min(home.values(), default=0) <= 1
    if teams % 2:
        assert sorted(r.bye for r in s.rounds) == list(range(1, teams + 1))  # one bye each
    else:
        assert all(r.bye is None for r in s.rounds)


def test_seating_and_pair_numbers_of_a_four_team_round_robin() -> None:
    s = round_robin(4, boards_per_round=2)
    # Circle method, team 4 fixed: round 1 is 1 v 4 and 2 v 3; round 2 4 v 2 and 3 v 1;
    # round 3 3 v 4 and 1 v 2.
    assert [[(m.home, m.away) for m in r.matches] for r in s.rounds] == [
        [(1, 4), (2, 3)], [(4, 2), (3, 1)], [(3, 4), (1, 2)]]
    mv = s.movement()
    # Round 2, match 2 (3 v 1) plays at tables 3 and 4: team 3's pair 5 NS at table 3 against
    # team 1's EW pair 2; team 1's pair 1 NS at table 4 against team 3's EW pair 6.
    t3, t4 = mv.at(3, 2), mv.at(4, 2)
    assert (t3.ns, t3.ew, t4.ns, t4.ew) == (5, 2, 1, 6)
    assert t3.boards == t4.boards == (3, 4)
    # Pair 2t-1 always sits NS, pair 2t always EW.
    assert all(st.ns % 2 == 1 and st.ew % 2 == 0 for st in mv.sittings)
    assert [st.table for st in mv.card(1)] == [1, 4, 3]
    assert s.match_of(1, 3) is s.rounds[0].matches[1] and round_robin(5).match_of(1, 1) is None


def test_partial_round_robin_and_refusals() -> None:
    assert len(round_robin(6, rounds=2).rounds) == 2
    with pytest.raises(EventError, match="1 to 3 rounds, not 4"):
        round_robin(4, rounds=4)
    with pytest.raises(EventError, match="at least 2 teams"):
        round_robin(1)
    with pytest.raises(EventError, match="boards per round"):
        round_robin(4, boards_per_round=0)
    with pytest.raises(EventError, match="pair 0"):
        team_of(0)


# ------------------------------------------------------------------ one match


def test_seed_002_match_two_teams_two_tables_four_boards() -> None:
    # Seed 002's match: our NS at table 1 scored 420, 500, -690, 140; the NS of the other
    # team at table 2 scored 450, 620, -1440, -100. Nets -30, -120, +750, +240:
    # -1, -3, +13, +6 = +15 IMPs (19 to 4).
    s = round_robin(2, boards_per_round=4)
    home_ns = [420, 500, -690, 140]
    away_ns = [450, 620, -1440, -100]
    lines = [Result(b, 1, 4, home_ns[b - 1]) for b in range(1, 5)]
    lines += [Result(b, 3, 2, away_ns[b - 1]) for b in range(1, 5)]
    ev = score_matches(s, lines)
    (mr,) = ev.matches
    assert [b.home_imps for b in mr.boards] == [-1, -3, 13, 6]
    assert (mr.home_imps, mr.away_imps, mr.margin) == (19, 4, 15)
    # 4 boards: B = 30, 3M/B = 1.5; tau^1.5 = 0.48587 -> 10 + 10 * 0.51413 / 0.76393 = 16.73.
    assert (mr.home_vp, mr.away_vp) == (16.73, 3.27)
    assert [(p.place, p.team, p.total.vp) for p in ev.ranking] == [("1", 1, 16.73),
                                                                   ("2", 2, 3.27)]
    assert ev.totals[2].imps_for == 4 and ev.totals[2].imp_difference == -15
    assert ev.notes == []


def test_unplayed_and_missing_boards_score_nothing_but_the_scale_keeps_the_match_length() -> None:
    s = round_robin(2, boards_per_round=4)
    lines = [Result(1, 1, 4, 420), Result(1, 3, 2, 450),          # -1
             Result(2, 1, 4, 500), Result(2, 3, 2, 620),          # -3
             Result(3, 1, 4, -690), Result(3, 3, 2, not_played=True),
             Result(4, 1, 4, 140)]                                # other table not in yet
    ev = score_matches(s, lines)
    (mr,) = ev.matches
    assert [b.home_imps for b in mr.boards] == [-1, -3, None, None]
    assert mr.compared == 2 and mr.margin == -4
    # 4 IMPs on the 4-board scale (not a 2-board one): 3M/B = 0.4, tau^0.4 = 0.8249,
    # 10 + 10 * 0.1751 / 0.76393 = 12.29 for the away team.
    assert (mr.home_vp, mr.away_vp) == wbf_vp(-4, 4) == (7.71, 12.29)
    assert any("board 3" in n and "not played" in n for n in ev.notes)
    assert any("board 4" in n and "not yet entered" in n and "team 2" in n for n in ev.notes)


def test_artificial_score_stands_for_the_board_and_wrong_seating_is_reported() -> None:
    # Law 12C2(b): average-plus is 3 IMPs. Team 2 gets A+ at table 2, team 1 A-.
    art = Result(1, 3, 2, ns_artificial=Artificial.AVE_PLUS, ew_artificial=Artificial.AVE_MINUS)
    c = compare_board(1, 1, 2, [Result(1, 1, 4, 420), art])
    assert c.home_imps == -3 and "artificial" in c.note
    # A line swapped so that team 2 sat NS at both tables cannot be compared.
    bad = compare_board(2, 1, 2, [Result(2, 4, 1, -420), Result(2, 3, 2, 450)])
    assert bad.home_imps is None and "North-South at both tables" in bad.note


def test_lines_outside_the_schedule_are_left_out_with_a_note() -> None:
    s = round_robin(4, boards_per_round=1)
    stray = [Result(1, 1, 6, 420),   # teams 1 and 3 do not meet on board 1 (round 1)
             Result(1, 9, 2, 100)]   # pair 9 is not in a 4-team event
    ev = score_matches(s, stray)
    assert ev.matches == [] and len(ev.notes) == 2
    assert "do not meet" in ev.notes[0] and "pairs 1-8" in ev.notes[1]


# ------------------------------------------------------------------ a whole event


def test_four_team_round_robin_totals_and_ranking() -> None:
    # 2 boards a match (B = 15 sqrt 2 = 21.2). A win of 13 IMPs on each board (1430 v 620,
    # 810 points) is 26 IMPs: over the blitz, 20-0. Equal scores: 10-10.
    win, draw = (1430, 620), (420, 420)
    s = round_robin(4, boards_per_round=2)
    # Round 1: 1 beats 4, 2 v 3 drawn. Round 2: 4 beats 2, 3 v 1 drawn.
    # Round 3: 3 v 4 drawn, 1 beats 2.
    outcome = {(1, 1): win, (1, 2): draw, (2, 4): win, (2, 3): draw, (3, 3): draw, (3, 1): win}
    ev = score_matches(s, _lines(s, outcome))
    assert len(ev.matches) == 6 and ev.notes == []
    assert all(b.home_imps in (13, 0) for mr in ev.matches for b in mr.boards)
    # Team 1: 20 + 10 + 20 = 50; team 2: 10 + 0 + 0 = 10; team 3: 10 + 10 + 10 = 30;
    # team 4: 0 + 20 + 10 = 30, and 3 and 4 have the same IMP difference (0) so share 2nd.
    vps = {t: tot.vp for t, tot in ev.totals.items()}
    assert vps == {1: 50.0, 2: 10.0, 3: 30.0, 4: 30.0}
    assert sum(vps.values()) == 6 * 20
    assert [(p.place, p.team) for p in ev.ranking] == [("1", 1), ("2=", 3), ("2=", 4), ("4", 2)]
    assert (ev.totals[1].imps_for, ev.totals[1].imps_against) == (52, 0)
    assert ev.totals[4].imp_difference == 0 and ev.totals[2].imp_difference == -52
    # Per board, per pair: both pairs of a team carry the team's IMPs.
    bi = ev.board_imps()
    assert bi[(1, 1)] == bi[(1, 2)] == 13 and bi[(1, 7)] == bi[(1, 8)] == -13


def test_equal_vps_are_split_by_the_imp_difference() -> None:
    # 1 board a match (B = 15), round 1 only: 1 v 4 and 2 v 3.
    s = round_robin(4, boards_per_round=1, rounds=1)
    # 450 v 420 (30 points) and 420 v 400 (20 points) are both 1 IMP: equal VPs and
    # equal IMP differences, so the winners share 1st and the losers share 3rd.
    ev = score_matches(s, _lines(s, {(1, 1): (450, 420), (1, 2): (420, 400)}))
    assert ev.totals[1].vp == ev.totals[2].vp == wbf_vp(1, 1)[0]
    assert [p.place for p in ev.ranking] == ["1=", "1=", "3=", "3="]
    # 1500 points is 17 IMPs, 2250 is 20: both past the blitz, 20-0 each. The IMP
    # difference (+20 before +17, -17 before -20) then orders all four.
    ev = score_matches(s, _lines(s, {(1, 1): (1500, 0), (1, 2): (2250, 0)}))
    assert {t: x.vp for t, x in ev.totals.items()} == {1: 20.0, 2: 20.0, 3: 0.0, 4: 0.0}
    assert [(p.place, p.team) for p in ev.ranking] == [("1", 2), ("2", 1), ("3", 4), ("4", 3)]


@pytest.mark.parametrize("boards", [1, 2, 4, 8, 16, 24, 32])
def test_vp_pairs_are_symmetric_from_20_0_to_10_10(boards: int) -> None:
    s = round_robin(2, boards_per_round=boards)
    seen = []
    for diff in (0, 20, 50, 130, 430, 1000, 4000):  # 0, 1, 2, 4, 10, 15, 24 IMPs a board
        home = score_matches(s, _lines(s, {(1, 1): (diff, 0)})).matches[0]
        away = score_matches(s, _lines(s, {(1, 1): (0, diff)})).matches[0]
        assert home.home_vp + home.away_vp == 20
        assert (home.home_vp, home.away_vp) == (away.away_vp, away.home_vp)
        seen.append(home.home_vp)
    assert seen[0] == 10.0 and seen[-1] == 20.0  # 10-10 for a tie, 20-0 past the blitz
    assert seen == sorted(seen)


def test_byes_score_12_or_the_teams_average() -> None:
    # 3 teams (phantom 4 fixed): round 1 is 2 v 3 with a bye for 1; round 2 is 3 v 1, bye 2;
    # round 3 is 1 v 2, bye 3.
    s = round_robin(3, boards_per_round=1)
    assert [(r.bye, [(m.home, m.away) for m in r.matches]) for r in s.rounds] == [
        (1, [(2, 3)]), (2, [(3, 1)]), (3, [(1, 2)])]
    assert s.movement().tables == 2
    # Round 1 only: 2 beats 3 by 17 IMPs (2000 points) on 1 board: over the blitz (15), 20-0.
    ev = score_matches(s, _lines(s, {(1, 2): (2000, 0)}))
    assert {t: x.vp for t, x in ev.totals.items()} == {1: 12.0, 2: 20.0, 3: 0.0}
    assert ev.totals[1].byes == 1 and ev.totals[1].matches == 0
    # Round 2 too: team 1 (away) beats 3 by 20-0. Team 1 now has 20 + its bye at its
    # average (20 > 12); team 2's bye in round 2 is its average 20, too.
    ev = score_matches(s, _lines(s, {(1, 2): (2000, 0), (2, 3): (0, 2000)}))
    assert {t: x.vp for t, x in ev.totals.items()} == {1: 40.0, 2: 40.0, 3: 0.0}
    # A losing team's bye is 12, not its average of 0 (rounds 1-3, 3 loses both).
    ev = score_matches(s, _lines(s, {(1, 2): (2000, 0), (2, 3): (0, 2000), (3, 1): (0, 0)}))
    assert ev.totals[3].vp == 12.0 and ev.totals[3].byes == 1
    assert ev.totals[1].vp == 20 + 10 + 15  # bye at its average (20 + 10) / 2
