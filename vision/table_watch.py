"""The table watcher: follows every trick from an overhead camera, flags what it is unsure of.

Each frame, every seat's zone is compared with the frame before; a zone that
has changed and then lies still for ``settle`` frames is looked at again (at
most ``reads_per_frame`` zones a frame, so a light change over the whole table
cannot blow the frame budget). A look finds one card-shaped light rectangle in
the zone, warps it upright onto a gate-like 640×480 canvas and asks the
recogniser (:class:`~vision.index.IndexReader` or
:class:`~vision.barcode.BarcodeReader`): it names the card or rejects.

The rules decide the rest, through :class:`~dealer.play_record.PlayRecord`:
cards are recorded in turn order (a card put down early waits for its turn),
a card that cannot be that seat's (already played, outside a known hand) is
not accepted, a rejected card is recorded *unconfirmed* with its few legal
candidates, and a later clear read of the same card (the hand has moved, the
light has changed) fills it in. Two reads that disagree put the card back to
unconfirmed. The watcher never names a card the recogniser did not read and
the rules did not allow; a person confirms the rest with :meth:`confirm`.

A trick is closed when all its cards are down and then turned over (or taken
away). Revokes are flagged as soon as the record proves one.

>>> from dealer.cards import Suit
>>> from dealer.play_record import PlayRecord
>>> from vision.table_render import bridge_layout
>>> w = TableWatcher(bridge_layout(), reader=None, record=PlayRecord(4, trump=Suit.SPADES, leader=1))
>>> w.record.next_seat
1
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from dealer.cards import Card, Rank, Suit
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.play_record import UNCONFIRMED, Entry, PlayRecord, PlayRecordError, RevokeFound
from dealer.play_section import write_play
from dealer.seats import Seat
from vision.decision import Outcome, Read, Reason, Reject
from vision.glyphs import corner_glyphs
from vision.index import face_is_down
from vision.learn import LearnedDesign, learn
from vision.render import FACE_H, FACE_W
from vision.table_render import TableCamera, TableLayout, learning_scenes

CANVAS_W, CANVAS_H = 640, 480
SHAPE_FLOOR = 0.85  # a suit shape under this never counts, whatever the other frames say
_FACE_X, _FACE_Y = 170, 30  # where canvas_of puts the face
_FACE_DST = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)


class Reader(Protocol):
    def read(self, frame: np.ndarray) -> Outcome: ...


@dataclass(frozen=True)
class Look:
    """What one zone shows: ``empty``, ``back``, ``face`` (with the upright face) or ``unclear``."""

    kind: str
    face: np.ndarray | None = None
    detail: str = ""


def look(zone: np.ndarray, card_scale: float) -> Look:
    """Classify a zone crop and, for a face-up card, warp it onto a gate-like canvas.

    A hand over the card, or a card half out of the zone, is ``unclear``:
    the shape is not one whole card, and the watcher waits for a better frame.
    """
    grey = cv2.cvtColor(zone, cv2.COLOR_BGR2GRAY)
    thr, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light = grey[mask > 0]
    dark = grey[mask == 0]
    if len(light) == 0 or len(dark) == 0 or float(light.mean()) - float(dark.mean()) < 45:
        return Look("empty")
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    big = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(big)
    expect = FACE_W * FACE_H * card_scale * card_scale
    if area < 0.35 * expect:
        return Look("empty")
    if not 0.8 * expect <= area <= 1.2 * expect:
        return Look("unclear", detail=f"light shape of {area:.0f} px is not one card")
    rect = cv2.minAreaRect(big)
    (w, h) = rect[1]
    if area < 0.92 * w * h:
        return Look("unclear", detail="shape is not a rectangle (a hand over the card?)")
    x, y, bw, bh = cv2.boundingRect(big)
    if x <= 1 or y <= 1 or x + bw >= zone.shape[1] - 1 or y + bh >= zone.shape[0] - 1:
        return Look("unclear", detail="card runs out of the zone")
    box = cv2.boxPoints(rect).astype(np.float32)
    c = box.mean(axis=0)
    q = box[np.argsort(np.arctan2(box[:, 1] - c[1], box[:, 0] - c[0]))]
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)  # start on a short edge: the card stands upright
    m = cv2.getPerspectiveTransform(q, _FACE_DST)
    face = cv2.warpPerspective(zone, m, (FACE_W, FACE_H), flags=cv2.INTER_CUBIC)
    # A back only when no corner shows an index: a pictured court card shows
    # little paper in its middle too (issue 15), so paper alone cannot decide.
    if face_is_down(face) and all(isinstance(corner_glyphs(face, turned=t), Reject) for t in (False, True)):
        return Look("back")
    return Look("face", face)


def _signature(face: np.ndarray) -> np.ndarray:
    """A small light-independent picture of a face, to tell "the same card" from "another"."""
    g = cv2.resize(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), (15, 21),
                   interpolation=cv2.INTER_AREA).astype(np.float32)
    g -= g.mean()
    return g / (float(np.linalg.norm(g)) + 1e-6)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Same face (either end first): pictures of one card correlate far above 0.85."""
    return max(float((a * b).sum()), float((a[::-1, ::-1] * b).sum())) > 0.85


