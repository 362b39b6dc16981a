"""The boardwright dealing-machine protocol: frames, messages and reliability.

This module is the single implementation of ``docs/protocol.md``; the driver
(host side) and the emulator (machine side) both use it, so they can never
drift apart.

A frame on the wire is ``COBS(body) + b"\\x00"`` where ``body`` is::

    version:u8  type:u8  seq:u16be  payload...  crc32:u32be

The CRC is CRC-32/ISO-HDLC (the zlib one) over everything before it.

>>> wire = encode_frame(Frame(MsgType.ROUTE, 7, Route(0x11223344, 5, 2).pack()))
>>> wire.hex(" ")
'03 01 82 06 07 11 22 33 44 01 01 07 05 02 22 11 24 c4 00'
>>> FrameDecoder().feed(wire)[0].message()
Route(boot_id=287454020, gate_id=5, pocket=2)
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from cobs import cobs

#: Major version of the frame layout. A frame with another major is not read.
PROTOCOL_MAJOR = 1
#: Minor version: additions that old peers may ignore (new types, trailing fields).
PROTOCOL_MINOR = 0

#: Pocket number of the reject tray in ROUTE and CARD_DROPPED.
REJECT = 0xFF
#: ``gate_pocket`` in STATE when the card at the gate has not been routed yet.
UNROUTED = 0xFE

_HEADER = struct.Struct(">BBH")
_CRC = struct.Struct(">I")
#: A body is at least a header and a CRC.
MIN_BODY = _HEADER.size + _CRC.size
#: Longest body either side sends or accepts; longer runs are line noise.
MAX_BODY = 250


class MsgType(IntEnum):
    """Message types. Bit 7 set means *sequenced*: the peer must acknowledge it."""

    ACK = 0x01
    NAK = 0x02
    HEARTBEAT = 0x03
    REPLY = 0x04
    # host requests (sequenced, answered by REPLY)
    HELLO = 0x80
    GET_STATE = 0x81
    ROUTE = 0x82
    PAUSE = 0x83
    RESUME = 0x84
    ABORT = 0x85
    SET_SPEED = 0x86
    # machine events (sequenced, answered by ACK)
    BOARD = 0xA0
    HOPPER_EMPTY = 0xA1
    CARD_AT_GATE = 0xA2
    CARD_DROPPED = 0xA3
    MISFEED = 0xA4
    DOUBLE_FEED = 0xA5
    JAM = 0xA6
    COVER = 0xA7
    MACHINE_FAULT = 0xA8


def is_sequenced(msg_type: int) -> bool:
    """True for types the receiver must acknowledge (bit 7), known or not."""
    return bool(msg_type & 0x80)


def is_request(msg_type: int) -> bool:
    return 0x80 <= msg_type <= 0x9F


def is_event(msg_type: int) -> bool:
    return 0xA0 <= msg_type <= 0xBF


class Status(IntEnum):
    """The result code in a REPLY."""

    OK = 0
    DUPLICATE = 1  # already done earlier with the same outcome; nothing changed
    STALE = 2  # the gate id is not the card at the gate, or is from another boot
    REFUSED = 3  # not possible now (bad pocket, jammed, cover open, no board)
    UNKNOWN_REQUEST = 4  # a request type this firmware does not know


class Mode(IntEnum):
    """What the machine is doing, in HEARTBEAT and STATE."""

    WAITING_HOST = 0  # just booted: no HELLO yet, sends no events
    IDLE = 1  # paused, waiting for RESUME
    RUNNING = 2  # feeding cards while a board is in and the hopper has cards
    FAULT = 3  # jam, cover open or double feed: operator, then RESUME; or MACHINE_FAULT


class Capability(IntEnum):
    """Bits of the ``flags`` byte in the HELLO reply."""

    REJECT_TRAY = 0x01
    BOARD_READER = 0x02


class Fault(IntEnum):
    """Bits of the ``faults`` byte in STATE."""

    JAM = 0x01
    COVER_OPEN = 0x02
    DOUBLE_FEED = 0x04
    HOPPER_EMPTY = 0x08


class ProtocolError(ValueError):
    """A frame or payload that does not follow the protocol (never fatal)."""


# --------------------------------------------------------------------------- frames


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: its type, sequence number and raw payload."""

    type: int
    seq: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_MAJOR

    def message(self) -> Message:
        """Decode the payload into its message class (``ProtocolError`` if malformed)."""
        cls = MESSAGES.get(self.type)
        if cls is None:
            raise ProtocolError(f"unknown message type 0x{self.type:02x}")
        return cls.unpack(self.payload)

    def describe(self) -> str:
        try:
            name = MsgType(self.type).name
        except ValueError:
            name = f"0x{self.type:02x}"
        return f"{name} seq={self.seq}"


