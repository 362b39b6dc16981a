"""bench/photos_fetch.py: a card boxed by its two corner indices, as the dataset boxes it, comes out
as one gate frame (card level, at the gate's size, at the centre), and a card that is not whole or
not alone does not."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.locate import Located, locate

_SPEC = importlib.util.spec_from_file_location(
    "photos_fetch", Path(__file__).resolve().parents[1] / "bench" / "photos_fetch.py")
assert _SPEC and _SPEC.loader
pf = importlib.util.module_from_spec(_SPEC)
sys.modules["photos_fetch"] = pf
_SPEC.loader.exec_module(pf)


def _photo(angle_deg: float, short: float = 150.0, centre: tuple[float, float] = (420, 330),
           size: tuple[int, int] = (840, 660)) -> tuple[np.ndarray, list, np.ndarray]:
    """A white card on a dark floor, turned by ``angle_deg``; its index boxes; its corners."""
    w, h = short, short * pf.CARD_RATIO
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    card = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    corners = card @ rot.T + centre
    img = np.full((size[1], size[0], 3), 35, np.uint8)
    cv2.fillConvexPoly(img, corners.round().astype(np.int32), (235, 235, 235))
    boxes = []
    for k in (1, -1):  # the top-left and bottom-right indices, 12 % and 15 % in from the corners
        x, y = (np.array([-w / 2 + 0.12 * w, -h / 2 + 0.15 * h]) * k) @ rot.T + centre
        cv2.rectangle(img, (int(x - 6), int(y - 14)), (int(x + 6), int(y + 14)), (20, 20, 20), -1)
        boxes.append(pf.Box("QH", x, y, 0.13 * w, 0.26 * h))
    return img, boxes, corners


def test_a_turned_card_comes_out_level_at_gate_size_and_is_located() -> None:
    for angle in (0.0, 33.0, 90.0, 151.0):
        img, boxes, corners = _photo(angle)
        est = pf.card_corners(boxes[0], boxes[1], math.hypot(boxes[0].cx - boxes[1].cx,
                                                             boxes[0].cy - boxes[1].cy) / pf.INDEX_SPAN)
        # every true corner has an estimated one within a twentieth of the card's diagonal
        diag = math.hypot(*(corners[0] - corners[2]))
        assert max(min(np.hypot(*(c - e)) for e in est) for c in corners) < diag / 20, angle
        found, why = pf.cards_in(img, boxes)
        assert [n for n, _ in found] == ["QH"] and not why, (angle, why)
        got = locate(found[0][1])
        assert isinstance(got, Located), (angle, got)
        quad = np.asarray(got.quad, np.float64).reshape(-1, 2)
        sides = sorted(np.hypot(*(quad[i] - quad[(i + 1) % 4])) for i in range(4))
        assert 0.85 * pf.CARD_AREA < got.area < 1.1 * pf.MAX_CARD, (angle, got.area)
        long_side = next(quad[(i + 1) % 4] - quad[i] for i in range(4)
                         if np.hypot(*(quad[(i + 1) % 4] - quad[i])) > sides[1] + 1)
        assert abs(long_side[1]) < 0.1 * abs(long_side[0]), (angle, long_side)  # level


def test_a_card_off_the_photo_another_card_or_a_tiny_card_is_left_out() -> None:
    img, boxes, _ = _photo(20.0, centre=(70, 330))  # its left corners are past the photo's edge
    assert pf.cards_in(img, boxes) == ([], {"card not whole in the photo": 1})
    img, boxes, _ = _photo(20.0)
    other = pf.Box("2C", boxes[0].cx + 200, boxes[0].cy, 20, 40)
    assert pf.cards_in(img, [*boxes, other])[1]["another card in the frame"] == 1
    img, boxes, _ = _photo(0.0, short=40.0)
    assert pf.cards_in(img, boxes) == ([], {"too small in the photo": 1})
    assert pf.cards_in(img, boxes[:1]) == ([], {"one corner index only": 1})


def test_the_export_stretch_is_undone_per_session() -> None:
    square = np.zeros((640, 640, 3), np.uint8)
    assert pf.unstretch(square, 3 / 4)[0].shape[:2] == (640, 480)
    assert pf.unstretch(square, 16 / 9)[0].shape[:2] == (360, 640)
    assert pf.session_of("IMG_20220921_194714_jpg") == ("phone-standard", 3 / 4)
    assert pf.session_of("003121474_jpg") is None  # a synthetic composite: left out


def test_a_photo_labelled_as_another_card_is_named_by_the_card_it_shows() -> None:
    """The two photos looked at and found labelled wrong: each is a photo of the corpus (the
    by-eye sheet lists it under the corpus's label), and is renamed to a card of the same
    rank and another suit, never to an unknown card."""
    fixed = pf.relabelled()
    assert fixed == {"QH-IMG_20220921_201241_jpg": "QS", "JS-IMG_20220921_201314_jpg": "JC"}
    with pf.BY_EYE.open(encoding="utf-8") as fh:
        listed = {f"{row.split(',')[1]}-{row.split(',')[0]}" for row in fh}
    for key, card in fixed.items():
        assert key in listed
        assert card in pf.NAMES and card[:-1] == key.split("-")[0][:-1] and card != key.split("-")[0]
    assert pf.relabelled(Path("/nonexistent.csv")) == {}
