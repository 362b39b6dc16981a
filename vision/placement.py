"""Where a card's index lies in its outline, and what an outline longer than one card says.

Two cards stuck together, all but aligned, pass the feeder's thickness sensor
and reach the gate as one: the camera sees one outline, of both, a few
millimetres longer than a card (issue 15). The top card's two indices then
lie further in from the outline's two ends, together, by how far the cards
are apart. A card cut off-centre does not do that: its print moves towards
one end and away from the other by the same amount, so the two distances'
*sum* is the same for every card of a deck, however it was cut. The learning
pass measures that sum for each rank (:attr:`vision.learn.LearnedDesign.rank_places`);
at the gate a card whose sum exceeds it by more than
:attr:`vision.index.Thresholds.index_place_tol` is refused as two cards.

Each distance is measured from the outline's end, or from the inner edge of
a dark printed border the outline takes in there: on a dark floor the outline
of a black-bordered deck (Bonded, Dondorf) runs inside its border, on a
light one outside it (:func:`end_bands`).

>>> from dealer.cards import Card
>>> from vision.locate import locate
>>> from vision.render import render_card_frame
>>> end_bands(locate(render_card_frame(Card.parse("KH"), design="bonded", seed=5, distortions="light-floor")))
(6, 5)
>>> end_bands(locate(render_card_frame(Card.parse("KH"), design="bonded", seed=5)))
(0, 0)
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from vision.locate import FACE_H, FACE_W, Located

#: The strip across each end of the face where a printed border is looked for: the
#: middle third of the card's width (clear of both corners' indices), this many rows deep.
BAND_DEPTH = 16
#: A row darker than this share of the strip's paper is ink; a band is a run of such
#: rows that starts within the first :data:`BAND_START` rows (the outline's own edge
#: blends a row or two with the floor) and ends where a row is this light again.
BAND_INK, BAND_END, BAND_START = 0.35, 0.5, 4


Box = tuple[int, int, int, int]


def _band(rows: np.ndarray) -> int:
    paper = float(rows.max())
    ink = np.flatnonzero(rows < BAND_INK * paper)
    if ink.size == 0 or ink[0] > BAND_START:
        return 0
    light = np.flatnonzero(rows[ink[0]:] >= BAND_END * paper)
    if light.size == 0:  # dark to the strip's depth: not a border (a card's picture, a shadow)
        return 0
    run = int(light[0])
    return int(ink[0]) + run if run >= 2 else 0  # one dark row is the outline's blend with the floor


def end_bands(found: Located) -> tuple[int, int]:
    """Rows of a dark printed border the outline takes in at the face's top and bottom
    ends (0: none). Only a few hundred pixels of the face are warped."""
    x, w = FACE_W // 3, FACE_W // 3
    top = found.region(x, 0, w, BAND_DEPTH)
    bottom = found.region(x, FACE_H - BAND_DEPTH, w, BAND_DEPTH)[::-1]
    out = []
    for strip in (top, bottom):
        grey = cv2.cvtColor(strip, cv2.COLOR_BGR2GRAY) if strip.ndim == 3 else strip
        out.append(_band(grey.mean(axis=1)))
    return out[0], out[1]


def rank_edges(a: Box, b: Box, bands: tuple[int, int]) -> tuple[float, float]:
    """The two corners' rank boxes' top edges summed, and their bottom edges, each from its
    end of the card (``a`` the top-left corner's box, ``b`` the bottom-right's, turned)."""
    top = a[1] - bands[0] + b[1] - bands[1]
    bottom = a[1] + a[3] - bands[0] + b[1] + b[3] - bands[1]
    return float(top), float(bottom)


def apart(a: Box, b: Box) -> float:
    """How far the two corners' rank boxes lie from each other's place along the card: the
    top edges compared and the bottom edges, the nearer taken (cutting off-centre moves
    this, and a card stuck under the card)."""
    return float(min(abs(a[1] - b[1]), abs(a[1] + a[3] - b[1] - b[3])))


def learned_places(seen: Iterable[tuple[int, Box, Box, tuple[int, int]]]) -> np.ndarray:
    """(13, 3): for each rank 2..A, the medians over the learning pass of :func:`rank_edges`
    (two columns) and of :func:`apart`. ``seen``: (rank, top-left box, bottom-right box,
    :func:`end_bands`) for each card."""
    by_rank: dict[int, list[tuple[float, float, float]]] = {r: [] for r in range(2, 15)}
    for rank, a, b, bands in seen:
        by_rank[rank].append((*rank_edges(a, b, bands), apart(a, b)))
    return np.array([np.median(np.array(by_rank[r]), axis=0) for r in range(2, 15)], np.float32)


def further_in(places: np.ndarray, rank: int, a: Box, b: Box, bands: tuple[int, int]) -> tuple[float, float]:
    """How much further in from the outline's ends the two indices lie than the learned
    ``places`` put them (px of the 300×420 face; < 0: nearer the ends). The top edges are
    compared, and the bottom edges: the nearer of the two (a thumb or a lost stroke moves
    one edge of a box only), and their mean."""
    top, bottom = rank_edges(a, b, bands)
    d_top, d_bottom = top - float(places[rank - 2][0]), bottom - float(places[rank - 2][1])
    return (d_top if abs(d_top) <= abs(d_bottom) else d_bottom), (d_top + d_bottom) / 2
