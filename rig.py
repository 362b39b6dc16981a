"""The rig: a dealing machine, a camera and a dealing session, wired together.

This is the one module that imports several adapters (``firmware_bridge`` for
the machine, ``vision`` for the camera). It holds no bridge logic: every
decision is made by :class:`dealer.session.DealingSession`, which this module
only feeds with what the machine and the camera report, and whose decisions
it carries out. ``boardwright deal SET --machine URL --camera SOURCE`` runs it
in the terminal.

Machine URL: any pyserial URL, or ``emulator`` (in-process, with a simulated
operator). Camera SOURCE: ``emulator[:design=qr]`` (frames rendered of the card
at the emulator's gate), ``truth`` (the emulator's label: soaks), ``dir:PATH``
(frames ``BOOT-GATE.png`` from an emulator in another process), or a vision
source (``camera:0``). Every run is a job whose status goes through its
``JobLink`` (``dealer.rig_ports``) to the store, where the panel shows it.

Only the wiring lives here (:class:`Rig`, :func:`make_camera`,
:func:`run_emulated`, the ``deal`` command); what it wires is re-exported
(see docs/architecture.md).

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
from dealer.board import DealSet
from dealer.cards import Card
from dealer.errors import BoardwrightError
from dealer.rig_job import (
    add_deal_arguments,
    contracts_of,
    deal_options,
    default_hands,
    job_link,
    load_set,
    open_job,
    print_scan,
    set_copies,
)
from dealer.rig_ports import Camera, Command, JobChannel, JobLink, Operator
from dealer.rig_report import CONTINUE, DONE, ROUTINE, Display, RigError, RigReport, summary
from dealer.seats import Seat
from dealer.session import DealingSession, MachineView, Sighting
from dealer.session_notices import Notice
from dealer.store import Store
from dealer.store.dealing import StoreJobLink
from firmware_bridge import events as ev
from firmware_bridge import protocol as proto
from firmware_bridge.driver import Machine, MachineError
from firmware_bridge.faults import FaultPlan
from firmware_bridge.operator import (
    FAULT_KINDS,
    BoardCheck,
    ConsoleOperator,
    EmulatedOperator,
    PanelOperator,
    Scenario,
)
from firmware_bridge.physical import PhysicalCard, standard_deck
from firmware_bridge.simboard import VirtualMachine, start_virtual  # the emulator or the firmware
from vision.picture_feed import PictureFeed
from vision.rig_sources import (
    EmulatorCamera,
    FolderCamera,
    LiveCamera,
    TruthCamera,
    folder_writer,
    live_reader,
    sighting_from,
)

# The pieces that used to live here, importable from ``rig`` as before (tests, benches).
__all__ = [
    "CONTINUE", "DONE", "FAULT_KINDS", "ROUTINE", "BoardCheck", "Card", "ConsoleOperator",
    "Display", "EmulatedOperator", "EmulatorCamera", "FaultPlan", "FolderCamera", "LiveCamera",
    "Machine", "PhysicalCard", "PictureFeed", "Rig", "RigError", "RigReport", "Scenario",
    "Sighting", "Store", "TruthCamera", "cmd_deal", "folder_writer", "make_camera", "open_job",
    "job_link", "PanelOperator", "register", "run_emulated", "sighting_from", "standard_deck", "summary",
    "contracts_of", "load_set", "set_copies",
]

ABORTED = say.aborted().message  # RigReport.stopped of a job the director aborted

# ============================================================================ the rig
class Rig:
    """Runs one dealing job: machine events in, session decisions out, status to its link.

    The director's pause, resume and abort come down the job's link and go to
    the machine as the protocol's own PAUSE, RESUME and ABORT.
    """

    def __init__(self, machine: Machine, camera: Camera, session: DealingSession,
                 operator: Operator, *, display: Display | None = None,
                 idle_timeout: float = 10.0, pictures: PictureFeed | None = None,
                 link: JobLink | None = None) -> None:
        self.m = machine
        self.pictures = pictures
        self.camera = camera
        self.session = session
        self.operator = operator
        self.display = display or Display(quiet=True)
        self.idle_timeout = idle_timeout
        self.channel = JobChannel(link)
        self.report = RigReport(boards_total=session.boards_total)
        self._hopper_empty = False
        self._t0 = 0.0
        self._handlers: dict[type[ev.Event], Callable[[Any], None]] = {
            ev.CardAtGate: self._card_at_gate,
            ev.CardDropped: self._card_dropped,
            ev.CardReturned: lambda e: self.tell(self.session.card_returned((e.boot_id, e.gate_id))),
            ev.BoardInserted: lambda e: self.tell(self.session.board_inserted(e.number)),
            ev.BoardRemoved: lambda e: self.tell(self.session.board_removed()),
            ev.HopperEmpty: self._hopper_empty_event,
            ev.Misfeed: lambda e: self._fault(say.misfeed(e.attempt)),
            ev.DoubleFeed: lambda e: self.tell(self.session.double_feed(e.cards)),
            ev.Jam: lambda e: self.continue_machine() if e.cleared else self._fault(say.jam()),
            ev.Cover: lambda e: self._fault(say.cover_open()) if e.open
            else self.continue_machine(),
            ev.LinkLost: lambda e: self._fault(say.link_lost(e.describe())),
            ev.Connected: self._connected,
            ev.MachineFault: self._machine_fault,
        }

    # ------------------------------------------------------------------ operator and machine
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
        if notices:
            self.publish()

    def publish(self, *, force: bool = False) -> None:
        self.channel.publish(self.session, force=force)

    def continue_machine(self) -> None:
        if self.channel.holding:
            return  # the director paused, or the operator has not answered yet
        self._hopper_empty = False
        try:
            self.m.resume()
        except MachineError:
            pass  # refused (cover open, jam) or link down: an event will bring us back

    def hold_for_operator(self) -> None:
        """An operator who answers on the panel: keep the machine still until Resume."""
        self.channel.waiting = True
        self.publish()

    def _check_hopper(self) -> None:
        """A full board with cards still on the hopper: the deck had more than 52."""
        try:
            st = self.m.state()
        except MachineError:
            return
        if not st.faults & proto.Fault.HOPPER_EMPTY:
            self.tell(self.session.hopper_not_empty())

    def _stop_machine(self, *, abort: bool = False) -> None:
        try:  # ABORT also sends an unrouted card at the gate to the reject tray
            self.m.abort() if abort else self.m.pause()
        except MachineError:
            pass

    def _view(self) -> MachineView:
        st = self.m.state()
        gate = (st.boot_id, st.gate_id) if st.gate_id else None
        return MachineView(bool(st.board_present), st.board_number or None, st.counts,
                           st.rejects, gate, st.gate_pocket != proto.UNROUTED)

    # ------------------------------------------------------------------ the job's link
    def obey(self) -> None:
        """Take the director's command from the link and carry it out on the machine."""
        ch = self.channel
        cmd = ch.poll()
        if cmd is Command.PAUSE and not ch.paused:
            ch.paused = True
            self._stop_machine()  # PAUSE: the machine finishes the card in hand, feeds no more
            self.display.notice(say.paused())
        elif cmd is Command.RESUME:
            ch.paused = ch.waiting = False
            if self.session.state == "dealing":
                self.continue_machine()  # RESUME
        elif cmd is Command.ABORT:
            self._stop_machine(abort=True)
            ch.aborted = True
            self.report.stopped = ABORTED
            self.tell(self.session.stop(say.aborted()))
        if cmd is not None:
            self.publish(force=True)

    # ------------------------------------------------------------------ the loop
    def run(self) -> RigReport:
        """Deal until the plan is done or the session stops; resync with the machine first."""
        self._t0 = time.monotonic()
        s = self.session
        self.publish(force=True)
        self._begin()
        quiet_since = time.monotonic()
        rescues = 0
        while s.state not in ("finished", "stopped"):
            e = self.m.next_event(0.05)
            self.obey()
            self.operator.tick(self)
            self.display.progress(self)
            self.publish()
            if e is None:
                if self.channel.holding:
                    quiet_since = time.monotonic()  # still on purpose: not a silent machine
                elif time.monotonic() - quiet_since > self.idle_timeout:
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
            self.report.stopped = self.report.stopped or s.stop_reason
        self.report.seconds = time.monotonic() - self._t0
        self.report.boards_done = s.boards_done
        self.report.cards = s.cards_placed
        self.display.progress(self, force=True)
        self.publish(force=True)
        if self.display.tty and not self.display.quiet:
            print(file=self.display.out)
        return self.report

    def _begin(self) -> None:
        """Resync with the machine (a restored job) or give the job's first instruction."""
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
                # The last host saw it (it is not announced again) but died before deciding.
                self.on_event(ev.CardAtGate(view.gate[1], True, view.gate[0]))
            if s.state == "dealing":
                self.continue_machine()
            elif s.state == "board_done" and s.notices:
                self.tell([s.notices[-1]])
        else:
            st = self.m.state()
            self.tell(s.board_inserted(st.board_number or None) if st.board_present
                      else s.start())

    def _rescue(self) -> bool:
        """Nothing has happened for a while: look at the machine, then ask the operator."""
        s = self.session
        try:
            st = self.m.state()
        except MachineError:
            return True  # the link is down; the driver keeps trying
        empty = st.faults & proto.Fault.HOPPER_EMPTY and st.gate_id == 0
        if s.state == "dealing" and empty and (notices := s.hopper_empty()):
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

    # ------------------------------------------------------------------ machine events
    def on_event(self, e: ev.Event) -> None:
        """Hand a machine event to its handler (events of other types are ignored)."""
        handler = self._handlers.get(type(e))
        if handler is not None:
            handler(e)

    def _fault(self, notice: Notice) -> None:
        self.tell(self.session.machine_fault(notice))

    def _card_at_gate(self, e: ev.CardAtGate) -> None:
        s = self.session
        t0 = time.perf_counter()
        key = (e.boot_id, e.gate_id)
        seen = self.camera.look(key)
        d = s.card_at_gate(key, seen)
        if not d.route:
            self._stop_machine()  # never route a card the journal does not know
            return
        self.report.decision_ms.append((time.perf_counter() - t0) * 1000)
        try:  # STALE: a power cut took it; the reconciliation decides where it went
            self.m.route(e.gate_id, d.pocket)
        except MachineError:
            pass  # link down: the resync announces the card again
        what = seen.card.symbol if seen.card is not None else (seen.problem or "a card")
        self.channel.card = f"{what} → {'reject tray' if d.pocket is None else Seat(d.pocket).name.title()}"
        if self.pictures is not None:  # after the route: the card never waits for it
            self._show(seen, d)
        self.tell(list(d.notices))

    def _card_dropped(self, e: ev.CardDropped) -> None:
        s = self.session
        notices = s.card_dropped((e.boot_id, e.gate_id), e.pocket, inferred=e.inferred, counts=e.counts)
        if s.state == "stopped":
            self._stop_machine()
            self.tell(s.notices[-1:])
            return
        if s.state != "dealing":  # a board done, or one to take out and start again
            self._stop_machine()
            self._check_hopper()
        if e.pocket is not None:
            self.operator.after_drop(self)
        self.tell(notices)
        if self._hopper_empty and s.state == "dealing":
            self.tell(s.hopper_empty())

    def _hopper_empty_event(self, e: ev.HopperEmpty) -> None:
        self._hopper_empty = True
        self.tell(self.session.hopper_empty())

    def _connected(self, e: ev.Connected) -> None:
        if not (e.reconnect or e.power_cut):
            return
        s = self.session
        notices, reroute = s.reconcile(self._view())
        for key, pocket in reroute:
            self.m.route(key[1], pocket)
        if e.power_cut:
            notices = s.machine_fault(say.power_cut()) + notices
        self.tell(notices)
        if s.state == "dealing":
            self.continue_machine()

    def _machine_fault(self, e: ev.MachineFault) -> None:
        """The machine stopped itself: nothing the operator does at it helps; stop the job."""
        self.tell(self.session.stop(say.machine_broken(e.describe())))


