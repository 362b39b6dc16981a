"""Cards in a photograph at any size, and foreshortened (issue 15, eleventh pass).

The gate's locator (:func:`vision.locate.locate`) looks for a card at the gate's
scale, seen from straight above: an outline in a card's proportions (1.15 to
1.65), filling 90 % of its hull, covering at least
:data:`vision.locate.MIN_AREA`. A phone photo of a card on a table, taken from a
standing height, often shows it small, seen at a slant, on a grainy or speckled
floor. Its outline is then as near square as 1.05 : 1, its mask ragged, and a
view brought closer (:func:`vision.gate_view.other_views`) enlarges the photo's
blur with it.

Here every shape that stands apart from its surroundings is offered as a card
when its hull is a quadrilateral with each side an edge, at any size from
:data:`SMALLEST` and in proportions up to :data:`LONGEST`. The face is warped
from the photo's own pixels (bicubic), so a card seen at a slant is laid flat by
the same perspective warp as at the gate. An outline nearer square than
:data:`BOTH_WAYS` is offered both ways round: which pair of its sides is the
card's long pair is what the two corners then say.

A grey card on a glossy grey board shows no edge at all, but its indices are
crisp. :func:`index_outlines` takes each two inked shapes that may be one
corner's index (a rank and the suit under it) and each two such indices turned
half a turn from each other, at a card's distance apart: the card is where the
design's indices (:attr:`vision.learn.LearnedDesign.index_centres`) put it,
flat (the two indices alike in size) or in perspective (the near one larger).

Nothing here is for the gate's frames: the outline is not asked to be one card
alone, only the reader's two corners decide (they must name the same card, their
indices placed as one card's). :func:`vision.photos.read_photo` reads these last,
after every view of the photo is refused, and last of all each outline again with
its paper's light evened out (:func:`evenly_lit`): a shadow's edge across an index;
then with only the index's column of each corner left (:func:`index_column`): a court's
faint index beside its picture's strong colours; then both at once.

>>> from dealer.cards import Card
>>> from vision.render import render_card_frame
>>> found = photo_outlines(render_card_frame(Card.parse("H7"), seed=3))
>>> found[0].face.shape
(420, 300, 3)
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.gate_view import working_size
from vision.learn import LearnedDesign
from vision.locate import FACE_CORNERS, FACE_H, FACE_W, Located, edge_map, side_support

_DOT3 = np.ones((3, 3), np.uint8)  # a pixel and its eight neighbours

#: The smallest shape offered (px at the working size): a card about 45 × 60 px, whose
#: index is some 8 px tall (smaller is not read anyway).
SMALLEST = 2_500
#: The largest share of the photo a shape may cover.
LARGEST = 0.6
#: The least share of its hull the shape fills (speckle and grain make a card's mask
#: ragged; an L of two cards fills about 75 %), and of the best quadrilateral the hull
#: fills (a card's rounded corners and a slant leave about 97 %).
SHAPE_FILL, HULL_IN_QUAD = 0.8, 0.93
#: The longest outline offered (its long sides' length over its short sides'): a card
#: is 1.40, a bridge card 1.56; a slant shortens one pair or the other.
LONGEST = 2.0
#: An outline nearer square than this is offered both ways round.
BOTH_WAYS = 1.3
#: Each side must have an edge along this share of its middle 80 % (half-size Canny).
SIDE_EDGES = 0.5
#: A face's paper light is evened out over this many of its pixels (the face is 300 ×
#: 420): wider than any index glyph (a rank is some 35 px tall), so a closing this wide
#: keeps the paper's light and drops the ink.
EVEN_LIGHT = 41
#: How far past the design's widest glyph (face px) a corner's index column reaches.
COLUMN_MARGIN = 3
#: Local contrast: how far (grey levels) a pixel stands above the mean of a window this
#: share of the photo's longer side.
WINDOWS, STEPS = (0.25, 0.5), (10, 20)


def card_shapes(photo: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """The outlines worth reading in ``photo`` (4 corners in its pixels) with their
    proportions (long over short), in the order found."""
    img, s = working_size(photo)
    lightness = cv2.cvtColor(cv2.medianBlur(img, 5), cv2.COLOR_BGR2LAB)[..., 0]
    half = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
    near = cv2.dilate(edge_map(half), _DOT3)
    found: list[tuple[np.ndarray, float]] = []
    for mask in _masks(lightness):
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _DOT3)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            shape = _card_shape(contour, mask.size, near)
            if shape is not None and not any(float(np.abs(shape[0] - q).max()) < 5 for q, _ in found):
                found.append(shape)
    return [(q / s, ratio) for q, ratio in found]


def photo_outlines(photo: np.ndarray, grey: np.ndarray | None = None) -> list[Located]:
    """Each of :func:`card_shapes` as the reader takes it (an outline nearer square than
    :data:`BOTH_WAYS` twice, once each way round), its face warped bicubic. ``grey``: the
    photo in grey, when the caller has it."""
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY) if grey is None else grey
    out = []
    for quad, ratio in card_shapes(photo):
        for turn in (False, True) if ratio < BOTH_WAYS else (False,):
            out.append(Located(photo, grey, quad, turn=turn, interpolation=cv2.INTER_CUBIC))
    return out


def _masks(lightness: np.ndarray) -> list[np.ndarray]:
    """What stands apart, several ways: Otsu's split of the lightness; the pixels lighter
    than their surroundings (:data:`WINDOWS`, :data:`STEPS`: a card on a floor lit
    unevenly); Otsu's split after the contrast is raised tile by tile (CLAHE)."""
    masks = [cv2.threshold(lightness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]]
    light = lightness.astype(np.float32)
    for share in WINDOWS:
        size = int(max(lightness.shape) * share) | 1
        above = light - cv2.blur(light, (size, size))
        masks += [(above > step).astype(np.uint8) * 255 for step in STEPS]
    raised = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(lightness)
    masks.append(cv2.threshold(raised, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1])
    return masks