def canvas_of(face: np.ndarray) -> np.ndarray:
    """The upright face on a dark 640×480 canvas, as the gate camera would show it.

    Two corrections make a table view look like the gate: a flat field (the
    paper is brought to one brightness, so dim or uneven light does not shift
    the ink colour and shape scores) and an unsharp mask (the face was
    magnified about 2x, which blurs the gap between rank and suit shut).
    """
    # The paper's brightness, ink removed, at a quarter size: light varies slowly.
    small = cv2.resize(face.max(axis=2), (FACE_W // 4, FACE_H // 4), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(cv2.dilate(small, np.ones((3, 3), np.uint8)), (0, 0), 3)
    paper = cv2.resize(small, (FACE_W, FACE_H), interpolation=cv2.INTER_LINEAR)
    gain = cv2.divide(np.full(paper.shape, 235, np.uint8), np.maximum(paper, 40), scale=64)
    flat = cv2.multiply(face, cv2.merge([gain] * 3), scale=1 / 64)
    soft = cv2.GaussianBlur(flat, (0, 0), 2.0)
    canvas = np.full((CANVAS_H, CANVAS_W, 3), 30, np.uint8)
    canvas[_FACE_Y:_FACE_Y + FACE_H, _FACE_X:_FACE_X + FACE_W] = cv2.addWeighted(flat, 1.8, soft, -0.8, 0)
    return canvas


@dataclass(frozen=True)
class Partial:
    """What both corners agree on when the recogniser refused the card: rank and ink colour.

    Rank and colour passed the recogniser's own checks on both corners (rank
    score, rank ratio test, glyph size, ink colour margin); only the suit
    *shape* was too weak (a ♥ just under ``suit_min``, ♣ and ♠ too alike at
    table resolution). ``shapes`` holds, per corner, the shape scores of the
    two suits of that colour. A partial read never names a card by itself:
    the rules (one legal card left) or a second frame must agree.
    """

    rank: Rank
    red: bool
    shapes: tuple[dict[Suit, float], ...]

    @property
    def suits(self) -> tuple[Suit, Suit]:
        return (Suit.DIAMONDS, Suit.HEARTS) if self.red else (Suit.CLUBS, Suit.SPADES)

    def cards(self) -> tuple[Card, Card]:
        return (Card(self.suits[0], self.rank), Card(self.suits[1], self.rank))

    def shape_suit(self, ratio: float, floor: float) -> Suit | None:
        """The suit whose shape wins on *both* corners by the recogniser's ratio test, if any."""
        a, b = self.suits
        wins = set()
        for sc in self.shapes:
            best, other = (a, b) if sc[a] >= sc[b] else (b, a)
            if sc[best] < floor or (1 - sc[other]) < ratio * (1 - sc[best]):
                return None
            wins.add(best)
        return wins.pop() if len(wins) == 1 else None

    def contradicts(self, suit: Suit, ratio: float) -> bool:
        """The other suit's shape beats ``suit`` on a corner by the ratio test."""
        other = self.suits[1] if suit == self.suits[0] else self.suits[0]
        return any((1 - sc[suit]) >= ratio * (1 - sc[other]) for sc in self.shapes)


def partial_read(reader: Any, face: np.ndarray) -> Partial | None:
    """Rank and colour of a refused face, by the checks of ``reader`` (an IndexReader).

    ``None`` when the reader is not an index reader, or rank or colour fail
    any check on either corner, or the corners disagree.
    """
    d, t = getattr(reader, "design", None), getattr(reader, "t", None)
    if d is None or t is None or not hasattr(d, "rank_templates"):
        return None
    got: list[tuple[Rank, bool, dict[Suit, float]]] = []
    for turned in (False, True):
        g = corner_glyphs(face, turned=turned)
        if isinstance(g, Reject) or g.single is not None or g.sharpness < t.blur_ratio * d.sharpness:
            return None
        rs = d.rank_templates @ g.rank.ravel()
        ri = np.argsort(rs)[::-1]
        r_best, r_next = float(rs[ri[0]]), float(rs[ri[1]])
        if r_best < t.rank_min or (1 - r_next) < t.ratio * (1 - r_best):
            return None
        if abs(g.rank_box[3] / d.rank_height[ri[0]] - 1) > t.size_tol:
            return None
        if abs((g.rank_box[2] / g.rank_box[3]) / d.rank_aspect[ri[0]] - 1) > t.aspect_tol:
            return None
        if abs(g.suit_box[3] / d.suit_height - 1) > t.size_tol:
            return None
        z = (g.redness - d.red_split) / d.red_gap
        if abs(z) < t.colour_margin:
            return None
        red = z > 0
        ss = d.suit_templates @ g.suit.ravel()
        pair = (Suit.DIAMONDS, Suit.HEARTS) if red else (Suit.CLUBS, Suit.SPADES)
        got.append((Rank(int(ri[0]) + 2), red, {s: float(ss[s]) for s in pair}))
    (ra, ca, sa), (rb, cb, sb) = got
    if ra != rb or ca != cb:
        return None
    return Partial(ra, ca, (sa, sb))


def learn_at_table(camera: TableCamera, seat: int = 0, name: str = "table") -> LearnedDesign:
    """The learning pass through the table camera: the sorted deck, one card at a time in a zone.

    The templates then match what the watcher sees (card size, blur, light).
    """
    lay = camera.layout
    x0, y0, x1, y1 = lay.zones[seat]

    def canvases() -> Iterator[tuple[str, np.ndarray]]:
        for i, scene in enumerate(learning_scenes(lay.players, seat)):
            lk = look(camera.render(scene)[y0:y1, x0:x1], lay.card_scale)
            if lk.face is None:
                raise BoardwrightError(f"learning pass: {Card(i)} in zone {seat} shows "
                                       f"{lk.kind} ({lk.detail or 'no card'})")
            yield str(Card(i)), canvas_of(lk.face)

    return learn(name, canvases(), source="table camera")


@dataclass
class WatchEvent:
    """Something the watcher recorded or flagged; ``trick`` is 1-based."""

    kind: str  # card | unconfirmed | filled | disputed | trick | revoke | irregular | ignored
    trick: int
    seat: int | None = None
    card: Card | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind, "trick": self.trick}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.card is not None:
            out["card"] = str(self.card)
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass
class _Zone:
    prev: np.ndarray | None = None
    still: int = 0
    looked: np.ndarray | None = None  # thumbnail at the last look
    kind: str = "empty"
    tries: int = 0  # reads of the card now in the zone
    committed: int | None = None  # 0-based trick of the recorded card lying here
    card_thumb: np.ndarray | None = None  # signature of the face first read here
    waiting_since: int = 0
    # Partial reads of the card lying here, one per frame; ``None`` marks a full read
    # (the recogniser named it), after which partial reads are no evidence any more.
    partials: list[Partial | None] = field(default_factory=list)


@dataclass
class _Pending:
    outcome: Outcome
    order: int
    partials: list[Partial | None] = field(default_factory=list)


@dataclass
class FrameStats:
    times_ms: list[float] = field(default_factory=list)
    reads: int = 0


class TableWatcher:
    """Watch a table through ``layout``'s zones and write the play into ``record``."""

    def __init__(self, layout: TableLayout, reader: Reader | None, record: PlayRecord, *,
                 settle: int = 2, reads_per_frame: int = 1, retries: int = 6,
                 trump_seat: int | None = None) -> None:
        if layout.players != record.players:
            raise BoardwrightError(f"the layout has {layout.players} zones but the record "
                                   f"{record.players} players")
        self.layout, self.reader, self.record = layout, reader, record
        self.settle, self.reads_per_frame, self.retries = settle, reads_per_frame, retries
        self.zones = [_Zone() for _ in range(layout.players)]
        self.events: list[WatchEvent] = []
        self.stats = FrameStats()
        self.frame_no = 0
        self._trick = 0  # 0-based record trick whose cards lie on the table
        self._pending: dict[int, _Pending] = {}
        self._order = 0
        self._revokes: set[tuple[int, int]] = set()
        self._partials: dict[tuple[int, int], list[Partial | None]] = {}  # (0-based trick, seat)
        # (0-based trick, seat) of cards named from partial reads (rank and colour read)
        self.inferred: set[tuple[int, int]] = set()
        self._reads_left = reads_per_frame
        # Bugger Bridge: before the lead the dealer shows the turned-up card in their zone.
        self.trump_seat = trump_seat
        self.trump_card: Card | None = None

    # -- public ----------------------------------------------------------------------
    def feed(self, frame: np.ndarray | None) -> list[WatchEvent]:
        """Process one frame; returns the events it caused. ``None`` = a frame that failed."""
        t0 = time.perf_counter()
        before = len(self.events)
        self.frame_no += 1
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            self._event("ignored", detail=f"frame {self.frame_no} could not be decoded")
        else:
            self._frame(frame)
        self.stats.times_ms.append((time.perf_counter() - t0) * 1000)
        return self.events[before:]

    def confirm(self, trick: int, seat: int, card: Card | str) -> Entry:
        """A person names the card ``seat`` played to ``trick`` (1-based): the panel's one tap."""
        c = Card.parse(card) if isinstance(card, str) else card
        entry = self.record.confirm(trick, seat, c)
        self._event("filled", trick, seat, c, "confirmed by hand")
        self._check_revokes()
        self._infer_all()
        return entry

    @property
    def frame_times_ms(self) -> list[float]:
        return self.stats.times_ms

    # -- per frame -------------------------------------------------------------------
    def _frame(self, frame: np.ndarray) -> None:
        due: list[tuple[int, int]] = []
        for seat, (x0, y0, x1, y1) in enumerate(self.layout.zones):
            z = self.zones[seat]
            small = cv2.resize(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), (24, 24),
                               interpolation=cv2.INTER_AREA).astype(np.float32)
            thumb = small / (float(small.mean()) + 1.0)  # light level cancels out
            moved = z.prev is None or float(np.abs(thumb - z.prev).mean()) > 0.03
            z.prev = thumb
            z.still = 0 if moved else z.still + 1
            if z.still + 1 < self.settle:
                continue
            changed = z.looked is None or float(np.abs(thumb - z.looked).mean()) > 0.05
            retry = z.kind == "face" and self._wants_reread(seat) and z.tries < self.retries
            if changed or retry:
                if changed:  # new sights first, oldest first; re-reads after them
                    z.waiting_since = z.waiting_since or self.frame_no
                    due.append((z.waiting_since, seat))
                else:
                    due.append((self.frame_no + 1 + z.tries, seat))
        self._reads_left = self.reads_per_frame
        for _, seat in sorted(due):
            x0, y0, x1, y1 = self.layout.zones[seat]
            self._look(seat, frame[y0:y1, x0:x1])
        self._maybe_close()

    def _awaiting_trump(self) -> bool:
        return (self.trump_seat is not None and self.trump_card is None
                and not any(True for _ in self.record.entries()))

    def confirm_trump(self, card: Card | str) -> None:
        """A person names the turned-up card when the camera could not read it."""
        c = Card.parse(card) if isinstance(card, str) else card
        self.trump_card = c
        self.record.trump = c.suit
        self.record.out_of_play.add(int(c))
        self._event("trump", 1, self.trump_seat, c, "confirmed by hand")

    def _wants_reread(self, seat: int) -> bool:
        """Read again while this seat's card is unconfirmed or waiting without a read."""
        if self._awaiting_trump() and seat == self.trump_seat:
            return True
        p = self._pending.get(seat)
        if p is not None:
            return not p.outcome.accepted
        z = self.zones[seat]
        if z.committed is None:
            return False
        e = self._entry(z.committed, seat)
        return e is not None and e.status == UNCONFIRMED

    def _look(self, seat: int, zone: np.ndarray) -> None:
        z = self.zones[seat]
        lk = look(zone, self.layout.card_scale)
        if lk.kind == "unclear":
            z.looked, z.waiting_since = None, 0  # look again once it changes
            return
        if lk.kind != "face":
            z.looked, z.waiting_since = z.prev, 0
            z.kind, z.tries, z.committed, z.card_thumb = lk.kind, 0, None, None
            z.partials = []
            return
        if self._reads_left <= 0:
            return  # still due: read on a later frame, the frame budget is spent
        self._reads_left -= 1
        z.looked, z.waiting_since = z.prev, 0
        assert lk.face is not None
        sig = _signature(lk.face)
        if z.card_thumb is not None and not _same(sig, z.card_thumb):
            z.partials.append(None)  # another card: earlier partial reads were of the old one
            z.partials = []
            if z.committed is not None:
                z.committed = None  # a different card lies here now (its turn was missed)
                z.card_thumb = None
        if z.kind != "face":
            z.tries = 0
        z.kind = "face"
        z.tries += 1
        if z.card_thumb is None:
            z.card_thumb = sig
        canvas = canvas_of(lk.face)
        outcome: Outcome = (self.reader.read(canvas) if self.reader is not None
                            else Reject(Reason.UNREADABLE, "no recogniser"))
        self.stats.reads += 1
        if outcome.accepted:
            z.partials.append(None)
        elif z.committed != -1:
            part = partial_read(self.reader, canvas[_FACE_Y:_FACE_Y + FACE_H, _FACE_X:_FACE_X + FACE_W])
            if part is not None:
                z.partials.append(part)
        self._seen(seat, outcome)

    # -- the rules -------------------------------------------------------------------
    def _entry(self, trick: int, seat: int) -> Entry | None:
        if trick >= len(self.record.tricks):
            return None
        return next((e for e in self.record.tricks[trick].entries if e.seat == seat), None)

    def _trick_full(self) -> bool:
        return (self._trick < len(self.record.tricks)
                and len(self.record.tricks[self._trick].entries) == self.record.players)

    def _seen(self, seat: int, outcome: Outcome) -> None:
        z = self.zones[seat]
        if z.committed == -1:
            return  # the turned-up card, seen again
        if self._awaiting_trump() and seat == self.trump_seat:
            if isinstance(outcome, Read) and outcome.card is not None:
                self.trump_card = outcome.card
                self.record.trump = outcome.card.suit
                self.record.out_of_play.add(int(outcome.card))
                z.committed = -1
                self._event("trump", 1, seat, outcome.card, f"trump is {outcome.card.suit.letter}")
            return
        if z.committed is not None:  # the card already recorded, seen again
            entry = self._entry(z.committed, seat)
            if entry is not None:
                self._again(z.committed + 1, seat, entry, outcome)
            return
        old = self._pending.get(seat)
        if old is None or (outcome.accepted and not old.outcome.accepted):
            self._pending[seat] = _Pending(outcome, old.order if old else self._next_order(),
                                           z.partials)
        elif outcome.accepted and old.outcome.accepted and outcome.card != old.outcome.card:
            self._pending[seat] = _Pending(Reject(Reason.DISAGREE, f"reads {old.outcome.label} "
                                                  f"and {outcome.label}"), old.order, [None])
        self._commit()

    def _next_order(self) -> int:
        self._order += 1
        return self._order

    def _again(self, trick: int, seat: int, entry: Entry, outcome: Outcome) -> None:
        """Another read of a card already recorded."""
        if not isinstance(outcome, Read) or outcome.card is None:
            self._recheck(trick - 1, seat, entry)
            return
        if entry.status == UNCONFIRMED:
            try:
                self.record.upgrade(trick, seat, outcome.card, note=f"read by {outcome.method}")
            except PlayRecordError as e:
                entry.note = f"{entry.note}; {e}" if entry.note else str(e)
                return
            self._event("filled", trick, seat, outcome.card, "read on a later frame")
            self._check_revokes()
            self._infer_all()
        elif entry.card != outcome.card and entry.status != "confirmed":
            first = entry.card
            self.record.demote(trick, seat, f"reads disagree: {first} and {outcome.card}",
                               [outcome.card])
            self._event("disputed", trick, seat, None, f"reads disagree: {first} and {outcome.card}")

    def _recheck(self, ti: int, seat: int, entry: Entry) -> None:
        """A new partial read of a recorded card: name it if the evidence now suffices, and
        take back a card named from partial reads when a later one contradicts it."""
        key = (ti, seat)
        if entry.status == UNCONFIRMED:
            if self._infer(ti, seat):
                self._infer_all()
            return
        parts = self._partials.get(key)
        if key not in self.inferred or entry.card is None or not parts or parts[-1] is None:
            return
        last, card = parts[-1], entry.card
        if (last.rank, last.red) != (card.rank, card.suit.is_red) or last.contradicts(card.suit, self._ratio):
            parts.append(None)
            self.inferred.discard(key)
            why = f"a later frame reads {last.rank.char} {'red' if last.red else 'black'}, not {card}"
            self.record.demote(ti + 1, seat, why, [card])
            self._event("disputed", ti + 1, seat, None, why)

    @property
    def _ratio(self) -> float:
        t = getattr(self.reader, "t", None)
        return float(getattr(t, "ratio", 3.0))

    def _infer(self, ti: int, seat: int) -> bool:
        """Name an unconfirmed card from partial reads, never from one piece of evidence.

        Every partial read has rank and ink colour agreed by both corners. The
        suit then comes from one of:

        * the closed world: of the two cards of that rank and colour, only one
          can be this seat's (the other was played already, is in another
          known hand, or is not in this seat's known hand). The suit shapes
          must not point to the other card. Suit-following is *not* used: a
          revoke must never be hidden.
        * two frames: on at least two frames both corners' suit shapes pick
          the same suit by the recogniser's ratio test (only the absolute
          minimum score was missed), and no frame picks the other.
        """
        parts = self._partials.get((ti, seat))
        entry = self._entry(ti, seat)
        if not parts or None in parts or entry is None or entry.status != UNCONFIRMED:
            return False
        sure = [p for p in parts if p is not None]
        if len({(p.rank, p.red) for p in sure}) != 1:
            return False
        first, ratio = sure[0], self._ratio
        why = {c: self.record.why_impossible(seat, c, trick=ti) for c in first.cards()}
        live = [c for c, w in why.items() if w is None]
        note = ""
        if len(live) == 1:
            card = live[0]
            if any(p.contradicts(card.suit, ratio) for p in sure):
                return False
            other = next(c for c in why if c != card)
            note = (f"read {first.rank.char} {'red' if first.red else 'black'} on both corners; "
                    f"{why[other]}")
        elif len(live) == 2:
            picks = [p.shape_suit(ratio, SHAPE_FLOOR) for p in sure]
            suits = {s for s in picks if s is not None}
            if len(suits) != 1:
                return False
            suit = suits.pop()
            if picks.count(suit) < 2 or any(p.contradicts(suit, ratio) for p in sure):
                return False
            card = Card(suit, first.rank)
            note = f"read {card} on {picks.count(suit)} frames (suit shape under the minimum)"
        else:
            return False
        try:
            self.record.upgrade(ti + 1, seat, card, note=note)
        except PlayRecordError:
            return False
        self.inferred.add((ti, seat))
        self._event("filled", ti + 1, seat, card, note)
        self._check_revokes()
        return True

    def _infer_all(self) -> None:
        """A card was named: the closed world shrank, so other partial reads may now suffice."""
        again = True
        while again:
            again = False
            for ti, seat in list(self._partials):
                e = self._entry(ti, seat)
                if e is not None and e.status == UNCONFIRMED and self._infer(ti, seat):
                    again = True

    def _commit(self) -> None:
        """Record waiting cards in turn order."""
        rec = self.record
        while not self._trick_full() and not rec.is_complete:
            seat = rec.next_seat
            if seat is None:  # the leader is not known: the first card down leads
                if not self._pending:
                    return
                seat = min(self._pending, key=lambda s: self._pending[s].order)
                rec.lead(seat)
            p = self._pending.pop(seat, None)
            if p is None:
                return
            trick = len(rec.tricks)
            card = p.outcome.card if isinstance(p.outcome, Read) else None
            note = "" if p.outcome.accepted else f"not read: {p.outcome.label} {getattr(p.outcome, 'detail', '')}".strip()
            entry = rec.add(seat, card, note=note)
            if self.zones[seat].kind == "face":
                self.zones[seat].committed = trick - 1
            if entry.card is None:  # the zone's list: later frames of this card add to it
                self._partials[(trick - 1, seat)] = p.partials
            if entry.card is not None:
                self._event("card", trick, seat, entry.card)
                self._infer_all()
            elif self._infer(trick - 1, seat):
                self._infer_all()
            else:
                self._event("unconfirmed", trick, seat, None,
                            f"{entry.note}; candidates {' '.join(str(c) for c in entry.candidates[:8])}"
                            f"{' ...' if len(entry.candidates) > 8 else ''}")
            self._check_revokes()

    def _maybe_close(self) -> None:
        """Four (n) cards down and then all turned over or taken away: the trick is over."""
        if not self._trick_full():
            self._fill_unseen()
        if not self._trick_full():
            return
        t = self.record.tricks[self._trick]
        if any(self.zones[e.seat].committed == self._trick for e in t.entries):
            return
        winner = self.record.winner(self._trick)
        who = self.record.names[winner] if winner is not None else "unknown until confirmed"
        self._event("trick", self._trick + 1, winner, None, f"won by {who}")
        self._trick += 1
        self._commit()

    def _fill_unseen(self) -> None:
        """Every card seen in this trick has been turned over, yet a seat has none recorded:
        its card was never seen well enough to be found. It is recorded unconfirmed (the
        rules say a card was played), so later cards cannot slide into its place."""
        if self._trick >= len(self.record.tricks):
            return
        t = self.record.tricks[self._trick]
        if self.record.is_complete:
            return
        seen = [e.seat for e in t.entries] + list(self._pending)
        if not seen:
            return
        # Turned face down, not just gone: a claim gathers the cards without turning them.
        if any(self.zones[s].committed == self._trick or self.zones[s].kind != "back"
               for s in seen):
            return
        if t.leader is None and self.record.next_seat is None and self._pending:
            # Nobody knows who led: the leader is the earliest unseen seat before the first card seen.
            return
        while not self._trick_full() and self.record.next_seat is not None:
            seat = self.record.next_seat
            if seat in self._pending:  # seen, only waiting for its turn: record it as seen
                self._commit()
                continue
            entry = self.record.add(seat, None, note="no card was seen in the zone")
            self._event("unconfirmed", self._trick + 1, seat, None,
                        f"{entry.note}; {len(entry.candidates)} candidates")

    def _check_revokes(self) -> None:
        for r in self.record.revokes():
            key = (r.trick, r.seat)
            if key not in self._revokes:
                self._revokes.add(key)
                self._event("revoke", r.trick, r.seat, r.card, r.describe(self.record.names))

    def _event(self, kind: str, trick: int | None = None, seat: int | None = None,
               card: Card | None = None, detail: str = "") -> None:
        self.events.append(WatchEvent(kind, trick if trick is not None else self._trick + 1,
                                      seat, card, detail))

    @property
    def revokes(self) -> list[RevokeFound]:
        return self.record.revokes()


