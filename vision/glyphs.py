"""Cut the rank and the suit out of one corner index of an upright face.

Both :mod:`vision.learn` (which builds a design's templates) and
:mod:`vision.index` (which matches against them) use :func:`corner_glyphs`,
so learning and reading see exactly the same pixels.

>>> from dealer.cards import Card
>>> from vision.render import render_face
>>> from vision.designs import DESIGNS
>>> g = corner_glyphs(render_face(Card.parse("DT"), DESIGNS["standard"]))
>>> g.rank.shape, g.suit.shape, g.redness > 0.5
((32, 24), (32, 32), True)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.decision import Reason, Reject

ROI_W, ROI_H = 96, 140  # the top-left corner of a 300×420 face that holds the index
RANK_SIZE = (24, 32)  # (w, h) the rank is resized to before matching
SUIT_SIZE = (32, 32)
MIN_BLOB = 12  # px: specks of dirt or noise below this are ignored
_HLINE = np.ones((1, 76), np.uint8)  # a frame line runs the corner's width; no glyph or pip is this wide
_VLINE = np.ones((100, 1), np.uint8)  # ... or its height; a big pip beside the index can be 66 px tall
_DOT = np.ones((3, 3), np.uint8)


@dataclass(frozen=True)
class Glyphs:
    """The two glyphs of one index, normalised for matching, and their measurements."""

    rank: np.ndarray  # float32, zero mean, unit norm
    suit: np.ndarray
    rank_box: tuple[int, int, int, int]  # x, y, w, h within the corner
    suit_box: tuple[int, int, int, int]
    redness: float  # mean R - (G+B)/2 over the ink, per grey level of ink darkness
    sharpness: float  # edge steepness relative to ink contrast
    single: np.ndarray | None = None  # the whole index, when it is one shape (a joker)


def _norm(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    v = cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    v -= v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-6 else v


def corner_glyphs(face: np.ndarray, *, turned: bool = False) -> Glyphs | Reject:
    """Glyphs of the top-left index (or, ``turned``, of the bottom-right one)."""
    if turned:
        roi = face[-ROI_H:, -ROI_W:][::-1, ::-1]
    else:
        roi = face[:ROI_H, :ROI_W]
    return roi_glyphs(roi)


def ink_of(img: np.ndarray) -> np.ndarray:
    """255 minus the darkest of B, G and R: red and black ink are equally dark.

    Ink is dark in every channel for black, and dark in G and B for red: the
    per-pixel minimum makes both inks equally dark against the paper.
    """
    b, g, r = cv2.split(np.ascontiguousarray(img))
    return cv2.bitwise_not(cv2.min(cv2.min(b, g), r))


def percentiles_u8(img: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``np.percentile(img, qs)`` (linear interpolation) of a uint8 image, from its histogram.

    The same numbers as numpy's, without sorting: a 256-bin count is cheaper.
    """
    cum = np.cumsum(cv2.calcHist([np.ascontiguousarray(img)], [0], None, [256], (0, 256)).ravel())
    n = int(cum[-1])
    out = []
    for q in qs:
        k = q / 100 * (n - 1)
        i = int(np.floor(k))
        lo = int(np.searchsorted(cum, i, side="right"))  # the i-th smallest value
        hi = int(np.searchsorted(cum, min(i + 1, n - 1), side="right"))
        out.append(lo + (hi - lo) * (k - i))
    return out


def roi_glyphs(roi: np.ndarray) -> Glyphs | Reject:
    """Glyphs of one corner, given upright as a ROI_H × ROI_W crop (the index at its top left)."""
    ink = ink_of(roi)
    lo, hi = percentiles_u8(ink, (5, 99.5))
    contrast = float(hi - lo)
    if contrast < 40:
        return Reject(Reason.NOT_THIS_DECK, f"no index in the corner (contrast {contrast:.0f})")
    _, mask = cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # A printed frame line runs past the index; under blur it merges with the
    # rank and the two would be dropped together as touching the border
    # (issue 15). Long straight runs are taken out first: no glyph has one.
    lines = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _HLINE) | cv2.morphologyEx(mask, cv2.MORPH_OPEN, _VLINE)
    mask = cv2.subtract(mask, cv2.dilate(lines, _DOT))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U)
    x, y, w, h, a = (stats[:, i] for i in range(5))
    touches = (x == 0) | (y == 0) | (x + w >= ROI_W) | (y + h >= ROI_H)
    keep = (a >= MIN_BLOB) & ~touches  # frame lines and the card edge touch the border
    keep[0] = False
    if not keep.any():
        return Reject(Reason.NOT_THIS_DECK, "no index in the corner")
    keep &= a >= 0.1 * a[keep].max()  # crumbs of a removed frame line or card edge
    keep = _index_column(keep, x, y, w, h)
    clean = keep[labels]
    # Split rank from suit at the lowest empty band between inked rows. A row
    # with one or two stray pixels (JPEG ringing, a speck) still counts as empty.
    profile = np.count_nonzero(clean, axis=1)
    ys = np.nonzero(profile > 2)[0]
    if len(ys) == 0:
        return Reject(Reason.NOT_THIS_DECK, "no index in the corner")
    gaps = np.nonzero(np.diff(ys) > 2)[0]
    cols = clean.any(axis=0)
    xs = np.nonzero(cols)[0]
    sharp = _sharpness(ink, clean, contrast)
    red = _redness(roi, ink, clean, float(lo))
    if len(gaps) == 0:
        whole = ink[ys[0] : ys[-1] + 1, xs[0] : xs[-1] + 1]
        box = (int(xs[0]), int(ys[0]), int(xs[-1] - xs[0] + 1), int(ys[-1] - ys[0] + 1))
        z = np.zeros(1, np.float32)
        return Glyphs(z, z, box, box, red, sharp, single=_norm(whole, RANK_SIZE))
    cut, start = int(ys[gaps[-1]]) + 1, int(ys[gaps[-1] + 1])
    parts = []
    for part in (clean[ys[0] : cut], clean[start : ys[-1] + 1]):
        py, px = np.nonzero(part)
        parts.append((int(px.min()), int(py.min()), int(px.max()), int(py.max())))
    (rx0, ry0, rx1, ry1), (sx0, sy0, sx1, sy1) = parts
    ry0, ry1 = ry0 + int(ys[0]), ry1 + int(ys[0])
    sy0, sy1 = sy0 + start, sy1 + start
    rank = ink[ry0 : ry1 + 1, rx0 : rx1 + 1]
    suit = ink[sy0 : sy1 + 1, sx0 : sx1 + 1]
    return Glyphs(
        _norm(rank, RANK_SIZE),
        _norm(suit, SUIT_SIZE),
        (rx0, ry0, rx1 - rx0 + 1, ry1 - ry0 + 1),
        (sx0, sy0, sx1 - sx0 + 1, sy1 - sy0 + 1),
        red,
        sharp,
    )


