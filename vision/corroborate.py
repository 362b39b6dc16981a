"""Does a corner show a named card? The second corner's check, by searching for its glyphs.

The index reader (:mod:`vision.index`) reads each corner by cutting its ink into
shapes: the rank on top, the suit below. On a real photograph one corner often
cuts badly (a shadow joined to the rank, a faint stroke lost at the threshold, a
court's frame line touching the suit), and then that corner is refused even when
it plainly shows the card the other corner read. Once one corner has read a card
on every check, this module asks the other corner a narrower question: is that
card's rank, and that suit, where an index would be, and better than every other
rank and suit? It searches the corner's ink (paper 0, ink 1, as the glyphs are
compared) for each learned template at the size the design learned it, so no
shape has to be cut out.

Asked that way (:func:`shows`) it can only confirm the card the first corner
read, or refuse. When neither corner's shapes could be read, :func:`names` asks
each corner which card it shows; the index reader takes a card only when both
corners name it, at the first corner's fit, and their shapes and places agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import cv2
import numpy as np

from dealer.cards import Card, Rank, Suit
from vision.decision import Reason, Reject
from vision.glyphs import (
    GLYPH_SOFTEN,
    RANK_SIZE,
    SUIT_SIZE,
    glyph_vector,
    ink_of,
    margin,
    percentiles_u8,
)

if TYPE_CHECKING:
    from vision.learn import LearnedDesign

Box = tuple[int, int, int, int]  # x, y, w, h in the corner
RANK_ROWS = 0.55  # the rank is searched for in the corner's top 55 %
SCALES = (0.9, 1.0, 1.1)  # around the learned size: photographs vary by about a tenth
MIN_VARIANCE = 0.01  # of a window's paper-0-to-ink-1 values: a glyph's window has ink in it


def _paper_ink(roi: np.ndarray) -> np.ndarray:
    """The corner as paper 0 to ink 1 (its median is paper: the index covers far less)."""
    ink = cv2.medianBlur(ink_of(roi), 3)
    paper, dark = percentiles_u8(ink, (50, 99.5))
    return np.clip((ink.astype(np.float32) - paper) / max(dark - paper, 1.0), 0.0, 1.0)


def _best(area: np.ndarray, template: np.ndarray, w: float, h: float,
          size: tuple[int, int]) -> tuple[float, Box]:
    """Best normalised correlation of ``template`` (``size``) over ``area``, with the
    glyph taken as ``w`` × ``h`` px there (at three scales round it); and its box."""
    best, box = -1.0, (0, 0, 0, 0)
    for k in SCALES:
        sx, sy = size[0] / (w * k), size[1] / (h * k)
        small: np.ndarray = cv2.resize(area, None, fx=sx, fy=sy, interpolation=cv2.INTER_AREA).astype(np.float32)
        if small.shape[0] < size[1] or small.shape[1] < size[0]:
            continue
        small = cv2.GaussianBlur(small, (0, 0), GLYPH_SOFTEN)
        res = cv2.matchTemplate(small, template.astype(np.float32), cv2.TM_CCOEFF_NORMED)
        # A window of bare paper has no variation to correlate with: OpenCV gives it
        # any score (1.0 seen). Only windows with ink in them count.
        mean = cv2.boxFilter(small, -1, size, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)
        sq = cv2.boxFilter(small * small, -1, size, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)
        flat = (sq - mean * mean)[: res.shape[0], : res.shape[1]] < MIN_VARIANCE
        res[flat] = -1.0
        _, score, _, (x, y) = cv2.minMaxLoc(res)
        if score > best:
            best, box = float(score), (round(x / sx), round(y / sy), round(size[0] / sx), round(size[1] / sy))
    return best, box


def _glyph_at(area: np.ndarray, box: Box, size: tuple[int, int]) -> np.ndarray:
    """The glyph vector of ``box`` in ``area``, made as the templates were."""
    x, y, w, h = box
    return glyph_vector(area[max(y, 0): y + h, max(x, 0): x + w], size).ravel()


def shows(design: LearnedDesign, roi: np.ndarray, card: Card, rank_cc: np.ndarray, suit_cc: np.ndarray,
          *, margin_min: float = 0.5, rank_min: float = 0.75, suit_min: float = 0.85,
          ) -> tuple[float, float, Box] | Reject:
    """Whether the corner ``roi`` shows ``card``: its rank and its suit found where an index
    would be, each better than every other rank or suit by ``margin_min``
    (:func:`vision.glyphs.margin`), and scoring at least ``rank_min`` and ``suit_min``.

    ``rank_cc`` and ``suit_cc`` are how alike the design's templates are (the margin's
    scale). The rank's and the suit's scores, and the rank's box (x, y, w, h) in the
    corner, when it does; else a reject saying what was found instead.
    """
    found = _search(design, roi, card, rank_cc, suit_cc, margin_min, rank_min, suit_min)
    return found if isinstance(found, Reject) else found[1:]


def names(design: LearnedDesign, roi: np.ndarray, rank_cc: np.ndarray, suit_cc: np.ndarray,
          *, margin_min: float = 0.5, rank_min: float = 0.75, suit_min: float = 0.85,
          ) -> tuple[Card, float, float, Box] | Reject:
    """The card whose rank and suit the corner ``roi`` shows best, each by ``margin_min``
    over every other and scoring ``rank_min`` and ``suit_min``; those scores, and the
    rank's box in the corner.

    One corner's answer is never enough: the index reader asks both corners, and takes
    a card only when both name it (a card with neither corner's shapes cut out right).
    """
    return _search(design, roi, None, rank_cc, suit_cc, margin_min, rank_min, suit_min)


def _search(design: LearnedDesign, roi: np.ndarray, card: Card | None, rank_cc: np.ndarray,
            suit_cc: np.ndarray, margin_min: float, rank_min: float, suit_min: float,
            ) -> tuple[Card, float, float, Box] | Reject:
    """:func:`shows` (``card`` given) or :func:`names` (``None``)."""
    area = _paper_ink(roi)
    top = area[: int(RANK_ROWS * area.shape[0])]
    rank = _find(top, design.rank_templates, design.rank_height, design.rank_aspect, RANK_SIZE,
                 None if card is None else int(card.rank) - 2, rank_cc, "rank", lambda k: Rank(k + 2).char,
                 rank_min, margin_min)
    if isinstance(rank, Reject):
        return rank
    # The suit: below the rank found, in its column.
    x, y, w, h = rank[2]
    heights = np.array([design.suit_height_of(k) for k in range(4)])
    below = area[y + h - 2: y + h + int(2.0 * heights.max()), max(x - w // 2, 0): x + w + w // 2]
    # No ink colour is checked here: the shape must beat every other suit by the full margin.
    suit = _find(below, design.suit_templates, heights, design.suit_aspect, SUIT_SIZE,
                 None if card is None else int(card.suit), suit_cc, "suit", lambda k: Suit(k).symbol,
                 suit_min, margin_min)
    if isinstance(suit, Reject):
        return suit
    return Card(Suit(suit[0]), Rank(rank[0] + 2)), rank[1], suit[1], rank[2]


def _find(area: np.ndarray, templates: np.ndarray, heights: np.ndarray, aspects: np.ndarray,
          size: tuple[int, int], want: int | None, alike: np.ndarray, what: str,
          name: Callable[[int], str], minimum: float, margin_min: float
          ) -> tuple[int, float, Box] | Reject:
    """Each template searched for in ``area`` at its learned size; template ``want`` (or,
    ``None``, whichever is best) must be the best found, score ``minimum``, and beat every
    other by the margin at its place. Which template, its score and its box."""
    w, h = size
    found = [_best(area, templates[k].reshape(h, w), float(aspects[k] * heights[k]), float(heights[k]), size)
             for k in range(len(templates))]
    scores = [f[0] for f in found]
    best = int(np.argmax(scores))
    want = best if want is None else want
    if best != want:
        return Reject(Reason.DISAGREE, f"shows {what} {name(best)} ({scores[best]:.2f}) more than "
                      f"{name(want)} ({scores[want]:.2f})")
    if scores[want] < minimum:
        return Reject(Reason.NOT_THIS_DECK, f"{what} {name(want)} found at {scores[want]:.2f} only")
    v = templates @ _glyph_at(area, found[want][1], size)
    for k in range(len(templates)):
        if k != want and margin(float(v[want]), float(v[k]), float(alike[want, k])) < margin_min:
            return Reject(Reason.AMBIGUOUS, f"{what} {name(want)} {float(v[want]):.2f} vs "
                          f"{name(k)} {float(v[k]):.2f}")
    return want, float(v[want]), found[want][1]
