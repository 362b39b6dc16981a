"""Find the card in a frame and warp it upright to a 300×420 face.

Three ways to find the card's outline, tried in turn:

1. **Dark floor** (the gate as built): an Otsu threshold on a half-size grey
   frame and the largest outer contour.
2. **Any floor**: the floor is learned from the frame's own border, where a
   card at the gate never lies. A plane is fitted to the border's colour
   (per channel, so light falling off across the frame is part of the floor
   model), and everything whose colour stands clearly apart from that plane
   (by 4× the border's own variation, at least) is the card. A light floor,
   a wood table or warm light are all just other floors.
3. **The card's edges**, when both fail (real photographs: a white card on
   white laminate, a shadow across the card, glare on a glossy table, which
   lose part of the card in the floor): straight edges joined into lines, and
   the best-supported quadrilateral of two pairs of parallel lines at right
   angles in a card's proportions and size, with nothing beside or across it
   that could be another card (:func:`_edge_card`). A shadow's straight edge,
   which goes on across the card and the floor alike, is no other card's; a
   card in a phone's perspective has its sides up to 22° from parallel; a side
   that wavers is sought among the edge pixels when three sides are lines. It
   never says ``two cards``: when it finds nothing, the first two ways' reason
   stands.

A **photograph** of a card on a table (``locate(..., photo=True)``) is not asked what
lies beyond the outline: no card can have come through under it, and what lies
beside it is a shadow's edge, the table's, or another card lying apart. When its
outline is not the card's, :func:`other_outlines` offers the others to read.

The outline must be one card: its convex hull reduced to the best four
corners (``approxPolyN``), sides in a card's ratio, and the shape filling its
hull; on a floor that is not dark, each side of the first two ways' outline
must have an edge along most of it (:func:`_unseen_side`). Overlapping cards (an L or a long shape) are ``two cards``; a thumb or
a small object on the card's edge is not, as the four corners still fit. When
the card cannot be told from the floor the reason says so (``background too
light``), and a card too small in the frame to read its index is ``card too
small``. The warp puts a short edge at the top; since both ends of a card
carry the same index, which short edge comes first does not matter.

>>> from dealer.cards import Card
>>> from vision.render import render_card_frame
>>> found = locate(render_card_frame(Card.parse("H7"), seed=3))
>>> found.face.shape
(420, 300, 3)
>>> locate(render_card_frame(Card.parse("H7"), seed=3, distortions="light-floor")).face.shape
(420, 300, 3)
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.decision import Reason, Reject
from vision.glyphs import percentiles_u8, quantile

FACE_W, FACE_H = 300, 420
MIN_AREA = 60_000  # px in a 640×480 frame; a card at the gate covers ~126,000
MAX_AREA = 230_000
CARD_RATIO = (1.15, 1.65)  # a card is 88 × 63 mm (1.40); a bridge card 89 × 57 (1.56)
MIN_FILL = 0.90  # the outline fills its hull: an L of two overlapping cards does not
#: The upright face's corners, top-left first, clockwise.
FACE_CORNERS = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)


class Located:
    """The card's outline in the frame, and its face warped upright on demand.

    Warping the whole 300×420 face costs more than everything else the index
    reader does, and it needs only two corners of it: :meth:`corner` warps
    just one corner's pixels (the same pixels the whole face would have there),
    :meth:`grey_face` a small grey picture; :attr:`face` is the whole face,
    warped once when first asked for.
    """

    def __init__(self, frame: np.ndarray, grey: np.ndarray, quad: np.ndarray, *, turn: bool = False,
                 ordered: bool = False, interpolation: int = cv2.INTER_LINEAR) -> None:
        """``turn``: the outline's shorter pair of sides is the card's long pair (a card
        foreshortened in a photograph, :mod:`vision.photo_cards`). ``ordered``: the
        corners are the face's top-left, top-right, bottom-right and bottom-left, in that
        order (an outline put where the card's indices are). ``interpolation``: how the
        face is warped (bicubic for a face warped up from few pixels)."""
        self.quad = quad
        self.area = float(cv2.contourArea(quad))
        self._frame, self._grey = frame, grey
        self._m = (cv2.getPerspectiveTransform(quad.astype(np.float32), FACE_CORNERS) if ordered
                   else _face_transform(quad, turn=turn))
        self._interp = interpolation
        self._face: np.ndarray | None = None

    @property
    def face_transform(self) -> np.ndarray:
        """The 3×3 perspective map from frame pixels to the upright face's pixels."""
        return self._m

    @property
    def face(self) -> np.ndarray:
        if self._face is None:
            self._face = cv2.warpPerspective(self._frame, self._m, (FACE_W, FACE_H), flags=self._interp)
        return self._face

    def region(self, x: int, y: int, w: int, h: int, *, step: int = 1) -> np.ndarray:
        """Pixels ``[y:y+h:step, x:x+w:step]`` of the upright face, warped on their own."""
        if self._face is not None:
            return self._face[y : y + h : step, x : x + w : step]
        # Output pixel (u, v) is face pixel (x + step*u, y + step*v): the same sampling.
        pick = np.array([[1 / step, 0, -x / step], [0, 1 / step, -y / step], [0, 0, 1]], np.float64)
        return cv2.warpPerspective(self._frame, pick @ self._m, (-(-w // step), -(-h // step)),
                                   flags=self._interp)

    def grey_face(self, w: int, h: int) -> np.ndarray:
        """The whole face in grey, warped straight to ``w × h`` (a small picture of it)."""
        scale = np.diag([w / FACE_W, h / FACE_H, 1.0])
        return cv2.warpPerspective(self._grey, scale @ self._m, (w, h), flags=self._interp)

    def corner(self, w: int, h: int, *, turned: bool = False) -> np.ndarray:
        """The top-left ``w × h`` corner of the face, or (``turned``) the bottom-right one turned 180°."""
        if not turned:
            return self.region(0, 0, w, h)
        if self._face is not None:
            return np.ascontiguousarray(self._face[FACE_H - h :, FACE_W - w :][::-1, ::-1])
        # Warped straight into place turned 180° (output pixel (u, v) is face pixel
        # (299 - u, 419 - v)): a contiguous image, not a reversed view to copy later.
        turn = np.array([[-1, 0, FACE_W - 1], [0, -1, FACE_H - 1], [0, 0, 1]], np.float64)
        return cv2.warpPerspective(self._frame, turn @ self._m, (w, h), flags=self._interp)


def locate(frame: np.ndarray, grey: np.ndarray | None = None, *, photo: bool = False) -> Located | Reject:
    """Find one card; a :class:`Reject` (no card / two cards / background too light / too small) otherwise.

    ``grey`` is the frame in grey, when the caller has it already.

    ``photo``: the frame is a photograph of a card on a table, not the gate's: no
    card can have come through under it, so what lies beyond the outline (another
    card's paper or edge beside it, or a shadow's) is not asked about. The outline
    must still be one card's (its shape, each side an edge, nothing across it), and
    two card-sized shapes are still two cards. The reader's two corners must still
    name the same card.
    """
    if grey is None:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = grey.shape[:2]
    small = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    first = _dark_floor(small)
    border = float(np.median(np.concatenate([small[:4].ravel(), small[-4:].ravel()])))  # the floor's grey
    dark = border < 100
    if isinstance(first, np.ndarray) and (dark or frame.ndim != 3):
        if frame.ndim == 3 and not photo:
            # On the dark floor too, what lies beyond the outline must be floor: a card
            # with a black border on top of another, the one under it reaching past the
            # frame's edge, is cut off from it, and its visible pieces are each too small
            # to be "another card-sized shape" (issue 15: a bonded 10♠ read as one card).
            # A thumb can look the same, so the reason is not "two cards".
            small_bgr = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
            why = _against_card(small_bgr, (first - 0.5) / 2)
            if why:
                return Reject(Reason.NO_CARD, why)
            side = _paper_strip(small, (first - 0.5) / 2, border)
            if side:
                return Reject(Reason.TWO_CARDS, f"another card's paper lies along the card's {side} "
                              "side, just beyond its outline: a card stuck under this one?")
        return _finish(frame, grey, first)
    if frame.ndim != 3 or (isinstance(first, Reject) and first.reason is Reason.TWO_CARDS and dark):
        # Two cards against a dark floor: a double feed is never second-guessed (a
        # card with a black border on top can look like one card alone in path 2).
        return first  # type: ignore[return-value]
    small_bgr = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    apart = _apart(small_bgr)
    if isinstance(first, np.ndarray):
        # Found by the dark-floor way on a floor that is not dark (wood): a card under a
        # card with a black border can be cut off from it; what lies beyond must be floor.
        # And each side must be the card's edge (part of a light card lost in a light floor
        # leaves a side across its face).
        why = None if photo else _beside_floor(small_bgr, (first - 0.5) / 2, apart)
        unseen = None if why else _unseen_side(small_bgr, (first - 0.5) / 2)
        if not why and not unseen:
            return _finish(frame, grey, first)
        first = _lost_in_floor(unseen, apart[1]) if unseen else Reject(Reason.NO_CARD, why or "")
    second = _any_floor(small_bgr, apart)
    if isinstance(second, np.ndarray):
        # The floor model sees the top card of a double feed as one card when the one
        # under it shows only a strip: what lies beyond the outline must be floor.
        why = None if photo else _beside_floor(small_bgr, (second - 0.5) / 2, apart)
        if why:
            second = Reject(Reason.NO_CARD, why)
        elif unseen := _unseen_side(small_bgr, (second - 0.5) / 2):
            second = _lost_in_floor(unseen, apart[1])
    if isinstance(second, np.ndarray):
        return _finish(frame, grey, second)
    third = _edge_card(small_bgr, apart, photo=photo)
    if isinstance(third, np.ndarray):
        return _finish(frame, grey, third)
    # Otherwise the floor-model path knows more about an unusual floor.
    if second.reason is not Reason.NO_CARD:
        return second
    if isinstance(first, Reject) and first.reason is Reason.TWO_CARDS:
        # The dark-floor way's "two cards" on a floor that is not dark (it returned above
        # on a dark one): a light patch of the floor at the frame's edge splits off as a
        # second large shape there, and neither other way saw two cards. Not "two cards"
        # for one card (issue 15: a 10♣ beside a white table's edge, 10C-…200624).
        return Reject(Reason.NO_CARD, f"{first.detail}, on a floor that is not dark: another card, "
                      "or a light part of the floor?", first.evidence)
    return first


#: How many of the edge way's best-supported outlines :func:`other_outlines` offers.
OTHER_OUTLINES = 6
#: The least share of its hull a shape fills for :func:`other_outlines` to offer its hull.
HULL_FILL = 0.6


def other_outlines(frame: np.ndarray, grey: np.ndarray | None = None, *,
                   besides: np.ndarray | None = None) -> list[Located]:
    """In a photograph (``locate``'s ``photo``), every other outline worth reading when the
    one :func:`locate` chose was not the card's, or it chose none, best first: the
    dark-floor way's and the floor model's; the hull of a mask in a card's proportions
    and size that fills too little of it (glare biting the card's edge); then the edge
    way's :data:`OTHER_OUTLINES` best-supported quadrilaterals (each side an edge, a
    card's shape and size, nothing across it). Not ``besides`` (the outline ``locate``
    returned, if it did).

    A shadow's straight edge, a wood floor's stripe or a court's frame line can make a
    better-supported outline than the card's own; which outline is the card's is what
    the reader's two corners say (they must name the same card, their indices placed as
    one card's). Never for the gate's frames: there the outline must be one card alone.
    """
    if frame.ndim != 3:
        return []
    if grey is None:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    # The picture as it is, then with its contrast raised tile by tile (CLAHE on its
    # lightness): a grey card on a glossy grey table shows edges there that are lost in
    # the picture as it is. Each outline is read on the picture as it is.
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    lab[..., 0] = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(lab[..., 0])
    raised = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)
    out: list[Located] = []
    for picture in (frame, raised):
        for q in _outline_quads(picture):
            got = _finish(frame, grey, q)
            seen = [o.quad for o in out] + ([] if besides is None else [besides])
            if not any(float(np.abs(got.quad - o).max()) < 4 for o in seen):  # (the same outline)
                out.append(got)
    return out


def _outline_quads(frame: np.ndarray) -> list[np.ndarray]:
    """:func:`other_outlines`' outlines of one picture (full-size corners), best first."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    small = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    small_bgr = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    quads: list[np.ndarray] = []
    first = _dark_floor(small)
    apart = _apart(small_bgr)
    second = _any_floor(small_bgr, apart)
    quads += [q for q in (first, second) if isinstance(q, np.ndarray)]
    # A shape in a card's proportions and size that fills too little of its hull (glare
    # taking a bite out of its edge): its hull's four corners.
    _, dark_mask = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    for mask, q in ((dark_mask, first), (apart[0], second)):
        if isinstance(q, np.ndarray):
            continue
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        biggest = max(contours, key=cv2.contourArea, default=None)
        if biggest is not None and cv2.contourArea(cv2.convexHull(biggest)) * 4 >= MIN_AREA:
            hull_quad, area, ratio, fill, _single = _shape(biggest)
            if (len(hull_quad) == 4 and CARD_RATIO[0] <= ratio <= CARD_RATIO[1]
                    and MIN_AREA <= area <= MAX_AREA and fill >= HULL_FILL):
                quads.append(hull_quad * 2 + 0.5)
    blurred = cv2.medianBlur(small_bgr, 5)
    edges = edge_map(small_bgr, blurred)
    lines, pieces = _lines(edges)
    near = cv2.dilate(edges, _DOT3)
    faint = FaintEdges(blurred)
    found = (_outlines(lines, _pairs(lines, where=False)) + _outlines(lines, _pairs(lines, where=True))
             + _outlines(lines, _pairs(lines, where=True, slant=True)) + _fourth_sides(lines, edges))
    ranked: list[tuple[float, np.ndarray]] = []
    for _key, q in found:
        sup = side_support(near, q, faint)
        sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
        score = float((sup * sides).sum())
        if sup.min() >= SIDE_SUPPORT and score >= ALL_SUPPORT * sides.sum():
            ranked.append((score, q))
    ranked.sort(key=lambda r: -r[0])
    taken: list[np.ndarray] = []
    for _score, q in ranked:
        if len(taken) == OTHER_OUTLINES:
            break
        fitted = _fit_sides(edges, q)
        if any(float(np.abs(fitted - t).max()) < 6 for t in taken):
            continue  # (the same outline, from other lines along the same sides)
        taken.append(fitted)
        why, piece = _alone(small_bgr, fitted, lines, pieces, apart, blurred, edges=edges, photo=True)
        if why is None or piece is not None:
            quads.append(fitted.astype(np.float32) * 2 + 0.5)
    return quads


def _dark_floor(small: np.ndarray) -> np.ndarray | Reject:
    lo, hi = percentiles_u8(small[::2, ::2], (1, 99))
    if hi - lo < 50:  # Otsu would split plain floor noise in two; a card stands out by far more
        return Reject(Reason.NO_CARD, f"nothing on the gate (brightness spread {hi - lo:.0f})")
    _, mask = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if np.count_nonzero(mask) > 0.75 * mask.size:
        return Reject(Reason.NO_CARD, "the light part is most of the frame: not a dark floor")
    return _outline(mask, small.size * 4)


def _any_floor(small: np.ndarray, apart: tuple[np.ndarray, float, np.ndarray] | None = None
               ) -> np.ndarray | Reject:
    """Learn the floor from the frame's border and take what stands apart from it
    (``apart``: :func:`_apart` of ``small``, when the caller has it)."""
    mask, floor_grey, _ = apart if apart is not None else _apart(small)
    if np.count_nonzero(mask) * 4 < MIN_AREA / 6:
        if floor_grey > 150:
            return Reject(Reason.BACKGROUND_LIGHT, f"nothing stands apart from the floor (floor grey "
                          f"{floor_grey:.0f}): a light card on a light floor cannot be found")
        return Reject(Reason.NO_CARD, "nothing stands apart from the floor")
    out = _outline(mask, small.size * 4, light=floor_grey > 150)
    if isinstance(out, Reject) and out.reason is Reason.NO_CARD and floor_grey > 150 \
            and "too small" not in out.detail:
        return Reject(Reason.BACKGROUND_LIGHT, f"{out.detail}; the floor is light (grey "
                      f"{floor_grey:.0f}), so the card's edge may be lost in it")
    return out


def _apart(small: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """The pixels that stand apart from the floor learned from the frame's border (a mask),
    the floor's grey, and the floor's plane (3 terms (1, x, y), 3 channels)."""
    hs, ws = small.shape[:2]
    ys, xs, a = _border_band(hs, ws)
    px = small[ys, xs].astype(np.float64)
    coef = _plane(a, px)  # (3 terms, 3 channels)
    # Refit without the band pixels far from the plane: a card or a thumb reaching the border.
    res = np.sqrt(((px - a @ coef) ** 2).sum(axis=1))
    keep = res <= 3 * quantile(res, 0.5) + 6
    if 0.5 * len(keep) < keep.sum() < len(keep):  # (with none left out, the fit stands)
        coef = _plane(a[keep], px[keep])
        ys, xs = ys[keep], xs[keep]
    # The floor's colour at every pixel, and each pixel's distance from it: OpenCV's
    # single passes over the frame (numpy's temporaries cost more than all the rest).
    floor = cv2.transform(_grid(hs, ws), coef.T.astype(np.float32))
    diff = cv2.subtract(small.astype(np.float32), floor)
    dist = cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), _SUM3))
    border = dist[ys, xs]
    noise = quantile(border, 0.5) * 1.5 + 2.0
    floor_grey = float(np.mean(coef[0])) + float(np.mean(coef[1] + coef[2])) / 2
    d8 = np.clip(dist, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(float(otsu), 4 * noise, 18.0)
    mask = cv2.threshold(dist, thr, 255, cv2.THRESH_BINARY)[1].astype(np.uint8)
    closed: np.ndarray = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _DOT3)
    return closed, floor_grey, coef


_SUM3 = np.ones((1, 3), np.float32)  # cv2.transform: the sum of three channels
_DOT3 = np.ones((3, 3), np.uint8)


@functools.lru_cache(maxsize=4)
def _border_band(hs: int, ws: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every third pixel of a 5-pixel band along the frame's border, and the plane's design
    matrix there (1, x, y; x and y in frame widths and heights)."""
    b = 5
    band = np.zeros((hs, ws), bool)
    band[:b], band[-b:], band[:, :b], band[:, -b:] = True, True, True, True
    ys, xs = np.nonzero(band)
    ys, xs = ys[::3], xs[::3]
    a = np.stack([np.ones(len(xs)), xs / ws, ys / hs], 1)
    for arr in (ys, xs, a):
        arr.flags.writeable = False
    return ys, xs, a


@functools.lru_cache(maxsize=4)
def _grid(hs: int, ws: int) -> np.ndarray:
    """(1, x, y) at every pixel, x and y in frame widths and heights: the plane's terms."""
    gy, gx = np.mgrid[0:hs, 0:ws].astype(np.float32)
    grid = np.dstack([np.ones((hs, ws), np.float32), gx / ws, gy / hs])
    grid.flags.writeable = False
    return grid


def _plane(a: np.ndarray, px: np.ndarray) -> np.ndarray:
    """Least-squares plane per colour channel: (3 terms, 3 channels), by the normal equations."""
    return np.linalg.solve(a.T @ a, a.T @ px)


def _shape(contour: np.ndarray) -> tuple[np.ndarray, float, float, float, float]:
    """(quad, quad area, ratio, fill, one card's area for its short side), in full-size pixels."""
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(contour) * 4
    hull_area = cv2.contourArea(hull) * 4
    quad = cv2.approxPolyN(hull, 4, ensure_convex=True).reshape(-1, 2).astype(np.float32)
    if len(quad) != 4:
        return quad, 0.0, 0.0, 0.0, 0.0
    quad_area = cv2.contourArea(quad) * 4
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    ratio = (sides[0] + sides[2]) / (sides[1] + sides[3])
    ratio = max(ratio, 1 / ratio)
    short = min(sides[0] + sides[2], sides[1] + sides[3])  # two half-size sides = one full-size
    return quad, quad_area, ratio, area / max(hull_area, 1.0), 1.40 * short * short


def _card_like(ratio: float, fill: float, quad_area: float) -> bool:
    return CARD_RATIO[0] <= ratio <= CARD_RATIO[1] and fill >= MIN_FILL and quad_area >= MIN_AREA


def _outline(mask: np.ndarray, frame_area: int, *, light: bool = False) -> np.ndarray | Reject:
    """The card's four corners (full-size pixels) from a half-size mask, or why not.

    "Two cards" needs evidence of two: a whole card *and* another big shape,
    an L or T that covers more than one card's area, or a shape too long for
    one card. A card whose picture cuts its paper in two pieces (a court
    between a black frame line and a dark floor) is put back together when
    neither piece is a card and together they make one. On a ``light`` floor
    an odd outline (an L, or one too long) is no evidence of two cards: a
    light card's edge can be lost in such a floor along part of its length
    (Tigullio's silver faces), so it is ``background too light``.
    """
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return Reject(Reason.NO_CARD, "nothing on the gate")
    big = sorted(contours, key=cv2.contourArea, reverse=True)
    if len(big) > 1:
        big = [big[0]] + [c for c in big[1:] if not _edge_strip(c, big[0], mask.shape)]
    outline = big[0]
    quad, quad_area, ratio, fill, single = _shape(outline)
    if len(big) > 1 and cv2.contourArea(big[1]) * 4 >= MIN_AREA / 4:
        if _card_like(ratio, fill, quad_area):
            return Reject(Reason.TWO_CARDS, "a card and another card-sized shape on the gate",
                          {"outline": quad * 2 + 0.5, "another_shape": True})
        joined = np.vstack([big[0], big[1]])
        uq, u_area, u_ratio, _, _ = _shape(joined)
        pieces = (cv2.contourArea(big[0]) + cv2.contourArea(big[1])) * 4
        hull_fit = cv2.contourArea(cv2.convexHull(joined)) * 4 / max(u_area, 1.0)
        if CARD_RATIO[0] <= u_ratio <= CARD_RATIO[1] and hull_fit <= 1.04 and pieces <= 1.02 * u_area:
            quad, quad_area, ratio, fill = uq, u_area, u_ratio, 1.0  # one card, in pieces
        elif pieces >= 1.15 * MIN_AREA:
            return Reject(Reason.TWO_CARDS, "two large shapes that do not make one card")
    if len(quad) != 4 or quad_area * 6 < MIN_AREA:
        return Reject(Reason.NO_CARD, f"largest shape covers {quad_area:.0f} px, far too small for a card")
    area = fill * cv2.contourArea(cv2.convexHull(outline)) * 4
    if fill < MIN_FILL:
        if quad_area >= MIN_AREA and area >= 1.15 * single and light:
            return Reject(Reason.BACKGROUND_LIGHT, f"outline fills {fill:.0%} of its hull: part of the "
                          "card may be lost in the light floor")
        if quad_area >= MIN_AREA and area >= 1.15 * single:
            # Overlapping cards make an L or a T: never guess which is on top.
            return Reject(Reason.TWO_CARDS, f"outline fills {fill:.0%} of its hull and covers more than "
                          "one card: overlapping cards")
        return Reject(Reason.NO_CARD, f"outline fills {fill:.0%} of its hull: not one card's outline "
                      "(partly hidden, or lost in the floor)")
    if ratio > CARD_RATIO[1] and quad_area >= MIN_AREA and quad_area > 1.25 * single and light:
        return Reject(Reason.BACKGROUND_LIGHT, f"outline is {ratio:.2f} times as long as wide: part of "
                      "the card may be lost in the light floor")
    if ratio > CARD_RATIO[1] and quad_area >= MIN_AREA and quad_area > 1.25 * single:
        return Reject(Reason.TWO_CARDS, f"outline is {ratio:.2f} times as long as wide, "
                      "not a card's 1.40 (two cards end to end?)")
    if not CARD_RATIO[0] <= ratio <= CARD_RATIO[1]:
        return Reject(Reason.NO_CARD, f"outline is {ratio:.2f} times as long as wide, not a card's 1.40")
    # A card-shaped outline at the wrong scale says where it is (full-size pixels), so a
    # caller that can bring the camera closer, or farther (the photographs' bench), can.
    where = {"outline": quad * 2 + 0.5}
    if quad_area < MIN_AREA:
        return Reject(Reason.TOO_SMALL, f"the card covers {quad_area:.0f} px, under the "
                      f"{MIN_AREA} needed to read its index: bring the camera closer", where)
    if quad_area > MAX_AREA or quad_area > 0.85 * frame_area:
        return Reject(Reason.NO_CARD, f"shape of {quad_area:.0f} px is too large for one card", where)
    return _fit_edges(quad, outline) * 2 + 0.5


def _edge_strip(shape: np.ndarray, card: np.ndarray, frame: tuple[int, ...]) -> bool:
    """Is ``shape`` a long thin strip along the frame's edge, well apart from ``card``?

    Light glare on a glossy table, or the light table beyond a dark one, at the edge
    of a real photo: not a card. A card under another touches or overlaps it, and one
    lying apart shows a card's proportions.
    """
    x, y, w, h = cv2.boundingRect(shape)
    hs, ws = frame[:2]
    along = (y == 0 or y + h >= hs) and w >= 0.8 * ws or (x == 0 or x + w >= ws) and h >= 0.8 * hs
    if not along:
        return False
    (_, _), (a, b), _ = cv2.minAreaRect(shape)
    if max(a, b) < 4 * max(min(a, b), 1.0):
        return False
    hull = cv2.convexHull(card)
    gap = min(-cv2.pointPolygonTest(hull, (float(px), float(py)), True) for px, py in shape.reshape(-1, 2))
    return gap >= 6


def _fit_edges(quad: np.ndarray, contour: np.ndarray) -> np.ndarray:
    """Refit each side to the outline points along it (robustly), and intersect the sides.

    The hull's best four corners lean toward a thumb or a bump on an edge; a
    line fitted to the outline points of the side's middle does not.
    """
    pts = contour.reshape(-1, 2).astype(np.float32)
    lines = []
    for i in range(4):
        near = _near_side(pts, quad[i], quad[(i + 1) % 4], 3.0, 0.15, 0.85)
        if near is None or len(near) < 8:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = []
    for i in range(4):
        (p1, v1), (p2, v2) = lines[i - 1], lines[i]
        m = np.array([v1, -v2]).T
        if abs(float(np.linalg.det(m))) < 1e-6:
            return quad
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * v1)
    new = np.array(out, np.float32)
    return new if float(np.abs(new - quad).max()) < 12 else quad


def _finish(frame: np.ndarray, grey: np.ndarray, quad: np.ndarray) -> Located:
    return Located(frame, grey, _refine(grey, quad))


def _refine(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Sub-pixel corners: the half-size threshold is coarse, the warp needs better."""
    pts = quad.reshape(-1, 1, 2).copy()
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 0.1)
    try:
        cv2.cornerSubPix(grey, pts, (5, 5), (-1, -1), crit)
    except cv2.error:
        return quad
    moved = np.abs(pts.reshape(4, 2) - quad).max()
    return pts.reshape(4, 2) if moved < 4 else quad


def _face_transform(quad: np.ndarray, *, turn: bool = False) -> np.ndarray:
    """The perspective transform from the frame to the upright 300×420 face (``turn``:
    the outline's longer pair of sides taken as the card's short pair)."""
    # Order the corners clockwise from any corner, then start on a short edge.
    c = quad.mean(axis=0)
    order = np.argsort(np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0]))
    q = quad[order]
    if (np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1])) != turn:
        q = np.roll(q, -1, axis=0)
    return cv2.getPerspectiveTransform(q.astype(np.float32), FACE_CORNERS)


# --- Path 3: the card's edges -------------------------------------------------------------

#: A side must have an edge along this share of its length (its middle 80 %: corners are
#: rounded); and the four sides together this share.
SIDE_SUPPORT, ALL_SUPPORT = 0.6, 0.8
#: Outlines with at least this share along every side are tried again with faint edges.
FAINT_FROM = 0.25
#: A hand-held phone's photo shows the card in perspective: its opposite sides may lie
#: this many degrees apart (the edge way's last try, :func:`_edge_card`; each corner must
#: still be within 12° of a right angle, which bounds them more).
SLANT_PAIR = 22


#: A grey card on a light floor of nearly its grey (or in a shadow) leaves its edge under
#: Canny's 15/40 along part of a side. When no outline has its sides' edges that way, a
#: faint edge counts too: a gradient of at least FAINT_STEP (Sobel, in its strongest
#: channel) within a pixel of the side, but only where it runs across the side (within
#: 20°), as a card's edge does; a grainy floor's faint edges run every way.
FAINT_STEP, FAINT_TURN = 10.0, float(np.cos(np.radians(20)))
#: The faint edges that wall the floor off from what lies past a side (Canny).
FAINT_CANNY = (6, 16)


def edge_map(small: np.ndarray, blurred: np.ndarray | None = None,
              thresholds: tuple[int, int] = (15, 40)) -> np.ndarray:
    """Canny edges of each colour channel of the half-size frame, after a 5-px median (a
    phone's speckle noise; ``blurred``, when the caller has it), combined: a white card on
    a wood or warm floor differs in colour where it differs little in grey."""
    b = cv2.medianBlur(small, 5) if blurred is None else blurred
    lo, hi = thresholds
    edges: np.ndarray = cv2.Canny(b[..., 0], lo, hi, L2gradient=True)
    for c in (1, 2):
        edges = cv2.bitwise_or(edges, cv2.Canny(b[..., c], lo, hi, L2gradient=True))
    return edges


#: An outline found by the first two ways on a floor that is not dark must have the card's
#: edge within this many half-size pixels (the mask's outline lies a little off the edge in
#: a blurred photo) along :data:`SIDE_SUPPORT` of each side.
OUTLINE_NEAR = 3


def _unseen_side(small: np.ndarray, quad: np.ndarray) -> str | None:
    """Why the outline ``quad`` (half-size pixels), found by what stands apart from the
    floor, is not the card's, or ``None``: a side with no edge along most of it (its middle
    80 %, as in :func:`side_support`). Where part of a light card is as light as the floor (a
    silver face's gradient), the rest can still be a convex, card-sized shape, one side of
    it running across the face; the card's own edge is a step, or a printed outline, all
    along. The edges: Canny (15/40, L2, the strongest channel's gradient) after a 5-px
    median, in the box round the outline only."""
    h, w = small.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 12, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 13, (w, h))
    box = cv2.medianBlur(small[y0:y1, x0:x1], 5)
    edges = cv2.Canny(box, 15, 40, L2gradient=True)
    near = cv2.dilate(edges, np.ones((2 * OUTLINE_NEAR + 1,) * 2, np.uint8))
    sup = side_support(near, quad - (x0, y0))
    if sup.min() >= SIDE_SUPPORT:
        return None
    return f"a side of the outline has an edge along only {sup.min():.0%} of it: not the card's edge"


def _lost_in_floor(why: str, floor_grey: float) -> Reject:
    """The reject for an outline whose side is not the card's edge: part of the card lost
    in the floor (``background too light`` on a light floor)."""
    if floor_grey > 150:
        return Reject(Reason.BACKGROUND_LIGHT, f"{why}; the floor is light (grey {floor_grey:.0f}), "
                      "so part of the card may be lost in it")
    return Reject(Reason.NO_CARD, why)


class FaintEdges:
    """The half-size frame's gradient after the 5-px median (Sobel, per channel), to find
    its faint edges and which way each one runs."""

    def __init__(self, blurred: np.ndarray) -> None:
        self.gx = cv2.Sobel(blurred, cv2.CV_16S, 1, 0, ksize=3)
        self.gy = cv2.Sobel(blurred, cv2.CV_16S, 0, 1, ksize=3)

    def across(self, pts: np.ndarray, normal: np.ndarray) -> np.ndarray:
        """For each point (x, y; inside the frame), is there a gradient of at least
        :data:`FAINT_STEP` within a pixel, in its strongest channel, that runs along
        ``normal`` (within 20°)? Those running one way, or the other way, whichever are
        more: a card's edge is a step the same way along its side (its paper lighter, or
        darker, than the floor), a grainy floor's streaks are steps both ways."""
        h, w = self.gx.shape[:2]
        near = pts[:, None, :] + _NEIGHBOURS[None]
        xs, ys = near[..., 0].clip(0, w - 1), near[..., 1].clip(0, h - 1)
        gx, gy = self.gx[ys, xs].astype(np.float32), self.gy[ys, xs].astype(np.float32)  # (points, 9, 3)
        mag = gx * gx + gy * gy
        k = np.argmax(mag, axis=-1)[..., None]
        gx, gy, mag = (np.take_along_axis(v, k, -1)[..., 0] for v in (gx, gy, mag))
        dot = gx * normal[0] + gy * normal[1]
        along = (mag >= FAINT_STEP**2) & (dot * dot >= FAINT_TURN**2 * mag)
        up, down = np.any(along & (dot > 0), axis=1), np.any(along & (dot < 0), axis=1)
        return up if np.count_nonzero(up) >= np.count_nonzero(down) else down


_NEIGHBOURS = np.array([(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)], np.int64)


Line = tuple[float, float, float, float, float]  # angle, offset, length, x, y (half-size pixels)


def _lines(edges: np.ndarray) -> tuple[list[Line], list[Line]]:
    """Straight edge lines as (angle in [0, π), offset, length covered, x, y of the middle of
    its longest piece), longest first: the straight pieces of every edge curve, pieces on
    one line joined; and the pieces themselves (angle, 0, length, x, y of the middle)."""
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    segs = []
    for c in contours:
        if len(c) < 80:
            continue
        poly = cv2.approxPolyDP(c, 1.5, True).reshape(-1, 2).astype(np.float64)
        for p, q in zip(poly, np.roll(poly, -1, axis=0), strict=True):
            d = q - p
            length = float(np.hypot(*d))
            if length >= 25:
                segs.append((length, p, q))
    segs.sort(key=lambda s: -s[0])
    groups: list[list[float]] = []  # angle, offset, longest piece, length, its middle x, y
    for length, p, q in segs[:120]:  # a card's sides are among the longest; a grainy floor has hundreds
        ang = float(np.arctan2(q[1] - p[1], q[0] - p[0])) % np.pi
        mid = (p + q) / 2
        for g in groups:
            da = abs(ang - g[0])
            da = min(da, np.pi - da)
            if da < np.radians(3) and abs(-np.sin(g[0]) * mid[0] + np.cos(g[0]) * mid[1] - g[1]) < 3:
                g[3] += length
                break
        else:
            groups.append([ang, -np.sin(ang) * mid[0] + np.cos(ang) * mid[1], length, length,
                           float(mid[0]), float(mid[1])])
    groups.sort(key=lambda g: -g[3])
    # (each edge is traced on both sides, so the pieces cover it twice)
    pieces: list[Line] = [(float(np.arctan2(q[1] - p[1], q[0] - p[0])) % np.pi, 0.0, length,
                           float((p[0] + q[0]) / 2), float((p[1] + q[1]) / 2)) for length, p, q in segs]
    return [(g[0], g[1], g[3] / 2, g[4], g[5]) for g in groups[:24]], pieces


def _meet(a: tuple[float, ...], b: tuple[float, ...]) -> np.ndarray | None:
    na = np.array([-np.sin(a[0]), np.cos(a[0])])
    nb = np.array([-np.sin(b[0]), np.cos(b[0])])
    m = np.array([na, nb])
    if abs(float(np.linalg.det(m))) < 0.2:
        return None
    return np.linalg.solve(m, np.array([a[1], b[1]]))


def side_support(edges_near: np.ndarray, quad: np.ndarray, faint: FaintEdges | None = None) -> np.ndarray:
    """The share of each side's middle 80 % that has an edge within a pixel (or, with
    ``faint``, a faint edge running along the side)."""
    h, w = edges_near.shape
    out = np.zeros(4)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.hypot(*(b - a)))
        n = max(int(length), 2)
        t = np.linspace(0.1, 0.9, n)[:, None]
        pts = np.rint(a + (b - a) * t).astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
        pts = pts[inside]
        hit = edges_near[pts[:, 1], pts[:, 0]] > 0
        if faint is not None and not hit.all():
            normal = np.array([a[1] - b[1], b[0] - a[0]]) / max(length, 1e-6)
            hit[~hit] = faint.across(pts[~hit], normal)
        out[i] = float(np.count_nonzero(hit)) / n
    return out


def _pairs(lines: list[Line], *, where: bool, slant: bool = False) -> list[tuple[int, int, float, float]]:
    """The pairs of lines parallel within 8° and spaced as a card's sides may be: (i, j,
    spacing, i's angle). Spaced as their offsets differ (at the frame's corner), or with
    ``where``, where they are: each one's middle from the other line, averaged. With
    ``slant``: parallel within :data:`SLANT_PAIR`, and the angle is the pair's mean
    direction (a card in perspective)."""
    lo, hi = np.sqrt(MIN_AREA / 4 / 1.65), np.sqrt(MAX_AREA / 4 / 1.15) * 1.15
    pairs = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            a, b = lines[i], lines[j]
            da = abs(a[0] - b[0])
            if min(da, np.pi - da) > np.radians(SLANT_PAIR if slant else 8):
                continue
            if where:
                sep = (abs(-np.sin(b[0]) * a[3] + np.cos(b[0]) * a[4] - b[1])
                       + abs(-np.sin(a[0]) * b[3] + np.cos(a[0]) * b[4] - a[1])) / 2
            else:  # (an angle near 0 and one near π are the same direction, offsets of opposite sign)
                sep = abs(a[1] - (b[1] if da < np.pi / 2 else -b[1]))
            if 0.7 * lo <= sep <= hi * 1.65:
                ang = a[0]
                if slant:  # (b's direction turned to lie within 90° of a's, then the mean)
                    ang = (a[0] + b[0] + (np.pi if b[0] - a[0] < -np.pi / 2 else -np.pi
                                          if b[0] - a[0] > np.pi / 2 else 0.0)) / 2 % np.pi
                pairs.append((i, j, float(sep), float(ang)))
    return pairs


def _outlines(lines: list[Line], pairs: list[tuple[int, int, float, float]]
              ) -> list[tuple[tuple[int, ...] | None, np.ndarray]]:
    """The outlines of every two pairs that pass the quick tests (numpy): at right angles,
    a card's proportions and size, and each side's line covering 30 % of its side and the
    four together half the outline (measured by the pieces found); with their lines."""
    if len(pairs) < 2:
        return []
    pr = np.array(pairs)
    ln = np.array([g[2] for g in lines])
    pa, pb = np.triu_indices(len(pr), 1)
    s1, s2 = pr[pa, 2], pr[pb, 2]
    dt = np.abs(pr[pa, 3] - pr[pb, 3]) % np.pi
    ratio = np.maximum(s1, s2) / np.minimum(s1, s2)
    area = s1 * s2 * 4
    l_i, l_j = ln[pr[pa, 0].astype(int)], ln[pr[pa, 1].astype(int)]  # along the sides s2 long
    l_k, l_m = ln[pr[pb, 0].astype(int)], ln[pr[pb, 1].astype(int)]  # along the sides s1 long
    cover = (np.minimum(l_i, s2) + np.minimum(l_j, s2) + np.minimum(l_k, s1) + np.minimum(l_m, s1))
    ok = ((np.abs(dt - np.pi / 2) <= np.radians(12)) & (ratio >= CARD_RATIO[0]) & (ratio <= CARD_RATIO[1])
          & (area >= MIN_AREA) & (area <= MAX_AREA)
          & (np.minimum(np.minimum(l_i, l_j) / s2, np.minimum(l_k, l_m) / s1) >= 0.3)
          & (cover >= 0.5 * 2 * (s1 + s2)))
    out: list[tuple[tuple[int, ...] | None, np.ndarray]] = []
    for p, r in zip(pa[ok], pb[ok], strict=True):
        i, j = int(pr[p, 0]), int(pr[p, 1])
        k, m = int(pr[r, 0]), int(pr[r, 1])
        corners = [_meet(lines[i], lines[k]), _meet(lines[k], lines[j]),
                   _meet(lines[j], lines[m]), _meet(lines[m], lines[i])]
        if all(c is not None for c in corners):
            out.append(((i, j, k, m), np.array(corners)))
    return out


#: The lines (longest first) among which :func:`_fourth_sides` looks for three sides.
THREE_SIDES_FROM = 6


def _fourth_sides(lines: list[Line], edges: np.ndarray) -> list[tuple[tuple[int, ...] | None, np.ndarray]]:
    """Outlines of three sides that are lines (two parallel within 8°, spaced as a card's
    sides may be, and one across them at right angles within 12°; among the
    :data:`THREE_SIDES_FROM` longest lines) and a fourth that is found in the edge map:
    the line across the pair, within 6° of the third's direction and spaced from it as
    the card's proportions allow, with the most edge pixels on it (within a pixel)
    between the pair (the best for the card lying across the pair, and along it). Each
    passes :func:`_outlines`' rules, the found side as a line as long as its edge pixels
    there; the third line must lie between the pair."""
    top = lines[:THREE_SIDES_FROM]
    ys, xs = np.nonzero(edges)
    pts = np.stack([xs, ys], 1).astype(np.float64)
    out: list[tuple[tuple[int, ...] | None, np.ndarray]] = []
    for i, j, s_ij, ang_ij in _pairs(top, where=True):
        a, b = top[i], top[j]
        na, nb = np.array([-np.sin(a[0]), np.cos(a[0])]), np.array([-np.sin(b[0]), np.cos(b[0])])
        between = ((pts @ na - a[1]) * (pts @ nb - b[1])) < 0  # (on either side of each line)
        if np.count_nonzero(between) < 20:
            continue
        band = pts[between]
        for k, line_k in enumerate(top):
            if k in (i, j):
                continue
            turn = abs(abs(line_k[0] - ang_ij) % np.pi - np.pi / 2)
            if turn > np.radians(12) or line_k[2] < 0.3 * s_ij \
                    or (na @ line_k[3:5] - a[1]) * (nb @ line_k[3:5] - b[1]) >= 0:  # (a side between the two)
                continue
            for spacing in (s_ij * np.array(CARD_RATIO), s_ij / np.array(CARD_RATIO)[::-1]):
                # (as :func:`_outlines` will ask, at the least spacing: each of the pair along
                # 30 % of its side, and the three lines along half the outline with the fourth)
                lo = float(spacing[0])
                if min(a[2], b[2]) < 0.3 * lo or min(a[2], lo) + min(b[2], lo) + min(line_k[2], s_ij) < lo:
                    continue
                found = _edge_line(band, line_k, spacing)
                if found is not None:
                    pairs = [(i, j, s_ij, ang_ij), (k, len(top), found[1], line_k[0])]
                    out += [(None, q) for _key, q in _outlines([*top, found[0]], pairs)]
    return out


def _edge_line(band: np.ndarray, k: Line, spacing: np.ndarray) -> tuple[Line, float] | None:
    """The straight line through most of the edge points ``band``, within 6° of the line
    ``k``'s direction, ``spacing`` (least, most) away from it on either side: the line
    (angle, offset, length: its points' count, x, y of their middle) and its distance
    from ``k``; or ``None`` when it has fewer than 20 points."""
    centre = np.array([k[3], k[4]])
    n0 = np.array([-np.sin(k[0]), np.cos(k[0])])
    near = band[np.abs(np.abs((band - centre) @ n0) - spacing.mean()) <= (spacing[1] - spacing[0]) / 2 + 25]
    if len(near) < 20:
        return None
    angs = (k[0] + np.radians(np.arange(-6, 7, 1.5))) % np.pi
    normals = np.stack([-np.sin(angs), np.cos(angs)])  # (2, turns)
    rel = (near - centre) @ normals  # distance from the line through k's middle, each turn
    width = int(np.rint(spacing[1] - spacing[0])) + 2
    best: tuple[int, float, int, int] | None = None  # count, sign, turn, bin
    for sign in (1.0, -1.0):
        d = rel * sign
        keep = (d >= spacing[0]) & (d <= spacing[1])
        bins = np.rint(d - spacing[0]).astype(int) + np.arange(len(angs))[None, :] * width
        hist = np.bincount(bins[keep], minlength=len(angs) * width).reshape(len(angs), width)
        hist[:, :-1] += hist[:, 1:].copy()  # (a pixel's width: two bins)
        hist[keep.sum(axis=0) < 20] = -1  # (too few points at that turn)
        t, peak = np.unravel_index(int(np.argmax(hist)), hist.shape)
        if best is None or hist[t, peak] > best[0]:
            best = (int(hist[t, peak]), sign, int(t), int(peak))
    if best is None or best[0] < 20:
        return None
    count, sign, turn, bin_ = best
    dist = spacing[0] + bin_ + 0.5
    d = rel[:, turn] * sign
    mid = near[(d >= spacing[0]) & (d <= spacing[1]) & (np.abs(d - dist) <= 1.0)].mean(axis=0)
    return (float(angs[turn]), float(normals[:, turn] @ mid), float(count), float(mid[0]), float(mid[1])), float(dist)


def _best_outline(near: np.ndarray, outlines: list[tuple[tuple[int, ...] | None, np.ndarray]],
                  seen: dict[tuple[int, ...], np.ndarray], faint: FaintEdges | None = None
                  ) -> tuple[np.ndarray | None, list[np.ndarray]]:
    """The best-supported of ``outlines`` whose sides have their edges (each side along
    :data:`SIDE_SUPPORT` of it, the four :data:`ALL_SUPPORT`), or ``None``; and, while
    none is, those with some edge along every side (:data:`FAINT_FROM`). ``seen``: each
    outline's support, by its lines, found once."""
    best, best_score = None, 0.0
    tries: list[np.ndarray] = []
    for key, quad in outlines:
        sup = seen.get(key) if key is not None else None
        if sup is None:
            sup = side_support(near, quad, faint)
            if key is not None:
                seen[key] = sup
        sides = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)
        score = float((sup * sides).sum())
        if sup.min() >= SIDE_SUPPORT and score >= ALL_SUPPORT * sides.sum() and score > best_score:
            best, best_score = quad, score
        elif best is None and sup.min() >= FAINT_FROM:
            tries.append(quad)
    return best, tries


def _edge_card(small: np.ndarray, apart_: tuple[np.ndarray, float, np.ndarray] | None = None,
               *, photo: bool = False) -> np.ndarray | str:
    """The card's corners (full-size pixels) from straight edges: the best-supported
    quadrilateral of two pairs of parallel edge lines (or, last, of lines as far from
    parallel as perspective makes a card's sides), at right angles, in a card's
    proportions and size; or why not. Nothing else with long straight edges may lie
    beside it (the card under it in a double feed shows its edges there)."""
    blurred = cv2.medianBlur(small, 5)
    edges = edge_map(small, blurred)
    lines, pieces = _lines(edges)
    near = cv2.dilate(edges, _DOT3)
    # The pairs spaced as their offsets differ at the frame's corner, as before; when no
    # outline has its edges that way, spaced where the lines are (a slanted photo's sides,
    # a few degrees apart, differ at the frame's corner by more than at the card). Every
    # outline found the first way is found as before: the second way takes in more
    # outlines, and on a striped floor also one with a side on a stripe past the card.
    seen: dict[tuple[int, ...], np.ndarray] = {}  # each outline's support, once
    best, _ = _best_outline(near, _outlines(lines, _pairs(lines, where=False)), seen)
    faint_tries: list[np.ndarray] = []  # outlines to try again with the faint edges
    faint: FaintEdges | None = None  # the frame's gradient, made once when first needed
    if best is None:
        best, faint_tries = _best_outline(near, _outlines(lines, _pairs(lines, where=True)), seen)
    if best is None and faint_tries:
        # Only when no outline has its edges in full: the faint edges, for the outlines
        # that have some edge along every side.
        faint = FaintEdges(blurred)
        best, _ = _best_outline(near, [(None, q) for q in faint_tries], {}, faint)
    if best is None:
        # A hand-held phone's photo (issue 15): the card in perspective, its far end
        # narrower, so its opposite sides lie some degrees apart (2D-…200202: 18°). Only
        # when no outline of nearly parallel sides has its edges, even faint ones: the
        # pairs up to SLANT_PAIR apart, when there are any, under the same rules of
        # support, size and proportions; and :func:`_alone` as for any outline.
        slanted = _pairs(lines, where=True, slant=True)
        if any(min(d := abs(lines[i][0] - lines[j][0]), np.pi - d) > np.radians(8) for i, j, _, _ in slanted):
            best, faint_tries = _best_outline(near, _outlines(lines, slanted), seen)
            if best is None and faint_tries:
                faint = faint or FaintEdges(blurred)
                best, _ = _best_outline(near, [(None, q) for q in faint_tries], {}, faint)
    if best is None:
        # A side that is an edge all along but not a straight line of pieces (a soft
        # photo's wavering side, split into pieces each under 25 px; AC-…201038): where
        # three sides are lines, the fourth is sought among the edge pixels themselves.
        best, _ = _best_outline(near, _fourth_sides(lines, edges), {})
    if best is None:
        return "no four straight edges in a card's shape"
    quad = _fit_sides(edges, best)
    apart_ = apart_ if apart_ is not None else _apart(small)
    why, piece = _alone(small, quad, lines, pieces, apart_, blurred, edges=edges, photo=photo)
    beside = piece
    grown: np.ndarray | None = quad
    taken = quad  # in a photo: the outline grown furthest that is one card but for what lies beside
    for _ in range(3):
        # A straight edge beside the outline, along a side: another card under it, or the
        # card's own side, when the outline took a court's frame line (its picture's,
        # sharper than the white margin's edge on a light floor) for that side, or for
        # more than one (the shape in between need not be a card's).
        if piece is None or grown is None:
            break
        grown = _grown(grown, piece, lines, edges, near, blurred)
        if grown is not None:
            why_grown, piece = _alone(small, grown, lines, pieces, apart_, blurred, edges=edges, photo=photo)
            if why_grown is None:
                return grown.astype(np.float32) * 2 + 0.5
            if piece is not None:
                taken = grown
            else:
                piece = _alone(small, grown, lines, pieces, apart_, blurred, shape=False, edges=edges)[1]
    if why and not (photo and beside is not None):
        return why
    # (In a photo a straight edge beside the card is no card under it: a shadow's, the
    # table's, or another card's lying apart. It may be the card's own side, when the
    # outline took a court's frame line for it: hence the outline grown, when it was.)
    return (taken if photo else quad).astype(np.float32) * 2 + 0.5


def _alone(small: np.ndarray, quad: np.ndarray, lines: list[Line], pieces: list[Line],
           apart_: tuple[np.ndarray, float, np.ndarray], blurred: np.ndarray, *, shape: bool = True,
           edges: np.ndarray | None = None, photo: bool = False) -> tuple[str | None, Line | None]:
    """Why the edge way's outline ``quad`` (half-size pixels) is not one card alone on the
    floor, or ``None``: its shape, a long line across it, something beside it; and the
    straight piece beside it that rejected it, if one did. Not ``shape``: only the piece
    (an outline part way to the card's, whose shape and surroundings are not yet a card's).
    With ``edges`` (the edge map the lines came from), a line across the outline that goes
    on into the floor (:func:`_across`), and a piece beside it that goes on into the card
    (:func:`_shadow_into`), are a shadow's edge, not another card's."""
    sides = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)
    ratio = (sides[0] + sides[2]) / max(float(sides[1] + sides[3]), 1e-6)
    ratio = max(ratio, 1 / max(ratio, 1e-6))
    edge_dirs = np.roll(quad, -1, axis=0) - quad
    cosines = [abs(float(edge_dirs[i] @ edge_dirs[i - 1])) / max(float(sides[i] * sides[i - 1]), 1e-6)
               for i in range(4)]
    if shape and (not CARD_RATIO[0] <= ratio <= CARD_RATIO[1] or max(cosines) > np.sin(np.radians(12))):
        return f"the straight edges make a {ratio:.2f}:1 shape, not a card's", None
    poly = quad.astype(np.float32).reshape(-1, 1, 2)
    card_dirs = [float(np.arctan2(*(quad[1] - quad[0])[::-1])) % np.pi,
                 float(np.arctan2(*(quad[2] - quad[1])[::-1])) % np.pi]
    h, w = small.shape[:2]
    if shape and _across(lines, quad, poly, sides, card_dirs, edges, blurred):
        return "a long straight edge across the outline: another card's edge?", None
    why = _beside_floor(small, quad, apart_, blurred) if shape and not photo else None
    if why:
        return why, None
    step = float(np.median([_step(small, quad[i], quad[(i + 1) % 4]) for i in range(4)]))
    for piece in pieces:  # the pieces: a piece beside a corner joins the side's line
        ang, _off, length, x, y = piece
        if length < 0.25 * sides.min():
            break
        gap = -cv2.pointPolygonTest(poly, (x, y), True)  # > 0: outside the card
        if not 4 < gap < 0.8 * sides.max():
            continue
        turn = min(min(abs(ang - d), np.pi - abs(ang - d)) for d in card_dirs)
        if turn > np.radians(12):
            continue
        if _along_border(ang, x, y, w, h):
            continue
        half = np.array([np.cos(ang), np.sin(ang)]) * min(length, 60) / 2
        if _step(small, np.array([x, y]) - half, np.array([x, y]) + half) >= 0.5 * step:
            if edges is not None and _shadow_into(edges, blurred, poly, piece):
                continue
            return (f"a long straight edge ({2 * length:.0f} px) beside the card's outline: "
                    "another card under it, or the floor's edge"), piece
    return None, None


