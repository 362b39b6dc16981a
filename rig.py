"""The rig: a dealing machine, a camera and a dealing session, wired together.

This is the one module that imports several adapters (``firmware_bridge`` for
the machine, ``vision`` for the camera). It holds no bridge logic: every
decision is made by :class:`dealer.session.DealingSession`, which this module
only feeds with what the machine and the camera report, and whose decisions
it carries out. ``boardwright deal SET --machine URL --camera SOURCE`` runs it
in the terminal.

Machine URL: any pyserial URL (``/dev/ttyACM0``, a pty, ``socket://host:port``),
or ``emulator`` for an in-process emulator with a simulated operator.
Camera SOURCE: ``emulator[:design=qr]`` (frames rendered of the card at the
emulator's gate), ``truth`` (the emulator's own label of the card, no pixels:
for soaks), ``dir:PATH`` (frames written as files ``BOOT-GATE.png`` by an
emulator in another process), or any vision source (``camera:0``).

>>> import tempfile
>>> from dealer.generate import random_dealset
>>> with tempfile.TemporaryDirectory() as d:
...     report = run_emulated(random_dealset([1, 2]), f"sqlite:///{d}/j.sqlite",
...                           camera="truth", time_scale=0.005, quiet=True)
>>> report.boards_done, report.misdealt
(2, 0)
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import random
import statistics
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer import session_notices as say
from dealer.board import Board, DealSet
from dealer.cards import Card
from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.play import Play
from dealer.session import DealingSession, MachineView, Sighting
from dealer.session_notices import Notice
from dealer.session_plan import Plan
from dealer.session_scan import ScanSession
from dealer.store import Store, make_engine
from dealer.store.journal import JournalStore
from firmware_bridge import events as ev
from firmware_bridge import protocol as proto
from firmware_bridge.driver import Machine, MachineError, RouteResult
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan
from firmware_bridge.physical import PhysicalCard, standard_deck

#: After these notices the operator has done something physical and says "continue".
CONTINUE = {"missing", "refeed", "double_feed", "hopper_empty", "resume", "power_cut", "start"}
#: Steps of a job that go well: shown in the status line only.
ROUTINE = {"start", "insert", "board_done", "resume", "verified", "recorded", "play_scanned"}
#: A board is finished (dealt, or scanned): the operator takes it out.
DONE = {"board_done", "verified", "verify_failed", "recorded", "play_scanned", "play_failed"}


class RigError(BoardwrightError):
    """The rig could not go on (no events from the machine, a camera that cannot open)."""


# ============================================================================ cameras
def _deck_number(deck_id: str) -> int:
    return int(deck_id) % 1000 if deck_id.isdigit() else zlib.crc32(deck_id.encode()) % 1000


def sighting_from(outcome: Any) -> Sighting:
    """Translate a vision Read/Reject into the session's port type."""
    if outcome.accepted:
        deck = outcome.evidence.get("deck_id", outcome.evidence.get("design"))
        return Sighting(outcome.card, deck=None if deck is None else str(deck))
    reason = outcome.reason.name
    problem = {"JOKER": "joker", "FACE_DOWN": "face_down", "NOT_THIS_DECK": "other_deck"}.get(
        reason, "unreadable")
    return Sighting(None, problem, f"{outcome.reason.value}: {outcome.detail}"[:120])


class EmulatorCamera:
    """The emulator's camera hook: renders the physical card at the gate, reads it back.

    Frames are rendered once per (card, deck, variant) and reused, because the
    renderer costs ~30 ms a frame and the recogniser ~2 ms; the recognition
    itself runs on every card. ``smudged`` cards are rendered out of focus
    (the "heavy-blur!" condition) the first time they reach the gate.
    """

    #: The frame of the card the camera read last (``None``: no picture); see PictureFeed.
    last_frame: Any = None

    def __init__(self, design: str = "qr", *, variants: int = 2, seed: int = 0) -> None:
        from vision.designs import DESIGNS

        if design not in DESIGNS:
            raise RigError(f"unknown card design {design!r}; one of {', '.join(DESIGNS)}")
        self.design, self.variants, self.seed = design, variants, seed
        self.frames: dict[tuple[int, int], Any] = {}
        self.cards: dict[tuple[int, int], PhysicalCard] = {}
        self.smudged: set[PhysicalCard] = set()
        self.emu: Emulator | None = None
        self._cache: dict[tuple[Any, ...], Any] = {}
        self.sample: list[Any] = []
        self.reader = self._make_reader()

    def _make_reader(self) -> Any:
        from vision.designs import DESIGNS

        if DESIGNS[self.design].barcode:
            from vision.barcode import BarcodeReader

            return BarcodeReader("zxing", DESIGNS[self.design].barcode or "qr")
        from vision.index import IndexReader
        from vision.learn import learn
        from vision.render import render_card_frame

        # A learning pass of a sorted deck, as the operator would do once per design.
        frames = [(str(c), render_card_frame(c, design=self.design, seed=int(c))) for c in Card.all()]
        return IndexReader(learn(self.design, frames, source="rig"))

    def attach(self, emu: Emulator) -> None:
        self.emu = emu
        emu.camera = self.hook

    def render(self, pc: PhysicalCard, variant: int, smudged: bool = False) -> Any:
        from vision.render import render_card_frame

        key = (pc.card, pc.deck_id, pc.face_up, pc.joker, variant, smudged)
        if key not in self._cache:
            self._cache[key] = render_card_frame(
                pc.card if pc.card is not None else None, design=self.design,
                deck_id=_deck_number(pc.deck_id), face_up=pc.face_up, joker=pc.joker,
                seed=self.seed * 7919 + variant * 104729 + (int(pc.card or 0)),
                distortions="heavy-blur!" if smudged else "normal")
        return self._cache[key]

    def hook(self, gate_id: int, pc: PhysicalCard) -> None:
        assert self.emu is not None
        key = (self.emu.boot_id, gate_id)
        smudged = pc in self.smudged
        self.smudged.discard(pc)
        self.cards[key] = pc
        self.frames[key] = self.render(pc, gate_id % self.variants, smudged)
        if len(self.sample) < 12:
            self.sample.append(self.frames[key])

    def save_sample(self, path: str | Path) -> Path | None:
        """A contact sheet of the first frames the camera saw (3 x 4), as PNG."""
        import cv2
        import numpy as np

        if not self.sample:
            return None
        frames = [cv2.resize(f, (320, 240)) for f in self.sample]
        frames += [np.zeros_like(frames[0])] * (12 - len(frames))
        sheet = np.vstack([np.hstack(frames[r * 4:(r + 1) * 4]) for r in range(3)])
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out), sheet)
        return out

    def look(self, key: tuple[int, int]) -> Sighting:
        frame = self.last_frame = self.frames.pop(key, None)
        if frame is None:
            return Sighting(None, "unreadable", "the camera has no picture of this card")
        return sighting_from(self.reader.read(frame))


