"""The host's driver for a dealing machine that speaks ``docs/protocol.md``.

One blocking API, threads inside::

    with Machine.open("/dev/ttyACM0") as m:
        m.resume()
        for event in m.events(timeout=5.0):
            if isinstance(event, CardAtGate):
                m.route(event.gate_id, pocket_for(camera.read()))

Any pyserial URL works: a device, a pty path, ``socket://host:port`` or
``loop://``. A reader thread decodes frames, acknowledges events and counts
garbage; a supervisor thread notices silence (:class:`LinkLost`), reopens the
port, repeats the handshake and resynchronises from a state query
(:class:`Connected` with ``reconnect``/``power_cut``). After a power cut it
works out from the pocket counts whether the card in flight landed
(:class:`CardDropped` with ``inferred=True``) or went back to the hopper
(:class:`CardReturned`).
"""

from __future__ import annotations

import queue
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

import serial

from dealer.errors import BoardwrightError
from firmware_bridge import events as ev
from firmware_bridge import protocol as p


class MachineError(BoardwrightError):
    """Something went wrong with the dealing machine; the message names the port."""


class MachineTimeout(MachineError):
    """The machine did not answer in time."""


class MachineRefused(MachineError):
    """The machine answered but refused the command."""


class RouteResult(Enum):
    """What the machine did with a route command."""

    ACCEPTED = "accepted"  # the card is on its way to the pocket
    DUPLICATE = "duplicate"  # it had already been routed there; nothing changed
    STALE = "stale"  # that gate id is not at the gate (another boot, or long gone)


@dataclass
class DriverStats:
    """Counts of everything that went wrong on the line (and was survived)."""

    frames_in: int = 0
    bad_frames: Counter[str] = field(default_factory=Counter)
    other_version: int = 0
    unexpected: int = 0
    unknown_events: int = 0
    duplicate_events: int = 0
    retransmissions: int = 0
    link_lost: int = 0
    reconnects: int = 0
    reopens: int = 0
    write_timeouts: int = 0
    power_cuts: int = 0

    @property
    def bad_total(self) -> int:
        return sum(self.bad_frames.values())


_EVENT_TYPES = {
    p.MsgType.BOARD, p.MsgType.HOPPER_EMPTY, p.MsgType.CARD_AT_GATE, p.MsgType.CARD_DROPPED,
    p.MsgType.MISFEED, p.MsgType.DOUBLE_FEED, p.MsgType.JAM, p.MsgType.COVER,
    p.MsgType.MACHINE_FAULT,
}  # fmt: skip


