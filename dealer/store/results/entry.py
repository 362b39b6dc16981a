"""Entering results: what a table types, checked and recorded once.

:func:`submit` records one table's result. The client's submission id makes
it idempotent: the same id again returns ``"duplicate"`` and writes nothing.
Another entry for a board already recorded at that table returns
``"conflict"`` with a message naming who entered it first. The director
records artificial scores and boards not played with :func:`director_entry`,
and the play of a board with :func:`set_play`.

>>> Entry(board=1, contract="3ntx", declarer="s", tricks=9, lead="h10").checked()[1:]
('S', 'HT', 9)
>>> Entry(board=1, contract="4S", declarer="N", tricks=14).checked()
Traceback (most recent call last):
...
dealer.store.results.common.EntryError: tricks taken by declarer must be 0 to 13
>>> Entry(board=1, contract="4S", declarer="N' --", tricks=10).checked()
Traceback (most recent call last):
...
dealer.store.results.common.EntryError: choose the declarer: N, E, S or W

A result may be given relative to the contract, as a Bridgemate takes it
(``=``, ``+1``, ``-2``; the typographic minus too); the store keeps tricks:

>>> Entry(board=1, contract="4S", declarer="N", result="+1").checked()[3]
11
>>> Entry(board=1, contract="3NT", declarer="S", result="\u22122").checked()[3]
7
>>> Entry(board=1, contract="6S", declarer="N", result="+2").checked()
Traceback (most recent call last):
...
dealer.store.results.common.EntryError: +2 is impossible in 6S: at most +1, at worst -12
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy import Connection, bindparam, insert, select
from sqlalchemy.exc import IntegrityError

from dealer.contract import Contract, ContractError
from dealer.events.model import Artificial, EventError, Result
from dealer.events.validation import check_results
from dealer.scoring.duplicate import score_ns
from dealer.seats import Seat, Vulnerability, board_vulnerability
from dealer.store import audit
from dealer.store.models import BoardRow
from dealer.store.panel_models import ClubEvent, ResultChange, ResultRow, Submission
from dealer.store.repository import Store
from dealer.store.results import postgres
from dealer.store.results.club_events import get_event, max_board, movement_of
from dealer.store.results.common import (
    RESULTS,
    SUBMISSIONS,
    EntryError,
    Outcome,
    check_submission_id,
    reading,
    transaction,
    writing,
)
from dealer.store.results.reading import describe

LEADS = "23456789TJQKA"

#: Why a table did not play a board: the choices its phone offers (any other short
#: reason, up to :data:`NOT_PLAYED_MAX` characters, is taken as typed).
NOT_PLAYED_REASONS = ("time", "late play", "fouled board", "board missing")
NOT_PLAYED_MAX = 40

_RELATIVE = re.compile(r"([+-])([0-9]{1,2})")


def tricks_from_result(level: int, result: str, contract: str = "") -> int:
    """Tricks taken by declarer from a result relative to a ``level`` contract:
    ``=`` made exactly, ``+n`` overtricks, ``-n`` down (``\u2212`` and ``\u2013`` are minus)."""
    text = result.strip().replace("\u2212", "-").replace("\u2013", "-")
    if text == "=":
        delta = 0
    else:
        m = _RELATIVE.fullmatch(text)
        if m is None or int(m.group(2)) == 0:
            raise EntryError(f"the result is =, +1, -2 and so on, not {result[:10]!r}",
                             "result")
        delta = int(m.group(2)) * (1 if m.group(1) == "+" else -1)
    tricks = 6 + level + delta
    if not 0 <= tricks <= 13:
        raise EntryError(f"{text} is impossible in {contract or f'a {level}-level contract'}: "
                         f"at most {'+' + str(7 - level) if level < 7 else '='}, "
                         f"at worst -{6 + level}", "result")
    return tricks


def relative(contract: str | None, tricks: int | None) -> str:
    """A recorded result as the tables say it: ``=``, ``+1``, ``−2`` (empty if none)."""
    if not contract or contract == "PASS" or tricks is None or not contract[0].isdigit():
        return ""
    delta = tricks - 6 - int(contract[0])
    return "=" if delta == 0 else f"+{delta}" if delta > 0 else f"\u2212{-delta}"


@dataclass(frozen=True)
class Entry:
    """What a table types: contract (``"4SX"``, ``"PASS"``), declarer, lead, tricks.

    ``result`` (``"="``, ``"+1"``, ``"-2"``) may stand for ``tricks``; given both,
    they must agree. ``not_played`` is the reason a table gives for a board it did
    not play (the contract is then not read).
    """

    board: int
    contract: str
    declarer: str = ""
    tricks: int | None = None
    lead: str = ""
    result: str = ""
    not_played: str = ""

    def checked(self) -> tuple[Contract, str | None, str | None, int]:
        """The parsed contract, declarer letter, lead and tricks, or an :class:`EntryError`."""
        text = self.contract.strip().upper()
        if len(text) > 8:
            raise EntryError("the contract is too long (e.g. 4SX, 3NTXX, PASS)", "contract")
        try:
            c = Contract.parse(text)
        except ContractError as exc:
            raise EntryError(f"contract: {exc}", "contract") from None
        if c.is_passed_out:
            return c, None, None, 0
        # Exactly one seat: "N' --" is not N (it was, when the panel cut it to a letter).
        decl = self.declarer.strip().upper()
        if decl not in ("N", "E", "S", "W"):
            raise EntryError("choose the declarer: N, E, S or W", "declarer")
        c = c.with_declarer(Seat.parse(decl))
        tricks = self.tricks
        if self.result:
            made = tricks_from_result(c.level, self.result, text)
            if tricks is not None and tricks != made:
                raise EntryError(f"{self.result.strip()} and {tricks} tricks disagree: give "
                                 "one of them", "tricks")
            tricks = made
        if tricks is None or not 0 <= tricks <= 13:
            raise EntryError("tricks taken by declarer must be 0 to 13", "tricks")
        lead = self.lead.strip().upper().replace("10", "T")
        if lead:
            if len(lead) != 2 or lead[0] not in "SHDC" or lead[1] not in LEADS:
                raise EntryError("the opening lead is a suit and a rank, e.g. SQ or H7", "lead")
        return c, decl, lead or None, tricks

    def reason(self) -> str:
        """The not-played reason, checked: some text, at most :data:`NOT_PLAYED_MAX`."""
        why = " ".join(self.not_played.split())
        if not why:
            raise EntryError("say why the board was not played", "not_played")
        if len(why) > NOT_PLAYED_MAX:
            raise EntryError(f"the reason is at most {NOT_PLAYED_MAX} characters "
                             f"({len(why)} were sent)", "not_played")
        return why


def contract_text(c: Contract) -> str:
    """The contract as stored (``4SX``), without the declarer."""
    return c.ascii.split()[0] if " " in c.ascii else c.ascii


def artificial_code(text: str) -> str:
    """An artificial score as stored: ``A+``, ``A``, ``A-`` or a percentage 0-100."""
    try:
        return Artificial.parse(text).code
    except EventError:
        try:
            v = float(text)
        except ValueError:
            raise EntryError(f"unknown artificial score {text!r} (A+, A, A- or a percentage)",
                             "artificial") from None
        if not 0 <= v <= 100:
            raise EntryError("a percentage is 0 to 100", "artificial") from None
        return f"{v:g}"


_WEIGHTED_PART = re.compile(
    r"^(?P<w>\d{1,3}(?:\.\d{1,2})?)\s*%?\s+(?P<c>PASS|[1-7](?:NT|N|S|H|D|C)X{0,2})\s*"
    r"(?P<r1>=|[+-]\d{1,2})?\s*(?:BY\s+)?(?P<d>[NESW])?\s*(?P<r2>=|[+-]\d{1,2}|\d{1,2})?$")
#: At most this many parts: the stored text must fit its column (200 characters).
WEIGHTED_PARTS_MAX = 4


def weighted_code(text: str, board: int, vul: Vulnerability) -> str:
    """A weighted adjusted score (Law 12C1(c)) as the director types it, checked and
    scored, in the form it is stored: each part its share, contract, declarer,
    tricks and NS score.

    Parts are separated by ``;`` or ``,``; the result is ``=``, ``+1``, ``-2``
    after the contract or the declarer, or the tricks taken; the shares add up to
    100%.

    >>> from dealer.seats import Vulnerability
    >>> weighted_code("60% 4S= N, 40% 4S-1 N", 1, Vulnerability.NONE)
    '60% 4S N 10 +420; 40% 4S N 9 -50'
    >>> weighted_code("70 3NT S 9; 30 PASS", 1, Vulnerability.NONE)
    '70% 3NT S 9 +400; 30% PASS - - +0'
    >>> weighted_code("60% 4S= N, 30% 4S-1 N", 1, Vulnerability.NONE)
    Traceback (most recent call last):
    ...
    dealer.store.results.common.EntryError: weighted: the shares add up to 90%, not 100%
    """
    parts = [p.strip() for p in re.split(r"[;,]", text.upper()) if p.strip()]
    if not 2 <= len(parts) <= WEIGHTED_PARTS_MAX:
        raise EntryError(f"weighted: give 2 to {WEIGHTED_PARTS_MAX} scores with their shares, "
                         "e.g. 60% 4S= N, 40% 4S-1 N", "weighted")
    out, total = [], 0.0
    for n, part in enumerate(parts, 1):
        m = _WEIGHTED_PART.match(part)
        if m is None:
            raise EntryError(f"weighted: part {n} ({part[:30]!r}) is not a share and a result, "
                             "e.g. 60% 4S= N or 40% 4S N 9", "weighted")
        share = float(m["w"])
        if not 0 < share < 100:
            raise EntryError(f"weighted: part {n} has a share of {share:g}%: give more than "
                             "0 and less than 100", "weighted")
        total += share
        contract, decl = m["c"], m["d"] or ""
        if contract == "PASS":
            if m["r1"] or m["r2"] or decl:
                raise EntryError(f"weighted: part {n}: a passed-out board has no declarer "
                                 "or tricks", "weighted")
            out.append(f"{share:g}% PASS - - +0")
            continue
        results = [r for r in (m["r1"], m["r2"]) if r]
        if len(results) != 1:
            raise EntryError(f"weighted: part {n}: give the result once (=, +1, -2 or the "
                             "tricks)", "weighted")
        r = results[0]
        level = int(contract[0])
        tricks = (level + 6 if r == "=" else level + 6 + int(r) if r[0] in "+-" else int(r))
        try:
            c, d, _lead, t = Entry(board, contract, decl, tricks).checked()
        except EntryError as exc:
            raise EntryError(f"weighted: part {n}: {exc}", "weighted") from None
        out.append(f"{share:g}% {contract_text(c)} {d} {t} {score_ns(c, t, vul):+d}")
    if abs(total - 100.0) > 1e-6:
        raise EntryError(f"weighted: the shares add up to {total:g}%, not 100%", "weighted")
    return "; ".join(out)


_VULNERABILITY = select(BoardRow.__table__.c.vulnerability).where(
    BoardRow.__table__.c.deal_set_id == bindparam("ds"),
    BoardRow.__table__.c.number == bindparam("n"))


def vulnerability_of(store: Store, ce: ClubEvent, board: int,
                     conn: Connection | None = None) -> Vulnerability:
    """The board's vulnerability from the event's deal set, else from its number (Law 2)."""
    if ce.deal_set_id is not None:
        args = {"ds": ce.deal_set_id, "n": board}
        if conn is not None:
            v = conn.execute(_VULNERABILITY, args).scalar()
        else:
            with store.reads.connect() as c:
                v = c.execute(_VULNERABILITY, args).scalar()
        if v is not None:
            return Vulnerability(v)
    return board_vulnerability(board)


def warnings_for(store: Store, ce: ClubEvent, section: str, table: int, round_no: int,
                 board: int, ns: int, ew: int) -> list[str]:
    """Doubts about a line from the movement, e.g. a board not played at this table now."""
    m = movement_of(ce, section)
    try:
        s = m.at(table, round_no)
    except EventError:
        return [f"section {section} has no table {table} in round {round_no}"]
    out = []
    if board not in s.boards:
        out.append(f"board {board} is not played at this table in round {round_no} "
                   f"(boards {', '.join(map(str, s.boards))} are)")
    r = Result(board, ns, ew, section=section, table=table, round=round_no)
    out += [f.reason for f in check_results([r], m) if f.code in ("wrong-pairs", "wrong-way")]
    return out


def submit(store: Store, club_event_id: int, section: str, table: int, round_no: int,
           entry: Entry, *, submission_id: str, who: str, confirm: bool = False,
           ns: int | None = None, ew: int | None = None,
           ce: ClubEvent | None = None, late: bool | None = None,
           pending: bool = False) -> Outcome:
    """Record one result. Idempotent on ``submission_id``; a second entry is a conflict.

    A result entered after the results were published is marked ``late`` (``late``
    given: as the caller read publication; else from ``ce``). A table's entry goes
    through :func:`~dealer.store.results.fairplay.submit_at_table`, which holds
    the table to its current round. ``pending``: the opponents have yet to accept
    it (:func:`accept`); until then it is kept but not scored.
    """
    check_submission_id(submission_id)
    # A retry of a form we already have is not looked up first: its insert meets the
    # unique constraints and _after_race answers "duplicate". One query less per entry.
    if ce is None or ce.id != club_event_id:
        ce = get_event(store, club_event_id)
    if entry.not_played:
        reason, (contract, decl, lead, tricks) = entry.reason(), (None, None, None, None)
    else:
        reason, (contract, decl, lead, tricks) = None, entry.checked()
    m = movement_of(ce, section)
    try:
        sitting = m.at(table, round_no)
    except EventError as exc:
        raise EntryError(str(exc), "round") from None
    ns = sitting.ns if ns is None else ns
    ew = sitting.ew if ew is None else ew
    if not 1 <= entry.board <= max_board(ce, section) * 4:
        raise EntryError(f"there is no board {entry.board} in this event", "board")
    warnings = warnings_for(store, ce, section, table, round_no, entry.board, ns, ew)
    if warnings and not confirm:
        return Outcome("needs-confirmation", message="; ".join(warnings), warnings=warnings)
    score: int | None = None
    if contract is not None:
        vul = vulnerability_of(store, ce, entry.board)
        score = 0 if contract.is_passed_out else score_ns(contract, tricks or 0, vul)
    values = dict(club_event_id=club_event_id, section=section, table_no=table,
                  round_no=round_no, board=entry.board, ns=ns, ew=ew,
                  contract=None if contract is None else
                  "PASS" if contract.is_passed_out else contract_text(contract),
                  declarer=decl, lead=lead,
                  tricks=None if contract is None or contract.is_passed_out else tricks,
                  score=score, not_played=reason is not None, not_played_reason=reason,
                  pending=pending, entered_by=who[:100],
                  late=ce.published_at is not None if late is None else late)
    try:
        if store.engine.dialect.name == "postgresql":
            rid = postgres.record_entry(store, values, submission_id)
        else:
            with transaction(store) as conn:
                rid = conn.execute(insert(RESULTS), values).inserted_primary_key[0]  # type: ignore[index]
                conn.execute(insert(SUBMISSIONS),
                             {"id": submission_id, "result_id": rid, "kind": "entry"})
    except IntegrityError:
        return _after_race(store, club_event_id, section, table, entry.board, submission_id)
    # What describe() reads, without building a mapped object for one sentence.
    row = SimpleNamespace(ns_artificial=None, **values)
    return Outcome("recorded", rid, score, f"board {entry.board}: {describe(row)}",
                   warnings)


@dataclass(frozen=True)
class Preview:
    """A result as it would be recorded, before it is sent: its score and its words."""

    board: int
    score: int | None
    vulnerability: Vulnerability
    words: str


def preview(store: Store, ce: ClubEvent, entry: Entry) -> Preview:
    """What ``entry`` would record (the core's own scoring, nothing written), or an
    :class:`EntryError` naming what is missing or wrong."""
    vul = vulnerability_of(store, ce, entry.board)
    if entry.not_played:
        return Preview(entry.board, None, vul, f"not played ({entry.reason()})")
    contract, decl, lead, tricks = entry.checked()
    if contract.is_passed_out:
        return Preview(entry.board, 0, vul, "passed out")
    score = score_ns(contract, tricks, vul)
    words = (f"{contract_text(contract)} by {decl} {relative(contract_text(contract), tricks)}"
             f" ({tricks} tricks): NS {score:+d}")
    return Preview(entry.board, score, vul, words)


def _after_race(store: Store, club_event_id: int, section: str, table: int, board: int,
                submission_id: str) -> Outcome:
    # Either the same form arrived twice at once (duplicate) or another device got there first.
    with reading(store) as s:
        done = s.get(Submission, submission_id)
        if done is not None:
            return Outcome("duplicate", done.result_id, None, "already recorded; nothing added")
        row = s.scalars(select(ResultRow).where(
            ResultRow.club_event_id == club_event_id, ResultRow.section == section,
            ResultRow.table_no == table, ResultRow.board == board)).first()
    if row is None:
        raise EntryError("the database refused the result; please try again")
    return Outcome("conflict", row.id, row.score,
                   f"board {board} was already entered at this table by {row.entered_by} "
                   f"({describe(row)}); ask the director to correct it if it is wrong")


def _director_sitting(ce: ClubEvent, section: str, table: int, round_no: int,
                      board: int) -> tuple[int, int]:
    """The pairs the movement seats at the table in the round, once the place is checked."""
    # Checked against the movement before any number reaches the database (a huge
    # board number would overflow the driver; a wrong one would score nonsense).
    if section not in ce.sections:
        raise EntryError(f"there is no section {section!r} in this event", "section")
    m = movement_of(ce, section)
    if not 1 <= table <= m.tables:
        raise EntryError(f"table {table} is not in the movement (1-{m.tables})", "table")
    if not 1 <= round_no <= m.rounds:
        raise EntryError(f"round {round_no} is not in the movement (1-{m.rounds})", "round")
    sitting = m.at(table, round_no)
    if not (sitting.ns and sitting.ew):
        raise EntryError(f"table {table} has no game in round {round_no} (a sit-out)", "table")
    if board not in sitting.boards:
        raise EntryError(f"table {table} does not play board {board} in round {round_no} "
                         f"(it plays {', '.join(map(str, sitting.boards))})", "board")
    return sitting.ns, sitting.ew


def director_result(store: Store, club_event_id: int, section: str, table: int,
                    round_no: int, entry: Entry, *, who: str, submission_id: str) -> Outcome:
    """The director enters a table's own result (its phone died): recorded as the
    director's (``entered_by``) and written in the event's audit log.

    The place is checked against the movement first, as for :func:`director_entry`;
    the round is the director's to choose (a table's phone is held to its current
    round, the director is not). Idempotent on ``submission_id`` like :func:`submit`.
    """
    ce = get_event(store, club_event_id)
    _director_sitting(ce, section, table, round_no, entry.board)
    out = submit(store, club_event_id, section, table, round_no, entry,
                 submission_id=submission_id, who=who, confirm=True, ce=ce)
    if out.status == "recorded":
        with store.write() as s:
            audit.add(s, who=who, action= "director-entry",
                      subject=f"event {club_event_id} table {section}{table}",
                      detail=f"round {round_no} {out.message} (entered for the table)")
    return out


def director_entry(store: Store, club_event_id: int, section: str, table: int, round_no: int,
                   board: int, *, who: str, artificial: tuple[str, str] | None = None,
                   not_played: bool = False, weighted: str | None = None) -> Outcome:
    """The director records an artificial score, a weighted score (Law 12C1(c), as
    :func:`weighted_code` reads it) or a not-played board where none was entered."""
    ce = get_event(store, club_event_id)
    ns, ew = _director_sitting(ce, section, table, round_no, board)
    row = ResultRow(club_event_id=club_event_id, section=section, table_no=table,
                    round_no=round_no, board=board, ns=ns, ew=ew,
                    entered_by=who[:100],
                    not_played=not_played and artificial is None and not weighted,
                    late=ce.published_at is not None)
    if weighted:
        row.weighted = weighted_code(weighted, board, vulnerability_of(store, ce, board))
    elif artificial is not None:
        row.ns_artificial, row.ew_artificial = (artificial_code(a) for a in artificial)
    try:
        with writing(store) as s:
            s.add(row)
    except IntegrityError:
        return _after_race(store, club_event_id, section, table, board, "-")
    return Outcome("recorded", row.id, None, describe(row))


_CARD = re.compile(r"^[SHDC][2-9TJQKA]$|^-$")


def set_play(store: Store, result_id: int, text: str, *, who: str) -> int:
    """Attach the recorded play (PBN ``Play`` section: a trick a line, ``-`` for a card
    not played); returns the number of tricks. Every card is checked; none twice."""
    tricks = [ln.upper().replace("10", "T").split() for ln in text.strip().splitlines()
              if ln.strip() and not ln.lstrip().startswith(";")]
    seen: set[str] = set()
    for n, trick in enumerate(tricks, 1):
        if len(trick) > 4 or n > 13:
            raise EntryError(f"trick {n}: a trick has at most 4 cards and a deal 13 tricks",
                             "play")
        for card in trick:
            if not _CARD.match(card):
                raise EntryError(f"trick {n}: {card[:10]!r} is not a card (e.g. SA, H7, -)",
                                 "play")
            if card != "-" and card in seen:
                raise EntryError(f"trick {n}: {card} was already played", "play")
            seen.add(card)
    with writing(store) as s:
        row = s.get(ResultRow, result_id)
        if row is None:
            raise EntryError(f"there is no result {result_id}")
        s.add(ResultChange(result_id=row.id, who=who[:100], field="play",
                           old=f"{len((row.play or '').splitlines())} tricks",
                           new=f"{len(tricks)} tricks", reason="recorded play"))
        row.play = "\n".join(" ".join(t) for t in tricks)
    return len(tricks)
