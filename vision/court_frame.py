"""A court card's picture frame: learned from the pass, sought in photographs (issue 15,
fifteenth pass).

A court card of many real designs prints its picture inside a thin ruled frame, the
same for every court of the deck. On a white sheet or under glare the card's own edge
is lost in the floor (the locator reads "outline fills 79 % of its hull"), but the
frame stays crisp: a dark line round a dark picture, on the card's white margin.

:func:`learned_frame` finds the frame in each court face of the learning pass and
keeps its corners (face px, 300 × 420) when most courts show one, in one place
(:attr:`vision.learn.LearnedDesign.picture_frame`). :func:`frame_outlines` finds
each shape in a photograph that may be such a frame, a filled quadrilateral at any
slant, and puts the card where the design's frame puts it: the perspective map from
the learned frame to the shape found, applied to the face's corners. Nothing is
taken from the frame but the outline: the reader's two corners still decide, as for
every outline offered from a photograph (:mod:`vision.photo_cards`).

>>> import numpy as np
>>> face = np.full((420, 300, 3), 235, np.uint8)
>>> _ = cv2.rectangle(face, (50, 40), (250, 380), (40, 40, 40), 3)
>>> np.round(face_frame(face)).astype(int).tolist()
[[48, 38], [252, 38], [252, 382], [48, 382]]
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from vision.gate_view import working_size
from vision.locate import FACE_CORNERS, FACE_H, FACE_W, Located

#: Ink: darker than the mean of a window this wide (px) by this many grey levels; each
#: pair is one try (a frame line in a soft photo needs the lower step).
INK = ((31, 10), (61, 10), (31, 6))
#: The frame's share of the face: a court's picture covers this much of its card (the
#: phone deck's, Dondorf's and Bonded's about half). A line ruled round the whole card
#: (classic's, Tigullio's, near nine tenths) is no picture's frame: where it lies is the
#: card's outline, sought already as a card-shaped mask, and taken for a frame it puts a
#: court's picture of another deck where a card would be (read with Tigullio's design,
#: a J♣'s picture was so read as the J♠).
FACE_SHARE = (0.25, 0.75)
#: The least share of its best quadrilateral the filled shape covers (a frame is one).
QUAD_FILL = 0.9
#: How many courts of the pass must show the frame, as a share of those in the pass
#: and at least; and how near (face px) each corner lies to the median of them all.
MOST_COURTS, FEWEST_COURTS, FRAME_TOL = 0.4, 4, 10.0
#: Photo side: the smallest shape offered (px, at the working size), the most
#: elongated (its long sides over its short; a frame of 1.67 seen at a slant), the
#: openings that cut an index or a glare streak from the frame (px), and the shape
#: nearer square than this is offered both ways round.
SMALLEST, LONGEST, OPENINGS, BOTH_WAYS = 1_200, 3.6, (7, 13), 1.3
#: Each card put by a frame is also read this much smaller and larger about its middle
#: (the frame line's thickness and the blur move its outline by a pixel or two).
SCALES = (1.0, 0.97, 1.03)

_DOT5 = np.ones((5, 5), np.uint8)


def face_frame(face: np.ndarray) -> np.ndarray | None:
    """The corners of the picture frame in a face (top-left, top-right, bottom-right,
    bottom-left, face px), or ``None`` when the face shows no filled quadrilateral of a
    picture's size."""
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY) if face.ndim == 3 else face
    ink = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, *INK[0])
    ink = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best: tuple[float, np.ndarray] | None = None
    for contour in contours:
        area = cv2.contourArea(contour)
        if not FACE_SHARE[0] * FACE_W * FACE_H < area < FACE_SHARE[1] * FACE_W * FACE_H:
            continue
        quad = _quad(contour, area)
        if quad is not None and (best is None or area > best[0]):
            best = (area, _clockwise_from_top_left(quad))
    return None if best is None else best[1]


def learned_frame(faces: Iterable[np.ndarray]) -> np.ndarray | None:
    """The frame the court ``faces`` of a learning pass show, as the median of their
    corners; ``None`` unless at least :data:`MOST_COURTS` of them (and
    :data:`FEWEST_COURTS`) show one within :data:`FRAME_TOL` of that median."""
    faces = list(faces)
    found = [f for f in (face_frame(face) for face in faces) if f is not None]
    if len(found) < max(FEWEST_COURTS, MOST_COURTS * len(faces)):
        return None
    median = np.median(found, axis=0)
    near = [f for f in found if float(np.abs(f - median).max()) <= FRAME_TOL]
    if len(near) < max(FEWEST_COURTS, MOST_COURTS * len(faces)):
        return None
    return np.median(near, axis=0).astype(np.float32)


