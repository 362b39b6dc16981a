"""bench/photos_safety.py: photos read with another deck's design are counted refused, the same
card, or wrong, and the wrong ones are counted as wrong (a read the check must catch)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import pytest

from dealer.cards import Card
from vision.decision import Read
from vision.render import render_card_frame

_BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def safety() -> object:
    sys.path.append(str(_BENCH))  # (photos_safety imports photos_fetch beside it)
    spec = importlib.util.spec_from_file_location("photos_safety", _BENCH / "photos_safety.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_photos_read_with_another_design_are_counted_and_a_wrong_read_is_caught(
        safety: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cards = [Card.parse(c) for c in ("SA", "HQ", "D7")]
    for corpus in ("photos", "photos-raw"):
        folder = tmp_path / corpus / "phone-standard"
        folder.mkdir(parents=True)
        for i, card in enumerate(cards):
            cv2.imwrite(str(folder / f"{card}-{i}.jpg"), render_card_frame(card, design="dondorf", seed=50 + i))
    monkeypatch.setattr(safety, "CACHE", tmp_path)
    got = safety.cross_deck(["dondorf"])  # type: ignore[attr-defined]
    assert got["dondorf"]["photos"] == 6
    assert got["dondorf"].get("same card", 0) >= 4 and got["dondorf"].get("wrong", 0) == 0
    # A reader that names another card is counted wrong, never as the same card.
    monkeypatch.setattr(safety, "read_photo", lambda reader, photo: Read(Card.parse("C2"), "index", {}))
    assert safety.cross_deck(["dondorf"])["dondorf"]["wrong"] == 6  # type: ignore[attr-defined]
