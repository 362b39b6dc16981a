"""``boardwright deals ...``: convert, show and check deal files; import them into the store.

Examples::

    boardwright deals convert club36.pbn club36.dlm
    boardwright deals show club36.dup --board 3
    boardwright deals check club36.lin --strict
    boardwright deals import club36.pbn --event "Monday pairs"
    boardwright deals list
    boardwright deals export 1 monday.pbn

The store is the instance folder's database (``$BOARDWRIGHT_INSTANCE``,
``$BOARDWRIGHT_DATABASE_URL``; see :mod:`dealer.config`).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from dealer import formats
from dealer.board import DealSet
from dealer.board_check import board_faults
from dealer.cli._io import (
    add_unseal,
    check_not_overwriting,
    check_output,
    first_board_arg,
    log_unseal,
    read_set,
    reported_warnings,
    say_unsealed,
    unsealing,
)
from dealer.diagram import board_diagram
from dealer.errors import BoardwrightError
from dealer.formats.sealing import is_sealed
from dealer.progress import Progress


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("deals", help="deal files: convert, show, check, import into the store")
    dsub = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    c = dsub.add_parser("convert", help="convert a deal file to another format")
    c.add_argument("input")
    c.add_argument("output")
    c.add_argument("--format", help="output format (default: from OUT's extension)")
    c.add_argument("--from", dest="from_format", help="input format (default: detected)")
    _first_board_option(c)
    add_unseal(c)
    c.set_defaults(func=cmd_convert)

    s = dsub.add_parser("show", help="show boards as hand diagrams")
    s.add_argument("file")
    s.add_argument("--board", type=int, help="only this board number")
    s.add_argument("--from", "--format", dest="from_format",
                   help="input format (default: detected from the content)")
    _first_board_option(s)
    add_unseal(s, "show")
    s.set_defaults(func=cmd_show)

    k = dsub.add_parser(
        "check", help="validate a deal file and report",
        description="Validate a deal file. Exit status: 0 clean, 1 readable with findings, "
                    "2 unreadable (or, with --strict, any deviation).")
    k.add_argument("file")
    k.add_argument("--strict", action="store_true", help="report every deviation from the standard")
    k.add_argument("--from", "--format", dest="from_format",
                   help="input format (default: detected from the content)")
    _first_board_option(k)
    k.set_defaults(func=cmd_check)

    i = dsub.add_parser("import", help="read a deal file and save it in the store")
    i.add_argument("file")
    i.add_argument("--event", help="event name (default: the file's Event tag)")
    i.add_argument("--name", help="name of the set (default: the file name)")
    i.add_argument("--from", "--format", dest="from_format",
                   help="input format (default: detected from the content)")
    _first_board_option(i)
    i.set_defaults(func=cmd_import)

    ls = dsub.add_parser("list", help="list the deal sets in the store")
    ls.set_defaults(func=cmd_list)

    e = dsub.add_parser("export", help="write a stored deal set to a file")
    e.add_argument("id", type=int, help="the set's id, as `deals list` shows it")
    e.add_argument("output")
    e.add_argument("--format", help="output format (default: from OUT's extension)")
    add_unseal(e)
    e.set_defaults(func=cmd_export)

    d = dsub.add_parser("delete", help="delete a deal set from the store")
    d.add_argument("id", type=int)
    d.set_defaults(func=cmd_delete)

    from dealer.cli import generation  # new, commit, verify, seal, teach, analyse (issue 3)

    generation.register_verbs(dsub)


def _first_board_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--first-board", type=first_board_arg, metavar="N",
                   help="the set's first board, for files that cannot say it (BRI, DGE, and "
                        "DUP from Big Deal, which always says 1)")


def _read(path: str, fmt: str | None, *, strict: bool = False,
          first_board: int | None = None) -> DealSet:
    ds = read_set(path, fmt, strict=strict, first_board=first_board)
    if not ds.boards:
        raise BoardwrightError(f"{path}: the file holds no boards")
    return ds


def cmd_convert(args: argparse.Namespace) -> int:
    check_output(args.output)
    check_not_overwriting((args.input,), (args.output, "converted file"))
    ds = _read(args.input, args.from_format, first_board=args.first_board)
    fmt = formats.write(ds, args.output, format=args.format, unseal=args.unseal)
    print(f"wrote {len(ds)} boards to {args.output} ({fmt.name}){_sealed_note(ds, args)}")
    if unsealing(ds, args.unseal):
        say_unsealed(args.input, args.output)
    return 0


def _sealed_note(ds: DealSet, args: argparse.Namespace) -> str:
    """What the written file says of a sealed set: nothing when the set is not sealed."""
    if not is_sealed(ds):
        return ""
    if args.unseal:
        return ", with the hands of the sealed set (--unseal)"
    return ", sealed: no hands written (--unseal writes them)"


def cmd_show(args: argparse.Namespace) -> int:
    ds = _read(args.file, args.from_format, first_board=args.first_board)
    boards = [ds.board(args.board)] if args.board is not None else list(ds)
    sealed = is_sealed(ds) and not args.unseal
    for i, b in enumerate(boards):
        if i:
            print()
        print(board_diagram(b, sealed=sealed))
    if unsealing(ds, args.unseal):
        print(f"boardwright: unsealed: the hands of sealed set {args.file} were shown (--unseal)",
              file=sys.stderr)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    try:
        data = formats.as_utf8(Path(args.file).read_bytes(), source=args.file)
    except OSError as exc:
        raise BoardwrightError(f"{args.file}: cannot open the file: {exc.strerror}") from None
    detected = args.from_format or formats.detect(data, source=args.file).name
    reading = Progress(f"reading {args.file}", 1, after=0.0)
    reading.update(0)  # on a terminal only: says what the wait is for
    with reported_warnings() as found:
        # The bytes are read once: detection and reading share them.
        ds = formats.loads(data, format=detected, source=args.file, strict=args.strict,
                           first_board=args.first_board)
    reading.update(1)
    reading.close()
    fmt = detected
    warned = [text for kind, text in found if kind == "warning"]
    notes = [text for kind, text in found if kind == "note"]
    if not ds.boards:
        # A file cut inside its header, or one with no games, is not a clean deal file.
        raise BoardwrightError(f"{args.file}: {fmt}: the file holds no boards")
    # One pass over the boards, counting numbers in a dict: linear in the set's size.
    incomplete: list[int] = []
    odd: list[int] = []
    seen: Counter[int] = Counter()
    faults: list[str] = []  # auctions, play and results replayed through the rules
    bar = Progress("checking", len(ds), after=0.0)
    for i, b in enumerate(ds):
        if b.deal is None or not b.deal.is_complete:
            incomplete.append(b.number)
        if not b.standard_markings:
            odd.append(b.number)
        seen[b.number] += 1
        faults += board_faults(b)
        if i % 1024 == 0:
            bar.update(i)
    bar.update(len(ds))
    bar.close()
    repeated = sorted(n for n, k in seen.items() if k > 1)
    print(f"{args.file}: {fmt}, {len(ds)} boards ({ds.describe_range()})"
          + (", sealed" if ds.sealed else ""))
    for line in notes:
        print(f"  note: {line}")
    for line in warned:
        print(f"  warning: {line}")
    if incomplete:
        print(f"  boards without a full deal: {_numbers(incomplete)}")
    if repeated:
        print(f"  board numbers that appear more than once: {_numbers(repeated)}")
    if odd:
        print("  boards whose dealer or vulnerability differ from the standard cycle: "
              f"{_numbers(odd)}")
    for fault in faults:
        print(f"  {args.file}: {fault}")
    if not (warned or incomplete or repeated or faults):
        print("  every board holds a full, valid deal")
        return 0
    if args.strict:
        problems = [f"{len(x)} {what}" for x, what in (
            (incomplete, "boards lack a full deal"), (repeated, "board numbers repeat"),
            (warned, "warnings"), (faults, "faults in auctions, play or results")) if x]
        raise BoardwrightError(f"{args.file}: {'; '.join(problems)}")
    return 1


def _numbers(nums: list[int]) -> str:
    return ", ".join(map(str, nums))


def _store():  # type: ignore[no-untyped-def]
    # Imported here so `deals show` and friends never pay for SQLAlchemy.
    from dealer.store import Store

    return Store.open()


def cmd_import(args: argparse.Namespace) -> int:
    ds = _read(args.file, args.from_format, first_board=args.first_board)
    with _store() as store:
        set_id = store.save(ds, event=args.event, name=args.name or Path(args.file).name,
                            source=str(args.file))
    event = args.event or ds.meta.get("Event") or "(no event)"
    print(f"saved {len(ds)} boards ({ds.describe_range()}) as deal set {set_id}, event {event}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with _store() as store:
        sets = store.list()
    if not sets:
        print("the store holds no deal sets (add one with `boardwright deals import FILE`)")
        return 0
    print(f"{'id':>4}  {'boards':>6}  {'range':<9} {'event':<24} {'date':<10}  name")
    for s in sets:
        rng = f"{s.first}-{s.last}" if s.first is not None else "-"
        name = s.name + (" (sealed)" if s.sealed else "")
        print(f"{s.id:>4}  {s.boards:>6}  {rng:<9} {s.event[:24]:<24} {s.date[:10]:<10}  {name}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    check_output(args.output)
    with _store() as store:
        ds = store.load(args.id)
        fmt = formats.write(ds, args.output, format=args.format, unseal=args.unseal)
        if unsealing(ds, args.unseal):
            # Written first, then logged: a refused write leaves no line behind.
            log_unseal(store, args.id, f"deals export to {args.output} ({fmt.name}) --unseal")
            say_unsealed(f"{args.id}", args.output)
    print(f"wrote deal set {args.id} ({len(ds)} boards) to {args.output} ({fmt.name})"
          f"{_sealed_note(ds, args)}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with _store() as store:
        store.delete(args.id)
    print(f"deleted deal set {args.id}")
    return 0
