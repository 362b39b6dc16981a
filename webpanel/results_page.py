"""What the public results page shows, gathered once for the page, its print and its export.

The page holds the ranking, every traveller, the hand records with their
double-dummy table and par (never for a sealed deal set) and each pair's
personal score card. A matchpoint card comes from the core's
:func:`dealer.events.rankings.score_card` (matchpoints and the board's top);
an IMP pairs card is read from the travellers (the IMPs each line scored for
the pair). A teams event has no pair cards: its travellers carry the matches.

Nothing here writes, and nothing here knows who asks: the caller decides
whether the event may be shown (published, :mod:`dealer.store.results.publication`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup

from dealer.events.matchpoints import MatchpointEvent
from dealer.events.model import EventError, PairKey
from dealer.events.rankings import score_card
from dealer.events.score import Scored
from dealer.events.sessions import CombinedStanding, check_units, combine
from dealer.formats.sealing import is_sealed
from dealer.store import results as rs
from dealer.store.models import Event
from dealer.store.panel_models import ClubEvent
from dealer.store.repository import Store
from webpanel import handrecord
from webpanel.scoring import score_event


@dataclass
class CardRow:
    """One board on a pair's score card, from that pair's side."""

    board: int
    round: int | None
    direction: str
    opponents: str
    contract: str
    tricks: int | None
    score: int | None
    value: str  # "3.0/4 (75.00%)" or "+5.0 IMPs"
    note: str = ""


@dataclass
class Card:
    pair: str
    anchor: str
    rows: list[CardRow]
    total: str


@dataclass
class BoardView:
    number: int
    lines: list[tuple[Any, float | None, float | None]]
    diagram: Markup | str = ""


@dataclass
class Page:
    """Everything the results page shows."""

    ce: ClubEvent
    name: str
    date: str
    scored: Scored[Any]
    boards: list[BoardView]
    cards: list[Card]
    sealed: bool
    unit: str  # "%", "IMPs" or "VPs": what a traveller's two value columns hold
    published_at: datetime | None
    final_at: datetime | None
    provisional: bool  # inside the correction period: the scores may still change
    sessions: int = 1  # the sessions of its event (a combined ranking when more than one)
    notes: list[str] = field(default_factory=list)

    def anchor(self, pair: str) -> str:
        return anchor(pair)


def anchor(pair: str) -> str:
    """An element id for a pair's card: ``A3 EW`` -> ``card-A3-EW``."""
    return "card-" + "-".join(pair.split())


def contract_text(row: Any) -> str:
    """A traveller's contract in words: ``4SX by N``, ``passed out``, ``A+/A-``, ``not played``."""
    if getattr(row, "ns_artificial", None):
        return f"{row.ns_artificial}/{row.ew_artificial}"
    if getattr(row, "weighted", None):  # Law 12C1(c): its parts, each with its share
        return f"weighted {row.weighted}"
    if getattr(row, "not_played", False):
        return "not played"
    c = getattr(row, "contract", None)
    if c == "PASS":
        return "passed out"
    if not c:
        return ""
    return f"{c} {row.declarer or ''}".strip()


def build(store: Store, ce_id: int, *, analysis: bool = True) -> Page:
    """The results page of club event ``ce_id`` as it stands now.

    ``analysis=False`` (the director's confirmation page, which shows no board): the
    hand records without their double-dummy tables, nothing solved in the request;
    the boards are solved in the background for the players' page instead.
    """
    ce = rs.get_event(store, ce_id)
    name, date = rs.event_name(store, ce_id)
    scored = score_event(store, ce_id)
    ds = rs.dealset_of(store, ce)
    sealed = ds is not None and is_sealed(ds)
    deals = {} if ds is None or sealed else {b.number: b for b in ds.boards}
    numbers = set(scored.travellers)
    for sec in ce.sections:
        try:
            numbers |= {b for s in rs.movement(store, ce_id, sec).sittings for b in s.boards}
        except EventError:  # a movement that no longer builds: the results still show
            pass
    played = [deals[n] for n in sorted(numbers) if n in deals]
    shown = handrecord.board_fragments(played, store.engine, analysis=analysis)
    if not analysis:
        handrecord.ahead(played)
    boards = [BoardView(n, scored.travellers.get(n, []), shown.get(n, ""))
              for n in sorted(numbers)]
    unit = next((s.unit for sts in scored.rankings.values() for s in sts), "%")
    m = rs.movement(store, ce_id, ce.sections[0])
    return Page(ce, name, date, scored, boards, _cards(scored, m.numbering), sealed, unit,
                ce.published_at, rs.undo_until(ce), rs.may_unpublish(ce),
                len(rs.sessions(store, ce_id)))