def _card_shape(contour: np.ndarray, frame_area: int, near: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The contour's best quadrilateral and its proportions, when it may be a card's."""
    area = cv2.contourArea(contour)
    if not SMALLEST <= area <= LARGEST * frame_area:
        return None
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if area < SHAPE_FILL * hull_area:
        return None
    quad = cv2.approxPolyN(hull, 4, ensure_convex=True).reshape(-1, 2).astype(np.float32)
    if len(quad) != 4 or hull_area < HULL_IN_QUAD * cv2.contourArea(quad):
        return None
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    ratio = float((sides[0] + sides[2]) / (sides[1] + sides[3]))
    ratio = max(ratio, 1 / ratio)
    if ratio > LONGEST or side_support(near, quad / 2).min() < SIDE_EDGES:
        return None
    return quad, ratio


#: Ink: darker than the mean of its surroundings (a window this many px of the working
#: size) by this many grey levels; an inked shape covers this many px (working size).
INK_WINDOW, INK_STEP, INK_AREA = 31, 12, (12, 4000)
#: A rank and the suit under it: the suit's centre lies this many times the rank's size
#: away, and the suit is this many times the rank's size.
RANK_TO_SUIT, SUIT_SIZE = (0.7, 1.7), (0.45, 1.3)
#: Two corners' indices: turned half a turn from each other within this (cosine of the
#: angle between them, from -1), their sizes this far apart, and the second where the
#: first's scale puts it, within this share of the distance and this angle (degrees).
TURNED, SIZES_APART, DIAGONAL_SCALE, DIAGONAL_ANGLE = -0.9, (0.7, 1.4), (0.75, 1.33), 10.0
#: The same for a card seen at a slant, whose near index is larger than its far one (the
#: perspective fit of both indices' ranks and suits).
SLANT_SIZES, SLANT_ANGLE = (0.5, 2.0), 15.0
#: The most outlines offered from a photo's indices (the likeliest first), each read as
#: fitted and this much smaller and larger about its middle: the indices' shapes are
#: found blurred and speckled, and the design's index centres are medians, so the outline
#: put by them lies within some 5 % of the card's (as shot, 178 -> 180 of 200 photos read).
MOST_FROM_INDICES = 40
INDEX_FIT_SCALES = (1.0, 0.95, 1.05)


def index_outlines(photo: np.ndarray, design: LearnedDesign, grey: np.ndarray | None = None) -> list[Located]:
    """Where ``design``'s two corner indices put a card, for each two indices in
    ``photo`` that may be one card's (none for a design saved without
    :attr:`~vision.learn.LearnedDesign.index_centres`), likeliest first. Two indices
    alike in size give a fit of both indices' rank and suit without perspective
    (affine) and one of the two ranks alone (a turn, a scale and a shift); two indices
    whose sizes differ up to :data:`SLANT_SIZES` (a card seen at a slant), the fit of
    their four points in perspective. ``grey``: the photo in grey, when the caller has it."""
    if design.index_centres is None:
        return []
    rank_at, suit_at = np.asarray(design.index_centres[:2]), np.asarray(design.index_centres[2:])
    far = np.array([FACE_W, FACE_H], float)
    face_pts = np.array([rank_at, suit_at, far - rank_at, far - suit_at])
    corners = FACE_CORNERS.astype(float)
    found: list[tuple[float, np.ndarray]] = []
    idx = _indices(_inked_shapes(photo))
    for a, (r1, s1, d1) in enumerate(idx):
        down = (s1 - r1) / d1  # along the card, from its end inward
        for b, (r2, s2, d2) in enumerate(idx):
            if b == a or float((s2 - r2) @ down) / d2 > TURNED or not SLANT_SIZES[0] < d2 / d1 < SLANT_SIZES[1]:
                continue
            image_pts = np.array([r1, s1, r2, s2])
            flat = _diagonal_miss(r1, r2, down, d1, rank_at, suit_at)
            if flat is not None and SIZES_APART[0] < d2 / d1 < SIZES_APART[1]:
                fit = np.linalg.lstsq(np.c_[face_pts, np.ones(4)], image_pts, rcond=None)[0]
                found.append((flat, (np.c_[corners, np.ones(4)] @ fit).astype(np.float32)))
                # The two ranks alone: z = m·w + c in complex numbers (a turn and a scale, m).
                z1, z2, w1, w2 = complex(*r1), complex(*r2), complex(*rank_at), complex(*(far - rank_at))
                m = (z2 - z1) / (w2 - w1)
                turned = [m * complex(*c) + z1 - m * w1 for c in corners]
                found.append((flat + 1e-3, np.array([[z.real, z.imag] for z in turned], np.float32)))
            # Seen at a slant, the near index is larger than the far one: the four points
            # in perspective (the two indices' scales averaged for the check).
            avg_down = (down - (s2 - r2) / d2) / 2
            slant = _diagonal_miss(r1, r2, avg_down / max(float(np.linalg.norm(avg_down)), 1e-9),
                                   (d1 + d2) / 2, rank_at, suit_at, angle=SLANT_ANGLE)
            if slant is not None:
                h = cv2.getPerspectiveTransform(face_pts.astype(np.float32), image_pts.astype(np.float32))
                quad = cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float32), h).reshape(4, 2)
                if cv2.isContourConvex(quad.reshape(-1, 1, 2)):
                    found.append((slant + 2e-3, quad))
    found.sort(key=lambda f: f[0])
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY) if grey is None else grey
    out: list[Located] = []
    taken: list[np.ndarray] = []
    for _, quad in found:
        if len(taken) == MOST_FROM_INDICES:
            break
        if not any(_same_outline(quad, o) for o in taken):
            taken.append(quad)
    for quad in taken:
        mid = quad.mean(axis=0)
        for k in INDEX_FIT_SCALES:
            out.append(Located(photo, grey, (mid + k * (quad - mid)).astype(np.float32), ordered=True,
                               interpolation=cv2.INTER_CUBIC))
    return out


def _same_outline(a: np.ndarray, b: np.ndarray, tol: float = 8.0) -> bool:
    """Do the quadrilaterals ``a`` and ``b`` have their corners within ``tol`` px of each
    other's, in whatever order (an outline found from either of its two indices)?"""
    return bool(np.hypot(*(a[:, None, :] - b[None, :, :]).transpose(2, 0, 1)).min(axis=1).max() < tol)


