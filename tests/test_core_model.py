"""The core model: cards, seats, hands, deals, boards."""

from __future__ import annotations

import pickle
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealer import (
    Board,
    Card,
    CardError,
    Deal,
    DealError,
    Hand,
    Rank,
    Seat,
    Suit,
    Vulnerability,
    board_dealer,
    board_vulnerability,
)

SAMPLE = "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"


@pytest.mark.parametrize("text", ["SA", "AS", "♠A", "sa", "as", "♤A"])
def test_card_parse_ace_of_spades(text):
    assert Card.parse(text) == Card(Suit.SPADES, Rank.ACE)


@pytest.mark.parametrize("text", ["TS", "10S", "ST", "S10", "♠10"])
def test_card_parse_ten(text):
    assert str(Card.parse(text)) == "ST"


@pytest.mark.parametrize("text", ["", "S", "1S", "SX", "ZA", "SAA", "11S"])
def test_card_parse_rejects_with_reason(text):
    with pytest.raises(CardError, match="card"):
        Card.parse(text)


def test_cards_are_52_ordered_singletons():
    cards = list(Card.all())
    assert len(cards) == 52 and len(set(cards)) == 52
    assert str(cards[0]) == "C2" and str(cards[-1]) == "SA"
    assert Card.parse("HQ") is Card.parse("QH")
    assert pickle.loads(pickle.dumps(Card.parse("D7"))) is Card.parse("D7")


def test_seat_rotation():
    assert Seat.NORTH.lho is Seat.EAST
    assert Seat.NORTH.rho is Seat.WEST
    assert Seat.EAST.partner is Seat.WEST
    assert Seat.WEST.rotate(1) is Seat.NORTH
    assert list(Seat.SOUTH.clockwise()) == [Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST]


def test_hand_any_size_and_properties():
    h = Hand(["SA", "HK", "D2"])
    assert len(h) == 3 and h.hcp == 7 and h.shape == (1, 1, 1, 0)
    assert h.to_pbn() == "A.K.2."
    with pytest.raises(CardError, match="twice"):
        Hand(["SA", "AS"])


def test_deal_pbn_roundtrip_from_every_seat():
    d = Deal.from_pbn(SAMPLE)
    for first in Seat:
        assert Deal.from_pbn(d.to_pbn(first)) == d
    assert d.owner(Card.parse("HA")) is Seat.WEST
    assert d[Seat.NORTH].hcp == 10


def test_deal_rejects_53rd_and_duplicate_cards():
    with pytest.raises(DealError, match="two hands"):
        Deal.from_pbn(SAMPLE.replace("32.AKQJ", "A2.AKQJ"))
    with pytest.raises((DealError, CardError)):
        Deal.from_pbn(SAMPLE.replace("8765", "87654"))
    with pytest.raises(DealError, match="not 13"):
        Deal.from_pbn(SAMPLE.replace(".8765", ".876"))


def test_partial_deals_are_explicit():
    text = "N:AKQJ.T98.765.432 - - -"
    with pytest.raises(DealError, match="partial"):
        Deal.from_pbn(text)
    d = Deal.from_pbn(text, partial=True)
    assert not d.is_complete and d.to_pbn() == text


def test_single_unknown_hand_is_filled_in():
    d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 -")
    assert d == Deal.from_pbn(SAMPLE)


def test_deal_is_compact():
    d = Deal.from_pbn(SAMPLE)
    assert sys.getsizeof(d) + sys.getsizeof(d.bits) < 120


# Seed 002, "the markings of boards 1-16": dealer N,E,S,W repeating; vulnerability cycle.
EXPECTED_VUL = ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
                "EW", "All", "None", "NS", "All", "None", "NS", "EW"]


@pytest.mark.parametrize("number", range(1, 37))
def test_board_markings_1_to_36(number):
    b = Board(number, None)
    assert b.dealer is Seat((number - 1) % 4)
    assert b.vulnerability is Vulnerability(EXPECTED_VUL[(number - 1) % 16])
    assert board_dealer(number) is b.dealer and board_vulnerability(number) is b.vulnerability


def test_board_number_must_be_positive():
    with pytest.raises(DealError):
        Board(0, None)


@given(st.permutations([i // 13 for i in range(52)]), st.sampled_from(list(Seat)))
def test_any_deal_round_trips_through_pbn(owners, first):
    d = Deal.from_owners(owners)
    assert Deal.from_pbn(d.to_pbn(first)) == d
    assert [d.owner(c) for c in range(52)] == [Seat(o) for o in owners]