class TruthCamera(EmulatorCamera):
    """The emulator's label of each card, no pixels: a perfect, instant camera for soaks.

    ``smudged`` cards are reported unreadable once, as the real camera would.
    """

    def __init__(self) -> None:
        self.sample = []
        self.frames = {}
        self.cards = {}
        self.smudged = set()
        self.emu = None
        self.labels: dict[tuple[int, int], Sighting] = {}

    def hook(self, gate_id: int, pc: PhysicalCard) -> None:
        assert self.emu is not None
        key = (self.emu.boot_id, gate_id)
        self.cards[key] = pc
        if pc in self.smudged:
            self.smudged.discard(pc)
            s = Sighting(None, "unreadable", "smudged index")
        elif pc.joker or pc.card is None:
            s = Sighting(None, "joker")
        elif not pc.face_up:
            s = Sighting(None, "face_down")
        else:
            s = Sighting(pc.card, deck=str(_deck_number(pc.deck_id)))
        self.labels[key] = s

    def look(self, key: tuple[int, int]) -> Sighting:
        return self.labels.pop(key, None) or Sighting(None, "unreadable", "no label")


class FolderCamera:
    """Frames written as ``BOOT-GATE.png`` (8 and 6 hex/decimal digits) by another process."""

    last_frame: Any = None

    def __init__(self, folder: str | Path, *, wait: float = 1.0) -> None:
        from vision.barcode import BarcodeReader

        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise RigError(f"camera folder {self.folder} does not exist")
        self.wait = wait
        self.reader = BarcodeReader("zxing", "qr")

    @staticmethod
    def name(key: tuple[int, int]) -> str:
        return f"{key[0]:08x}-{key[1]:06d}.png"

    def look(self, key: tuple[int, int]) -> Sighting:
        import cv2

        path = self.folder / self.name(key)
        deadline = time.monotonic() + self.wait
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.exists() else None
        self.last_frame = frame
        if frame is None:
            return Sighting(None, "unreadable", f"no picture {path.name}")
        return sighting_from(self.reader.read(frame))


def folder_writer(emu: Emulator, folder: str | Path, design: str = "qr") -> EmulatorCamera:
    """Make ``emu`` write each gate frame into ``folder`` (for a rig in another process)."""
    import cv2

    cam = EmulatorCamera(design)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)

    def hook(gate_id: int, pc: PhysicalCard) -> None:
        frame = cam.render(pc, gate_id % cam.variants)
        tmp = out / f".{gate_id}.png"
        cv2.imwrite(str(tmp), frame)
        tmp.replace(out / FolderCamera.name((emu.boot_id, gate_id)))  # whole file or none

    cam.emu = emu
    emu.camera = hook
    return cam


class LiveCamera:
    """A real camera (any vision source): the newest frame when a card reaches the gate."""

    last_frame: Any = None

    def __init__(self, spec: str, reader: Any) -> None:
        from vision.sources import open_source

        self.frames = iter(open_source(spec))
        self.reader = reader

    def look(self, key: tuple[int, int]) -> Sighting:
        try:
            _, frame = next(self.frames)
        except StopIteration:
            return Sighting(None, "unreadable", "the camera stopped giving frames")
        self.last_frame = frame
        if frame is None:
            return Sighting(None, "unreadable", "the camera frame could not be decoded")
        return sighting_from(self.reader.read(frame))


# ============================================================================ operators
class ConsoleOperator:
    """A person at a real machine: reads the instruction, acts, presses Enter."""

    def __init__(self, ask: Callable[[str], str] = input) -> None:
        self.ask = ask

    def handle(self, notice: Notice, rig: Rig) -> None:
        if notice.stop and notice.code in CONTINUE:
            try:
                self.ask(f"  {notice.instruction} — press Enter to continue ")
            except EOFError:
                pass  # no terminal (a service, a test): carry on as if Enter was pressed

    def after_drop(self, rig: Rig) -> None:
        pass

    def tick(self, rig: Rig) -> None:
        pass

    def idle(self, rig: Rig) -> bool:
        return False


@dataclass
class Scenario:
    """Faults the simulated operator's decks and machine will have, by board number.

    Kinds: deck faults ``duplicate``, ``missing``, ``joker``, ``face_down``,
    ``other_deck``, ``unreadable``, ``same_back``, ``wrong_board``; machine
    faults ``jam``, ``misfeed``, ``double``, ``cover``, ``power_cut``, ``unplug``
    (injected after ``at_card`` drops).
    """

    faults: dict[int, list[str]] = field(default_factory=dict)
    at_card: int = 20
    seed: int = 0

    @classmethod
    def parse(cls, text: str) -> Scenario:
        """``"jam@2,duplicate@3"`` -> jam on board 2, a duplicate card on board 3."""
        sc = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            kind, _, board = part.partition("@")
            if kind not in FAULT_KINDS or not board.isdigit():
                raise RigError(f"cannot read fault {part!r}: use KIND@BOARD with KIND one of "
                               f"{', '.join(sorted(FAULT_KINDS))}")
            sc.faults.setdefault(int(board), []).append(kind)
        return sc


