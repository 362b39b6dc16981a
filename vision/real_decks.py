"""Real deck designs, drawn from the SVG decks Debian ships, for the renderer.

The synthetic designs in :mod:`vision.designs` are drawn by boardwright
itself, so a recogniser tuned on them may only have learned boardwright's
drawing. These decks were drawn by other people for card games:
``kdegames-card-data-kf5`` (Dondorf, the Paris pattern, Tigullio, Nicu's,
xskat's French deck, KDE's standard deck) and ``aisleriot``'s "bonded" deck,
with pictured court cards, frames and their own typefaces. Each is rendered
with librsvg's ``rsvg-convert`` (Debian ``librsvg2-bin``).

One SVG holds a whole deck. To cut the cards out, the sheet is rendered a few
times at low resolution with the cards hidden by the bits of their number
(six renders tell 53 cards apart, even where cards touch), which gives each
card's box on the sheet; the sheet is then rendered once at high resolution
and each card is cut out, resized to a 300×420 face with its alpha (rounded
corners). Cards drawn much smaller than the rest on the sheet are rendered on
their own at the same scale. Faces are cached as PNG under
``$XDG_CACHE_HOME/boardwright/decks`` (``~/.cache``), keyed by the SVG's
size and date.

>>> "dondorf" in REAL_DECKS
True
"""

from __future__ import annotations

import gzip
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from dealer.cards import Card, Rank, Suit
from dealer.errors import BoardwrightError

FACE_W, FACE_H = 300, 420
_KDE = Path("/usr/share/carddecks")
_SUIT_WORD = {Suit.CLUBS: "club", Suit.DIAMONDS: "diamond", Suit.HEARTS: "heart", Suit.SPADES: "spade"}
_RANK_WORD = {Rank.ACE: "1", Rank.KING: "king", Rank.QUEEN: "queen", Rank.JACK: "jack"}


@dataclass(frozen=True)
class RealDeck:
    name: str
    path: Path
    naming: str  # "kde": 1_club, king_heart; "aisleriot": club_1, heart_king
    package: str
    notes: str = ""

    def card_id(self, card: Card) -> str:
        r = _RANK_WORD.get(card.rank, str(int(card.rank)))
        s = _SUIT_WORD[card.suit]
        return f"{r}_{s}" if self.naming == "kde" else f"{s}_{r}"


REAL_DECKS: dict[str, RealDeck] = {d.name: d for d in (
    RealDeck("dondorf", _KDE / "svg-dondorf/dondorf.svgz", "kde", "kdegames-card-data-kf5",
             "Dondorf, German-made, pictured courts in a frame, indices in four corners"),
    RealDeck("paris", _KDE / "svg-gm-paris/paris.svgz", "kde", "kdegames-card-data-kf5",
             "the Paris pattern: French pictured courts"),
    RealDeck("tigullio", _KDE / "svg-tigullio-international/tigullio-international.svgz", "kde",
             "kdegames-card-data-kf5", "Tigullio international: shaded faces, large courts"),
    RealDeck("nicu-white", _KDE / "svg-nicu-white/white.svgz", "kde", "kdegames-card-data-kf5",
             "Nicu's white deck: cartoon courts"),
    RealDeck("kde-standard", _KDE / "svg-standard/standard.svgz", "kde", "kdegames-card-data-kf5",
             "KDE's standard deck: English pattern courts"),
    RealDeck("xskat-french", _KDE / "svg-xskat-french/french.svgz", "kde", "kdegames-card-data-kf5",
             "xskat's French-suited deck"),
    RealDeck("bonded", Path("/usr/share/aisleriot/cards/bonded.svgz"), "aisleriot", "aisleriot",
             "aisleriot's default deck: English pattern courts"),
)}


class RealDeckError(BoardwrightError):
    """A real deck could not be rendered (package missing, rsvg-convert missing)."""


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "boardwright" / "decks"