def _diagonal_miss(r1: np.ndarray, r2: np.ndarray, down: np.ndarray, apart_px: float, rank_at: np.ndarray,
                   suit_at: np.ndarray, angle: float = DIAGONAL_ANGLE) -> float | None:
    """How far the second rank ``r2`` lies from where the first index (its rank ``r1``,
    the unit vector ``down`` from rank to suit, ``apart_px`` between them) puts the other
    corner's rank: the share its distance is off plus one less the cosine of the angle;
    ``None`` past :data:`DIAGONAL_SCALE` or ``angle`` degrees."""
    right = np.array([down[1], -down[0]])  # across the card, inward
    across = np.array([FACE_W, FACE_H]) - 2 * rank_at  # from one rank to the other, on the face
    expected = apart_px / float(np.linalg.norm(suit_at - rank_at)) * (across[0] * right + across[1] * down)
    diagonal = r2 - r1
    lengths = float(np.linalg.norm(diagonal) * np.linalg.norm(expected))
    scale = float(np.linalg.norm(diagonal) / max(float(np.linalg.norm(expected)), 1e-9))
    cos = float(diagonal @ expected) / max(lengths, 1e-9)
    if not DIAGONAL_SCALE[0] < scale < DIAGONAL_SCALE[1] or cos < np.cos(np.radians(angle)):
        return None
    return abs(scale - 1) + (1 - cos)