# ============================================================================ cameras, emulated runs
def make_camera(spec: str, emu: VirtualMachine | None, faces: str | None = None, design: str | None = None) -> Any:
    """The camera for a ``--camera`` SOURCE (``faces``, ``design``: :func:`live_reader`); the emulator's hook into ``emu``."""
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
    return LiveCamera(spec, live_reader(faces, design))


def run_emulated(ds: DealSet | str, db_url: str, *, camera: str = "emulator",
                 scenario: Scenario | None = None, time_scale: float = 0.01, seed: int = 0,
                 faults: FaultPlan | None = None, options: dict[str, Any] | None = None,
                 quiet: bool = False, stop_card: bool = False,
                 display: Display | None = None, sample: str | Path | None = None,
                 mode: str = "deal", machine: str = "emulator",
                 hands: Callable[[int], list[list[Card]]] | None = None,
                 pictures: PictureFeed | None = None, link: JobLink | None = None,
                 on_emulator: Callable[[VirtualMachine], None] | None = None) -> RigReport:
    """Deal (or scan) a set on an in-process emulator with a simulated operator.

    Every board is checked against the deal when the operator takes it out. In
    the scan modes the operator feeds ``hands(number)`` (default: the deal's
    hands; for ``play``, a random legal play of the board's contract). ``link``
    is the job's status channel (the panel's job row); ``on_emulator`` is given
    the started emulator; ``machine="firmware"`` deals on the firmware in simavr.
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
    started, driver = start_virtual(machine, seed=seed, time_scale=time_scale, faults=faults)
    with started as emu:
        cam = make_camera(camera, emu)
        if on_emulator is not None:
            on_emulator(emu)
        op = EmulatedOperator(emu, cam, scenario, hands=hands)
        with Machine.open(emu.url, **driver) as m:
            rig = Rig(m, cam, session, op, display=display or Display(quiet=quiet),
                      idle_timeout=3.0, pictures=pictures, link=link)
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
    add_deal_arguments(p)
    p.set_defaults(func=cmd_deal)


def cmd_deal(args: argparse.Namespace) -> int:
    from dealer.config import Settings

    db = args.db or Settings.load().database_url
    scenario, options = Scenario.parse(args.faults), deal_options(args)  # bad input: no job
    with contextlib.ExitStack() as stack:
        link = job_link(stack, db, args.job, args.set, args.machine)
        if not args.quiet:
            print(f"dealing job {link.job_id} (the panel's Dealing page shows it; pause, "
                  "resume and abort it there)", flush=True)
        pictures = stack.enter_context(PictureFeed(link.picture))
        try:
            return _deal(args, db, pictures, link, scenario, options)
        except BaseException as exc:  # the rig could not go on: the job says why
            link.fail(str(exc) if isinstance(exc, BoardwrightError)
                      else f"the rig stopped: {type(exc).__name__}: {exc}")
            raise


def _deal(args: argparse.Namespace, db: str, pictures: PictureFeed, link: StoreJobLink,
          scenario: Scenario, options: dict[str, Any]) -> int:
    display = Display(quiet=args.quiet)
    if args.machine == "emulator":
        report = run_emulated(args.set, db, camera=args.camera, scenario=scenario,
                              time_scale=args.time_scale, options=options,
                              stop_card=args.stop_card, display=display, sample=args.sample,
                              mode=args.mode, pictures=pictures, link=link)
        print(summary(report))
        print_scan(report, db, args.mode)
        if args.sample and Path(args.sample).exists():
            print(f"the camera's first frames: {args.sample}")
        return 0 if report.stopped is None and report.misdealt == 0 else 1
    session, runs, run_id, resumed = open_job(db, args.set, options=options, new=args.new,
                                              stop_card=args.stop_card, mode=args.mode)
    if resumed and not args.quiet:
        print(f"resuming dealing job {run_id}: {session.boards_done} of {session.boards_total} "
              "boards already dealt", flush=True)
    camera = make_camera(args.camera, None, getattr(args, "faces", None), getattr(args, "design", None))
    # The person at the machine answers at the terminal, or (a job the panel started) with
    # the panel's Resume.
    operator = ConsoleOperator() if args.job is None else PanelOperator()
    with Machine.open(args.machine) as m:
        rig = Rig(m, camera, session, operator, display=display, idle_timeout=3600,
                  pictures=pictures, link=link)
        report = rig.run()
    if session.state == "finished":
        runs.set_state(run_id, "finished")
    report.scan = getattr(session, "results", {})
    print(summary(report))
    print_scan(report, db, args.mode)
    if report.stopped == ABORTED:
        return 1
    if report.stopped:
        raise RigError(f"stopped: {session.instruction}")
    return 0
