"""``boardwright members ...``: the club's member list in the store.

Examples::

    boardwright members import members.csv
    boardwright members import acbl-roster.csv --scheme ACBL
    boardwright members list
    boardwright members list smith

``import`` reads a CSV with a header (``Name`` or ``First name`` + ``Last
name``/``Surname``; ``EBU``/``ACBL``/``NBB``/``Member number``; ``Email``),
takes every good line and names each refused one (line and column) on
stderr; it exits 1 when a line was refused, 0 otherwise. The store is the
instance folder's database, as for ``boardwright deals``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dealer.errors import BoardwrightError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("members", help="the club's member list: import a CSV, list, search")
    msub = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    i = msub.add_parser("import", help="add or update members from a CSV file")
    i.add_argument("file")
    i.add_argument("--scheme", default="",
                   help="the national body of numbers in a plain 'Member number' column "
                        "(EBU, ACBL, NBB ...)")
    i.add_argument("--dry-run", action="store_true",
                   help="read and check the file, change nothing")
    i.set_defaults(func=cmd_import)
    ls = msub.add_parser("list", help="list the members (those matching QUERY)")
    ls.add_argument("query", nargs="?", default="")
    ls.set_defaults(func=cmd_list)


def _store():  # type: ignore[no-untyped-def]
    from dealer.store import Store  # only when the store is used: SQLAlchemy is slow to load

    return Store.open()


def cmd_import(args: argparse.Namespace) -> int:
    from dealer.players import read_members_csv
    from dealer.store import audit
    from dealer.store import players as ps

    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BoardwrightError(f"{args.file}: {exc.strerror or exc}") from None
    try:
        got = read_members_csv(data, scheme=args.scheme)
    except ValueError as exc:  # PlayerError: the file as a whole is not a member list
        raise BoardwrightError(f"{args.file}: {exc}") from None
    for p in got.problems:
        print(f"boardwright: {args.file}: {p}", file=sys.stderr)
    used = ", ".join(f"{role}={col!r}" for role, col in got.columns.items())
    print(f"{args.file}: read as {got.encoding}; columns {used}"
          + (f"; ignored {', '.join(got.ignored)}" if got.ignored else ""))
    if args.dry_run:
        print(f"{len(got.members)} members to import, {len(got.problems)} lines refused "
              "(dry run: nothing changed)")
        return 1 if got.problems else 0
    with _store() as store:
        report = ps.import_members(store, got.members)
        for said in report.problems:  # none in practice: the reader checked every line
            print(f"boardwright: {args.file}: {said}", file=sys.stderr)
        refused = len(got.problems) + len(report.problems)
        report.problems += [str(p) for p in got.problems]
        audit.record(store, who=audit.cli_user(), action="import-members",
                     subject="member list", detail=f"{path.name}: {report.summary()}")
    print(report.summary())
    return 1 if refused else 0


def cmd_list(args: argparse.Namespace) -> int:
    from dealer.store import players as ps

    with _store() as store:
        found = ps.members(store, args.query)
    if not found:
        print("no member matches" if args.query else
              "the member list is empty (add it with `boardwright members import FILE`)")
        return 0
    for m in found:
        print("\t".join((m.name, m.national_id, m.email)).rstrip())
    return 0
