"""``boardwright movement ...`` and ``boardwright vp``: movements and victory points.

Examples::

    boardwright movement mitchell 7 --arrow-switch 7
    boardwright movement mitchell 8 --method relay --asc eight.asc
    boardwright movement howell 4 --boards-per-round 3
    boardwright movement check club.asc --boards-per-round 3
    boardwright vp 15 --boards 24 --scale seed24

``movement check`` exits 0 when the movement is sound and 1 with its problems.
"""

from __future__ import annotations

import argparse

from dealer.events import asc
from dealer.events.model import EventError
from dealer.events.movements import Movement, howell, mitchell
from dealer.events.vp import scale_named


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("movement", help="Mitchell and Howell movements, .ASC files")
    msub = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    m = msub.add_parser("mitchell", help="make a Mitchell movement")
    m.add_argument("tables", type=int)
    m.add_argument("--rounds", type=int)
    m.add_argument("--method", default="auto", choices=["auto", "plain", "skip", "relay"])
    m.add_argument("--arrow-switch", default="", help="rounds to switch, e.g. 6,7")
    m.add_argument("--ew-offset", type=int)
    _common(m)
    m.set_defaults(func=cmd_mitchell)

    h = msub.add_parser("howell", help="make a complete Howell movement")
    h.add_argument("tables", type=int)
    _common(h)
    h.set_defaults(func=cmd_howell)

    for verb, helptext, func in (("show", "show an .ASC movement round by round", cmd_show),
                                 ("check", "check an .ASC movement", cmd_check)):
        c = msub.add_parser(verb, help=helptext)
        c.add_argument("file")
        c.add_argument("--boards-per-round", type=int, default=2)
        c.set_defaults(func=func)

    v = sub.add_parser("vp", help="convert an IMP margin to victory points")
    v.add_argument("margin", type=int)
    v.add_argument("--boards", type=int, required=True)
    v.add_argument("--scale", default="wbf", help="wbf (default), seed24 or acbl")
    v.set_defaults(func=cmd_vp)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boards-per-round", type=int, default=2)
    p.add_argument("--section", default="A")
    p.add_argument("--asc", metavar="OUT", help="write the movement as an .ASC file")


def _rounds(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x]
    except ValueError:
        raise EventError(f"--arrow-switch wants round numbers like 6,7, not {text!r}") from None


def _emit(m: Movement, out: str | None) -> int:
    if out:
        asc.dump(m, out)
        print(f"wrote {out}: {m.name}, {m.tables} tables, {m.rounds} rounds, {m.boards} boards")
        return 0
    print(render(m))
    return 0


def render(m: Movement) -> str:
    """The movement as text: one line per round, ``NS-EW:boards`` per table."""
    rows = [f"{m.name}: {m.tables} tables, {m.rounds} rounds, {m.boards} boards, "
            f"{m.winners} winner{'s' if m.winners > 1 else ''}"]
    rows += [f"  note: {n}" for n in m.notes]
    for r in range(1, m.rounds + 1):
        cells = []
        for s in m.round(r):
            b = f"{s.boards[0]}-{s.boards[-1]}" if len(s.boards) > 1 else str(s.boards[0])
            cells.append(f"T{s.table} {s.ns}-{s.ew}:{b}{'*' if s.switched else ''}")
        rows.append(f"R{r:<2} " + "  ".join(cells))
    if any(s.switched for s in m.sittings):
        rows.append("  * arrow switch: boards turned, so the line's EW pair (listed first) sits NS")
    return "\n".join(rows)


def cmd_mitchell(args: argparse.Namespace) -> int:
    m = mitchell(args.tables, rounds=args.rounds, boards_per_round=args.boards_per_round,
                 method=args.method, arrow_switch=_rounds(args.arrow_switch),
                 ew_offset=args.ew_offset, section=args.section)
    return _emit(m, args.asc)


def cmd_howell(args: argparse.Namespace) -> int:
    return _emit(howell(args.tables, boards_per_round=args.boards_per_round,
                        section=args.section), args.asc)


def cmd_show(args: argparse.Namespace) -> int:
    print(render(asc.load(args.file, boards_per_round=args.boards_per_round)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    m = asc.load(args.file, boards_per_round=args.boards_per_round)
    problems = m.problems()
    for p in problems:
        print(f"{args.file}: {p}")
    if not problems:
        print(f"{args.file}: sound ({m.tables} tables, {m.rounds} rounds, {len(m.pairs())} "
              "pairs)")
    return 1 if problems else 0


def cmd_vp(args: argparse.Namespace) -> int:
    a, b = scale_named(args.scale).convert(args.margin, args.boards)
    print(f"{args.margin:+d} IMPs over {args.boards} boards ({args.scale}): {a:g} - {b:g}")
    return 0
