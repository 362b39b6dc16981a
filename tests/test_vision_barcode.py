"""Barcoded cards through real zxing-cpp and zbar on rendered frames."""

from __future__ import annotations

import numpy as np
import pytest

from dealer.cards import Card
from vision import payload
from vision.barcode import BarcodeReader
from vision.decision import Reason
from vision.render import barcode_image, render_card_frame

BOTH = [(b, s) for b in ("zxing", "zbar") for s in ("qr", "code128")]
CARDS = [Card.parse(c) for c in ("C2", "DT", "HQ", "SA")]


@pytest.mark.parametrize(("backend", "sym"), BOTH)
def test_reads_the_card_and_shows_its_evidence(backend: str, sym: str) -> None:
    reader = BarcodeReader(backend, sym, deck_id=7)
    for i, card in enumerate(CARDS):
        out = reader.read(render_card_frame(card, design=sym, deck_id=7, seed=i))
        assert out.accepted, out
        assert out.card == card
        assert out.evidence["deck_id"] == 7 and out.evidence["symbols"] >= 1


@pytest.mark.parametrize(("backend", "sym"), BOTH)
def test_card_turned_180_reads_the_same(backend: str, sym: str) -> None:
    frame = render_card_frame(CARDS[2], design=sym, deck_id=7, seed=5)
    out = BarcodeReader(backend, sym).read(np.ascontiguousarray(frame[::-1, ::-1]))
    assert out.accepted and out.card == CARDS[2]


def test_a_card_of_another_deck_is_rejected() -> None:
    frame = render_card_frame(CARDS[0], design="qr", deck_id=8, seed=1)
    out = BarcodeReader("zxing", "qr", deck_id=7).read(frame)
    assert out.reason is Reason.NOT_THIS_DECK and "deck 8" in out.detail


def test_joker_back_and_empty_gate_have_their_own_reasons() -> None:
    r = BarcodeReader("zxing", "qr", deck_id=7)
    joker = render_card_frame(None, joker=True, design="qr", deck_id=7, seed=2)
    assert r.read(joker).reason is Reason.JOKER
    back = render_card_frame(CARDS[0], face_up=False, design="qr", deck_id=7, seed=2)
    assert r.read(back).reason is Reason.FACE_DOWN
    assert r.read(render_card_frame(None, seed=2)).reason is Reason.NO_CARD


@pytest.mark.parametrize("backend", ["zxing", "zbar"])
def test_double_feed_is_two_payloads(backend: str) -> None:
    frame = render_card_frame(CARDS[1], design="code128", deck_id=7, seed=3,
                              distortions="double-feed!")
    out = BarcodeReader(backend, "code128", deck_id=7).read(frame)
    assert out.reason is Reason.TWO_PAYLOADS


def _with_extra_symbol(text: str) -> np.ndarray:
    frame = render_card_frame(CARDS[3], design="qr", deck_id=7, seed=4)
    sym = barcode_image(text, "qr", 3)
    h, w = sym.shape
    frame[5 : 5 + h, 5 : 5 + w] = sym[..., None]  # on the gate floor, beside the card
    return frame


@pytest.mark.parametrize("backend", ["zxing", "zbar"])
def test_a_ghost_beside_the_true_payload_is_rejected(backend: str) -> None:
    good = payload.card_payload(CARDS[3], 7)
    ghost = good[:-1] + str((int(good[-1]) + 1) % 10)  # one digit off: fails the CRC
    out = BarcodeReader(backend, "qr", deck_id=7).read(_with_extra_symbol(ghost))
    assert out.reason is Reason.AMBIGUOUS and ghost in out.detail


def test_board_sticker_reads_as_a_board_not_a_card() -> None:
    frame = np.full((480, 640, 3), 40, np.uint8)
    sym = barcode_image(payload.board_payload(17, 7), "code128", 2.5)
    frame[200 : 200 + sym.shape[0], 150 : 150 + sym.shape[1]] = sym[..., None]
    assert BarcodeReader("zxing", "code128", expect="board").read(frame).board == 17
    card_reader = BarcodeReader("zxing", "code128")
    assert card_reader.read(frame).reason is Reason.NOT_THIS_DECK


def test_restricted_to_its_symbology() -> None:
    frame = render_card_frame(CARDS[0], design="qr", seed=1)
    assert not BarcodeReader("zxing", "code128").read(frame).accepted


def test_code128_is_read_in_the_direction_the_outline_gives() -> None:
    # zxing reads a Code128 only across the card's long side (the outline says which
    # way that is), not in both directions every time: a card standing up reads too,
    # and so does one whose outline cannot be found (both directions are tried).
    import cv2

    from vision.locate import Located, locate

    reader = BarcodeReader("zxing", "code128", deck_id=7)
    for i, card in enumerate(CARDS):
        frame = render_card_frame(card, design="code128", deck_id=7, seed=20 + i)
        standing = cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
        assert isinstance(locate(standing), Located)
        assert reader.read(frame).card == card and reader.read(standing).card == card
        assert reader.texts(frame, landscape=True) and not reader.texts(frame, landscape=False)
        assert reader.texts(standing, landscape=False) and not reader.texts(standing, landscape=True)
        assert reader.texts(frame, landscape=None) == reader.texts(frame, landscape=True)
