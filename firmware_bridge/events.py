"""Typed events that :meth:`firmware_bridge.driver.Machine.events` yields.

Machine events mirror the protocol's event messages; the driver adds link
events (:class:`LinkLost`, :class:`Connected`) and reconciliation results
(:class:`CardDropped` with ``inferred=True``, :class:`CardReturned`) after a
reconnect or a power cut. Pockets are numbered 0..3 (North, East, South, West
in boardwright's use); ``None`` is the reject tray.

>>> CardDropped(12, 2, (3, 3, 4, 2), 0).describe()
'card 12 dropped into pocket 2 (counts 3/3/4/2, 0 rejected)'
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.protocol import HelloInfo, StateInfo


@dataclass(frozen=True)
class Event:
    """Base class of every driver event."""

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Connected(Event):
    """A handshake and state query succeeded (first time, or after a loss)."""

    info: HelloInfo
    state: StateInfo
    reconnect: bool = False
    power_cut: bool = False  # the machine restarted: its boot id changed

    def describe(self) -> str:
        how = "after a power cut" if self.power_cut else "again" if self.reconnect else ""
        return f"connected to {self.info.serial} ({self.info.firmware}) {how}".strip()


@dataclass(frozen=True)
class LinkLost(Event):
    """Nothing valid heard from the machine for ``silent_for`` seconds."""

    port: str
    silent_for: float

    def describe(self) -> str:
        return f"no answer from the dealing machine on {self.port} for {self.silent_for:.1f} s"


@dataclass(frozen=True)
class BoardInserted(Event):
    number: int | None  # None when the machine has no reader or the sticker is unreadable


@dataclass(frozen=True)
class BoardRemoved(Event):
    pass


@dataclass(frozen=True)
class HopperEmpty(Event):
    pass


@dataclass(frozen=True)
class CardAtGate(Event):
    """A card waits at the read gate; route it with ``Machine.route(gate_id, pocket)``.

    ``repeat`` is set when the driver announces it again after a reconnect,
    because the machine still waits for a route.
    """

    gate_id: int
    repeat: bool = False
    boot_id: int = 0  # gate ids restart at each power-up; (boot_id, gate_id) is unique


@dataclass(frozen=True)
class CardDropped(Event):
    """The pocket sensor saw the card land. ``pocket`` None means the reject tray.

    ``inferred`` is set when the drop was worked out from the pocket counts
    after a power cut, because the machine forgot the card itself.
    """

    gate_id: int
    pocket: int | None
    counts: tuple[int, int, int, int]
    rejects: int
    inferred: bool = False
    boot_id: int = 0

    def describe(self) -> str:
        where = "the reject tray" if self.pocket is None else f"pocket {self.pocket}"
        c = "/".join(map(str, self.counts))
        how = " (inferred from the pocket counts)" if self.inferred else ""
        return f"card {self.gate_id} dropped into {where} (counts {c}, {self.rejects} rejected){how}"


@dataclass(frozen=True)
class CardReturned(Event):
    """After a power cut, the card with this gate id did not land: it is back in
    the hopper and will come to the gate again under a new gate id."""

    gate_id: int
    boot_id: int = 0


@dataclass(frozen=True)
class Misfeed(Event):
    attempt: int


@dataclass(frozen=True)
class DoubleFeed(Event):
    """Two cards came together and both went to the reject tray; the machine paused."""

    cards: int
    rejects: int


@dataclass(frozen=True)
class Jam(Event):
    cleared: bool = False


@dataclass(frozen=True)
class Cover(Event):
    open: bool


@dataclass(frozen=True)
class MachineFault(Event):
    """The machine stopped itself after an internal error (its firmware failed).

    Nothing the operator does at the machine clears it: the machine must be
    restarted, and the job resumes from its journal.
    """

    code: int
    text: str

    def describe(self) -> str:
        return f"the dealing machine stopped itself: {self.text or f'fault {self.code}'}"


@dataclass(frozen=True)
class LineError(Event):
    """Bytes that were not a valid frame: noise, a truncated frame, another version."""

    reason: str
    raw: bytes

    def describe(self) -> str:
        return f"line error: {self.reason} ({len(self.raw)} bytes)"


@dataclass(frozen=True)
class UnknownMessage(Event):
    """A well-formed frame of a type this driver does not know (acknowledged, ignored)."""

    type: int