def frame_body(frame: Frame) -> bytes:
    """The unstuffed bytes of a frame, CRC included."""
    head = _HEADER.pack(frame.version, frame.type, frame.seq & 0xFFFF) + frame.payload
    return head + _CRC.pack(zlib.crc32(head))


def encode_frame(frame: Frame) -> bytes:
    """COBS-stuffed frame with its trailing zero delimiter, ready to write."""
    return cobs.encode(frame_body(frame)) + b"\x00"


@dataclass(frozen=True, slots=True)
class BadFrame:
    """Bytes between two delimiters that are not a valid frame, and why."""

    reason: str
    raw: bytes
    version: int | None = None  # set when the frame is fine but of another major

    def describe(self) -> str:
        shown = self.raw[:24].hex(" ") + (" …" if len(self.raw) > 24 else "")
        return f"{self.reason} ({len(self.raw)} bytes: {shown})"


class FrameDecoder:
    """Split a byte stream on zero bytes and check each frame.

    Garbage never raises: it comes back as :class:`BadFrame` items, so the
    caller can count and report it. Bytes before the first delimiter after a
    (re)start are a partial frame and are dropped silently only if empty.

    >>> d = FrameDecoder()
    >>> [type(x).__name__ for x in d.feed(b"\\x05junk\\x00" + encode_frame(Frame(MsgType.NAK)))]
    ['BadFrame', 'Frame']
    """

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[Frame | BadFrame]:
        out: list[Frame | BadFrame] = []
        self._buf += data
        while True:
            end = self._buf.find(0)
            if end < 0:
                if len(self._buf) > 2 * MAX_BODY:  # a run of noise with no delimiter
                    out.append(BadFrame("over-long run without a delimiter", bytes(self._buf)))
                    self._buf.clear()
                return out
            chunk = bytes(self._buf[:end])
            del self._buf[: end + 1]
            if chunk:
                out.append(decode_body(chunk))

    def reset(self) -> None:
        self._buf.clear()


def decode_body(stuffed: bytes) -> Frame | BadFrame:
    """Check one COBS chunk (without its delimiter) and return the frame or why not."""
    if len(stuffed) > MAX_BODY + 4:
        return BadFrame("frame too long", stuffed)
    try:
        body = cobs.decode(stuffed)
    except cobs.DecodeError:
        return BadFrame("broken COBS stuffing", stuffed)
    if len(body) < MIN_BODY:
        return BadFrame("truncated frame", stuffed)
    head, crc = body[:-4], _CRC.unpack(body[-4:])[0]
    if zlib.crc32(head) != crc:
        return BadFrame("CRC mismatch", stuffed)
    version, mtype, seq = _HEADER.unpack_from(head)
    if version != PROTOCOL_MAJOR:
        return BadFrame(
            f"frame from protocol version {version}, this side speaks {PROTOCOL_MAJOR}",
            stuffed,
            version=version,
        )
    return Frame(mtype, seq, bytes(head[_HEADER.size :]), version)


def seq_after(a: int, b: int) -> bool:
    """True if 16-bit sequence number ``a`` comes after ``b`` (RFC 1982 arithmetic)."""
    return 0 < ((a - b) & 0xFFFF) < 0x8000


# --------------------------------------------------------------------------- messages


class Message:
    """Base of the typed payloads. ``FMT`` is a struct layout for fixed fields."""

    TYPE: ClassVar[int]
    FMT: ClassVar[struct.Struct] = struct.Struct(">")

    def pack(self) -> bytes:
        return self.FMT.pack(*(getattr(self, f) for f in self.__dataclass_fields__))  # type: ignore[attr-defined]

    @classmethod
    def unpack(cls, payload: bytes) -> Message:
        # Trailing bytes are allowed: a newer minor version may append fields.
        if len(payload) < cls.FMT.size:
            raise ProtocolError(
                f"{cls.__name__} payload is {len(payload)} bytes, needs {cls.FMT.size}"
            )
        return cls(*cls.FMT.unpack_from(payload))  # type: ignore[call-arg]