def _grown(quad: np.ndarray, piece: Line, lines: list[Line], edges: np.ndarray, near: np.ndarray,
           blurred: np.ndarray) -> np.ndarray | None:
    """The outline ``quad`` (half-size pixels) with the side that ``piece`` (a straight
    piece just outside it, along it) runs beside moved out onto the piece's line, when
    that makes one card: in a card's size (the shape is checked by the caller), every
    side with its edges (faint ones too), and the side it leaves inside 4-20 % of the way
    in and mirrored by a line as far in from the opposite side: a court's frame line,
    printed centred on the card, so the outline was its picture's. On a double feed the
    top card's edge left inside the outline of both has nothing to mirror it; and a side
    a few pixels off the card's edge (on a wood floor's stripe) is no frame line. ``None``
    otherwise."""
    ang, _off, _length, x, y = piece
    d = np.roll(quad, -1, axis=0) - quad
    sides = np.hypot(d[:, 0], d[:, 1])
    u = d / np.maximum(sides, 1e-6)[:, None]
    normal = np.stack([-u[:, 1], u[:, 0]], 1)
    normal *= np.where(((quad.mean(axis=0) - quad) * normal).sum(axis=1) > 0, -1.0, 1.0)[:, None]  # outward
    rel = np.array([x, y]) - quad
    out = (rel * normal).sum(axis=1)  # how far out past each side's line
    t = (rel * u).sum(axis=1) / np.maximum(sides, 1e-6)  # where along each side
    turns = np.abs(np.arctan2(u[:, 1], u[:, 0]) % np.pi - ang)
    turns = np.minimum(turns, np.pi - turns)
    fits = (turns < np.radians(6)) & (out > 0) & (t > 0) & (t < 1)
    if not fits.any():
        return None
    i = int(np.argmax(np.where(fits, out, -1.0)))
    share = out[i] / (sides[(i + 1) % 4] + out[i])  # a court's frame line lies within a fifth of the card
    if not 0.04 <= share <= 0.2:  # (and not on its edge: a side a few pixels off is not a frame line)
        return None
    side_ang = np.arctan2(u[:, 1], u[:, 0]) % np.pi
    side_line = [(float(side_ang[k]), float(-np.sin(side_ang[k]) * quad[k, 0] + np.cos(side_ang[k]) * quad[k, 1]))
                 for k in range(4)]
    moved = (ang, float(-np.sin(ang) * x + np.cos(ang) * y))
    a, b = _meet(side_line[i - 1], moved), _meet(moved, side_line[(i + 1) % 4])
    if a is None or b is None:
        return None
    grown = quad.astype(np.float64).copy()
    grown[i], grown[(i + 1) % 4] = a, b
    grown = _fit_sides(edges, grown)
    area = float(cv2.contourArea(grown.astype(np.float32))) * 4
    if not MIN_AREA <= area <= MAX_AREA:
        return None
    g_sides = np.hypot(*(np.roll(grown, -1, axis=0) - grown).T)
    sup = side_support(near, grown, FaintEdges(blurred))
    if sup.min() < SIDE_SUPPORT or float((sup * g_sides).sum()) < ALL_SUPPORT * g_sides.sum():
        return None
    # The side left inside must be a frame line: mirrored by a line (a quarter of the side
    # long, at least) as far in from the opposite side, within 3 % of the way across.
    across = float(g_sides[(i + 1) % 4] + g_sides[(i + 3) % 4]) / 2
    opp_a, opp_b = grown[(i + 2) % 4], grown[(i + 3) % 4]
    opp_n = np.array([opp_a[1] - opp_b[1], opp_b[0] - opp_a[0]]) / max(float(g_sides[(i + 2) % 4]), 1e-6)
    opp_n *= 1.0 if float((grown.mean(axis=0) - opp_a) @ opp_n) > 0 else -1.0  # inward
    mirrored = False
    for l_ang, _o, l_len, lx, ly in lines:
        turn = abs(l_ang - side_ang[i])
        if min(turn, np.pi - turn) >= np.radians(3) or l_len < 0.25 * sides[i]:
            continue
        depth = float((np.array([lx, ly]) - opp_a) @ opp_n)
        mirrored |= abs(depth - out[i]) < 0.03 * across and depth > 0.5 * out[i]  # (not the side itself)
    if not mirrored:
        return None
    return grown