def frame_outlines(photo: np.ndarray, frame: np.ndarray | None, grey: np.ndarray | None = None) -> list[Located]:
    """Where a court's picture ``frame`` (learned, face px) puts a card, for each shape in
    ``photo`` that may be that frame (none when the design has no frame) and has paper
    round it (:func:`_paper_round`), each at :data:`SCALES`. ``grey``: the photo in grey,
    when the caller has it."""
    if frame is None:
        return []
    img, s = working_size(photo)
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY) if grey is None else grey
    out: list[Located] = []
    for quad in _frames_in(img):
        for ordered in _orderings(quad / s):
            h = cv2.getPerspectiveTransform(frame.astype(np.float32), ordered.astype(np.float32))
            card = cv2.perspectiveTransform(FACE_CORNERS.reshape(-1, 1, 2), h).reshape(4, 2)
            if not np.isfinite(card).all() or not cv2.isContourConvex(card.reshape(-1, 1, 2)):
                continue
            found = Located(photo, grey, card.astype(np.float32), ordered=True, interpolation=cv2.INTER_CUBIC)
            if not _paper_round(found, frame):
                continue
            mid = card.mean(axis=0)
            out += [found] + [Located(photo, grey, (mid + k * (card - mid)).astype(np.float32), ordered=True,
                                      interpolation=cv2.INTER_CUBIC) for k in SCALES if k != 1.0]
    return out


#: The margin round the frame is the card's paper: its median lies this many grey levels
#: above the picture's, and above this share of the face's pixels (a small grey face).
PAPER_ABOVE_PICTURE, PAPER_RANK = 20.0, 60
_SMALL = (75, 105)


def _paper_round(found: Located, frame: np.ndarray) -> bool:
    """Is the card put by a frame paper round the frame, lighter than the picture in it?

    A shape taken for the frame that is not one (a card's whole outline on a dark floor,
    a part of a picture) puts the card's margin on the floor or in the picture: its
    median is then no lighter than what lies inside.
    """
    w, h = _SMALL
    small = found.grey_face(w, h).astype(np.float32)
    (x0, y0), (x1, y1) = frame.min(axis=0) * (w / FACE_W, h / FACE_H), frame.max(axis=0) * (w / FACE_W, h / FACE_H)
    margin = np.ones((h, w), bool)
    margin[max(int(y0) - 1, 0) : int(np.ceil(y1)) + 1, max(int(x0) - 1, 0) : int(np.ceil(x1)) + 1] = False
    margin[:2], margin[-2:], margin[:, :2], margin[:, -2:] = False, False, False, False
    inside = small[int(y0) + 2 : int(y1) - 2, int(x0) + 2 : int(x1) - 2]
    if margin.sum() < 0.05 * margin.size or inside.size == 0:
        return False
    paper = float(np.median(small[margin]))
    return paper >= float(np.median(inside)) + PAPER_ABOVE_PICTURE and paper >= float(np.percentile(small, PAPER_RANK))


def _frames_in(img: np.ndarray) -> list[np.ndarray]:
    """Each filled quadrilateral in the photo (working size) that may be a frame: its ink
    (:data:`INK`) closed, each outer shape filled, thin things joined to it (an index, a
    glare's edge) cut off by an opening."""
    grey = cv2.cvtColor(cv2.medianBlur(img, 3), cv2.COLOR_BGR2GRAY)
    found: list[np.ndarray] = []
    for window, step in INK:
        ink = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, window, step)
        ink = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, _DOT5)
        contours, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        solid = np.zeros_like(ink)
        cv2.drawContours(solid, contours, -1, 255, cv2.FILLED)
        for k in OPENINGS:
            opened = cv2.morphologyEx(solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
            shapes, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for shape in shapes:
                area = cv2.contourArea(shape)
                if not SMALLEST <= area <= 0.5 * grey.size:
                    continue
                quad = _quad(shape, area)
                if quad is not None and _ratio(quad) <= LONGEST \
                        and not any(float(np.abs(quad - q).max()) < 5 for q in found):
                    found.append(quad)
    return found


def _quad(contour: np.ndarray, area: float) -> np.ndarray | None:
    """The contour's best quadrilateral, when the contour fills :data:`QUAD_FILL` of it."""
    quad = cv2.approxPolyN(cv2.convexHull(contour), 4, ensure_convex=True).reshape(-1, 2).astype(np.float32)
    if len(quad) != 4 or area < QUAD_FILL * cv2.contourArea(quad):
        return None
    return quad


def _ratio(quad: np.ndarray) -> float:
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    ratio = float((sides[0] + sides[2]) / max(float(sides[1] + sides[3]), 1e-9))
    return max(ratio, 1 / max(ratio, 1e-9))


def _clockwise_from_top_left(quad: np.ndarray) -> np.ndarray:
    """A face's quadrilateral as top-left, top-right, bottom-right, bottom-left."""
    total, diff = quad.sum(axis=1), quad[:, 0] - quad[:, 1]
    return np.array([quad[np.argmin(total)], quad[np.argmax(diff)], quad[np.argmax(total)],
                     quad[np.argmin(diff)]], np.float32)


def _orderings(quad: np.ndarray) -> list[np.ndarray]:
    """The ways the frame's corners may be the face's (clockwise, as the face's; its
    first side a short one): one of each half-turn pair, since the reader reads both
    corners; both pairs when the shape is nearer square than :data:`BOTH_WAYS`."""
    (ax, ay), (bx, by) = quad[1] - quad[0], quad[2] - quad[1]
    if ax * by - ay * bx < 0:
        quad = quad[::-1]  # clockwise in the image's pixels, as the face's corners
    out = []
    for k in range(2):
        turned = np.roll(quad, -k, axis=0)
        first, second = (float(np.linalg.norm(turned[i + 1] - turned[i])) for i in range(2))
        if first <= second * BOTH_WAYS:
            out.append(turned)
    return out
