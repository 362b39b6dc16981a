"""Reading a club's member list from CSV, whatever its header calls the columns.

Clubs export their lists from many programs, so the header is read loosely:
``Name`` (or ``First name`` and ``Last name``/``Surname``, with a Dutch
``Tussenvoegsel`` between them), a national number in a column named for its
body (``EBU``, ``ACBL #``, ``NBB nummer``) or a plain ``Member number``
(whose body the caller gives, or a ``Scheme`` column), and ``Email``.
Columns it does not know are listed as ignored, never guessed at.

The bytes may be UTF-8 (with or without the BOM Excel writes), UTF-16 (with
its BOM), or Windows-1252/Latin-1 (older Excel and club programs); commas,
semicolons or tabs separate the cells. A line that cannot be taken gets a
problem naming the line and the column (as the header calls it), and every
other line is still read.

>>> data = "Surname;First name;EBU;Email\\nSmith;Ann;12345;ann@example.org\\n;Bob;;\\n"
>>> got = read_members_csv(data.encode("utf-8-sig"))
>>> [(m.name, m.scheme, m.number, m.email, m.line) for m in got.members]
[('Ann Smith', 'EBU', '12345', 'ann@example.org', 2)]
>>> [str(p) for p in got.problems]
['line 3: Surname: empty (a name is needed)']
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass, field

from dealer.csv_rows import rows as csv_rows
from dealer.players.names import (
    SCHEMES,
    MemberIn,
    PlayerError,
    check_email,
    check_name,
    check_number,
    check_scheme,
    search_key,
)

#: Header words for each column, compared after :func:`_header_key`.
NAME_HEADERS = {"name", "full name", "fullname", "player", "player name", "member",
                "member name", "naam", "volledige naam", "nom complet", "spieler"}
FIRST_HEADERS = {"first name", "firstname", "first", "forename", "forenames", "given name",
                 "christian name", "voornaam", "roepnaam", "prenom", "vorname"}
LAST_HEADERS = {"last name", "lastname", "last", "surname", "family name", "achternaam",
                "nom", "nom de famille", "nachname"}
INFIX_HEADERS = {"tussenvoegsel", "tussenvoegsels", "infix", "name prefix"}
EMAIL_HEADERS = {"email", "e mail", "email address", "e mail address", "mail", "emailadres",
                 "e mailadres", "courriel"}
SCHEME_HEADERS = {"scheme", "national body", "body", "federation", "nbo", "bond"}
# A number whose body is said by the scheme column or by the caller.
NUMBER_HEADERS = {"member number", "membership number", "member no", "membership no",
                  "member id", "membership id", "national number", "national id",
                  "national id number", "number", "no", "player number", "player id",
                  "lidnummer", "licence", "license", "licence number", "license number",
                  "numero de licence", "mitgliedsnummer"}
# A number whose body is in the header itself: "EBU", "EBU number", "ACBL #", "NBB nummer".
_BODY_SUFFIXES = ("", " number", " no", " num", " nr", " id", " nummer", " lidnummer",
                  " membership number", " member number", " player number", " licence")
BODY_HEADERS = {f"{s.lower()}{suffix}": s for s in SCHEMES for suffix in _BODY_SUFFIXES}
BODY_HEADERS["bondsnummer"] = "NBB"

#: Lines of one file read at most (a member list of a very large club is a few thousand).
MAX_LINES = 50_000


@dataclass(frozen=True)
class ImportProblem:
    """A line not taken: its number in the file, its column (as the header says), why."""

    line: int
    column: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f": {self.column}" if self.column else "")
        return f"{where}: {self.message}"


@dataclass
class MemberCsv:
    """What a member CSV held: the members, the problems, and how it was read."""

    members: list[MemberIn] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    encoding: str = "utf-8"
    columns: dict[str, str] = field(default_factory=dict)  # role -> the header's word
    ignored: list[str] = field(default_factory=list)


def decode(data: bytes) -> tuple[str, str]:
    """The text of ``data`` and the encoding it was read in (UTF-8 first, then the BOMs,
    then Windows-1252, whose printable characters are Latin-1's and Excel's)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8):].decode("utf-8", errors="replace"), "utf-8 (BOM)"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace"), "utf-16"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:  # the five bytes Windows-1252 leaves undefined
        return data.decode("latin-1"), "latin-1"


def _header_key(cell: str) -> str:
    # "E-mail:", "ACBL #", "EBU_number" and "First  Name" all come down to plain words.
    return re.sub(r"[^a-z0-9]+", " ", search_key(cell)).strip()


def _roles(header: list[str]) -> tuple[dict[str, int], list[tuple[int, str]], list[str]]:
    """Which cell holds what: roles by index, number columns (index, body), ignored."""
    roles: dict[str, int] = {}
    numbers: list[tuple[int, str]] = []
    ignored: list[str] = []
    for i, cell in enumerate(header):
        key = _header_key(cell)
        role = next((r for r, words in (("name", NAME_HEADERS), ("first", FIRST_HEADERS),
                                        ("last", LAST_HEADERS), ("infix", INFIX_HEADERS),
                                        ("email", EMAIL_HEADERS), ("scheme", SCHEME_HEADERS))
                     if key in words), None)
        if role is not None and role not in roles:
            roles[role] = i
        elif key in BODY_HEADERS:
            numbers.append((i, BODY_HEADERS[key]))
        elif key in NUMBER_HEADERS:
            numbers.append((i, ""))
        elif cell.strip():
            ignored.append(cell.strip())
    if "first" in roles and "last" not in roles and "name" in roles:
        roles["last"] = roles.pop("name")  # "Vorname;Name": the name beside a first name
    return roles, numbers, ignored


