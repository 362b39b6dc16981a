"""The seams of a dealing job: small Protocols the rig is built from.

In the spirit of python-can's ``BusABC`` (one small interface, many
back-ends), the rig (``rig.py``) talks to each of its counterparts through
one Protocol declared here, in the core, in plain Python types:

* :class:`Camera` — what was seen at the gate (``vision.rig_sources``: the
  emulator's cameras, a folder of frames, a live camera);
* :class:`Operator` — the person at the machine (``firmware_bridge.operator``:
  a console, or the simulated volunteer at the emulator);
* :class:`~dealer.session.Journal` — where each decision is made durable
  (``dealer.store.journal.SqlJournal``; re-exported here);
* :class:`JobLink` — **the one status channel of a job**: the rig publishes
  the job's :class:`JobStatus` (progress, the notice and what to do, the
  current card) and the camera's latest picture, and takes the director's
  :class:`Command` (pause, resume, abort). ``dealer.store.dealing.StoreJobLink``
  is the job's row in the store, which the panel reads and writes;
  :class:`NoLink` is a run nobody watches (tests, benches).

The machine itself is not behind a Protocol here: it *is* one, the serial
protocol of docs/protocol.md, and the rig carries out a command with that
protocol's own requests (PAUSE, RESUME, ABORT).

>>> JobState("paused") is JobState.PAUSED, str(Command.ABORT)
(True, 'abort')
>>> job_status(JobState.RUNNING, None, boards_total=2).boards_total
2
>>> NoLink().command() is None
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from dealer import session_notices as say
from dealer.rig_report import ROUTINE
from dealer.session import GateKey, Journal, Sighting
from dealer.session_notices import Notice

__all__ = ["Camera", "Command", "FINAL", "Host", "JobChannel", "JobLink", "JobState",
           "JobStatus", "Journal", "NoLink", "Operator", "job_status"]


class Command(StrEnum):
    """What the director asks of a running job (the stored values of ``dealing_jobs.command``)."""

    PAUSE = "pause"
    RESUME = "resume"
    ABORT = "abort"


class JobState(StrEnum):
    """Where a job stands (the stored values of ``dealing_jobs.state``, unchanged)."""

    QUEUED = "queued"    # created by the panel; the rig has not started yet
    RUNNING = "running"
    PAUSED = "paused"    # the director paused it: the machine was sent PAUSE
    ERROR = "error"      # waiting for the operator (a stop notice), or the rig failed
    DONE = "done"
    ABORTED = "aborted"


#: States a job never leaves.
FINAL = frozenset({JobState.DONE, JobState.ABORTED})


@dataclass(frozen=True)
class JobStatus:
    """One snapshot of a job, as the rig publishes it. Texts fit the store's columns."""

    state: JobState
    boards_total: int = 0
    boards_done: int = 0
    cards_done: int = 0
    current_board: int | None = None
    card: str = ""         # the last card at the gate and where it went: "♠A → North"
    message: str = ""      # the notice to show ("" when all is well)
    instruction: str = ""  # what to do about it


def job_status(state: JobState, notice: Notice | None, *, boards_total: int,
               boards_done: int = 0, cards_done: int = 0, current_board: int | None = None,
               card: str = "") -> JobStatus:
    """A :class:`JobStatus`, with the notice's message and instruction cut to fit."""
    return JobStatus(state, boards_total, boards_done, cards_done, current_board, card[:40],
                     notice.message[:300] if notice else "",
                     notice.instruction[:300] if notice else "")


class Camera(Protocol):
    """The camera at the gate: what it saw of the card ``key`` (boot id, gate id)."""

    def look(self, key: GateKey) -> Sighting: ...


class Host(Protocol):
    """What an operator sees of the running rig."""

    @property
    def session(self) -> Any: ...  # the DealingSession or ScanSession being run

    def continue_machine(self) -> None: ...

    def hold_for_operator(self) -> None: ...  # keep the machine still until the panel's Resume


