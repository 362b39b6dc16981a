"""Real photographs of real decks, as a bench condition: learn each deck from 52 of them, read the rest.

A corpus is a folder with one sub-folder per deck::

    PHOTOS/
      my-deck/            # a deck: any name
        AS.jpg            # the card is the first token of the file name:
        AS-2.jpg          #   rank and suit either way round, T or 10 (AS, SA, 10h, hT_3)
        qh_webcam.png
        ...
      another-deck/ ...

Each photo is shown as the gate's camera would show its card
(:func:`gate_view`): a portrait photo turned to landscape, fitted into the
gate's 640×480 frame (scaled down to fit, the rest filled by repeating the
photo's own edge, so the floor model sees the photo's own floor), and, when the
card is found there only too small or too large to read, brought to the gate's
scale from the photo's own pixels. For each deck, the first photo of each of the
52 cards (in name order) that the locator finds as one card is the learning
pass, shown in bridge order; when the learner refuses the pass naming one of
its frames, that card is shown again (its next such photo), as an operator
would, up to ``MAX_RESHOWN`` times (:attr:`DeckResult.reshown` says which and
why). Every other photo is read with the learned design and counted as
accepted right, accepted **wrong**, or rejected (by reason). A deck missing a
card, or whose pass is refused, is reported as not learned, with the reason.
Files whose name does not start with a card are listed as skipped, never
guessed.

>>> card_of_name("10h_webcam-3.jpg"), card_of_name("SA.png"), card_of_name("back.jpg")
(Card('HT'), Card('SA'), None)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from dealer.cards import Card, CardError
from vision.decision import Reject
from vision.index import IndexReader
from vision.learn import LearnedDesign, LearnError, bridge_order, learn
from vision.locate import Located, locate
from vision.sources import IMAGE_SUFFIXES

FRAME_W, FRAME_H = 640, 480
MAX_RESHOWN = 20  # cards of the learning pass shown again (the learner named their frame)


def card_of_name(name: str) -> Card | None:
    """The card a photo's file name starts with (``AS``, ``SA``, ``10h``, ``hT``), or ``None``."""
    token = re.split(r"[^0-9A-Za-z♠♥♦♣]", Path(name).stem, maxsplit=1)[0]
    try:
        return Card.parse(token)
    except CardError:
        return None


def fit_frame(photo: np.ndarray) -> np.ndarray:
    """The photo scaled (down only) to fit 640×480, the rest filled by repeating its edge."""
    return _fitted(photo)[0]


def _fitted(photo: np.ndarray) -> tuple[np.ndarray, float, int, int]:
    """:func:`fit_frame`, and its scale and the photo's offset (left, top) in the frame."""
    h, w = photo.shape[:2]
    s = min(FRAME_W / w, FRAME_H / h, 1.0)
    if s < 1.0:
        photo = cv2.resize(photo, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    h, w = photo.shape[:2]
    top, left = (FRAME_H - h) // 2, (FRAME_W - w) // 2
    frame = cv2.copyMakeBorder(photo, top, FRAME_H - h - top, left, FRAME_W - w - left, cv2.BORDER_REPLICATE)
    return frame, s, left, top


def gate_view(photo: np.ndarray) -> np.ndarray:
    """The photo as the gate's camera would show its card: level-ish, at the gate's scale.

    The gate's camera sees every card at one scale, the long side level; a
    photograph is taken from any distance, either way up. So, as an operator
    would bring a card to the camera:

    1. a portrait photo is turned a quarter (the gate's frame is 4:3 landscape,
       and filling a portrait photo's sides by repeating its edge draws streaks
       that look like more cards);
    2. it is fitted into 640×480 (:func:`fit_frame`);
    3. when the locator finds one card-shaped outline there, only too small or
       too large to read (a phone photo of a card on a table, from a standing
       height), the card is brought to the gate's scale (:data:`CARD_AREA`)
       and laid level from the photo's own pixels, at most
       :data:`MAX_ENLARGE` times their size; past the photo, its edge is
       repeated.

    Whatever the locator says of the result is the reader's to say again: this
    only chooses what the camera shows.
    """
    h, w = photo.shape[:2]
    if h > w:
        photo = cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE)
    frame, s, left, top = _fitted(photo)
    found = locate(frame)
    if isinstance(found, Located) or "outline" not in found.evidence:
        return frame
    quad = (np.asarray(found.evidence["outline"], np.float64) - (left, top)) / s  # photo pixels
    return _card_to_gate(photo, quad)