MESSAGES: dict[int, type[Message]] = {}


def _message(cls: type[Message]) -> type[Message]:
    MESSAGES[cls.TYPE] = cls
    return cls


@_message
@dataclass(frozen=True, slots=True)
class Ack(Message):
    TYPE = MsgType.ACK


@_message
@dataclass(frozen=True, slots=True)
class Nak(Message):
    TYPE = MsgType.NAK


@_message
@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    TYPE = MsgType.HEARTBEAT
    FMT = struct.Struct(">IBI")
    boot_id: int
    mode: int
    uptime_ms: int


@_message
@dataclass(frozen=True, slots=True)
class Hello(Message):
    TYPE = MsgType.HELLO
    FMT = struct.Struct(">BB")
    major: int = PROTOCOL_MAJOR
    minor: int = PROTOCOL_MINOR


@_message
@dataclass(frozen=True, slots=True)
class GetState(Message):
    TYPE = MsgType.GET_STATE


@_message
@dataclass(frozen=True, slots=True)
class Route(Message):
    TYPE = MsgType.ROUTE
    FMT = struct.Struct(">IIB")
    boot_id: int
    gate_id: int
    pocket: int


@_message
@dataclass(frozen=True, slots=True)
class Pause(Message):
    TYPE = MsgType.PAUSE


@_message
@dataclass(frozen=True, slots=True)
class Resume(Message):
    TYPE = MsgType.RESUME


@_message
@dataclass(frozen=True, slots=True)
class Abort(Message):
    TYPE = MsgType.ABORT


@_message
@dataclass(frozen=True, slots=True)
class SetSpeed(Message):
    TYPE = MsgType.SET_SPEED
    FMT = struct.Struct(">B")
    level: int


@_message
@dataclass(frozen=True, slots=True)
class BoardEvent(Message):
    TYPE = MsgType.BOARD
    FMT = struct.Struct(">BH")
    present: int
    number: int  # 0 when the machine cannot read the sticker


@_message
@dataclass(frozen=True, slots=True)
class HopperEmptyEvent(Message):
    TYPE = MsgType.HOPPER_EMPTY


@_message
@dataclass(frozen=True, slots=True)
class CardAtGateEvent(Message):
    TYPE = MsgType.CARD_AT_GATE
    FMT = struct.Struct(">I")
    gate_id: int


@_message
@dataclass(frozen=True, slots=True)
class CardDroppedEvent(Message):
    TYPE = MsgType.CARD_DROPPED
    FMT = struct.Struct(">IBBBBBB")
    gate_id: int
    pocket: int
    n0: int
    n1: int
    n2: int
    n3: int
    rejects: int

    @property
    def counts(self) -> tuple[int, int, int, int]:
        return (self.n0, self.n1, self.n2, self.n3)


@_message
@dataclass(frozen=True, slots=True)
class MisfeedEvent(Message):
    TYPE = MsgType.MISFEED
    FMT = struct.Struct(">B")
    attempt: int


@_message
@dataclass(frozen=True, slots=True)
class DoubleFeedEvent(Message):
    TYPE = MsgType.DOUBLE_FEED
    FMT = struct.Struct(">BB")
    cards: int  # how many cards went to the reject tray together
    rejects: int  # reject tray count afterwards


@_message
@dataclass(frozen=True, slots=True)
class JamEvent(Message):
    TYPE = MsgType.JAM
    FMT = struct.Struct(">B")
    jammed: int  # 1 when the jam starts, 0 when the operator has cleared it


@_message
@dataclass(frozen=True, slots=True)
class CoverEvent(Message):
    TYPE = MsgType.COVER
    FMT = struct.Struct(">B")
    open: int