def _rsvg(svg: bytes, width: int, height: int) -> np.ndarray:
    """Render SVG bytes to a BGRA array of exactly ``width``×``height``."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.svg", Path(tmp) / "out.png"
        src.write_bytes(svg)
        try:
            # Only the exit status and the PNG file are used: its messages go to our stderr.
            subprocess.run(["rsvg-convert", "-w", str(width), "-h", str(height), "-o", str(out),
                            str(src)], check=True, stdout=subprocess.DEVNULL, timeout=300)
        except FileNotFoundError:
            raise RealDeckError("rsvg-convert is not installed (Debian package librsvg2-bin)") from None
        except subprocess.CalledProcessError as e:
            raise RealDeckError(f"rsvg-convert failed with status {e.returncode}") from None
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise RealDeckError("rsvg-convert gave no image with alpha")
    return img


class _Sheet:
    """The deck's SVG, with the user-unit box of the drawing and ways to re-render it."""

    def __init__(self, deck: RealDeck) -> None:
        if not deck.path.exists():
            raise RealDeckError(f"{deck.path}: not installed (Debian package {deck.package})")
        ET.register_namespace("", "http://www.w3.org/2000/svg")
        for prefix, uri in (("xlink", "http://www.w3.org/1999/xlink"),
                            ("sodipodi", "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"),
                            ("inkscape", "http://www.inkscape.org/namespaces/inkscape")):
            ET.register_namespace(prefix, uri)
        self.root: ET.Element = ET.fromstring(gzip.decompress(deck.path.read_bytes()))
        root = self.root
        vb = root.get("viewBox")
        if vb:
            self.box = [float(v) for v in vb.replace(",", " ").split()]
            if root.get("width") and root.get("height") and "%" not in root.get("width", ""):
                # A page of another shape than the viewBox shows more of the drawing
                # ("xMidYMid meet"); some decks draw their top row in that margin.
                page = _length(root.get("width")) / _length(root.get("height"))
                x, y, w, h = self.box
                if page < w / h:
                    self.box = [x, y + h / 2 - w / page / 2, w, w / page]
                else:
                    self.box = [x + w / 2 - h * page / 2, y, h * page, h]
        else:
            self.box = [0.0, 0.0, _length(root.get("width")), _length(root.get("height"))]
        self.by_id = {el.get("id"): el for el in root.iter() if el.get("id")}

    def svg(self, hidden: Collection[str] = (), box: list[float] | None = None) -> bytes:
        root = self.root
        saved = {}
        for i in hidden:
            el = self.by_id[i]
            saved[i] = el.get("style")
            el.set("style", (el.get("style") or "") + ";display:none")
        old = {k: root.get(k) for k in ("viewBox", "width", "height", "preserveAspectRatio")}
        b = box or self.box
        root.set("viewBox", " ".join(f"{v:.4f}" for v in b))
        root.set("width", f"{b[2]:.4f}")
        root.set("height", f"{b[3]:.4f}")
        root.set("preserveAspectRatio", "none")
        try:
            return ET.tostring(root)
        finally:
            for i, style in saved.items():
                el = self.by_id[i]
                if style is None:
                    el.attrib.pop("style", None)
                else:
                    el.set("style", style)
            for k, v in old.items():
                if v is None:
                    root.attrib.pop(k, None)
                else:
                    root.set(k, v)


def _length(text: str | None) -> float:
    if not text:
        raise RealDeckError("the SVG has neither a viewBox nor a width and height")
    units = {"pt": 1.25, "mm": 3.543307, "px": 1.0, "cm": 35.43307, "in": 90.0}
    for u, f in units.items():
        if text.endswith(u):
            return float(text[: -len(u)]) * f
    return float(text)


