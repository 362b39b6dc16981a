"""Synthetic frames of what the gate camera sees.

The renderer draws a card face (any :mod:`~vision.designs` design, a barcode
card, a card back or a joker) on a 300×420 face, places it on the dark gate
background of a 640×480 frame with a seeded pose, and applies seeded
distortions. Tests, the demo, the bench and the dealing-machine emulator's
camera hook all use :func:`render_card_frame`.

>>> from dealer.cards import Card
>>> img = render_card_frame(Card.parse("SA"), design="standard", seed=1)
>>> img.shape, img.dtype.name
((480, 640, 3), 'uint8')
>>> bool((render_card_frame(Card.parse("SA"), seed=1) == img).all())   # seeded
True
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np
import zxingcpp

from dealer.cards import Card, Rank, Suit
from vision import payload as payload_mod
from vision.code_layout import RENDERED_SYMBOL
from vision.designs import DESIGNS, DeckDesign
from vision.real_decks import REAL_DECKS, real_face

FACE_W, FACE_H = 300, 420
FRAME_W, FRAME_H = 640, 480


# --------------------------------------------------------------------------- suit shapes
def suit_mask(suit: Suit, size: int, style: str = "classic") -> np.ndarray:
    """A filled suit symbol as a ``size``×``size`` uint8 mask (255 = ink)."""
    s = size * 4  # draw large, then shrink: anti-aliased edges for free
    m: np.ndarray = np.zeros((s, s), np.uint8)
    slim = style == "slim"
    if suit == Suit.DIAMONDS:
        w = 0.32 if slim else 0.42
        pts = np.array([[0.5, 0.0], [0.5 + w, 0.5], [0.5, 1.0], [0.5 - w, 0.5]]) * s
        cv2.fillPoly(m, [pts.astype(np.int32)], 255)
    elif suit in (Suit.HEARTS, Suit.SPADES):
        r = 0.25 if slim else 0.27
        lobe_y = 0.33
        cv2.circle(m, (int(s * (0.5 - r * 0.95)), int(s * lobe_y)), int(s * r), 255, -1)
        cv2.circle(m, (int(s * (0.5 + r * 0.95)), int(s * lobe_y)), int(s * r), 255, -1)
        tip = 0.92 if suit == Suit.HEARTS else 0.85
        pts = np.array([[0.5 - 2 * r * 0.96, lobe_y + 0.08], [0.5 + 2 * r * 0.96, lobe_y + 0.08],
                        [0.5, tip]]) * s
        cv2.fillPoly(m, [pts.astype(np.int32)], 255)
        if suit == Suit.SPADES:
            m = cv2.flip(m, 0)  # a spade is an upside-down heart with a stem
            m = np.roll(m, -int(s * 0.1), axis=0)
            stem = np.array([[0.5, 0.6], [0.36, 0.98], [0.64, 0.98]]) * s
            cv2.fillPoly(m, [stem.astype(np.int32)], 255)
    else:  # clubs: three leaves and a stem
        r = 0.19 if slim else 0.215
        cv2.circle(m, (int(s * 0.5), int(s * 0.25)), int(s * r), 255, -1)
        cv2.circle(m, (int(s * 0.27), int(s * 0.58)), int(s * r), 255, -1)
        cv2.circle(m, (int(s * 0.73), int(s * 0.58)), int(s * r), 255, -1)
        cv2.circle(m, (int(s * 0.5), int(s * 0.5)), int(s * 0.12), 255, -1)
        stem = np.array([[0.5, 0.5], [0.36, 0.98], [0.64, 0.98]]) * s
        cv2.fillPoly(m, [stem.astype(np.int32)], 255)
    return cv2.resize(m, (size, size), interpolation=cv2.INTER_AREA)


def text_mask(text: str, font: int, thickness: int, height: int, max_width: int) -> np.ndarray:
    """``text`` in ``font`` scaled to cap height ``height`` (squeezed to ``max_width``)."""
    scale = 4.0
    (w, h), base = cv2.getTextSize(text, font, scale, thickness * 4)
    canvas = np.zeros((h + base + 40, w + 40), np.uint8)
    cv2.putText(canvas, text, (20, h + 20), font, scale, 255, thickness * 4, cv2.LINE_AA)
    ys, xs = np.nonzero(canvas > 60)
    crop = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    ch, cw = crop.shape
    out_w = min(max_width, max(1, round(cw * height / ch)))
    return cv2.resize(crop, (out_w, height), interpolation=cv2.INTER_AREA)


def _paint(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour: tuple[int, int, int]) -> None:
    h, w = mask.shape
    roi = img[y : y + h, x : x + w].astype(np.float32)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    img[y : y + h, x : x + w] = (roi * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _star_mask(size: int) -> np.ndarray:
    s = size * 4
    m = np.zeros((s, s), np.uint8)
    ang = np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1]
    rad = np.where(np.arange(10) % 2 == 0, 0.5, 0.2) * s
    pts = np.stack([s / 2 + rad * np.cos(ang), s / 2 + rad * np.sin(ang)], 1)
    cv2.fillPoly(m, [pts.astype(np.int32)], 255)
    return cv2.resize(m, (size, size), interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------- faces
def _blank(design: DeckDesign) -> np.ndarray:
    face = np.zeros((FACE_H, FACE_W, 3), np.uint8)
    face[:] = design.paper
    if design.framed:
        cv2.rectangle(face, (12, 12), (FACE_W - 13, FACE_H - 13), (60, 60, 160), 2)
    return face


def _index(face: np.ndarray, design: DeckDesign, rank_text: str | None, suit: Suit | None,
           colour: tuple[int, int, int]) -> None:
    """Draw the top-left index; the caller rotates the face to draw the other end."""
    x, y = design.index_x, design.index_y
    maxw = int(design.rank_height * 1.3)
    if rank_text is None:  # joker: a star in place of rank and suit
        _paint(face, _star_mask(design.rank_height + 8), x, y, colour)
        return
    rm = text_mask(rank_text, design.font, design.thickness, design.rank_height, maxw)
    # Centre the rank and the suit on one column, as printed indices are.
    col = x + maxw // 2
    _paint(face, rm, col - rm.shape[1] // 2, y, colour)
    assert suit is not None
    sm = suit_mask(suit, design.suit_size, design.suit_style)
    _paint(face, sm, col - design.suit_size // 2, y + design.rank_height + 8, colour)


def render_face(card: Card | None, design: DeckDesign, *, deck_id: int = 0,
                joker: bool = False) -> np.ndarray:
    """The 300×420 BGR face of ``card`` (or a joker) in ``design``."""
    return _render_face_cached(None if card is None else int(card), design, deck_id, joker).copy()


@lru_cache(maxsize=256)
def _render_face_cached(card: int | None, design: DeckDesign, deck_id: int,
                        joker: bool) -> np.ndarray:
    face = _blank(design)
    if joker or card is None:
        colour = design.black
        for _ in range(2):
            _index(face, design, None, None, colour)
            face = cv2.rotate(face, cv2.ROTATE_180)
        cv2.putText(face, "JOKER", (70, 225), design.font, 1.4, colour, 3, cv2.LINE_AA)
        if design.barcode:
            _barcodes(face, design, payload_mod.card_payload(None, deck_id))
        return face
    c = Card(card)
    colour = design.red if c.suit.is_red else design.black
    for _ in range(2):  # both ends carry the index
        _index(face, design, design.letter(c.rank), c.suit, colour)
        face = cv2.rotate(face, cv2.ROTATE_180)
    if design.barcode:
        _barcodes(face, design, payload_mod.card_payload(c, deck_id))
    else:
        _centre(face, design, c, colour)
    return face


# Pip centres (x, y) for number cards, as on a real face: two columns and a
# middle one. Learning counts these pips to establish the order of the pass.
_COLS = (95, 150, 205)
_PIPS: dict[int, list[tuple[int, int]]] = {
    2: [(1, 90), (1, 330)],
    3: [(1, 90), (1, 210), (1, 330)],
    4: [(0, 90), (2, 90), (0, 330), (2, 330)],
    5: [(0, 90), (2, 90), (1, 210), (0, 330), (2, 330)],
    6: [(0, 90), (2, 90), (0, 210), (2, 210), (0, 330), (2, 330)],
    7: [(0, 90), (2, 90), (1, 150), (0, 210), (2, 210), (0, 330), (2, 330)],
    8: [(0, 90), (2, 90), (1, 150), (0, 210), (2, 210), (1, 270), (0, 330), (2, 330)],
    9: [(0, 90), (2, 90), (0, 170), (2, 170), (1, 210), (0, 250), (2, 250), (0, 330), (2, 330)],
    10: [(0, 90), (2, 90), (1, 130), (0, 170), (2, 170), (0, 250), (2, 250), (1, 290), (0, 330),
         (2, 330)],
}


def _centre(face: np.ndarray, design: DeckDesign, c: Card, colour: tuple[int, int, int]) -> None:
    if c.rank >= Rank.JACK and c.rank != Rank.ACE:
        _court(face, design, c, colour)
    elif c.rank == Rank.ACE:
        sm = suit_mask(c.suit, 90, design.suit_style)
        _paint(face, sm, 150 - sm.shape[1] // 2, 210 - sm.shape[0] // 2, colour)
    else:
        sm = suit_mask(c.suit, 40, design.suit_style)
        for col, y in _PIPS[int(c.rank)]:
            pip = sm if y <= 210 else sm[::-1, ::-1]  # the lower half's pips point the other way
            _paint(face, pip, _COLS[col] - 20, y - 20, colour)


def _court(face: np.ndarray, design: DeckDesign, c: Card, colour: tuple[int, int, int]) -> None:
    """A pictured court card: a framed, coloured figure filling the middle, as real decks have.

    Real court pictures leave only 20-40 % of the middle paper-light, so the
    renderer draws them busy too: a face-up test must not rest on paper.
    """
    x0, y0, x1, y1 = 70, 60, 230, 360
    cv2.rectangle(face, (x0, y0), (x1, y1), (60, 60, 60), 2)
    rng = np.random.default_rng(int(c) * 7 + 11)
    robe = [(40, 40, 170), (150, 80, 30), (40, 150, 200), (30, 110, 40)]
    mid = (y0 + y1) // 2
    half = face[mid - (y1 - 1 - mid) : mid, x0 + 2 : x1 - 1]
    half[:] = (170, 205, 230)
    h, w = half.shape[:2]
    cv2.ellipse(half, (w // 2, 38), (26, 30), 0, 0, 360, (150, 190, 235), -1)  # the head
    cv2.ellipse(half, (w // 2, 22), (30, 14), 0, 180, 360, (30, 160, 210), -1)  # a crown or hat
    for k in range(7):  # robe panels and trim
        col = robe[int(rng.integers(0, 4))]
        xa = int(rng.integers(0, w - 40))
        cv2.rectangle(half, (xa, 70 + k * 11), (xa + int(rng.integers(30, 80)), 150), col, -1)
    cv2.line(half, (w // 2 + 30, 10), (w // 2 + 45, h - 5), colour, 3)  # sceptre or sword
    cv2.ellipse(half, (w // 2, 40), (9, 4), 0, 0, 360, (30, 30, 30), -1)
    face[mid : y1 - 1, x0 + 2 : x1 - 1] = half[::-1, ::-1]


def barcode_image(text: str, symbology: str, module: float) -> np.ndarray:
    """The symbol for ``text`` (with its quiet zone) at ``module`` px per module."""
    fmt = zxingcpp.BarcodeFormat.QRCode if symbology == "qr" else zxingcpp.BarcodeFormat.Code128
    img = np.asarray(zxingcpp.create_barcode(text, fmt).to_image(scale=1))
    if symbology != "qr":
        img = np.repeat(img[:1], 24, axis=0)  # bar height 24 modules (60 px at 2.5 px)
    # Draw at 4 px per module, then shrink: fractional modules get grey edges as print does.
    big = np.repeat(np.repeat(img, 4, axis=0), 4, axis=1)
    size = (round(img.shape[1] * module), round(img.shape[0] * module))
    return cv2.resize(big, size, interpolation=cv2.INTER_AREA)


#: How far (px of the face, across and along the card) a sticker put on by hand may lie
#: from its place: 1.3 and 2 mm.
STICKER_OFF = (6, 9)


def _barcodes(face: np.ndarray, design: DeckDesign, text: str) -> None:
    """The same payload near each end, the second turned 180° (read either way round)."""
    module, y = RENDERED_SYMBOL[design.barcode or "qr"]  # the reader checks the same layout
    if design.barcode == "qr":
        sym = barcode_image(text, "qr", module)  # 29 modules incl. quiet zone -> 116 px
        x = FACE_W - sym.shape[1] - 16  # top right; the turned copy lands bottom left
    else:
        sym = barcode_image(text, "code128", module)  # 110 modules incl. quiet zone -> 275 px
        x = (FACE_W - sym.shape[1]) // 2
    h, w = sym.shape
    # Stickers put on by hand: each its own offset, the same for that card on every feed
    # (and, in the renderer, in every deck id: one stickered deck, under any number).
    parsed = payload_mod.parse(text) if design.stickers else None
    key = str(parsed.card) if parsed is not None and parsed.card is not None else text
    placed = np.random.default_rng(zlib.crc32(key.encode())) if design.stickers else None
    for _ in range(2):
        dx, dy = ((int(placed.integers(-STICKER_OFF[0], STICKER_OFF[0] + 1)),
                   int(placed.integers(-STICKER_OFF[1], STICKER_OFF[1] + 1))) if placed is not None else (0, 0))
        face[y + dy : y + dy + h, x + dx : x + dx + w] = sym[..., None]
        face[:] = cv2.rotate(face, cv2.ROTATE_180)


def render_back(colour: tuple[int, int, int] = (140, 60, 30)) -> np.ndarray:
    """A patterned card back with a white margin."""
    face = np.full((FACE_H, FACE_W, 3), 240, np.uint8)
    cv2.rectangle(face, (14, 14), (FACE_W - 15, FACE_H - 15), colour, -1)
    light = tuple(min(255, c + 70) for c in colour)
    for k in range(-FACE_H, FACE_W + FACE_H, 14):
        cv2.line(face, (k, 14), (k + FACE_H, 14 + FACE_H), light, 2)
        cv2.line(face, (k, 14), (k - FACE_H, 14 + FACE_H), light, 2)
    face[:14], face[-14:], face[:, :14], face[:, -14:] = 240, 240, 240, 240
    return face


# --------------------------------------------------------------------------- distortions
@dataclass(frozen=True)
class Distortions:
    """Seeded distortion ranges; each frame draws its own values inside them.

    Angles in degrees, lengths in pixels of the 640×480 frame.
    """

    jitter_deg: float = 3.0  # rotation away from the feed direction
    flip_180: bool = True  # the card may arrive either end first
    perspective: float = 6.0  # max corner displacement
    scale: tuple[float, float] = (0.96, 1.04)
    focus_sigma: tuple[float, float] = (0.0, 0.6)
    motion_px: tuple[float, float] = (0.0, 0.0)
    noise_sigma: tuple[float, float] = (1.0, 4.0)
    uneven: tuple[float, float] = (0.0, 0.15)  # darkening across the frame
    glare: tuple[float, float] = (0.0, 0.0)  # peak added brightness (0..1)
    glare_radius: tuple[float, float] = (40, 90)
    contrast: tuple[float, float] = (0.85, 1.0)
    jpeg: tuple[int, int] = (85, 95)
    worn: tuple[float, float] = (0.0, 0.0)  # fading of the index (0..1)
    second_card: bool = False  # a double feed: another card overlaps
    # With ``second_card``: the card under it sticks out only this far (px, along the
    # card's long side, drawn from the range): two cards stuck together, all but aligned,
    # of one size, tilt and turn (:func:`_stuck_under`); the renderer draws no edge where
    # the top card lies on it. (0, 0): far enough apart to show its own code.
    stuck: tuple[float, float] = (0.0, 0.0)
    floor: str = "dark"  # the gate floor: "dark", "light" (grey-beige) or "wood" (light oak)
    warm: tuple[float, float] = (0.0, 0.0)  # warm light: blue down, red up by this share
    thumb: int = 0  # thumbs over the card: 1 on a long edge; 2 over both ends (barcodes covered)


NORMAL = Distortions()

#: Named conditions used by the bench and the tests. "Out of envelope" ones end in "!".
CONDITIONS: dict[str, Distortions] = {
    "normal": NORMAL,
    "rotation": replace(NORMAL, jitter_deg=12.0),
    "perspective": replace(NORMAL, perspective=22.0),
    "focus-blur": replace(NORMAL, focus_sigma=(0.8, 1.4)),
    "motion-blur": replace(NORMAL, motion_px=(3.0, 6.0)),
    "noise": replace(NORMAL, noise_sigma=(8.0, 14.0)),
    "uneven-light": replace(NORMAL, uneven=(0.3, 0.5)),
    "glare": replace(NORMAL, glare=(0.25, 0.45)),
    "low-contrast": replace(NORMAL, contrast=(0.45, 0.6)),
    "jpeg": replace(NORMAL, jpeg=(30, 50)),
    "worn-index": replace(NORMAL, worn=(0.3, 0.55)),
    "heavy-glare!": replace(NORMAL, glare=(0.9, 1.2), glare_radius=(70, 120)),
    "heavy-blur!": replace(NORMAL, focus_sigma=(3.0, 4.0)),
    "tiny!": replace(NORMAL, scale=(0.4, 0.5)),
    "double-feed!": replace(NORMAL, second_card=True),
    # Two cards stuck together, all but aligned (issue 15, seventh pass): a gap the
    # camera closes only in part (docs/vision.md).
    "stuck-pair!": replace(NORMAL, second_card=True, stuck=(8.0, 60.0)),
    # Other floors and light (issue 15): the locator must not need a dark floor.
    "light-floor": replace(NORMAL, floor="light"),
    "wood": replace(NORMAL, floor="wood"),
    "warm-light": replace(NORMAL, warm=(0.12, 0.25)),
    "thumb": replace(NORMAL, thumb=1),
    "codes-covered!": replace(NORMAL, thumb=2),
}

#: Gate-like conditions: the card fully in view, mild tilt, dark or light floor.
GATE_LIKE = ("normal", "light-floor", "wood", "warm-light")


def _wear(face: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Fade both index corners toward the paper and scratch them, as handling does."""
    out = face.astype(np.float32)
    paper = out[FACE_H // 2 - 2, 6].copy()
    for y0, x0 in ((0, 0), (FACE_H - 120, FACE_W - 90)):
        roi = out[y0 : y0 + 120, x0 : x0 + 90]
        roi += (paper - roi) * amount
        for _ in range(int(rng.integers(3, 8))):  # small specks of lost ink
            cy, cx = int(rng.integers(0, 120)), int(rng.integers(0, 90))
            cv2.circle(roi, (cx, cy), int(rng.integers(1, 3)), paper.tolist(), -1)
    return out.clip(0, 255).astype(np.uint8)


def _u(rng: np.random.Generator, lohi: tuple[float, float]) -> float:
    return float(rng.uniform(lohi[0], lohi[1])) if lohi[1] > lohi[0] else float(lohi[0])


def _placement(rng: np.random.Generator, d: Distortions, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Where the face's corners (0,0) (W,0) (W,H) (0,H) go in the frame: a scale, a turn,
    a place and a tilt drawn inside ``d``."""
    scale = _u(rng, d.scale)
    angle = 90.0 + (180.0 if d.flip_180 and rng.random() < 0.5 else 0.0)
    angle += float(rng.uniform(-d.jitter_deg, d.jitter_deg))
    w, h = FACE_W * scale, FACE_H * scale
    cx = FRAME_W / 2 + offset[0] + float(rng.uniform(-20, 20))
    cy = FRAME_H / 2 + offset[1] + float(rng.uniform(-15, 15))
    t = np.radians(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    dst = corners @ rot.T + [cx, cy]
    dst += rng.uniform(-d.perspective, d.perspective, size=(4, 2))
    return dst


_FACE_CORNERS = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)


def _warp_into(frame: np.ndarray, face: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Warp ``face`` (BGR, or BGRA with rounded corners) into ``frame`` with its corners at ``dst``."""
    m = cv2.getPerspectiveTransform(_FACE_CORNERS, dst.astype(np.float32))
    if face.shape[2] == 4:  # a real deck's face: blend by its alpha (rounded corners)
        warped = cv2.warpPerspective(face, m, (FRAME_W, FRAME_H), flags=cv2.INTER_LINEAR)
        a = warped[..., 3:4].astype(np.float32) / 255.0
        frame[:] = (frame.astype(np.float32) * (1 - a) + warped[..., :3].astype(np.float32) * a).astype(np.uint8)
    else:
        cv2.warpPerspective(face, m, (FRAME_W, FRAME_H), dst=frame, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
    return dst


def _place(frame: np.ndarray, face: np.ndarray, rng: np.random.Generator, d: Distortions,
           offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Warp ``face`` into ``frame`` at a placement drawn inside ``d``; returns its corners."""
    return _warp_into(frame, face, _placement(rng, d, offset))


def _stuck_under(top: np.ndarray, rng: np.random.Generator, d: Distortions) -> np.ndarray:
    """The corners of a card stuck under the one whose corners are ``top``.

    Two cards stuck together lie in one plane and pass the feeder's side guides
    together: the card under is the top card's size, tilt and turn, moved along the
    card's long side by a gap drawn from ``d.stuck`` (either end), across it by up to
    3 px and turned by up to 1°. Drawn in the face's own units and carried into the
    frame by the top card's perspective, as the camera sees both.
    """
    apart = _u(rng, d.stuck) * float(rng.choice([-1, 1]))
    across = float(rng.uniform(-3, 3))
    twist = np.radians(float(rng.uniform(-1, 1)))
    c, s = np.cos(twist), np.sin(twist)
    mid = np.array([FACE_W / 2, FACE_H / 2])
    moved = (_FACE_CORNERS - mid) @ np.array([[c, -s], [s, c]]).T + mid + [across, apart]
    m = cv2.getPerspectiveTransform(_FACE_CORNERS, top.astype(np.float32))
    return cv2.perspectiveTransform(moved.reshape(-1, 1, 2).astype(np.float64), m.astype(np.float64)).reshape(4, 2)


def _floor(kind: str, rng: np.random.Generator) -> np.ndarray:
    """The gate floor: dark (as built), light grey-beige, or a light wood table."""
    frame = np.empty((FRAME_H, FRAME_W, 3), np.uint8)
    if kind == "dark":
        frame[:] = rng.integers(25, 45)
        return frame
    if kind == "light":
        base = rng.uniform(165, 200)
        tint = np.array([base - rng.uniform(0, 12), base - rng.uniform(0, 6), base], np.float32)
        f = np.empty((FRAME_H, FRAME_W, 3), np.float32)
        f[:] = tint
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        grain = np.empty((FRAME_H // 8, FRAME_W // 8), np.float32)
        cv2.randn(grain, np.array(0.0), np.array(4.0))  # a soft, blotchy surface texture
        f += cv2.resize(grain, (FRAME_W, FRAME_H), interpolation=cv2.INTER_CUBIC)[..., None]
        return f.clip(0, 255).astype(np.uint8)
    if kind == "wood":
        ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
        t = float(rng.uniform(-0.3, 0.3))
        u = xs * np.cos(t) + ys * np.sin(t)
        v = -xs * np.sin(t) + ys * np.cos(t)
        wobble = 6 * np.sin(u / float(rng.uniform(60, 110)) + float(rng.uniform(0, 6)))
        rings = 0.5 + 0.5 * np.sin((v + wobble) / float(rng.uniform(3.5, 6.0)))
        light = np.array([rng.uniform(95, 125), rng.uniform(145, 170), rng.uniform(190, 215)], np.float32)
        dark = light * np.float32(rng.uniform(0.72, 0.85))
        f = dark[None, None, :] + (light - dark)[None, None, :] * rings[..., None]
        return f.clip(0, 255).astype(np.uint8)
    raise ValueError(f"unknown floor {kind!r}: dark, light or wood")


def _thumb(frame: np.ndarray, corners: np.ndarray, rng: np.random.Generator, k: int, n: int) -> None:
    """A thumb over the card: one on the middle of a long edge, or (n=2) one over each end's code."""
    c = corners.mean(axis=0)
    e = [(corners[i], corners[(i + 1) % 4]) for i in range(4)]
    long_edges = sorted(e, key=lambda p: -float(np.linalg.norm(p[1] - p[0])))[:2]
    if n == 1:
        a, b = long_edges[int(rng.integers(0, 2))]
        mid = (a + b) / 2 + (b - a) * float(rng.uniform(-0.12, 0.12))
        inward = (c - mid) / (np.linalg.norm(c - mid) + 1e-6)
        centre = mid + inward * float(rng.uniform(5, 25))
        axis = (b - a) / (np.linalg.norm(b - a) + 1e-6)
        size = (float(rng.uniform(20, 28)), float(rng.uniform(36, 48)))
    else:  # over the code near end k (where :func:`_barcodes` prints a QR code)
        fx, fy = (226.0, 98.0) if k == 0 else (74.0, 322.0)
        # the face's corners (0,0) (W,0) (W,H) (0,H) went to ``corners``: bilinear is close enough
        u, v = fx / FACE_W, fy / FACE_H
        centre = ((1 - u) * (1 - v) * corners[0] + u * (1 - v) * corners[1] + u * v * corners[2]
                  + (1 - u) * v * corners[3])
        axis = (corners[1] - corners[0]) / (np.linalg.norm(corners[1] - corners[0]) + 1e-6)
        size = (float(rng.uniform(72, 80)), float(rng.uniform(80, 88)))
    ang = float(np.degrees(np.arctan2(axis[1], axis[0])))
    skin = (float(rng.uniform(110, 140)), float(rng.uniform(140, 165)), float(rng.uniform(190, 215)))
    cv2.ellipse(frame, (int(centre[0]), int(centre[1])), (int(size[1]), int(size[0])), ang, 0, 360,
                skin, -1, cv2.LINE_AA)
    shade = tuple(v * 0.8 for v in skin)  # the nail and a shadow line give it some shape
    cv2.ellipse(frame, (int(centre[0]), int(centre[1])), (int(size[1]), int(size[0])), ang, 200, 340,
                shade, 3, cv2.LINE_AA)


def render_card_frame(
    card: Card | None,
    *,
    design: str | DeckDesign = "standard",
    deck_id: int = 0,
    face_up: bool = True,
    joker: bool = False,
    seed: int = 0,
    distortions: str | Distortions = "normal",
) -> np.ndarray:
    """A 640×480 BGR frame of ``card`` at the gate (``None`` = empty gate).

    This is the emulator's camera hook: the dealing-machine emulator calls it
    with the physical card at the gate.
    """
    d = CONDITIONS[distortions] if isinstance(distortions, str) else distortions
    real = design if isinstance(design, str) and design in REAL_DECKS else None
    des = DESIGNS["standard"] if real is not None else DESIGNS[design] if isinstance(design, str) else design
    rng = np.random.default_rng(seed)
    frame = _floor(d.floor, rng)
    shift = 0.0
    placed: np.ndarray | None = None  # where the top card lies, when drawn before it
    if d.second_card and d.stuck[1] > 0:  # two cards stuck together, as one
        other = Card((int(card or 0) + 1 + int(rng.integers(0, 50))) % 52)
        placed = _placement(rng, d)
        _warp_into(frame, render_face(other, des, deck_id=deck_id), _stuck_under(placed, rng, d))
    elif d.second_card:  # the card behind sticks out far enough to show its own code
        other = Card((int(card or 0) + 1 + int(rng.integers(0, 50))) % 52)
        side = float(rng.choice([-1, 1]))
        _place(frame, render_face(other, des, deck_id=deck_id), rng, d, offset=(side * 150.0, 0.0))
        shift = -side * 60
    if card is not None or joker:
        if real is not None:
            if joker:
                raise ValueError(f"real deck {real!r}: jokers are not drawn")
            face = real_face(real, card if face_up else None)
        elif not face_up:
            face = render_back()
        else:
            face = render_face(card, des, deck_id=deck_id, joker=joker)
        worn = _u(rng, d.worn) if face_up else 0.0
        if worn > 0:
            face = _wear(face, rng, worn)
        corners = (_warp_into(frame, face, placed) if placed is not None
                   else _place(frame, face, rng, d, offset=(shift, 0.0)))
        for k in range(d.thumb):
            _thumb(frame, corners, rng, k, d.thumb)
    return _photograph(frame, rng, d)


def _photograph(frame: np.ndarray, rng: np.random.Generator, d: Distortions) -> np.ndarray:
    """Optics and sensor: blur, light, glare, contrast, noise, JPEG."""
    img = frame
    sigma = _u(rng, d.focus_sigma)
    if sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    length = _u(rng, d.motion_px)
    if length >= 1.0:
        k = np.zeros((int(length) * 2 + 1,) * 2, np.float32)
        mid = int(length)
        t = rng.uniform(0, np.pi)
        dx, dy = np.cos(t) * length / 2, np.sin(t) * length / 2
        cv2.line(k, (round(mid - dx), round(mid - dy)), (round(mid + dx), round(mid + dy)), 1.0, 1)
        img = cv2.filter2D(img, -1, k / k.sum())
    warm = _u(rng, d.warm)
    if warm > 0:  # tungsten-like light: less blue, a little more red
        img = (img.astype(np.float32) * np.array([1 - warm, 1 - warm / 3, 1 + warm / 4], np.float32)
               ).clip(0, 255).astype(np.uint8)
    # Light and contrast as one per-pixel gain and offset, in float32 (float64 is 3x slower).
    gain = np.ones((FRAME_H, FRAME_W), np.float32)
    add = np.zeros((FRAME_H, FRAME_W), np.float32)
    uneven = _u(rng, d.uneven)
    if uneven > 0:  # light falls off across the gate from one side
        t = rng.uniform(0, 2 * np.pi)
        xs = np.linspace(-1, 1, FRAME_W, dtype=np.float32)[None, :] * np.float32(np.cos(t))
        ys = np.linspace(-1, 1, FRAME_H, dtype=np.float32)[:, None] * np.float32(np.sin(t))
        gain *= np.float32(1.0) - np.float32(uneven) * (xs + ys + np.float32(1.4)) / np.float32(2.8)
    glare = _u(rng, d.glare)
    if glare > 0:  # a specular highlight on the glossy card
        gx, gy = rng.uniform(200, 440), rng.uniform(140, 340)
        r = _u(rng, d.glare_radius)
        xx = np.arange(FRAME_W, dtype=np.float32)[None, :] - np.float32(gx)
        yy = np.arange(FRAME_H, dtype=np.float32)[:, None] - np.float32(gy)
        add += np.float32(255 * glare) * np.exp(-(xx * xx + yy * yy) / np.float32(2 * r * r))
    c = np.float32(_u(rng, d.contrast))
    gain *= c
    add = add * c + np.float32(128) * (np.float32(1) - c)
    f = img.astype(np.float32) * gain[..., None] + add[..., None]
    n = _u(rng, d.noise_sigma)
    if n > 0:  # cv2.randn is ~10x faster than numpy's normal; seed it from our generator
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        noise = np.empty(f.shape, np.float32)
        # Each colour channel its own noise, as a sensor's photosites have. (A plain
        # float here is OpenCV's Scalar(n, 0, 0, 0): blue only, until issue 15's eighth
        # pass; the grey picture then had a ninth of the noise the condition names.)
        cv2.randn(noise, np.zeros(3), np.full(3, n))
        f += noise
    img = f.clip(0, 255).astype(np.uint8)
    q = int(rng.integers(d.jpeg[0], d.jpeg[1] + 1))
    if q < 100:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is None:  # (our own encoding always decodes)
            raise RuntimeError("the renderer's JPEG did not decode")
        img = decoded
    return img
