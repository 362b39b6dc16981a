"""Read a card from a camera that sees one corner of it: a dealing machine's feeder.

Some dealing machines' cameras never see the whole card: a feeder's camera sees
the card's top-left corner index (rank above suit), part of its face, and the
machine round it. PlayBridge's Dealer4 reads the corner index so; so does the
feeder camera of zpigula/pp_2021 (docs/vision.md, "A feeder camera that sees one
corner"), whose frames this was built and measured on: 224×224 px, the card's
top-left corner in view, the dark feeder floor to its left, the feeder's lip above
it and a metal post to its right.

Per frame:

1. **The card's corner** (:func:`find_corner`): the card's left edge is the
   strongest dark-to-light step across the lower half of the frame (the floor,
   then the card's paper; the median step over those rows, so a glyph or the post
   does not count); the top of the card's paper in view is where the index column
   beside that edge (most of each row: the glyphs cover less than half), followed
   up from the frame's bottom, first turns darker than the paper by a third of the
   paper/floor gap (the card's top edge, or the shadow under the feeder's lip).
   No such edge, or too little paper: ``no card found``.
2. **The index region**: from just inside that edge and below that top,
   :data:`CORNER_W` px wide, down to the frame's bottom, at the frame's own scale
   (the camera is fixed: in 651 of the 653 corpus frames whose index splits in
   two, the rank is 64-67 px tall).
3. **The glyphs**: :func:`vision.glyphs.roi_glyphs`, as for a whole card's corner.
   An index that does not split in two whose suit runs past the frame's bottom
   edge (ink reaching that edge under the rank, or no room there for the learned
   suit) is ``index cut off``: the card not yet far enough in.
4. **The read**: :meth:`vision.index.IndexReader.read_corner`, the first corner's
   checks against the learned design (sharpness, glyph sizes and shapes, rank
   ≥ 0.90 and suit ≥ 0.93, margins 0.5 over every other rank and over the other
   suit of the same colour, the ink's colour). There is no second corner to
   corroborate, so a corner that falls short of any check is a
   :class:`~vision.decision.Reject`; the looser corroborating fit and the search of
   :mod:`vision.corroborate` are never used.

Learning (:func:`learn_corners`) takes one frame of each card, of cards named by
the caller (a sorted pass in bridge order): a corner shows no pips, so the pass's
rank order cannot be inferred as :func:`vision.learn.learn` infers a whole card's;
what can be checked is, and a frame that fails names itself (the card is shown
again, its next frame: :func:`learning_pass`).

>>> find_corner(np.zeros((224, 224, 3), np.uint8)).reason.value
'no card found'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealer.cards import Card, Suit
from vision.decision import Outcome, Read, Reason, Reject
from vision.glyphs import Glyphs, ink_of, roi_glyphs
from vision.index import IndexReader, Thresholds
from vision.learn import LearnedDesign, LearnError, bridge_order, glyph_statistics

#: Width (px, at the frame's scale) of the region cut for the index, from the card's
#: left edge: the feeder's index column ("10" 24 px wide, 9-30 px in from the edge)
#: with room, not the big pips of the face beside it.
CORNER_W = 70
#: Least paper-to-floor step (grey levels) at the card's left edge.
MIN_EDGE_STEP = 20.0
MIN_PAPER_GAP = 40.0
#: A floor this light (grey) that the paper does not stand out from is a light floor
#: (the feeder washed out by light), not an empty feeder.
LIGHT_FLOOR = 140.0
#: Least paper height in view (px) below the card's top: a rank and a suit fit in 120.
MIN_PAPER_H = 90
MAX_RESHOWN = 20


@dataclass(frozen=True)
class Corner:
    """Where the card lies in the frame: its left edge (x) and the top of its paper in view (y)."""

    x: int
    y: int
    floor: float  # the floor's grey level left of the edge
    paper: float  # the paper's just inside it

    def region(self, frame: np.ndarray, width: int = CORNER_W) -> np.ndarray:
        """The index region: just inside the edge and below the top, ``width`` wide, to the bottom."""
        return frame[self.y + 3 :, self.x + 3 : self.x + 3 + width]


def find_corner(frame: np.ndarray) -> Corner | Reject:
    """The card's left edge and the top of its paper in view, in an upright BGR frame; or why not."""
    g = cv2.GaussianBlur(frame.min(axis=2), (5, 5), 0).astype(np.float32)
    h, w = g.shape
    low = g[h // 2 :]
    gx = low[:, 2:] - low[:, :-2]  # the step over 2 px: + from darker (left) to lighter
    prof = np.median(gx, axis=0)
    reach = int(0.8 * w)  # the card's edge is left of the post; past it lies the post
    x = int(np.argmax(prof[:reach])) + 1
    step = float(prof[x - 1])
    if step < MIN_EDGE_STEP or x < 6 or x + 12 >= w:
        return Reject(Reason.NO_CARD, f"no card's edge against the floor (steepest step {step:.0f} "
                      f"grey levels, at least {MIN_EDGE_STEP:.0f} needed)")
    floor = float(np.median(low[:, max(0, x - 25) : x - 4]))
    paper = float(np.median(low[:, x + 3 : x + 9]))
    if paper - floor < MIN_PAPER_GAP:
        if floor >= LIGHT_FLOOR:  # (the card is there, its edge lost: say so, not "no card")
            return Reject(Reason.BACKGROUND_LIGHT, f"the floor is as light as the card's paper, or "
                          f"lighter (floor {floor:.0f}, paper {paper:.0f}): the card cannot be told "
                          "from it")
        return Reject(Reason.NO_CARD, f"no paper against the floor (paper {paper:.0f}, floor {floor:.0f})")
    # Mostly paper in each row of the card's index column (its glyphs cover less than
    # half): not just inside the edge, where a rounded corner shows the floor.
    strip = np.percentile(g[:, x + 3 : x + 36], 75, axis=1)
    below = np.nonzero(strip < paper - (paper - floor) / 3)[0]
    top = int(below.max()) + 1 if len(below) else 0
    if h - top < MIN_PAPER_H:
        return Reject(Reason.NO_CARD, f"only {h - top} px of the card's paper in view "
                      f"(at least {MIN_PAPER_H} needed for its index)")
    return Corner(x, top, floor, paper)


def _frame(frame: object) -> np.ndarray | Reject:
    """A usable BGR frame, or why not (never an exception: a garbled frame is a reject)."""
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        return Reject(Reason.NO_CARD, "an empty frame, or none (the image could not be decoded)")
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] not in (1, 3, 4)):
        return Reject(Reason.NO_CARD, f"not a picture: an array of {frame.dtype} shaped {frame.shape}")
    if min(frame.shape[:2]) < MIN_PAPER_H + 8:
        return Reject(Reason.NO_CARD, f"a frame of {frame.shape[1]}×{frame.shape[0]} px is too small to hold an index")
    if frame.ndim == 2 or frame.shape[2] == 1:  # a monochrome camera
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