def _across(lines: list[Line], quad: np.ndarray, poly: np.ndarray, sides: np.ndarray,
            card_dirs: list[float], edges: np.ndarray | None = None, blurred: np.ndarray | None = None
            ) -> bool:
    """Does a long straight line (half the side it runs along) run across the outline
    ``quad`` (half-size pixels), along a side and more than 12 % of the way in: another
    card's edge, a double feed's top card seen inside the outline of both?

    Not when another line along that side (a quarter of it, at least) lies as far in from
    the opposite side (within 3 % of the way across), both less than a third of the way
    in: a court's picture, or a design's frame line, is printed centred on the card, so
    its lines come in pairs mirrored about the card's middle (one often broken by the
    index); the card on top of another shows its edge on one side only.

    Nor, with ``edges`` (the edge map) and ``blurred`` (the frame it came from, after the
    5-px median), when the line goes on past the outline into the floor as the same step
    (:func:`_goes_on`): a shadow's edge crosses the card and the floor alike (issue 15: a
    phone's shadow across a card on wood); the top card's edge ends at the outline of
    both cards, where the card under it ends too."""
    centre = quad.mean(axis=0)
    normals = [np.array([-np.sin(d), np.cos(d)]) for d in card_dirs]
    along: list[tuple[int, float, float, float, float, float, float]] = []  # direction, length, depth, place, angle, x, y
    for ang, _off, length, x, y in lines:
        turns = [min(abs(ang - d), np.pi - abs(ang - d)) for d in card_dirs]
        k = int(np.argmin(turns))
        if turns[k] >= np.radians(6) or length < 0.25 * sides[k]:
            continue
        across = sides[1 - k]  # the outline's size across lines of this direction
        depth = cv2.pointPolygonTest(poly, (x, y), True) / across
        place = float((np.array([x, y]) - centre) @ normals[k]) / across  # from the middle
        along.append((k, length / sides[k], depth, place, ang, x, y))
    for k, share, depth, place, ang, x, y in along:
        if share < 0.5 or depth <= 0.12:
            continue
        mirrored = depth < 1 / 3 and any(
            k2 == k and d2 > 0.12 and abs(place + p2) < 0.03
            and min(abs(ang - a2), np.pi - abs(ang - a2)) < np.radians(3)
            for k2, _s2, d2, p2, a2, _x2, _y2 in along)
        if not mirrored and not (edges is not None and blurred is not None
                                 and _goes_on(edges, blurred, poly, ang, x, y)):
            return True
    return False


