"""The member list and the names of each pair of a club event, in the store.

Members are added, changed, deleted, searched and imported here; the panel's
member pages and ``boardwright members`` call these functions. A pair's names
(two players, each a member or a visitor) are kept per club event, section,
line and pair number (:class:`~dealer.events.model.PairKey`), whoever entered
them: a table's phone in round 1, or the director.

>>> from dealer.store import Store
>>> from dealer.players import MemberIn
>>> with Store.open("sqlite://") as st:
...     a = add_member(st, MemberIn("José Müller", "ebu", "12345", "jm@example.org"))
...     got = import_members(st, [MemberIn("Jose Muller", "EBU", "12345"), MemberIn("Ann Lee")])
...     [m.label for m in search(st, "mull")], (got.added, got.updated, got.unchanged)
(['Jose Muller (EBU 12345)'], (1, 1, 0))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from sqlalchemy import Table, and_, bindparam, delete, func, or_, select

from dealer.events.model import PairKey
from dealer.players.names import (
    MemberIn,
    PlayerError,
    PlayerName,
    check_email,
    check_name,
    check_number,
    check_scheme,
    clean_name,
    national_id,
    pair_label,
    parse_choice,
    search_key,
)
from dealer.store import audit
from dealer.store.engine import StoreError
from dealer.store.player_models import Member, PairPlayer
from dealer.store.repository import Store, possible_id


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class MemberLine:
    """A member as read: detached from the database."""

    id: int
    name: str
    scheme: str
    number: str
    email: str

    @property
    def national_id(self) -> str:
        return national_id(self.scheme, self.number)

    @property
    def label(self) -> str:
        """``Ann Smith (EBU 12345)``: what the member search offers and a form sends back."""
        return PlayerName(self.name, self.scheme, self.number).label()

    def as_player(self) -> PlayerName:
        return PlayerName(self.name, self.scheme, self.number, self.id)


def _line(m: Member) -> MemberLine:
    return MemberLine(m.id, m.name, m.scheme, m.number or "", m.email)


def checked(m: MemberIn) -> MemberIn:
    """The member's values checked, each refusal naming its field; a scheme without a
    number is dropped (it says nothing)."""
    name = check_name(m.name)
    number = check_number(m.number)
    scheme = check_scheme(m.scheme) if number else ""
    return MemberIn(name, scheme, number, check_email(m.email), m.line)


# ---------------------------------------------------------------- members, one by one
def _holder(s: object, scheme: str, number: str, but: int | None = None) -> Member | None:
    if not number:
        return None
    q = select(Member).where(Member.scheme == scheme, Member.number == number)
    if but is not None:
        q = q.where(Member.id != but)
    return s.scalars(q).first()  # type: ignore[attr-defined, no-any-return]


def _taken(holder: Member) -> PlayerError:
    return PlayerError(f"number: {national_id(holder.scheme, holder.number or '')} is "
                       f"{holder.name}'s already", "number")


def add_member(store: Store, member: MemberIn) -> int:
    """Add a member; returns its id. A national number another member holds is refused."""
    m = checked(member)
    with store.write() as s:
        holder = _holder(s, m.scheme, m.number)
        if holder is not None:
            raise _taken(holder)
        row = Member(name=m.name, search_key=search_key(m.name)[:100], scheme=m.scheme,
                     number=m.number or None, email=m.email)
        s.add(row)
        s.flush()
        return row.id


def update_member(store: Store, member_id: int, member: MemberIn) -> None:
    """Change a member's name, number or email (events keep the names they had)."""
    m = checked(member)
    with store.write() as s:
        row = s.get(Member, member_id) if possible_id(member_id) else None
        if row is None:
            raise PlayerError(f"there is no member {member_id}", "member")
        holder = _holder(s, m.scheme, m.number, but=member_id)
        if holder is not None:
            raise _taken(holder)
        row.name, row.search_key = m.name, search_key(m.name)[:100]
        row.scheme, row.number, row.email = m.scheme, m.number or None, m.email
        row.updated_at = _now()