def corner_glyphs_in(frame: np.ndarray) -> tuple[Corner, np.ndarray, Glyphs] | Reject:
    """The card's corner, its index region and the index's glyphs (rank and suit, or one shape)."""
    f = _frame(frame)
    if isinstance(f, Reject):
        return f
    found = find_corner(f)
    if isinstance(found, Reject):
        return found
    roi = found.region(f)
    g = roi_glyphs(roi)
    if isinstance(g, Reject):
        return Reject(g.reason, f"at the card's corner: {g.detail}")
    return found, roi, g


class CornerReader:
    """Reads one corner's index against a design learned from such frames (:func:`learn_corners`)."""

    method = "corner"

    def __init__(self, design: LearnedDesign, thresholds: Thresholds | None = None) -> None:
        self.design = design
        self.t = thresholds or Thresholds()
        self._index = IndexReader(design, self.t)

    def read(self, frame: np.ndarray) -> Outcome:
        got = corner_glyphs_in(frame)
        if isinstance(got, Reject):
            return got
        corner, roi, g = got
        d = self.design
        if g.single is not None and (cut := self._cut_off(g, roi)) is not None:
            return cut
        r = self._index.read_corner(g, roi)
        if isinstance(r, Reject):
            return r
        return Read(r.card, self.method, {
            "design": d.name, "rank_score": round(r.rank_score, 3), "suit_score": round(r.suit_score, 3),
            "corners": 1, "edge": [corner.x, corner.y]})

    def _cut_off(self, g: Glyphs, roi: np.ndarray) -> Reject | None:
        """``index cut off`` when the index is one shape (no suit split off below the rank)
        and the suit below it runs past the frame's bottom edge: ink reaching that edge
        under the index (:func:`~vision.glyphs.roi_glyphs` leaves out shapes that touch
        the border), or no room there for the learned suit. The card not yet far enough in."""
        d, t = self.design, self.t
        x, y, w, h = g.rank_box
        room = roi.shape[0] - y - h
        _, mask = cv2.threshold(ink_of(roi), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        if mask[-2:, max(0, x - 3) : x + min(w, int(d.rank_height.max())) + 3].any():
            return Reject(Reason.CUT_OFF, "the suit under the rank runs past the frame's bottom edge")
        if room < (1 - t.size_tol) * min(d.suit_height_of(s) for s in range(4)):
            return Reject(Reason.CUT_OFF, f"the index ends {room} px above the frame's bottom edge: "
                          "no room for the suit below it")
        return None


# ---------------------------------------------------------------------------- learning
def learn_corners(name: str, frames: Iterable[tuple[str, np.ndarray | None]],
                  cards: Iterable[Card] | None = None, *, source: str = "") -> LearnedDesign:
    """A design from one frame of each card, the cards named by ``cards`` (bridge order by default).

    Each frame's index must split into a rank and a suit, and be consistent with the
    others: its suit glyph nearest the mean of the other frames of its suit, its rank
    glyph nearest the mean of the other frames of its rank, its ink on its suit's side
    of the red/black split. A frame that is not raises :class:`LearnError` naming it
    (show that card again). One corner a card: each rank template is the mean of 4
    glyphs, each suit template of 13.
    """
    order = list(cards) if cards is not None else bridge_order()
    if sorted(order) != sorted(Card.all()):
        raise LearnError("a corner learning pass names each of the 52 cards once")
    seen: list[tuple[str, Card, Glyphs]] = []
    heights = []  # of the index regions
    it = iter(frames)
    for k, card in enumerate(order):
        got_frame = next(it, None)
        if got_frame is None:
            raise LearnError(f"the learning pass ended after {k} frames; it needs one of each of the 52 cards")
        frame_name, frame = got_frame
        got = corner_glyphs_in(frame) if frame is not None else Reject(Reason.NO_CARD, "the image could not be decoded")
        if isinstance(got, Reject):
            raise LearnError(f"frame {frame_name} ({card}, card {k + 1} of the pass): {got.reason.value}: {got.detail}")
        g = got[2]
        if g.single is not None:
            raise LearnError(f"frame {frame_name} ({card}, card {k + 1} of the pass): rank and suit "
                             "could not be told apart (is the whole index in view?)")
        seen.append((frame_name, card, g))
        heights.append(got[1].shape[0])
    _check_pass(seen)
    return _design(name, seen, source, (CORNER_W, int(np.median(heights))))


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean(axis=-1, keepdims=True)
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.asarray(v / np.maximum(n, 1e-9))


def _check_pass(seen: list[tuple[str, Card, Glyphs]]) -> None:
    """Each frame against the others of its suit and of its rank; :class:`LearnError` naming the first that fails."""
    suits = np.array([int(c.suit) for _, c, _ in seen])
    ranks = np.array([int(c.rank) - 2 for _, c, _ in seen])
    sv = np.stack([g.suit.ravel() for _, _, g in seen])
    rv = np.stack([g.rank.ravel() for _, _, g in seen])
    red = np.array([g.redness for _, _, g in seen])
    is_red = np.array([c.suit.is_red for _, c, _ in seen])
    if red[is_red].mean() <= red[~is_red].mean():
        raise LearnError("the red suits' ink is no redder than the black suits': are the cards named right?")
    split = (red[is_red].mean() + red[~is_red].mean()) / 2
    for i, (frame_name, card, _) in enumerate(seen):
        others = np.arange(len(seen)) != i
        s_means = _unit(np.stack([sv[others & (suits == s)].mean(0) for s in range(4)]))
        r_means = _unit(np.stack([rv[others & (ranks == r)].mean(0) for r in range(13)]))
        where = f"frame {frame_name} ({card})"
        if int(np.argmax(s_means @ sv[i])) != int(card.suit):
            other = Suit(int(np.argmax(s_means @ sv[i])))
            raise LearnError(f"{where}: its suit glyph is nearer the other frames' {other.symbol} than their "
                             f"{card.suit.symbol}")
        if int(np.argmax(r_means @ rv[i])) != int(card.rank) - 2:
            raise LearnError(f"{where}: its rank glyph is nearer another rank's frames than its own")
        if (red[i] > split) != card.suit.is_red:
            raise LearnError(f"{where}: its ink is on the {'red' if red[i] > split else 'black'} side "
                             "of the split")


def _design(name: str, seen: list[tuple[str, Card, Glyphs]], source: str,
            roi: tuple[int, int]) -> LearnedDesign:
    by_rank = [[g for _, c, g in seen if int(c.rank) == r] for r in range(2, 15)]
    by_suit = [[g for _, c, g in seen if c.suit == s] for s in Suit]
    red = [g.redness for _, c, g in seen if c.suit.is_red]
    black = [g.redness for _, c, g in seen if not c.suit.is_red]
    return LearnedDesign(
        name=name,
        **glyph_statistics(by_rank, by_suit),
        red_split=float((np.mean(red) + np.mean(black)) / 2),
        red_gap=float(np.mean(red) - np.mean(black)),
        sharpness=float(np.median([g.sharpness for _, _, g in seen])),
        source=source,
        order="one corner of each card, named by the pass (bridge order); not inferred",
        roi=roi,  # (w, median h) of the index regions; the reader cuts its own
    )


# ------------------------------------------------------------------ a corpus of frames
@dataclass
class Pass:
    """A learned design, the frames it was learned from, and the cards shown again (and why)."""

    design: LearnedDesign
    taught: set[str]
    reshown: list[str] = field(default_factory=list)


def learning_pass(name: str, by_card: dict[Card, list[Path]],
                  load: Callable[[Path], np.ndarray | None] | None = None,
                  max_reshown: int = MAX_RESHOWN) -> Pass:
    """Learn from the first frame of each card (in name order), in bridge order; when the
    learner names a frame it cannot use, that card is shown again (its next frame), up to
    ``max_reshown`` times. :class:`LearnError` when a card has no usable frame left."""
    read = load or (lambda p: cv2.imread(str(p), cv2.IMREAD_COLOR))
    missing = [c for c in bridge_order() if c not in by_card]
    if missing:
        raise LearnError(f"no frame of {len(missing)} card(s) ({', '.join(map(str, missing[:6]))}): "
                         "a learning pass needs all 52")
    tried = dict.fromkeys(by_card, 0)

    def next_frame(c: Card) -> tuple[Path, np.ndarray | None] | None:
        if tried[c] >= len(by_card[c]):
            return None
        p = by_card[c][tried[c]]
        tried[c] += 1
        return p, read(p)

    chosen: dict[Card, tuple[Path, np.ndarray | None]] = {}
    for c in bridge_order():
        first = next_frame(c)
        assert first is not None
        chosen[c] = first
    reshown: list[str] = []
    while True:
        try:
            design = learn_corners(name, [(p.name, img) for p, img in chosen.values()], source=name)
            return Pass(design, {p.name for p, _ in chosen.values()}, reshown)
        except LearnError as e:
            card = next((c for c, (p, _) in chosen.items() if f"frame {p.name} " in str(e)), None)
            if card is None or len(reshown) >= max_reshown:
                raise
            again = next_frame(card)
            if again is None:
                raise LearnError(f"{e} (and {card} has no other frame)") from None
            reshown.append(f"{card}: {chosen[card][0].name} -> {again[0].name} ({str(e)[:160]})")
            chosen[card] = again


def bench_folder(folder: Path, start: int = 0) -> dict[str, Any]:
    """Learn a feeder's deck from one frame of each card and read all its other frames
    (``<CARD>-<name>.jpg``; ``NONE-<name>.jpg`` frames with no card must all be refused):
    the same figures as :meth:`vision.photos.DeckResult.as_dict`, with the no-card frames'
    outcomes and CPU time per read. ``start``: learn from each card's (K+1)-th frame."""
    import time
    from collections import Counter

    from vision.photos import DeckResult, card_of_name

    by_card: dict[Card, list[Path]] = {}
    none: list[Path] = []
    for p in sorted(folder.glob("*.jpg")):
        card = card_of_name(p.name)
        if card is not None:
            by_card.setdefault(card, []).append(p)
        elif p.name.startswith("NONE-"):
            none.append(p)
    by_card = {c: ps[start % len(ps):] + ps[: start % len(ps)] for c, ps in by_card.items()}
    res = DeckResult(folder.name, photos=sum(len(ps) for ps in by_card.values()) + len(none))
    try:
        learned = learning_pass(folder.name, by_card)
    except LearnError as e:
        res.not_learned = str(e)
        return res.as_dict()
    res.learned, res.order, res.reshown = True, learned.design.order, learned.reshown
    reader = CornerReader(learned.design)
    cpu: list[float] = []

    def timed(p: Path) -> Outcome:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            return Reject(Reason.NO_CARD, f"{p.name}: the image could not be decoded")
        c0 = time.process_time()
        got = reader.read(img)
        cpu.append(time.process_time() - c0)
        return got

    for card, paths in by_card.items():
        for p in paths:
            if p.name not in learned.taught:
                res.count(card, timed(p), p.name)
    none_out: Counter[str] = Counter()
    for p in none:
        got = timed(p)
        none_out[got.reason.value if isinstance(got, Reject) else f"READ AS {got.label}"] += 1
    ms = np.array(cpu) * 1000
    return {**res.as_dict(), "rejected": dict(res.rejected.most_common()),
            "wrong_examples": res.wrong_examples[:10], "learning_frames": len(learned.taught),
            "no_card_frames": len(none), "no_card_outcomes": dict(none_out),
            "cpu_p50_ms": round(float(np.percentile(ms, 50)), 2) if len(ms) else 0.0,
            "cpu_p99_ms": round(float(np.percentile(ms, 99)), 2) if len(ms) else 0.0}
