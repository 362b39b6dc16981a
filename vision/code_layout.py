"""Where a barcoded face prints its two codes, for print-deck's faces and the renderer's.

A face carries the same code near each end, the second turned 180°. Two cards
stuck together, all but aligned, reach the gate as one and make one outline of
both, a few millimetres longer than a card (issue 15); in the face warped from
that outline the two codes lie closer together than the face prints them.
How far apart they lie does not change when a sheet is cut off-centre (both
codes move the same way), so it is checked against the layout's
(:class:`CodeLayout`), as the index reader checks its learned places
(:mod:`vision.placement`).

Stickers are put on by hand, each a millimetre or two from its place: a
sticker deck has no one layout, so each card's is learned from one pass of the
deck through the gate (:func:`learn_layout`, ``vision learn-codes``), any
order (each code names its card), and saved beside the learned designs.

>>> printed("qr").outer > rendered("qr").outer - 10
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from dealer.cards import Card
from dealer.errors import BoardwrightError

#: The card print-deck prints faces for, mm (width, length).
CARD_MM = (63.0, 88.0)
#: (width, height, distance from the card's end) of a printed face's symbol, mm, quiet
#: zone included. The two QR symbols of a face (24 mm, 0.83 mm modules) are 22 mm apart,
#: so their quiet zones never meet (issue 15: at 35 mm they overlapped, and a face
#: decoded at only 61 % of rotation angles).
FACE_SYMBOL: dict[str, tuple[float, float, float]] = {
    "qr": (24.0, 24.0, 9.0),
    "code128": (55.0, 12.0, 12.0),
}
#: A QR symbol's modules across, quiet zone (4 each side) included: a card's payload
#: is a version 1 symbol.
QR_MODULES, QR_QUIET = 29, 4

#: The renderer's barcoded faces (vision.render), px of the 300×420 face: the symbol's
#: px per module and the row its quiet zone starts at. A rendered Code128's bars are
#: 60 rows tall and have no quiet zone above or below.
RENDERED_SYMBOL: dict[str, tuple[float, int]] = {"qr": (4.0, 40), "code128": (2.5, 118)}

_NAMES = {"qr": "QR", "code128": "Code128"}
FACE_H = 420  # the face the reader warps an outline to (vision.locate.FACE_H)


@dataclass(frozen=True)
class CodeLayout:
    """How far apart, along the card, the outer rows of a face's two codes' dark modules
    lie (:attr:`outer`, px of the 300×420 face): from the first of the code near one end
    to the last of the code near the other; or, for a deck whose codes were learned card
    by card (stickers), each card's (:attr:`per_card`, card index 0..51)."""

    name: str
    outer: float
    per_card: dict[int, float] | None = None
    symbology: str = ""

    def outer_of(self, card: int) -> float | None:
        """Card ``card``'s outer extent, or ``None`` for a learned deck's card not learned."""
        if self.per_card is None:
            return self.outer
        return self.per_card.get(card)

    def save(self, path: str | Path) -> Path:
        """A learned layout as JSON (cards by name, as ``SA``)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        cards = {str(Card(k)): round(v, 1) for k, v in sorted((self.per_card or {}).items())}
        path.write_text(json.dumps({"format": 1, "name": self.name, "symbology": self.symbology,
                                    "outer": cards}, indent=1, ensure_ascii=False) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> CodeLayout:
        """A layout saved by :meth:`save`; :class:`~dealer.errors.BoardwrightError` naming the
        file and what is wrong with it."""
        path = Path(path)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            per_card = {int(Card.parse(k)): float(v) for k, v in doc["outer"].items()}
            return cls(str(doc["name"]), 0.0, per_card, str(doc.get("symbology", "")))
        except FileNotFoundError:
            raise BoardwrightError(f"{path}: no learned code layout there (run 'boardwright vision "
                                   "learn-codes')") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BoardwrightError(f"{path}: not a learned code layout ({exc})") from None


def printed(symbology: str) -> CodeLayout:
    """The layout of ``vision print-deck --faces``."""
    w, _h, inset = FACE_SYMBOL[symbology]
    quiet = w * QR_QUIET / QR_MODULES if symbology == "qr" else 0.0
    first = (inset + quiet) * FACE_H / CARD_MM[1]
    return CodeLayout(f"print-deck's {_NAMES[symbology]} faces", FACE_H - 2 * first, symbology=symbology)


def rendered(symbology: str) -> CodeLayout:
    """The layout of the renderer's barcoded faces (the bench's and the emulator's)."""
    module, y = RENDERED_SYMBOL[symbology]
    first = y + (QR_QUIET * module if symbology == "qr" else 0.0)
    return CodeLayout(f"the renderer's {_NAMES[symbology]} faces", FACE_H - 2 * first, symbology=symbology)
