"""``boardwright demo``: the main job on embedded defaults.

For now a short tour of the deal core: make a 36-board set, save it in the
store, convert it through every deal-file format that is installed, and show a
board as a diagram. Later issues grow this into the panel with the emulated
dealing machine; :func:`tour` stays a plain function they can call or extend.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     result = tour(Path(d), database_url="sqlite://", say=lambda *a: None)
>>> result.ok, result.boards
(True, 36)
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from dealer.errors import BoardwrightError, FormatNote

# The formats the tour would like to show, in this order; any not installed is skipped.
TOUR_FORMATS = ("pbn", "lin", "dup", "dlm", "bri", "dge")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a guided tour on embedded defaults")
    p.add_argument("--out", help="folder for the demo's files (default: INSTANCE/demo)")
    p.add_argument("--no-deal", action="store_true",
                   help="skip dealing the set on the emulated machine")
    p.add_argument("--no-serve", action="store_true",
                   help="end after the tour instead of starting the panel (for tests)")
    p.set_defaults(func=run)


@dataclass
class TourResult:
    """What the tour did, for callers and tests."""

    boards: int = 0
    set_id: int | None = None
    files: dict[str, Path] = field(default_factory=dict)
    identical: dict[str, bool] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(self.identical.values())


def tour(out: Path, *, database_url: str | None = None,
         say: Callable[..., None] = print) -> TourResult:
    """Run the tour, writing files into ``out`` and the set into the store."""
    from dealer import formats
    from dealer.diagram import board_diagram
    from dealer.generate import random_dealset
    from dealer.store import Store

    result = TourResult()
    out.mkdir(parents=True, exist_ok=True)
    ds = random_dealset(range(1, 37), event="boardwright demo")
    ds.meta["Date"] = date.today().strftime("%Y.%m.%d")
    result.boards = len(ds)
    say("1. Dealt 36 boards with the operating system's random source.")

    with Store.open(database_url) as store:
        result.set_id = store.save(ds, name="demo")
        same = store.load(result.set_id).deals == ds.deals
        where = store.engine.url.render_as_string(hide_password=True)
    if not same:
        result.problems.append("the store gave back different deals")
    say(f"2. Saved them in the store as deal set {result.set_id} ({where}) and read them "
        f"back: {'identical' if same else 'DIFFERENT'}.")

    installed = formats.names()
    say("3. Converted them from format to format, each file read back by content:")
    source = ds  # each format is written from the previous one's read-back: a chain
    for name in TOUR_FORMATS:
        if name not in installed or formats.get(name).dumps is None:
            result.skipped.append(name)
            continue
        target = out / f"demo.{name}"
        try:
            formats.write(source, target, format=name)
            with warnings.catch_warnings():  # "dup files do not say which board comes first"
                warnings.simplefilter("ignore", FormatNote)
                back = formats.read(target)  # detected from the content, not the name
        except BoardwrightError as exc:
            result.problems.append(f"{name}: {exc}")
            say(f"   {name:<4} failed: {exc}")
            continue
        ok = back.deals == ds.deals and back.numbers == ds.numbers
        result.files[name] = target
        result.identical[name] = ok
        source = back
        say(f"   {name:<4} {target}  read back: {'identical' if ok else 'DIFFERENT'}")
    if result.skipped:
        say(f"   (not installed yet: {', '.join(result.skipped)})")

    say("4. Board 1 as a hand diagram:\n")
    say(board_diagram(ds.board(1)))
    say("")
    say("Next: `boardwright deals show FILE`, `boardwright deals list`, `make test`.")
    return result


def run(args: argparse.Namespace) -> int:
    from dealer.config import Settings

    settings = Settings.load()
    out = Path(args.out) if args.out else settings.instance / "demo"
    if out.exists() and not out.is_dir():
        raise BoardwrightError(f"{out}: the demo writes its files into a folder, and this is a "
                               "file; give a folder with --out")
    result = tour(out, database_url=settings.database_url)
    for problem in result.problems:
        print(f"boardwright: demo: {problem}")
    if result.ok and result.set_id is not None and not getattr(args, "no_deal", False):
        if deal_on_emulator(result.set_id, settings.database_url, out) != 0:
            return 1
    if not result.ok or result.set_id is None:
        return 1
    demo_event(result.set_id, settings.database_url)
    if getattr(args, "no_serve", False):
        return 0
    return serve_panel()


def demo_event(set_id: int, database_url: str, say: Callable[..., None] = print) -> int:
    """Step 6: a club event on the demo set, ready to deal and score (9-table Mitchell)."""
    from dealer.store import Store
    from dealer.store import results as rs

    with Store.open(database_url) as store:
        ce = rs.create_club_event(store, "boardwright demo pairs",
                                  date=date.today().strftime("%Y.%m.%d"), tables=9,
                                  boards_per_round=4, deal_set_id=set_id)
    say(f"\n6. Created the club event {ce}: a 9-table Mitchell on the 36 boards, 4 a round.")
    return ce


def serve_panel() -> int:
    """Step 7: start the panel (``boardwright serve``, from the webpanel adapter)."""
    from dealer.cli import main

    # The core never imports an adapter: the panel is reached through its CLI entry point.
    return main(["serve", "--demo"])


def deal_on_emulator(set_id: int, database_url: str, out: Path,
                     say: Callable[..., None] = print) -> int:
    """Step 5: deal the set on the emulated machine (``boardwright deal``, from the rig).

    The camera renders every card at the gate and reads it with the barcode
    recogniser; a jam, a duplicate card and an unreadable card are injected so
    the instructions show. The rig is an adapter module, so it is reached
    through the command line's entry points, never imported by the core.
    """
    from dealer.cli import main

    say("\n5. Dealing the set on the emulated dealing machine (a jam on board 3, a deck with a "
        "duplicate card on board 5, an unreadable card on board 8):")
    return main(["deal", str(set_id), "--machine", "emulator", "--camera", "emulator:variants=1",
                 "--time-scale", "0.02", "--faults", "jam@3,duplicate@5,unreadable@8",
                 "--db", database_url, "--new", "--sample", str(out.parent / "demo-camera.png")])