def _index_column(keep: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                  h: np.ndarray) -> np.ndarray:
    """Only the shapes of the index column: real decks print pips right beside the index.

    The rank is the top shape (with its neighbours on the same line: "10");
    below it only shapes centred within that column count (the suit), not a
    pip of the face standing next to them.
    """
    idx = np.nonzero(keep)[0]
    top = idx[np.argmin(y[idx])]
    line = idx[y[idx] < y[top] + 0.5 * h[top]]
    x0 = int(x[line].min())
    x1 = int((x[line] + w[line]).max())
    margin = 0.25 * (x1 - x0)
    centre = x[idx] + w[idx] / 2
    col = idx[(centre >= x0 - margin) & (centre <= x1 + margin)]
    out = np.zeros_like(keep)
    out[col] = True
    out[line] = True
    return out


def _sharpness(ink: np.ndarray, clean: np.ndarray, contrast: float) -> float:
    """Steepest edges (95th percentile gradient) per grey level of ink contrast."""
    # Only the glyphs' box (and 3 px round it, all a 3×3 gradient of their edges
    # reads) is filtered: the same numbers as over the whole corner, for less time.
    rows = np.nonzero(clean.any(axis=1))[0]
    cols = np.nonzero(clean.any(axis=0))[0]
    if len(rows) == 0:
        return 0.0
    y0, y1 = max(int(rows[0]) - 3, 0), int(rows[-1]) + 4
    x0, x1 = max(int(cols[0]) - 3, 0), int(cols[-1]) + 4
    ink, clean = ink[y0:y1, x0:x1], clean[y0:y1, x0:x1]
    g = cv2.morphologyEx(clean.view(np.uint8), cv2.MORPH_GRADIENT, _DOT)
    sel = g > 0
    if not sel.any():
        return 0.0
    gx = cv2.Sobel(ink, cv2.CV_32F, 1, 0, ksize=3)[sel]
    gy = cv2.Sobel(ink, cv2.CV_32F, 0, 1, ksize=3)[sel]
    mag = np.sqrt(gx * gx + gy * gy)  # only at the glyphs' edges
    return quantile(mag, 0.95) / (8.0 * contrast)


def quantile(v: np.ndarray, q: float) -> float:
    """``np.percentile(v, 100 * q)`` (linear interpolation) of a 1-D array, without its overhead."""
    n = len(v)
    k = q * (n - 1)
    i = int(k)
    if i + 1 >= n:
        return float(np.max(v))
    part = np.partition(v, (i, i + 1))
    a, b, t = float(part[i]), float(part[i + 1]), k - i
    # numpy's own interpolation, from whichever end is nearer (so it is monotonic)
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _redness(roi: np.ndarray, ink: np.ndarray, clean: np.ndarray, paper: float) -> float:
    """How red the ink is, per unit of ink darkness: faded or dim red stays red."""
    m = clean.view(np.uint8)
    if not m.any():
        return 0.0
    b, g, r, _ = cv2.mean(np.ascontiguousarray(roi), mask=m)
    dark = cv2.mean(ink, mask=m)[0] - paper
    return float(r - (g + b) / 2) / max(dark, 1.0)


def pip_count(face: np.ndarray) -> int:
    """How many pips the middle of an upright face shows (0 when there is no clear pattern).

    Number cards carry as many pips as their rank and an ace one, in every
    design; learning uses the count as evidence of the order of the pass
    (see :mod:`vision.learn`). Court pictures give some other count, which
    learning never relies on. Shapes in the corner index columns are left out.
    """
    h, w = face.shape[:2]
    y0, y1, x0, x1 = int(h * 0.06), int(h * 0.94), int(w * 0.10), int(w * 0.90)
    ink = 255 - face[y0:y1, x0:x1].min(axis=2)
    if float(ink.max()) - float(np.percentile(ink, 5)) < 40:
        return 0
    _, mask = cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return 0
    area = stats[1:, cv2.CC_STAT_AREA]
    cx = (cents[1:, 0] + x0) / w
    cy = (cents[1:, 1] + y0) / h
    in_index = ((cx < 0.22) | (cx > 0.78)) & ((cy < 0.30) | (cy > 0.70))
    big = (area >= 60) & ~in_index
    if not big.any():
        return 0
    return int(np.count_nonzero(big & (area >= 0.35 * area[big].max())))
