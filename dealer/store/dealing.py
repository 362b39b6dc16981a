"""Dealing jobs in the store: the row that is a job's one status channel.

The panel creates a job (:func:`create`), writes the director's command into
it (:func:`command`) and reads it (:func:`get`, :func:`jobs`, :func:`image`).
The rig holds the job's :class:`StoreJobLink` (a ``dealer.rig_ports.JobLink``):
it publishes the job's status and the camera's picture there, and takes the
pending command from there, which it carries out on the machine with the
protocol's own PAUSE, RESUME and ABORT. Nothing else passes between them: no
output is parsed, no process is signalled. What the page makes of a job (its
JSON, the picture's type) is the panel's business (``webpanel/dealing.py``).

>>> from dealer.store import Store
>>> from dealer.generate import random_dealset
>>> from dealer.rig_ports import JobState, JobStatus
>>> with Store.open("sqlite://") as st:
...     job = create(st, st.save(random_dealset([1, 2])))
...     command(st, job, "pause")
...     link = StoreJobLink(st, job)
...     link.publish(JobStatus(JobState.PAUSED, 2, card="♠A → North"))
...     got = get(st, job)
...     link.command(), link.command(), got.state, got.card, got.command
(<Command.PAUSE: 'pause'>, None, 'paused', '♠A → North', 'pause')
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy import update as sa_update

from dealer.errors import BoardwrightError
from dealer.rig_ports import FINAL, Command, JobState, JobStatus
from dealer.store.models import BoardRow
from dealer.store.panel_models import DealingJob
from dealer.store.repository import Store, possible_id

COMMANDS = tuple(c.value for c in Command)
#: The largest camera picture kept (the rig sends ~320 px wide JPEGs of 10-30 kB).
MAX_IMAGE = 512 * 1024


@dataclass(frozen=True)
class JobRecord:
    """A job's row as it stands (without the picture's bytes)."""

    id: int
    deal_set_id: int
    machine: str
    state: str
    command: str
    boards_total: int
    boards_done: int
    cards_done: int
    current_board: int | None
    card: str
    message: str
    instruction: str
    image_crc: int | None  # CRC-32 of the picture: changes when a new one arrives
    updated_at: datetime


def _record(job: DealingJob) -> JobRecord:
    return JobRecord(job.id, job.deal_set_id, job.machine, job.state, job.command,
                     job.boards_total, job.boards_done, job.cards_done, job.current_board,
                     job.card or "", job.message, job.instruction,
                     None if job.image is None else zlib.crc32(job.image), job.updated_at)


def create(store: Store, deal_set_id: int, machine: str = "emulator") -> int:
    with store.write() as s:
        n = len(s.scalars(select(BoardRow.id).where(BoardRow.deal_set_id == deal_set_id)).all())
        if not n:
            raise BoardwrightError(f"deal set {deal_set_id} has no boards to deal")
        job = DealingJob(deal_set_id=deal_set_id, machine=machine[:200], boards_total=n)
        s.add(job)
        s.flush()
        return job.id


def command(store: Store, job_id: int, what: str) -> None:
    """The director's command for the rig to take (pause, resume or abort)."""
    if what not in COMMANDS:
        raise BoardwrightError(f"unknown command {what!r} (pause, resume or abort)")
    if not possible_id(job_id):
        raise BoardwrightError(f"there is no dealing job {job_id}")
    with store.write() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        if job.state in FINAL:
            raise BoardwrightError(f"dealing job {job_id} is {job.state}")
        job.command = what


def get(store: Store, job_id: int) -> JobRecord:
    if not possible_id(job_id):
        raise BoardwrightError(f"there is no dealing job {job_id}")
    with store.read() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        return _record(job)


def set_of(store: Store, job_id: int) -> int | None:
    """The deal set a job deals; ``None`` for no such job."""
    if not possible_id(job_id):
        return None
    with store.read() as s:
        job = s.get(DealingJob, job_id)
        return None if job is None else job.deal_set_id


