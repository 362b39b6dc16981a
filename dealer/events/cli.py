"""``boardwright movement ...`` and ``boardwright vp``: movements and victory points.

Examples::

    boardwright movement mitchell 7 --arrow-switch 7
    boardwright movement mitchell 8 --method relay --asc eight.asc
    boardwright movement howell 4 --boards-per-round 3
    boardwright movement check club.asc --boards-per-round 3
    boardwright vp 15 --boards 24 --scale seed24
    boardwright event check results.csv --movement club.asc
    boardwright event score results.csv --movement club.asc [--card 3]

``movement check`` and ``event check`` exit 0 when all is sound and 1 with
the problems. ``event score`` refuses results the checks flag (exit 1)
unless ``--accept-flagged`` is given: nothing doubtful is scored silently.
The results CSV is described in :mod:`dealer.events.travellers`.
"""

from __future__ import annotations

import argparse

from dealer.cli._io import check_output, positive_int
from dealer.events import asc, travellers
from dealer.events.matchpoints import MatchpointEvent
from dealer.events.model import EventError, PairKey
from dealer.events.movements import Movement, howell, mitchell
from dealer.events.rankings import format_score_card
from dealer.events.score import score_event
from dealer.events.validation import check_results
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
        c.add_argument("--boards-per-round", type=positive_int, default=2)
        c.set_defaults(func=func)

    e = sub.add_parser("event", help="check and score an event's results (CSV)")
    esub = e.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, helptext, func in (("check", "flag doubtful results", cmd_event_check),
                                 ("score", "score and rank the event", cmd_event_score)):
        c = esub.add_parser(verb, help=helptext)
        c.add_argument("file")
        c.add_argument("--movement", metavar="ASC", help="the movement, to check tables/rounds")
        c.add_argument("--boards-per-round", type=positive_int, default=2)
        if verb == "score":
            c.add_argument("--scale", default="wbf", choices=["wbf", "acbl"])
            c.add_argument("--numbering", default="unique", choices=["unique", "by_line"])
            c.add_argument("--imps", choices=["butler", "cross"],
                           help="score at IMPs (Butler or cross-IMPs) instead of matchpoints")
            c.add_argument("--card", type=int, metavar="PAIR", help="print this pair's card")
            c.add_argument("--accept-flagged", action="store_true",
                           help="score even when the checks flag results")
        c.set_defaults(func=func)

    v = sub.add_parser("vp", help="convert an IMP margin to victory points")
    v.add_argument("margin", type=int)
    v.add_argument("--boards", type=int, required=True)
    v.add_argument("--scale", default="wbf", help="wbf (default), seed24 or acbl")
    v.set_defaults(func=cmd_vp)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boards-per-round", type=positive_int, default=2)
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
    check_output(args.asc, ".ASC file")
    m = mitchell(args.tables, rounds=args.rounds, boards_per_round=args.boards_per_round,
                 method=args.method, arrow_switch=_rounds(args.arrow_switch),
                 ew_offset=args.ew_offset, section=args.section)
    return _emit(m, args.asc)


def cmd_howell(args: argparse.Namespace) -> int:
    check_output(args.asc, ".ASC file")
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


def _event_inputs(args: argparse.Namespace):
    results = travellers.load(args.file)
    movement = (asc.load(args.movement, boards_per_round=args.boards_per_round)
                if args.movement else None)
    return results, movement, check_results(results, movement)


def cmd_event_check(args: argparse.Namespace) -> int:
    results, _, flags = _event_inputs(args)
    for f in flags:
        print(f"{args.file}: {f}")
    if not flags:
        print(f"{args.file}: {len(results)} results, nothing flagged")
    return 1 if flags else 0


def cmd_event_score(args: argparse.Namespace) -> int:
    results, movement, flags = _event_inputs(args)
    if flags:
        for f in flags:
            print(f"{args.file}: {f}")
        if not args.accept_flagged:
            print(f"{len(flags)} result(s) flagged: not scored (use --accept-flagged to score "
                  "them as written)")
            return 1
    scored = score_event(results, method=args.imps or "matchpoints", movement=movement,
                         numbering=args.numbering, scale=args.scale)
    if scored.problem:
        raise EventError(scored.problem)
    if args.imps:
        print(f"{args.imps} IMPs, total per pair:")
        for p, s in zip(scored.placings[""], scored.rankings[""], strict=True):
            print(f"{p.place:>4}  {p.key!s:<8} {p.score:8.2f} IMPs  {s.boards} boards")
        return 0
    event = scored.event
    assert isinstance(event, MatchpointEvent)
    for line, placings in scored.placings.items():
        print(f"{line + ' ' if line else ''}ranking:")
        for p in placings:
            t = event.totals[p.key]
            print(f"{p.place:>4}  {p.key!s:<8} {t.percent:6.2f}%  {t.mp:g} of {t.top:g}")
    if args.card is not None:
        key = PairKey(results[0].section if results else "A", "", args.card)
        if args.numbering == "by_line":
            raise EventError("--card needs unique pair numbers (--numbering unique)")
        print()
        print(format_score_card(event, key))
    return 0