FAULT_KINDS = {"duplicate", "missing", "joker", "face_down", "other_deck", "unreadable",
               "same_back", "wrong_board", "jam", "misfeed", "double", "cover", "power_cut",
               "unplug"}


@dataclass
class BoardCheck:
    """What was physically in one board's pockets when the operator took it out."""

    number: int
    copy: int
    ok: bool
    pockets: list[list[PhysicalCard]]


class EmulatedOperator:
    """A patient volunteer at the emulator: follows every instruction to the letter.

    Inserts boards with a freshly shuffled deck (decks alternate between two
    back designs, as clubs alternate red and blue), clears jams, closes the
    cover, re-feeds rejected cards, finds missing cards, takes out jokers and
    strays, and checks each finished board's pockets against the deal.
    """

    def __init__(self, emu: Emulator, camera: Any, scenario: Scenario | None = None, *,
                 hands: Callable[[int], list[list[Card]]] | None = None) -> None:
        self.emu = emu
        self.camera = camera
        self.hands = hands  # scan modes: the four hands of a board, fed N, E, S, W
        self.fed: dict[int, list[list[Card]]] = {}
        self.scenario = scenario or Scenario()
        self.rng = random.Random(self.scenario.seed)
        self.checks: list[BoardCheck] = []
        self.aside: list[PhysicalCard] = []  # cards found later (missing) or put aside
        self.deck_count = 0
        self.drops = 0
        self.pending_machine_faults: list[str] = []
        self.wrong_done: set[int] = set()
        self.injected: Counter[str] = Counter()
        self.todo: Any = None  # a finished board to take out once the machine stands still
        self.reuse: list[PhysicalCard] | None = None
        self.put_aside: list[PhysicalCard] = []
        self.last_deck = "2"

    # -- boards
    def _deck_for(self, number: int) -> list[PhysicalCard]:
        faults = self.scenario.faults.get(number, [])
        self.deck_count += 1
        # Clubs alternate two back designs; "same_back" repeats the previous one.
        same = "same_back" in faults
        deck_id = self.last_deck if same else ("2" if self.last_deck == "1" else "1")
        self.last_deck = deck_id
        deck = standard_deck(deck_id)
        self.rng.shuffle(deck)
        self.aside = []
        if "missing" in faults:
            self.aside.append(deck.pop(self.rng.randrange(len(deck))))
        if "duplicate" in faults:
            deck.insert(self.rng.randrange(len(deck)), self.rng.choice(deck))
        if "joker" in faults:
            deck.insert(self.rng.randrange(len(deck)), PhysicalCard.make_joker(deck_id))
        if "face_down" in faults:
            i = self.rng.randrange(len(deck))
            deck[i] = dataclasses.replace(deck[i], face_up=False)
        if "other_deck" in faults:
            stray = PhysicalCard(Card(self.rng.randrange(52)), "77")
            deck.insert(self.rng.randrange(len(deck)), stray)
        readable = [c for c in deck if c.face_up and not c.joker]
        for pc in self.rng.sample(readable, min(len(readable), faults.count("unreadable"))):
            self.camera.smudged.add(pc)
        for kind in faults:
            self.injected[kind] += 1
        self.pending_machine_faults = [f for f in faults if f in
                                       ("jam", "misfeed", "double", "cover", "power_cut", "unplug")]
        self.drops = 0
        return deck

    def insert(self, rig: Rig) -> None:
        slot = rig.session.next_slot
        if slot is None:
            return
        number = slot.number
        if self.reuse is not None:  # the same board again, with the cards it already had
            back, self.reuse = self.reuse, None
            self.emu.insert_board(number, back)
            return
        self.emu.return_rejects()  # a fresh deck: clear what the last one left behind
        self.emu.hopper.clear()
        faults = self.scenario.faults.get(number, [])
        if "wrong_board" in faults and slot.index not in self.wrong_done:
            self.wrong_done.add(slot.index)
            self.injected["wrong_board"] += 1
            self.emu.insert_board(number + 1000, [])  # a board from another set
            return
        deck = self._deck_for(number)
        if self.hands is not None:  # scan modes: the hands in order, North's on top
            by_card = {pc.card: pc for pc in deck if pc.card is not None}
            hands = self.hands(number)
            self.fed[number] = hands
            deck = [by_card.get(c) or PhysicalCard(c, "1") for h in hands for c in h]
        self.emu.insert_board(number, deck)

    def handle(self, notice: Notice, rig: Rig) -> None:
        code = notice.code
        if code == "duplicate" and self.camera.cards:
            # The card the notice is about is the one just seen at the gate.
            self.put_aside.append(next(reversed(self.camera.cards.values())))
        if code in ("insert",):
            self.insert(rig)
        elif code == "wrong_board":
            self.emu.remove_board()  # the BoardRemoved event then asks for the right one
        elif code in DONE:
            # Wait for the machine to stop (a card fed before the pause still comes to the
            # gate and is rejected), then take the board out: see tick().
            cur = rig.session.current
            if cur is not None and hasattr(cur, "slot"):
                d = cur.slot.deal
                self.todo = (cur.slot.number, cur.slot.copy,
                             [[int(c) for c in d.hand(seat).cards] for seat in range(4)])
            elif cur is not None:
                fed = self.fed.get(cur.number, cur.hands)
                self.todo = (cur.number, 1, [[int(c) for c in h] for h in fed])
        elif code in ("board_pulled", "restart"):
            # Put every card of the board and the reject tray back and insert it again.
            keep = [pc for pocket in self.emu.pockets for pc in pocket]
            keep += [pc for pc in self._take_rejects() if not pc.joker and pc.deck_id != "77"]
            self.reuse = keep + self.emu.hopper
            self.emu.hopper.clear()
            if self.emu.board_number is not None:
                self.emu.remove_board()  # its BoardRemoved event asks for the board again
            else:
                self.insert(rig)
        elif code == "refeed":
            self._refeed(rig)
        elif code == "missing":
            found, self.aside = self.aside, []
            self.emu.hopper[:0] = found  # on the hopper before the tray is touched
            self._refeed(rig)
            self.emu.load_hopper([])  # "cards added": the machine may say empty again
        elif code == "double_feed":
            self.emu.return_rejects(2)
        elif code == "jam":
            self.emu.clear_jam()
        elif code == "cover_open":
            self.emu.close_cover()
        elif code == "hopper_empty":
            self.emu.load_hopper(standard_deck())

    def _refeed(self, rig: Rig) -> None:
        """Put back what belongs to the deck; jokers, strays and second copies go aside."""
        keep = []
        for pc in self._take_rejects():
            if pc.joker or pc.deck_id == "77":
                continue
            if pc in self.put_aside:  # the session called it a second copy
                self.put_aside.remove(pc)
                continue
            keep.append(pc if pc.face_up else dataclasses.replace(pc, face_up=True))
        self.emu.hopper[:0] = keep

    def _take_rejects(self) -> list[PhysicalCard]:
        """Empty the reject tray into the operator's hand (not onto the hopper)."""
        if not self.emu.rejects:
            return []  # (returning nothing would still tell the machine cards were added)
        back = self.emu.return_rejects()
        del self.emu.hopper[: len(back)]
        return back

    def tick(self, rig: Rig) -> None:
        """Called between events: finish what waits for the machine to stand still."""
        if self.todo is None or self.emu.phase != "idle":
            return
        number, copy, want = self.todo
        self.todo = None
        pockets = self.emu.remove_board()
        ok = all(sorted(int(pc.card) for pc in got if pc.card is not None and pc.face_up)
                 == sorted(w) and len(got) == 13 for got, w in zip(pockets, want, strict=True))
        self.checks.append(BoardCheck(number, copy, ok, pockets))

    def after_drop(self, rig: Rig) -> None:
        self.drops += 1
        if self.drops != self.scenario.at_card or not self.pending_machine_faults:
            return
        for kind in self.pending_machine_faults:
            if kind in ("jam", "misfeed", "double"):
                self.emu.inject(kind)
            elif kind == "cover":
                self.emu.open_cover()
            elif kind == "power_cut":
                self.emu.power_cut(when="dropping")
            elif kind == "unplug":
                self.emu.unplug(1.0)  # longer than the link timeout: a real cable pull
        self.pending_machine_faults = []

    def idle(self, rig: Rig) -> bool:
        """Nothing happens: look at the machine as a person would. True if acted."""
        st = rig.session.state
        if st == "waiting_board" and self.emu.board_number is None:
            self.insert(rig)
            return True
        if self.emu.cover_open:
            self.emu.close_cover()
            return True
        if self.emu.jammed is not None:
            self.emu.clear_jam()
            return True
        if st == "dealing":
            rig.continue_machine()
            return True
        return False


