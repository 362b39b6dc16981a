"""Results as USEBIO 1.2 XML, the file clubs upload to national bodies (EBU, ABF ...).

The USEBIO 1.2 DTD itself could not be found in stored material; the shape
written here is the one real USEBIO files have and real importers read
(``docs/formats.md`` lists the sources):

* ``<!DOCTYPE USEBIO SYSTEM ".../usebio_v1_2.dtd">`` and ``USEBIO Version="1.2"``;
* ``CLUB`` (``CLUB_NAME``, ``CLUB_ID_NUMBER``), then ``EVENT EVENT_TYPE=...`` with
  ``PROGRAM_NAME``, ``PROGRAM_VERSION``, ``EVENT_DESCRIPTION``, ``DATE``
  (dd/mm/yyyy), ``BOARD_SCORING_METHOD``, ``BOARDS_PLAYED``, ``WINNER_TYPE``
  (1 one winner, 2 a two-winner Mitchell), ``SESSION_COUNT``, ``SECTION_COUNT``;
* ``PARTICIPANTS`` > ``PAIR`` (``PAIR_NUMBER``, ``DIRECTION``, ``PLACE`` a whole
  number, ``TOTAL_SCORE``, ``PERCENTAGE``, ``BOARDS_PLAYED``, two ``PLAYER``);
* ``BOARD`` > ``TRAVELLER_LINE`` whose ``NS_PAIR_NUMBER``/``EW_PAIR_NUMBER``
  are the same strings as the ``PAIR_NUMBER`` of those pairs, with real
  matchpoints in ``NS_MATCH_POINTS``/``EW_MATCH_POINTS``, and an artificial
  score as ``SCORE`` ``A`` + NS percentage + EW percentage (``A6040``);
* ``HANDSET`` > ``BOARD`` > ``HAND`` after the event, unless the set is sealed.

One section is written flat under ``EVENT`` (as Compscore3 writes it and the
ABF's importer reads it). Several sections go in ``SESSION`` > ``SECTION
SECTION_ID="A"`` each with its own participants and boards, and their pair
numbers carry the section letter (``A1NS``, ``B1NS``) so that a reader that
merges the sections still tells the pairs apart.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dealer import __version__
from dealer.board import DealSet
from dealer.events.model import Artificial, EventError, PairKey
from dealer.events.score import RecordedResult, Scored
from dealer.formats.sealing import is_sealed
from dealer.seats import Seat

#: The DOCTYPE of real USEBIO 1.2 files (the public id scorer_to_usebio writes).
DOCTYPE = '<!DOCTYPE USEBIO SYSTEM "http://www.usebio.org/files/usebio_v1_2.dtd">'

#: EVENT_TYPE by the panel's scoring method: Compscore3's values, which the ABF's
#: importer accepts (MP_PAIRS, BUTLER_PAIRS, CROSS_IMP) and ImportUsebio knows.
EVENT_TYPES = {"matchpoints": "MP_PAIRS", "butler": "BUTLER_PAIRS", "cross": "CROSS_IMP",
               "teams": "TEAMS_OF_FOUR"}

#: BOARD_SCORING_METHOD: MATCH_POINTS and CROSS_IMPS as spelled in USEBIO; Butler is
#: IMPS (ImportUsebio reads IMPS but not BUTLER_IMPS, falling back to percentages).
BOARD_SCORING = {"matchpoints": "MATCH_POINTS", "butler": "IMPS", "cross": "CROSS_IMPS",
                 "teams": "IMPS"}

#: The traveller's score elements per method (Compscore3's, as the ABF importer reads).
_LINE_SCORE = {"matchpoints": ("NS_MATCH_POINTS", "EW_MATCH_POINTS"),
               "butler": ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS"),
               "cross": ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
               "teams": ("NS_IMPS", "EW_IMPS")}

#: What a PLAYER_NAME says when the panel has no name for the player (ImportUsebio's word).
UNKNOWN_PLAYER = "Unknown"


@dataclass(frozen=True)
class Player:
    """A player of a pair, for the ``PLAYER`` elements (a member list fills these)."""

    name: str
    national_id: str = ""


def to_usebio(name: str, date: str, kind: str, scoring: str, scored: Scored[RecordedResult],
              dealset: DealSet | None = None, *, club: str = "", club_id: str = "",
              players: Mapping[PairKey, Sequence[Player]] | None = None) -> bytes:
    """The event's results as USEBIO 1.2 XML.

    ``kind`` is ``pairs`` or ``teams``; ``scoring`` ``matchpoints``, ``butler``,
    ``cross`` (or ``teams``). ``players`` gives the names (and national numbers)
    of each pair, by its key (by default the scored event's own,
    :attr:`Scored.players`); a pair without them gets two players named
    :data:`UNKNOWN_PLAYER`, since importers expect two ``PLAYER`` elements per pair.
    The hands go in ``HANDSET`` from ``dealset`` unless it is sealed.
    """
    method = "teams" if kind == "teams" else scoring
    if players is None:
        players = {key: [Player(p.name, p.national_id) for p in named]
                   for key, named in scored.players.items()}
    if method not in EVENT_TYPES:
        raise EventError(f"unknown scoring method {scoring!r} ({', '.join(EVENT_TYPES)})")
    root = ET.Element("USEBIO", Version="1.2")
    cl = ET.SubElement(root, "CLUB")
    ET.SubElement(cl, "CLUB_NAME").text = club
    if club_id:
        ET.SubElement(cl, "CLUB_ID_NUMBER").text = club_id
    ev = ET.SubElement(root, "EVENT", EVENT_TYPE=EVENT_TYPES[method])
    ET.SubElement(ev, "PROGRAM_NAME").text = "boardwright"
    ET.SubElement(ev, "PROGRAM_VERSION").text = __version__
    ET.SubElement(ev, "EVENT_DESCRIPTION").text = name
    when = usebio_date(date)
    if when:
        ET.SubElement(ev, "DATE").text = when
    ET.SubElement(ev, "BOARD_SCORING_METHOD").text = BOARD_SCORING[method]
    if method == "teams":
        ET.SubElement(ev, "MATCH_SCORING_METHOD").text = "VPS"
    ET.SubElement(ev, "BOARDS_PLAYED").text = str(len(scored.travellers))
    two = set(scored.rankings) == {"NS", "EW"}
    ET.SubElement(ev, "WINNER_TYPE").text = "2" if two else "1"
    sections = sorted({r.section for lines in scored.travellers.values() for r, _, _ in lines})
    ET.SubElement(ev, "SESSION_COUNT").text = "1"
    ET.SubElement(ev, "SECTION_COUNT").text = str(max(1, len(sections)))
    ids = PairIds(scored, multi=len(sections) > 1)
    if len(sections) <= 1:
        _section(ev, scored, method, ids, players, None)
    else:
        session = ET.SubElement(ev, "SESSION", SESSION_ID="1")
        for sec in sections:
            _section(ET.SubElement(session, "SECTION", SECTION_ID=sec), scored, method, ids,
                     players, sec)
    if dealset is not None and not is_sealed(dealset):
        _handset(root, dealset, set(scored.travellers))
    ET.indent(root)
    return (b'<?xml version="1.0" encoding="UTF-8"?>\n' + DOCTYPE.encode() + b"\n"
            + ET.tostring(root, encoding="utf-8", xml_declaration=False) + b"\n")


class PairIds:
    """The pair numbers of one export, the same on ``PAIR`` and on the travellers.

    ``"3"`` for a pair numbered uniquely (Howell, offset Mitchell), ``"3NS"`` /
    ``"3EW"`` when both lines are numbered from 1; with several sections the
    section letter goes first (``"B3NS"``).
    """

    def __init__(self, scored: Scored[RecordedResult], multi: bool) -> None:
        self.multi = multi
        self.by_line = any(p.key.line for ps in scored.placings.values() for p in ps
                           if isinstance(p.key, PairKey))

    def of(self, section: str, line: str, number: int) -> str:
        return (section if self.multi else "") + str(number) + (line if self.by_line else "")

    def key(self, key: PairKey) -> str:
        return self.of(key.section, key.line, key.number)


def _section(parent: ET.Element, scored: Scored[RecordedResult], method: str, ids: PairIds,
             players: Mapping[PairKey, Sequence[Player]] | None, section: str | None) -> None:
    parts = ET.SubElement(parent, "PARTICIPANTS")
    if method == "teams":
        _teams(parts, scored, section)
    else:
        _pairs(parts, scored, ids, players or {}, section)
    ns_tag, ew_tag = _LINE_SCORE[method]
    for number, lines in sorted(scored.travellers.items()):
        lines = [ln for ln in lines if section is None or ln[0].section == section]
        if not lines:
            continue
        bd = ET.SubElement(parent, "BOARD")
        ET.SubElement(bd, "BOARD_NUMBER").text = str(number)
        for r, nsv, ewv in lines:
            tl = ET.SubElement(bd, "TRAVELLER_LINE")
            # The pairs as the PAIR elements name them: in a two-winner Mitchell a line
            # whose pairs sat the wrong way (swapped) has an EW pair in the NS seats.
            ns_line, ew_line = ("EW", "NS") if getattr(r, "swapped", False) else ("NS", "EW")
            ET.SubElement(tl, "NS_PAIR_NUMBER").text = ids.of(r.section, ns_line, r.ns)
            ET.SubElement(tl, "EW_PAIR_NUMBER").text = ids.of(r.section, ew_line, r.ew)
            if r.ns_artificial:
                ET.SubElement(tl, "SCORE").text = adjusted_score(r.ns_artificial,
                                                                 r.ew_artificial or "")
            elif r.score is not None:
                ET.SubElement(tl, "CONTRACT").text = r.contract or ""
                ET.SubElement(tl, "PLAYED_BY").text = r.declarer or ""
                ET.SubElement(tl, "LEAD").text = usebio_lead(r.lead)
                ET.SubElement(tl, "TRICKS").text = "" if r.tricks is None else str(r.tricks)
                ET.SubElement(tl, "SCORE").text = str(r.score)
            mp = scored.matchpoints(r)
            ns, ew = (mp[0], mp[1]) if mp is not None else (nsv, ewv)
            if ns is not None and ew is not None:
                ET.SubElement(tl, ns_tag).text = number_text(ns)
                ET.SubElement(tl, ew_tag).text = number_text(ew)


def _pairs(parts: ET.Element, scored: Scored[RecordedResult], ids: PairIds,
           players: Mapping[PairKey, Sequence[Player]], section: str | None) -> None:
    for line, standings in scored.rankings.items():
        for s, p in zip(standings, scored.placings.get(line, []), strict=False):
            key = p.key
            if not isinstance(key, PairKey) or (section is not None and key.section != section):
                continue
            pair = ET.SubElement(parts, "PAIR")
            ET.SubElement(pair, "PAIR_NUMBER").text = ids.key(key)
            ET.SubElement(pair, "DIRECTION").text = key.line or line  # "" for one winner
            ET.SubElement(pair, "PLACE").text = str(p.position)
            if s.unit == "%":
                ET.SubElement(pair, "TOTAL_SCORE").text = f"{s.total or 0.0:.2f}"
                ET.SubElement(pair, "PERCENTAGE").text = f"{s.score:.2f}"
            else:
                ET.SubElement(pair, "TOTAL_SCORE").text = f"{s.score:.2f}"
            ET.SubElement(pair, "BOARDS_PLAYED").text = str(s.boards)
            named = list(players.get(key, ()))[:2]
            for who in named + [Player(UNKNOWN_PLAYER)] * (2 - len(named)):
                pl = ET.SubElement(pair, "PLAYER")
                ET.SubElement(pl, "PLAYER_NAME").text = who.name or UNKNOWN_PLAYER
                # Always present (empty when unknown): the ABF importer looks it up.
                ET.SubElement(pl, "NATIONAL_ID_NUMBER").text = who.national_id


def _teams(parts: ET.Element, scored: Scored[RecordedResult], section: str | None) -> None:
    for line, standings in scored.rankings.items():
        if section is not None and line not in ("", section):
            continue
        for s in standings:
            number = s.pair.rsplit(" ", 1)[-1]
            team = ET.SubElement(parts, "TEAM", TEAM_ID=number, TEAM_NAME=f"Team {number}")
            ET.SubElement(team, "PLACE").text = _whole(s.place)
            ET.SubElement(team, "TOTAL_SCORE").text = f"{s.score:.2f}"


def _handset(root: ET.Element, dealset: DealSet, played: set[int]) -> None:
    boards = [b for b in dealset.boards if b.number in played and b.deal is not None]
    if not boards:
        return
    hs = ET.SubElement(root, "HANDSET")
    for b in boards:
        bd = ET.SubElement(hs, "BOARD")
        ET.SubElement(bd, "BOARD_NUMBER").text = str(b.number)
        for seat in Seat:
            hand = ET.SubElement(bd, "HAND")
            ET.SubElement(hand, "DIRECTION").text = seat.name.title()
            holding = b.deal[seat].to_pbn().split(".")  # type: ignore[index]
            for tag, cards in zip(("SPADES", "HEARTS", "DIAMONDS", "CLUBS"), holding,
                                  strict=True):
                ET.SubElement(hand, tag).text = cards


_DATE = (re.compile(r"(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})$"),  # 2026.11.24, ISO
         re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})$"))  # already dd/mm/yyyy


def usebio_date(date: str) -> str:
    """A date as USEBIO writes it (dd/mm/yyyy), or ``""`` when it is not a whole date.

    >>> usebio_date("2026.11.24"), usebio_date("2026-03-09"), usebio_date("2026.??.??")
    ('24/11/2026', '09/03/2026', '')
    """
    text = date.strip()
    m = _DATE[0].match(text)
    if m:
        y, mo, d = m.groups()
    else:
        m = _DATE[1].match(text)
        if not m:
            return ""
        d, mo, y = m.groups()
    if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31):
        return ""
    return f"{int(d):02d}/{int(mo):02d}/{y}"


def adjusted_score(ns: str, ew: str) -> str:
    """An artificial score as USEBIO's ``SCORE``: ``A`` and each side's percentage.

    >>> adjusted_score("A+", "A-"), adjusted_score("A", "A"), adjusted_score("55", "45")
    ('A6040', 'A5050', 'A5545')
    """
    return f"A{_percent(ns):02d}{_percent(ew):02d}"


def _percent(text: str) -> int:
    try:
        return Artificial.parse(text).value
    except EventError:
        try:
            return max(0, min(99, round(float(text.rstrip("%")))))
        except ValueError:
            return 50


def usebio_lead(lead: str | None) -> str:
    """The opening lead as USEBIO files write it, rank then suit (``"TH"`` for the panel's ``"HT"``).

    >>> usebio_lead("HT"), usebio_lead("SA"), usebio_lead(None)
    ('TH', 'AS', '')
    """
    if not lead:
        return ""
    if len(lead) == 2 and lead[0] in "SHDC":
        return lead[1] + lead[0]
    return lead


def number_text(v: float) -> str:
    """A score as a number: up to two decimals, no trailing zeros (``4``, ``4.33``, ``-3.5``)."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _whole(place: str) -> str:
    m = re.match(r"\d+", place.strip())
    return m.group(0) if m else place
