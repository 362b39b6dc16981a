"""The barcode payload: closed world of codes, CRC over Code128 symbol values."""

from __future__ import annotations

import pytest

from dealer.cards import Card
from dealer.errors import CardError
from vision import payload


def test_every_card_joker_and_board_round_trips() -> None:
    for deck in (0, 7, 999):
        for card in Card.all():
            p = payload.parse(payload.card_payload(card, deck))
            assert p is not None and p.card == card and p.deck_id == deck
        for j in (0, 1):
            p = payload.parse(payload.card_payload(None, deck, joker=j))
            assert p is not None and p.is_joker and p.card is None
        for board in (1, 36, 99, 100, 199):
            p = payload.parse(payload.board_payload(board, deck))
            assert p is not None and p.board == board and p.card is None


def test_one_garbled_symbol_never_makes_another_valid_code() -> None:
    """Code128 set C carries two digits per symbol: try every value at every symbol."""
    codes = [payload.card_payload(c, 42) for c in Card.all()]
    codes += [payload.card_payload(None, 999, joker=1)]
    codes += [payload.board_payload(b, 5) for b in range(1, 200, 9)]
    for code in codes:
        for i in range(0, 10, 2):
            for v in range(100):
                garbled = code[:i] + f"{v:02d}" + code[i + 2 :]
                if garbled != code:
                    assert payload.parse(garbled) is None, (code, garbled)


def test_one_garbled_digit_is_rejected_too() -> None:
    code = payload.card_payload(Card.parse("TS"), 3)
    for i in range(10):
        for d in "0123456789":
            g = code[:i] + d + code[i + 1 :]
            assert g == code or payload.parse(g) is None


@pytest.mark.parametrize("text", ["", "'S", "&S", "12345", "10075101170", "1007x10117", "٠١٢٣٤٥٦٧٨٩"])
def test_anything_else_is_not_a_payload(text: str) -> None:
    assert payload.parse(text) is None


def test_out_of_range_inputs_are_clear_errors() -> None:
    with pytest.raises(CardError, match="deck id 1000"):
        payload.card_payload(Card(0), 1000)
    with pytest.raises(CardError, match="board number 0"):
        payload.board_payload(0)