class Machine:
    """A connection to one dealing machine. Use :meth:`open`."""

    def __init__(
        self,
        url: str,
        *,
        answer_timeout: float = 2.0,
        link_timeout: float = 2.0,
        rto: float = 0.05,
        baudrate: int = 115200,
    ) -> None:
        self.url = url
        self.answer_timeout = answer_timeout
        self.link_timeout = link_timeout
        self.rto = rto
        self.baudrate = baudrate
        self.stats = DriverStats()
        self.info: p.HelloInfo | None = None
        self.last_state: p.StateInfo | None = None
        self._port: serial.SerialBase | None = None
        self._write_lock = threading.Lock()
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._events: queue.Queue[ev.Event] = queue.Queue()
        self._decoder = p.FrameDecoder()
        self._receiver = p.EventReceiver()
        self._seq = random.getrandbits(16)
        self._pending: dict[int, tuple[int, bytes]] = {}
        self._answers: dict[int, p.Reply] = {}
        self._last_ack: bytes | None = None
        self._boot_id: int | None = None
        self._heard_at = time.monotonic()
        self._port_failed = False
        self._is_socket = False
        self._resync_wanted = False
        self._lost = False
        self._closed = False
        # What the host knows of the card path, for reconciliation after faults.
        self._counts: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._rejects = 0
        self._at_gate: int | None = None  # announced, not yet dropped
        self._routed: dict[int, int] = {}  # gate id -> pocket, sent but not seen to drop
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, url: str, **kwargs: float) -> Machine:
        """Open ``url``, shake hands and read the state; raise :class:`MachineError` if not.

        The first event from :meth:`events` is :class:`~firmware_bridge.events.Connected`.
        """
        m = cls(url, **kwargs)  # type: ignore[arg-type]
        try:
            m._open_port()
            if m._port is None:
                raise MachineError(f"cannot open the dealing machine port {url}")
            m._start_threads()
            m._handshake(first=True)
        except BaseException:
            m.close()
            raise
        return m

    def _open_port(self) -> None:
        try:
            port = serial.serial_for_url(
                self.url, baudrate=self.baudrate, timeout=0.02, write_timeout=1.0
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            if self._port is None and not self._threads:
                raise MachineError(f"cannot open the dealing machine port {self.url}: {exc}") from None
            return
        sock = getattr(port, "_socket", None)  # pyserial's socket:// port
        self._is_socket = sock is not None
        if sock is not None:
            # pyserial leaves Nagle on, which holds small frames back ~40 ms.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._decoder.reset()
        self._port = port
        self._port_failed = False

    def _start_threads(self) -> None:
        for target, name in ((self._read_loop, "reader"), (self._supervise, "supervisor")):
            t = threading.Thread(target=target, name=f"machine-{name}", daemon=True)
            t.start()
            self._threads.append(t)

    def close(self) -> None:
        self._closed = True
        with self._cond:
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout=2)
        if self._port is not None:
            try:
                self._port.close()
            except (serial.SerialException, OSError):
                pass

    def __enter__(self) -> Machine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ public API

    def events(self, timeout: float | None = None) -> Iterator[ev.Event]:
        """Yield events as they come; stop after ``timeout`` seconds with none."""
        while not self._closed:
            try:
                yield self._events.get(timeout=timeout)
            except queue.Empty:
                return

    def next_event(self, timeout: float | None = None) -> ev.Event | None:
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def route(self, gate_id: int, pocket: int | None, *, timeout: float | None = None) -> RouteResult:
        """Send the card at gate ``gate_id`` to ``pocket`` (0..3) or the reject tray (None).

        Safe to repeat: the machine applies a route for one gate id at most once.
        """
        code = p.REJECT if pocket is None else pocket
        with self._lock:
            boot = self._boot_id or 0
            self._routed[gate_id] = code  # before sending: the reply may be lost
        reply = self._request(p.Route(boot, gate_id, code), timeout)
        if reply.status == p.Status.OK:
            return RouteResult.ACCEPTED
        if reply.status == p.Status.DUPLICATE:
            return RouteResult.DUPLICATE
        if reply.status == p.Status.STALE:
            # STALE from a machine that has restarted since says nothing about whether
            # the old boot carried the route out before the power cut (a resent ROUTE
            # meets the new boot): keep it for the power-cut reconciliation then.
            if self._machine_boot() == boot:
                with self._lock:
                    self._routed.pop(gate_id, None)
            return RouteResult.STALE
        where = "the reject tray" if pocket is None else f"pocket {pocket}"
        raise MachineRefused(
            f"the dealing machine on {self.url} refused to route card {gate_id} to {where}"
        )

    def _machine_boot(self) -> int | None:
        """The machine's boot id now, or None when it cannot be asked."""
        try:
            return self.state().boot_id
        except MachineError:
            return None

    def pause(self) -> None:
        self._command(p.Pause(), "PAUSE")

    def resume(self) -> None:
        """Start or continue feeding. Refused while jammed or with the cover open."""
        self._command(p.Resume(), "RESUME")

    def abort(self) -> None:
        """Stop feeding; a card waiting at the gate goes to the reject tray."""
        self._command(p.Abort(), "ABORT")

    def set_speed(self, level: int) -> None:
        self._command(p.SetSpeed(level), f"SET_SPEED {level}")

    def state(self, timeout: float | None = None) -> p.StateInfo:
        reply = self._request(p.GetState(), timeout)
        st = p.StateInfo.unpack(reply.body)
        self.last_state = st
        return st

    def _command(self, msg: p.Message, name: str) -> None:
        reply = self._request(msg, None)
        if reply.status not in (p.Status.OK, p.Status.DUPLICATE):
            # reply.status is the byte off the wire; an IntEnum key finds it by value.
            why: dict[int, str] = {p.Status.REFUSED: "refused",
                                   p.Status.UNKNOWN_REQUEST: "does not know"}
            extra = ""
            if msg.TYPE == p.MsgType.RESUME and reply.status == p.Status.REFUSED:
                extra = self._fault_text()
            raise MachineRefused(
                f"the dealing machine on {self.url} {why.get(reply.status, 'rejected')} {name}{extra}"
            )

    def _fault_text(self) -> str:
        try:
            st = self.state()
        except MachineError:
            return ""
        parts = [n for bit, n in ((p.Fault.JAM, "a card is jammed"),
                                  (p.Fault.COVER_OPEN, "the cover is open")) if st.faults & bit]  # fmt: skip
        return f": {' and '.join(parts)}" if parts else ""

    # ------------------------------------------------------------------ requests

    def _request(self, msg: p.Message, timeout: float | None) -> p.Reply:
        limit = self.answer_timeout if timeout is None else timeout
        with self._lock:
            self._seq = (self._seq + 1) & 0xFFFF
            seq = self._seq
            wire = p.encode_frame(p.Frame(msg.TYPE, seq, msg.pack()))
            self._pending[seq] = (msg.TYPE, wire)
        start = time.monotonic()
        try:
            self._write(wire)
            sent = start
            with self._cond:
                while seq not in self._answers:
                    now = time.monotonic()
                    if self._closed:
                        raise MachineError(f"the connection to {self.url} is closed")
                    if now - start >= limit:
                        raise MachineTimeout(
                            f"no answer from the dealing machine on {self.url} for {limit:.1f} s"
                            f" (to {p.MsgType(msg.TYPE).name})"
                        )
                    if now - sent >= self.rto:
                        self.stats.retransmissions += 1
                        sent = now
                        self._cond.release()
                        try:
                            self._write(wire)
                        finally:
                            self._cond.acquire()
                        continue
                    self._cond.wait(min(self.rto - (now - sent), limit - (now - start)))
                return self._answers.pop(seq)
        finally:
            with self._lock:
                self._pending.pop(seq, None)
                self._answers.pop(seq, None)

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            port = self._port
            if port is None or self._port_failed:
                return  # the supervisor is reopening; retransmission covers the gap
            try:
                port.write(data)
            except serial.SerialTimeoutException:
                # The machine is not reading (busy, or flow-controlled): not a dead
                # port. Drop the write; retransmission covers it. Reopening would
                # flush the input queue and lose frames already received.
                self.stats.write_timeouts += 1
            except (serial.SerialException, OSError):
                self._port_failed = True

    # ------------------------------------------------------------------ handshake

    def _handshake(self, *, first: bool = False, timeout: float | None = None) -> None:
        reply = self._request(p.Hello(), timeout)
        if reply.status != p.Status.OK:
            raise MachineError(f"the dealing machine on {self.url} refused the handshake")
        try:
            info = p.HelloInfo.unpack(reply.body)
        except p.ProtocolError as exc:
            raise MachineError(f"the dealing machine on {self.url} sent a bad HELLO: {exc}") from None
        with self._lock:
            old_boot = self._boot_id
            power_cut = self._boot_id is not None and info.boot_id != self._boot_id
            if power_cut:
                # Hold the new boot's events until the old boot's cards are reconciled.
                self._receiver.expected = None
            elif self._receiver.expected is None:
                self._receiver.expected = info.next_event_seq
            self._boot_id = info.boot_id
            self.info = info
            self._resync_wanted = False
        st = self.state(timeout)
        with self._lock:
            self._heard_at = time.monotonic()
            self._lost = False
            if power_cut:
                self.stats.power_cuts += 1
                self._reconcile_power_cut(st, old_boot or 0)
                self._receiver.expected = info.next_event_seq
            elif not first:
                self._reannounce(st)
            if not first:
                # Counted before Connected is announced: whoever reads the event may
                # look at the statistics at once.
                self.stats.reconnects += 1
            if first:
                self._counts, self._rejects = st.counts, st.rejects
            self._events.put(ev.Connected(info, st, reconnect=not first, power_cut=power_cut))

    def _reconcile_power_cut(self, st: p.StateInfo, boot: int) -> None:
        """The machine forgot everything in flight; the pocket sensors did not."""
        counts = list(self._counts)
        rejects = self._rejects
        for gate_id, code in sorted(self._routed.items()):
            if code == p.REJECT:
                landed = st.rejects > rejects
                rejects += landed
            else:
                landed = st.counts[code] > counts[code]
                counts[code] += landed
            if landed:
                pocket = None if code == p.REJECT else code
                self._events.put(ev.CardDropped(gate_id, pocket, st.counts, st.rejects, True, boot))
            else:
                self._events.put(ev.CardReturned(gate_id, boot))
        if self._at_gate is not None and self._at_gate not in self._routed:
            self._events.put(ev.CardReturned(self._at_gate, boot))
        self._routed.clear()
        self._at_gate = None
        self._counts, self._rejects = st.counts, st.rejects

    def _reannounce(self, st: p.StateInfo) -> None:
        """Same boot: events will be resent; only a card we never routed needs a nudge."""
        if st.gate_id and st.gate_pocket == p.UNROUTED and st.gate_id == self._at_gate:
            self._events.put(ev.CardAtGate(st.gate_id, True, st.boot_id))

    # ------------------------------------------------------------------ reader

    def _read_loop(self) -> None:
        while not self._closed:
            port = self._port
            if port is None or self._port_failed:
                time.sleep(0.05)
                continue
            try:
                data = self._read_some(port)
            except (serial.SerialException, OSError, TypeError, AttributeError):
                # TypeError/AttributeError: pyserial closed under us by a reopen.
                if port is self._port:
                    self._port_failed = True
                continue
            if data:
                for item in self._decoder.feed(data):
                    self._on_item(item)

    def _read_some(self, port: serial.SerialBase) -> bytes:
        """Wait up to the port timeout for a byte, then take all that is there."""
        data = port.read(max(1, port.in_waiting))
        if data and self._is_socket:
            # socket:// reports only "readable", not how much: drain without waiting.
            port.timeout = 0
            try:
                data += port.read(65536)
            finally:
                port.timeout = 0.02
        return data

    def _on_item(self, item: p.Frame | p.BadFrame) -> None:
        if isinstance(item, p.BadFrame):
            self.stats.bad_frames[item.reason.split(",")[0]] += 1
            if item.version is not None:
                self.stats.other_version += 1
            self._events.put(ev.LineError(item.reason, item.raw))
            self._write(p.encode_frame(p.Frame(p.MsgType.NAK)))
            return
        self.stats.frames_in += 1
        t = item.type
        if t == p.MsgType.HEARTBEAT:
            self._on_heartbeat(item)
        elif t == p.MsgType.REPLY:
            self._on_reply(item)
        elif t == p.MsgType.NAK:
            self._on_nak()
        elif p.is_event(t) or (p.is_sequenced(t) and not p.is_request(t)):
            self._on_event(item)
        else:
            # A request or an ACK coming *to* the host: an echo (loop://) or a confused peer.
            self.stats.unexpected += 1
            self._events.put(ev.LineError(f"unexpected {item.describe()} from the machine side", b""))
            return
        self._heard_at = time.monotonic()

    def _on_heartbeat(self, frame: p.Frame) -> None:
        try:
            hb = frame.message()
        except p.ProtocolError as exc:
            self._events.put(ev.LineError(f"bad HEARTBEAT: {exc}", frame.payload))
            return
        assert isinstance(hb, p.Heartbeat)
        with self._lock:
            if self._boot_id is not None and hb.boot_id != self._boot_id:
                self._resync_wanted = True  # the machine restarted under us

    def _on_reply(self, frame: p.Frame) -> None:
        try:
            reply = p.Reply.unpack(frame.payload)
        except p.ProtocolError as exc:
            self._events.put(ev.LineError(f"bad REPLY: {exc}", frame.payload))
            return
        with self._cond:
            pend = self._pending.get(frame.seq)
            if pend is not None and pend[0] == reply.request_type:
                self._answers[frame.seq] = reply
                self._cond.notify_all()

    def _on_nak(self) -> None:
        with self._lock:
            wires = [w for _, w in self._pending.values()]
            last_ack = self._last_ack
        for w in wires:
            self.stats.retransmissions += 1
            self._write(w)
        if last_ack is not None:
            self._write(last_ack)

    def _on_event(self, frame: p.Frame) -> None:
        with self._lock:
            deliver, ack = self._receiver.accept(frame.seq)
            if not deliver:
                self.stats.duplicate_events += ack is not None
            else:
                self._deliver(frame)
        if ack is not None:
            wire = p.encode_frame(p.Frame(p.MsgType.ACK, ack))
            self._last_ack = wire
            self._write(wire)

    def _deliver(self, frame: p.Frame) -> None:
        if frame.type not in _EVENT_TYPES:
            self.stats.unknown_events += 1
            self._events.put(ev.UnknownMessage(frame.type))
            return
        try:
            msg = frame.message()
        except p.ProtocolError as exc:
            self._events.put(ev.LineError(f"bad {frame.describe()}: {exc}", frame.payload))
            return
        self._events.put(self._translate(msg))

    def _translate(self, msg: p.Message) -> ev.Event:
        if isinstance(msg, p.CardAtGateEvent):
            self._at_gate = msg.gate_id
            return ev.CardAtGate(msg.gate_id, False, self._boot_id or 0)
        if isinstance(msg, p.CardDroppedEvent):
            self._routed.pop(msg.gate_id, None)
            if self._at_gate == msg.gate_id:
                self._at_gate = None
            self._counts, self._rejects = msg.counts, msg.rejects
            pocket = None if msg.pocket == p.REJECT else msg.pocket
            return ev.CardDropped(
                msg.gate_id, pocket, msg.counts, msg.rejects, False, self._boot_id or 0
            )
        if isinstance(msg, p.BoardEvent):
            self._counts = (0, 0, 0, 0)  # a new or no board: its pockets start empty
            if msg.present:
                return ev.BoardInserted(msg.number or None)
            return ev.BoardRemoved()
        if isinstance(msg, p.HopperEmptyEvent):
            return ev.HopperEmpty()
        if isinstance(msg, p.MisfeedEvent):
            return ev.Misfeed(msg.attempt)
        if isinstance(msg, p.DoubleFeedEvent):
            self._rejects = msg.rejects
            return ev.DoubleFeed(msg.cards, msg.rejects)
        if isinstance(msg, p.JamEvent):
            return ev.Jam(cleared=not msg.jammed)
        if isinstance(msg, p.CoverEvent):
            return ev.Cover(open=bool(msg.open))
        if isinstance(msg, p.MachineFaultEvent):
            return ev.MachineFault(msg.code, msg.text)
        return ev.UnknownMessage(msg.TYPE)

    # ------------------------------------------------------------------ supervisor

    def _supervise(self) -> None:
        while not self._closed:
            time.sleep(min(0.02, self.link_timeout / 10))
            if self._boot_id is None:
                continue  # the first handshake runs in open()
            silent = time.monotonic() - self._heard_at
            if not self._lost and (silent > self.link_timeout or self._port_failed):
                self._lost = True
                self.stats.link_lost += 1
                self._events.put(ev.LinkLost(self.url, max(silent, 0.0)))
            if self._port_failed:
                self._reopen()
                continue
            if self._lost or self._resync_wanted:
                try:
                    self._handshake(timeout=max(self.link_timeout, 4 * self.rto))
                except MachineError:
                    continue

    def _reopen(self) -> None:
        self.stats.reopens += 1
        with self._write_lock:
            old, self._port = self._port, None
            if old is not None:
                try:
                    old.close()
                except (serial.SerialException, OSError):
                    pass
            self._open_port()
        if self._port is None:
            time.sleep(0.05)
