"""Finding or starting the job the rig carries out: a dealing run, or a scan.

Pure Python (the store, the session, the plan): :func:`open_job` loads the
set (a stored id or a deal file, saved once), finds an unfinished dealing run
of it and restores its session from the journal, or starts a new run;
:func:`default_hands` is what the simulated players hand back in the scan
modes. Moved here from ``rig.py``, which re-exports them.

>>> from dealer.board import Board, DealSet
>>> set_copies(DealSet([], meta={"Copies": "3"}))
3
"""

from __future__ import annotations

import argparse
import contextlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer.board import Board, DealSet
from dealer.cards import Card
from dealer.cli._io import time_scale_arg
from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.play import Play
from dealer.rig_report import RigError
from dealer.seats import Seat
from dealer.session import DealingSession
from dealer.session_plan import Plan
from dealer.session_scan import ScanSession
from dealer.store import Store, dealing, make_engine
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
    found = None if new else runs.open_run(set_id)
    resumed = found is not None
    if found is not None:
        run_id = found
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


def job_link(stack: contextlib.ExitStack, db_url: str, job_id: int | None, spec: str,
             machine: str) -> dealing.StoreJobLink:
    """The job's row in the store: the panel's job ``job_id``, else a new job for ``spec``.

    Every ``boardwright deal`` is a job on the panel's Dealing page (the demo's
    too), which the director may pause, resume or abort from there.
    """
    store = stack.enter_context(Store.open(db_url))
    if job_id is None:
        set_id, _ = load_set(store, spec)
        job_id = dealing.create(store, set_id, machine=machine)
    return dealing.StoreJobLink(store, job_id)


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
            return [list(deal.hand(Seat(seat)).cards) for seat in range(4)]
        p = Play(contract, deal)
        while not p.is_complete:
            p.play(rng.choice(p.legal_cards()))
        return [p.played_by(seat) for seat in range(4)]  # type: ignore[arg-type]

    return hands


# ============================================================================ command line
#: What the camera's sample can be written as (OpenCV picks the writer by the suffix).
SAMPLE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm")


def sample_path(text: str) -> str:
    """``--sample``: written after the dealing, so a name no picture can have is refused first."""
    if Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: that is a folder; give a file name such "
                                         "as sample.png")
    if Path(text).suffix.lower() not in SAMPLE_SUFFIXES:
        raise argparse.ArgumentTypeError(f"{text}: the camera's sample is a picture: give a "
                                         f"name ending in {', '.join(SAMPLE_SUFFIXES)}")
    return text


def add_deal_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``boardwright deal`` (the command itself is the rig's)."""
    p.add_argument("set", metavar="SET", help="stored deal set id, or a deal file (PBN, DUP, ...)")
    p.add_argument("--machine", required=True,
                   help="pyserial URL (/dev/ttyACM0, socket://host:port) or 'emulator'")
    p.add_argument("--camera", default="emulator",
                   help="'emulator[:design=qr]', 'truth', 'dir:PATH', or a camera source")
    p.add_argument("--design", metavar="DESIGN",
                   help="a real camera: read the cards' corner index against this design, learned "
                   "with 'vision learn' (its name or .npz file), not barcodes")
    p.add_argument("--faces", metavar="LAYOUT",
                   help="a real camera: where the deck's codes lie, so that two cards stuck together "
                   "are refused: 'printed' (print-deck --faces) or a layout learned with "
                   "'vision learn-codes' (its name or .json file)")
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
    p.add_argument("--time-scale", type=time_scale_arg, default=1.0, help="emulator only: 0.1 = 10x faster")
    p.add_argument("--sample", type=sample_path,
                   help="emulator camera only: save the first frames it saw as PNG")
    p.add_argument("--job", type=int, default=None,
                   help="the panel's dealing job: show the camera's latest picture there")
    p.add_argument("--quiet", action="store_true")


def deal_options(args: argparse.Namespace) -> dict[str, Any]:
    first = last = None
    if args.boards:
        a, _, b = args.boards.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            raise RigError(f"--boards {args.boards!r}: write a range like 1-16")
        first, last = int(a), int(b or a)
    return {"copies": args.copies, "first": first, "last": last,
            "descending": args.descending, "auto_number": args.auto_number}


def print_scan(r: Any, db: str, mode: str) -> None:
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