# --------------------------------------------------------------------------- setups


def bridge_record(contract: Contract, deal: Deal | None = None) -> PlayRecord:
    """A record for one bridge board: the opening leader is declarer's LHO (Law 41).

    With the deal (dealing machine or hand record) every hand is known.
    """
    if contract.declarer is None or contract.is_passed_out:
        raise BoardwrightError(f"contract {contract.ascii} has no declarer: nothing to watch")
    hands = [deal.hand(Seat(s)) for s in range(4)] if deal is not None and not deal.partial else None
    trump = contract.strain.suit if contract.strain is not None else None
    return PlayRecord(4, trump=trump, leader=int(contract.declarer.lho), tricks=13, hands=hands,
                      dummy=int(contract.declarer.partner), names=[s.title for s in Seat])


def run(watcher: TableWatcher, frames: Iterable[np.ndarray | tuple[np.ndarray, Any]]) -> TableWatcher:
    """Feed every frame (or (frame, note) pair) to ``watcher``."""
    for f in frames:
        watcher.feed(f[0] if isinstance(f, tuple) else f)
    return watcher


def store_play(store: Any, result_id: int, record: PlayRecord, *, who: str = "table camera") -> int:
    """Store the watched play with the board's result (``results.play``, audited).

    Only named cards are stored: the play is cut at the first unconfirmed card
    (confirm it first to store the rest). Returns the number of tricks stored.
    """
    from dealer.store import results as rs

    # PBN's layout, as the panel replays it (dealer.play_section), without the closing "*".
    rows = write_play(record.as_play(), end_mark=False) if record.tricks[0].leader is not None else ""
    return rs.set_play(store, result_id, rows, who=who)