def _cards(scored: Scored[Any], numbering: str) -> list[Card]:
    if isinstance(scored.event, MatchpointEvent):
        return [_mp_card(scored.event, p.key) for places in scored.placings.values()
                for p in places]
    if scored.event is not None and "" in scored.placings:  # IMP pairs
        return [_imp_card(scored, p.key, numbering) for p in scored.placings[""]]
    return []


def _mp_card(event: MatchpointEvent, key: PairKey) -> Card:
    rows = []
    for c in score_card(event, key):
        pct = "" if c.percent is None else f" ({c.percent:.2f}%)"
        value = "" if c.mp is None else f"{c.mp:g}/{c.top:g}{pct}"
        opp = f"{key.section}{c.opponents}"
        rows.append(CardRow(c.board, c.round, c.direction, opp, c.contract, c.tricks,
                            c.score, value, c.note))
    t = event.totals[key]
    return Card(str(key), anchor(str(key)), rows,
                f"{t.mp:g} of {t.top:g} matchpoints = {t.percent:.2f}% over {t.boards} boards")


def _imp_card(scored: Scored[Any], key: PairKey, numbering: str) -> Card:
    rows, total = [], 0.0
    for number, lines in sorted(scored.travellers.items()):
        for row, ns_v, ew_v in lines:
            line_ns = "" if numbering == "unique" else "NS"
            line_ew = "" if numbering == "unique" else "EW"
            if row.section != key.section:
                continue
            if (line_ns, row.ns) == (key.line, key.number):
                side, opp, v, sign = "NS", row.ew, ns_v, 1
            elif (line_ew, row.ew) == (key.line, key.number):
                side, opp, v, sign = "EW", row.ns, ew_v, -1
            else:
                continue
            total += v or 0.0
            score = None if row.score is None else sign * row.score
            rows.append(CardRow(number, row.round_no, side, f"{row.section}{opp}",
                                contract_text(row), row.tricks, score,
                                "" if v is None else f"{v:+.1f} IMPs"))
    rows.sort(key=lambda r: (r.round or 0, r.board))
    return Card(str(key), anchor(str(key)), rows, f"{total:+.1f} IMPs over {len(rows)} boards")


@dataclass
class CombinedPage:
    """A multi-session event's combined ranking (:mod:`dealer.events.sessions`)."""

    name: str
    sessions: list[tuple[ClubEvent, Event]]  # those combined, in order
    waiting: list[tuple[ClubEvent, Event]]  # in the group, not combined (no results, or
    #                                          not published on the players' page)
    rankings: dict[str, list[CombinedStanding]]
    unit: str
    problem: str = ""
    names: dict[str, str] = field(default_factory=dict)  # pair label -> its players

    def names_of(self, pair: str) -> str:
        """A pair's names (from the latest counted session that has them)."""
        return self.names.get(pair, "")


def combined(store: Store, ce_id: int, *, published_only: bool) -> CombinedPage:
    """The combined ranking of the sessions of ``ce_id``'s event that have results (and,
    for the players, that are published: an unpublished session shows nothing)."""
    group = rs.sessions(store, ce_id)
    counted, waiting = [], []
    tables: list[dict[str, dict[str, float]]] = []
    names: dict[str, str] = {}
    for ce, ev in group:
        scored = score_event(store, ce.id) if not published_only or ce.published_at else None
        sts = {line: {s.pair: s.score for s in standings if s.compared}
               for line, standings in (scored.rankings.items() if scored else ())}
        if scored is None or not any(sts.values()):
            waiting.append((ce, ev))
            continue
        counted.append((ce, ev))
        tables.append(sts)
        # The pair's names as the latest session that has them says (a pair keeps its
        # number from session to session; a player may have changed).
        names.update({s.pair: n for standings in scored.rankings.values() for s in standings
                      if (n := scored.names(s.pair))})
    name = group[0][1].name if group else ""
    try:
        unit = check_units([rs.unit_of(ce) for ce, _ev in group])
        rankings = combine(tables, unit) if tables else {}
    except EventError as exc:
        return CombinedPage(name, counted, waiting, {}, "", str(exc), names)
    return CombinedPage(name, counted, waiting, rankings, unit, names=names)
