"""Finding or starting the job the rig carries out: a dealing run, or a scan.

Pure Python (the store, the session, the plan): :func:`open_job` loads the
set (a stored id or a deal file, saved once), finds an unfinished dealing run
of it and restores its session from the journal, or starts a new run;
:func:`default_hands` is what the simulated players hand back in the scan
modes. Moved here from ``rig.py``, which re-exports them.

>>> from dealer.board import DealSet
>>> set_copies(DealSet([], meta={"Copies": "3"}))
3
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer.board import DealSet
from dealer.cards import Card
from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.play import Play
from dealer.rig_report import RigError
from dealer.session import DealingSession
from dealer.session_plan import Plan
from dealer.session_scan import ScanSession
from dealer.store import Store, make_engine
from dealer.store.journal import JournalStore


def load_set(store: Store, spec: str) -> tuple[int, DealSet]:
    """A stored set id, or a deal file (saved once; the same file finds the same set)."""
    if spec.isdigit():
        return int(spec), store.load(int(spec))
    from dealer import formats

    path = Path(spec).resolve()
    ds = formats.read(path)
    for saved in store.list():
        if saved.source == str(path) and store.load(saved.id).deals == ds.deals:
            return saved.id, ds
    return store.save(ds, name=path.stem, source=str(path)), ds


def set_copies(ds: DealSet) -> int:
    """Copies of each board the set asks for (``meta["Copies"]`` from PBN or DUP), else 1."""
    text = ds.meta.get("Copies")
    if text is None:
        return 1
    if not text.strip().isdigit() or int(text) < 1:
        raise RigError(f"the set's Copies {text!r} is not a number of copies; give --copies")
    return int(text)


def contracts_of(ds: DealSet) -> dict[int, Contract]:
    """Each board's contract from its PBN ``Contract`` and ``Declarer`` tags, where readable."""
    out = {}
    for b in ds:
        text = b.tags.get("Contract")
        if text:
            try:
                out[b.number] = Contract.parse(text, b.tags.get("Declarer") or None)
            except BoardwrightError:
                continue
    return out


def open_job(db_url: str, spec: str, *, options: dict[str, Any], new: bool = False,
             stop_card: bool = False, mode: str = "deal") -> tuple[Any, JournalStore, int, bool]:
    """Find or start the dealing run for ``spec``; restore it from its journal if open.

    Scan modes (verify, record, play) always start a new run.
    """
    with Store.open(db_url) as store:
        set_id, ds = load_set(store, spec)
    if options.get("copies") is None:  # no --copies: what `deals new --copies` recorded
        options = {**options, "copies": set_copies(ds)}
    runs = JournalStore(make_engine(db_url))  # its own engine: a short lock wait
    if mode != "deal":
        run_id = runs.create_run(set_id, mode, options)
        lo, hi = options.get("first"), options.get("last")
        numbers = [n for n in ds.numbers if (lo is None or n >= lo) and (hi is None or n <= hi)]
        scan = ScanSession(mode, runs.journal(run_id), ds, contracts=contracts_of(ds),
                           numbers=numbers)
        return scan, runs, run_id, False
    run_id = None if new else runs.open_run(set_id)
    resumed = run_id is not None
    if run_id is not None:
        options = {**runs.run_options(run_id)}
    else:
        run_id = runs.create_run(set_id, "deal", options)
    plan = Plan.build(ds, copies=int(options.get("copies", 1)), first=options.get("first"),
                      last=options.get("last"), descending=bool(options.get("descending")),
                      auto_number=bool(options.get("auto_number")))
    journal = runs.journal(run_id)
    if resumed:
        session = DealingSession.restore(plan, runs.entries(run_id), journal, stop_card=stop_card)
    else:
        session = DealingSession(plan, journal, stop_card=stop_card)
    return session, runs, run_id, resumed


def default_hands(session: ScanSession, seed: int) -> Callable[[int], list[list[Card]]]:
    """What the simulated players hand back: the dealt hands, or (play) a legal play's order."""
    rng = random.Random(seed)
    record = session.record

    def hands(number: int) -> list[list[Card]]:
        deal = record.board(number).deal if record is not None else None
        if deal is None:
            raise RigError(f"board {number} has no deal to hand back")
        contract = session.contracts.get(number)
        if session.mode != "play" or contract is None:
            return [list(deal.hand(seat).cards) for seat in range(4)]
        p = Play(contract, deal)
        while not p.is_complete:
            p.play(rng.choice(p.legal_cards()))
        return [p.played_by(seat) for seat in range(4)]  # type: ignore[arg-type]

    return hands
