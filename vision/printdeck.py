"""A printable PDF of barcode stickers or card faces for a barcoded deck.

Each card gets its payload (see :mod:`vision.payload`) twice, one for each
end of the card; board-number stickers use the same scheme. The symbols are
drawn as vector rectangles from the zxing-cpp encoder's module grid, so the
PDF prints sharp at any size and carries exactly what the renderer draws.

>>> import tempfile, os
>>> out = os.path.join(tempfile.mkdtemp(), "deck.pdf")
>>> print_deck(out, deck_id=7, symbology="qr")
104
>>> open(out, "rb").read(5)
b'%PDF-'
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import zxingcpp
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from dealer.cards import Card
from vision import payload
from vision.code_layout import CARD_MM
from vision.code_layout import FACE_SYMBOL as FACE_SYMBOL_MM

CARD_W, CARD_H = CARD_MM[0] * mm, CARD_MM[1] * mm
#: (width, height, distance from the card's end) of the symbol on a printed face, quiet
#: zone included, in points (vision.code_layout.FACE_SYMBOL holds them in mm, for the
#: barcode reader's placement check too).
FACE_SYMBOL: dict[str, tuple[float, float, float]] = {
    k: (w * mm, h * mm, inset * mm) for k, (w, h, inset) in FACE_SYMBOL_MM.items()}


def _modules(text: str, symbology: str) -> np.ndarray:
    fmt = zxingcpp.BarcodeFormat.QRCode if symbology == "qr" else zxingcpp.BarcodeFormat.Code128
    img = np.asarray(zxingcpp.create_barcode(text, fmt).to_image(scale=1))
    return img[:1] if symbology == "code128" else img  # a 1D code: one row says it all


def _draw_symbol(c: Canvas, text: str, symbology: str, x: float, y: float, w: float,
                 h: float) -> None:
    """Draw the symbol (quiet zone included) filling ``w`` wide, ``h`` high at (x, y)."""
    m = _modules(text, symbology)
    rows, cols = m.shape
    mw = w / cols
    mh = h / rows if symbology == "code128" else mw
    c.setFillGray(0)
    for r in range(rows):
        dark = m[r] < 128
        col = 0
        while col < cols:  # one rectangle per run of dark modules
            if dark[col]:
                start = col
                while col < cols and dark[col]:
                    col += 1
                c.rect(x + start * mw, y + h - (r + 1) * mh, (col - start) * mw, mh,
                       stroke=0, fill=1)
            else:
                col += 1


def _labels(deck_id: int, boards: list[int], jokers: int) -> list[tuple[str, str]]:
    out = [(payload.card_payload(card, deck_id), f"{card} deck {deck_id}") for card in Card.all()]
    out += [(payload.card_payload(None, deck_id, joker=j), f"joker {j + 1} deck {deck_id}")
            for j in range(jokers)]
    out += [(payload.board_payload(b, deck_id), f"board {b}") for b in boards]
    return out


def print_deck(path: str | Path, *, deck_id: int = 0, symbology: str = "qr",
               faces: bool = False, boards: list[int] | None = None, jokers: int = 0) -> int:
    """Write the PDF; returns how many symbols it holds.

    Stickers (default) come two per card, one for each end; ``faces=True``
    draws whole 63×88 mm faces with the code at both ends instead.
    """
    c = Canvas(str(path), pagesize=A4)
    c.setTitle(f"boardwright barcoded deck {deck_id} ({symbology})")
    pw, ph = A4
    count = 0
    labels = _labels(deck_id, boards or [], jokers)
    if faces:
        per_row, per_col = 3, 3
        cells = [(i % per_row, i // per_row % per_col) for i in range(per_row * per_col)]
        for i, (text, human) in enumerate(labels):
            if i and i % len(cells) == 0:
                c.showPage()
            cx, cy = cells[i % len(cells)]
            x0, y0 = 10 * mm + cx * (CARD_W + 3 * mm), ph - 12 * mm - (cy + 1) * (CARD_H + 3 * mm)
            c.setStrokeGray(0.6)
            c.roundRect(x0, y0, CARD_W, CARD_H, 3 * mm, stroke=1, fill=0)
            w, h, inset = FACE_SYMBOL[symbology]
            for end in (0, 1):  # both ends, the second turned 180°
                c.saveState()
                if end:
                    c.translate(x0 + CARD_W, y0 + CARD_H)
                    c.rotate(180)
                    c.translate(-x0, -y0)
                _draw_symbol(c, text, symbology, x0 + (CARD_W - w) / 2, y0 + inset, w, h)
                # The name sits in the corner, clear of the symbol's quiet zone.
                c.setFont("Helvetica-Bold", 9)
                c.drawString(x0 + 2.5 * mm, y0 + CARD_H - 5.5 * mm, human.split()[0])
                c.restoreState()
                count += 1
        c.showPage()
    else:
        w = (22 if symbology == "qr" else 48) * mm
        h = w if symbology == "qr" else 12 * mm
        cell_w, cell_h = w + 8 * mm, h + 9 * mm
        cols = int((pw - 20 * mm) // cell_w)
        rows = int((ph - 20 * mm) // cell_h)
        stickers = [lab for lab in labels for _ in (0, 1)]  # one for each end
        for i, (text, human) in enumerate(stickers):
            if i and i % (cols * rows) == 0:
                c.showPage()
            k = i % (cols * rows)
            x = 10 * mm + (k % cols) * cell_w
            y = ph - 10 * mm - (k // cols + 1) * cell_h
            _draw_symbol(c, text, symbology, x + 4 * mm, y + 7 * mm, w, h)
            c.setFont("Helvetica", 7)
            c.drawString(x + 4 * mm, y + 3 * mm, f"{human}  {text}")
            count += 1
        c.showPage()
    c.save()
    return count