#: How far past the outline (half-size pixels, from 4 px out) a line across it must go on
#: along the floor, on an edge along :data:`GOES_ON_SHARE` of the way, to be the floor's.
GOES_ON, GOES_ON_SHARE = 20, 0.7


def _goes_on(edges: np.ndarray, blurred: np.ndarray, poly: np.ndarray, ang: float, x: float, y: float
             ) -> bool:
    """Does the straight line at ``ang`` through (``x``, ``y``) (half-size pixels), which runs
    across the outline ``poly``, go on past it into the floor as the same shadow: at one end
    at least, an edge within 2 px of the line along :data:`GOES_ON_SHARE` of the
    :data:`GOES_ON` px from 4 px past the outline, and across it the same step as across
    the line just inside the outline (:func:`_steps_alike`). The top card's edge in a
    double feed ends at the outline; a wood floor's stripe that happens to lie in line
    with it has a step of its own (issue 15)."""
    u = np.array([np.cos(ang), np.sin(ang)])
    reach = float(np.hypot(*edges.shape[:2]))
    t = np.arange(-reach, reach)
    pts = np.array([x, y]) + t[:, None] * u
    inside = _in_poly(poly, pts, -4.0)
    if not inside.any():
        return False
    first, last = int(np.argmax(inside)), len(t) - 1 - int(np.argmax(inside[::-1]))
    for out, back in ((np.arange(last + 1, last + 1 + GOES_ON), np.arange(last - 8 - GOES_ON, last - 8)),
                      (np.arange(first - 1, first - 1 - GOES_ON, -1), np.arange(first + 8, first + 8 + GOES_ON))):
        if out.min() >= 0 and out.max() < len(t) and back.min() >= first and back.max() <= last \
                and _steps_alike(edges, blurred, ang, pts[back], pts[out]):
            return True
    return False


