"""Learn a deck design from one pass of a sorted deck past the camera.

Feed the 52 cards sorted the way a person sorts them: the four suits one
after another, 13 cards each, in any suit order (bridge order ♠♥♦♣, or
boardwright's ♣♦♥♠, ...), every suit with its ranks in the same order: A..2,
2..A, A 2..K or K..2 A. Then the jokers, then (optionally) one frame of the
back. Nothing in the pass is labelled, so the order is *inferred from the
cards themselves* and stated (:attr:`LearnedDesign.order`):

- the runs of 13: every card's suit glyph matches the rest of its run;
- the colours: two runs in red ink, two in black (told by the frames that
  hold colour: grey photos among them are left out of this step);
- which red run is ♥ and which ♦ (and ♠/♣): the suit glyph against generic
  suit shapes. A pass with no colour at all (a monochrome camera) is told by
  the shapes alone, when one way of giving the runs their suits fits them
  clearly best; the design then reads by shape alone;
- the places within a run: each card's rank glyph matches the same place in
  the other three runs (so one card out of place is caught);
- the rank order: the pips in the middle count the number cards (an ace has
  one), and the "10", the only two-character index, sits where that order
  puts it.

A pass whose order cannot be established this way is refused with a message
naming the frame or the place; it is never learned under a guessed order.
The caller then checks three named cards (:data:`CHECK_CARDS`) before saving
(see :func:`vision.index.check_cards` and ``boardwright vision learn``).

For each card the two corner indices are cut out; a rank template is the
mean of the 8 glyphs of that rank, a suit template the mean of its 26. The
design also keeps how big and where the glyphs were, the red/black split of
ink colour, how sharp the learning frames were and, when shown, the back, so
a frame from a deck that was never learned fails these fit checks instead of
matching the nearest template.

>>> from vision.render import render_card_frame
>>> from dealer.cards import Card
>>> frames = [(f"{c}", render_card_frame(c, design="standard", seed=int(c))) for c in Card.all()]
>>> d = learn("standard", frames)
>>> d.rank_templates.shape, d.suit_templates.shape
((13, 768), (4, 1024))
>>> d.order
'suits ♣ ♦ ♥ ♠, ranks 2..A (boardwright order)'
>>> d = learn("bridge", [(f"{c}", render_card_frame(c, seed=int(c))) for c in bridge_order()])
>>> d.order
'suits ♠ ♥ ♦ ♣, ranks A..2 (bridge order)'

"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from dealer.cards import Card, Rank, Suit
from dealer.errors import BoardwrightError
from vision import court_frame, placement
from vision.decision import Reject
from vision.glyphs import (
    ROI_H,
    ROI_W,
    SUIT_SIZE,
    Glyphs,
    colourless,
    corner_glyphs,
    glyph_vector,
    pip_count,
)
from vision.locate import Located, locate

#: 2: glyphs as paper 0 to ink 1, softened (issue 15); a design of format 1 holds
#: templates of the older glyphs, which the reader no longer makes.
FORMAT_VERSION = 2
#: The corners (w, h) tried for the index, smallest first: a 300×420 face's usual
#: index fits the first; a design learns the first that fits all 52 cards.
ROI_SIZES = ((ROI_W, ROI_H), (128, 190), (160, 230))


class LearnError(BoardwrightError):
    """The learning pass could not be used (names the frame and the card)."""


@dataclass
class LearnedDesign:
    """Templates and fit statistics of one deck design."""

    name: str
    rank_templates: np.ndarray  # (13, 32*24), ranks 2..A
    suit_templates: np.ndarray  # (4, 32*32), clubs..spades
    rank_height: np.ndarray  # (13,) mean box height
    rank_aspect: np.ndarray  # (13,) mean box w/h
    suit_height: float
    suit_aspect: np.ndarray  # (4,)
    red_split: float  # redness above this is red ink
    red_gap: float  # distance between the red and black ink means; 0: learned without colour
    sharpness: float  # median sharpness of the learning frames
    joker_template: np.ndarray | None = None
    source: str = ""
    order: str = ""  # the order the learning pass was found in, as stated to the operator
    back_template: np.ndarray | None = None  # (BACK_SIZE) unit vector of the card back
    roi: tuple[int, int] = (ROI_W, ROI_H)  # (w, h) of the corner that holds the index
    # (4,) mean box height per suit, clubs..spades: a deck's ♦ can be smaller than
    # its other suits (Tigullio's, by a sixth). None in designs saved before.
    suit_heights: np.ndarray | None = None
    # (4,) where the index lies in its corner of the 300×420 face: the rank's centre (x, y)
    # and the suit's (x, y), medians over the pass. None in designs saved before; a
    # photograph's card is then not sought from its indices (vision.photo_cards).
    index_centres: np.ndarray | None = None
    # (13, 3) for each rank 2..A: the two corners' rank boxes' top edges summed, and their
    # bottom edges, each from its end of the card, and how far apart the two boxes lie
    # (vision.placement.learned_places), medians over the pass.
    # A card stuck under the card lengthens the outline and moves both further in. None in
    # designs saved before, and in designs learned from photographs: not checked then.
    rank_places: np.ndarray | None = None
    # (4, 2) the corners of the courts' picture frame in the face (top-left first,
    # clockwise), when most courts of the pass print one (vision.court_frame): where a
    # photograph's card is sought when its own edge is lost. None: no frame, or saved before.
    picture_frame: np.ndarray | None = None

    def suit_height_of(self, suit: int) -> float:
        """The learned height of one suit's symbol (the mean over all suits for older designs)."""
        return float(self.suit_heights[suit]) if self.suit_heights is not None else self.suit_height

    def ink(self, redness: float) -> float:
        """How red a glyph's ink is, in units of the gap between the learned red and black
        inks from their split (> 0 red, < 0 black); 0 for a design learned from a pass
        with no ink colour (a monochrome camera), whose readers weigh shapes alone."""
        return (redness - self.red_split) / self.red_gap if self.red_gap > 0 else 0.0

    # ----------------------------------------------------------------- storage
    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT_VERSION, "name": self.name, "source": self.source,
                "suit_height": self.suit_height, "red_split": self.red_split,
                "red_gap": self.red_gap, "sharpness": self.sharpness, "order": self.order,
                "roi": list(self.roi)}
        arrays = {"rank_templates": self.rank_templates, "suit_templates": self.suit_templates,
                  "rank_height": self.rank_height, "rank_aspect": self.rank_aspect,
                  "suit_aspect": self.suit_aspect}
        if self.suit_heights is not None:
            arrays["suit_heights"] = self.suit_heights
        if self.index_centres is not None:
            arrays["index_centres"] = self.index_centres
        if self.rank_places is not None:
            arrays["rank_places"] = self.rank_places
        if self.picture_frame is not None:
            arrays["picture_frame"] = self.picture_frame
        if self.joker_template is not None:
            arrays["joker_template"] = self.joker_template
        if self.back_template is not None:
            arrays["back_template"] = self.back_template
        with open(path, "wb") as fh:
            np.savez_compressed(fh, allow_pickle=False, meta=np.array(json.dumps(meta)), **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> LearnedDesign:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                arrays = {k: z[k] for k in z.files if k != "meta"}
        except FileNotFoundError:
            raise LearnError(f"{path}: no learned design there (run 'boardwright vision learn')") from None
        except EOFError:  # an empty file
            raise LearnError(f"{path}: not a learned deck design (the file is empty)") from None
        except ValueError as exc:
            if "pickle" in str(exc):  # numpy's "load it unsafely" is no advice to follow here
                raise LearnError(f"{path}: not a learned deck design (not a .npz file)") from None
            raise LearnError(f"{path}: not a learned deck design ({exc})") from None
        except (OSError, KeyError) as exc:
            raise LearnError(f"{path}: not a learned deck design ({exc})") from None
        if meta.get("format") == 1:
            raise LearnError(f"{path}: design learned by an earlier version of the reader, whose "
                             "glyphs this one no longer makes: learn the deck again (vision learn "
                             f"{meta.get('name', 'NAME')} --replace)")
        if meta.get("format") != FORMAT_VERSION:
            raise LearnError(f"{path}: design format {meta.get('format')} is not {FORMAT_VERSION}")
        return cls(name=meta["name"], source=meta.get("source", ""),
                   suit_height=meta["suit_height"], red_split=meta["red_split"],
                   red_gap=meta["red_gap"], sharpness=meta["sharpness"],
                   order=meta.get("order", ""), back_template=arrays.pop("back_template", None),
                   roi=tuple(meta.get("roi", (ROI_W, ROI_H))),
                   joker_template=arrays.pop("joker_template", None), **arrays)


def instance_dir() -> Path:
    """The instance folder: ``$BOARDWRIGHT_INSTANCE`` or ``./instance``."""
    return Path(os.environ.get("BOARDWRIGHT_INSTANCE", "instance"))


def design_path(name_or_path: str) -> Path:
    """A design name resolves inside the instance folder; a path is used as it is."""
    return _stored(name_or_path, ".npz", ".npz")


def layout_path(name_or_path: str) -> Path:
    """Where a barcoded deck's learned code layout (``vision learn-codes``,
    :class:`vision.code_layout.CodeLayout`) is kept: a name resolves inside the instance
    folder, beside the learned designs; a path is used as it is."""
    return _stored(name_or_path, ".json", ".codes.json")


def _stored(name_or_path: str, suffix: str, stored_as: str) -> Path:
    p = Path(name_or_path)
    if p.suffix == suffix or os.sep in name_or_path:
        return p
    return instance_dir() / "vision" / "designs" / f"{name_or_path}{stored_as}"


BACK_SIZE = (24, 32)  # (w, h) of the back's small picture
#: Shown after the pass, before the design is saved: three courts in three suits,
#: so a swap of two suits of one colour, or of two court ranks, cannot pass.
CHECK_CARDS: tuple[Card, ...] = (Card.parse("SJ"), Card.parse("HQ"), Card.parse("DK"))

# The rank orders a person sorts a suit in, by name: the rank at each of the 13 places.
_ACE = int(Rank.ACE)
RANK_ORDERS: dict[str, tuple[int, ...]] = {
    "2..A": tuple(range(2, 15)),
    "A..2": tuple(range(14, 1, -1)),
    "A 2..K": (_ACE, *range(2, 14)),
    "K..2 A": (*range(13, 1, -1), _ACE),
}


def bridge_order() -> list[Card]:
    """The 52 cards as bridge players sort them: ♠A..♠2, ♥A..♥2, ♦, ♣."""
    return [Card(s, Rank(r)) for s in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
            for r in RANK_ORDERS["A..2"]]


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean(axis=-1, keepdims=True)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def back_signature(face: np.ndarray | Located) -> np.ndarray:
    """A small, light-independent picture of a face, either end first (see :func:`is_back`).

    From a :class:`~vision.locate.Located` card the picture is warped straight
    from the frame at 4× its size and averaged down: the whole face is never
    warped for it (the index reader's time goes to the two corners).
    """
    if isinstance(face, Located):
        grey = face.grey_face(4 * BACK_SIZE[0], 4 * BACK_SIZE[1])
    else:
        grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    g = cv2.resize(grey, BACK_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
    g -= g.mean()
    return g / (float(np.linalg.norm(g)) + 1e-6)


def is_back(design: LearnedDesign, face: np.ndarray | Located, min_corr: float = 0.75) -> bool:
    """True when ``face`` (a face, or a located card) is the design's learned back (either end first)."""
    if design.back_template is None:
        return False
    sig = back_signature(face)
    turned = sig.reshape(BACK_SIZE[1], BACK_SIZE[0])[::-1, ::-1].ravel()
    return max(float(design.back_template @ sig), float(design.back_template @ turned)) >= min_corr


def _lobe_dip(suit: np.ndarray) -> float:
    """How deep the narrowing under a club's top lobe is, as a share of the symbol's width.

    Reading down a club, its width grows over the top lobe, narrows at the lobe's
    foot, then grows again over the side lobes; a spade only widens from its tip.
    """
    img = suit.reshape(SUIT_SIZE[1], SUIT_SIZE[0])
    width = (img > 0).sum(axis=1).astype(float)
    top = width[: int(0.65 * len(width))]
    best = 0.0
    for j in range(1, len(top) - 1):
        best = max(best, min(top[:j].max(), top[j:].max()) - top[j])
    return best / max(float(width.max()), 1.0)


def _generic_suits() -> np.ndarray:
    """(2 styles, 4 suits, 32*32): plain suit shapes, to tell ♥ from ♦ and ♠ from ♣."""
    from vision.render import suit_mask

    out = np.zeros((2, 4, SUIT_SIZE[0] * SUIT_SIZE[1]), np.float32)
    for k, style in enumerate(("classic", "slim")):
        for s in Suit:
            m = suit_mask(s, 64, style)
            ys, xs = np.nonzero(m > 60)
            out[k, int(s)] = glyph_vector(m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1], SUIT_SIZE).ravel()
    return out


@dataclass
class _Seen:
    name: str
    glyphs: tuple[Glyphs, Glyphs]
    pips: int
    grey: bool = False  # the frame holds no colour (a monochrome camera, a grey photo)

    def vec(self, part: str) -> np.ndarray:
        a, b = (getattr(g, part).ravel() for g in self.glyphs)
        return _unit(a + b)

    @property
    def redness(self) -> float:
        return (self.glyphs[0].redness + self.glyphs[1].redness) / 2


def _locate(frame_name: str, frame: np.ndarray | None, label: str) -> Located:
    if frame is None:  # a file the source could not decode (sources yield None for it)
        raise LearnError(f"frame {frame_name} ({label}): the image could not be decoded")
    if frame.ndim == 2:  # a monochrome camera's frame: the same picture in three channels
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    found = locate(frame)
    if isinstance(found, Reject):
        raise LearnError(f"frame {frame_name} ({label}): {found.reason.value}: {found.detail}")
    return found


def _frame_glyphs(frame_name: str, found: Located, label: str, single_ok: bool,
                  roi_size: tuple[int, int]) -> tuple[Glyphs, Glyphs]:
    """Both corners' glyphs, or (a card of the pass) one corner's twice when the other
    cannot be used: a real photo's corner in a shadow, or its rank run into its suit at
    the photo's resolution (issue 15, ninth pass). The card is the one its place in the
    pass says either way; one corner teaches its rank and suit as well as two, only from
    one sample. With neither corner usable the frame is refused, naming the corner."""
    both = (corner_glyphs(found.face, roi_size=roi_size),
            corner_glyphs(found.face, turned=True, roi_size=roi_size))
    why = []
    for corner, g in zip(("top-left", "bottom-right"), both, strict=True):
        if isinstance(g, Reject):
            why.append(f"frame {frame_name} ({label}), {corner} index: {g.detail or g.reason.value}")
        elif not single_ok and g.single is not None:
            why.append(f"frame {frame_name} ({label}), {corner} index: rank and suit could not be told apart")
        else:
            why.append("")
    if not any(why):
        return both[0], both[1]  # type: ignore[return-value]
    usable = [g for g, w in zip(both, why, strict=True) if not w]
    if single_ok or not usable:
        raise LearnError(next(w for w in why if w))
    return usable[0], usable[0]  # type: ignore[return-value]


def learn(name: str, frames: Iterable[tuple[str, np.ndarray | None]], *, jokers: int = 0,
          back: bool = False, source: str = "") -> LearnedDesign:
    """Build a design from one sorted pass: 52 cards, ``jokers`` jokers, then the back if ``back``.

    Exactly that many frames are taken from ``frames``; the rest of the
    iterator is left for the caller (the check cards). The order of the pass
    is inferred and stated in :attr:`LearnedDesign.order`; a pass whose
    order cannot be established raises :class:`LearnError`.
    """
    it: Iterator[tuple[str, np.ndarray | None]] = iter(frames)
    cards_seen = [(frame_name, _locate(frame_name, frame, f"card {k + 1} of the pass"))
                  for k, (frame_name, frame) in enumerate(itertools.islice(it, 52))]
    if len(cards_seen) < 52:
        raise LearnError(f"the learning pass has {len(cards_seen)} frames; a sorted deck needs 52"
                         + (f" and {jokers} joker(s)" if jokers else ""))
    # The corner that holds the index: the usual one, or a larger one for a deck
    # whose big index does not fit it (Nicu's), the same for every card of the pass.
    # A corner that cuts the suit off can still split into two shapes (the rank and
    # what is left of the suit), so the corner must also give a pass whose order can
    # be established (a real phone deck's index, issue 15).
    first_error: LearnError | None = None
    for roi_size in ROI_SIZES:
        try:
            seen = []
            for k, (frame_name, found) in enumerate(cards_seen):
                both = _frame_glyphs(frame_name, found, f"card {k + 1} of the pass", False, roi_size)
                seen.append(_Seen(frame_name, both, pip_count(found.face, both), colourless(found.face)))
            cards, order = infer_order(seen)
            break
        except LearnError as e:
            first_error = first_error or e
    else:
        assert first_error is not None
        raise first_error
    joker_glyphs: list[np.ndarray] = []
    for j, (frame_name, frame) in enumerate(itertools.islice(it, jokers)):
        a, b = _frame_glyphs(frame_name, _locate(frame_name, frame, f"joker {j + 1}"),
                             f"joker {j + 1}", True, roi_size)
        joker_glyphs += [g.single if g.single is not None else g.rank for g in (a, b)]
    if len(joker_glyphs) < 2 * jokers:
        raise LearnError(f"the learning pass ended after {len(joker_glyphs) // 2} of {jokers} jokers")
    back_template = None
    if back:
        got = next(it, None)
        if got is None:
            raise LearnError("the learning pass ended before the frame of the back")
        back_template = back_signature(_locate(got[0], got[1], "the back"))
    per_card: dict[Card, tuple[Glyphs, Glyphs]] = {c: s.glyphs for c, s in zip(cards, seen, strict=True)}
    ranks = [[g for c, gs in per_card.items() if int(c.rank) == r for g in gs] for r in range(2, 15)]
    suits = [[g for c, gs in per_card.items() if c.suit == s for g in gs] for s in Suit]
    # The inks' colours from the frames that hold colour; none: a design without colour.
    inked = [(c, s) for c, s in zip(cards, seen, strict=True) if not s.grey]
    red = [g.redness for c, s in inked if c.suit.is_red for g in s.glyphs]
    black = [g.redness for c, s in inked if not c.suit.is_red for g in s.glyphs]
    red_split, red_gap = ((float((np.mean(red) + np.mean(black)) / 2), float(np.mean(red) - np.mean(black)))
                          if red and black else (0.0, 0.0))
    return LearnedDesign(
        name=name,
        **glyph_statistics(ranks, suits),
        red_split=red_split,
        red_gap=red_gap,
        sharpness=float(np.median([g.sharpness for gs in per_card.values() for g in gs])),
        joker_template=_unit(np.mean([j.ravel() for j in joker_glyphs], 0)) if joker_glyphs else None,
        source=source,
        order=order,
        back_template=back_template,
        roi=roi_size,
        rank_places=placement.learned_places(
            (int(c.rank), s.glyphs[0].rank_box, s.glyphs[1].rank_box, placement.end_bands(found))
            for c, s, (_, found) in zip(cards, seen, cards_seen, strict=True)),
        picture_frame=court_frame.learned_frame(
            found.face for c, (_, found) in zip(cards, cards_seen, strict=True) if Rank.JACK <= c.rank <= Rank.KING),
    )


def glyph_statistics(ranks: list[list[Glyphs]], suits: list[list[Glyphs]]) -> dict[str, Any]:
    """A design's templates and glyph sizes from the glyphs seen of each rank (2..A) and
    each suit (♣ ♦ ♥ ♠): :class:`LearnedDesign`'s fields of those names."""
    return {
        "rank_templates": _unit(np.stack([np.mean([g.rank.ravel() for g in r], 0) for r in ranks])),
        "suit_templates": _unit(np.stack([np.mean([g.suit.ravel() for g in s], 0) for s in suits])),
        "rank_height": np.array([np.mean([g.rank_box[3] for g in r]) for r in ranks]),
        "rank_aspect": np.array([np.mean([g.rank_box[2] / g.rank_box[3] for g in r]) for r in ranks]),
        "suit_height": float(np.mean([g.suit_box[3] for s in suits for g in s])),
        "suit_heights": np.array([np.mean([g.suit_box[3] for g in s]) for s in suits]),
        "suit_aspect": np.array([np.mean([g.suit_box[2] / g.suit_box[3] for g in s]) for s in suits]),
        "index_centres": np.median([(*_centre(g.rank_box), *_centre(g.suit_box))
                                    for r in ranks for g in r], axis=0),
    }


def _centre(box: tuple[int, int, int, int]) -> tuple[float, float]:
    x, y, w, h = box
    return x + w / 2, y + h / 2


def _suits_by_colour(run_means: np.ndarray, reds: set[int]) -> dict[int, Suit]:
    """Which red run is ♥ and which ♦, which black run ♠ and which ♣: against generic suit
    shapes (and a club's lobes); or :class:`LearnError`."""
    generic = _generic_suits()
    suit_of_run: dict[int, Suit] = {}
    for colour_runs, pair in ((sorted(reds), (Suit.HEARTS, Suit.DIAMONDS)),
                              (sorted(set(range(4)) - reds), (Suit.SPADES, Suit.CLUBS))):
        r1, r2 = colour_runs
        score = [float(np.max(generic[:, int(s)] @ run_means[r])) for r in (r1, r2) for s in pair]
        straight, crossed = score[0] + score[3], score[1] + score[2]
        margin = straight - crossed
        if pair[0] is Suit.SPADES:
            # Real spades and clubs are drawn far from any one generic shape (Nicu's
            # spade fits the generic club nearly as well). The club's lobes are the
            # second, independent cue: the narrowing under its top lobe.
            dip = _lobe_dip(run_means[r2]) - _lobe_dip(run_means[r1])  # > 0: run r2 is the club
            if abs(dip) >= 0.06 and (dip > 0) != (margin > 0):
                raise LearnError(f"cannot establish the order of the pass: cannot tell ♠ from ♣ "
                                 f"in runs {r1 + 1} and {r2 + 1} (shape and lobes disagree)")
            if abs(margin) < 0.1 and abs(margin) >= 0.03 and abs(dip) >= 0.06:
                margin = 0.1 if dip > 0 else -0.1  # two weaker cues that agree
        if abs(margin) < 0.1:
            raise LearnError(f"cannot establish the order of the pass: cannot tell "
                             f"{pair[0].symbol} from {pair[1].symbol} in runs {r1 + 1} and {r2 + 1}")
        first, second = pair if margin > 0 else pair[::-1]
        suit_of_run[r1], suit_of_run[r2] = first, second
    return suit_of_run


#: A pass with ink colour must show it in this many frames of each run at least (the rest
#: may be grey photos).
MIN_INKED_PER_RUN = 3


def _suits_by_shape(run_means: np.ndarray) -> dict[int, Suit]:
    """The suit of each run when the pass holds no ink colour (a monochrome camera): the
    one way of giving the four runs the four suits that fits the generic suit shapes
    best, by 0.1 more than any other way (the margin each colour's pair must have when
    colour splits them); a club's lobes may stand in for a weaker margin between ♠ and ♣,
    as with colour. Or :class:`LearnError`, asking for the pass in colour."""
    generic = _generic_suits()
    score = np.array([[float(np.max(generic[:, int(s)] @ run_means[r])) for s in Suit] for r in range(4)])
    ways = sorted(itertools.permutations(Suit), key=lambda w: -sum(score[r, int(w[r])] for r in range(4)))
    totals = [sum(score[r, int(w[r])] for r in range(4)) for w in ways[:2]]
    best, runner_up = ways[0], ways[1]
    margin = totals[0] - totals[1]
    spades, clubs = best.index(Suit.SPADES), best.index(Suit.CLUBS)
    dip = _lobe_dip(run_means[clubs]) - _lobe_dip(run_means[spades])  # > 0: the lobes agree
    if abs(dip) >= 0.06 and dip < 0:
        raise LearnError(f"cannot establish the order of the pass: it holds no ink colour, and cannot "
                         f"tell ♠ from ♣ in runs {spades + 1} and {clubs + 1} (shape and lobes disagree). "
                         "Show the pass in colour.")
    black_swap = [runner_up[r] for r in range(4)] == [
        {Suit.SPADES: Suit.CLUBS, Suit.CLUBS: Suit.SPADES}.get(x, x) for x in best]
    if margin < 0.1 and not (black_swap and margin >= 0.03 and dip >= 0.06):
        changed = [r + 1 for r in range(4) if best[r] != runner_up[r]]
        raise LearnError("cannot establish the order of the pass: it holds no ink colour (a monochrome "
                         "camera, or grey photos), and the suits' shapes alone do not tell runs "
                         f"{' and '.join(map(str, changed))} apart. Show the pass in colour.")
    return {r: best[r] for r in range(4)}


def _frames(seen: list[_Seen], idx: Iterable[int]) -> str:
    return ", ".join(seen[i].name for i in idx)


def infer_order(seen: list[_Seen]) -> tuple[list[Card], str]:
    """The card each of the 52 frames shows, and the order stated in words; or :class:`LearnError`."""
    hint = " Sort the deck suit by suit, 13 cards each, every suit in the same rank order."
    # 1. Runs of 13: each card's suit glyph must belong to its own run.
    suit_vecs = np.stack([s.vec("suit") for s in seen])
    run_means = _unit(np.stack([suit_vecs[13 * b : 13 * b + 13].mean(0) for b in range(4)]))
    fit = suit_vecs @ run_means.T  # (52, 4)
    for i in range(52):
        b = i // 13
        if int(np.argmax(fit[i])) != b or fit[i, b] < 0.8:
            raise LearnError(f"cannot establish the order of the pass: frame {seen[i].name} "
                             f"(card {i + 1}) does not show the suit of the other cards of run "
                             f"{b + 1} (cards {13 * b + 1}-{13 * b + 13})." + hint)
    # 2-3. Colours: two runs of red ink, two of black, told by the frames that hold colour
    # (a grey photo among them has none to show). A pass with none at all (a monochrome
    # camera) is told by the suits' shapes alone.
    inked = np.array([not s.grey for s in seen])
    if not inked.any():
        suit_of_run = _suits_by_shape(run_means)
    else:
        per_run = [int(inked[13 * b : 13 * b + 13].sum()) for b in range(4)]
        if min(per_run) < MIN_INKED_PER_RUN:
            b = int(np.argmin(per_run))
            raise LearnError("cannot establish the order of the pass: too few of its frames hold colour to "
                             f"tell the red suits from the black (run {b + 1}, cards {13 * b + 1}-{13 * b + 13}, "
                             f"has {per_run[b]}). Show the whole pass in colour, or the whole of it in grey.")
        red = np.array([s.redness for s in seen])
        run_red = np.array([red[13 * b : 13 * b + 13][inked[13 * b : 13 * b + 13]].mean() for b in range(4)])
        reds = set(np.argsort(run_red)[2:].tolist())
        red_cards = [red[i] for i in range(52) if i // 13 in reds and inked[i]]
        black_cards = [red[i] for i in range(52) if i // 13 not in reds and inked[i]]
        if min(red_cards) <= max(black_cards):
            worst = min((i for i in range(52) if i // 13 in reds and inked[i]), key=lambda i: red[i])
            raise LearnError("cannot establish the order of the pass: the four runs of 13 are not two "
                             f"suits in red ink and two in black (frame {seen[worst].name} is no redder "
                             "than the black runs)." + hint)
        suit_of_run = _suits_by_colour(run_means, reds)
    # 4. Places within a run: every card's rank glyph matches its place in the other runs.
    rank_vecs = np.stack([s.vec("rank") for s in seen])
    place_means = _unit(np.stack([rank_vecs[[13 * b + p for b in range(4)]].mean(0) for p in range(13)]))
    place_fit = rank_vecs @ place_means.T  # (52, 13)
    for i in range(52):
        p = i % 13
        if int(np.argmax(place_fit[i])) != p:
            other = int(np.argmax(place_fit[i]))
            raise LearnError(f"cannot establish the order of the pass: frame {seen[i].name} "
                             f"(card {i + 1}, place {p + 1} of its run) shows the rank that the "
                             f"other runs have at place {other + 1}." + hint)
    # 5. The rank order: pip counts of the number cards and aces, and where the "10" is.
    pips = np.array([s.pips for s in seen]).reshape(4, 13)
    results = []
    for order_name, ranks in RANK_ORDERS.items():
        expect = [r if r <= 10 else (1 if r == _ACE else None) for r in ranks]
        places = [p for p in range(13) if expect[p] is not None]
        agree = sum(int(pips[b, p] == expect[p]) for b in range(4) for p in places)
        votes_ok = all(int(np.sum(pips[:, p] == expect[p])) >= 3 for p in places)
        results.append((agree / (4 * len(places)), votes_ok, order_name, ranks))
    results.sort(key=lambda r: -r[0])
    share, votes_ok, order_name, ranks = results[0]
    if not votes_ok or share < 0.9 or results[1][0] > 0.5:
        raise LearnError("cannot establish the order of the pass: the pips of the number cards "
                         f"do not count 2..10 in any sorted order (best fit {order_name}, "
                         f"{share:.0%} of the number cards)." + hint)
    aspect = np.array([np.mean([seen[13 * b + p].glyphs[k].rank_box[2] / seen[13 * b + p].glyphs[k].rank_box[3]
                                for b in range(4) for k in (0, 1)]) for p in range(13)])
    parts = np.array([np.median([seen[13 * b + p].glyphs[k].rank_parts for b in range(4) for k in (0, 1)])
                      for p in range(13)])
    ten = ranks.index(10)
    digits = [p for p in range(13) if ranks[p] < 10]
    # Two characters: wider than a typical digit (Dondorf's condensed tens still are),
    # or two shapes side by side where a digit is one (Tigullio's tall narrow "10").
    wider = aspect[ten] > float(np.median(aspect[digits]))
    two = parts[ten] >= 2 and float(np.median(parts[digits])) <= 1
    if not (wider or two):
        raise LearnError(f"cannot establish the order of the pass: the {order_name} order puts the "
                         f"10 at place {ten + 1}, but that index is neither wider than a typical "
                         "single digit nor two characters." + hint)
    cards = [Card(suit_of_run[i // 13], Rank(ranks[i % 13])) for i in range(52)]
    suits_text = " ".join(suit_of_run[b].symbol for b in range(4))
    named = {("♠ ♥ ♦ ♣", "A..2"): " (bridge order)", ("♣ ♦ ♥ ♠", "2..A"): " (boardwright order)"}
    return cards, (f"suits {suits_text}, ranks {order_name}" + named.get((suits_text, order_name), "")
                   + ("; no ink colour in the pass: the suits told apart by their shapes alone"
                      if not inked.any() else ""))