@_message
@dataclass(frozen=True, slots=True)
class MachineFaultEvent(Message):
    """The machine stopped itself after an internal error; only a restart clears it.

    >>> MachineFaultEvent.unpack(MachineFaultEvent(1, "IndexError").pack()).text
    'IndexError'
    """

    TYPE = MsgType.MACHINE_FAULT
    FMT = struct.Struct(">B")
    code: int  # 1: the firmware failed (an exception, a watchdog reset); others reserved
    text: str = ""  # one line for the operator, at most 64 bytes of UTF-8

    def pack(self) -> bytes:
        return self.FMT.pack(self.code) + _pstr(self.text)

    @classmethod
    def unpack(cls, payload: bytes) -> Message:
        if len(payload) < cls.FMT.size:
            raise ProtocolError(f"MachineFaultEvent payload is {len(payload)} bytes, needs 1")
        text = _read_pstr(payload, 1)[0] if len(payload) > 1 else ""
        return cls(payload[0], text)


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True, slots=True)
class Reply(Message):
    """REPLY: ``request_type:u8 status:u8`` then a body that depends on the request."""

    TYPE = MsgType.REPLY
    FMT = struct.Struct(">BB")
    request_type: int
    status: int
    body: bytes = b""

    def pack(self) -> bytes:
        return self.FMT.pack(self.request_type, self.status) + self.body

    @classmethod
    def unpack(cls, payload: bytes) -> Reply:
        if len(payload) < 2:
            raise ProtocolError(f"REPLY payload is {len(payload)} bytes, needs 2")
        return cls(payload[0], payload[1], bytes(payload[2:]))


MESSAGES[MsgType.REPLY] = Reply


def _pstr(text: str) -> bytes:
    raw = text.encode("utf-8")[:64]
    return bytes([len(raw)]) + raw


def _read_pstr(data: bytes, at: int) -> tuple[str, int]:
    if at >= len(data) or at + 1 + data[at] > len(data):
        raise ProtocolError("string field runs past the end of the payload")
    n = data[at]
    return data[at + 1 : at + 1 + n].decode("utf-8", "replace"), at + 1 + n


@dataclass(frozen=True, slots=True)
class HelloInfo:
    """Body of the HELLO reply: who the machine is and what it can do.

    >>> HelloInfo.unpack(HelloInfo(0, 9, 3, 4, 3, 5, 2, "fw 1.0", "SN1").pack()).serial
    'SN1'
    """

    minor: int
    boot_id: int
    next_event_seq: int
    pockets: int
    flags: int
    speed_levels: int
    speed: int
    firmware: str
    serial: str

    _FMT: ClassVar[struct.Struct] = struct.Struct(">BIHBBBB")

    def pack(self) -> bytes:
        fixed = self._FMT.pack(
            self.minor, self.boot_id, self.next_event_seq, self.pockets,
            self.flags, self.speed_levels, self.speed,
        )  # fmt: skip
        return fixed + _pstr(self.firmware) + _pstr(self.serial)

    @classmethod
    def unpack(cls, body: bytes) -> HelloInfo:
        if len(body) < cls._FMT.size:
            raise ProtocolError(f"HELLO reply is {len(body)} bytes, needs {cls._FMT.size}")
        minor, boot_id, next_event_seq, pockets, flags, speed_levels, speed = (
            cls._FMT.unpack_from(body))
        firmware, at = _read_pstr(body, cls._FMT.size)
        serial, _ = _read_pstr(body, at)
        return cls(minor, boot_id, next_event_seq, pockets, flags, speed_levels, speed,
                   firmware, serial)

    @property
    def reject_tray(self) -> bool:
        return bool(self.flags & Capability.REJECT_TRAY)

    @property
    def board_reader(self) -> bool:
        return bool(self.flags & Capability.BOARD_READER)