def _shadow_into(edges: np.ndarray, blurred: np.ndarray, poly: np.ndarray, piece: Line) -> bool:
    """Is the straight ``piece`` beside the outline ``poly`` (half-size pixels) a shadow's
    edge that goes on into the card: its near end within 10 px of the outline, and its
    line inside the card (from 4 px in) an edge with the same step as the piece's
    (:func:`_steps_alike`)? A phone's shadow falls across the floor and the card alike
    (issue 15); the card under another shows its side on the floor only, and the top
    card's paper goes on over it unbroken."""
    ang, _off, length, x, y = piece
    h, w = edges.shape[:2]
    u = np.array([np.cos(ang), np.sin(ang)])
    t = np.arange(-float(np.hypot(w, h)), float(np.hypot(w, h)))
    pts = np.array([x, y]) + t[:, None] * u
    inside = _in_poly(poly, pts, 4.0)
    if not inside.any():
        return False  # (along a side, not towards the card)
    first, last = int(np.argmax(inside)), len(t) - 1 - int(np.argmax(inside[::-1]))
    k = first if abs(t[first]) < abs(t[last]) else last  # where the line enters the card
    into = np.arange(k, k + GOES_ON) if k == first else np.arange(k, k - GOES_ON, -1)
    if into.min() < first or into.max() > last or abs(t[k]) - length / 2 > 14:
        return False
    # The piece's own points on the floor: 12 px at least from the card, 6 from the frame's border.
    own = (np.abs(t) <= length / 2) & ((t - t[k]) * np.sign(t[k]) < -12)
    own &= (pts[:, 0] >= 6) & (pts[:, 0] < w - 6) & (pts[:, 1] >= 6) & (pts[:, 1] < h - 6)
    if np.count_nonzero(own) < 10:
        return False
    return _steps_alike(edges, blurred, ang, pts[own], pts[into])


