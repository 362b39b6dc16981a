"""The table watcher: follows every trick from an overhead camera, flags what it is unsure of.

Each frame, every seat's zone is compared with the frame before; a zone that
has changed and then lies still for ``settle`` frames is looked at again (at
most ``reads_per_frame`` zones a frame, so a light change over the whole table
cannot blow the frame budget). A look finds one card-shaped light rectangle in
the zone, warps it upright onto a gate-like 640×480 canvas and asks the
recogniser (:class:`~vision.index.IndexReader` or
:class:`~vision.barcode.BarcodeReader`): it names the card or rejects.

The rules decide the rest, in the pure :class:`dealer.play_watch.PlayWatch`
(turn order, naming a card from evidence, closing a trick, revokes): this
module only tells it what each zone shows and what the recogniser read there.
A later clear read of the same card (the hand has moved, the light has
changed) fills in an unconfirmed one; a person confirms the rest with
:meth:`TableWatcher.confirm`.

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

from dealer.cards import Card
from dealer.errors import BoardwrightError
from dealer.play_record import Entry, PlayRecord, RevokeFound
from dealer.play_watch import (  # noqa: F401  (re-exported: callers know them from here)
    SHAPE_FLOOR,
    Partial,
    PlayWatch,
    Sight,
    WatchEvent,
    bridge_record,
    store_play,
)
from vision.decision import Outcome, Read, Reason, Reject
from vision.glyphs import corner_glyphs
from vision.index import IndexReader, face_is_down
from vision.learn import LearnedDesign, learn
from vision.render import FACE_H, FACE_W
from vision.table_render import TableCamera, TableLayout, learning_scenes

CANVAS_W, CANVAS_H = 640, 480
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


def partial_read(reader: Reader | None, face: np.ndarray) -> Partial | None:
    """Rank and colour of a refused face, when ``reader`` is an index reader
    (:meth:`~vision.index.IndexReader.read_partial`); ``None`` otherwise."""
    return reader.read_partial(face) if isinstance(reader, IndexReader) else None


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
class _Zone:
    """The pixels of one seat's zone; what lies there for the rules is in PlayWatch.seats."""

    prev: np.ndarray | None = None
    still: int = 0
    looked: np.ndarray | None = None  # thumbnail at the last look
    tries: int = 0  # reads of the card now in the zone
    card_thumb: np.ndarray | None = None  # signature of the face first read here
    waiting_since: int = 0


@dataclass
class FrameStats:
    times_ms: list[float] = field(default_factory=list)
    reads: int = 0


class TableWatcher:
    """Watch a table through ``layout``'s zones; the rules (:class:`PlayWatch`) write the play
    into ``record``."""

    def __init__(self, layout: TableLayout, reader: Reader | None, record: PlayRecord, *,
                 settle: int = 2, reads_per_frame: int = 1, retries: int = 6,
                 trump_seat: int | None = None) -> None:
        if layout.players != record.players:
            raise BoardwrightError(f"the layout has {layout.players} zones but the record "
                                   f"{record.players} players")
        self.layout, self.reader = layout, reader
        self.settle, self.reads_per_frame, self.retries = settle, reads_per_frame, retries
        self.watch = PlayWatch(record, trump_seat=trump_seat)
        self.zones = [_Zone() for _ in range(layout.players)]
        self.stats = FrameStats()
        self.frame_no = 0
        self._reads_left = reads_per_frame

    # -- public ----------------------------------------------------------------------
    @property
    def record(self) -> PlayRecord:
        return self.watch.record

    @property
    def events(self) -> list[WatchEvent]:
        return self.watch.events

    @property
    def inferred(self) -> set[tuple[int, int]]:
        return self.watch.inferred

    @property
    def trump_card(self) -> Card | None:
        return self.watch.trump_card

    @property
    def revokes(self) -> list[RevokeFound]:
        return self.watch.revokes

    def feed(self, frame: np.ndarray | None) -> list[WatchEvent]:
        """Process one frame; returns the events it caused. ``None`` = a frame that failed."""
        t0 = time.perf_counter()
        before = len(self.events)
        self.frame_no += 1
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            self.watch.note("ignored", f"frame {self.frame_no} could not be decoded")
        else:
            self._frame(frame)
        self.stats.times_ms.append((time.perf_counter() - t0) * 1000)
        return self.events[before:]

    def confirm(self, trick: int, seat: int, card: Card | str) -> Entry:
        """A person names the card ``seat`` played to ``trick`` (1-based): the panel's one tap."""
        return self.watch.confirm(trick, seat, card)

    def confirm_trump(self, card: Card | str) -> None:
        """A person names the turned-up card when the camera could not read it."""
        self.watch.confirm_trump(card)

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
            retry = (self.watch.seats[seat].kind == "face" and self.watch.wants_reread(seat)
                     and z.tries < self.retries)
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
        self.watch.close()

    def _look(self, seat: int, zone: np.ndarray) -> None:
        z = self.zones[seat]
        lk = look(zone, self.layout.card_scale)
        if lk.kind == "unclear":
            z.looked, z.waiting_since = None, 0  # look again once it changes
            return
        if lk.kind != "face":
            z.looked, z.waiting_since = z.prev, 0
            z.tries, z.card_thumb = 0, None
            self.watch.zone_shows(seat, lk.kind)
            return
        if self._reads_left <= 0:
            return  # still due: read on a later frame, the frame budget is spent
        self._reads_left -= 1
        z.looked, z.waiting_since = z.prev, 0
        assert lk.face is not None
        sig = _signature(lk.face)
        view = self.watch.seats[seat]
        if z.card_thumb is not None and not _same(sig, z.card_thumb):
            if view.committed is not None:
                z.card_thumb = None
            self.watch.another_card(seat)
        if view.kind != "face":
            z.tries = 0
        z.tries += 1
        if z.card_thumb is None:
            z.card_thumb = sig
        canvas = canvas_of(lk.face)
        outcome: Outcome = (self.reader.read(canvas) if self.reader is not None
                            else Reject(Reason.UNREADABLE, "no recogniser"))
        self.stats.reads += 1
        partial = None
        if not outcome.accepted and self.watch.wants_partial(seat):
            partial = partial_read(self.reader, canvas[_FACE_Y:_FACE_Y + FACE_H, _FACE_X:_FACE_X + FACE_W])
        self.watch.seen(seat, _sight(outcome), partial)


def _sight(outcome: Outcome) -> Sight:
    """The recogniser's verdict in the rules' plain terms."""
    if isinstance(outcome, Read):
        return Sight(outcome.card, outcome.accepted, outcome.label, "", outcome.method)
    return Sight(None, False, outcome.label, outcome.detail)


# --------------------------------------------------------------------------- setups


def run(watcher: TableWatcher, frames: Iterable[np.ndarray | tuple[np.ndarray, Any]]) -> TableWatcher:
    """Feed every frame (or (frame, note) pair) to ``watcher``."""
    for f in frames:
        watcher.feed(f[0] if isinstance(f, tuple) else f)
    return watcher
