"""An emulated overhead table camera: the scene over time, from a recorded play.

The camera looks down on the table and gives 1280×720 BGR frames. Each
player has a *zone* in front of them where the played card is put (duplicate
style); :class:`TableLayout` says where the zones are, for a bridge table
(N top, E right, S bottom, W left) or a ring of 3-10 players (Bugger Bridge).

:func:`play_scenes` turns a recorded play (cards by seat, trick by trick) into
the states of the table: an arm reaching over a zone while the card is put
down, the card settling (sometimes crooked), the four cards turned face down
when the trick is over and then taken away, dummy's hand laid out after the
opening lead. :class:`TableCamera` draws a state with the standard
disturbances: crooked cards, a hand covering a zone, changing light (slow
swings, sudden steps, uneven light) and sensor noise. Everything is seeded.

>>> from dealer.cards import Card
>>> cam = TableCamera(bridge_layout(), seed=1)
>>> scene = Scene.empty(4)
>>> scene.zones[2] = Placed(Card.parse("SA"))
>>> cam.render(scene).shape
(720, 1280, 3)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from dealer.cards import Card
from vision.designs import DESIGNS, DeckDesign
from vision.render import FACE_H, FACE_W, render_back, render_face

FRAME_W, FRAME_H = 1280, 720
FELT = (45, 100, 40)  # BGR green baize
SKIN = (105, 140, 190)

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1


@dataclass(frozen=True)
class TableLayout:
    """Where each seat's zone is, how big cards look, and where dummy goes.

    ``facing[i]`` is the angle (degrees, counter-clockwise) a card put down by
    seat ``i`` is turned by, so its top points away from that player.
    ``reach[i]`` is the point at the table edge the player's arm comes from.
    """

    players: int
    zones: tuple[Rect, ...]
    facing: tuple[float, ...]
    reach: tuple[tuple[int, int], ...]
    card_scale: float = 0.5
    dummy_areas: tuple[Rect, ...] = ()

    def zone_centre(self, seat: int) -> tuple[float, float]:
        x0, y0, x1, y1 = self.zones[seat]
        return (x0 + x1) / 2, (y0 + y1) / 2


def bridge_layout() -> TableLayout:
    """Four zones in a cross (N top, E right, S bottom, W left); dummy in a corner.

    >>> bridge_layout().zones[0]
    (505, 15, 775, 285)
    """
    z = 135
    centres = ((640, 150), (940, 360), (640, 570), (340, 360))
    zones = tuple((x - z, y - z, x + z, y + z) for x, y in centres)
    # Dummy lays out the hand in the corner on its left (as seen from the camera).
    dummy = ((10, 5, 480, 220), (800, 5, 1270, 220), (800, 500, 1270, 715), (10, 500, 480, 715))
    return TableLayout(4, zones, (180.0, 90.0, 0.0, 270.0),
                       ((640, 0), (1280, 360), (640, 720), (0, 360)), 0.5, dummy)


def ring_layout(players: int) -> TableLayout:
    """3-10 zones round an ellipse, seat 0 at the bottom, clockwise (as dealt).

    Cards look smaller at a big table so that the zones do not overlap.

    >>> [len(ring_layout(n).zones) for n in (3, 5, 10)]
    [3, 5, 10]
    """
    if not 3 <= players <= 10:
        raise ValueError(f"a ring table has 3 to 10 players, not {players}")
    # A zone must hold a card turned any way (the seats face the middle at any angle).
    scale, z = (0.5, 138) if players <= 6 else (0.42, 120) if players == 7 else (0.36, 100)
    a, b = FRAME_W / 2 - z - 8, FRAME_H / 2 - z - 8
    # Equal steps along the ellipse, not equal angles: the sides of a wide table would crowd.
    ts = np.pi / 2 + np.linspace(0, 2 * np.pi, 3601)
    seg = np.hypot(np.diff(a * np.cos(ts)), np.diff(b * np.sin(ts)))
    arc = np.concatenate([[0.0], np.cumsum(seg)])
    zones, facing, reach = [], [], []
    for i in range(players):
        t = float(np.interp(arc[-1] * i / players, arc, ts))  # seat 0 at the bottom, clockwise
        cx, cy = FRAME_W / 2 + a * np.cos(t), FRAME_H / 2 + b * np.sin(t)
        zones.append((int(cx - z), int(cy - z), int(cx + z), int(cy + z)))
        facing.append(float(np.degrees(np.arctan2(np.cos(t), np.sin(t)))))
        reach.append((int(FRAME_W / 2 + (a + z) * np.cos(t)), int(FRAME_H / 2 + (b + z) * np.sin(t))))
    return TableLayout(players, tuple(zones), tuple(facing), tuple(reach), scale)


@dataclass
class Placed:
    """A card lying in a zone: face up or turned over, and how crooked."""

    card: Card
    face_up: bool = True
    angle: float = 0.0  # extra turn away from the seat's facing, degrees
    dx: float = 0.0
    dy: float = 0.0


@dataclass
class Scene:
    """One state of the table."""

    zones: list[Placed | None]
    hand: tuple[int, float] | None = None  # (zone, how far over it 0..1)
    light: float = 1.0  # overall brightness
    uneven: int = 0  # which light gradient (0 = even)
    dummy: tuple[int, tuple[Card, ...]] | None = None

    @classmethod
    def empty(cls, players: int) -> Scene:
        return cls([None] * players)

    def copy(self) -> Scene:
        return replace(self, zones=list(self.zones))


@dataclass(frozen=True)
class Disturbances:
    """The standard disturbances, as probabilities and ranges."""

    jitter_deg: float = 6.0
    crooked_prob: float = 0.15
    crooked_deg: float = 20.0
    offset_px: float = 8.0
    hand_prob: float = 0.6  # the arm is seen over the zone while the card is put down
    linger_prob: float = 0.15  # ... and stays a few frames
    light_swing: float = 0.18  # slow swing of the overall light, ±
    light_step_prob: float = 0.04  # sudden change (a lamp, a cloud) per card
    uneven_prob: float = 0.3
    noise: float = 3.0
    # Frames a card lies still before the next is played. The emulator samples the
    # scene: at 30 fps a real card lies there for a second or more.
    settle_frames: tuple[int, int] = (3, 5)


STANDARD = Disturbances()
CALM = Disturbances(jitter_deg=2.0, crooked_prob=0.0, hand_prob=0.0, linger_prob=0.0,
                    light_swing=0.0, light_step_prob=0.0, uneven_prob=0.0, noise=1.0)


@lru_cache(maxsize=4)
def _felt(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    small = rng.normal(0, 6, (FRAME_H // 16, FRAME_W // 16)).astype(np.float32)
    tex = cv2.resize(small, (FRAME_W, FRAME_H), interpolation=cv2.INTER_CUBIC)
    img = np.empty((FRAME_H, FRAME_W, 3), np.float32)
    img[:] = FELT
    return np.clip(img + tex[..., None], 0, 255).astype(np.uint8)


@lru_cache(maxsize=4)
def _gradients() -> tuple[np.ndarray, ...]:
    """Uneven light: gain fields (scaled by 255) darkening one side of the table."""
    xx = np.linspace(0, 1, FRAME_W, dtype=np.float32)[None, :]
    yy = np.linspace(0, 1, FRAME_H, dtype=np.float32)[:, None]
    fields = [np.ones((FRAME_H, FRAME_W), np.float32),
              0.65 + 0.35 * np.broadcast_to(xx, (FRAME_H, FRAME_W)),
              1.0 - 0.35 * np.broadcast_to(yy, (FRAME_H, FRAME_W)),
              0.7 + 0.3 * np.exp(-((xx - 0.3) ** 2 + (yy - 0.4) ** 2) * 3)]
    return tuple(cv2.merge([(f * 255).astype(np.uint8)] * 3) for f in fields)


@lru_cache(maxsize=8)
def _noise(seed: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = rng.normal(0, sigma, (FRAME_H, FRAME_W, 3))
    return np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)


class TableCamera:
    """Draws :class:`Scene` states as the overhead camera would see them."""

    def __init__(self, layout: TableLayout, *, design: str | DeckDesign = "standard",
                 deck_id: int = 0, seed: int = 0,
                 disturbances: Disturbances = STANDARD) -> None:
        self.layout = layout
        self.design = DESIGNS[design] if isinstance(design, str) else design
        self.deck_id = deck_id
        self.d = disturbances
        self.rng = np.random.default_rng(seed)
        self._felt = _felt(seed % 4)
        self._noise = [_noise(k, disturbances.noise) for k in range(4)] if disturbances.noise else []
        self._back = render_back()

    def _face(self, card: Card) -> np.ndarray:
        return _face_cached(int(card), self.design, self.deck_id)

    def _put(self, frame: np.ndarray, img: np.ndarray, cx: float, cy: float, angle: float,
             scale: float, roi: Rect) -> None:
        """Warp a face into ``frame`` inside ``roi`` (warping only the ROI keeps it fast)."""
        x0, y0, x1, y1 = roi
        m = cv2.getRotationMatrix2D((FACE_W / 2, FACE_H / 2), angle, scale)
        m[0, 2] += cx - x0 - FACE_W / 2
        m[1, 2] += cy - y0 - FACE_H / 2
        dst = frame[y0:y1, x0:x1]
        cv2.warpAffine(img, m, (x1 - x0, y1 - y0), dst=dst, flags=cv2.INTER_AREA,
                       borderMode=cv2.BORDER_TRANSPARENT)

    def render(self, scene: Scene) -> np.ndarray:
        lay = self.layout
        frame = self._felt.copy()
        if scene.dummy is not None:
            self._draw_dummy(frame, *scene.dummy)
        for seat, placed in enumerate(scene.zones):
            if placed is None:
                continue
            cx, cy = lay.zone_centre(seat)
            img = self._face(placed.card) if placed.face_up else self._back
            self._put(frame, img, cx + placed.dx, cy + placed.dy, lay.facing[seat] + placed.angle,
                      lay.card_scale, lay.zones[seat])
        if scene.hand is not None:
            self._draw_arm(frame, *scene.hand)
        return self._photograph(frame, scene)

    def _draw_dummy(self, frame: np.ndarray, seat: int, cards: Sequence[Card]) -> None:
        """Dummy's hand on the table: a row per suit, overlapping so each index shows."""
        if seat >= len(self.layout.dummy_areas):
            return
        x0, y0, x1, y1 = self.layout.dummy_areas[seat]
        s = 0.36
        w, h = int(FACE_W * s), int(FACE_H * s)
        rows: dict[int, list[Card]] = {}
        for c in sorted(cards, reverse=True):
            rows.setdefault(int(c.suit), []).append(c)
        for r, suit in enumerate(sorted(rows, reverse=True)):
            for k, c in enumerate(rows[suit]):
                px = x0 + (r % 2) * 235 + k * 34
                py = y0 + (r // 2) * 52
                if px + w > x1 or py + h > y1:
                    continue
                frame[py:py + h, px:px + w] = _small_face(int(c), self.design, self.deck_id, w, h)

    def _draw_arm(self, frame: np.ndarray, seat: int, over: float) -> None:
        ex, ey = self.layout.reach[seat]
        cx, cy = self.layout.zone_centre(seat)
        hx, hy = ex + (cx - ex) * over, ey + (cy - ey) * over
        cv2.line(frame, (int(ex), int(ey)), (int(hx), int(hy)), SKIN, 70, cv2.LINE_AA)
        ang = float(np.degrees(np.arctan2(cy - ey, cx - ex)))
        cv2.ellipse(frame, (int(hx), int(hy)), (75, 55), ang, 0, 360, SKIN, -1, cv2.LINE_AA)
        shade = tuple(int(c * 0.8) for c in SKIN)
        cv2.ellipse(frame, (int(hx), int(hy)), (75, 55), ang, 200, 340, shade, 6, cv2.LINE_AA)

    def _photograph(self, frame: np.ndarray, scene: Scene) -> np.ndarray:
        if scene.uneven:
            frame = cv2.multiply(frame, _gradients()[scene.uneven], scale=1 / 255)
        if abs(scene.light - 1.0) > 1e-3:
            frame = cv2.convertScaleAbs(frame, alpha=scene.light)
        if self._noise:
            k = int(self.rng.integers(0, len(self._noise)))  # fresh-looking noise each frame
            pos = self._noise[k][0]
            frame = cv2.subtract(cv2.add(frame, pos), self._noise[(k + 1) % len(self._noise)][1])
        return frame


@lru_cache(maxsize=128)
def _small_face(card: int, design: DeckDesign, deck_id: int, w: int, h: int) -> np.ndarray:
    return cv2.resize(_face_cached(card, design, deck_id), (w, h), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=128)
def _face_cached(card: int, design: DeckDesign, deck_id: int) -> np.ndarray:
    return render_face(Card(card), design, deck_id=deck_id)


# --------------------------------------------------------------------------- scripts
@dataclass
class ScenePlan:
    """A scene to show for ``frames`` frames, with what a card event means (for benches)."""

    scene: Scene
    frames: int = 1
    note: str = ""


@dataclass
class _Light:
    rng: np.random.Generator
    d: Disturbances
    t: float = 0.0
    base: float = 1.0
    uneven: int = 0
    phase: float = field(default=0.0)

    def step(self) -> tuple[float, int]:
        self.t += 1
        if self.rng.random() < self.d.light_step_prob:
            self.base = float(self.rng.uniform(0.8, 1.1))
            if self.rng.random() < self.d.uneven_prob:
                self.uneven = int(self.rng.integers(1, 4))
            else:
                self.uneven = 0
        swing = self.d.light_swing * np.sin(self.t / 23.0 + self.phase)
        return float(self.base * (1 + swing)), self.uneven


def play_scenes(tricks: Sequence[Sequence[tuple[int, Card]]], players: int, *,
                dummy: tuple[int, Sequence[Card]] | None = None, seed: int = 0,
                disturbances: Disturbances = STANDARD,
                turned: tuple[int, Card] | None = None) -> Iterator[ScenePlan]:
    """The table over time for ``tricks`` (each a list of (seat, card) in play order).

    ``dummy`` is (dummy's seat, dummy's 13 cards): laid out after the opening
    lead, a card leaving the layout when dummy plays it. ``turned`` is
    (dealer's seat, card) for Bugger Bridge: the turned-up trump card is shown
    in the dealer's zone before the lead, then put on the stock.
    """
    d = disturbances
    rng = np.random.default_rng(seed)
    light = _Light(rng, d, phase=float(rng.uniform(0, 6.3)))
    if rng.random() < d.uneven_prob:
        light.uneven = int(rng.integers(1, 4))
    scene = Scene.empty(players)
    dummy_left = list(dummy[1]) if dummy is not None else []

    def lit(s: Scene) -> Scene:
        s.light, s.uneven = light.step()
        return s

    yield ScenePlan(lit(scene.copy()), 2, "empty table")
    if turned is not None:
        scene.zones[turned[0]] = Placed(turned[1], True, float(rng.uniform(-d.jitter_deg, d.jitter_deg)))
        yield ScenePlan(lit(scene.copy()), 4, f"turned-up card {turned[1]}")
        scene.zones[turned[0]] = None
        yield ScenePlan(lit(scene.copy()), 2, "turned-up card put on the stock")
    for t_no, trick in enumerate(tricks):
        for k, (seat, card) in enumerate(trick):
            crooked = rng.random() < d.crooked_prob
            limit = d.crooked_deg if crooked else d.jitter_deg
            placed = Placed(card, True, float(rng.uniform(-limit, limit)),
                            float(rng.uniform(-d.offset_px, d.offset_px)),
                            float(rng.uniform(-d.offset_px, d.offset_px)))
            if rng.random() < d.hand_prob:
                reach = 1.0 if rng.random() < 0.5 else 0.6
                s = scene.copy()
                s.hand = (seat, reach)
                s.zones[seat] = placed  # the card is going down under the hand
                n = int(rng.integers(2, 5)) if rng.random() < d.linger_prob else 1
                yield ScenePlan(lit(s), n, f"hand over zone {seat}")
            scene.zones[seat] = placed
            if dummy is not None and seat == dummy[0] and card in dummy_left:
                dummy_left.remove(card)
            if dummy is not None and t_no == 0 and k == 0:
                scene.dummy = (dummy[0], tuple(dummy_left))
            elif scene.dummy is not None:
                scene.dummy = (scene.dummy[0], tuple(dummy_left))
            yield ScenePlan(lit(scene.copy()), int(rng.integers(d.settle_frames[0],
                                                                d.settle_frames[1] + 1)),
                            f"trick {t_no + 1}: {card} in zone {seat}")
        # The trick is over: everyone turns their card face down, then keeps it. A trick
        # cut short by a claim is gathered up as it lies.
        if len(trick) == players:
            for seat, _ in trick:
                p = scene.zones[seat]
                assert p is not None
                scene.zones[seat] = replace(p, face_up=False)
            yield ScenePlan(lit(scene.copy()), 2, f"trick {t_no + 1} turned")
        scene.zones = [None] * players
        yield ScenePlan(lit(scene.copy()), 1, "zones cleared")


def frames(plans: Iterator[ScenePlan] | Sequence[ScenePlan],
           camera: TableCamera) -> Iterator[tuple[np.ndarray, str]]:
    """Render each plan for its number of frames (fresh noise every frame)."""
    for p in plans:
        for _ in range(p.frames):
            yield camera.render(p.scene), p.note


def learning_scenes(players: int, seat: int = 0) -> Iterator[Scene]:
    """The learning pass at the table: the sorted deck put down in one zone, card by card."""
    for c in Card.all():
        s = Scene.empty(players)
        s.zones[seat] = Placed(c)
        yield s