# ============================================================================ pictures
class PictureFeed:
    """The camera's latest picture for the panel, published off the dealing loop.

    The rig offers each frame it has read (:meth:`offer`: it only keeps a
    reference and wakes the feed's thread, so a card at the gate never waits
    for a picture). The thread downscales the newest frame to ``width`` pixels,
    encodes it as JPEG with OpenCV and hands the bytes to ``publish`` (for the
    panel: :func:`dealer.store.dealing.set_image`), at most ``per_second``
    times a second; frames in between are skipped, not queued.

    The frame of a card sent to the reject tray (unreadable, a joker, a second
    copy...) is the one the operator needs beside the error, so it goes out at
    once, under a red banner naming the reason, and later frames do not
    replace it until the rig calls :meth:`release` (the machine goes on after
    the stop, or the board is done) and ``hold`` seconds have passed.

    >>> import numpy as np
    >>> got = []
    >>> with PictureFeed(got.append) as feed:
    ...     feed.offer(np.zeros((480, 640, 3), np.uint8))
    >>> len(got), got[0][:3] == b"\\xff\\xd8\\xff"
    (1, True)
    """

    def __init__(self, publish: Callable[[bytes], None], *, per_second: float = 2.0,
                 width: int = 320, hold: float = 2.0, quality: int = 80) -> None:
        self.publish = publish
        self.interval = 1.0 / per_second
        self.width, self.hold, self.quality = width, hold, quality
        self.sent = 0
        self.failed = 0
        self.error = ""  # the last publishing error: pictures are optional, dealing goes on
        self._cond = threading.Condition()
        self._pending: tuple[Any, str | None] | None = None  # (frame, reject reason)
        self._sticky = False   # a rejected card's picture is showing
        self._sticky_until = 0.0
        self._last = -1e9
        self._closed = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="picture-feed")
        self._thread.start()

    def offer(self, frame: Any, rejected: str | None = None) -> None:
        """The camera's frame of a card; ``rejected`` names why it went to the reject tray."""
        with self._cond:
            if rejected is None and (self._sticky or time.monotonic() < self._sticky_until):
                return  # keep the rejected card on screen
            if rejected is not None:
                self._sticky, self._sticky_until = True, time.monotonic() + self.hold
            self._pending = (frame, rejected)
            self._cond.notify()

    def release(self) -> None:
        """The stop is over: later frames may replace a rejected card's (after ``hold``)."""
        with self._cond:
            self._sticky = False

    def close(self) -> None:
        """Publish what is still pending, then end the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=5.0)

    def __enter__(self) -> PictureFeed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next(self) -> tuple[Any, str | None] | None:
        with self._cond:
            while True:
                if self._pending is not None:
                    frame, reason = self._pending
                    wait = 0.0 if reason is not None or self._closed else (
                        self._last + self.interval - time.monotonic())
                    if wait <= 0:
                        self._pending = None
                        return frame, reason
                    self._cond.wait(wait)
                elif self._closed:
                    return None
                else:
                    self._cond.wait()

    def _run(self) -> None:
        while (item := self._next()) is not None:
            self._last = time.monotonic()
            try:
                self.publish(self.encode(*item))
                self.sent += 1
            except Exception as exc:  # noqa: BLE001 - a lost picture must never stop dealing
                self.failed += 1
                self.error = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__

    def encode(self, frame: Any, reason: str | None = None) -> bytes:
        """``frame`` at most ``width`` wide as JPEG; a rejected card's under a red banner."""
        import cv2

        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        h, w = frame.shape[:2]
        if w > self.width:
            frame = cv2.resize(frame, (self.width, max(1, round(h * self.width / w))),
                               interpolation=cv2.INTER_AREA)
        if reason is not None:
            red = (40, 40, 200)  # BGR
            frame = cv2.copyMakeBorder(frame, 26, 4, 4, 4, cv2.BORDER_CONSTANT, value=red)
            cv2.putText(frame, f"reject tray: {reason}"[:40], (8, 19), cv2.FONT_HERSHEY_SIMPLEX,
                        0.5, (255, 255, 255), 1, cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise RigError("the camera picture could not be encoded")
        return buf.tobytes()


def panel_pictures(stack: contextlib.ExitStack, db_url: str, job_id: int) -> PictureFeed:
    """A :class:`PictureFeed` into the panel's dealing job ``job_id`` (closed with ``stack``)."""
    from dealer.store import dealing

    store = stack.enter_context(Store.open(db_url, migrate_schema=False))
    dealing.status(store, job_id)  # no such job: say so before dealing starts
    return stack.enter_context(PictureFeed(lambda data: dealing.set_image(store, job_id, data)))


# ============================================================================ the rig
@dataclass
class RigReport:
    """What a run did; the CLI prints it, tests and the bench check it."""

    boards_total: int = 0
    boards_done: int = 0
    cards: int = 0
    seconds: float = 0.0
    decision_ms: list[float] = field(default_factory=list)
    notices: Counter[str] = field(default_factory=Counter)
    misdealt: int = 0
    checked: int = 0
    stopped: str | None = None
    run_id: int | None = None
    injected: Counter[str] = field(default_factory=Counter)
    line: dict[str, int] = field(default_factory=dict)
    scan: dict[int, Any] = field(default_factory=dict)  # scan modes: ScanResult per board

    @property
    def boards_per_minute(self) -> float:
        return 60.0 * self.boards_done / self.seconds if self.seconds else 0.0

    def latency(self, q: float) -> float:
        if not self.decision_ms:
            return 0.0
        s = sorted(self.decision_ms)
        return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Display:
    """The live terminal line: board x of y, cards, boards/minute, current error."""

    def __init__(self, out: Any = None, quiet: bool = False) -> None:
        self.out = out or sys.stdout
        self.quiet = quiet
        self.tty = hasattr(self.out, "isatty") and self.out.isatty()
        self._last = ""
        self._shown = 0.0

    def notice(self, n: Notice) -> None:
        # Routine steps only show in the status line; problems get a line of their own.
        if self.quiet or n.code in ROUTINE:
            return
        mark = "!" if n.stop else "·"
        self._clear()
        print(f"{mark} {n}", file=self.out, flush=True)

    def progress(self, rig: Rig, force: bool = False) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if not force and now - self._shown < (0.2 if self.tty else 5.0):
            return
        self._shown = now
        s = rig.session
        which, placed = s.progress()
        board = f"board {min(s.boards_done + 1, s.boards_total)} of {s.boards_total}"
        if which:
            board += f" ({which})"
        cards = f"{placed}/52 cards"
        minutes = (now - rig._t0) / 60
        rate = f"{s.boards_done / minutes:.1f} boards/min" if s.boards_done and minutes else "-- boards/min"
        ins = s.instruction
        err = f" | {ins}" if ins is not None and (ins.stop or ins.code not in ROUTINE) else ""
        line = f"{board} · {cards} · {rate}{err}"
        if self.tty:
            print("\r" + line[:150].ljust(len(self._last)), end="", file=self.out, flush=True)
        elif line != self._last:
            print(line, file=self.out, flush=True)
        self._last = line

    def _clear(self) -> None:
        if self.tty and self._last:
            print("\r" + " " * len(self._last) + "\r", end="", file=self.out)
            self._last = ""


class Rig:
    """Runs one dealing job: machine events in, session decisions out."""

    def __init__(self, machine: Machine, camera: Any, session: DealingSession, operator: Any,
                 *, display: Display | None = None, idle_timeout: float = 10.0,
                 pictures: PictureFeed | None = None) -> None:
        self.m = machine
        self.pictures = pictures
        self.camera = camera
        self.session = session
        self.operator = operator
        self.display = display or Display(quiet=True)
        self.idle_timeout = idle_timeout
        self.report = RigReport(boards_total=session.boards_total)
        self._hopper_empty = False
        self._t0 = 0.0

    def tell(self, notices: list[Notice]) -> None:
        for n in notices:
            self.report.notices[n.code] += 1
            self.display.notice(n)
            if self.session.state == "stopped":
                return
            self.operator.handle(n, self)
            if self.pictures is not None and (n.code in CONTINUE or n.code in DONE):
                self.pictures.release()  # the stop is dealt with: show the cards again
            if n.code in CONTINUE and self.session.state == "dealing":
                self.continue_machine()

    def continue_machine(self) -> None:
        self._hopper_empty = False
        try:
            self.m.resume()
        except MachineError:
            pass  # refused (cover open, jam) or link down: an event will bring us back

    def _check_hopper(self) -> None:
        """A full board with cards still on the hopper: the deck had more than 52."""
        try:
            st = self.m.state()
        except MachineError:
            return
        if not st.faults & proto.Fault.HOPPER_EMPTY:
            self.tell(self.session.hopper_not_empty())

    def _stop_machine(self) -> None:
        try:
            self.m.pause()
        except MachineError:
            pass

    def _view(self) -> MachineView:
        st = self.m.state()
        gate = (st.boot_id, st.gate_id) if st.gate_id else None
        return MachineView(bool(st.board_present), st.board_number or None, st.counts,
                           st.rejects, gate, st.gate_pocket != proto.UNROUTED)

    def run(self) -> RigReport:
        """Deal until the plan is done or the session stops; resync with the machine first."""
        self._t0 = time.monotonic()
        s = self.session
        if s.current is not None or s.boards_done:
            view = self._view()
            notices, reroute = s.reconcile(view)
            for key, pocket in reroute:
                self.m.route(key[1], pocket)
            self.tell(notices)
            cur = s.current
            if (view.gate is not None and not view.gate_routed and cur is not None
                    and view.gate not in cur.decided):
                # The last host saw this card (so the machine will not announce it again)
                # but died before deciding: decide now.
                self.on_event(ev.CardAtGate(view.gate[1], True, view.gate[0]))
            if s.state == "dealing":
                self.continue_machine()
            elif s.state == "board_done" and s.notices:
                self.tell([s.notices[-1]])
        else:
            st = self.m.state()
            if st.board_present:
                self.tell(s.board_inserted(st.board_number or None))
            else:
                self.tell(s.start())
        quiet_since = time.monotonic()
        rescues = 0
        while s.state not in ("finished", "stopped"):
            e = self.m.next_event(0.05)
            self.operator.tick(self)
            self.display.progress(self)
            if e is None:
                if time.monotonic() - quiet_since > self.idle_timeout:
                    rescues += 1
                    if rescues > 5 or not self._rescue():
                        raise RigError(f"nothing happened for {self.idle_timeout:.0f} s "
                                       f"({s.instruction or 'no instruction'})")
                    quiet_since = time.monotonic()
                continue
            quiet_since = time.monotonic()
            if isinstance(e, ev.CardDropped):
                rescues = 0
            self.on_event(e)
        if s.state == "stopped":
            self._stop_machine()
            self.report.stopped = s.stop_reason
        self.report.seconds = time.monotonic() - self._t0
        self.report.boards_done = s.boards_done
        self.report.cards = s.cards_placed
        self.display.progress(self, force=True)
        if self.display.tty and not self.display.quiet:
            print(file=self.display.out)
        return self.report

    def _rescue(self) -> bool:
        """Nothing has happened for a while: look at the machine, then ask the operator."""
        s = self.session
        try:
            st = self.m.state()
        except MachineError:
            return True  # the link is down; the driver keeps trying
        if s.state == "dealing" and st.faults & proto.Fault.HOPPER_EMPTY and st.gate_id == 0:
            notices = s.hopper_empty()
            if notices:
                self.tell(notices)
                return True
        return bool(self.operator.idle(self))

    def _show(self, seen: Sighting, d: Any) -> None:
        frame = getattr(self.camera, "last_frame", None)
        if frame is None or self.pictures is None:
            return  # a camera with no pixels (truth) or a frame that did not decode
        reason = None
        if d.pocket is None:  # the reject tray: say why on the picture
            reason = seen.problem or (d.notices[0].code if d.notices else "rejected")
        self.pictures.offer(frame, reason.replace("_", " ") if reason else None)

    def on_event(self, e: ev.Event) -> None:
        s = self.session
        if isinstance(e, ev.CardAtGate):
            t0 = time.perf_counter()
            key = (e.boot_id, e.gate_id)
            seen = self.camera.look(key)
            d = s.card_at_gate(key, seen)
            if not d.route:
                self._stop_machine()  # never route a card the journal does not know
                return
            self.report.decision_ms.append((time.perf_counter() - t0) * 1000)
            try:
                result = self.m.route(e.gate_id, d.pocket)
            except MachineError:
                result = None  # link down: the resync announces the card again
            if self.pictures is not None:  # after the route: the card never waits for it
                self._show(seen, d)
            self.tell(list(d.notices))
            if result == RouteResult.STALE:
                pass  # a power cut took it: the reconciliation decides where it went
        elif isinstance(e, ev.CardDropped):
            notices = s.card_dropped((e.boot_id, e.gate_id), e.pocket, inferred=e.inferred)
            if s.state == "stopped":
                self._stop_machine()
                self.tell(s.notices[-1:])
                return
            if s.state == "board_done":
                self._stop_machine()
                self._check_hopper()
            if e.pocket is not None:
                self.operator.after_drop(self)
            self.tell(notices)
            if self._hopper_empty and s.state == "dealing":
                self.tell(s.hopper_empty())
        elif isinstance(e, ev.CardReturned):
            s.card_returned((e.boot_id, e.gate_id))
        elif isinstance(e, ev.BoardInserted):
            self.tell(s.board_inserted(e.number))
        elif isinstance(e, ev.BoardRemoved):
            self.tell(s.board_removed())
        elif isinstance(e, ev.HopperEmpty):
            self._hopper_empty = True
            self.tell(s.hopper_empty())
        elif isinstance(e, ev.Misfeed):
            self.tell(s.machine_fault(say.misfeed(e.attempt)))
        elif isinstance(e, ev.DoubleFeed):
            self.tell(s.double_feed(e.cards))
        elif isinstance(e, ev.Jam):
            if e.cleared:
                self.continue_machine()
            else:
                self.tell(s.machine_fault(say.jam()))
        elif isinstance(e, ev.Cover):
            if e.open:
                self.tell(s.machine_fault(say.cover_open()))
            else:
                self.continue_machine()
        elif isinstance(e, ev.LinkLost):
            self.tell(s.machine_fault(say.link_lost(e.describe())))
        elif isinstance(e, ev.Connected) and (e.reconnect or e.power_cut):
            notices, reroute = s.reconcile(self._view())
            for key, pocket in reroute:
                self.m.route(key[1], pocket)
            if e.power_cut:
                notices = s.machine_fault(say.power_cut()) + notices
            self.tell(notices)
            if s.state == "dealing":
                self.continue_machine()


# ============================================================================ building a job
def load_set(store: Store, spec: str) -> tuple[int, DealSet]:
    """A stored set id, or a deal file (saved once; the same file finds the same set)."""
    if spec.isdigit():
        return int(spec), store.load(int(spec))
    from dealer import formats

    path = Path(spec).resolve()
    ds = formats.read(path)
    for summary in store.list():
        if summary.source == str(path) and store.load(summary.id).deals == ds.deals:
            return summary.id, ds
    return store.save(ds, name=path.stem, source=str(path)), ds


def set_copies(ds: DealSet) -> int:
    """Copies of each board the set asks for (``meta["Copies"]`` from PBN or DUP), else 1."""
    text = ds.meta.get("Copies")
    if text is None:
        return 1
    if not text.strip().isdigit() or int(text) < 1:
        raise RigError(f"the set's Copies {text!r} is not a number of copies; give --copies")
    return int(text)


def contracts_of(ds: DealSet) -> dict[int, Contract]:
    """Each board's contract from its PBN ``Contract`` and ``Declarer`` tags, where readable."""
    out = {}
    for b in ds:
        text = b.tags.get("Contract")
        if text:
            try:
                out[b.number] = Contract.parse(text, b.tags.get("Declarer") or None)
            except BoardwrightError:
                continue
    return out


def open_job(db_url: str, spec: str, *, options: dict[str, Any], new: bool = False,
             stop_card: bool = False, mode: str = "deal") -> tuple[Any, JournalStore, int, bool]:
    """Find or start the dealing run for ``spec``; restore it from its journal if open.

    Scan modes (verify, record, play) always start a new run.
    """
    with Store.open(db_url) as store:
        set_id, ds = load_set(store, spec)
    if options.get("copies") is None:  # no --copies: what `deals new --copies` recorded
        options = {**options, "copies": set_copies(ds)}
    runs = JournalStore(make_engine(db_url))  # its own engine: a short lock wait
    if mode != "deal":
        run_id = runs.create_run(set_id, mode, options)
        lo, hi = options.get("first"), options.get("last")
        numbers = [n for n in ds.numbers if (lo is None or n >= lo) and (hi is None or n <= hi)]
        scan = ScanSession(mode, runs.journal(run_id), ds, contracts=contracts_of(ds),
                           numbers=numbers)
        return scan, runs, run_id, False
    run_id = None if new else runs.open_run(set_id)
    resumed = run_id is not None
    if run_id is not None:
        options = {**runs.run_options(run_id)}
    else:
        run_id = runs.create_run(set_id, "deal", options)
    plan = Plan.build(ds, copies=int(options.get("copies", 1)), first=options.get("first"),
                      last=options.get("last"), descending=bool(options.get("descending")),
                      auto_number=bool(options.get("auto_number")))
    journal = runs.journal(run_id)
    if resumed:
        session = DealingSession.restore(plan, runs.entries(run_id), journal, stop_card=stop_card)
    else:
        session = DealingSession(plan, journal, stop_card=stop_card)
    return session, runs, run_id, resumed


def make_camera(spec: str, emu: Emulator | None) -> Any:
    if spec == "truth" or spec.startswith("emulator"):
        if emu is None:
            raise RigError(f"camera {spec!r} needs --machine emulator (it sees the emulator's gate)")
        if spec == "truth":
            cam: Any = TruthCamera()
        else:
            opts = dict(p.partition("=")[::2] for p in spec.partition(":")[2].split(",") if p)
            cam = EmulatorCamera(opts.get("design", "qr"), variants=int(opts.get("variants", 2)))
        cam.attach(emu)
        return cam
    if spec.startswith("dir:"):
        return FolderCamera(spec[4:])
    from vision.barcode import BarcodeReader

    return LiveCamera(spec, BarcodeReader("zxing", "qr"))


def run_emulated(ds: DealSet | str, db_url: str, *, camera: str = "emulator",
                 scenario: Scenario | None = None, time_scale: float = 0.01, seed: int = 0,
                 faults: FaultPlan | None = None, options: dict[str, Any] | None = None,
                 quiet: bool = False, stop_card: bool = False,
                 display: Display | None = None, sample: str | Path | None = None,
                 mode: str = "deal",
                 hands: Callable[[int], list[list[Card]]] | None = None,
                 pictures: PictureFeed | None = None) -> RigReport:
    """Deal (or scan) a set on an in-process emulator with a simulated operator.

    Every board is checked against the deal when the operator takes it out. In
    the scan modes the operator feeds ``hands(number)`` (default: the deal's
    hands; for ``play``, a random legal play of the board's contract).
    """
    if isinstance(ds, DealSet):
        with Store.open(db_url) as store:
            spec = str(store.save(ds, name="emulated"))
    else:
        spec = ds
    session, runs, run_id, _ = open_job(db_url, spec, options=options or {},
                                        stop_card=stop_card, mode=mode)
    if mode != "deal" and hands is None:
        hands = _default_hands(session, seed)
    with Emulator.start(pty=True, seed=seed, time_scale=time_scale, heartbeat=0.05,
                        faults=faults, boot_time=1.0) as emu:
        cam = make_camera(camera, emu)
        op = EmulatedOperator(emu, cam, scenario, hands=hands)
        with Machine.open(emu.url, rto=0.02, link_timeout=0.5) as m:
            rig = Rig(m, cam, session, op, display=display or Display(quiet=quiet),
                      idle_timeout=3.0, pictures=pictures)
            report = rig.run()
            report.line = {"bad_frames_in": m.stats.bad_total, "retransmissions":
                           m.stats.retransmissions, "link_lost": m.stats.link_lost,
                           "power_cuts": m.stats.power_cuts,
                           "frames_damaged_by_emulator": emu.noise_out.corrupted}
        report.injected = op.injected
        if sample is not None and hasattr(cam, "save_sample"):
            cam.save_sample(sample)
    report.run_id = run_id
    report.scan = getattr(session, "results", {})
    report.checked = len(op.checks)
    report.misdealt = sum(not c.ok for c in op.checks)
    if session.state == "finished":
        runs.set_state(run_id, "finished")
    return report


def _default_hands(session: ScanSession, seed: int) -> Callable[[int], list[list[Card]]]:
    """What the simulated players hand back: the dealt hands, or (play) a legal play's order."""
    rng = random.Random(seed)
    record = session.record

    def hands(number: int) -> list[list[Card]]:
        deal = record.board(number).deal if record is not None else None
        if deal is None:
            raise RigError(f"board {number} has no deal to hand back")
        contract = session.contracts.get(number)
        if session.mode != "play" or contract is None:
            return [list(deal.hand(seat).cards) for seat in range(4)]
        p = Play(contract, deal)
        while not p.is_complete:
            p.play(rng.choice(p.legal_cards()))
        return [p.played_by(seat) for seat in range(4)]  # type: ignore[arg-type]

    return hands


# ============================================================================ command line
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("deal", help="deal a set of boards on a dealing machine",
                       description="Deal SET (a stored set id or a deal file) on a machine. "
                       "An unfinished job of the same set resumes from its journal.")
    p.add_argument("set", metavar="SET", help="stored deal set id, or a deal file (PBN, DUP, ...)")
    p.add_argument("--machine", required=True,
                   help="pyserial URL (/dev/ttyACM0, socket://host:port) or 'emulator'")
    p.add_argument("--camera", default="emulator",
                   help="'emulator[:design=qr]', 'truth', 'dir:PATH', or a camera source")
    p.add_argument("--db", help="database URL (default: the instance database)")
    p.add_argument("--copies", type=int, default=None,
                   help="copies of each board (default: the set's recorded Copies, else 1)")
    p.add_argument("--boards", help="board range, e.g. 1-16")
    p.add_argument("--descending", action="store_true", help="start at the highest board")
    p.add_argument("--auto-number", action="store_true",
                   help="the board's sticker decides which deal goes in it")
    p.add_argument("--stop-card", action="store_true",
                   help="a face-down card between decks marks the end of a deck")
    p.add_argument("--new", action="store_true", help="start afresh, ignoring an unfinished job")
    p.add_argument("--mode", choices=("deal", "verify", "record", "play"), default="deal",
                   help="deal boards (default), or feed dealt hands back N, E, S, W to verify "
                   "them, record a hand-shuffled deal, or rebuild the play (play-scan)")
    p.add_argument("--faults", default="", help="emulator only: e.g. jam@2,duplicate@3")
    p.add_argument("--time-scale", type=float, default=1.0, help="emulator only: 0.1 = 10x faster")
    p.add_argument("--sample", help="emulator camera only: save the first frames it saw as PNG")
    p.add_argument("--job", type=int, default=None,
                   help="the panel's dealing job: show the camera's latest picture there")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_deal)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    first = last = None
    if args.boards:
        a, _, b = args.boards.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            raise RigError(f"--boards {args.boards!r}: write a range like 1-16")
        first, last = int(a), int(b or a)
    return {"copies": args.copies, "first": first, "last": last,
            "descending": args.descending, "auto_number": args.auto_number}


