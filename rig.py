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

Only the wiring lives here (:class:`Rig`, :func:`make_camera`,
:func:`run_emulated`, the ``deal`` command). What it wires is re-exported from
here: the cameras from :mod:`vision.rig_sources`, :class:`PictureFeed` from
:mod:`vision.picture_feed`, the operators and :class:`Scenario` from
:mod:`firmware_bridge.operator`, :class:`RigReport`, :class:`Display` and
:class:`RigError` from :mod:`dealer.rig_report`, :func:`open_job` from
:mod:`dealer.rig_job`.

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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer import session_notices as say
from dealer.board import Board, DealSet
from dealer.cards import Card
from dealer.rig_job import contracts_of, default_hands, load_set, open_job, set_copies
from dealer.rig_report import CONTINUE, DONE, ROUTINE, Display, RigError, RigReport, summary
from dealer.session import DealingSession, MachineView, Sighting
from dealer.session_notices import Notice
from dealer.store import Store
from firmware_bridge import events as ev
from firmware_bridge import protocol as proto
from firmware_bridge.driver import Machine, MachineError, RouteResult
from firmware_bridge.emulator import Emulator
from firmware_bridge.faults import FaultPlan
from firmware_bridge.operator import (
    FAULT_KINDS,
    BoardCheck,
    ConsoleOperator,
    EmulatedOperator,
    Scenario,
)
from firmware_bridge.physical import PhysicalCard, standard_deck
from vision.picture_feed import PictureFeed
from vision.rig_sources import (
    EmulatorCamera,
    FolderCamera,
    LiveCamera,
    TruthCamera,
    folder_writer,
    sighting_from,
)

# The pieces that used to live here, importable from ``rig`` as before (tests, benches).
__all__ = [
    "CONTINUE", "DONE", "FAULT_KINDS", "ROUTINE", "BoardCheck", "Card", "ConsoleOperator",
    "Display", "EmulatedOperator", "EmulatorCamera", "FaultPlan", "FolderCamera", "LiveCamera",
    "Machine", "PhysicalCard", "PictureFeed", "Rig", "RigError", "RigReport", "Scenario",
    "Sighting", "Store", "TruthCamera", "cmd_deal", "folder_writer", "make_camera", "open_job",
    "panel_pictures", "register", "run_emulated", "sighting_from", "standard_deck", "summary",
    "contracts_of", "load_set", "set_copies",
]


# ============================================================================ pictures
def panel_pictures(stack: contextlib.ExitStack, db_url: str, job_id: int) -> PictureFeed:
    """A :class:`PictureFeed` into the panel's dealing job ``job_id`` (closed with ``stack``)."""
    from dealer.store import dealing

    store = stack.enter_context(Store.open(db_url, migrate_schema=False))
    dealing.status(store, job_id)  # no such job: say so before dealing starts
    return stack.enter_context(PictureFeed(lambda data: dealing.set_image(store, job_id, data)))


# ============================================================================ the rig
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


# ============================================================================ cameras, emulated runs
def make_camera(spec: str, emu: Emulator | None) -> Any:
    """The camera for a ``--camera`` SOURCE; the emulator's cameras hook into ``emu``."""
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
        hands = default_hands(session, seed)
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