#: The card's area in a gate view of a photo (px of 640×480): about a gate card's, and the
#: real-photograph corpus's (bench/photos_fetch.py).
CARD_AREA = 95_000
MAX_CARD = 180_000  # brought closer, up to this, rather than show the photo's edge repeated
MAX_ENLARGE = 2.5


def _card_to_gate(photo: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The 640×480 frame with the card whose outline is ``quad`` (photo pixels) at its
    centre, long side level, covering :data:`CARD_AREA`: brought closer, up to
    :data:`MAX_CARD`, while the frame would reach past the photo (the photo's own floor
    is better than its edge repeated, whose streaks look like more cards); enlarged
    :data:`MAX_ENLARGE` times at most."""
    area = float(cv2.contourArea(quad.astype(np.float32)))
    sides = np.roll(quad, -1, axis=0) - quad
    long_side = sides[int(np.argmax(np.hypot(sides[:, 0], sides[:, 1])))]
    angle = float(np.degrees(np.arctan2(long_side[1], long_side[0])))
    cx, cy = quad.mean(axis=0)
    h, w = photo.shape[:2]

    def view(scale: float) -> np.ndarray:
        m = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, scale)
        m[:, 2] += (FRAME_W / 2 - cx, FRAME_H / 2 - cy)
        return m

    def reaches_past(m: np.ndarray) -> bool:
        corners = np.array([[0, 0, 1], [FRAME_W, 0, 1], [FRAME_W, FRAME_H, 1], [0, FRAME_H, 1]], float)
        back = corners @ cv2.invertAffineTransform(m).T
        return bool(((back < -1) | (back > (w + 1, h + 1))).any())

    most = min(float(np.sqrt(MAX_CARD / max(area, 1.0))), MAX_ENLARGE)
    scale = min(float(np.sqrt(CARD_AREA / max(area, 1.0))), most)
    while scale * 1.05 <= most and reaches_past(view(scale)):
        scale *= 1.05
    if scale < 1.0:  # shrink with area averaging first, then turn: no aliasing
        photo = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cx, cy, area, scale = cx * scale, cy * scale, area * scale * scale, 1.0
    return cv2.warpAffine(photo, view(scale), (FRAME_W, FRAME_H),
                          flags=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


@dataclass
class DeckResult:
    """One deck's figures: what was read right, wrong, or rejected, and why."""

    name: str
    photos: int = 0
    learned: bool = False
    not_learned: str = ""
    order: str = ""
    right: int = 0
    wrong: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    courts: list[int] = field(default_factory=lambda: [0, 0])  # photos, accepted right
    numbers: list[int] = field(default_factory=lambda: [0, 0])
    skipped: list[str] = field(default_factory=list)
    wrong_examples: list[str] = field(default_factory=list)
    reshown: list[str] = field(default_factory=list)  # cards of the pass shown again, and why

    @property
    def tested(self) -> int:
        return self.right + self.wrong + sum(self.rejected.values())

    def as_dict(self) -> dict[str, object]:
        return {"photos": self.photos, "learned": self.learned, "not_learned": self.not_learned,
                "order": self.order, "tested": self.tested, "accepted_right": self.right,
                "accepted_wrong": self.wrong, "rejected": dict(self.rejected),
                "accepted_pct": round(100 * (self.right + self.wrong) / max(1, self.tested), 2),
                "courts": self.courts, "numbers": self.numbers, "skipped": self.skipped,
                "wrong_examples": self.wrong_examples, "reshown": self.reshown}


def _read(path: Path, view: Callable[[np.ndarray], np.ndarray] = gate_view) -> np.ndarray | None:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return None if img is None else view(img)


def _by_card(folder: Path, res: DeckResult) -> dict[Card, list[Path]]:
    """The deck's photos by the card their name starts with (the others listed as skipped)."""
    by_card: dict[Card, list[Path]] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        card = card_of_name(p.name)
        if card is None:
            res.skipped.append(p.name)
            continue
        by_card.setdefault(card, []).append(p)
        res.photos += 1
    return by_card


def _learning_pass(folder: Path, by_card: dict[Card, list[Path]], res: DeckResult,
                   view: Callable[[np.ndarray], np.ndarray]) -> tuple[LearnedDesign, set[str]] | None:
    """The design learned from one photo of each card, and those photos' names; or ``None``,
    with the reason in ``res.not_learned``."""
    missing = [c for c in bridge_order() if c not in by_card]
    if missing:
        res.not_learned = (f"no photo of {len(missing)} card(s) ({', '.join(str(c) for c in missing[:6])}"
                           f"{'…' if len(missing) > 6 else ''}): a learning pass needs all 52")
        return None
    # As at the gate: a card the camera could not find as one card is shown again, so
    # the pass takes the first photo of each card (in name order) that the locator finds
    # as one card; and when the learner names a frame of the pass it cannot use (its
    # index not split in two, or its suit unlike its run's), that card is shown again:
    # its next such photo. The rest are read.
    tried: dict[Card, int] = {}

    def next_photo(c: Card) -> tuple[Path, np.ndarray] | None:
        while tried.get(c, 0) < len(by_card[c]):
            p = by_card[c][tried.get(c, 0)]
            tried[c] = tried.get(c, 0) + 1
            img = _read(p, view)
            if img is not None and isinstance(locate(img), Located):
                return p, img
        return None

    chosen: dict[Card, tuple[Path, np.ndarray]] = {}
    for c in bridge_order():
        first = next_photo(c)
        if first is None:
            res.not_learned = (f"no photo of {c} shows one card the locator finds "
                               f"({len(by_card[c])} tried)")
            return None
        chosen[c] = first
    for _ in range(MAX_RESHOWN + 1):
        try:
            design = learn(folder.name, [(p.name, img) for p, img in chosen.values()], source=str(folder))
            return design, {p.name for p, _ in chosen.values()}
        except LearnError as e:
            named = re.search(r"frame (\S+\.\w+)", str(e))
            card = next((c for c, (p, _) in chosen.items() if named and p.name == named.group(1)), None)
            again = next_photo(card) if card is not None else None
            if card is None or again is None:
                res.not_learned = str(e)
                return None
            res.reshown.append(f"{card}: {chosen[card][0].name} -> {again[0].name} ({str(e)[:200]})")
            chosen[card] = again
    res.not_learned = f"still refused after {MAX_RESHOWN} cards shown again: {res.reshown[-1]}"
    return None


def bench_deck(folder: Path, view: Callable[[np.ndarray], np.ndarray] = gate_view) -> DeckResult:
    """Learn one deck from 52 of its photos and read all the others.

    ``view``: how a photo is shown to the gate (:func:`gate_view`, or :func:`fit_frame`
    to see what that step does).
    """
    res = DeckResult(folder.name)
    by_card = _by_card(folder, res)
    learned = _learning_pass(folder, by_card, res, view)
    if learned is None:
        return res
    design, taught = learned
    res.learned, res.order = True, design.order
    reader = IndexReader(design)
    for card, paths in by_card.items():
        court = 11 <= int(card.rank) <= 13
        tally = res.courts if court else res.numbers
        for p in paths:
            if p.name in taught:
                continue
            img = _read(p, view)
            if img is None:
                res.rejected["unreadable image"] += 1
                continue
            out = reader.read(img)
            tally[0] += 1
            if isinstance(out, Reject):
                res.rejected[out.reason.value] += 1
            elif out.card == card:
                res.right += 1
                tally[1] += 1
            else:
                res.wrong += 1
                res.wrong_examples.append(f"{p.name} read as {out.label}")
    return res


def bench_photos(root: str | Path) -> dict[str, DeckResult]:
    """Every deck folder under ``root``, in name order."""
    root = Path(root)
    return {d.name: bench_deck(d) for d in sorted(root.iterdir()) if d.is_dir()}
