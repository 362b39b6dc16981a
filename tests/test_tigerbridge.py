"""TigerBridge (seed 000): bids, the last bidder proclaims, set points, sets, games."""

from __future__ import annotations

import pytest

from dealer.cards import Suit
from dealer.deal import Deal
from dealer.games.tigerbridge import (
    TigerAuction,
    TigerBid,
    TigerConfig,
    TigerError,
    TigerGame,
    TigerPlay,
    all_bids,
    balancing_point,
    set_points,
)
from dealer.seats import Seat, Side

# The house names the seed kept; their suits and order are a configuration
# (the seed's tables were lost). Forests must outrank lakes for the example's
# bidding (5 lakes, then 5 forests) to be legal.
QUEST = TigerConfig(house_names=("towers", "lakes", "forests", "castles"),
                    house_order=(Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES))


def test_balancing_point_example() -> None:
    # AB can take 10 rounds in lakes, XY 4 in forests (seed 000, "A Question of Balance").
    ab, xy = 10, 4
    rows = []
    for n in range(5, 10):
        ab_proclaims = set_points(n, ab)   # (AB, XY)
        xy_proclaims = set_points(n, xy)   # (XY, AB)
        rows.append((n, ab_proclaims[0], xy_proclaims[1]))
    assert rows == [(5, 5, 1), (6, 4, 2), (7, 3, 3), (8, 2, 4), (9, 1, 5)]
    assert balancing_point(ab, xy) == 7 and balancing_point(9, 6) == 7.5
    # The example's bidding is legal under the configured ranks, and the last bidder
    # (XY's 7 forests) proclaims.
    a = TigerAuction(Seat.WEST, QUEST)  # North (AB) bids first
    for call in ("5 lakes", "5 forests", "6 lakes", "6 forests", "7 lakes", "7 forests",
                 "decline", "decline", "decline"):
        a.call(call)
    assert a.is_complete
    seat, bid = a.proclamation  # type: ignore[misc]
    assert seat is Seat.EAST and bid == TigerBid(7, Suit.HEARTS)
    assert set_points(bid.rounds, xy) == (0, 3)


def test_bids_and_ranking() -> None:
    bids = all_bids(TigerConfig())
    assert len(bids) == 25
    assert bids[0] == TigerBid(5, None)                 # No Crests lowest
    assert bids[-1] == TigerBid(9, Suit.SPADES)
    ranks = [b.rank(TigerConfig()) for b in bids]
    assert ranks == sorted(ranks) == list(range(25))
    assert TigerBid.parse("7 lakes", QUEST) == TigerBid(7, Suit.DIAMONDS)
    assert TigerBid.parse("5 no crests", QUEST).house is None
    with pytest.raises(TigerError, match="5 to 9 rounds, not 4"):
        TigerBid(4, None)
    with pytest.raises(TigerError, match="unknown house 'mountains'"):
        TigerBid.parse("6 mountains", QUEST)
    with pytest.raises(TigerError, match="must differ"):
        TigerConfig(house_names=("a", "a", "b", "c"))


def test_auction_rules() -> None:
    a = TigerAuction(Seat.NORTH)                        # East bids first (dealer's left)
    with pytest.raises(TigerError, match=r"call 1 \(E\): S bid out of turn"):
        a.call("5S", seat=Seat.SOUTH)
    a.call("6 no crests")
    with pytest.raises(TigerError, match="5 spades is not higher than 6 no crests"):
        a.call("5S")
    with pytest.raises(TigerError, match="no doubles"):
        a.call("X")
    for _ in range(3):
        a.call("decline")
    assert a.proclamation == (Seat.EAST, TigerBid(6, None))
    with pytest.raises(TigerError, match="the bidding is over"):
        a.call("7S")
    d = TigerAuction(Seat.NORTH)
    for _ in range(4):
        d.call("pass")
    assert d.is_complete and d.proclamation is None     # next deal, no score


def test_sets_carry_excess_and_game_2_1() -> None:
    g = TigerGame()
    assert g.record(Seat.NORTH, 5, 10) is None          # NS 5
    assert g.set_points == {Side.NS: 5, Side.EW: 0}
    note = g.record(Seat.SOUTH, 5, 9)                   # NS 9 -> set; excess 9 - 6 = 3
    assert note == "NS win set 1 and carry 3"
    assert g.set_points == {Side.NS: 3, Side.EW: 0} and g.game_points[Side.NS] == 1
    g.record(Seat.EAST, 5, 10)                          # EW 5
    g.record(Seat.NORTH, 9, 4)                          # NS down 5: EW 10 -> set, excess 10-6=4
    assert g.sets == [Side.NS, Side.EW] and g.set_points == {Side.EW: 4, Side.NS: 0}
    g.record(Seat.WEST, 6, 7)                           # EW 5: not yet 6 with a lead of 2? 5
    assert g.set_points[Side.EW] == 5 and not g.is_over
    g.record(Seat.NORTH, 5, 6)                          # NS 1
    note = g.record(Seat.EAST, 7, 9)                    # EW 7 vs 1 -> game 2-1
    assert note == "EW win the game 2-1" and g.winner is Side.EW and g.score == "2-1"
    assert g.set_points == {Side.NS: 0, Side.EW: 0}     # nothing carries past the game
    with pytest.raises(TigerError, match="the game is over"):
        g.record(Seat.EAST, 5, 5)


def test_set_needs_lead_of_two_and_game_3_0() -> None:
    g = TigerGame()
    g.record(Seat.NORTH, 5, 10)                         # NS 5
    g.record(Seat.EAST, 5, 10)                          # EW 5
    g.record(Seat.NORTH, 5, 6)                          # NS 6 vs 5: no set (lead 1)
    assert g.sets == []
    assert g.record(Seat.NORTH, 5, 6) == "NS win set 1 and carry 0"   # 7 vs 5
    g.record(Seat.NORTH, 5, 10)
    assert g.record(Seat.NORTH, 5, 6) == "NS win the game 3-0"
    assert g.game_points == {Side.NS: 3, Side.EW: 0}


def test_play_follow_house_crests_and_card_order() -> None:
    deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
    p = TigerPlay(deal, Seat.SOUTH, TigerBid(7, Suit.CLUBS))
    assert p.next_seat is Seat.WEST and not p.lookout_shown
    p.play("H2")
    assert p.lookout_shown and p.lookout is Seat.NORTH
    with pytest.raises(TigerError, match="does not follow house hearts"):
        p.play("SA")
    for c in ("HA", "HJ", "H6"):
        p.play(c)
    assert p.winner(0) is Seat.NORTH
    # A reversed card order (lowest wins) is a configuration.
    low = TigerConfig(card_order="AKQJT98765432")
    q = TigerPlay(deal, Seat.SOUTH, TigerBid(7, None), low)
    for c in ("H2", "HA", "HJ", "H6"):
        q.play(c)
    assert q.winner(0) is Seat.WEST
