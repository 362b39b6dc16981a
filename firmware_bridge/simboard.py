"""The reference firmware on a simulated ATmega2560, as a dealing machine.

:class:`FirmwareMachine` runs ``firmware_bridge/firmware``'s ELF, unchanged,
in the ``simboard`` harness (libsimavr). The harness plays the mechanics on the
microcontroller's pins; this class holds the physical cards (so a test can
look in the pockets), answers the harness's "which feed attempt fails?" with
the same seeded dice as :class:`~firmware_bridge.emulator.Emulator`, and
carries the UART between the harness's pty and the host's end of the cable,
where the same line noise and cable pulls as the emulator's are applied. The
host's driver opens :attr:`url` like any machine. Its operator methods are the
emulator's, so the same tests run on both machines.

>>> from firmware_bridge.physical import standard_deck
>>> if firmware_available():
...     with FirmwareMachine.start(pty=True, seed=1, time_scale=0.05) as fw:
...         fw.insert_board(1, standard_deck())
...         ok = fw.url.startswith("/dev/")
... else:
...     ok = True
>>> ok
True
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import shutil
import socket
import subprocess
import threading
import time
import tty
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeAlias

from firmware_bridge import protocol as p
from firmware_bridge.emulator import FEED_FAULTS, MAX_MISFEEDS, CameraHook, Emulator, EmulatorStats
from firmware_bridge.faults import FaultPlan, LineNoise, MechanicalDice, split_frames
from firmware_bridge.physical import PhysicalCard
from firmware_bridge.transport import Endpoint, PtyEndpoint, TcpEndpoint

SOURCE = Path(__file__).resolve().parent / "firmware"
#: Where ``make firmware`` puts the ELF and the harness (git-ignored).
BUILD = Path(os.environ.get("BOARDWRIGHT_FIRMWARE_BUILD", SOURCE.parents[1] / "build" / "firmware"))
REJECT = 255


class FirmwareError(RuntimeError):
    """The firmware or its harness is missing, or the simulation stopped."""


def build() -> Path:
    """Build the firmware and the harness (``make -C firmware_bridge/firmware``).

    One build at a time (test workers start machines in parallel); make's
    output goes to ``build/firmware/make.log``, shown if it fails.
    """
    if shutil.which("avr-gcc") is None:
        raise FirmwareError("avr-gcc is not installed (apt-get install gcc-avr avr-libc)")
    BUILD.mkdir(parents=True, exist_ok=True)
    log_path = BUILD / "make.log"
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(log_path, "w") as log:
            rc = subprocess.run(["make", "-C", str(SOURCE), f"BUILD={BUILD}"],
                                stdout=log, stderr=subprocess.STDOUT).returncode  # fmt: skip
    if rc != 0:
        raise FirmwareError(f"building the firmware failed (make exit {rc}):\n"
                            f"{log_path.read_text(errors='replace')[-2000:]}")  # fmt: skip
    return BUILD


def firmware_available() -> bool:
    """True when the toolchain is here (the ELF is built on demand)."""
    return shutil.which("avr-gcc") is not None and (
        Path("/usr/include/simavr/sim_avr.h").exists() or (BUILD / "simboard").exists()
    )


#: The firmware's link counters, in the order of link_stats_t (link.h).
FIRMWARE_COUNTERS = ("frames_in", "frames_out", "bad_frames", "duplicate_requests",
                     "unknown_requests", "retransmissions", "events_refused")  # fmt: skip


class FirmwareMachine:
    """The firmware in simavr, with the emulator's operator API."""

    phases = {"GATE": "at_gate", "FALL": "dropping"}

    def __init__(
        self,
        *,
        pty: bool = False,
        tcp_port: int | None = None,
        seed: int = 0,
        time_scale: float = 1.0,
        faults: FaultPlan | None = None,
        camera: CameraHook | None = None,
        board_reader: bool = True,
        **_emulator_only: object,  # heartbeat, rto, boot_time: fixed in the firmware
    ) -> None:
        if pty == (tcp_port is not None):
            raise ValueError("choose exactly one of pty=True or tcp_port=PORT")
        if not firmware_available():
            raise FirmwareError("the firmware cannot run here: install gcc-avr, avr-libc, "
                                "simavr and libsimavr-dev (make bootstrap does)")  # fmt: skip
        build()
        self.plan = faults if faults is not None else FaultPlan(seed=seed)
        if faults is not None and seed and not faults.seed:
            self.plan = FaultPlan(**{**faults.__dict__, "seed": seed})
        self.dice = MechanicalDice(self.plan)
        self.noise_out = LineNoise(self.plan, "out")
        self.noise_in = LineNoise(self.plan, "in")
        self.time_scale = time_scale
        self.camera = camera
        self.board_reader = board_reader
        self.stats = EmulatorStats()
        self.elf = BUILD / "boardwright.elf"
        # The harness's control channel is a socket of its own (mechanics both ways);
        # its stdout is left to simavr's loader messages.
        self._control_sock, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [str(BUILD / "simboard"), str(self.elf), "--time-scale", repr(time_scale),
             "--boot-count", str(self.dice.boot_id()), "--control-fd", str(theirs.fileno())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=[theirs.fileno()],
        )  # fmt: skip
        theirs.close()
        self._lines = bytearray()
        self.board_pty = self._wait_for_pty()
        self.board_fd = os.open(self.board_pty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.board_fd)
        self.endpoint: Endpoint = PtyEndpoint() if pty else TcpEndpoint(tcp_port or 0)
        self.url = self.endpoint.url
        self.boot_id = 0
        self.boots = 0
        self.stack_unused: int | None = None
        self.event_log: list[p.Message] = []
        self._event_seqs: set[tuple[int, int]] = set()
        self._announced: set[tuple[int, int]] = set()
        self._forced: list[str] = []
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        self._stop = False
        self._from_board = bytearray()
        self._from_host = bytearray()
        self._unplugged_until = 0.0
        self._cut_at_gate = False
        self._send_then_cut = False
        self._stack_reply = threading.Event()
        self._latency_reply = threading.Event()
        self.counters: dict[str, int] = {}
        self.latency_cycles: dict[str, int] = {}
        # physical state, as in the emulator
        self.hopper: list[PhysicalCard] = []
        self.pockets: list[list[PhysicalCard]] = [[] for _ in range(4)]
        self.rejects: list[PhysicalCard] = []
        self.board_number: int | None = None
        self.gate_card: PhysicalCard | None = None
        self.gate_under: PhysicalCard | None = None  # stuck under the gate card (a stuck pair)
        self.jammed: PhysicalCard | None = None
        self.in_feeder: list[PhysicalCard] = []
        self.misfeeds = 0
        self.cover_open = False
        self.phase = "idle"
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ life cycle

    @classmethod
    def start(cls, **kwargs: object) -> FirmwareMachine:
        fw = cls(**kwargs)  # type: ignore[arg-type]
        fw._thread = threading.Thread(target=fw._run, name="simboard", daemon=True)
        fw._thread.start()
        return fw

    def _wait_for_pty(self) -> str:
        deadline = time.monotonic() + 10
        buf = b""
        self._control_sock.settimeout(1.0)
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                chunk = self._control_sock.recv(4096)
            except TimeoutError:
                continue
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.startswith(b"PTY "):
                    self._lines = bytearray(buf)
                    self._control_sock.setblocking(False)
                    return line[4:].strip().decode()
        raise FirmwareError("the simboard harness did not start (no PTY report)")

    def close(self) -> None:
        self._stop = True
        self._control("Q")
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._control_sock.close()  # the harness quits at "Q", or when its channel closes
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self.endpoint.close()
        for fd in (self.board_fd, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> FirmwareMachine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ operator

    def _control(self, line: str) -> None:
        data = line.encode() + b"\n"
        with contextlib.suppress(OSError):
            while data:  # a short line on a local socket: this does not block for long
                try:
                    data = data[self._control_sock.send(data):]
                except BlockingIOError:
                    select.select([], [self._control_sock], [], 0.1)

    def load_hopper(self, cards: Iterable[PhysicalCard]) -> None:
        with self._lock:
            self.hopper.extend(cards)
            self._control(f"K {len(self.hopper)}")

    def insert_board(self, number: int | None, cards: Iterable[PhysicalCard] = ()) -> None:
        with self._lock:
            self.hopper.extend(cards)
            self._control(f"K {len(self.hopper)}")
            self.pockets = [[] for _ in range(4)]
            self.board_number = number if number is not None else 0
            shown = number if (number is not None and self.board_reader) else 0
            self._control(f"B {shown}")

    def remove_board(self) -> list[list[PhysicalCard]]:
        with self._lock:
            held = self.pockets
            self.pockets = [[] for _ in range(4)]
            self.board_number = None
            self._control("B -")
        return held

    def return_rejects(self, count: int | None = None) -> list[PhysicalCard]:
        with self._lock:
            n = len(self.rejects) if count is None else min(count, len(self.rejects))
            back = self.rejects[len(self.rejects) - n :]
            del self.rejects[len(self.rejects) - n :]
            self.hopper[:0] = back
            self._control(f"R {n}")
        return back

    def put_on_hopper(self, cards: Iterable[PhysicalCard]) -> None:
        """The operator puts ``cards`` on top of the hopper (the first is fed first)."""
        with self._lock:
            self.hopper[:0] = list(cards)
            self._control(f"K {len(self.hopper)}")

    def take_hopper(self) -> list[PhysicalCard]:
        """The operator lifts every card off the hopper (not one the feeder already holds)."""
        with self._lock:
            cards, self.hopper = self.hopper, []
            self._control("K 0")
        return cards

    def take_rejects(self) -> list[PhysicalCard]:
        """The operator empties the reject tray into their hand (not onto the hopper)."""
        with self._lock:
            cards, self.rejects = self.rejects, []
            self._control(f"Z {len(cards)}")
        return cards

    def take_from_pocket(self, pocket: int, cards: Iterable[PhysicalCard]) -> list[PhysicalCard]:
        """The operator takes these very cards out of a pocket; its stack sensor drops too."""
        with self._lock:
            held = self.pockets[pocket]
            taken = [pc for pc in cards if any(x is pc for x in held)]
            self.pockets[pocket] = [x for x in held if not any(x is pc for pc in taken)]
            self._control(f"P {pocket} {len(self.pockets[pocket])}")
        return taken

    def inject(self, kind: str) -> None:
        """As :meth:`Emulator.inject`; a ``stuck_pair`` is played by the harness's mechanics
        (two cards off the hopper, DOUBLE stays low, the stack grows by two)."""
        if kind not in FEED_FAULTS:
            raise ValueError(f"unknown feed fault {kind!r}")
        with self._lock:
            self._forced.append(kind)

    def clear_jam(self) -> None:
        with self._lock:
            if self.jammed is None:
                return
            self.hopper.insert(0, self.jammed)
            self.jammed = None
            self.misfeeds = 0
            self._control("J 0")

    def open_cover(self) -> None:
        with self._lock:
            self.stats.count("cover_open")
            self.cover_open = True
            self._control("C 1")

    def close_cover(self) -> None:
        with self._lock:
            self.cover_open = False
            self._control("C 0")

    def unplug(self, seconds: float) -> None:
        with self._lock:
            self.stats.count("unplug")
            self._unplugged_until = time.monotonic() + seconds
            self.endpoint.disconnect()
            if isinstance(self.endpoint, TcpEndpoint):
                self.endpoint.refuse = True
        os.write(self._wake_w, b"x")

    def power_cut(self, when: str | None = None) -> None:
        """Cut the power now, or when the card path reaches ``when`` (the harness waits)."""
        with self._lock:
            self.stats.count("power_cut")
            if when is None:
                lands = self.phase == "dropping" and self.dice.lands_at_power_cut()
                self._control(f"X {int(lands)}")
            elif when == "at_gate":
                # As the emulator does: once the card's CARD_AT_GATE is on its way to the host.
                self._cut_at_gate = True
            else:
                lands = self.dice.lands_at_power_cut()
                self._control(f"A {when} {int(lands)}")

    def inject_raw(self, data: bytes) -> None:
        with self._lock:
            self.endpoint.write(data)

    def stack_report(self, timeout: float = 2.0) -> int | None:
        """Bytes of RAM the firmware never touched since boot (stack painting)."""
        self._stack_reply.clear()
        self._control("S")
        self._stack_reply.wait(timeout)
        return self.stack_unused

    def firmware_counters(self, timeout: float = 2.0) -> dict[str, int]:
        """The firmware's own link counters (bad frames, duplicates, retransmissions ...)."""
        self.stack_report(timeout)
        return dict(self.counters)

    def request_latency(self, timeout: float = 2.0) -> dict[str, int]:
        """Simulated cycles from a request's last byte in to the firmware's first byte out."""
        self._latency_reply.clear()
        self._control("L")
        self._latency_reply.wait(timeout)
        return dict(self.latency_cycles)

    @contextlib.contextmanager
    def hold(self, settle: float = 0.2, limit: float = 10.0) -> Iterator[None]:
        with self._lock:
            deadline = time.monotonic() + limit
            while self.endpoint.wants_write() and time.monotonic() < deadline:
                self.endpoint.flush()
                time.sleep(0.005)
            time.sleep(settle)
            yield

    # ------------------------------------------------------------------ the harness

    def _land(self, card: PhysicalCard | None, pocket: int) -> None:
        if card is None:
            return
        if pocket == REJECT or not 0 <= pocket < 4:
            self.rejects.append(card)
        else:
            self.pockets[pocket].append(card)

    def _on_line(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word == "FEED?":
            roll = self.dice.feed()  # always drawn, as the emulator does
            outcome = self._forced.pop(0) if self._forced else roll
            if outcome in ("double", "stuck_pair") and len(self.hopper) < 2:
                outcome = "ok"  # one card left: it cannot come with another
            if outcome == "misfeed":
                self.stats.count("misfeed")
                self.misfeeds += 1
                if self.misfeeds >= MAX_MISFEEDS:
                    outcome = "jam"  # the third slip in a row: the top card sticks in the path
            elif outcome == "double":
                self.stats.count("double_feed")
            elif outcome == "stuck_pair":
                self.stats.count("stuck_pair")
            # The roller takes its card(s) now, as in the emulator: the operator may
            # lift or add to the hopper from here on without changing this feed.
            taken = {"misfeed": 0, "double": 2, "stuck_pair": 2}.get(outcome, 1)
            self.in_feeder, self.hopper[:taken] = self.hopper[:taken], []
            self.phase = "feeding"
            self._control(f"F {outcome}")
        elif word == "GATE":
            self.misfeeds = 0
            self.gate_card = self.in_feeder[0] if self.in_feeder else None
            self.gate_under = self.in_feeder[1] if len(self.in_feeder) > 1 else None
            self.in_feeder = []
            self.phase = "at_gate"
        elif word == "JAMMED":
            self.stats.count("jam")
            self.jammed = self.in_feeder[0] if self.in_feeder else None
            self.in_feeder = []
            self.phase = "idle"
        elif word == "DOUBLE":
            self.rejects += self.in_feeder
            self.in_feeder = []
            self.phase = "idle"
        elif word == "FALL":
            self.phase = "dropping"
        elif word == "DROP":
            self._land(self.gate_card, int(rest))
            self._land(self.gate_under, int(rest))  # a stuck pair falls together
            self.gate_card = self.gate_under = None
            self.phase = "idle"
        elif word == "CUT":
            how, _, pocket = rest.partition(" ")
            if self.in_feeder:  # the roller lets go: the cards lie on top of the hopper again
                self.hopper[:0] = self.in_feeder
                self.in_feeder = []
            path = [c for c in (self.gate_card, self.gate_under) if c is not None]
            if how == "landed":
                for card in path:
                    self._land(card, int(pocket))
            elif how == "back":
                self.hopper[:0] = path
            self.gate_card = self.gate_under = None
            self.phase = "idle"
        elif word == "JAMBACK" and self.jammed is not None:
            self.hopper.insert(0, self.jammed)
            self.jammed = None
        elif word == "BOOTED":
            self.boots += 1
        elif word == "STACK":
            self.stack_unused = int(rest) if rest.isdigit() else None
        elif word == "STATS":
            values = rest.split()
            if len(values) == len(FIRMWARE_COUNTERS):
                self.counters = dict(zip(FIRMWARE_COUNTERS, map(int, values), strict=True))
            self._stack_reply.set()
        elif word == "LAT":
            n, p50, p99, worst = (int(x) for x in rest.split())
            self.latency_cycles = {"requests": n, "p50": p50, "p99": p99, "max": worst}
            self._latency_reply.set()

    def _from_firmware(self, frame: bytes) -> None:
        """Look at a frame on its way to the host: boot id, camera, event log."""
        item = p.decode_body(frame[:-1]) if len(frame) > 1 else None
        if isinstance(item, p.Frame):
            if item.type == p.MsgType.HEARTBEAT and len(item.payload) >= 4:
                self.boot_id = int.from_bytes(item.payload[:4], "big")
            elif item.type == p.MsgType.REPLY and len(item.payload) >= 7 and item.payload[1] == 0:
                # HELLO and GET_STATE replies carry the boot id too (a heartbeat may be later)
                if item.payload[0] == p.MsgType.HELLO:
                    self.boot_id = int.from_bytes(item.payload[3:7], "big")
                elif item.payload[0] == p.MsgType.GET_STATE:
                    self.boot_id = int.from_bytes(item.payload[2:6], "big")
            elif p.is_sequenced(item.type) and not p.is_request(item.type):
                key = (self.boot_id, item.seq)
                if key not in self._event_seqs:
                    self._event_seqs.add(key)
                    with contextlib.suppress(p.ProtocolError):
                        self.event_log.append(item.message())
                if item.type == p.MsgType.CARD_AT_GATE and len(item.payload) >= 4:
                    gate = int.from_bytes(item.payload[:4], "big")
                    if (self.boot_id, gate) not in self._announced and self.phase != "at_gate":
                        self._read_harness(wait=0.5, until="at_gate")  # its GATE line is late
                    if (self.boot_id, gate) not in self._announced and self.gate_card is not None:
                        self._announced.add((self.boot_id, gate))
                        if self.camera is not None:
                            self.camera(gate, self.gate_card)  # before the host hears of it
                        if self._cut_at_gate:
                            self._cut_at_gate = False
                            self._send_then_cut = True
        if time.monotonic() < self._unplugged_until:
            return
        damaged = self.noise_out.apply(frame)
        if damaged is not None:
            self.stats.frames_out += 1
            self.endpoint.write(damaged)
        if self._send_then_cut:
            self._send_then_cut = False
            self.endpoint.flush()
            lands = self.phase == "dropping" and self.dice.lands_at_power_cut()
            self._control(f"X {int(lands)}")

    def _to_firmware(self, data: bytes) -> None:
        if time.monotonic() < self._unplugged_until:
            self._from_host.clear()
            return
        for sent in split_frames(self._from_host, data):
            chunk = self.noise_in.apply(sent)
            if chunk is None:
                continue
            self.stats.frames_in += 1
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(self.board_fd, chunk)

    def _read_harness(self, wait: float = 0.0, until: str | None = None) -> bool:
        """Handle the harness's report lines; False once the simulation has stopped."""
        fd = self._control_sock.fileno()
        deadline = time.monotonic() + wait
        while True:
            try:
                data = self._control_sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                data = None
            except OSError:
                data = b""
            if data == b"" and self.proc.poll() is not None:
                self.stats.count("simulation_stopped")
                return False
            self._lines += data or b""
            while (nl := self._lines.find(b"\n")) >= 0:
                line = self._lines[:nl].decode(errors="replace").strip()
                del self._lines[: nl + 1]
                self._on_line(line)
            if until is None or self.phase == until or time.monotonic() >= deadline:
                return True
            select.select([fd], [], [], max(0.0, deadline - time.monotonic()))

    def _run(self) -> None:
        out_fd = self._control_sock.fileno()
        while not self._stop:
            with self._lock:
                if self._unplugged_until and time.monotonic() >= self._unplugged_until:
                    self._unplugged_until = 0.0
                    if isinstance(self.endpoint, TcpEndpoint):
                        self.endpoint.refuse = False
                fds = [out_fd, self.board_fd, self._wake_r, *self.endpoint.fds()]
                wfds = self.endpoint.wants_write()
            try:
                readable, _, _ = select.select(fds, wfds, [], 0.05)
            except (OSError, ValueError):
                time.sleep(0.001)
                continue
            with self._lock:
                # mechanics first: a card reaches the gate before its event
                if out_fd in readable and not self._read_harness():
                    return
                for fd in readable:
                    if fd == self._wake_r:
                        with contextlib.suppress(OSError):
                            os.read(self._wake_r, 4096)
                    elif fd == self.board_fd:
                        try:
                            data = os.read(self.board_fd, 65536)
                        except (BlockingIOError, OSError):
                            data = b""
                        for frame in split_frames(self._from_board, data):
                            self._from_firmware(frame)
                    elif fd != out_fd:
                        data = self.endpoint.readable(fd)
                        if data:
                            self._to_firmware(data)
                self.endpoint.flush()


#: A virtual dealing machine: the Python emulator or the firmware in simavr. Both have the
#: emulator's operator API, so the simulated operator and the cameras work with either.
VirtualMachine: TypeAlias = Emulator | FirmwareMachine


def start_virtual(machine: str, *, seed: int = 0, time_scale: float = 0.01,
                  faults: FaultPlan | None = None) -> tuple[VirtualMachine, dict[str, float]]:
    """A started virtual machine on a pty, ``emulator`` or ``firmware``, and the
    driver settings that suit it (the firmware's heartbeat is fixed at 250 ms,
    so the host waits longer before calling the link lost)."""
    if machine == "firmware":
        fw = FirmwareMachine.start(pty=True, seed=seed, time_scale=time_scale, faults=faults)
        return fw, {"rto": 0.05, "link_timeout": 1.2, "answer_timeout": 2.0}
    emu = Emulator.start(pty=True, seed=seed, time_scale=time_scale, heartbeat=0.05,
                         faults=faults, boot_time=1.0)  # fmt: skip
    return emu, {"rto": 0.02, "link_timeout": 0.5}
