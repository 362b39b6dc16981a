"""Find the card in a frame and warp it upright to a 300×420 face.

The gate floor is dark and the card is light, so an Otsu threshold and the
largest outer contour find it. The outline must be a convex quadrilateral of
plausible area; otherwise there is no card (or two overlapping cards) and the
caller rejects. The warp puts a short edge at the top; since both ends of a
card carry the same index, which short edge comes first does not matter.

>>> from dealer.cards import Card
>>> from vision.render import render_card_frame
>>> found = locate(render_card_frame(Card.parse("H7"), seed=3))
>>> found.face.shape
(420, 300, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.decision import Reason, Reject

FACE_W, FACE_H = 300, 420
MIN_AREA = 60_000  # px in a 640×480 frame; a card at the gate covers ~126,000
MAX_AREA = 230_000


@dataclass(frozen=True)
class Located:
    """The card's face, warped upright, and its outline in the frame."""

    face: np.ndarray
    quad: np.ndarray
    area: float


def locate(frame: np.ndarray) -> Located | Reject:
    """Find one card; a :class:`Reject` (no card / two cards) otherwise."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    lo, hi = np.percentile(small[::2, ::2], (1, 99))
    if hi - lo < 50:  # Otsu would split plain floor noise in two; a card stands out by far more
        return Reject(Reason.NO_CARD, f"nothing on the gate (brightness spread {hi - lo:.0f})")
    _, mask = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return Reject(Reason.NO_CARD, "nothing light on the gate")
    big = sorted(contours, key=cv2.contourArea, reverse=True)
    outline = big[0]
    area = cv2.contourArea(outline) * 4
    if area < MIN_AREA:
        return Reject(Reason.NO_CARD, f"largest light shape is {area:.0f} px, too small for a card")
    if len(big) > 1 and cv2.contourArea(big[1]) * 4 >= MIN_AREA / 2:
        return Reject(Reason.TWO_CARDS, "two card-sized shapes on the gate")
    if area > MAX_AREA:
        return Reject(Reason.NO_CARD, f"light shape of {area:.0f} px is too large for one card")
    peri = cv2.arcLength(outline, True)
    quad = cv2.approxPolyDP(outline, 0.025 * peri, True)
    if len(quad) != 4 or not cv2.isContourConvex(quad):
        # Overlapping cards make a 6- or 8-sided outline: never guess which is on top.
        return Reject(Reason.TWO_CARDS, f"outline has {len(quad)} corners, not 4")
    quad = quad.reshape(4, 2).astype(np.float32) * 2 + 0.5
    if cv2.contourArea(quad) < 0.93 * area:
        return Reject(Reason.TWO_CARDS, "outline is not a single rectangle")
    sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)
    ratio = (sides[0] + sides[2]) / (sides[1] + sides[3])
    ratio = max(ratio, 1 / ratio)
    if not 1.15 <= ratio <= 1.65:  # a card is 88 × 63 mm: 1.40
        return Reject(Reason.TWO_CARDS, f"outline is {ratio:.2f} times as long as wide, "
                      "not a card's 1.40 (overlapping cards?)")
    quad = _refine(grey, quad)
    return Located(_warp(frame, quad), quad, area)


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


def _warp(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    # Order the corners clockwise from any corner, then start on a short edge.
    c = quad.mean(axis=0)
    order = np.argsort(np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0]))
    q = quad[order]
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)
    dst = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
    m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    return cv2.warpPerspective(frame, m, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR)