def delete_member(store: Store, member_id: int) -> str:
    """Delete a member; returns the name. Events keep the names their pairs had."""
    with store.write() as s:
        row = s.get(Member, member_id) if possible_id(member_id) else None
        if row is None:
            raise PlayerError(f"there is no member {member_id}", "member")
        name = row.name
        s.delete(row)
        return name


def get_member(store: Store, member_id: int) -> MemberLine:
    with store.read() as s:
        row = s.get(Member, member_id) if possible_id(member_id) else None
        if row is None:
            raise PlayerError(f"there is no member {member_id}", "member")
        return _line(row)


def _matching(query: str) -> list:  # type: ignore[type-arg]
    """The WHERE clauses of a search: every word in the name, or the number's start."""
    words = search_key(query).split()
    if not words:
        return []
    by_name = and_(*(Member.search_key.contains(w, autoescape=True) for w in words))
    raw = query.strip()
    if len(words) == 1 and raw:
        return [or_(by_name, Member.number.startswith(raw, autoescape=True))]
    return [by_name]


def members(store: Store, query: str = "", *, limit: int | None = None,
            offset: int = 0) -> list[MemberLine]:
    """The members whose name has every word of ``query`` (accents and case aside), or
    whose number starts with it; all of them, by name, when ``query`` is empty."""
    q = (select(Member).where(*_matching(query))
         .order_by(Member.search_key, Member.id).offset(offset))
    if limit is not None:
        q = q.limit(limit)
    with store.read() as s:
        return [_line(m) for m in s.scalars(q)]


def member_count(store: Store, query: str = "") -> int:
    with store.read() as s:
        return int(s.scalar(select(func.count()).select_from(Member)
                            .where(*_matching(query))) or 0)


def search(store: Store, query: str, limit: int = 12) -> list[MemberLine]:
    """The member search behind a name field: at most ``limit`` members, none for a query
    without a letter or digit."""
    if not search_key(query):
        return []
    return members(store, query, limit=limit)