def _steps_alike(edges: np.ndarray, blurred: np.ndarray, ang: float, line: np.ndarray, more: np.ndarray
                 ) -> bool:
    """Is there an edge within 2 px of the points ``more`` along :data:`GOES_ON_SHARE` of
    them, and across the line (at ``ang``) the same step along ``more`` as along the points
    ``line``: the same side darker, by nearly the same share (the median grey 4 px to
    either side, after the 5-px median ``blurred``), and by 5 % at least? A shadow darkens
    the card and the floor alike; a thin line, the floor's stripe or a card's print is no
    such step, or not the same one. Points within 6 px of the frame's border: no."""
    h, w = edges.shape[:2]
    n = np.array([-np.sin(ang), np.cos(ang)])
    both = np.concatenate([line, more])
    if not ((both[:, 0] >= 6) & (both[:, 0] < w - 6) & (both[:, 1] >= 6) & (both[:, 1] < h - 6)).all():
        return False
    near = np.rint(more[:, None, :] + np.arange(-2, 3)[None, :, None] * n[None, None, :]).astype(int)
    if np.count_nonzero((edges[near[..., 1], near[..., 0]] > 0).any(axis=1)) < GOES_ON_SHARE * len(more):
        return False
    r = []
    for p in (line, more):
        a, b = (np.rint(p + k * 4 * n).astype(int) for k in (1, -1))
        ga, gb = (blurred[q[:, 1], q[:, 0]].astype(np.float32) for q in (a, b))
        if blurred.ndim == 3:  # (the grey: the channels' mean)
            ga, gb = ga.mean(axis=-1), gb.mean(axis=-1)
        one, other = float(np.median(ga)), float(np.median(gb))
        if min(one, other) < 1:
            return False
        r.append(np.log(one / other))
    return bool(r[0] * r[1] > 0 and min(abs(r[0]), abs(r[1])) > 0.05 and abs(r[0] - r[1]) < 0.25)