@dataclass(frozen=True, slots=True)
class StateInfo:
    """Body of the GET_STATE reply: everything needed to resynchronise.

    ``counts`` come from the pocket sensors and survive a power cut; ``gate_id``
    and ``last_drop_gate`` live in RAM and are 0 after one.
    """

    boot_id: int
    mode: int
    speed: int
    board_present: int
    board_number: int
    faults: int
    counts: tuple[int, int, int, int]
    rejects: int
    gate_id: int
    gate_pocket: int
    last_drop_gate: int
    last_drop_pocket: int
    next_event_seq: int

    _FMT: ClassVar[struct.Struct] = struct.Struct(">IBBBHBBBBBBIBIBH")

    def pack(self) -> bytes:
        return self._FMT.pack(
            self.boot_id, self.mode, self.speed, self.board_present, self.board_number,
            self.faults, *self.counts, self.rejects, self.gate_id, self.gate_pocket,
            self.last_drop_gate, self.last_drop_pocket, self.next_event_seq,
        )  # fmt: skip

    @classmethod
    def unpack(cls, body: bytes) -> StateInfo:
        if len(body) < cls._FMT.size:
            raise ProtocolError(f"STATE reply is {len(body)} bytes, needs {cls._FMT.size}")
        (boot_id, mode, speed, board_present, board_number, faults, c0, c1, c2, c3, rejects,
         gate_id, gate_pocket, last_drop_gate, last_drop_pocket, next_event_seq,
         ) = cls._FMT.unpack_from(body)  # fmt: skip
        return cls(boot_id, mode, speed, board_present, board_number, faults, (c0, c1, c2, c3),
                   rejects, gate_id, gate_pocket, last_drop_gate, last_drop_pocket,
                   next_event_seq)


# --------------------------------------------------------------------------- reliability


@dataclass
class _Pending:
    seq: int
    wire: bytes
    sent_at: float
    tries: int = 1


@dataclass
class EventSender:
    """Machine side of event delivery: go-back-N with a small window.

    Events get consecutive 16-bit sequence numbers. All unacknowledged events
    are resent when the oldest is older than ``rto`` seconds, or at once on a
    NAK (rate-limited to one burst per ``rto / 4``).
    """

    rto: float = 0.05
    window: int = 8
    next_seq: int = 0
    pending: list[_Pending] = field(default_factory=list)
    backlog: list[tuple[int, bytes]] = field(default_factory=list)
    retransmissions: int = 0
    _last_burst: float = -1.0

    def queue(self, msg: Message) -> None:
        """Queue an event; it goes out when the window has room."""
        self.backlog.append((msg.TYPE, msg.pack()))

    def oldest_unacked(self) -> int:
        if self.pending:
            return self.pending[0].seq
        return self.next_seq

    def sendable(self, now: float) -> list[bytes]:
        """Frames to write now: new events that fit the window, then due resends."""
        out: list[bytes] = []
        while self.backlog and len(self.pending) < self.window:
            mtype, payload = self.backlog.pop(0)
            wire = encode_frame(Frame(mtype, self.next_seq, payload))
            self.pending.append(_Pending(self.next_seq, wire, now))
            self.next_seq = (self.next_seq + 1) & 0xFFFF
            out.append(wire)
        if self.pending and now - self.pending[0].sent_at >= self.rto:
            out += self._resend_all(now)
        return out

    def on_ack(self, seq: int) -> None:
        """Cumulative ACK: everything up to and including ``seq`` arrived.

        An ACK of an event not yet sent is stale (the host's numbering from
        before a power cut, crossing the handshake) and is ignored.
        """
        if not self.pending or seq_after(seq, self.pending[-1].seq):
            return
        while self.pending and not seq_after(self.pending[0].seq, seq):
            self.pending.pop(0)

    def on_nak(self, now: float) -> list[bytes]:
        if self.pending and now - self._last_burst >= self.rto / 4:
            return self._resend_all(now)
        return []

    def _resend_all(self, now: float) -> list[bytes]:
        self._last_burst = now
        for p in self.pending:
            p.sent_at = now
            p.tries += 1
        self.retransmissions += len(self.pending)
        return [p.wire for p in self.pending]


@dataclass
class EventReceiver:
    """Host side of event delivery: accept in order, suppress duplicates.

    ``expected`` is ``None`` until a HELLO reply tells where the machine's
    numbering stands.
    """

    expected: int | None = None
    duplicates: int = 0
    out_of_order: int = 0

    def accept(self, seq: int) -> tuple[bool, int | None]:
        """Return (deliver this frame?, sequence number to ACK or None)."""
        if self.expected is None:
            return False, None
        last = (self.expected - 1) & 0xFFFF
        if seq == self.expected:
            self.expected = (seq + 1) & 0xFFFF
            return True, seq
        if seq_after(seq, self.expected):
            self.out_of_order += 1  # a gap: an earlier frame was lost; go-back-N resends
        else:
            self.duplicates += 1  # already delivered: the ACK was lost, ACK again
        return False, last