# ---------------------------------------------------------------- importing a list
@dataclass
class ImportReport:
    """What an import did: counts, and the lines it refused (with the file's own)."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged"
                + (f", {len(self.problems)} lines refused" if self.problems else ""))


def import_members(store: Store, rows: Iterable[MemberIn]) -> ImportReport:
    """Add or update members from a list (a CSV's lines), in one transaction.

    A line is the member with the same national number, else the member of the
    same name who has no number (who then gets the line's number), else a new
    member. An email already known is not erased by a line without one. A line
    whose number another member holds under another name is still that member:
    the list is the club's own record, so its name wins.
    """
    report = ImportReport()
    with store.write() as s:
        everyone = list(s.scalars(select(Member)))
        by_number = {(m.scheme, m.number): m for m in everyone if m.number}
        by_name: dict[str, list[Member]] = {}
        for one in everyone:
            if not one.number:
                by_name.setdefault(one.search_key, []).append(one)
        for given in rows:
            try:
                m = checked(given)
            except PlayerError as exc:
                report.problems.append(f"line {given.line}: {exc}" if given.line else str(exc))
                continue
            key = search_key(m.name)[:100]
            row = by_number.get((m.scheme, m.number)) if m.number else None
            if row is None:
                nameless = by_name.get(key, [])
                row = nameless.pop(0) if nameless else None
            if row is None:
                row = Member(name=m.name, search_key=key, scheme=m.scheme,
                             number=m.number or None, email=m.email)
                s.add(row)
                report.added += 1
            else:
                new = {"name": m.name, "search_key": key, "email": m.email or row.email}
                if m.number:
                    new.update(scheme=m.scheme, number=m.number)
                if all(getattr(row, k) == v for k, v in new.items()):
                    report.unchanged += 1
                    continue
                for k, v in new.items():
                    setattr(row, k, v)
                row.updated_at = _now()
                report.updated += 1
            if m.number:
                by_number[(m.scheme, m.number)] = row
    return report


# ---------------------------------------------------------------- names of the pairs
def resolve(store: Store, text: str, field: str = "name") -> PlayerName | None:
    """A name typed at a table or on the desk, as the player it names.

    ``Ann Smith (EBU 12345)`` (what the member search offers) is that member; a
    plain name is the one member of that name if there is exactly one (accents
    and case aside), else a visitor of that name. Empty text is nobody.
    """
    name, scheme, number = parse_choice(text)
    name = check_name(name, field, required=False)
    if not name:
        return None
    # Built statements: four names at each table in round one (an ORM session and a
    # fresh query each cost a round-one form 3.5 ms of its 8).
    if number:
        statement, args = (_BY_SCHEME_NUMBER if scheme else _BY_NUMBER), {
            "number": number, "scheme": scheme}
    else:
        statement, args = _BY_KEY, {"key": search_key(name)[:100]}
    from dealer.store.results import postgres  # on PostgreSQL, the driver directly

    found = [MemberLine(*r) for r in postgres.run(store, statement, args)]
    if len(found) == 1:
        return found[0].as_player()
    if number:
        return PlayerName(name, scheme, check_number(number, field))
    return PlayerName(name)


_MEMBERS = cast(Table, Member.__table__)
_MEMBER_LINE = select(_MEMBERS.c.id, _MEMBERS.c.name, _MEMBERS.c.scheme,
                      func.coalesce(_MEMBERS.c.number, ""), _MEMBERS.c.email)
_BY_NUMBER = _MEMBER_LINE.where(_MEMBERS.c.number == bindparam("number")).limit(2)
_BY_SCHEME_NUMBER = _BY_NUMBER.where(_MEMBERS.c.scheme == bindparam("scheme"))
_BY_KEY = _MEMBER_LINE.where(_MEMBERS.c.search_key == bindparam("key")).limit(2)


# Built once, run with bound values on the engine for reads: a table's page asks for
# its pairs' names on every load, and an ORM session with a freshly composed query cost
# 6 ms there (measured: the table page 15.5 ms against 9.5 ms without the lookup).
_PP = cast(Table, PairPlayer.__table__)
_PAIRS = (select(_PP.c.section, _PP.c.line, _PP.c.pair_no, _PP.c.name, _PP.c.scheme,
                 _PP.c.number, _PP.c.member_id)
          .where(_PP.c.club_event_id == bindparam("ce"))
          .order_by(_PP.c.section, _PP.c.line, _PP.c.pair_no, _PP.c.seat))
_PAIRS_OF_SECTION = _PAIRS.where(_PP.c.section == bindparam("section"))
_PAIRS_NUMBERED = _PAIRS_OF_SECTION.where(_PP.c.pair_no.in_(bindparam("numbers",
                                                                      expanding=True)))


def pair_names(store: Store, club_event_id: int,
               keys: Iterable[PairKey] | None = None) -> dict[PairKey, tuple[PlayerName, ...]]:
    """The players of each pair that has any, seat 1 first (only ``keys``, if given)."""
    wanted = None if keys is None else set(keys)
    if wanted is not None and not wanted:
        return {}
    sections = {k.section for k in wanted} if wanted is not None else set()
    args: dict[str, object] = {"ce": club_event_id}
    query = _PAIRS
    if wanted is not None and len(sections) == 1:  # a table's pairs: a few rows, by index
        query = _PAIRS_NUMBERED
        args.update(section=next(iter(sections)), numbers=sorted({k.number for k in wanted}))
    out: dict[PairKey, list[PlayerName]] = {}
    with store.reads.connect() as conn:
        rows = conn.execute(query, args)
        for r in rows:
            key = PairKey(r.section, r.line, r.pair_no)
            if wanted is None or key in wanted:
                out.setdefault(key, []).append(PlayerName(r.name, r.scheme, r.number,
                                                          r.member_id))
    return {k: tuple(v) for k, v in out.items()}


def pair_labels(store: Store, club_event_id: int, sep: str = " & ") -> dict[PairKey, str]:
    """Each named pair's names in one line (``Ann Smith & Bob Jones``)."""
    return {k: pair_label(v, sep) for k, v in pair_names(store, club_event_id).items()}


def set_pair(store: Store, club_event_id: int, key: PairKey,
             players: Sequence[PlayerName | None], *, who: str) -> bool:
    """Keep a pair's players (seat 1, seat 2; ``None`` or an empty name clears a seat).

    Returns whether anything changed; a change is written to the audit log.
    """
    return bool(set_pairs(store, club_event_id, {key: players}, who=who))


def set_pairs(store: Store, club_event_id: int,
              pairs: Mapping[PairKey, Sequence[PlayerName | None]], *, who: str) -> int:
    """:func:`set_pair` for several pairs in one transaction (a table's two pairs, the
    desk's whole list): all are kept or none. Returns how many pairs changed."""
    wanted: dict[PairKey, dict[int, PlayerName]] = {}
    for key, players in pairs.items():
        if len(players) > 2:
            raise PlayerError("a pair has two players", "players")
        wanted[key] = {seat: p for seat, p in enumerate(players, 1)
                       if p is not None and clean_name(p.name)}
        for seat, p in wanted[key].items():
            check_name(p.name, f"player {seat}")
    if not wanted:
        return 0
    for attempt in (1, 2):
        try:
            return _set_pairs(store, club_event_id, wanted, who)
        except StoreError:
            # Two phones naming the same pair at once on PostgreSQL: one insert lost the
            # race on the unique key; the second attempt sees its row and updates it.
            if attempt == 2:
                raise
    return 0  # pragma: no cover - the loop returns or raises


def _set_pairs(store: Store, club_event_id: int,
               wanted: dict[PairKey, dict[int, PlayerName]], who: str) -> int:
    changed_pairs = 0
    sections = {k.section for k in wanted}
    with store.turn(), store.write() as s:
        found: dict[PairKey, dict[int, PairPlayer]] = {}
        for r in s.scalars(select(PairPlayer).where(
                PairPlayer.club_event_id == club_event_id,
                PairPlayer.section.in_(sections),
                PairPlayer.pair_no.in_({k.number for k in wanted}))):
            found.setdefault(PairKey(r.section, r.line, r.pair_no), {})[r.seat] = r
        for key, seats in wanted.items():
            rows = found.get(key, {})
            changed = False
            before = pair_label(PlayerName(r.name) for _, r in sorted(rows.items()))
            for seat in (1, 2):
                p, row = seats.get(seat), rows.get(seat)
                if p is None:
                    if row is not None:
                        s.delete(row)
                        changed = True
                    continue
                values = {"name": clean_name(p.name), "member_id": p.member_id,
                          "scheme": p.scheme, "number": p.number}
                if row is None:
                    s.add(PairPlayer(club_event_id=club_event_id, section=key.section,
                                     line=key.line, pair_no=key.number, seat=seat,
                                     entered_by=who[:100], **values))
                    changed = True
                elif any(getattr(row, k) != v for k, v in values.items()):
                    for k, v in values.items():
                        setattr(row, k, v)
                    row.entered_by, row.updated_at = who[:100], _now()
                    changed = True
            if changed:
                changed_pairs += 1
                after = pair_label(PlayerName(clean_name(p.name))
                                   for _, p in sorted(seats.items()))
                audit.add(s, who=who, action="pair-names",
                          subject=f"event {club_event_id} pair {key}",
                          detail=f"{before or '(no names)'} -> {after or '(no names)'}")
    return changed_pairs


def clear_event(store: Store, club_event_id: int) -> int:
    """Forget every name of an event's pairs; returns how many players were removed."""
    with store.write() as s:
        return s.execute(delete(PairPlayer).where(
            PairPlayer.club_event_id == club_event_id)).rowcount or 0  # type: ignore[attr-defined]
