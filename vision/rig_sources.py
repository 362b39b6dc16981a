"""The rig's cameras: what the camera reports when a card reaches the dealing gate.

Each camera has ``look(key) -> Sighting`` for the card ``key = (boot id, gate
id)`` at the gate, and ``last_frame`` (the picture it read last, ``None`` for
none) for the panel's picture feed:

* :class:`EmulatorCamera` — renders the emulator's physical card at the gate and
  reads it back with the real recogniser;
* :class:`TruthCamera` — the emulator's own label of the card, no pixels (soaks);
* :class:`FolderCamera` — frames written as files by an emulator in another
  process (:func:`folder_writer` writes them);
* :class:`LiveCamera` — any :mod:`vision.sources` source (``camera:0``).

The emulator's cameras hook into the machine emulator, but this adapter never
imports ``firmware_bridge``: they see it through the small protocols
:class:`GateEmulator` and :class:`GateCard` (duck typing), and the rig
(``rig.py``) wires the two together. Moved here from ``rig.py``.

>>> from dealer.cards import Card
>>> class Pc:  # a physical card as the emulator hands it over
...     card, deck_id, face_up, joker = Card.parse("SA"), "1", True, False
>>> class Emu:
...     boot_id, camera = 7, None
>>> cam = TruthCamera()
>>> cam.attach(Emu())
>>> cam.hook(1, Pc())
>>> cam.look((7, 1))
Sighting(card=Card('SA'), problem=None, detail='', deck='1')
"""

from __future__ import annotations

import textwrap
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from dealer.cards import Card
from dealer.rig_report import RigError
from dealer.session import Sighting


class GateCard(Protocol):
    """A physical card as the machine emulator hands it to the camera
    (``firmware_bridge.physical.PhysicalCard``): hashable, read-only."""

    @property
    def card(self) -> Card | None: ...
    @property
    def deck_id(self) -> str: ...
    @property
    def face_up(self) -> bool: ...
    @property
    def joker(self) -> bool: ...


class GateEmulator(Protocol):
    """What a camera needs of the machine emulator (``firmware_bridge.emulator.Emulator``):
    its boot id, and the ``camera`` hook it calls with (gate id, card) as a card
    reaches the gate, before it announces the card to the host."""

    boot_id: int
    camera: Callable[[int, Any], None] | None


def _deck_number(deck_id: str) -> int:
    return int(deck_id) % 1000 if deck_id.isdigit() else zlib.crc32(deck_id.encode()) % 1000


#: The longest reason a sighting carries to the operator (characters).
SIGHTING_DETAIL = 160


def sighting_from(outcome: Any) -> Sighting:
    """Translate a vision Read/Reject into the session's port type."""
    if outcome.accepted:
        deck = outcome.evidence.get("deck_id", outcome.evidence.get("design"))
        return Sighting(outcome.card, deck=None if deck is None else str(deck))
    reason = outcome.reason.name
    problem = {"JOKER": "joker", "FACE_DOWN": "face_down", "NOT_THIS_DECK": "other_deck"}.get(
        reason, "unreadable")
    # Kept to a line on the operator's screen, cut at a word (it was cut mid-word at 120
    # characters: "are its codes cov").
    return Sighting(None, problem, textwrap.shorten(f"{outcome.reason.value}: {outcome.detail}",
                                                    width=SIGHTING_DETAIL, placeholder=" …"))


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
        self.cards: dict[tuple[int, int], GateCard] = {}
        self.smudged: set[GateCard] = set()
        self.emu: GateEmulator | None = None
        self._cache: dict[tuple[Any, ...], Any] = {}
        self.sample: list[Any] = []
        self.reader = self._make_reader()

    def _make_reader(self) -> Any:
        from vision.designs import DESIGNS
        from vision.render import render_card_frame

        def sorted_pass() -> list[tuple[str, Any]]:  # what the operator shows once per deck
            return [(str(c), render_card_frame(c, design=self.design, seed=int(c))) for c in Card.all()]

        if DESIGNS[self.design].barcode:
            from vision.barcode import BarcodeReader, learn_layout
            from vision.code_layout import rendered

            symbology = DESIGNS[self.design].barcode or "qr"
            if not DESIGNS[self.design].stickers:
                return BarcodeReader("zxing", symbology, layout=rendered(symbology))
            # Stickers put on by hand: where each card's codes lie is learned (vision learn-codes).
            return BarcodeReader("zxing", symbology, layout=learn_layout(self.design, sorted_pass(), symbology=symbology))
        from vision.index import IndexReader
        from vision.learn import learn

        return IndexReader(learn(self.design, sorted_pass(), source="rig"))

    def attach(self, emu: GateEmulator) -> None:
        self.emu = emu
        emu.camera = self.hook

    def render(self, pc: GateCard, variant: int, smudged: bool = False) -> Any:
        from vision.render import render_card_frame

        key = (pc.card, pc.deck_id, pc.face_up, pc.joker, variant, smudged)
        if key not in self._cache:
            self._cache[key] = render_card_frame(
                pc.card if pc.card is not None else None, design=self.design,
                deck_id=_deck_number(pc.deck_id), face_up=pc.face_up, joker=pc.joker,
                seed=self.seed * 7919 + variant * 104729 + (int(pc.card or 0)),
                distortions="heavy-blur!" if smudged else "normal")
        return self._cache[key]

    def hook(self, gate_id: int, pc: GateCard) -> None:
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

    def hook(self, gate_id: int, pc: GateCard) -> None:
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


def folder_writer(emu: GateEmulator, folder: str | Path, design: str = "qr") -> EmulatorCamera:
    """Make ``emu`` write each gate frame into ``folder`` (for a rig in another process)."""
    import cv2

    cam = EmulatorCamera(design)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)

    def hook(gate_id: int, pc: GateCard) -> None:
        frame = cam.render(pc, gate_id % cam.variants)
        tmp = out / f".{gate_id}.png"
        cv2.imwrite(str(tmp), frame)
        tmp.replace(out / FolderCamera.name((emu.boot_id, gate_id)))  # whole file or none

    cam.emu = emu
    emu.camera = hook
    return cam


def live_reader(faces: str | None = None, design: str | None = None) -> Any:
    """The reader of a real camera at the gate: with ``design``, the corner index against a
    design learned with ``vision learn`` (its name or .npz file); else QR codes, and with
    ``faces`` where the deck's codes lie, so that two cards stuck together are refused
    ('printed': print-deck's faces; else a layout learned with ``vision learn-codes``)."""
    from vision.barcode import BarcodeReader, layout_for
    from vision.learn import LearnedDesign, design_path

    if design is not None:
        if faces is not None:
            raise RigError("--design reads the corner index, --faces barcodes: give one of them")
        from vision.index import IndexReader

        return IndexReader(LearnedDesign.load(design_path(design)))
    if faces is None:
        return BarcodeReader("zxing", "qr")
    layout = layout_for(faces)
    return BarcodeReader("zxing", layout.symbology or "qr", layout=layout)


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

