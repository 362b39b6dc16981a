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

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from dealer.errors import BoardwrightError
from dealer.store.models import BoardRow
from dealer.store.panel_models import DealingJob
from dealer.store.repository import Store

COMMANDS = ("pause", "resume", "abort")
FINAL = ("done", "aborted")


def create(store: Store, deal_set_id: int, machine: str = "emulator") -> int:
    with store._write() as s:
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
    with store._write() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        if job.state in FINAL:
            raise BoardwrightError(f"dealing job {job_id} is {job.state}")
        job.command = what


def update(store: Store, job_id: int, **values: Any) -> str:
    """Write progress; returns the pending command (and clears it)."""
    with store._write() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        for k, v in values.items():
            setattr(job, k, v)
        job.updated_at = datetime.now(UTC)
        pending, job.command = job.command, ""
        return pending


def status(store: Store, job_id: int) -> dict[str, Any]:
    with store._read() as s:
        job = s.get(DealingJob, job_id)
        if job is None:
            raise BoardwrightError(f"there is no dealing job {job_id}")
        return {"id": job.id, "deal_set_id": job.deal_set_id, "machine": job.machine,
                "state": job.state, "command": job.command, "boards_total": job.boards_total,
                "boards_done": job.boards_done, "cards_done": job.cards_done,
                "current_board": job.current_board, "message": job.message,
                "instruction": job.instruction, "has_image": job.image is not None,
                "updated_at": job.updated_at.isoformat()}


def image(store: Store, job_id: int) -> bytes | None:
    with store._read() as s:
        job = s.get(DealingJob, job_id)
        return None if job is None else job.image


def jobs(store: Store) -> list[dict[str, Any]]:
    with store._read() as s:
        ids = list(s.scalars(select(DealingJob.id).order_by(DealingJob.id.desc()).limit(50)))
    return [status(store, i) for i in ids]


def rig_progress(store: Store, deal_set_id: int, after_run: int = 0) -> dict[str, Any] | None:
    """Progress of the rig's newest dealing run of a set, read from its journal.

    The rig (``boardwright deal``) journals every card it routes and every
    board it finishes (:mod:`dealer.store.journal`); the panel only reads.
    ``None`` until a run newer than ``after_run`` exists.
    """
    from sqlalchemy import func

    from dealer.store.journal import DealingRun, JournalRow

    with store._read() as s:
        run = s.scalars(select(DealingRun).where(DealingRun.deal_set_id == deal_set_id,
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

    with store._read() as s:
        return int(s.scalar(select(func.max(DealingRun.id))) or 0)
