"""Every printed barcode face decodes at every 5° of rotation with zxing-cpp (issue 15).

The PDF from ``vision print-deck --faces`` is rasterised by poppler's
pdftoppm (a reader the project did not write) at about the resolution the
gate camera sees a card with, each face is cut out, turned in 5° steps on a
dark floor, and decoded.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
import zxingcpp

from dealer.cards import Card
from vision import payload
from vision.printdeck import CARD_H, CARD_W, print_deck

DPI = 100  # a 63 mm card is 248 px wide: about what the gate camera sees
MM = DPI / 25.4


def _faces(pdf: Path, tmp: Path) -> list[np.ndarray]:
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(pdf), str(tmp / "p")], check=True)
    faces = []
    pt = DPI / 72  # PDF points to pixels
    for page in sorted(tmp.glob("p-*.png")):
        img = cv2.imread(str(page), cv2.IMREAD_GRAYSCALE)
        ph = img.shape[0]
        for k in range(9):
            cx, cy = k % 3, k // 3
            x0 = (10 * 72 / 25.4 + cx * (CARD_W + 3 * 72 / 25.4)) * pt
            top = (12 * 72 / 25.4 + cy * (CARD_H + 3 * 72 / 25.4)) * pt
            x, y, w, h = int(x0), int(top), int(CARD_W * pt), int(CARD_H * pt)
            face = img[y : y + h, x : x + w]
            if face.shape[:2] == (h, w) and face.min() < 100:  # an empty cell is blank paper
                faces.append(face)
        assert ph > 0
    return faces


def _laid_on_the_gate(face: np.ndarray, angle: float, longer: int = 0) -> np.ndarray:
    """A 640×480 gate frame of ``face`` (grey), 400 px long, turned ``angle``° off the feed,
    on the dark floor; ``longer``: a card under it sticks out this far (face px) past its end."""
    h, w = face.shape
    if longer:  # paper below the face: the outline of a card under it, sticking out
        face = np.vstack([face, np.full((longer, w), 235, np.uint8)])
        face[h:, :2] = face[h:, -2:] = face[-2:, :] = 150
    m = cv2.getRotationMatrix2D((w / 2, face.shape[0] / 2), 90 + angle, 400 / h)
    m[0, 2] += 320 - w / 2
    m[1, 2] += 240 - face.shape[0] / 2
    return cv2.cvtColor(cv2.warpAffine(face, m, (640, 480), borderValue=35), cv2.COLOR_GRAY2BGR)


def test_every_qr_face_decodes_at_every_5_degrees(tmp_path: Path) -> None:
    pdf = tmp_path / "deck.pdf"
    print_deck(pdf, deck_id=7, symbology="qr", faces=True, jokers=2)
    faces = _faces(pdf, tmp_path)
    want = [payload.card_payload(c, 7) for c in Card.all()]
    want += [payload.card_payload(None, 7, joker=j) for j in range(2)]
    assert len(faces) == len(want) == 54
    side = int(np.hypot(*faces[0].shape)) + 40
    failures = []
    for face, text in zip(faces, want, strict=True):
        canvas = np.full((side, side), 35, np.uint8)
        h, w = face.shape
        canvas[(side - h) // 2 : (side - h) // 2 + h, (side - w) // 2 : (side - w) // 2 + w] = face
        for angle in range(0, 360, 5):
            m = cv2.getRotationMatrix2D((side / 2, side / 2), angle, 1.0)
            img = cv2.warpAffine(canvas, m, (side, side), flags=cv2.INTER_LINEAR, borderValue=35)
            found = {b.text for b in zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode,
                                                            try_invert=False) if b.valid}
            if found != {text}:
                failures.append((text, angle, sorted(found)))
    assert failures == [], f"{len(failures)} of {len(faces) * 72} face/angle pairs: {failures[:5]}"


def test_printed_code128_faces_have_their_bars_where_the_placement_check_expects(tmp_path: Path) -> None:
    # The Code128 placement check (issue 15, eighth pass) takes the two codes of a face to be
    # placed alike from either end. The faces print-deck prints, rasterised by poppler and
    # laid on a dark gate at the gate's scale and a slight tilt, are located, and their
    # bars lie within 2 px of each other's place (the check allows 26); a face's outline
    # stretched by another card under it (a stuck pair, the card 40 px longer) is not.
    from vision.barcode import BARS_APART, _bar_blocks
    from vision.locate import FACE_H, Located, locate

    pdf = tmp_path / "deck.pdf"
    print_deck(pdf, deck_id=7, symbology="code128", faces=True)
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", "-f", "1", "-l", "1", str(pdf),
                    str(tmp_path / "c")], check=True)
    page = cv2.imread(str(next(tmp_path.glob("c-*.png"))), cv2.IMREAD_GRAYSCALE)
    # Each card as printed: inside its own outline (the page's margin round it is not card).
    outlines, _ = cv2.findContours(cv2.threshold(page, 200, 255, cv2.THRESH_BINARY_INV)[1],
                                   cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = [cv2.boundingRect(c) for c in outlines if cv2.contourArea(c) > 0.8 * CARD_W * CARD_H * (DPI / 72) ** 2]
    faces = [page[y : y + h, x : x + w] for x, y, w, h in boxes]
    assert len(faces) == 9

    def apart(face: np.ndarray, angle: float, longer: int = 0) -> float:
        found = locate(_laid_on_the_gate(face, angle, longer))
        assert isinstance(found, Located), found
        blocks = _bar_blocks(found)
        assert len(blocks) == 2, blocks
        (a0, a1), (b0, b1) = blocks
        return float(min(abs(a0 - (FACE_H - 1 - b1)), abs(a1 - (FACE_H - 1 - b0))))

    for k, face in enumerate(faces):
        assert apart(face, angle=(-4, 0, 4)[k % 3]) <= 2
    assert apart(faces[0], 0, longer=40) > BARS_APART



@pytest.mark.parametrize("symbology", ["qr", "code128"])
def test_printed_faces_are_read_with_their_layout_and_a_stuck_pair_is_two_cards(
        tmp_path: Path, symbology: str) -> None:
    # Issue 15, fourteenth pass: told the deck is print-deck's faces, the reader checks
    # how far apart the two codes lie against the layout print-deck printed them with
    # (vision.code_layout). Poppler's raster of the PDF (not boardwright's renderer), laid
    # on the gate: every face is read; with a card under it sticking out 10 face px
    # (2 mm) past one end, the codes lie closer together than printed: two cards.
    from vision.barcode import BarcodeReader
    from vision.code_layout import printed
    from vision.decision import Reason

    pdf = tmp_path / "deck.pdf"
    print_deck(pdf, deck_id=7, symbology=symbology, faces=True)
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", "-f", "1", "-l", "1", str(pdf),
                    str(tmp_path / "c")], check=True)
    page = cv2.imread(str(next(tmp_path.glob("c-*.png"))), cv2.IMREAD_GRAYSCALE)
    outlines, _ = cv2.findContours(cv2.threshold(page, 200, 255, cv2.THRESH_BINARY_INV)[1],
                                   cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = sorted((cv2.boundingRect(c) for c in outlines
                    if cv2.contourArea(c) > 0.8 * CARD_W * CARD_H * (DPI / 72) ** 2), key=lambda b: (b[1] // 50, b[0]))
    assert len(boxes) == 9
    reader = BarcodeReader("zxing", symbology, deck_id=7, layout=printed(symbology))
    plain = BarcodeReader("zxing", symbology, deck_id=7)  # a sticker deck's: no layout to check
    for k, (x, y, w, h) in enumerate(boxes):
        face = page[y : y + h, x : x + w]
        angle = (-4, 0, 4)[k % 3]
        alone = reader.read(_laid_on_the_gate(face, angle))
        assert alone.accepted and alone.card == Card(k), (k, alone)
        assert abs(alone.evidence["codes_closer_px"]) <= 2, alone.evidence
        frame = _laid_on_the_gate(face, angle, longer=10)
        assert plain.read(frame).card == Card(k)  # the top card, every other check passed
        stuck = reader.read(frame)
        assert not stuck.accepted and stuck.reason is Reason.TWO_CARDS, (k, stuck)
        assert f"closer together than print-deck's {'QR' if symbology == 'qr' else 'Code128'} faces print them" \
            in stuck.detail