class Operator(Protocol):
    """The person at the machine: told every notice, called between events."""

    def handle(self, notice: Notice, rig: Host) -> None: ...

    def after_drop(self, rig: Host) -> None: ...

    def tick(self, rig: Host) -> None: ...

    def idle(self, rig: Host) -> bool: ...  # nothing happens: act; True if it did


class JobLink(Protocol):
    """The status channel of one dealing job, between the rig and whoever watches it."""

    def publish(self, status: JobStatus) -> None:
        """Say where the job stands now (the latest status replaces the one before)."""

    def command(self) -> Command | None:
        """The director's pending command, taken (the next call returns ``None``)."""

    def picture(self, data: bytes) -> None:
        """Keep the camera's latest picture (JPEG or PNG bytes) for the job."""


class NoLink:
    """A job nobody watches: publishes nowhere, never commanded."""

    def publish(self, status: JobStatus) -> None:
        pass

    def command(self) -> Command | None:
        return None

    def picture(self, data: bytes) -> None:
        pass


class JobChannel:
    """The rig's end of a job's :class:`JobLink`: what to publish, when, and the commands.

    Pure bookkeeping, so it is tested without a machine: the director's
    pause, the operator's pending stop, the card last seen, and a throttle
    (a status goes out when it changed, at most every :attr:`POLL` seconds,
    and at least every :attr:`BEAT` seconds so a watcher can tell a live rig).

    >>> from dealer.session import DealingSession, MemoryJournal
    >>> from dealer.session_plan import Plan
    >>> from dealer.generate import random_dealset
    >>> session = DealingSession(Plan.build(random_dealset([1, 2])), MemoryJournal())
    >>> ch = JobChannel(NoLink())
    >>> ch.paused = True
    >>> ch.status(session).state, ch.status(session).boards_total
    (<JobState.PAUSED: 'paused'>, 2)
    """

    POLL = 0.2
    BEAT = 1.0

    def __init__(self, link: JobLink | None = None) -> None:
        self.link: JobLink = link if link is not None else NoLink()
        self.watched = not isinstance(self.link, NoLink)
        self.paused = False   # the director's PAUSE: nothing continues the machine but RESUME
        self.waiting = False  # an operator who answers on the panel has a stop to deal with
        self.aborted = False
        self.card = ""        # the last card at the gate and where it went
        self._next_poll = 0.0
        self._published: tuple[JobStatus, float] | None = None

    @property
    def holding(self) -> bool:
        """The machine must stay still (paused by the director, or waiting for the operator)."""
        return self.paused or self.waiting

    def status(self, session: Any) -> JobStatus:
        """Where the job stands now (``session``: a DealingSession or ScanSession)."""
        s = session
        if s.state == "finished":
            state = JobState.DONE
        elif s.state == "stopped":
            state = JobState.ABORTED if self.aborted else JobState.ERROR
        elif self.paused:
            state = JobState.PAUSED
        elif self.waiting:
            state = JobState.ERROR
        else:
            state = JobState.RUNNING
        notice = say.paused() if state is JobState.PAUSED else s.instruction
        if notice is not None and not notice.stop and notice.code in ROUTINE:
            notice = None  # routine steps are progress, not news
        which, _ = s.progress()
        current = int(which[1:]) if which.startswith("#") and which[1:].isdigit() else None
        return job_status(state, notice, boards_total=s.boards_total, boards_done=s.boards_done,
                          cards_done=s.cards_placed, current_board=current, card=self.card)

    def publish(self, session: Any, *, force: bool = False) -> None:
        if not self.watched:
            return  # nobody watches (benches): not even the cost of building a status
        now = time.monotonic()
        st = self.status(session)
        if self._published is not None and not force:
            last, at = self._published
            if now - at < (self.BEAT if st == last else self.POLL):
                return
        self._published = (st, now)
        self.link.publish(st)

    def poll(self) -> Command | None:
        """The director's pending command, looked for at most every :attr:`POLL` seconds."""
        now = time.monotonic()
        if not self.watched or now < self._next_poll:
            return None
        self._next_poll = now + self.POLL
        return self.link.command()