def _boxes(sheet: _Sheet, ids: list[str], width: int = 1600) -> dict[str, list[float]]:
    """Each id's box in user units, from six renders with cards hidden by the bits of their number."""
    x0, y0, bw, bh = sheet.box
    height = max(1, round(width * bh / bw))
    base = _rsvg(sheet.svg(), width, height)[..., 3] > 128
    code = np.zeros(base.shape, np.int32)
    bits = max(1, int(np.ceil(np.log2(len(ids) + 1))))
    for k in range(bits):
        hidden = {i for n, i in enumerate(ids, 1) if n >> k & 1}
        alpha = _rsvg(sheet.svg(hidden), width, height)[..., 3] > 128
        code |= ((base & ~alpha).astype(np.int32) << k)
    out: dict[str, list[float]] = {}
    sx, sy = bw / width, bh / height
    for n, i in enumerate(ids, 1):
        ys, xs = np.nonzero(code == n)
        if len(xs) < 50:
            if i == "back":  # some decks draw the back under a card: go without it
                continue
            raise RealDeckError(f"card {i!r} not found on the sheet")
        lo_x, hi_x = np.percentile(xs, (0.05, 99.95))
        lo_y, hi_y = np.percentile(ys, (0.05, 99.95))
        out[i] = [x0 + lo_x * sx, y0 + lo_y * sy, (hi_x - lo_x + 1) * sx, (hi_y - lo_y + 1) * sy]
    return out


def _faces(deck: RealDeck) -> dict[str, np.ndarray]:
    sheet = _Sheet(deck)
    ids = [deck.card_id(c) for c in Card.all()]
    missing = [i for i in ids if i not in sheet.by_id]
    if missing:
        raise RealDeckError(f"{deck.path}: no card {missing[0]!r}")
    if "back" in sheet.by_id:
        ids.append("back")
    boxes = _boxes(sheet, ids)
    # One high-resolution sheet for the cards of ordinary size; small ones alone.
    widths = np.array([b[2] for b in boxes.values()])
    typical = float(np.median(widths))
    scale = 1.5 * FACE_W / typical
    x0, y0, bw, bh = sheet.box
    big = _rsvg(sheet.svg(), round(bw * scale), round(bh * scale))
    faces: dict[str, np.ndarray] = {}
    for i, (bx, by, w, h) in boxes.items():
        if w < 0.8 * typical:
            crop = _rsvg(sheet.svg(box=[bx, by, w, h]), round(w * scale), round(h * scale))
        else:
            px, py = round((bx - x0) * scale), round((by - y0) * scale)
            crop = big[py : py + round(h * scale), px : px + round(w * scale)]
        crop = _largest_piece(crop)
        if crop.shape[0] < crop.shape[1]:  # a card drawn sideways on the sheet
            crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
        faces[i] = cv2.resize(crop, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    return faces


def _largest_piece(crop: np.ndarray) -> np.ndarray:
    """The largest opaque piece of a crop: a box can take in a neighbour drawn inside it (Paris)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats((crop[..., 3] > 128).astype(np.uint8), connectivity=8)
    if n <= 2:
        return crop
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[k, :4])
    return crop[y : y + h, x : x + w]


def deck_faces(name: str) -> dict[str, np.ndarray]:
    """``{card id: 420×300 BGRA face}`` for a real deck (``"back"`` too, when it has one); cached."""
    deck = REAL_DECKS[name]
    if not deck.path.exists():
        raise RealDeckError(f"{deck.path}: not installed (Debian package {deck.package})")
    st = deck.path.stat()
    folder = _cache_root() / f"{name}-{st.st_size}-{int(st.st_mtime)}-v2"
    ids = [deck.card_id(c) for c in Card.all()]
    if folder.is_dir() and all((folder / f"{i}.png").exists() for i in ids):
        out = {}
        for p in folder.glob("*.png"):
            img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
            if img is not None:
                out[p.stem] = img
        if len(out) >= 52:
            return out
    faces = _faces(deck)
    folder.mkdir(parents=True, exist_ok=True)
    for i, img in faces.items():
        tmp = folder / f".{i}.png"
        cv2.imwrite(str(tmp), img)
        tmp.replace(folder / f"{i}.png")
    return faces


_MEMO: dict[str, dict[str, np.ndarray]] = {}


def real_face(name: str, card: Card | None) -> np.ndarray:
    """The BGRA face of ``card`` in real deck ``name`` (``None``: its back)."""
    if name not in _MEMO:
        _MEMO[name] = deck_faces(name)
    faces = _MEMO[name]
    key = "back" if card is None else REAL_DECKS[name].card_id(card)
    if key not in faces:
        raise RealDeckError(f"real deck {name!r} has no {key!r}")
    return faces[key]