def cmd_deal(args: argparse.Namespace) -> int:
    from dealer.config import Settings

    db = args.db or Settings.load().database_url
    with contextlib.ExitStack() as stack:
        pictures = None if args.job is None else panel_pictures(stack, db, args.job)
        return _deal(args, db, pictures)


def _deal(args: argparse.Namespace, db: str, pictures: PictureFeed | None) -> int:
    display = Display(quiet=args.quiet)
    if args.machine == "emulator":
        scenario = Scenario.parse(args.faults)
        report = run_emulated(args.set, db, camera=args.camera, scenario=scenario,
                              time_scale=args.time_scale, options=_options(args),
                              stop_card=args.stop_card, display=display, sample=args.sample,
                              mode=args.mode, pictures=pictures)
        print(summary(report))
        _print_scan(report, db, args.mode)
        if args.sample and Path(args.sample).exists():
            print(f"the camera's first frames: {args.sample}")
        return 0 if report.stopped is None and report.misdealt == 0 else 1
    session, runs, run_id, resumed = open_job(db, args.set, options=_options(args), new=args.new,
                                              stop_card=args.stop_card, mode=args.mode)
    if resumed and not args.quiet:
        print(f"resuming dealing job {run_id}: {session.boards_done} of {session.boards_total} "
              "boards already dealt", flush=True)
    camera = make_camera(args.camera, None)
    with Machine.open(args.machine) as m:
        rig = Rig(m, camera, session, ConsoleOperator(), display=display, idle_timeout=3600,
                  pictures=pictures)
        report = rig.run()
    if session.state == "finished":
        runs.set_state(run_id, "finished")
    report.scan = getattr(session, "results", {})
    print(summary(report))
    _print_scan(report, db, args.mode)
    if report.stopped:
        raise RigError(f"stopped: {session.instruction}")
    return 0