def read_members_csv(data: bytes, *, scheme: str = "") -> MemberCsv:
    """The members of a CSV file's bytes. ``scheme`` is the national body of numbers in
    a column that does not say it (``Member number``), unless a scheme column does.

    Raises :class:`~dealer.players.names.PlayerError` (field ``file``) when the
    file cannot be a member list at all: not text, no header, no name column.
    """
    default_scheme = check_scheme(scheme)
    if data.startswith(b"PK\x03\x04"):
        raise PlayerError("this is a spreadsheet (.xlsx or .ods), not CSV: save it as CSV "
                          "(comma separated) and import that", "file")
    text, encoding = decode(data)
    if "\x00" in text:
        raise PlayerError("this file is not text (it holds NUL bytes): export the list as "
                          "CSV", "file")
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    if not first:
        raise PlayerError("the file is empty: a member list starts with a header line "
                          "(Name, EBU, Email ...)", "file")
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(first, ",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    rows = csv_rows(reader, lambda line, exc: PlayerError(f"line {line}: cannot read it as CSV ({exc})",
                                                          "file"))
    header: list[str] = []
    for row in rows:
        if any(c.strip() for c in row):
            header = row
            break
    roles, numbers, ignored = _roles(header)
    if "name" not in roles and "last" not in roles and "first" not in roles:
        shown = ", ".join(c.strip() for c in header if c.strip())[:200]
        raise PlayerError(f"line {reader.line_num}: the header names no name column: give "
                          f"Name, or First name and Last name (this header has: {shown})",
                          "file")
    out = MemberCsv(encoding=encoding, ignored=ignored,
                    columns={r: header[i].strip() for r, i in roles.items()})
    if numbers:
        out.columns["number"] = ", ".join(header[i].strip() for i, _ in numbers)
    seen_numbers: dict[tuple[str, str], int] = {}
    seen_names: dict[str, int] = {}
    for row in rows:
        if reader.line_num > MAX_LINES:
            out.problems.append(ImportProblem(reader.line_num, "", f"the file has more than "
                                              f"{MAX_LINES} lines: the rest was not read"))
            break
        if not any(c.strip() for c in row):
            continue
        try:
            member = _member(row, header, roles, numbers, default_scheme, reader.line_num)
        except _LineProblem as p:
            out.problems.append(ImportProblem(reader.line_num, p.column, p.message))
            continue
        if member.number:
            key = (member.scheme, member.number)
            if key in seen_numbers:
                out.problems.append(ImportProblem(
                    member.line, _number_column(row, header, numbers),
                    f"{member.scheme} {member.number}".strip()
                    + f" is on line {seen_numbers[key]} already"))
                continue
            seen_numbers[key] = member.line
        else:
            nkey = search_key(member.name)
            if nkey in seen_names:
                out.problems.append(ImportProblem(
                    member.line, _name_column(header, roles),
                    f"{member.name} is on line {seen_names[nkey]} already, and neither has a "
                    "number to tell them apart"))
                continue
            seen_names[nkey] = member.line
        out.members.append(member)
    return out


class _LineProblem(Exception):
    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column, self.message = column, message


def _cell(row: list[str], i: int | None) -> str:
    return row[i] if i is not None and i < len(row) else ""


def _name_column(header: list[str], roles: dict[str, int]) -> str:
    i = roles.get("name", roles.get("last", roles.get("first")))
    return header[i].strip() if i is not None else "Name"


def _number_column(row: list[str], header: list[str], numbers: list[tuple[int, str]]) -> str:
    return next((header[i].strip() for i, _ in numbers if _cell(row, i).strip()), "number")


def _member(row: list[str], header: list[str], roles: dict[str, int],
            numbers: list[tuple[int, str]], default_scheme: str, line: int) -> MemberIn:
    """One line as a member, or :class:`_LineProblem` naming the column at fault."""
    if "name" in roles:
        parts = [_cell(row, roles["name"])]
    else:
        parts = [_cell(row, roles.get(r)) for r in ("first", "infix", "last")]
    column = _name_column(header, roles)
    try:
        name = check_name(" ".join(p.strip() for p in parts if p.strip()), column)
        if "name" not in roles and "last" in roles and not _cell(row, roles["last"]).strip():
            raise PlayerError(f"{column}: empty (a name is needed)", column)
    except PlayerError as exc:
        raise _LineProblem(column, _said(exc, column)) from None
    scheme_col = roles.get("scheme")
    row_scheme = default_scheme
    if scheme_col is not None and _cell(row, scheme_col).strip():
        try:
            row_scheme = check_scheme(_cell(row, scheme_col), header[scheme_col].strip())
        except PlayerError as exc:
            raise _LineProblem(header[scheme_col].strip(),
                               _said(exc, header[scheme_col].strip())) from None
    scheme = number = ""
    for i, body in numbers:
        raw = _cell(row, i)
        if not raw.strip():
            continue
        col = header[i].strip()
        try:
            number = check_number(raw, col)
        except PlayerError as exc:
            raise _LineProblem(col, _said(exc, col)) from None
        scheme = body or row_scheme
        break
    email = ""
    if "email" in roles:
        col = header[roles["email"]].strip()
        try:
            email = check_email(_cell(row, roles["email"]), col)
        except PlayerError as exc:
            raise _LineProblem(col, _said(exc, col)) from None
    return MemberIn(name=name, scheme=scheme, number=number, email=email, line=line)


def _said(exc: PlayerError, column: str) -> str:
    # The checks start their message with the field's name; the problem names it already.
    text = str(exc)
    return text[len(column) + 2:] if text.startswith(column + ": ") else text
