"""Read an ordinary card from its corner indices, against one learned design.

Per frame: find and warp the card; check it is face up; cut both corner
indices (top-left, and bottom-right turned 180°); in each, match the rank and
the suit separately against the design's templates, check the glyph sizes fit
the design, and check the ink colour against the suit. The card is accepted
only when both corners pass every check and name the same card: two
independent reads. Anything else is a :class:`~vision.decision.Reject`.

A card turned 180° is read normally: both ends carry the same index.

>>> from dealer.cards import Card
>>> from vision.render import render_card_frame
>>> from vision.learn import learn
>>> d = learn("std", [(str(c), render_card_frame(c, seed=int(c))) for c in Card.all()])
>>> IndexReader(d).read(render_card_frame(Card.parse("HQ"), seed=99)).label
'HQ'
>>> IndexReader(d).read(render_card_frame(Card.parse("HQ"), design="script", seed=9)).accepted
False
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from dealer.cards import Card, Rank, Suit
from dealer.play_watch import Partial
from vision import corroborate, placement
from vision.decision import Outcome, Read, Reason, Reject
from vision.glyphs import Glyphs, colourless, corner_glyphs, margin, roi_glyphs
from vision.learn import CHECK_CARDS, LearnedDesign, LearnError, is_back
from vision.locate import Located, locate, other_outlines


@dataclass(frozen=True)
class Thresholds:
    """Acceptance margins; see docs/vision.md for how they were set."""

    rank_min: float = 0.90  # normalised cross-correlation with the best rank template
    suit_min: float = 0.93
    # How far the glyph lies towards the best template from every other one, along
    # the line between the two templates: 1 at the best template, 0 half-way, -1 at
    # the other (see :func:`margin`). Suit shapes correlate at 0.85-0.95 with each
    # other, so what tells them apart is where the glyph lies on that line, not how
    # near it is to either.
    margin: float = 0.5
    # A suit of the other colour, when the ink has already ruled it out.
    cross_colour_margin: float = 0.25
    size_tol: float = 0.15  # glyph height within ±15 % of the learned height
    # The corner that corroborates: once one corner fits the design on every check,
    # the other must name the same card by the same margins, but its fit to the
    # design (how well its glyphs match, their size) may be looser: a real
    # photograph's second corner is often in shadow, glare or blur (issue 15).
    second_rank_min: float = 0.75
    second_suit_min: float = 0.85
    second_size_tol: float = 0.25
    aspect_tol: float = 0.22  # glyph width/height within ±22 % of the learned shape
    # Both corners print the index at the same place in their corner: the two ranks'
    # boxes may lie this far apart along the card's long side (px of the 300×420 face),
    # top and bottom edge alike. A card under this one, all but hidden, makes the outline
    # of both: one corner's index is then where the top card's corner is, the other's off
    # by how far the cards are apart (issue 15, seventh pass; one real photo in 189 has
    # its corners 21 px apart). A thumb over an index moves one edge of its box, not both.
    index_shift_tol: float = 14.0
    # At the gate: how much further in from the outline's two ends, together, both
    # indices may lie than the learning pass put them (px of the face; vision.placement).
    # Rendered single cards lie within 3.5 (a worn index 7 in 200); two cards stuck
    # together 8-60 px apart, 3 and more (issue 15, fourteenth pass).
    index_place_tol: float = 4.0
    # ... or further in on average (top and bottom edges) by more than the first, and by
    # more than the second together with how much further the two indices lie from each
    # other's place than the pass's: a stuck pair moves one end's index only, so both
    # measures grow at once (fourteenth pass, measured on fresh draws: of 5,967 rendered
    # single cards this refused 1 that the first did not; of 1,180 pairs 8-12 px apart,
    # 4 were still read, against 63 with the first alone).
    index_place_joint: tuple[float, float] = (2.0, 8.0)
    colour_margin: float = 0.25  # redness this far (of the red/black gap) from the split
    blur_ratio: float = 0.45  # sharpness below this fraction of the learned frames = blurred
    joker_min: float = 0.80
    paper_min: float = 0.45  # without a learned back: both corners unread and less paper = face down
    # The minimum scores of a corner searched for every glyph (:meth:`IndexReader._searched`)
    # when they are not rank_min and suit_min (a small card in a photo, for_small_photo_cards).
    searched_min: tuple[float, float] | None = None
    # May both corners searched name a black suit (:meth:`IndexReader._searched`)? Not on
    # the many outlines tried in a photograph (for_photo_outlines): ♣ and ♠ differ least of
    # any two suits, and ink colour cannot tell them apart.
    search_black: bool = True


@dataclass(frozen=True)
class CornerRead:
    card: Card
    rank_score: float
    rank_margin: float
    suit_score: float
    suit_margin: float


#: In a photograph, the rejects after which the other outlines are read: the card not
#: found, or an outline whose corners are not one card's index (never two cards, a back,
#: a joker: those are what the photo shows).
RETRIED_IN_PHOTOS = frozenset({Reason.NO_CARD, Reason.BACKGROUND_LIGHT, Reason.NOT_THIS_DECK,
                               Reason.DISAGREE, Reason.AMBIGUOUS, Reason.BLURRED})

#: How soft a glyph may be, against the learned frames, on a face warped up from a card
#: small in a photograph (:func:`for_small_photo_cards`).
SMALL_PHOTO_BLUR = 0.2
#: The least rank and suit scores of a small photo card's corner searched for every glyph
#: (:meth:`IndexReader._searched`): nearer the first corner's fit (0.90, 0.93) than the
#: shapes' own (0.75, 0.85). Searched with a design learned from another deck, a phone
#: deck's small 9 was read as the classic design's Q at 0.75 and 0.79 (eleventh pass).
SMALL_PHOTO_SEARCHED_MIN = (0.85, 0.90)
#: The least suit score of a small photo card's corner read from its shapes: the rank's
#: minimum is the second corner's (0.75), the suit's between that corner's (0.85) and the
#: first's (0.93). At 0.85, a small K♣ was read as Tigullio's K♠ at 0.894 (eleventh pass).
SMALL_PHOTO_SUIT_MIN = 0.90


def for_small_photo_cards(t: Thresholds) -> Thresholds:
    """The thresholds a card found small in a photograph is read with
    (:mod:`vision.photo_cards`: its outline covers fewer of the photo's pixels than
    :data:`vision.locate.MIN_AREA`, the gate's smallest readable card).

    Such a card covers a tenth to a half of the gate's card in the photo: its face,
    warped up from few pixels, is soft, and every template's score drops with it. So
    both corners' ranks are held to the second corner's fit to the design
    (:attr:`Thresholds.second_rank_min`), their suits to :data:`SMALL_PHOTO_SUIT_MIN`, a
    glyph as soft as :data:`SMALL_PHOTO_BLUR` of the learned frames is taken, and a
    corner searched for every glyph is held to :data:`SMALL_PHOTO_SEARCHED_MIN` (and, as
    every photo outline, :func:`for_photo_outlines`). The margins that tell
    one glyph from the next are unchanged, and both corners must still name the card,
    their indices placed as one card's.
    """
    return dataclasses.replace(for_photo_outlines(t), rank_min=t.second_rank_min, suit_min=SMALL_PHOTO_SUIT_MIN,
                               blur_ratio=SMALL_PHOTO_BLUR, searched_min=SMALL_PHOTO_SEARCHED_MIN)


def for_altered_faces(t: Thresholds) -> Thresholds:
    """The thresholds a photo outline's face altered before it is read is read with
    (:func:`vision.photo_cards.evenly_lit`, :func:`vision.photo_cards.index_column`): as
    ``t``, but a corner searched for every glyph must reach the first corner's suit
    minimum (:attr:`Thresholds.suit_min`), not a small card's :data:`SMALL_PHOTO_SEARCHED_MIN`.
    Evened out, a grey photo's small 8♠ was searched as Bonded's 8♦ at a suit score of
    0.902 (twelfth pass): with no ink colour to check, only the shape tells the suits
    apart, and the search tries many places and sizes on a face that is no longer the
    photo's own pixels."""
    if t.searched_min is None:
        return t
    return dataclasses.replace(t, searched_min=(t.searched_min[0], max(t.searched_min[1], Thresholds.suit_min)))


def for_photo_outlines(t: Thresholds) -> Thresholds:
    """The thresholds an outline of :mod:`vision.photo_cards` is read with: as ``t``, but a
    black suit is never named by searching both corners (:attr:`Thresholds.search_black`).
    Each photo tries tens of such outlines, and the best of a search over many positions
    and sizes can fall on the other black suit of another deck's design: read with a design
    learned from Tigullio's renders, a phone photo's A♣ was so read as the ♠ (searched at
    0.931 against the 0.93 minimum, by a margin of 0.52 against 0.5; the phone deck's own
    ♣ and ♠ reads by search lie there too)."""
    return dataclasses.replace(t, search_black=False)


class IndexReader:
    """A recogniser for one learned deck design."""

    method = "index"

    def __init__(self, design: LearnedDesign, thresholds: Thresholds | None = None, *,
                 photo: bool = False) -> None:
        """``photo``: the frames are photographs of a card on a table, not the gate's
        (:func:`vision.locate.locate`): no card can lie under the card there."""
        self.design = design
        self.t = thresholds or Thresholds()
        self.photo = photo
        # How alike each two templates are: the scale of the margin between them.
        self._rank_cc = design.rank_templates @ design.rank_templates.T
        self._suit_cc = design.suit_templates @ design.suit_templates.T

    def read(self, frame: np.ndarray) -> Outcome:
        if frame.ndim == 2:  # a monochrome camera's frame: the same picture in three channels
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        found = locate(frame, photo=self.photo)
        out = found if isinstance(found, Reject) else self.read_located(found)
        if self.photo and isinstance(out, Reject) and out.reason in RETRIED_IN_PHOTOS:
            # A photograph: the outline chosen may have taken a shadow's edge, or the
            # floor's, for a side. Every other outline is read, and the first whose two
            # corners name the same card is the card's (other_outlines).
            quad = None if isinstance(found, Reject) else found.quad
            for other in other_outlines(frame, besides=quad):
                got = self.read_located(other)
                if got.accepted:
                    return got
        return out

    def read_located(self, found: Located) -> Outcome:
        """The read of the card whose outline is ``found``."""
        # Face up or down is decided from evidence: the learned back, or the
        # corner indices. Never from how much paper the middle shows: real
        # court pictures leave little of it (issue 15).
        if is_back(self.design, found):
            return Reject(Reason.FACE_DOWN, "the card shows the back learned with the design")
        reads: list[CornerRead] = []
        where: list[tuple[int, int, int, int]] = []  # each read corner's rank box
        fails: list[tuple[str, Reject]] = []
        no_index = 0  # corners where not even an index shape was found
        unfit: tuple[Glyphs, np.ndarray] | None = None  # a corner that fell short of the fit only
        failed_roi: np.ndarray | None = None
        rois: list[tuple[np.ndarray, Glyphs | Reject]] = []
        for corner, turned in (("top-left", False), ("bottom-right", True)):
            # Only the corner is warped, not the whole face: the same pixels, for less time.
            roi = found.corner(*self.design.roi, turned=turned)
            g = roi_glyphs(roi)
            rois.append((roi, g))
            no_index += isinstance(g, Reject)
            r = g if isinstance(g, Reject) else self._corner(g, roi)
            if isinstance(r, Reject):
                fails.append((corner, r))
                failed_roi = roi
                if not isinstance(g, Reject) and r.reason is Reason.NOT_THIS_DECK:
                    unfit = (g, roi)
            elif not isinstance(g, Reject):
                reads.append(r)
                where.append(g.rank_box)
        if len(reads) == 1 and failed_roi is not None:
            second = self._corroborate(reads[0].card, unfit, failed_roi)
            if second is not None:
                (r2, how, xy), first = second, reads[0]
                if (off := self._placed(first.card, where[0], xy, found)) is not None:
                    return off
                ev = {"design": self.design.name, "rank_score": round(first.rank_score, 3),
                      "suit_score": round(first.suit_score, 3), "corners": 2,
                      "second_corner": {"rank_score": round(r2.rank_score, 3),
                                        "suit_score": round(r2.suit_score, 3), "by": how}}
                return Read(first.card, self.method, ev)
        if fails:
            if no_index == 2 and face_is_down(found, self.t.paper_min):
                return Reject(Reason.FACE_DOWN, "no index in either corner and a patterned middle "
                              "(learn the design with --back to recognise the back itself)")
            if not reads and not any(r.reason is Reason.BLURRED for _, r in fails):
                both = self._searched(rois, found)
                if both is not None:
                    return both
            corner, r = fails[0]
            return Reject(r.reason, f"{corner} index: {r.detail}")
        a, b = reads
        if a.card != b.card:
            return Reject(Reason.DISAGREE, f"top-left reads {a.card}, bottom-right reads {b.card}")
        if (off := self._placed(a.card, where[0], where[1], found)) is not None:
            return off
        ev = {"design": self.design.name,
              "rank_score": round(min(a.rank_score, b.rank_score), 3),
              "suit_score": round(min(a.suit_score, b.suit_score), 3),
              "corners": 2}
        return Read(a.card, self.method, ev)

    def _shifted(self, a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> Reject | None:
        """Why two corners whose ranks' boxes are ``a`` and ``b`` (x, y, w, h in their
        corners) are not one card's, or ``None``. Each corner's index is printed at the
        same place, so an index whose box is off from the other's along the card's long
        side, at its top and its bottom alike, by more than
        :attr:`Thresholds.index_shift_tol`, lies in the outline of another card about
        this one, or of an outline not the card's. (A thumb over the index, a stroke lost,
        moves one edge of the box only.)"""
        shift = min(abs(a[1] - b[1]), abs(a[1] + a[3] - b[1] - b[3]))
        if shift <= self.t.index_shift_tol:
            return None
        return Reject(Reason.DISAGREE, f"the corners' indices lie {shift} px apart along the card: "
                      "the outline is not one card's (another card under this one?)")

    def _placed(self, card: Card, a: tuple[int, int, int, int], b: tuple[int, int, int, int],
                found: Located) -> Reject | None:
        """Why two corners that name ``card``, their ranks' boxes ``a`` and ``b``, do not lie
        as one card's in the outline ``found``, or ``None``: apart from each other's place
        (:meth:`_shifted`) or, at the gate, both further in from the outline's ends than the
        design prints that rank (:mod:`vision.placement`): the outline is longer than the
        card, by a card stuck under it."""
        if (shifted := self._shifted(a, b)) is not None:
            return shifted
        if self.photo or self.design.rank_places is None:
            return None
        places = self.design.rank_places
        further, mean = placement.further_in(places, int(card.rank), a, b, placement.end_bands(found))
        off = placement.apart(a, b) - float(places[int(card.rank) - 2][2])
        least, together = self.t.index_place_joint
        if further <= self.t.index_place_tol and not (mean > least and mean + off > together):
            return None
        also = f", and {off:.0f} px off each other's place," if further <= self.t.index_place_tol else ""
        further = max(further, mean)
        return Reject(Reason.TWO_CARDS, f"{card}'s indices lie {further:.1f} px further in from the card's ends "
                      f"than this deck prints them{also}: the outline is longer than one card (another card "
                      "stuck under this one? If every card is refused so, learn the deck again on this gate's "
                      "floor)")

    def _corroborate(self, card: Card, unfit: tuple[Glyphs, np.ndarray] | None,
                     roi: np.ndarray) -> tuple[CornerRead, str, tuple[int, int, int, int]] | None:
        """The failed corner's read of ``card``, which the other corner read on every check,
        and how it was made; ``None`` when it does not show ``card``.

        From its shapes with a looser fit to the design, when only the fit fell short;
        else by searching it for that card's glyphs (:mod:`vision.corroborate`), when its
        shapes could not be cut out right.
        """
        if unfit is not None:
            loose = self._corner(*unfit, loose=True)
            if isinstance(loose, CornerRead) and loose.card == card:
                return loose, "shapes", unfit[0].rank_box
        scores = corroborate.shows(self.design, roi, card, self._rank_cc, self._suit_cc, margin_min=self.t.margin,
                                   rank_min=self.t.second_rank_min, suit_min=self.t.second_suit_min)
        if isinstance(scores, Reject):
            return None
        return CornerRead(card, scores[0], 0.0, scores[1], 0.0), "search", scores[2]

    def _searched(self, rois: list[tuple[np.ndarray, Glyphs | Reject]], found: Located) -> Read | Reject | None:
        """The card both corners show when neither could be read from its shapes.

        A court's frame line joined to its index, or a soft, speckled photograph, spoils
        the shapes of both corners of a real photograph where the glyphs themselves still
        show (issue 15). Each corner is searched for every learned rank and suit
        (:func:`vision.corroborate.names`) by the same margins and minimum scores as a
        corner read from its shapes; where its shapes were cut out, the templates nearest
        them must agree; both must name the same card, their indices at the same place
        (:meth:`_shifted`). One corner alone never names a card; two corners that name
        different cards are refused. ``None`` when a corner names nothing (the shapes'
        reason stands).
        """
        named = []
        d = self.design
        for roi, g in rois:
            # The first corner's fit (0.90, 0.93), not the corroborating one's: both corners
            # print the same glyph, so a glyph of another design that lies nearer one
            # learned template than the others does so in both (Tigullio's ♥ searched with
            # Bonded's design lies nearer its ♦, at 0.85, in both corners).
            rank_min, suit_min = self.t.searched_min or (self.t.rank_min, self.t.suit_min)
            n = corroborate.names(self.design, roi, self._rank_cc, self._suit_cc, margin_min=self.t.margin,
                                  rank_min=rank_min, suit_min=suit_min)
            if isinstance(n, Reject):
                return None
            if isinstance(g, Glyphs) and g.single is None:
                # The suits the shape is weighed among: those of the ink's colour when it is
                # clearly red or black (a black ♠ whose blurred shape lies nearest the ♦),
                # else all four, as the shape reader weighs them.
                z = d.ink(g.redness)
                inked = abs(z) >= self.t.colour_margin and not colourless(roi)
                suits = [s for s in Suit if not inked or s.is_red == (z > 0)]
                ss = d.suit_templates @ g.suit.ravel()
                if int(np.argmax(d.rank_templates @ g.rank.ravel())) != int(n[0].rank) - 2 \
                        or max(suits, key=lambda s: ss[int(s)]) != n[0].suit:
                    return None  # the shapes cut out there are nearest another card's
            named.append(n)
        (a, ra, sa, box_a), (b, rb, sb, box_b) = named
        if not self.t.search_black and not a.suit.is_red:
            return None
        if a != b:
            return Reject(Reason.DISAGREE, f"searched, the top-left shows {a}, the bottom-right {b}")
        if (off := self._placed(a, box_a, box_b, found)) is not None:
            return off
        return Read(a, self.method, {"design": self.design.name, "rank_score": round(min(ra, rb), 3),
                                     "suit_score": round(min(sa, sb), 3), "corners": 2, "by": "both searched"})

    def read_partial(self, face: np.ndarray) -> Partial | None:
        """Rank and ink colour of a face :meth:`read` refused, by this reader's own checks.

        ``face`` is the upright face (as :func:`vision.locate.locate` finds it). Every
        check of rank and colour must pass on both corners, and the corners agree; only
        the suit shape may have fallen short. The table watcher's rules
        (:class:`dealer.play_watch.PlayWatch`) weigh it; it never names a card alone.
        ``None`` when any check fails.
        """
        d, t = self.design, self.t
        got: list[tuple[Rank, bool, dict[Suit, float]]] = []
        for turned in (False, True):
            g = corner_glyphs(face, turned=turned, roi_size=self.design.roi)
            if isinstance(g, Reject) or g.single is not None or g.sharpness < t.blur_ratio * d.sharpness:
                return None
            rs = d.rank_templates @ g.rank.ravel()
            ri = np.argsort(rs)[::-1]
            r_best = float(rs[ri[0]])
            # The rank by the corner reader's own test: the minimum, and the margin over
            # every other rank (issue 15: the margin replaced the ratio test there).
            if r_best < t.rank_min or any(
                    margin(r_best, float(rs[j]), float(self._rank_cc[ri[0], j])) < t.margin for j in ri[1:]):
                return None
            if abs(g.rank_box[3] / d.rank_height[ri[0]] - 1) > t.size_tol:
                return None
            if abs((g.rank_box[2] / g.rank_box[3]) / d.rank_aspect[ri[0]] - 1) > t.aspect_tol:
                return None
            if all(abs(g.suit_box[3] / d.suit_height_of(k) - 1) > t.size_tol for k in range(4)):
                return None
            z = d.ink(g.redness)
            if abs(z) < t.colour_margin:
                return None
            red = z > 0
            ss = d.suit_templates @ g.suit.ravel()
            pair = (Suit.DIAMONDS, Suit.HEARTS) if red else (Suit.CLUBS, Suit.SPADES)
            got.append((Rank(int(ri[0]) + 2), red, {s: float(ss[s]) for s in pair}))
        (ra, ca, sa), (rb, cb, sb) = got
        if ra != rb or ca != cb:
            return None
        pair = (Suit.DIAMONDS, Suit.HEARTS) if ca else (Suit.CLUBS, Suit.SPADES)
        return Partial(ra, ca, (sa, sb), alike=float(self._suit_cc[int(pair[0]), int(pair[1])]),
                       margin=t.margin)

    def read_corner(self, g: Glyphs, roi: np.ndarray | None = None) -> CornerRead | Reject:
        """One corner's read by every check a first corner passes (no looser fit, no search):
        for a camera that sees one corner only (:mod:`vision.corner_view`)."""
        return self._corner(g, roi)

    def _corner(self, g: Glyphs, roi: np.ndarray | None = None, *, loose: bool = False) -> CornerRead | Reject:
        """One corner's read; ``loose``: the corroborating corner's looser fit to the design."""
        t, d = self.t, self.design
        if loose:
            t = dataclasses.replace(t, rank_min=t.second_rank_min, suit_min=t.second_suit_min,
                                    size_tol=t.second_size_tol)
        if g.sharpness < t.blur_ratio * d.sharpness:
            return Reject(Reason.BLURRED, f"sharpness {g.sharpness:.2f} is under "
                          f"{t.blur_ratio:.0%} of the learned {d.sharpness:.2f}")
        if g.single is not None:  # one shape: a joker's star, or an index we cannot split
            if d.joker_template is not None and float(d.joker_template @ g.single.ravel()) >= t.joker_min:
                return Reject(Reason.JOKER, "joker index")
            return Reject(Reason.NOT_THIS_DECK, "rank and suit could not be told apart")
        rs = d.rank_templates @ g.rank.ravel()
        ss = d.suit_templates @ g.suit.ravel()
        ri = np.argsort(rs)[::-1]
        si = np.argsort(ss)[::-1]
        r_best, r_next = float(rs[ri[0]]), float(rs[ri[1]])
        s_best = float(ss[si[0]])
        rank, suit = Rank(int(ri[0]) + 2), Suit(int(si[0]))
        # Fit checks first: an unlearned typeface must say "not this deck", not "ambiguous".
        h_ratio = g.rank_box[3] / d.rank_height[ri[0]]
        if abs(h_ratio - 1) > t.size_tol:
            return Reject(Reason.NOT_THIS_DECK, f"rank is {g.rank_box[3]} px tall, the design's "
                          f"{rank.char} is {d.rank_height[ri[0]]:.0f} px")
        a_ratio = (g.rank_box[2] / g.rank_box[3]) / d.rank_aspect[ri[0]]
        if abs(a_ratio - 1) > t.aspect_tol:
            return Reject(Reason.NOT_THIS_DECK, f"rank shape does not fit the design's {rank.char}")
        sh_ratio = g.suit_box[3] / d.suit_height_of(int(si[0]))
        sa_ratio = (g.suit_box[2] / g.suit_box[3]) / d.suit_aspect[si[0]]
        if abs(sh_ratio - 1) > t.size_tol or abs(sa_ratio - 1) > t.aspect_tol:
            return Reject(Reason.NOT_THIS_DECK, f"suit symbol does not fit the design's {suit.symbol}")
        if r_best < t.rank_min or s_best < t.suit_min:
            return Reject(Reason.NOT_THIS_DECK, f"best match rank {rank.char} {r_best:.2f}, "
                          f"suit {suit.symbol} {s_best:.2f}: below the design's minimum")
        best = int(ri[0])
        for j in ri[1:]:
            if margin(r_best, float(rs[j]), float(self._rank_cc[best, j])) < t.margin:
                runner_up = Rank(int(j) + 2)  # a Rank; ``other`` below is a Suit
                return Reject(Reason.AMBIGUOUS,
                              f"rank {rank.char} {r_best:.2f} vs {runner_up.char} {float(rs[j]):.2f}")
        # Ink colour: an independent check of the suit (catches ♠/♣ read as ♦).
        z = d.ink(g.redness)
        grey = no_colour = False
        if abs(z) < t.colour_margin or (z > 0) != suit.is_red:
            no_colour = roi is not None and colourless(roi)
            if abs(z) < t.colour_margin or no_colour:
                # No ink colour to check: a grey picture (a camera set to black and
                # white, a grey photo), or ink too faint to be clearly red or black
                # (washed-out red under warm light). The shape alone must then beat
                # every other suit by the full margin, as it must beat the other suit
                # of its colour. Ink clearly of the other colour is a contradiction.
                grey = True
            else:
                return Reject(Reason.NOT_THIS_DECK, f"{suit.symbol} printed in {'red' if z > 0 else 'black'}")
        for other in Suit:
            if other == suit:
                continue
            need = t.margin if grey or other.is_red == suit.is_red else t.cross_colour_margin
            if margin(s_best, float(ss[other]), float(self._suit_cc[int(suit), int(other)])) < need:
                why = ((" (the picture has no colour" if no_colour
                        else f" (the ink is neither clearly red nor black, {z:+.2f}")
                       + ": the shape alone must tell)") if grey else ""
                return Reject(Reason.AMBIGUOUS, f"suit {suit.symbol} {s_best:.2f} vs "
                              f"{other.symbol} {float(ss[other]):.2f}{why}")
        return CornerRead(Card(suit, rank), r_best, r_best - r_next, s_best, s_best - float(ss[si[1]]))


def face_is_down(face: np.ndarray | Located, paper_min: float = Thresholds.paper_min) -> bool:
    """True when the middle of an upright face is mostly not paper (a patterned back).

    Only a tie-breaker for a face whose indices could not be read: a pictured
    court card also shows little paper, so this alone never rejects a card.
    """
    return _paper_share(face) < paper_min


def _paper_share(face: np.ndarray | Located) -> float:
    """Share of the card's middle that is as light as its margin (a face), not a back."""
    if isinstance(face, Located):  # only the pixels used are warped
        mid = face.region(50, 70, 200, 280, step=2).min(axis=2)
        margin = np.median(face.region(3, 150, 6, 120).min(axis=2))
    else:
        mid = face[70:350:2, 50:250:2].min(axis=2)
        margin = np.median(face[150:270, 3:9].min(axis=2))
    return float(np.mean(mid > margin * 0.75))


def check_cards(design: LearnedDesign, frames: Iterable[tuple[str, np.ndarray | None]],
                cards: Iterable[Card] = CHECK_CARDS, *, patience: int = 1) -> list[str]:
    """Read the named ``cards`` from ``frames`` with the new design; :class:`LearnError` on a mismatch.

    Each card gets up to ``patience`` frames (a live camera needs time for
    the card to be shown); the first frame the design accepts must name it.
    Returns one line per card checked.
    """
    reader = IndexReader(design)
    it = iter(frames)
    lines = []
    for k, want in enumerate(cards, 1):
        last = "no frame"
        for frame_name, frame in itertools.islice(it, patience):
            if frame is None:  # a file the source could not decode
                last = f"frame {frame_name}: the image could not be decoded"
                continue
            out = reader.read(frame)
            if isinstance(out, Read):
                if out.card != want:
                    raise LearnError(f"check card {k}: asked for {want.symbol}, frame {frame_name} "
                                     f"reads {out.card.symbol if out.card else out.label} with the new "
                                     f"design: the pass was not in the order inferred ({design.order}); "
                                     "nothing saved")
                lines.append(f"check card {k}: {want.symbol} read as {want.symbol} (frame {frame_name})")
                break
            last = f"frame {frame_name}: {out.label}"
        else:
            raise LearnError(f"check card {k}: asked for {want.symbol}, but it was not read "
                             f"({last}); nothing saved")
    return lines