def _print_scan(r: RigReport, db: str, mode: str) -> None:
    """One line per scanned board; a recorded set is saved in the store."""
    for number, res in sorted(r.scan.items()):
        if mode == "verify":
            print(f"board {number}: " + ("as recorded" if res.ok else "; ".join(res.differences)))
        elif mode == "play":
            p = res.play
            print(f"board {number}: " + (res.problem or f"{len(p.completed_tricks)} tricks, "
                                         f"declarer {p.declarer_tricks}, {p.contract.ascii}"))
    if mode == "record" and r.scan:
        ds = DealSet([Board(n, res.deal) for n, res in sorted(r.scan.items())])
        with Store.open(db) as store:
            set_id = store.save(ds, name="recorded", source="boardwright deal --mode record")
        print(f"recorded {len(ds)} deals as deal set {set_id}")


def summary(r: RigReport) -> str:
    p50 = statistics.median(r.decision_ms) if r.decision_ms else 0.0
    out = (f"{r.boards_done} of {r.boards_total} boards dealt, {r.cards} cards, "
           f"{r.boards_per_minute:.1f} boards/min; decision p50 {p50:.2f} ms, "
           f"p99 {r.latency(0.99):.2f} ms")
    if r.checked:
        out += f"; {r.checked} boards checked, {r.misdealt} mis-dealt"
    return out
