"""Deck designs the synthetic renderer can draw.

A design fixes what a card face looks like: the typeface of the index (one of
OpenCV's Hershey typefaces), the national court letters, the index size and
place, the suit-symbol shapes, an optional frame line, and for barcode decks
the symbology printed on both ends.

>>> DESIGNS["dutch"].letter(Rank.JACK), DESIGNS["swedish"].letter(Rank.JACK)
('B', 'Kn')
>>> DESIGNS["standard"].letter(Rank.TEN)
'10'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2

from dealer.cards import Rank

# National court letters (Dealer4 lists these index sets too).
LETTERS: dict[str, dict[Rank, str]] = {
    "standard": {Rank.ACE: "A", Rank.KING: "K", Rank.QUEEN: "Q", Rank.JACK: "J"},
    "dutch": {Rank.ACE: "A", Rank.KING: "H", Rank.QUEEN: "V", Rank.JACK: "B"},
    "german": {Rank.ACE: "A", Rank.KING: "K", Rank.QUEEN: "D", Rank.JACK: "B"},
    "french": {Rank.ACE: "A", Rank.KING: "R", Rank.QUEEN: "D", Rank.JACK: "V"},
    "swedish": {Rank.ACE: "E", Rank.KING: "K", Rank.QUEEN: "D", Rank.JACK: "Kn"},
}


@dataclass(frozen=True)
class DeckDesign:
    """How one deck's faces look. Sizes are in pixels of a 300×420 card face."""

    name: str
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    thickness: int = 3
    letters: str = "standard"
    rank_height: int = 38  # cap height of the rank
    suit_size: int = 30
    index_x: int = 14  # left edge of the index
    index_y: int = 16  # top of the rank
    suit_style: str = "classic"  # or "slim"
    framed: bool = False
    paper: tuple[int, int, int] = (242, 244, 246)  # BGR
    red: tuple[int, int, int] = (40, 30, 200)
    black: tuple[int, int, int] = (30, 30, 30)
    barcode: str | None = None  # "qr" or "code128"
    # Codes on stickers put on by hand: each a millimetre or two from its place, the
    # same on every feed of that card (vision.render._barcodes).
    stickers: bool = False
    notes: str = field(default="", compare=False)

    def letter(self, rank: Rank) -> str:
        """The text printed for ``rank`` on this design's index."""
        if rank in LETTERS[self.letters]:
            return LETTERS[self.letters][rank]
        return "10" if rank == Rank.TEN else rank.char


DESIGNS: dict[str, DeckDesign] = {
    d.name: d
    for d in (
        DeckDesign("standard", notes="plain sans index, A K Q J"),
        DeckDesign(
            "classic",
            font=cv2.FONT_HERSHEY_COMPLEX,
            thickness=3,
            framed=True,
            index_x=20,
            index_y=22,
            notes="serif index inside a frame line",
        ),
        DeckDesign(
            "jumbo",
            font=cv2.FONT_HERSHEY_DUPLEX,
            rank_height=46,
            suit_size=34,
            thickness=4,
            notes="large-print index",
        ),
        DeckDesign("dutch", font=cv2.FONT_HERSHEY_DUPLEX, letters="dutch", notes="A H V B"),
        DeckDesign("german", font=cv2.FONT_HERSHEY_TRIPLEX, letters="german", notes="A K D B"),
        DeckDesign(
            "french",
            font=cv2.FONT_HERSHEY_COMPLEX,
            letters="french",
            suit_style="slim",
            notes="A R D V",
        ),
        DeckDesign(
            "swedish",
            font=cv2.FONT_HERSHEY_SIMPLEX,
            thickness=2,
            letters="swedish",
            suit_style="slim",
            notes="E K D Kn",
        ),
        # Never learned by the tests or the bench: the "unseen typeface" checks.
        DeckDesign(
            "script",
            font=cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
            thickness=3,
            notes="script typeface; used as a deck nobody learned",
        ),
        DeckDesign(
            "italic",
            font=cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC,
            suit_style="slim",
            notes="italic sans; used as a deck nobody learned",
        ),
        DeckDesign("qr", barcode="qr", notes="standard face with a QR code at both ends"),
        DeckDesign("code128", barcode="code128", notes="standard face with Code128 at both ends"),
        DeckDesign("qr-stickers", barcode="qr", stickers=True,
                   notes="QR stickers put on a standard face by hand, each up to 2 mm from its place"),
    )
}
