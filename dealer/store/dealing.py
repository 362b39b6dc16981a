"""Dealing jobs as the panel sees them: created by the director, advanced by a runner.

The runner is the rig (``rig.py``) or the panel's emulated machine; it reads
the pending command (pause, resume, abort) and writes progress here, so the
panel's status page only ever reads the store and any number of browsers can
watch.

>>> from dealer.store import Store
>>> from dealer.generate import random_dealset
>>> with Store.open("sqlite://") as st:
...     job = create(st, st.save(random_dealset([1, 2])))
...     command(st, job, "pause")
...     status(st, job)["command"]
'pause'
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy import update as sa_update

from dealer.errors import BoardwrightError
from dealer.store.models import BoardRow
from dealer.store.panel_models import DealingJob
from dealer.store.repository import Store

COMMANDS = ("pause", "resume", "abort")
FINAL = ("done", "aborted")
#: The largest camera picture kept (the rig sends ~320 px wide JPEGs of 10-30 kB).
MAX_IMAGE = 512 * 1024
_SIGNATURES = {b"\xff\xd8\xff": "image/jpeg", b"\x89PNG\r\n\x1a\n": "image/png"}


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
    if what not in COMMANDS:
        raise BoardwrightError(f"unknown command {what!r} (pause, resume or abort)")
    with store.write() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        if job.state in FINAL:
            raise BoardwrightError(f"dealing job {job_id} is {job.state}")
        job.command = what


def update(store: Store, job_id: int, **values: Any) -> str:
    """Write progress; returns the pending command (and clears it)."""
    with store.write() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        for k, v in values.items():
            setattr(job, k, v)
        job.updated_at = datetime.now(UTC)
        pending, job.command = job.command, ""
        return pending


def status(store: Store, job_id: int) -> dict[str, Any]:
    with store.read() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        return {"id": job.id, "deal_set_id": job.deal_set_id, "machine": job.machine,
                "state": job.state, "command": job.command, "boards_total": job.boards_total,
                "boards_done": job.boards_done, "cards_done": job.cards_done,
                "current_board": job.current_board, "message": job.message,
                "instruction": job.instruction, "has_image": job.image is not None,
                # Changes when a new picture arrives: the page reloads the picture then only.
                "image_version": None if job.image is None else f"{zlib.crc32(job.image):08x}",
                "updated_at": job.updated_at.isoformat()}


def image(store: Store, job_id: int) -> bytes | None:
    """The camera's latest picture of a job (PNG or JPEG bytes), ``None`` if none yet."""
    with store.read() as s:
        job = s.get(DealingJob, job_id)
        return None if job is None else job.image


def image_type(data: bytes) -> str:
    """The MIME type of a stored picture, from its signature.

    >>> image_type(b"\\xff\\xd8\\xff\\xe0...") , image_type(b"\\x89PNG\\r\\n\\x1a\\n...")
    ('image/jpeg', 'image/png')
    """
    for sig, mime in _SIGNATURES.items():
        if data.startswith(sig):
            return mime
    raise BoardwrightError("a camera picture must be PNG or JPEG")


def set_image(store: Store, job_id: int, data: bytes) -> None:
    """Keep ``data`` (PNG or JPEG, at most :data:`MAX_IMAGE` bytes) as the job's picture.

    The rig calls this from its picture thread, a couple of times a second;
    it writes the one column only, so it never takes a pending command from
    the runner (as :func:`update` does). The encoding happens in the rig: the
    store only keeps bytes.

    >>> from dealer.store import Store
    >>> from dealer.generate import random_dealset
    >>> with Store.open("sqlite://") as st:
    ...     job = create(st, st.save(random_dealset([1])))
    ...     set_image(st, job, b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8))
    ...     status(st, job)["has_image"], len(image(st, job))
    (True, 16)
    """
    image_type(data)
    if len(data) > MAX_IMAGE:
        raise BoardwrightError(f"a camera picture of {len(data)} bytes is too big "
                               f"(at most {MAX_IMAGE})")
    with store.write() as s:
        done = s.execute(sa_update(DealingJob).where(DealingJob.id == job_id)
                         .values(image=data))
        if not done.rowcount:  # type: ignore[attr-defined]
            raise BoardwrightError(f"there is no dealing job {job_id}")


def jobs(store: Store) -> list[dict[str, Any]]:
    with store.read() as s:
        ids = list(s.scalars(select(DealingJob.id).order_by(DealingJob.id.desc()).limit(50)))
    return [status(store, i) for i in ids]


def rig_progress(store: Store, deal_set_id: int, after_run: int = 0,
                 mode: str = "deal") -> dict[str, Any] | None:
    """Progress of the rig's newest run of a set in ``mode``, read from its journal.

    The rig (``boardwright deal``) journals every card it routes and every
    board it finishes (:mod:`dealer.store.journal`); the panel only reads.
    Only runs of ``mode`` count (``deal``, or a scan mode: ``verify``,
    ``record``, ``play``): a verification of the same set started meanwhile
    is a run of its own and must not pass for the dealing's progress.
    ``None`` until a run of that mode newer than ``after_run`` exists.
    """
    from sqlalchemy import func

    from dealer.store.journal import DealingRun, JournalRow

    with store.read() as s:
        run = s.scalars(select(DealingRun).where(DealingRun.deal_set_id == deal_set_id,
                                                 DealingRun.mode == mode,
                                                 DealingRun.id > after_run)
                        .order_by(DealingRun.id.desc()).limit(1)).first()
        if run is None:
            return None
        counts = dict(s.execute(
            select(JournalRow.kind, func.count()).where(
                JournalRow.run_id == run.id,
                (JournalRow.kind != "drop") | JournalRow.pocket.is_not(None))
            .group_by(JournalRow.kind)).all())
        slot = s.scalars(select(JournalRow.slot).where(
            JournalRow.run_id == run.id, JournalRow.kind == "board")
            .order_by(JournalRow.id.desc()).limit(1)).first()
        return {"run_id": run.id, "state": run.state, "boards_done": counts.get("done", 0),
                "cards_done": counts.get("drop", 0),
                "current_slot": None if slot is None else int(slot)}


def newest_run(store: Store) -> int:
    """The id of the newest rig run (0 if none), to tell a new run from old ones."""
    from sqlalchemy import func

    from dealer.store.journal import DealingRun

    with store.read() as s:
        return int(s.scalar(select(func.max(DealingRun.id))) or 0)
