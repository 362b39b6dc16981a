"""``boardwright demo``: the main job on embedded defaults.

For now a short tour: make a deal set, convert it between formats, show a board.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a guided tour on embedded defaults")
    p.add_argument("--out", default="instance/demo", help="folder for the demo's files")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer import formats
    from dealer.diagram import board_diagram
    from dealer.generate import random_dealset

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ds = random_dealset(range(1, 37), event="boardwright demo")
    pbn = out / "demo.pbn"
    formats.write(ds, pbn)
    print(f"1. Made 36 boards: {pbn}")
    for name in ("dup", "dlm", "lin", "bri", "dge"):
        target = out / f"demo.{name}"
        formats.write(formats.read(pbn), target)
        back = formats.read(target)
        same = [b.deal for b in back] == [b.deal for b in ds]
        print(f"2. Converted to {target} and read it back: {'identical' if same else 'DIFFERENT'}")
    print("3. Board 1:\n")
    print(board_diagram(formats.read(out / "demo.dup").board(1)))
    return 0
