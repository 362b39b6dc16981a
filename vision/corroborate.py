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

It never names a card on its own: it can only confirm the card the first corner
read, or refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from dealer.cards import Card, Rank, Suit
from vision.decision import Reason, Reject
from vision.glyphs import GLYPH_SOFTEN, RANK_SIZE, SUIT_SIZE, ink_of, margin, percentiles_u8

if TYPE_CHECKING:
    from vision.learn import LearnedDesign

RANK_ROWS = 0.55  # the rank is searched for in the corner's top 55 %
SCALES = (0.9, 1.0, 1.1)  # around the learned size: photographs vary by about a tenth
MIN_VARIANCE = 0.01  # of a window's paper-0-to-ink-1 values: a glyph's window has ink in it


def _paper_ink(roi: np.ndarray) -> np.ndarray:
    """The corner as paper 0 to ink 1 (its median is paper: the index covers far less)."""
    ink = cv2.medianBlur(ink_of(roi), 3)
    paper, dark = percentiles_u8(ink, (50, 99.5))
    return np.clip((ink.astype(np.float32) - paper) / max(dark - paper, 1.0), 0.0, 1.0)


def _best(area: np.ndarray, template: np.ndarray, w: float, h: float,
          size: tuple[int, int]) -> tuple[float, tuple[int, int, int, int]]:
    """Best normalised correlation of ``template`` (``size``) over ``area``, with the
    glyph taken as ``w`` × ``h`` px there (at three scales round it); and its box."""
    best, box = -1.0, (0, 0, 0, 0)
    for k in SCALES:
        sx, sy = size[0] / (w * k), size[1] / (h * k)
        small = cv2.resize(area, None, fx=sx, fy=sy, interpolation=cv2.INTER_AREA).astype(np.float32)
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


def _glyph_at(area: np.ndarray, box: tuple[int, int, int, int], size: tuple[int, int]) -> np.ndarray:
    """The glyph vector of ``box`` in ``area``, made as the templates were (resized, softened, unit)."""
    x, y, w, h = box
    crop = area[max(y, 0): y + h, max(x, 0): x + w]
    v = cv2.GaussianBlur(cv2.resize(crop, size, interpolation=cv2.INTER_AREA), (0, 0), GLYPH_SOFTEN)
    v = v - v.mean()
    return (v / max(float(np.linalg.norm(v)), 1e-6)).ravel()


def shows(design: LearnedDesign, roi: np.ndarray, card: Card, rank_cc: np.ndarray, suit_cc: np.ndarray,
          *, margin_min: float = 0.5, rank_min: float = 0.75, suit_min: float = 0.85,
          ) -> tuple[float, float] | Reject:
    """Whether the corner ``roi`` shows ``card``: its rank and its suit found where an index
    would be, each better than every other rank or suit by ``margin_min``
    (:func:`vision.glyphs.margin`), and scoring at least ``rank_min`` and ``suit_min``.

    ``rank_cc`` and ``suit_cc`` are how alike the design's templates are (the margin's
    scale). The rank's and the suit's scores when it does, else a reject saying what
    was found instead.
    """
    area = _paper_ink(roi)
    top = area[: int(RANK_ROWS * area.shape[0])]
    rw, rh = RANK_SIZE
    r = int(card.rank) - 2
    scores = []
    boxes = []
    for k in range(13):
        h = float(design.rank_height[k])
        s, b = _best(top, design.rank_templates[k].reshape(rh, rw), design.rank_aspect[k] * h, h, RANK_SIZE)
        scores.append(s)
        boxes.append(b)
    found = int(np.argmax(scores))
    if found != r:
        return Reject(Reason.DISAGREE, f"shows rank {Rank(found + 2).char} ({scores[found]:.2f}) more "
                      f"than {card.rank.char} ({scores[r]:.2f})")
    if scores[r] < rank_min:
        return Reject(Reason.NOT_THIS_DECK, f"rank {card.rank.char} found at {scores[r]:.2f} only")
    glyph = _glyph_at(top, boxes[r], RANK_SIZE)
    rs = design.rank_templates @ glyph
    for k in range(13):
        if k != r and margin(float(rs[r]), float(rs[k]), float(rank_cc[r, k])) < margin_min:
            return Reject(Reason.AMBIGUOUS, f"rank {card.rank.char} {float(rs[r]):.2f} vs "
                          f"{Rank(k + 2).char} {float(rs[k]):.2f}")
    # The suit: below the rank found, in its column.
    x, y, w, h = boxes[r]
    below = area[y + h - 2: y + h + int(2.0 * max(design.suit_heights if design.suit_heights is not None
                                                    else [design.suit_height])),
                 max(x - w // 2, 0): x + w + w // 2]
    sw, sh = SUIT_SIZE
    s = int(card.suit)
    sscores, sboxes = [], []
    for k in range(4):
        hk = design.suit_height_of(k)
        sc, b = _best(below, design.suit_templates[k].reshape(sh, sw), design.suit_aspect[k] * hk, hk, SUIT_SIZE)
        sscores.append(sc)
        sboxes.append(b)
    got = int(np.argmax(sscores))
    if got != s:
        return Reject(Reason.DISAGREE, f"shows suit {Suit(got).symbol} ({sscores[got]:.2f}) more "
                      f"than {card.suit.symbol} ({sscores[s]:.2f})")
    if sscores[s] < suit_min:
        return Reject(Reason.NOT_THIS_DECK, f"suit {card.suit.symbol} found at {sscores[s]:.2f} only")
    ss = design.suit_templates @ _glyph_at(below, sboxes[s], SUIT_SIZE)
    # No ink colour is checked here: the shape must beat every other suit by the full margin.
    for k in range(4):
        if k != s and margin(float(ss[s]), float(ss[k]), float(suit_cc[s, k])) < margin_min:
            return Reject(Reason.AMBIGUOUS, f"suit {card.suit.symbol} {float(ss[s]):.2f} vs "
                          f"{Suit(k).symbol} {float(ss[k]):.2f}")
    return float(rs[r]), float(ss[s])
