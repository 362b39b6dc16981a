"""CLI verbs for making, proving, sealing and analysing deal sets.

``boardwright deals new|recreate|commit|generate|verify|seal|unseal|teach|analyse``
and the nouns ``boardwright records`` and ``boardwright curtains``.

A set made by ``deals new`` or ``deals teach`` comes with a *secret record*
(``SET.secret.json``): the 256-bit secret and what was asked, so that
``deals recreate`` or ``deals unseal`` can rebuild the very same hands. Keep
it private until the set has been played.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from dealer import formats
from dealer.board import Board, DealSet
from dealer.cli._io import (
    add_unseal,
    check_not_overwriting,
    check_output,
    check_outputs,
    read_json_text,
    read_set,
    say_unsealed,
    unsealing,
    write_text,
)
from dealer.commit import (
    PublicFile,
    Session,
    VerifyError,
    format_boards,
    generate,
    make_commitment,
    parse_boards,
    verify,
)
from dealer.errors import BoardwrightError
from dealer.formats.sealing import SEALED_TAG, UNSEAL_HINT, SealedError, is_sealed, policy
from dealer.generate import (
    GENERATOR_NAME,
    default_registry,
    keyed_dealset,
    new_secret,
    secret_fingerprint,
)

RECORD_SCHEME = "boardwright-set-v1"


def register_verbs(dsub: argparse._SubParsersAction) -> None:
    """Add the generation verbs to the ``deals`` noun."""
    n = dsub.add_parser("new", help="deal a new secure set (OS randomness, recorded secret)")
    n.add_argument("--boards", required=True, help="board numbers, e.g. 1-36")
    n.add_argument("--copies", type=int, default=1, help="copies of each board to deal (recorded)")
    n.add_argument("--seal", action="store_true", help="store the set sealed: no hands shown")
    n.add_argument("--event", default="", help="event name")
    n.add_argument("-o", "--output", required=True)
    n.add_argument("--format", help="output format (default: from the extension)")
    add_unseal(n)
    n.set_defaults(func=cmd_new)

    r = dsub.add_parser("recreate", help="re-make a set from its secret record")
    r.add_argument("record", help="the SET.secret.json written with the set")
    r.add_argument("-o", "--output", required=True)
    r.add_argument("--format")
    add_unseal(r)
    r.set_defaults(func=cmd_recreate)

    c = dsub.add_parser("commit", help="publish a SquareDeal-style commitment before the event")
    c.add_argument("--event", required=True)
    c.add_argument("--session", action="append", required=True, metavar="NAME:BOARDS",
                   help="a session and its boards, e.g. 1:1-24 (repeatable)")
    c.add_argument("--public-value", required=True, metavar="DESCRIPTION",
                   help="the public value to come, e.g. 'DJI close on 2026-12-01'")
    c.add_argument("-o", "--output", required=True, help="the public JSON file")
    c.add_argument("--secret-out", help="where to write the secret (default: OUTPUT.secret)")
    c.set_defaults(func=cmd_commit)

    g = dsub.add_parser("generate", help="derive a committed session once the public value is known")
    g.add_argument("public")
    g.add_argument("--secret", required=True, help="the secret, or a file holding it")
    g.add_argument("--public-value", required=True)
    g.add_argument("--session", required=True)
    g.add_argument("-o", "--output", required=True)
    g.add_argument("--format")
    g.set_defaults(func=cmd_generate)

    v = dsub.add_parser("verify", help="check a deal file against a commitment")
    v.add_argument("public")
    v.add_argument("--secret", required=True, help="the revealed secret, or a file holding it")
    v.add_argument("--public-value", required=True)
    v.add_argument("--session", help="session name (default: the one whose boards match)")
    v.add_argument("dealfile")
    v.set_defaults(func=cmd_verify)

    s = dsub.add_parser("seal", help="hide a set's hands until it is unsealed")
    s.add_argument("set")
    s.add_argument("--record", help="its secret record (default: SET.secret.json)")
    s.add_argument("-o", "--output", help="default: overwrite SET")
    s.add_argument("--unseal", action="store_true",
                   help="DLM/DUP only: keep the hands in the file for the dealing machine, "
                        "under its own seal (Status=Sealed, blind DUP)")
    s.set_defaults(func=cmd_seal)

    u = dsub.add_parser("unseal", help="show a sealed set's hands again")
    u.add_argument("set")
    u.add_argument("--record", help="its secret record (default: SET.secret.json)")
    u.add_argument("-o", "--output", help="default: overwrite SET")
    u.set_defaults(func=cmd_unseal)

    t = dsub.add_parser("teach", help="deal a teaching set that meets constraints")
    t.add_argument("constraints", nargs="?", help="e.g. 'north: 15-17 hcp, balanced' or "
                   "'hcp(north) >= 15 and shape(north, any 4333 + any 4432)'")
    t.add_argument("--file", metavar="SCRIPT",
                   help="a script of Hans van Staveren's dealer (condition, predeal, produce, "
                        "dealer, vulnerable ...), run as it is")
    t.add_argument("--boards", help="board numbers (default with --file: 1 to the script's "
                                    "produce)")
    t.add_argument("--predeal", default="", help="cards fixed to seats, e.g. 'N:AK.. W=SQ,HQ'")
    t.add_argument("--max-seconds", type=float, default=60.0)
    t.add_argument("--event", default="")
    t.add_argument("-o", "--output", required=True)
    t.add_argument("--format")
    t.set_defaults(func=cmd_teach)

    a = dsub.add_parser("analyse", aliases=["analyze"], help="add double-dummy tables and par")
    a.add_argument("set")
    a.add_argument("-o", "--output", required=True)
    a.add_argument("--no-cache", action="store_true", help="solve without the instance cache")
    add_unseal(a)
    a.set_defaults(func=cmd_analyse)


# --------------------------------------------------------------------------- helpers
def _record_path(set_path: str, record: str | None) -> Path:
    return Path(record) if record else Path(set_path + ".secret.json")


def _write_record(path: Path, secret: bytes, **what: object) -> None:
    data = {"scheme": RECORD_SCHEME, "secret": secret.hex(),
            "fingerprint": secret_fingerprint(secret), "generator": GENERATOR_NAME,
            "created": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), **what}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    path.chmod(0o600)  # the secret recreates every hand


def _read_record(path: Path) -> dict:
    text = read_json_text(path, "secret record", "no secret record there (it is written beside "
                          "the set as SET.secret.json)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardwrightError(f"{path}, line {exc.lineno}: not a secret record ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("scheme") != RECORD_SCHEME or "secret" not in data:
        raise BoardwrightError(f"{path}: not a boardwright secret record")
    # The fields the record is rebuilt from, checked here so that a damaged record is named.
    for key in ("secret", "boards"):
        if not isinstance(data.get(key), str):
            raise BoardwrightError(f"{path}, field {key}: missing or not text; "
                                   "the secret record is damaged")
    try:
        if not bytes.fromhex(data["secret"]):
            raise ValueError
    except ValueError:
        raise BoardwrightError(f"{path}, field secret: not hexadecimal digits; "
                               "the secret record is damaged") from None
    try:
        parse_boards(data["boards"])
    except BoardwrightError as exc:
        raise BoardwrightError(f"{path}, field boards: {exc}") from None
    return data


def _build_from_record(data: dict) -> DealSet:
    secret = bytes.fromhex(data["secret"])
    numbers = parse_boards(data["boards"])
    if data.get("constraints") or data.get("script"):
        from dealer.constraints import Constraints, find_deals, parse_predeal

        dealer = vul = None
        if data.get("script"):
            script, c = _script_constraints(data["script"], data.get("script_name", "script"))
            c.predeal.update(parse_predeal(data.get("predeal", "")))
            dealer, vul = script.dealer, script.vulnerable
        else:
            c = Constraints.parse(data["constraints"],
                                  predeal=parse_predeal(data.get("predeal", "")))
        deals = find_deals(c, len(numbers), key=secret, max_seconds=float("inf"), progress=True)
        ds = DealSet([Board(n, d, dealer, vul) for n, d in zip(numbers, deals, strict=True)],
                     meta={"Generator": GENERATOR_NAME})
        if data.get("event"):
            ds.meta["Event"] = data["event"]
        return ds
    return keyed_dealset(secret, numbers, event=data.get("event", ""))


def _fmt_name(path: str, explicit: str | None) -> str:
    return formats.get(explicit or Path(path).suffix).name


def _write_set(ds: DealSet, path: str, fmt: str | None, *, unseal: bool = False,
               source: str = "") -> str:
    """Write ``ds``: a sealed set's hands only with ``unseal`` (dealer.formats.sealing).

    PBN gets a sealed set without its hands (the secret record restores them on
    unseal); DLM and DUP, which must hold them, are refused unless ``unseal``.
    """
    name = _fmt_name(path, fmt)
    formats.write(ds, path, format=name, unseal=unseal)
    if unsealing(ds, unseal):
        say_unsealed(source or path, path)
    return name


def _check_sealed_writable(sealed: bool, name: str, unseal: bool, path: str) -> None:
    """Refuse, before a secret is drawn, to write a sealed set where it would need --unseal."""
    if sealed and not unseal and policy(name) != "withhold":
        raise SealedError(f"{UNSEAL_HINT} ({name} files cannot hold a sealed set without its "
                          "hands; write PBN, or give --unseal)", path=path)


def _secret_arg(text: str) -> str:
    p = Path(text)
    if len(text) != 64 and p.is_file():
        try:
            return p.read_text(encoding="utf-8").strip()
        except UnicodeDecodeError:
            raise BoardwrightError(f"{text}: not a secret file (it is not text; the secret is "
                                   "64 hexadecimal digits, as written by 'deals commit')") from None
        except OSError as exc:
            raise BoardwrightError(f"{text}: cannot read the secret: {exc.strerror}") from None
    return text


# --------------------------------------------------------------------------- verbs
def cmd_new(args: argparse.Namespace) -> int:
    numbers = parse_boards(args.boards)
    if args.copies < 1:
        raise BoardwrightError("--copies must be 1 or more")
    # Every check before the secret is drawn: a failure after it would waste a claimed secret.
    _check_sealed_writable(args.seal, _fmt_name(args.output, args.format), args.unseal,
                           args.output)
    check_outputs((args.output, "set"), (_record_path(args.output, None), "secret record"))
    secret = new_secret()
    default_registry().claim(secret, f"new {args.output}")
    ds = keyed_dealset(secret, numbers, event=args.event)
    ds.meta["Copies"] = str(args.copies)
    ds.sealed = args.seal
    record = _record_path(args.output, None)
    _write_record(record, secret, boards=format_boards(numbers), event=args.event,
                  copies=args.copies, output=args.output, sealed=args.seal)
    name = _write_set(ds, args.output, args.format, unseal=args.unseal,
                      source=f"(boards {format_boards(numbers)})")
    print(f"wrote {len(ds)} boards ({format_boards(numbers)}) to {args.output} ({name})"
          + (", sealed" if args.seal else "")
          + (f", {args.copies} copies of each board" if args.copies > 1 else ""))
    print(f"secret record: {record} (keep it private; it recreates every hand)")
    return 0


def cmd_recreate(args: argparse.Namespace) -> int:
    check_output(args.output)
    data = _read_record(Path(args.record))
    # A set made sealed comes back sealed: recreating is not a way round the seal.
    _check_sealed_writable(bool(data.get("sealed")), _fmt_name(args.output, args.format),
                           args.unseal, args.output)
    ds = _build_from_record(data)
    ds.sealed = bool(data.get("sealed"))
    name = _write_set(ds, args.output, args.format, unseal=args.unseal, source=args.record)
    print(f"recreated {len(ds)} boards into {args.output} ({name})"
          + (", sealed" if ds.sealed and not args.unseal else ""))
    return 0


def cmd_commit(args: argparse.Namespace) -> int:
    sessions = []
    for spec in args.session:
        name, sep, boards = spec.partition(":")
        if not sep or not name.strip():
            raise BoardwrightError(f"--session {spec!r} must look like NAME:BOARDS, e.g. 1:1-24")
        sessions.append(Session(name.strip(), parse_boards(boards)))
    secret_out = Path(args.secret_out or args.output + ".secret")
    check_outputs((args.output, "public file"), (secret_out, "secret file"))
    pub, secret_hex = make_commitment(args.event, sessions, args.public_value,
                                      registry=default_registry())
    secret_out.write_text(secret_hex + "\n")
    secret_out.chmod(0o600)
    Path(args.output).write_text(pub.to_json())
    print(f"public file: {args.output} (publish it now)")
    print(f"secret: {secret_out} (keep it private until after the event)")
    print(f"commitment SHA-256: {pub.commitment}")
    return 0


def _load_public(path: str) -> PublicFile:
    return PublicFile.from_json(read_json_text(path, "public file", "no such public file"), source=path)


def cmd_generate(args: argparse.Namespace) -> int:
    check_output(args.output)
    pub = _load_public(args.public)
    ds = generate(pub, _secret_arg(args.secret), args.public_value, args.session)
    name = _write_set(ds, args.output, args.format)
    print(f"wrote session {args.session}: {len(ds)} boards ({ds.describe_range()}) "
          f"to {args.output} ({name})")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    pub = _load_public(args.public)
    ds = read_set(args.dealfile)
    try:
        report = verify(pub, _secret_arg(args.secret), args.public_value, ds,
                        session_name=args.session, source=args.dealfile)
    except VerifyError as exc:
        raise VerifyError(f"{args.dealfile}: {exc}") from None
    print(f"OK: {report.message}")
    return 0


def cmd_seal(args: argparse.Namespace) -> int:
    check_output(args.output)
    ds = read_set(args.set)
    record = _record_path(args.set, args.record)
    data = _read_record(record)
    # Refuse to strip hands that the record could not bring back.
    again = _build_from_record(data)
    for b in ds:
        if b.deal is not None and (b.number not in again.numbers or again.board(b.number).deal != b.deal):
            raise BoardwrightError(f"{args.set}, board {b.number}: the hands do not follow from "
                                   f"{record}; sealing would lose them")
    ds.sealed = True
    out = args.output or args.set
    # --unseal here only lets a DLM/DUP keep its hands under the machine's seal: the
    # written file is still sealed, so no line says the hands went out.
    formats.write(ds, out, unseal=args.unseal and policy(_fmt_name(out, None)) == "machine")
    print(f"sealed {len(ds)} boards in {out}; 'boardwright deals unseal' shows them again")
    return 0


def cmd_unseal(args: argparse.Namespace) -> int:
    check_output(args.output)
    ds = read_set(args.set)
    data = _read_record(_record_path(args.set, args.record))
    again = _build_from_record(data)
    for b in ds:
        if b.number not in again.numbers:
            raise BoardwrightError(f"{args.set}, board {b.number} is not in the secret record's "
                                   f"boards ({data['boards']})")
        b.deal = again.board(b.number).deal
        b.tags.pop(SEALED_TAG, None)
    ds.sealed = False
    out = args.output or args.set
    _write_set(ds, out, None)
    print(f"unsealed {len(ds)} boards into {out}")
    print(f"boardwright: unsealed: the hands of sealed set {args.set} were written to {out} "
          "(deals unseal)", file=sys.stderr)
    return 0


def _script_constraints(text: str, source: str):  # type: ignore[no-untyped-def]
    from dealer.constraints import Constraints
    from dealer.dealer_script import parse_script

    script = parse_script(text, source=source)
    return script, Constraints(expr=script.mask, predeal=dict(script.predeal),
                               text=f"the condition of {source}")


def cmd_teach(args: argparse.Namespace) -> int:
    from dealer.constraints import Constraints, iter_owner_columns, parse_predeal
    from dealer.generate import deal_from_owner_column

    if (args.constraints is None) == (args.file is None):
        raise BoardwrightError("give the constraints or --file SCRIPT (one of the two)")
    script = None
    if args.file:
        try:
            script_text = Path(args.file).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise BoardwrightError(f"{args.file}: cannot open the script: {exc.strerror}") from None
        script, c = _script_constraints(script_text, args.file)
        if args.predeal:
            c.predeal.update(parse_predeal(args.predeal))
        boards = args.boards or (f"1-{script.produce}" if script.produce else None)
        if boards is None:
            raise BoardwrightError(f"{args.file} has no 'produce' line; give --boards")
    else:
        c = Constraints.parse(args.constraints, predeal=parse_predeal(args.predeal))
        boards = args.boards
        if boards is None:
            raise BoardwrightError("give --boards, e.g. --boards 1-24")
    numbers = parse_boards(boards)
    name = _fmt_name(args.output, args.format)
    check_outputs((args.output, "set"), (_record_path(args.output, None), "secret record"))
    if script and (script.dealer or script.vulnerable) and name in ("dup", "dlm", "bri", "dge"):
        raise BoardwrightError(
            f"{args.file} sets the dealer or vulnerability of every board, and {name} files "
            "give each board those of the standard cycle; write PBN or LIN instead")
    c.check_possible()  # before the secret: an impossible request uses none up
    secret = new_secret()
    default_registry().claim(secret, f"teach {args.output}")
    meta = {"Generator": GENERATOR_NAME, **({"Event": args.event} if args.event else {})}
    dealer = script.dealer if script else None
    vul = script.vulnerable if script else None
    record = _record_path(args.output, None)
    _write_record(record, secret, boards=format_boards(numbers), event=args.event,
                  constraints=args.constraints or "", predeal=args.predeal,
                  **({"script": script_text, "script_name": args.file} if script else {}),
                  output=args.output)
    chunks = iter_owner_columns(c, len(numbers), key=secret, max_seconds=args.max_seconds)
    if name == "pbn":
        # Streamed: each batch is written as it is dealt, so 200,000 boards fit in little memory.
        from dealer.formats.pbn_stream import write_pbn_stream

        try:
            count = write_pbn_stream(args.output, chunks, numbers, meta, dealer=dealer,
                                     vulnerability=vul)
        except BaseException:
            Path(args.output).unlink(missing_ok=True)  # never leave half a set behind
            raise
    else:
        cols = [deal_from_owner_column(ch, i) for ch in chunks for i in range(ch.shape[1])]
        ds = DealSet([Board(n, d, dealer, vul) for n, d in zip(numbers, cols, strict=True)],
                     meta=meta)
        _write_set(ds, args.output, args.format)
        count = len(ds)
    print(f"wrote {count} teaching boards to {args.output} ({name}); secret record: {record}")
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from dealer.dd import analyse, default_cache, pbn_tags

    check_output(args.output)
    ds = read_set(args.set)
    if is_sealed(ds) and not args.unseal:
        raise SealedError(f"{UNSEAL_HINT} (or unseal it before analysing)", path=args.set)
    boards = [b for b in ds if b.deal is not None and b.deal.is_complete]
    if not boards:
        raise BoardwrightError(f"{args.set}: no board has a full deal to analyse")
    cache = None if args.no_cache else default_cache()
    results = analyse(boards, cache=cache, progress=True)
    for b, (table, par) in zip(boards, results, strict=True):
        tags, sections = pbn_tags(table, par)
        b.tags.update(tags)
        b.sections.update(sections)
    formats.write(ds, args.output, unseal=args.unseal)
    print(f"analysed {len(boards)} boards into {args.output}")
    if unsealing(ds, args.unseal):
        say_unsealed(args.set, args.output)
    return 0


# --------------------------------------------------------------------------- nouns
def _read_for_print(path: str, unseal: bool) -> tuple[DealSet, bool]:
    """The set to print, and whether it was sealed; a sealed one only with ``--unseal``
    (then as an unsealed copy, which the printers accept)."""
    ds = read_set(path)
    if not ds.boards:
        raise BoardwrightError(f"{path}: the file holds no boards; nothing to print")
    if is_sealed(ds):
        if not unseal:
            raise SealedError(UNSEAL_HINT, path=path)
        if not any(b.deal is not None for b in ds):
            raise BoardwrightError(f"{path} is sealed and holds no hands to print; "
                                   "'boardwright deals unseal' restores them from the record")
        ds = DealSet([Board(b.number, b.deal, b.dealer, b.vulnerability,
                            {k: v for k, v in b.tags.items() if k != SEALED_TAG}, b.sections)
                      for b in ds], dict(ds.meta), sealed=False)
        return ds, True
    return ds, False


def register_records(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("records", help="hand records PDF (and HTML) with double-dummy and par")
    p.add_argument("set")
    p.add_argument("-o", "--output", required=True, help="PDF file")
    p.add_argument("--html", help="also write the HTML fragment here")
    p.add_argument("--club", default="")
    p.add_argument("--event", default=None)
    p.add_argument("--date", default=None)
    p.add_argument("--paper", choices=("a4", "letter"), default="a4")
    p.add_argument("--no-dd", action="store_true", help="leave out the double-dummy grid and par")
    add_unseal(p)
    p.set_defaults(func=cmd_records)


def cmd_records(args: argparse.Namespace) -> int:
    from dealer.records import records_html, records_pdf

    check_outputs((args.output, "PDF"), (args.html, "HTML file"))
    check_not_overwriting((args.set,), (args.output, "PDF"), (args.html, "HTML file"))
    ds, sealed = _read_for_print(args.set, args.unseal)
    meta = {"club": args.club, "event": args.event or ds.meta.get("Event", ""),
            "date": args.date or ds.meta.get("Date", "")}
    analysis = None
    if not args.no_dd:
        from dealer.dd import analyse, default_cache

        full = [b for b in ds if b.deal is not None and b.deal.is_complete]
        analysis = dict(zip([b.number for b in full],
                            analyse(full, cache=default_cache(), progress=True), strict=True))
    pages = records_pdf(ds, args.output, analysis=analysis, paper=args.paper, **meta)
    print(f"wrote {len(ds)} boards on {pages} pages to {args.output}")
    if sealed:
        say_unsealed(args.set, args.output)
    if args.html:
        write_text(args.html, records_html(ds, analysis=analysis, **meta))
        print(f"wrote the HTML fragment to {args.html}")
        if sealed:
            say_unsealed(args.set, args.html)
    return 0


def register_curtains(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("curtains", help="curtain cards (and deal sheets) as PDF")
    p.add_argument("set")
    p.add_argument("-o", "--output", required=True, help="curtain cards PDF")
    p.add_argument("--sheets", help="also write deal sheets PDF here")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4")
    add_unseal(p)
    p.set_defaults(func=cmd_curtains)


def cmd_curtains(args: argparse.Namespace) -> int:
    from dealer.curtains import curtain_cards_pdf, deal_sheets_pdf

    check_outputs((args.output, "PDF"), (args.sheets, "deal sheets PDF"))
    check_not_overwriting((args.set,), (args.output, "curtain cards PDF"),
                          (args.sheets, "deal sheets PDF"))
    ds, sealed = _read_for_print(args.set, args.unseal)
    pages = curtain_cards_pdf(ds, args.output, paper=args.paper)
    print(f"wrote {4 * len(ds)} curtain cards on {pages} pages to {args.output}")
    if sealed:
        say_unsealed(args.set, args.output)
    if args.sheets:
        pages = deal_sheets_pdf(ds, args.sheets, paper=args.paper)
        print(f"wrote deal sheets on {pages} pages to {args.sheets}")
        if sealed:
            say_unsealed(args.set, args.sheets)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """The nouns this module adds: ``records`` and ``curtains``."""
    register_records(sub)
    register_curtains(sub)