def _sides_out(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A convex outline's corners (float64), its sides (each corner to the next) and their
    unit normals pointing out of it."""
    q = quad.reshape(-1, 2).astype(np.float64)
    d = np.roll(q, -1, axis=0) - q
    n = np.stack([-d[:, 1], d[:, 0]], 1) / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-6)[:, None]
    n *= np.where(((q.mean(axis=0) - q) * n).sum(axis=1) > 0, -1.0, 1.0)[:, None]
    return q, d, n


def _in_poly(poly: np.ndarray, pts: np.ndarray, margin: float) -> np.ndarray:
    """For each point, is it inside the convex outline ``poly`` or within ``-margin`` px of it?"""
    q, _, n = _sides_out(poly)
    depth = -((pts[:, None, :] - q[None]) * n[None]).sum(axis=-1)  # (points, 4 sides): inward
    return np.asarray(depth.min(axis=1) > margin)


def _along_border(ang: float, x: float, y: float, w: int, h: int) -> bool:
    """Does a straight piece (angle, middle; half-size pixels) run along the frame's border,
    within 16 px of it and 12° of its direction? The frame's own edge, or the floor's (a
    table's edge, a photo's edge), where a card at the gate never lies: the card under
    another would lie between it and the card, and show its paper there."""
    near_side = min(x, w - 1 - x) < 16 and abs(np.cos(ang)) < np.sin(np.radians(12))
    near_end = min(y, h - 1 - y) < 16 and abs(np.sin(ang)) < np.sin(np.radians(12))
    return bool(near_side or near_end)


def _near_side(pts: np.ndarray, a: np.ndarray, b: np.ndarray, max_off: float,
               lo: float, hi: float) -> np.ndarray | None:
    """The points within ``max_off`` px of the side ``a``-``b``, along its middle (from
    ``lo`` to ``hi`` of its length: a card's corners are round); ``None`` for a side
    under 10 px."""
    d = b - a
    length = float(np.hypot(*d))
    if length < 10:
        return None
    u = d / length
    rel = pts - a
    along = rel @ u
    off = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
    return pts[(off < max_off) & (along > lo * length) & (along < hi * length)]


def _fit_sides(edges: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Each side refitted to the edge pixels along its middle 80 % (within 2 px), and the
    sides intersected: the lines of the pieces are only as good as their longest piece."""
    ys, xs = np.nonzero(edges)
    pts = np.stack([xs, ys], 1).astype(np.float64)
    fitted = []
    for i in range(4):
        near = _near_side(pts, quad[i], quad[(i + 1) % 4], 2.0, 0.1, 0.9)
        if near is None or len(near) < 10:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        ang = float(np.arctan2(vy, vx)) % np.pi
        fitted.append((ang, -np.sin(ang) * x0 + np.cos(ang) * y0))
    out = [_meet(fitted[i - 1], fitted[i]) for i in range(4)]
    if any(c is None for c in out):
        return quad
    new = np.array(out)
    return new if float(np.abs(new - quad).max()) < 6 else quad



def _step(small: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """How sharply the frame changes across the line from ``a`` to ``b`` (its middle 80 %):
    the median over the line of the largest channel difference 3 px to either side."""
    h, w = small.shape[:2]
    d = b - a
    n = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-6)
    t = np.linspace(0.1, 0.9, 16)[:, None]
    mid = a + d * t
    p, q = np.rint(mid + 3 * n).astype(int), np.rint(mid - 3 * n).astype(int)
    ok = (np.minimum(p, q).min(axis=1) >= 0) & (np.maximum(p[:, 0], q[:, 0]) < w) & (np.maximum(p[:, 1], q[:, 1]) < h)
    if not ok.any():
        return 0.0
    p, q = p[ok], q[ok]
    diff = np.abs(small[p[:, 1], p[:, 0]].astype(np.int16) - small[q[:, 1], q[:, 0]].astype(np.int16)).max(axis=1)
    return float(np.median(diff))


def _beside_floor(small: np.ndarray, quad: np.ndarray, apart_: tuple[np.ndarray, float, np.ndarray],
                  blurred: np.ndarray | None = None) -> str | None:
    """Why the outline ``quad`` (half-size pixels) may not be one card alone on the floor,
    or ``None``: something standing apart from the floor beyond it over more than 6 % of
    a card, or the card's paper (or a colour not the floor's) past one of its sides. The
    card under another in a double feed does that; a white card on a white floor, and
    its floor, do not. (``blurred``: see :func:`_paper_beside`.)"""
    apart, _, plane = apart_
    big, card_area = _beyond(apart, quad)
    if big > 0.06 * card_area:
        return (f"something stands apart from the floor beside the outline ({big / card_area:.0%} "
                "of a card): another card under it?")
    paper_side = _paper_beside(small, quad, plane, blurred, apart)
    if paper_side is not None:
        return f"the card's paper seems to go on past its {paper_side} side: another card under it?"
    return None


def _against_card(small: np.ndarray, quad: np.ndarray) -> str | None:
    """On the dark floor: why the outline ``quad`` (half-size) may not be one card alone, or
    ``None``. Something standing apart from the floor, lying against the card's outline
    (within 3 px of it) beyond it, over more than 6 % of a card: the card under another.
    Glare or a light table at the frame's edge, apart from the card, does not count."""
    big, card_area = _beyond(_apart(small)[0], quad, against=True)
    if big > 0.06 * card_area:
        return (f"something lies against the card beyond its outline ({big / card_area:.0%} of a "
                "card): another card under it, or a hand?")
    return None


#: Half-size px beyond a side where :func:`_paper_strip` looks for the paper of a card
#: under this one (nearer is the card's own edge, where an outline a pixel inside it
#: leaves a sliver of its paper), how far out that strip must end, and how many half-size
#: px wide (running) it is at least: 1.3 mm of an 88 mm card, more than a sliver of white
#: a deck's print cut a little off its border leaves.
STRIP_FROM, STRIP_TO, STRIP_ENDS, STRIP_WIDE = 3, 7, 16, 3
#: The depths :func:`_paper_strip` samples (half-size px out of the outline; three inside
#: it, where the card's own paper is past a printed border, then the strip's five, then the
#: floor's beyond it), and where along each side's middle (33 points).
_STRIP_DEPTHS = np.array([-10, -8, -6, *range(STRIP_FROM, STRIP_TO + 1), *range(STRIP_TO + 1, STRIP_ENDS + 1, 2)],
                         np.float64)[:, None, None]
_STRIP_ALONG_T = np.linspace(0.1, 0.9, 33)[None, :, None]
#: The least share of a side's middle along which such a strip lies.
STRIP_ALONG = 1 / 3


def _paper_strip(small: np.ndarray, quad: np.ndarray, floor: float) -> str | None:
    """On the dark floor (its grey ``floor``): which side (``"long"`` or ``"short"``) of the
    outline ``quad`` (half-size px, ``small`` the half-size grey frame) has a strip of paper
    just beyond it along at least :data:`STRIP_ALONG` of its middle, or ``None``.

    A card whose face has a dark printed border (Dondorf's, Bonded's) lying on another,
    all but aligned, is outlined alone (its paper inside the border): the border parts it
    from the strip of the card under it that shows beyond its end, too thin to be another
    card-sized shape, or over 6 % of a card (:func:`_against_card`). That strip is as
    light as the card's paper, runs along the side, :data:`STRIP_WIDE` half-size px wide
    at least, and ends where the floor begins again a little further out (the card under
    it has an edge too). A thumb is darker than paper; glare on the floor beside the card
    fades out slowly and does not end; the card's own paper left outside an outline a
    pixel or two inside its edge lies nearer than :data:`STRIP_FROM` (issue 15, eighth
    pass: of 348 rendered stuck pairs that were read, 58 flagged, 57 with Dondorf or Bonded
    on top; of 5,172 single cards read on the dark floor, none along more than 6 % of a
    side, and none of 11,000 other frames refused)."""
    h, w = small.shape[:2]
    q, d, n = _sides_out(quad)
    # Every point at once (4 sides, depths, 33 along): the depths are _STRIP_DEPTHS, the
    # card's own paper inside (past a printed border), the strip's, and the floor's beyond.
    pts = np.rint(q[:, None, None] + d[:, None, None] * _STRIP_ALONG_T + n[:, None, None] * _STRIP_DEPTHS
                  ).astype(np.int32)
    ok = (pts[..., 0] >= 0) & (pts[..., 0] < w) & (pts[..., 1] >= 0) & (pts[..., 1] < h)
    g = small[pts[..., 1].clip(0, h - 1), pts[..., 0].clip(0, w - 1)].astype(np.float32)
    paper = g[:, :3].max(axis=1)  # (4, 33): the card's paper just inside, there
    gap = (paper - floor)[:, None]
    like = (g[:, 3:8] >= paper[:, None] - 0.25 * gap) & ok[:, 3:8] & (gap > 60)
    # Paper at STRIP_WIDE depths running, and the floor again further out.
    wide = like[:, : 5 - STRIP_WIDE + 1].copy()
    for k in range(1, STRIP_WIDE):
        wide &= like[:, k : k + wide.shape[1]]
    ends = ((g[:, 4:] < floor + 0.5 * gap) & ok[:, 4:]).any(axis=1)
    share = (wide.any(axis=1) & ends).mean(axis=1)
    i = int(np.argmax(share))
    if share[i] < STRIP_ALONG:
        return None
    sides = np.hypot(d[:, 0], d[:, 1])
    return "long" if sides[i] >= sides[(i + 1) % 4] else "short"


def _beyond(apart: np.ndarray, quad: np.ndarray, *, against: bool = False) -> tuple[int, float]:
    """The largest shape standing apart from the floor beyond the outline ``quad`` (half-size
    pixels), in px, and the card's area; ``against``: only shapes within 3 px of the outline."""
    keep_out = np.full(apart.shape, 255, np.uint8)
    cv2.fillConvexPoly(keep_out, np.rint(quad).astype(np.int32), 0)
    beyond = cv2.bitwise_and(apart, cv2.erode(keep_out, np.ones((5, 5), np.uint8)))
    card_area = float(cv2.contourArea(quad.astype(np.float32)))
    if cv2.countNonZero(beyond) <= 0.06 * card_area:  # no shape can be large enough to count
        return 0, card_area
    n, labels, stats, _ = cv2.connectedComponentsWithStats(beyond, connectivity=8)
    if against:
        ring = cv2.dilate(255 - keep_out, np.ones((11, 11), np.uint8))
        shapes = [int(k) for k in np.unique(labels[(ring > 0) & (beyond > 0)]) if k]
    else:
        shapes = list(range(1, n))
    return max((int(stats[k, cv2.CC_STAT_AREA]) for k in shapes), default=0), card_area


def _paper_beside(small: np.ndarray, quad: np.ndarray, plane: np.ndarray,
                  blurred: np.ndarray | None = None, apart: np.ndarray | None = None) -> str | None:
    """Which side (``"long"`` or ``"short"``) has, along over a quarter of it, something
    beyond it that is not the floor: the card's own paper, or another colour than the
    floor's; ``None`` when none has.

    The floor's colour at each point is the plane fitted to the frame's border (where a
    card at the gate never lies), the paper's a band just inside the outline. The card
    under another in a double feed shows its paper, or its picture, just outside the top
    card's side; a shadow on the floor is only darker, and keeps the floor's colour. (A
    card whose paper is the floor's colour gives no answer here: neither does anything
    else.) With ``blurred`` (the half-size frame after the 5-px median) and ``apart``
    (the floor model's mask), paper-like pixels in the open floor (:func:`_open_floor`)
    are the floor's.
    """
    h, w = small.shape[:2]
    a, d, n = _sides_out(quad)
    t = np.linspace(0.15, 0.85, 20)
    mid = a[:, None, :] + d[:, None, :] * t[None, :, None]  # (4 sides, 20, 2)
    depth = np.array([-14, -11, -8, -5, 6, 10], np.float64)  # inside (the margin's paper), outside
    pts = mid[:, None] + depth[None, :, None, None] * n[:, None, None, :]  # (4, 6, 20, 2)
    p = np.rint(pts).astype(np.int32)
    ok = (p[..., 0] >= 0) & (p[..., 0] < w) & (p[..., 1] >= 0) & (p[..., 1] < h)
    px = small[p[..., 1].clip(0, h - 1), p[..., 0].clip(0, w - 1)].astype(np.float64)
    terms = np.stack([np.ones(pts.shape[:-1]), pts[..., 0] / w, pts[..., 1] / h], -1)
    floor = terms @ plane  # the floor's colour there
    inside_ok = ok[:, :4]
    if inside_ok.sum() < 20:
        return None
    paper = np.median(px[:, :4][inside_ok], axis=0)
    gap = float(np.median(np.linalg.norm(paper - floor[:, :4][inside_ok], axis=-1)))
    if gap < 25:  # paper and floor too alike to tell apart this way
        return None
    out, fl, valid = px[:, 4:], floor[:, 4:], ok[:, 4:]  # (4 sides, 2 depths, 20, ...)
    to_paper = np.linalg.norm(out - paper, axis=-1)
    to_floor = np.linalg.norm(out - fl, axis=-1)
    chroma = out / np.maximum(out.sum(axis=-1, keepdims=True), 1.0)
    floor_chroma = fl / np.maximum(fl.sum(axis=-1, keepdims=True), 1.0)
    like = (to_paper < 0.5 * gap) & (to_paper < to_floor) & valid
    sides = np.hypot(d[:, 0], d[:, 1])
    if blurred is not None and apart is not None and _flagged(like, valid):
        # A grey card on a floor of nearly its grey, which a plane fits badly (a shadow, a
        # light falling off): the floor past a side can look more like the card's paper
        # than like the plane. Paper-like pixels are the floor's after all where they lie
        # in the open floor (joined to much of the frame's border, where the floor was
        # learned, without crossing an edge, even a faint one): the card under another
        # shows its own edges all round what it shows of itself.
        like &= ~_open_floor(blurred, quad, apart)[p[:, 4:, :, 1].clip(0, h - 1), p[:, 4:, :, 0].clip(0, w - 1)]
    lit = (out.sum(axis=-1) > 150) & (fl.sum(axis=-1) > 150)  # (a dark pixel's colour is noise)
    like |= (np.abs(chroma - floor_chroma).max(axis=-1) > 0.08) & lit & valid
    for i in range(4):
        if valid[i].sum() >= 10 and like[i].all(axis=0).sum() > 0.25 * 20:
            return "long" if sides[i] >= sides[(i + 1) % 4] else "short"
    return None


def _flagged(like: np.ndarray, valid: np.ndarray) -> bool:
    """Does a side have ``like`` at every depth along over a quarter of it (the points of
    :func:`_paper_beside`: 4 sides, depths, 20 along)?"""
    return bool(((valid.sum(axis=(1, 2)) >= 10) & (like.all(axis=1).sum(axis=1) > 0.25 * 20)).any())


def _open_floor(blurred: np.ndarray, quad: np.ndarray, apart: np.ndarray) -> np.ndarray:
    """The open floor: the pixels outside the outline ``quad`` joined to the frame's border
    by a path that crosses no edge (a faint edge, Canny :data:`FAINT_CANNY` on the
    median-blurred frame ``blurred``, or a pixel beside one), in a region of at least half
    a card that meets a third of the frame's border where the floor model (``apart``, its
    mask) sees floor. What a card under another shows of itself is walled off by its own
    edges, and even cut off by the frame's edge it meets less of the border than that."""
    free = cv2.bitwise_not(cv2.dilate(edge_map(blurred, blurred, FAINT_CANNY), _DOT3))
    cv2.fillConvexPoly(free, np.rint(quad).astype(np.int32), 0)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    ring = np.concatenate([lab[0], lab[-1], lab[1:-1, 0], lab[1:-1, -1]])
    ring_floor = np.concatenate([apart[0], apart[-1], apart[1:-1, 0], apart[1:-1, -1]]) == 0
    met = np.bincount(ring[ring_floor], minlength=n)
    card_area = float(cv2.contourArea(quad.astype(np.float32)))
    keep = (met >= len(ring) / 3) & (stats[:, cv2.CC_STAT_AREA] >= 0.5 * card_area)
    keep[0] = False  # (the edges and the card)
    return keep[lab]