def _inked_shapes(photo: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Each inked shape of a glyph's size: its centre and size (photo px)."""
    img, s = working_size(photo)
    lightness = cv2.cvtColor(cv2.medianBlur(img, 3), cv2.COLOR_BGR2LAB)[..., 0]
    ink = cv2.adaptiveThreshold(lightness, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                INK_WINDOW, INK_STEP)
    n, _, stats, centres = cv2.connectedComponentsWithStats(ink)
    out = []
    for k in range(1, n):
        x, y, bw, bh, area = stats[k]
        if INK_AREA[0] <= area <= INK_AREA[1] and max(bw, bh) <= 6 * min(bw, bh):
            out.append((centres[k] / s, max(bw, bh) / s))
    return out


def _indices(shapes: list[tuple[np.ndarray, float]]) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Each two shapes that may be a rank and the suit under it: (rank's centre, suit's
    centre, their distance)."""
    if not shapes:
        return []
    at = np.array([c for c, _ in shapes])
    size = np.array([z for _, z in shapes])
    out = []
    for i in range(len(shapes)):
        dist = np.hypot(*(at - at[i]).T)
        near = ((dist > RANK_TO_SUIT[0] * size[i]) & (dist < RANK_TO_SUIT[1] * size[i])
                & (size > SUIT_SIZE[0] * size[i]) & (size < SUIT_SIZE[1] * size[i]))
        out += [(at[i], at[j], float(dist[j])) for j in np.nonzero(near)[0]]
    return out


def evenly_lit(found: Located) -> Located:
    """``found``'s face with its paper's light evened out: each channel divided by the
    paper's light there (the channel closed :data:`EVEN_LIGHT` wide, smoothed).

    A shadow's edge across a corner, or a glare, splits the paper into two greys, and
    the reader's one threshold then takes the shaded paper for ink. Divided by its own
    light, the paper is one grey again and the ink stays ink. The light is found at half
    the face's size (it changes slowly; a sixteenth of the work, and at a quarter of the
    size a soft 8♦ was no longer read). The outline returned is the warped face itself
    (its corners the face's); its ``area`` is ``found``'s.
    """
    face = found.face
    half = cv2.resize(face, (FACE_W // 2, FACE_H // 2), interpolation=cv2.INTER_AREA)
    width = EVEN_LIGHT // 2 | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
    light = cv2.GaussianBlur(cv2.morphologyEx(half, cv2.MORPH_CLOSE, disc), (0, 0), width / 4)
    light = cv2.resize(light, (FACE_W, FACE_H), interpolation=cv2.INTER_LINEAR)
    # 235: a paper white the reader's contrast and redness measures were learned near.
    even = cv2.divide(face, light, scale=235)
    return _altered(even, found)


def index_column(found: Located, design: LearnedDesign) -> Located | None:
    """``found``'s face with each corner's paper beside its index column painted paper,
    or ``None`` when the design does not know where its indices are.

    A court's picture, in strong colours beside a faint grey or pink index, sets the
    corner's one ink threshold: the index's thin strokes fall under it, a rank breaks up
    and its suit is cut short. Only what lies in the index's column, as wide as the
    design's widest glyph (its "10") about the learned centres
    (:attr:`vision.learn.LearnedDesign.index_centres`) and :data:`COLUMN_MARGIN` more, is
    left; the rest of the corner is given its paper's colour. Nothing is added: a glyph
    cut short fits no template, and the two corners must still name one card.
    """
    if design.index_centres is None:
        return None
    rank_x, _, suit_x, _ = (float(v) for v in design.index_centres)
    rank_w = float(np.max(design.rank_aspect * design.rank_height))
    suit_w = max(float(design.suit_aspect[i]) * design.suit_height_of(i) for i in range(4))
    cut = int(np.ceil(max(rank_x + rank_w / 2, suit_x + suit_w / 2))) + COLUMN_MARGIN
    w, h = design.roi
    if cut >= w:
        return None
    face = found.face.copy()
    for ys, xs in ((slice(0, h), slice(0, w)), (slice(FACE_H - h, FACE_H), slice(FACE_W - w, FACE_W))):
        corner = face[ys, xs]
        paper = np.percentile(corner.reshape(-1, 3), 90, axis=0).astype(np.uint8)
        if xs.start == 0:
            corner[:, cut:] = paper
        else:  # the bottom-right corner, the face turned half a turn: its column is on the right
            corner[:, : w - cut] = paper
    return _altered(face, found)


def _altered(face: np.ndarray, found: Located) -> Located:
    """A face altered from ``found``'s, as an outline to read: its corners the face's own,
    its area ``found``'s (which thresholds read it: a small card's or a large one's)."""
    out = Located(face, cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), FACE_CORNERS.copy(), ordered=True)
    out.area = found.area
    return out
