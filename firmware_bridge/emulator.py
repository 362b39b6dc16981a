"""A virtual dealing machine that speaks the protocol over a real pty or TCP.

The emulator models the card path of a Duplimate-class machine: a hopper of
physical cards, a feeder, a read gate with a camera, a flap that drops each
card into one of four pockets (or the reject tray), pocket sensors, a cover
switch and a board-number reader. Mechanical times are multiplied by
``time_scale``, so ``time_scale=0.01`` runs a 5-second deck in 50 ms with the
same sequence of events. It uses :mod:`firmware_bridge.protocol`, the same
code as the driver.

>>> from firmware_bridge.physical import standard_deck
>>> with Emulator.start(pty=True, seed=1, time_scale=0.01) as emu:
...     emu.insert_board(1, standard_deck())
...     emu.url.startswith("/dev/")
True
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from firmware_bridge import protocol as p
from firmware_bridge.faults import FaultPlan, LineNoise, MechanicalDice, split_frames
from firmware_bridge.physical import PhysicalCard
from firmware_bridge.transport import Endpoint, PtyEndpoint, TcpEndpoint

#: Duplimate Mk 4.5: about 5 s per 52-card deck (research note), split feed/drop.
FEED_TIME = 0.060
DROP_TIME = 0.036
#: Speed levels 1..3 scale both times.
SPEED_FACTORS = {1: 1.5, 2: 1.0, 3: 0.75}
#: Consecutive misfeeds after which the feeder reports a jam instead.
MAX_MISFEEDS = 3
#: The feed faults a test may force with ``inject`` (the dice draw the same kinds).
FEED_FAULTS = ("misfeed", "double", "jam", "stuck_pair")

CameraHook = Callable[[int, PhysicalCard], None]

log = logging.getLogger(__name__)


@dataclass
class EmulatorStats:
    """What the emulator did and injected, for the tests and benches to compare."""

    frames_out: int = 0
    frames_in: int = 0
    bad_frames_in: int = 0
    duplicate_requests: int = 0
    unknown_requests: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str) -> None:
        self.faults[kind] = self.faults.get(kind, 0) + 1


class Emulator:
    """One virtual machine, run by a background thread.

    Operator actions (:meth:`insert_board`, :meth:`clear_jam`, :meth:`power_cut`
    …) may be called from any thread.
    """

    def __init__(
        self,
        *,
        pty: bool = False,
        tcp_port: int | None = None,
        seed: int = 0,
        time_scale: float = 1.0,
        faults: FaultPlan | None = None,
        camera: CameraHook | None = None,
        heartbeat: float = 0.25,
        rto: float = 0.05,
        boot_time: float = 1.0,
        pockets: int = 4,
        board_reader: bool = True,
        serial: str = "BW-EMU-0001",
        firmware: str = "boardwright-emulator 0.1",
    ) -> None:
        if pty == (tcp_port is not None):
            raise ValueError("choose exactly one of pty=True or tcp_port=PORT")
        self.plan = faults if faults is not None else FaultPlan(seed=seed)
        if faults is not None and seed and not faults.seed:
            self.plan = FaultPlan(**{**faults.__dict__, "seed": seed})
        self.endpoint: Endpoint = PtyEndpoint() if pty else TcpEndpoint(tcp_port or 0)
        self.url = self.endpoint.url
        self.time_scale = time_scale
        self.camera = camera
        self.heartbeat = heartbeat
        self.rto = rto
        self.boot_time = boot_time
        self.pocket_count = pockets
        self.board_reader = board_reader
        self.serial = serial
        self.firmware = firmware
        self.stats = EmulatorStats()
        self.dice = MechanicalDice(self.plan)
        self.noise_out = LineNoise(self.plan, "out")
        self.noise_in = LineNoise(self.plan, "in")
        self.event_log: list[p.Message] = []  # every event queued, in order
        self.request_log: list[p.Message] = []  # every host request executed, in order
        #: The machine's internal failure (``"IndexError: ..."``), or None while it works.
        self.failure: str | None = None
        self._forced: list[str] = []
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._stop = False
        self._thread: threading.Thread | None = None
        self._inbuf = bytearray()
        self._unplugged_until = 0.0
        self._off_until = 0.0
        self._armed_cut: str | None = None
        self._t0 = time.monotonic()
        # physical state: survives power cuts
        self.hopper: list[PhysicalCard] = []
        # The card(s) the feed roller has taken off the hopper and is moving to the gate:
        # no longer on the hopper, so an operator lifting the stack cannot take them.
        self.in_feeder: list[PhysicalCard] = []
        self.pockets: list[list[PhysicalCard]] = [[] for _ in range(pockets)]
        self.rejects: list[PhysicalCard] = []
        self.board_number: int | None = None
        self.cover_open = False
        self.jammed: PhysicalCard | None = None
        self.speed = 2
        self._boot()

    # ------------------------------------------------------------------ life cycle

    @classmethod
    def start(cls, **kwargs: object) -> Emulator:
        """Create and start an emulator; use it as a context manager."""
        emu = cls(**kwargs)  # type: ignore[arg-type]
        emu.run_in_thread()
        return emu

    def run_in_thread(self) -> None:
        self._thread = threading.Thread(target=self._run, name="emulator", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop = True
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.endpoint.close()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _boot(self) -> None:
        """Power on: everything in RAM starts afresh; sensors and cards stay."""
        self.boot_id = self.dice.boot_id()
        self.mode = p.Mode.WAITING_HOST
        self.running = False
        self.host_ready = False
        self.sender = p.EventSender(rto=self.rto)
        self.replies: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self.gate_counter = 0
        self.phase = "idle"  # idle | feeding | at_gate | dropping
        self.phase_until = 0.0
        self.gate_id = 0
        self.gate_card: PhysicalCard | None = None
        # A card stuck under the gate card (a stuck pair): the camera cannot see it, and
        # it falls wherever the gate card is routed.
        self.gate_under: PhysicalCard | None = None
        self.gate_pocket: int | None = None
        self.last_drop: tuple[int, int] = (0, 0)
        self.misfeeds = 0
        self.double_fed = False
        self.hopper_empty_sent = False
        self._feed_outcome = "ok"
        self._next_heartbeat = 0.0
        self._boot_at = time.monotonic()

    # ------------------------------------------------------------------ operator

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def load_hopper(self, cards: Iterable[PhysicalCard]) -> None:
        """Put cards at the bottom of the hopper (fed last)."""
        with self._lock:
            self.hopper.extend(cards)
            self.hopper_empty_sent = False
        self._wake()

    def insert_board(self, number: int | None, cards: Iterable[PhysicalCard] = ()) -> None:
        """Insert an empty board (its sticker reads ``number``) and load ``cards``."""
        with self._lock:
            self.hopper.extend(cards)
            self.hopper_empty_sent = False
            self.board_number = number if number is not None else 0
            self.pockets = [[] for _ in range(self.pocket_count)]
            shown = number if (number is not None and self.board_reader) else 0
            self._event(p.BoardEvent(1, shown))
        self._wake()

    def remove_board(self) -> list[list[PhysicalCard]]:
        """Take the board out; returns what each pocket held. Feeding stops."""
        with self._lock:
            held = self.pockets
            self.pockets = [[] for _ in range(self.pocket_count)]
            self.board_number = None
            self.running = False
            if self.mode == p.Mode.RUNNING:
                self.mode = p.Mode.IDLE
            self._event(p.BoardEvent(0, 0))
        self._wake()
        return held

    def return_rejects(self, count: int | None = None) -> list[PhysicalCard]:
        """The operator puts the last ``count`` rejected cards (default all) back on top."""
        with self._lock:
            n = len(self.rejects) if count is None else min(count, len(self.rejects))
            back = self.rejects[len(self.rejects) - n :]
            del self.rejects[len(self.rejects) - n :]
            self.hopper[:0] = back
            self.hopper_empty_sent = False
        self._wake()
        return back

    def put_on_hopper(self, cards: Iterable[PhysicalCard]) -> None:
        """The operator puts ``cards`` on top of the hopper (the first is fed first)."""
        cards = list(cards)
        if not cards:
            return  # nothing added: the machine's "hopper empty" stays said
        with self._lock:
            self.hopper[:0] = cards
            self.hopper_empty_sent = False
        self._wake()

    def take_hopper(self) -> list[PhysicalCard]:
        """The operator lifts every card off the hopper (not one the feeder already holds)."""
        with self._lock:
            cards, self.hopper = self.hopper, []
        return cards

    def take_rejects(self) -> list[PhysicalCard]:
        """The operator empties the reject tray into their hand (not onto the hopper)."""
        with self._lock:
            cards, self.rejects = self.rejects, []
        return cards

    def take_from_pocket(self, pocket: int, cards: Iterable[PhysicalCard]) -> list[PhysicalCard]:
        """The operator takes these very cards (by identity) out of a pocket of the board.

        Returns the ones that were there. The pocket's sensor count drops with them.
        """
        with self._lock:
            held = self.pockets[pocket]
            taken = [pc for pc in cards if any(x is pc for x in held)]
            self.pockets[pocket] = [x for x in held if not any(x is pc for pc in taken)]
        return taken

    def inject(self, kind: str) -> None:
        """Force the next feed attempt to be ``misfeed``, ``double``, ``jam`` or ``stuck_pair``.

        ``stuck_pair``: the top two cards of the hopper come stuck together, aligned so
        well that the thickness sensor (DOUBLE) misses them. The gate and the camera see
        the top card only; both fall into the pocket it is routed to (its count grows by 2).
        """
        if kind not in FEED_FAULTS:
            raise ValueError(f"unknown feed fault {kind!r}")
        with self._lock:
            self._forced.append(kind)

    def clear_jam(self) -> None:
        """The operator pulls the stuck card out and puts it back on the hopper."""
        with self._lock:
            if self.jammed is None:
                return
            self.hopper.insert(0, self.jammed)
            self.jammed = None
            self.misfeeds = 0
            self._event(p.JamEvent(0))
            self._fault_mode_check()
        self._wake()

    def open_cover(self) -> None:
        with self._lock:
            self.stats.count("cover_open")
            self.cover_open = True
            self.running = False
            self.mode = p.Mode.FAULT
            self._event(p.CoverEvent(1))
        self._wake()

    def close_cover(self) -> None:
        with self._lock:
            self.cover_open = False
            self._event(p.CoverEvent(0))
            self._fault_mode_check()
        self._wake()

    def unplug(self, seconds: float) -> None:
        """Pull the cable for ``seconds`` of wall time: nothing passes either way."""
        with self._lock:
            self.stats.count("unplug")
            self._unplugged_until = time.monotonic() + seconds
            self.endpoint.disconnect()
            if isinstance(self.endpoint, TcpEndpoint):
                self.endpoint.refuse = True
        self._wake()

    @contextlib.contextmanager
    def hold(self, settle: float = 0.2, limit: float = 10.0) -> Iterator[None]:
        """Freeze the machine (nothing new sent) once its queued bytes are out.

        Lets a test compare the emulator's counters with the driver's without a
        frame half-way down the cable: queued bytes are flushed (a loaded host
        may read them late), then ``settle`` seconds pass before the body runs.
        """
        with self._lock:
            deadline = time.monotonic() + limit
            while self.endpoint.wants_write() and time.monotonic() < deadline:
                self.endpoint.flush()
                time.sleep(0.005)
            time.sleep(settle)
            yield

    def inject_raw(self, data: bytes) -> None:
        """Put raw bytes on the line to the host (garbage, truncated or foreign frames)."""
        with self._lock:
            self.endpoint.write(data)
        self._wake()

    def emit_raw_event(self, msg_type: int, payload: bytes = b"") -> None:
        """Queue a sequenced event of any type, e.g. one from a newer minor version."""
        with self._lock:
            self.sender.backlog.append((msg_type, payload))
        self._wake()

    def power_cut(self, when: str | None = None) -> None:
        """Cut the power: in-flight work is forgotten, pocket sensors keep counting.

        A card at the gate, or still being fed, goes back on top of the hopper
        when the machine clears its path at start-up. A card already falling
        lands or not, by the seeded dice. With ``when="dropping"`` or
        ``when="at_gate"`` the cut waits until the card path is in that phase.
        """
        with self._lock:
            if when is None:
                self._power_cut_now()
            else:
                self._armed_cut = when
        self._wake()

    def _power_cut_now(self) -> None:
        self.stats.count("power_cut")
        self.failure = None  # a restart clears a firmware fault
        if self.in_feeder:  # the roller lets go: the cards lie on top of the hopper again
            self.hopper[:0] = self.in_feeder
            self.in_feeder = []
        path = [c for c in (self.gate_card, self.gate_under) if c is not None]
        if self.phase == "dropping" and path:
            if self.dice.lands_at_power_cut():
                for card in path:
                    self._land(card, self.gate_pocket)
            else:
                self.hopper[:0] = path
        elif self.phase == "at_gate" and path:
            self.hopper[:0] = path
        if self.jammed is not None:
            self.hopper.insert(0, self.jammed)
            self.jammed = None
        self.cover_open = False
        self._off_until = time.monotonic() + self.boot_time * self.time_scale
        self.endpoint.disconnect()
        self._inbuf.clear()
        self._boot()

    # ------------------------------------------------------------------ helpers

    @property
    def counts(self) -> tuple[int, int, int, int]:
        # The counters are one byte on the wire; a real stack sensor saturates too.
        c = [min(255, len(x)) for x in self.pockets] + [0, 0, 0, 0]
        return (c[0], c[1], c[2], c[3])

    def _event(self, msg: p.Message) -> None:
        self.event_log.append(msg)
        self.sender.queue(msg)

    def _scaled(self, seconds: float) -> float:
        return seconds * SPEED_FACTORS.get(self.speed, 1.0) * self.time_scale

    def _fault_mode_check(self) -> None:
        if self.mode == p.Mode.FAULT and not self.cover_open and self.jammed is None:
            self.mode = p.Mode.IDLE

    def _land(self, card: PhysicalCard, pocket: int | None) -> None:
        if pocket is None or pocket == p.REJECT or not 0 <= pocket < self.pocket_count:
            self.rejects.append(card)
        else:
            self.pockets[pocket].append(card)

    def _line_down(self, now: float) -> bool:
        if now < self._off_until:
            return True
        if now < self._unplugged_until:
            return True
        if self._unplugged_until and isinstance(self.endpoint, TcpEndpoint):
            self.endpoint.refuse = False
        return False

    def _send(self, wire: bytes, now: float) -> None:
        if self._line_down(now) or not self.endpoint.connected:
            return
        damaged = self.noise_out.apply(wire)
        if damaged is None:
            return
        self.stats.frames_out += 1
        self.endpoint.write(damaged)

    def _reply(self, seq: int, req_type: int, status: p.Status, body: bytes, now: float) -> None:
        wire = p.encode_frame(p.Frame(p.MsgType.REPLY, seq, p.Reply(req_type, status, body).pack()))
        self.replies[seq] = (req_type, wire)
        while len(self.replies) > 32:
            self.replies.popitem(last=False)
        self._send(wire, now)

    def hello_info(self) -> p.HelloInfo:
        flags = p.Capability.REJECT_TRAY | (p.Capability.BOARD_READER if self.board_reader else 0)
        return p.HelloInfo(
            p.PROTOCOL_MINOR, self.boot_id, self.sender.oldest_unacked(), self.pocket_count,
            flags, len(SPEED_FACTORS), self.speed, self.firmware, self.serial,
        )  # fmt: skip

    def state_info(self) -> p.StateInfo:
        faults = (
            (p.Fault.JAM if self.jammed is not None else 0)
            | (p.Fault.COVER_OPEN if self.cover_open else 0)
            | (p.Fault.DOUBLE_FEED if self.double_fed else 0)
            | (p.Fault.HOPPER_EMPTY if not self.hopper and not self.in_feeder else 0)
        )
        gate = self.gate_id if self.phase in ("at_gate", "dropping") else 0
        if self.phase == "dropping" and self.gate_pocket is not None:
            gate_pocket = self.gate_pocket
        else:
            gate_pocket = p.UNROUTED
        return p.StateInfo(
            self.boot_id, self.mode, self.speed, int(self.board_number is not None),
            self.board_number or 0, faults, self.counts, min(255, len(self.rejects)), gate, gate_pocket,
            self.last_drop[0], self.last_drop[1], self.sender.oldest_unacked(),
        )  # fmt: skip

    # ------------------------------------------------------------------ requests

    def _on_frame(self, frame: p.Frame, now: float) -> None:
        self.stats.frames_in += 1
        if frame.type == p.MsgType.ACK:
            self.sender.on_ack(frame.seq)
            return
        if frame.type == p.MsgType.NAK:
            for wire in self.sender.on_nak(now) if self.host_ready else []:
                self._send(wire, now)
            if self.replies:  # the damaged frame may have been our last reply
                self._send(next(reversed(self.replies.values()))[1], now)
            return
        if not p.is_request(frame.type):
            if p.is_sequenced(frame.type):  # unknown but sequenced: answer so it stops
                self._reply(frame.seq, frame.type, p.Status.UNKNOWN_REQUEST, b"", now)
            return
        cached = self.replies.get(frame.seq)
        if cached is not None and cached[0] == frame.type and frame.type != p.MsgType.HELLO:
            self.stats.duplicate_requests += 1  # at-most-once: answer again, do not redo
            self._send(cached[1], now)
            return
        try:
            msg = frame.message()
        except p.ProtocolError:
            if frame.type not in p.MESSAGES:
                self.stats.unknown_requests += 1
                self._reply(frame.seq, frame.type, p.Status.UNKNOWN_REQUEST, b"", now)
            else:
                self._reply(frame.seq, frame.type, p.Status.REFUSED, b"", now)
            return
        self.request_log.append(msg)
        status, body = self._execute(msg, now)
        self._reply(frame.seq, frame.type, status, body, now)
        if isinstance(msg, p.Hello):
            for wire in self.sender.on_nak(now - self.rto):  # resend what is pending at once
                self._send(wire, now)

    def _execute(self, msg: p.Message, now: float) -> tuple[p.Status, bytes]:
        if isinstance(msg, p.Hello):
            self.replies.clear()  # a new host session: old request numbers mean nothing
            self.host_ready = True
            if self.mode == p.Mode.WAITING_HOST:
                self.mode = p.Mode.IDLE
            return p.Status.OK, self.hello_info().pack()
        if isinstance(msg, p.GetState):
            return p.Status.OK, self.state_info().pack()
        if isinstance(msg, p.Route):
            return self._route(msg, now), b""
        if isinstance(msg, p.Pause):
            self.running = False
            if self.mode == p.Mode.RUNNING:
                self.mode = p.Mode.IDLE
            return p.Status.OK, b""
        if isinstance(msg, p.Resume):
            if self.cover_open or self.jammed is not None or self.failure is not None:
                return p.Status.REFUSED, b""
            self.double_fed = False
            self.running = True
            self.mode = p.Mode.RUNNING
            return p.Status.OK, b""
        if isinstance(msg, p.Abort):
            self.running = False
            if self.mode == p.Mode.RUNNING:
                self.mode = p.Mode.IDLE
            if self.phase == "at_gate":  # an unrouted card goes to the reject tray
                self.gate_pocket = p.REJECT
                self.phase, self.phase_until = "dropping", now + self._scaled(DROP_TIME)
            return p.Status.OK, b""
        if isinstance(msg, p.SetSpeed):
            if msg.level not in SPEED_FACTORS:
                return p.Status.REFUSED, b""
            self.speed = msg.level
            return p.Status.OK, b""
        return p.Status.UNKNOWN_REQUEST, b""

    def _route(self, msg: p.Route, now: float) -> p.Status:
        ok_pocket = msg.pocket == p.REJECT or 0 <= msg.pocket < self.pocket_count
        if not ok_pocket:
            return p.Status.REFUSED
        if msg.boot_id != self.boot_id or msg.gate_id == 0:
            return p.Status.STALE
        if msg.gate_id == self.gate_id and self.phase == "at_gate":
            self.gate_pocket = msg.pocket
            self.phase, self.phase_until = "dropping", now + self._scaled(DROP_TIME)
            return p.Status.OK
        done = None
        if msg.gate_id == self.gate_id and self.phase == "dropping":
            done = self.gate_pocket
        elif msg.gate_id == self.last_drop[0]:
            done = self.last_drop[1]
        if done is None:
            return p.Status.STALE
        # Idempotent: the same route again changes nothing; a different one is refused.
        return p.Status.DUPLICATE if done == msg.pocket else p.Status.REFUSED

    # ------------------------------------------------------------------ mechanics

    def _mechanics(self, now: float) -> None:
        if self.phase == "feeding" and now >= self.phase_until:
            self._feed_done(now)
        elif self.phase == "dropping" and now >= self.phase_until:
            card, pocket = self.gate_card, self.gate_pocket
            assert card is not None and pocket is not None
            self._land(card, pocket)
            if self.gate_under is not None:  # a stuck pair falls together
                self._land(self.gate_under, pocket)
            self.last_drop = (self.gate_id, pocket)
            c = self.counts
            rejects = min(255, len(self.rejects))
            self._event(p.CardDroppedEvent(self.gate_id, pocket, *c, rejects))
            self.gate_card, self.gate_under, self.gate_pocket, self.phase = None, None, None, "idle"
        if self.phase != "idle" or not self.running or self.mode != p.Mode.RUNNING:
            return
        if self.board_number is None:
            return
        if not self.hopper:
            if not self.hopper_empty_sent:
                self.hopper_empty_sent = True
                self._event(p.HopperEmptyEvent())
            return
        self.phase, self.phase_until = "feeding", now + self._scaled(FEED_TIME)
        roll = self.dice.feed()  # always drawn, so forced faults keep the stream aligned
        outcome = self._forced.pop(0) if self._forced else roll
        if outcome in ("double", "stuck_pair") and len(self.hopper) < 2:
            outcome = "ok"  # one card left: it cannot come with another
        if outcome == "misfeed" and self.misfeeds + 1 >= MAX_MISFEEDS:
            outcome = "stuck"  # the third slip in a row: the top card sticks in the path
        self._feed_outcome = outcome
        # The roller takes its card(s) now; a slipping roller (misfeed) takes none. From
        # here on the operator may lift or add to the hopper: the feed is not affected.
        taken = {"misfeed": 0, "double": 2, "stuck_pair": 2}.get(outcome, 1)
        self.in_feeder, self.hopper[:taken] = self.hopper[:taken], []

    def _feed_done(self, now: float) -> None:
        outcome = self._feed_outcome
        fed, self.in_feeder = self.in_feeder, []
        self.phase = "idle"
        if outcome in ("misfeed", "stuck"):
            self.stats.count("misfeed")
            self.misfeeds += 1
            if outcome == "misfeed":
                self._event(p.MisfeedEvent(self.misfeeds))
                return
            outcome = "jam"
        if outcome == "jam":
            self.stats.count("jam")
            self.jammed = fed[0]
            self.running = False
            self.mode = p.Mode.FAULT
            self._event(p.JamEvent(1))
            return
        if outcome == "double":
            self.stats.count("double_feed")
            self.rejects += fed
            self.double_fed = True
            # Stop so the operator can put the two cards back; RESUME goes on.
            self.running = False
            self.mode = p.Mode.IDLE
            self._event(p.DoubleFeedEvent(2, min(255, len(self.rejects))))
            return
        self.misfeeds = 0
        card = fed[0]
        # A stuck pair passed the thickness sensor as one card: only the top one is seen.
        self.gate_under = fed[1] if outcome == "stuck_pair" and len(fed) > 1 else None
        if self.gate_under is not None:
            self.stats.count("stuck_pair")
        self.gate_counter += 1
        self.gate_id, self.gate_card, self.gate_pocket = self.gate_counter, card, None
        self.phase = "at_gate"
        if self.camera is not None:
            self.camera(self.gate_id, card)  # the host's camera sees it before the event
        self._event(p.CardAtGateEvent(self.gate_id))

    # ------------------------------------------------------------------ loop

    def _deadline(self, now: float) -> float:
        t = self._next_heartbeat
        if self.phase in ("feeding", "dropping"):
            t = min(t, self.phase_until)
        if self.sender.pending:
            t = min(t, self.sender.pending[0].sent_at + self.rto)
        for edge in (self._unplugged_until, self._off_until):
            if edge > now:
                t = min(t, edge)
        return max(0.0, min(t - now, 0.5))

    def _tick(self, now: float) -> None:
        if now < self._off_until:
            return  # rebooting: no mechanics, no radio
        if self._armed_cut is not None and self.phase == self._armed_cut:
            self._armed_cut = None
            self._power_cut_now()
            return
        if self.failure is None:  # a failed machine moves nothing until it restarts
            self._mechanics(now)
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + self.heartbeat
            uptime = int((now - self._boot_at) * 1000) & 0xFFFFFFFF
            hb = p.Heartbeat(self.boot_id, self.mode, uptime)
            self._send(p.encode_frame(p.Frame(p.MsgType.HEARTBEAT, 0, hb.pack())), now)
        if self.host_ready:
            for wire in self.sender.sendable(now):
                self._send(wire, now)
        self.endpoint.flush()
        if self._armed_cut is not None and self.phase == self._armed_cut:
            # Checked again once this tick's events are out: a route may come at once.
            self._armed_cut = None
            self._power_cut_now()

    def _incoming(self, data: bytes, now: float) -> None:
        if self._line_down(now):
            self._inbuf.clear()
            return
        for sent in split_frames(self._inbuf, data):
            chunk = self.noise_in.apply(sent)
            if chunk is None or len(chunk) <= 1:
                continue
            item = p.decode_body(chunk[:-1])
            if isinstance(item, p.BadFrame):
                self.stats.bad_frames_in += 1
                self._send(p.encode_frame(p.Frame(p.MsgType.NAK)), now)
            else:
                self._on_frame(item, now)

    def _run(self) -> None:
        try:
            self._loop()
        except Exception:
            # Failing while already failed: the radio itself is broken. Say so in the log;
            # the host sees a silent line (a link loss), as with a real dead board.
            log.exception("dealing machine emulator: the thread died (after %s)", self.failure)
            raise

    def _loop(self) -> None:
        while not self._stop:
            with self._lock:
                try:
                    now = time.monotonic()
                    self._tick(now)
                except Exception as exc:
                    if self.failure is not None:
                        raise
                    self._fail(exc)
                    continue
                timeout = self._deadline(time.monotonic())
                fds = [*self.endpoint.fds(), self._wake_r]
                wfds = self.endpoint.wants_write()
            try:
                readable, _, _ = select.select(fds, wfds, [], timeout)
            except (OSError, ValueError):
                time.sleep(0.001)  # a descriptor closed under us (disconnect); go round
                continue
            with self._lock:
                try:
                    self._read(readable)
                except Exception as exc:
                    if self.failure is not None:
                        raise
                    self._fail(exc)

    def _read(self, readable: list[int]) -> None:
        for fd in readable:
            if fd == self._wake_r:
                try:
                    os.read(self._wake_r, 4096)
                except OSError:
                    pass
                continue
            data = self.endpoint.readable(fd)
            if data:
                self._incoming(data, time.monotonic())

    def _fail(self, exc: Exception) -> None:
        """An internal error: stop the mechanics, keep the line up, and tell the host.

        As a real firmware's fault handler would: the feeder stops, the machine
        stays in mode FAULT (RESUME is refused) and reports MACHINE_FAULT, and
        only a restart (power cut) clears it. The traceback goes to the log.
        """
        self.failure = f"{type(exc).__name__}: {exc}"
        log.error("dealing machine emulator failed; it stopped feeding and reports a machine "
                  "fault", exc_info=exc)
        self.stats.count("machine_fault")
        self.running = False
        self.mode = p.Mode.FAULT
        self.phase = "idle"
        self._event(p.MachineFaultEvent(1, self.failure[:64]))
