"""``boardwright deals ...``: convert, show and check deal files."""

from __future__ import annotations

import argparse
import warnings

from dealer import formats
from dealer.diagram import board_diagram
from dealer.errors import BoardwrightError, FormatWarning


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("deals", help="deal files: convert, show, check")
    dsub = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    c = dsub.add_parser("convert", help="convert a deal file to another format")
    c.add_argument("input")
    c.add_argument("output")
    c.add_argument("--format", help="output format (default: from OUT's extension)")
    c.add_argument("--from", dest="from_format", help="input format (default: detected)")
    c.set_defaults(func=cmd_convert)

    s = dsub.add_parser("show", help="show boards as diagrams")
    s.add_argument("file")
    s.add_argument("--board", type=int, help="only this board number")
    s.add_argument("--from", dest="from_format", help="input format (default: detected)")
    s.set_defaults(func=cmd_show)

    k = dsub.add_parser("check", help="validate a deal file and report")
    k.add_argument("file")
    k.add_argument("--strict", action="store_true", help="report every deviation from the standard")
    k.add_argument("--from", dest="from_format", help="input format (default: detected)")
    k.set_defaults(func=cmd_check)


def cmd_convert(args: argparse.Namespace) -> int:
    ds = formats.read(args.input, format=args.from_format)
    fmt = formats.write(ds, args.output, format=args.format)
    print(f"wrote {len(ds)} boards to {args.output} ({fmt.name})")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    ds = formats.read(args.file, format=args.from_format)
    boards = [ds.board(args.board)] if args.board else list(ds)
    for i, b in enumerate(boards):
        if i:
            print()
        print(board_diagram(b, sealed=ds.sealed))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FormatWarning)
        data_fmt = None
        try:
            with open(args.file, "rb") as fh:
                data_fmt = formats.detect(fh.read(), source=args.file).name
        except OSError:
            pass
        ds = formats.read(args.file, format=args.from_format, strict=args.strict)
    fmt = args.from_format or data_fmt
    incomplete = [b.number for b in ds if b.deal is None or not b.deal.is_complete]
    odd = [b.number for b in ds if not b.standard_markings]
    print(f"{args.file}: {fmt}, {len(ds)} boards ({ds.describe_range()})"
          + (", sealed" if ds.sealed else ""))
    for w in caught:
        print(f"  warning: {w.message}")
    if incomplete:
        print(f"  boards without a full deal: {', '.join(map(str, incomplete))}")
    if odd:
        print(f"  boards whose dealer or vulnerability differ from the standard cycle: "
              f"{', '.join(map(str, odd))}")
    if not caught and not incomplete:
        print("  every board holds a full, valid deal")
    if incomplete and args.strict:
        raise BoardwrightError(f"{args.file}: {len(incomplete)} boards lack a full deal")
    return 0
