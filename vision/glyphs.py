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
# Erosion kernels that look 3 px to both sides of a pixel: up and down, left and right.
_SIDES = (np.array([[1], [0], [0], [0], [0], [0], [1]], np.uint8), np.array([[1, 0, 0, 0, 0, 0, 1]], np.uint8))


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
    rank_parts: int = 1  # separate shapes in the rank: two for a "10" (or "Kn"), one for a digit


#: Both the templates and the glyphs read are softened by this much (px, at the
#: matching size) before they are compared: a real camera's focus, motion and JPEG
#: blocks vary from frame to frame, and the comparison is of shapes, not of how
#: sharp their edges are (issue 15: real photographs scored 0.77-0.89 against their
#: own deck's templates with this off, and the ♠/♣ margin was no better).
GLYPH_SOFTEN = 1.0


def glyph_vector(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A glyph's box (paper 0 to ink 1) as it is compared: resized to ``size``, softened by
    :data:`GLYPH_SOFTEN`, zero mean, unit length. Templates and read glyphs alike."""
    v: np.ndarray = cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    v = cv2.GaussianBlur(v, (0, 0), GLYPH_SOFTEN)
    v -= v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-6 else v


def margin(best: float, other: float, alike: float) -> float:
    """Where a glyph lies between two templates: 1 at the best one, 0 half-way, -1 at the other.

    ``best`` and ``other`` are its correlations with the two templates and
    ``alike`` theirs with each other. For unit vectors, ``best - other`` is the
    glyph's projection on the line joining the templates, which is ``1 - alike``
    long at either end: the difference that matters, measured in the units of how
    alike the two templates are (a linear discriminant), rather than how near the
    glyph is to either (a ♣ blurred towards a ♠ moves away from both).

    >>> round(margin(0.96, 0.90, 0.93), 2), margin(0.90, 0.96, 0.93) < 0
    (0.86, True)
    """
    return (best - other) / max(1.0 - alike, 1e-6)


def corner_glyphs(face: np.ndarray, *, turned: bool = False,
                  roi_size: tuple[int, int] = (ROI_W, ROI_H)) -> Glyphs | Reject:
    """Glyphs of the top-left index (or, ``turned``, of the bottom-right one).

    ``roi_size`` (w, h) is the corner that holds the index: a design with a large
    index learns a larger one (see :mod:`vision.learn`).
    """
    rw, rh = roi_size
    if turned:
        roi = face[-rh:, -rw:][::-1, ::-1]
    else:
        roi = face[:rh, :rw]
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
    """Glyphs of one corner, given upright as a crop (ROI_H × ROI_W unless the design says) with
    the index at its top left."""
    ink = ink_of(roi)
    lo, hi = percentiles_u8(ink, (5, 99.5))
    contrast = float(hi - lo)
    if contrast < 40:
        return Reject(Reason.NOT_THIS_DECK, f"no index in the corner (contrast {contrast:.0f})")
    _, mask = cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # A printed frame line runs past the index; under blur it merges with the
    # rank and the two would be dropped together as touching the border
    # (issue 15). Long straight runs are taken out first: no glyph has one.
    lines = _thin_lines(mask, _HLINE, 0) | _thin_lines(mask, _VLINE, 1)
    mask = cv2.subtract(mask, cv2.dilate(lines, _DOT))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U)
    x, y, w, h, a = (stats[:, i] for i in range(5))
    # Frame lines and the card edge touch the border. What is left of a rounded card
    # corner (or of its printed outline) once the straight edges beside it are taken
    # out lies in the very corner, thin and no bigger than the corner's radius; no
    # index starts there.
    rh, rw = mask.shape
    touches = (x == 0) | (y == 0) | (x + w >= rw) | (y + h >= rh)
    arc = (x <= 4) & (y <= 4) & (a < 0.4 * w * h) & (np.maximum(w, h) <= 32)  # not a thin "7"
    # A stretch of frame line too short to be taken out above (Tigullio's courts:
    # the big pip beside the index cuts the frame's top line to 60 px, 5 px high
    # with the frame's rounded corner) is a flat sliver; no glyph is a fifth as
    # high as it is wide, and as the top shape it would join the rank.
    sliver = (w >= 20) & (5 * h <= w)
    keep = (a >= MIN_BLOB) & ~touches & ~arc & ~sliver
    keep[0] = False
    if not keep.any():
        return Reject(Reason.NOT_THIS_DECK, "no index in the corner")
    keep &= a >= 0.1 * a[keep].max()  # crumbs of a removed frame line or card edge
    keep, line = _index_column(keep, x, y, w, h)
    clean = keep[labels]
    # Split rank from suit at the lowest empty band between inked rows. A row
    # with one or two stray pixels (JPEG ringing, a speck) still counts as empty.
    profile = np.count_nonzero(clean, axis=1)
    ys = np.nonzero(profile > 2)[0]
    if len(ys) == 0:
        return Reject(Reason.NOT_THIS_DECK, "no index in the corner")
    gaps = np.nonzero(np.diff(ys) > 2)[0]
    # The lowest empty band that leaves a suit-sized shape below it: a thin stem
    # (Tigullio's clubs) can leave a nearly empty row inside the suit itself.
    while len(gaps) > 1 and ys[-1] - ys[gaps[-1] + 1] + 1 < 0.35 * (ys[gaps[-1]] - ys[0] + 1):
        gaps = gaps[:-1]
    split = _split_rows(ys, gaps, profile, keep, line, y, h)
    cols = clean.any(axis=0)
    xs = np.nonzero(cols)[0]
    rows = np.nonzero(profile)[0]
    sharp = _sharpness(ink, clean, contrast, (int(rows[0]), int(rows[-1]), int(xs[0]), int(xs[-1])))
    red = _redness(roi, ink, clean, float(lo))
    if split is None:
        whole = _glyph(ink, clean, int(xs[0]), int(ys[0]), int(xs[-1]), int(ys[-1]))
        box = (int(xs[0]), int(ys[0]), int(xs[-1] - xs[0] + 1), int(ys[-1] - ys[0] + 1))
        z = np.zeros(1, np.float32)
        return Glyphs(z, z, box, box, red, sharp, single=glyph_vector(whole, RANK_SIZE))
    cut, start = split
    parts = []
    # The boxes reach the shapes' own first and last rows: rows of two pixels or
    # fewer count as empty for the split, but a club's thin stem is such rows, and
    # the suit's box cut above it is a stemless club (issue 15: real K♣, Q♣).
    top, end = int(rows[0]), int(rows[-1])
    for part in (clean[top:cut], clean[start : end + 1]):
        py, px = np.nonzero(part)
        parts.append((int(px.min()), int(py.min()), int(px.max()), int(py.max())))
    (rx0, ry0, rx1, ry1), (sx0, sy0, sx1, sy1) = parts
    ry0, ry1 = ry0 + top, ry1 + top
    sy0, sy1 = sy0 + start, sy1 + start
    rank = _glyph(ink, clean, rx0, ry0, rx1, ry1)
    suit = _glyph(ink, clean, sx0, sy0, sx1, sy1)
    shapes = np.nonzero(keep)[0]
    return Glyphs(
        glyph_vector(rank, RANK_SIZE),
        glyph_vector(suit, SUIT_SIZE),
        (rx0, ry0, rx1 - rx0 + 1, ry1 - ry0 + 1),
        (sx0, sy0, sx1 - sx0 + 1, sy1 - sy0 + 1),
        red,
        sharp,
        rank_parts=int(np.count_nonzero(y[shapes] + h[shapes] <= cut)),
    )


def _glyph(ink: np.ndarray, clean: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """One glyph's box of ink, as paper 0 to ink 1.

    A real photograph's glyph sits on paper that is not evenly lit (a shadow, a
    gradient, glare) and carries specks (sensor noise, JPEG): a 3-px median takes
    the specks, and the glyph's own ink and the paper round it (the medians of the
    pixels in and out of its shape) set 1 and 0, so the shading of the paper and
    the faintness of the ink do not count in the comparison.
    """
    crop = cv2.medianBlur(np.ascontiguousarray(ink[y0 : y1 + 1, x0 : x1 + 1]), 3).astype(np.float32)
    shape = clean[y0 : y1 + 1, x0 : x1 + 1]
    inked, paper = crop[shape], crop[~shape]
    fg = float(np.median(inked)) if inked.size else float(crop.max())
    bg = float(np.median(paper)) if paper.size else float(crop.min())
    return np.clip((crop - bg) / max(fg - bg, 1.0), 0.0, 1.0)


def _split_rows(ys: np.ndarray, gaps: np.ndarray, profile: np.ndarray, keep: np.ndarray,
                line: np.ndarray, y: np.ndarray, h: np.ndarray) -> tuple[int, int] | None:
    """Where the rank ends and the suit starts (row after the rank, first row of the suit).

    The lowest empty band between inked rows, when there is one. Failing that:
    the end of the rank when the suit is a separate shape that only touches it
    row to row, or a one- or two-pixel waist where the rank's tail joins the
    suit (Nicu's Q); ``None`` when the index is one shape (a joker's star).
    """
    if len(gaps):
        return int(ys[gaps[-1]]) + 1, int(ys[gaps[-1] + 1])
    below = np.nonzero(keep & ~line)[0]
    rank_end = int((y[line] + h[line]).max())
    if len(below) and int(y[below].min()) >= rank_end and ys[-1] >= rank_end:
        return rank_end, int(ys[np.searchsorted(ys, rank_end)])
    top, height = int(ys[0]), int(ys[-1]) - int(ys[0]) + 1
    rows = profile[top : top + height]
    lo_i, hi_i = int(0.35 * height), int(0.8 * height)
    if hi_i - lo_i < 3:
        return None
    k = lo_i + int(np.argmin(rows[lo_i:hi_i]))
    if rows[k] <= 0.15 * float(np.median(rows[rows > 0])) and height - k - 1 >= 0.35 * k:
        return top + k, top + k + 1
    return None


def _thin_lines(mask: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    """The long straight runs of ``mask`` along ``kernel`` that are thin: printed lines.

    A run is kept only when most of it is thin across (no ink 3 px to one side or
    the other): where a glyph touches a big pip beside it, the joined rows are a
    long run too, but one through solid shapes, and cutting it would cut them.
    """
    runs = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    n, labels = cv2.connectedComponents(runs, connectivity=8, ltype=cv2.CV_16U)
    if n <= 1:
        return runs
    # Ink 3 px to both sides (above and below a horizontal run): the run is thick there.
    both = cv2.erode(mask, _SIDES[axis], borderType=cv2.BORDER_CONSTANT, borderValue=0)
    total = np.bincount(labels.ravel(), minlength=n)
    thick = np.bincount(labels[both > 0], minlength=n)
    lut = np.where(thick <= 0.5 * total, np.uint8(255), np.uint8(0))
    lut[0] = 0
    return lut[labels]


def _index_column(keep: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                  h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Only the shapes of the index column: real decks print pips right beside the index.

    The rank is the top shape (with its neighbours on the same line: "10");
    below it only shapes centred within that column count (the suit), not a
    pip of the face standing next to them. Returns the column's shapes, and the
    rank's (the top line) among them.
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
    rank = np.zeros_like(keep)
    rank[line] = True
    return out, rank


def _sharpness(ink: np.ndarray, clean: np.ndarray, contrast: float,
               box: tuple[int, int, int, int]) -> float:
    """Steepest edges (95th percentile gradient) per grey level of ink contrast.

    ``box`` is the glyphs' (first row, last row, first column, last column).
    """
    # Only the glyphs' box (and 3 px round it, all a 3×3 gradient of their edges
    # reads) is filtered: the same numbers as over the whole corner, for less time.
    y0, y1 = max(box[0] - 3, 0), box[1] + 4
    x0, x1 = max(box[2] - 3, 0), box[3] + 4
    ink, clean = ink[y0:y1, x0:x1], clean[y0:y1, x0:x1]
    g = cv2.morphologyEx(clean.view(np.uint8), cv2.MORPH_GRADIENT, _DOT)
    sel = g > 0
    if not sel.any():
        return 0.0
    gx = cv2.Sobel(ink, cv2.CV_32F, 1, 0, ksize=3)[sel]
    gy = cv2.Sobel(ink, cv2.CV_32F, 0, 1, ksize=3)[sel]
    mag = np.sqrt(gx * gx + gy * gy)  # only at the glyphs' edges
    return quantile(mag, 0.95) / (8.0 * contrast)


def colourless(img: np.ndarray, spread: int = 12) -> bool:
    """Whether a colour picture holds no colour at all: a grey camera, or a grey photo
    (issue 15: a real photo's red diamonds were said to be "printed in black").

    >>> colourless(np.full((4, 4, 3), 200, np.uint8)), colourless(np.dstack([np.full((4, 4), 200, np.uint8)] * 2 + [np.full((4, 4), 90, np.uint8)]))
    (True, False)
    """
    if img.ndim < 3:
        return True
    chroma = img.max(axis=2).astype(np.int16) - img.min(axis=2)
    return float(np.percentile(chroma, 99)) < spread


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


def pip_count(face: np.ndarray, index: tuple[Glyphs, Glyphs] | None = None) -> int:
    """How many pips the middle of an upright face shows (0 when there is no clear pattern).

    Number cards carry as many pips as their rank and an ace one, in every
    design; learning uses the count as evidence of the order of the pass
    (see :mod:`vision.learn`). Court pictures give some other count, which
    learning never relies on. Shapes in the corner index columns are left out,
    and so are the shapes of ``index`` (both corners' glyphs as read), wherever
    they are: a big index reaches past the usual corner (Nicu's).
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
    if index is not None:
        px, py = cx * w, cy * h
        for k, g in enumerate(index):
            for bx, by, bw, bh in (g.rank_box, g.suit_box):
                if k == 1:  # the bottom-right corner was read turned 180°
                    bx, by = w - (bx + bw), h - (by + bh)
                in_index |= (px >= bx - 3) & (px <= bx + bw + 3) & (py >= by - 3) & (py <= by + bh + 3)
    big = (area >= 60) & ~in_index
    if not big.any():
        return 0
    return int(np.count_nonzero(big & (area >= 0.35 * area[big].max())))
