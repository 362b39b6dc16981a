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