def ended(store: Store, job_id: int, message: str) -> bool:
    """The rig's process is gone: a job it left queued or running becomes an error.

    A job the rig finished, aborted or marked as failed is left alone. True if
    the row was changed.
    """
    with store.write() as s:
        done = s.execute(sa_update(DealingJob).where(
            DealingJob.id == job_id,
            DealingJob.state.in_([str(JobState.QUEUED), str(JobState.RUNNING),
                                  str(JobState.PAUSED)]))
            .values(state=str(JobState.ERROR), message=message[:300],
                    instruction="dealing the set again resumes from its journal",
                    updated_at=datetime.now(UTC)))
        return bool(done.rowcount)  # type: ignore[attr-defined]


def jobs(store: Store) -> list[JobRecord]:
    """The newest 50 jobs, newest first."""
    with store.read() as s:
        rows = s.scalars(select(DealingJob).order_by(DealingJob.id.desc()).limit(50))
        return [_record(j) for j in rows]


def image(store: Store, job_id: int) -> bytes | None:
    """The camera's latest picture of a job (the bytes the rig sent), ``None`` if none yet."""
    if not possible_id(job_id):
        return None
    with store.read() as s:
        job = s.get(DealingJob, job_id)
        return None if job is None else job.image


def set_image(store: Store, job_id: int, data: bytes) -> None:
    """Keep ``data`` (at most :data:`MAX_IMAGE` bytes) as the job's picture.

    It writes the one column only, so it never takes a pending command. The
    encoding happens in the rig; the store keeps bytes.

    >>> from dealer.store import Store
    >>> from dealer.generate import random_dealset
    >>> with Store.open("sqlite://") as st:
    ...     job = create(st, st.save(random_dealset([1])))
    ...     set_image(st, job, b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8))
    ...     get(st, job).image_crc is not None, len(image(st, job))
    (True, 16)
    """
    if len(data) > MAX_IMAGE:
        raise BoardwrightError(f"a camera picture of {len(data)} bytes is too big "
                               f"(at most {MAX_IMAGE})")
    with store.write() as s:
        done = s.execute(sa_update(DealingJob).where(DealingJob.id == job_id)
                         .values(image=data))
        if not done.rowcount:  # type: ignore[attr-defined]
            raise BoardwrightError(f"there is no dealing job {job_id}")


class StoreJobLink:
    """The :class:`~dealer.rig_ports.JobLink` of job ``job_id``: its row in the store."""

    def __init__(self, store: Store, job_id: int) -> None:
        get(store, job_id)  # no such job: say so before dealing starts
        self.store = store
        self.job_id = job_id

    def publish(self, status: JobStatus) -> None:
        with self.store.write() as s:
            s.execute(sa_update(DealingJob).where(DealingJob.id == self.job_id).values(
                state=str(status.state), boards_total=status.boards_total,
                boards_done=status.boards_done, cards_done=status.cards_done,
                current_board=status.current_board, card=status.card[:40],
                message=status.message[:300], instruction=status.instruction[:300],
                updated_at=datetime.now(UTC)))

    def command(self) -> Command | None:
        # Polled a few times a second: a read, and a write only when there is a command.
        with self.store.read() as s:
            pending = s.scalar(select(DealingJob.command).where(DealingJob.id == self.job_id))
        if not pending:
            return None
        with self.store.write() as s:  # taken once, even if the panel writes meanwhile
            taken = s.execute(sa_update(DealingJob).where(DealingJob.id == self.job_id,
                                                          DealingJob.command == pending)
                              .values(command=""))
            if not taken.rowcount:  # type: ignore[attr-defined]
                return None  # replaced by a newer command: the next poll takes that one
        return Command(pending) if pending in COMMANDS else None

    def picture(self, data: bytes) -> None:
        set_image(self.store, self.job_id, data)

    def fail(self, message: str) -> None:
        """The rig could not go on: say why, keeping the progress published so far."""
        with self.store.write() as s:
            s.execute(sa_update(DealingJob).where(DealingJob.id == self.job_id).values(
                state=str(JobState.ERROR), message=message[:300],
                instruction="see the rig's log; dealing the set again resumes from its journal",
                updated_at=datetime.now(UTC)))
