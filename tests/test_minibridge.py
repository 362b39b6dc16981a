"""Minibridge (seed 002): the declarer from announced points and the worked scores."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.cards import Strain
from dealer.deal import Deal
from dealer.games.minibridge import (
    MinibridgeError,
    minibridge_declarer,
    minibridge_score,
    tricks_needed,
)
from dealer.seats import Seat


def test_seed_examples() -> None:
    # "Part score in no trumps. For 7 tricks ... 90. For 10 tricks ... 180.
    #  if they took 5 tricks the other side would score 100."
    assert minibridge_score("part", "NT", 7) == 90
    assert minibridge_score("part", "NT", 10) == 180
    assert minibridge_score("part", "NT", 5) == -100
    # "Game in hearts. For 10 tricks ... 420. For 11 tricks ... 450.
    #  If they took 7 tricks the other side would score 150."
    assert minibridge_score("game", "H", 10) == 420
    assert minibridge_score("game", "H", 11) == 450
    assert minibridge_score("game", "H", 7) == -150


def test_game_thresholds_and_failures() -> None:
    assert [tricks_needed("game", s) for s in "CDHS"] == [11, 11, 10, 10]
    assert tricks_needed("game", "NT") == 9 and tricks_needed("part", "C") == 7
    assert minibridge_score("game", "C", 11) == 100 + 300
    assert minibridge_score("game", "D", 10) == -50          # one short of 11
    assert minibridge_score("part", "S", 6) == -50
    assert minibridge_score("part", "C", 13) == 140 + 50
    assert minibridge_score("game", Strain.NOTRUMP, 9) == 400
    with pytest.raises(MinibridgeError, match="'part' or 'game', not 'slam'"):
        minibridge_score("slam", "S", 12)
    with pytest.raises(MinibridgeError, match="14 tricks is impossible"):
        minibridge_score("part", "S", 14)


def test_declarer_from_points() -> None:
    assert minibridge_declarer("N", [13, 8, 11, 8]) is Seat.NORTH
    assert minibridge_declarer("E", [10, 5, 14, 11]) is Seat.WEST  # E 10 + W 14 beats 16
    assert minibridge_declarer("N", [10, 10, 10, 10]) is None       # 20-20: redeal
    # Partners tie: the one who spoke first (dealer or dealer's left) declares.
    assert minibridge_declarer("S", [12, 4, 12, 12]) is Seat.SOUTH  # S dealer, N third
    assert minibridge_declarer("E", [4, 12, 12, 12]) is Seat.SOUTH  # S spoke 2nd, N 4th
    assert minibridge_declarer("W", {Seat.NORTH: 3, Seat.EAST: 14, Seat.SOUTH: 9,
                                     Seat.WEST: 14}) is Seat.WEST     # W dealt, so spoke first
    with pytest.raises(MinibridgeError, match="add up to 41, not 40"):
        minibridge_declarer("N", [13, 8, 12, 8])
    with pytest.raises(MinibridgeError, match="West announced 38 points"):
        minibridge_declarer("N", [0, 1, 1, 38])


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(52))), st.sampled_from(list(Seat)))
def test_declarer_side_holds_more_points(order: list[int], dealer: Seat) -> None:
    deal = Deal.from_owners([Seat(i // 13) for i in order])
    points = {s: deal.hand(s).hcp for s in Seat}
    who = minibridge_declarer(dealer, points)
    ns = points[Seat.NORTH] + points[Seat.SOUTH]
    if ns == 20:
        assert who is None
    else:
        assert who is not None and (who.is_ns == (ns > 20))
        assert points[who] >= points[who.partner]
