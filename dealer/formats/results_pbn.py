"""Results as PBN 2.1 export format: one game a board and section, each with its ``ScoreTable``.

Each game starts with the 15 mandatory tags in the standard's export order
(Event Site Date Board West North East South Dealer Vulnerable Deal Scoring
Declarer Contract Result), as a file saying ``% EXPORT`` must; the players,
contract and result of a board played at many tables are unknown there
(``"?"``). Then ``[Section "A"]`` and the table (PBN 2.1 section 5): the tag's
value is the column header, and every row is on a line of its own, so that
readers which only look at the lines after the tag (endplay) see them all.

Columns are the standard's (``PairId_NS``, ``Contract``, ``Result``,
``Score_NS``, ``MP_NS``, ``Percentage_NS``, ``IMP_NS`` ...) with ``Table``,
``Round`` and ``Lead`` as exporters add them. ``MP_NS``/``MP_EW`` are real
matchpoints; ``Percentage_NS``/``_EW`` the same as percentages of the top.
No cell holds a space: a quoted value with a space is split in two by
readers that split rows on white space (endplay), so a pair's line goes in a
``Direction`` column rather than after its number. An artificial score
writes ``-`` for contract, declarer and result (PBN 2.1 section 5.7) and the
adjustment (``A+``) in the score columns' place.

The first game of each section also carries that section's
``TotalScoreTable``, with a ``Names`` column when the pairs' players are known
(:attr:`Scored.players`): ``"Ann Smith - Bob Jones"``, quoted as PBN strings
are. A name holds spaces, so the column comes last: a reader that splits rows
on white space (endplay) finds it in the cells after the others. The
``ScoreTable`` has no ``Names_NS``/``Names_EW``: two free-text columns in one
row could not both be last, and the ``TotalScoreTable`` gives each ``PairId``
its names already. A sealed deal set's hands are never written (no
``Deal`` tag; each game is tagged ``[Sealed "Yes"]`` and the file headed by
the sealed comment, as :mod:`dealer.formats.sealing` has the PBN writer do).
"""

from __future__ import annotations

from dealer import __version__
from dealer.board import DealSet
from dealer.events.model import PairKey
from dealer.events.score import RecordedResult, Scored
from dealer.formats.pbn import deal_to_pbn, escape
from dealer.formats.results_csv import cell
from dealer.formats.sealing import PBN_COMMENT, SEALED_TAG, is_sealed
from dealer.seats import board_dealer, board_vulnerability

#: The Scoring tag by the panel's scoring method (PBN 2.1's MP and IMP).
SCORING = {"matchpoints": "MP", "butler": "IMP", "cross": "IMP", "teams": "IMP"}

_MP_COLUMNS = ("MP_NS\\5R", "MP_EW\\5R", "Percentage_NS\\3R", "Percentage_EW\\3R")
_IMP_COLUMNS = ("IMP_NS\\6R", "IMP_EW\\6R")


def to_pbn(name: str, date: str, scored: Scored[RecordedResult], dealset: DealSet | None,
           scoring: str = "matchpoints") -> bytes:
    """The event's results as a PBN file (the deals from ``dealset`` unless it is sealed)."""
    boards = {b.number: b for b in dealset.boards} if dealset is not None else {}
    # A sealed set (its flag or any board's [Sealed "Yes"]) stays sealed in its results.
    hide = dealset is not None and is_sealed(dealset)
    mp = scoring == "matchpoints" and scored.event is not None and bool(scored.points)
    header = ["Table\\2R", "Round\\2R", "PairId_NS\\3R", "PairId_EW\\3R", "Contract\\5L",
              "Declarer\\1R", "Result\\2R", "Lead\\2L", "Score_NS\\5R", "Score_EW\\5R",
              *(_MP_COLUMNS if mp else _IMP_COLUMNS)]
    out = ["% PBN 2.1", "% EXPORT", f"% Creator: boardwright {__version__}",
           *([PBN_COMMENT] if hide else []), ""]
    sections = sorted({r.section for lines in scored.travellers.values() for r, _, _ in lines})
    for section in sections:
        first = True
        for number, lines in sorted(scored.travellers.items()):
            mine = [ln for ln in lines if ln[0].section == section]
            if not mine:
                continue
            src = boards.get(number)
            dealer = src.dealer if src and src.dealer is not None else board_dealer(number)
            vul = (src.vulnerability if src and src.vulnerability is not None
                   else board_vulnerability(number))
            tags = [("Event", name), ("Site", "?"), ("Date", date or "?"),
                    ("Board", str(number)), ("West", "?"), ("North", "?"), ("East", "?"),
                    ("South", "?"), ("Dealer", dealer.letter), ("Vulnerable", vul.value)]
            if src is not None and src.deal is not None and not hide:
                tags.append(("Deal", deal_to_pbn(src.deal)))
            tags += [("Scoring", SCORING.get(scoring, "MP")), ("Declarer", "?"),
                     ("Contract", "?"), ("Result", "?"), ("Section", section)]
            if hide:  # as the PBN writer marks a sealed board (dealer/formats/sealing.py)
                tags.append((SEALED_TAG, "Yes"))
            out += [f'[{k} "{escape(v)}"]' for k, v in tags]
            out.append(f'[ScoreTable "{";".join(header)}"]')
            out += [_row(scored, r, nsv, ewv, mp) for r, nsv, ewv in mine]
            if first:
                out += _totals(scored, section, mp)
                first = False
            out.append("")
    return ("\n".join(out) + "\n").encode("utf-8")


def _row(scored: Scored[RecordedResult], r: RecordedResult, nsv: float | None,
         ewv: float | None, mp: bool) -> str:
    if r.ns_artificial:  # PBN 5.7: "-" for contract, declarer and result
        contract = decl = tricks = "-"
        ns_score, ew_score = _quoted(r.ns_artificial), _quoted(r.ew_artificial or "")
    else:
        contract = "".join((r.contract or "-").split())
        decl = r.declarer or "-"
        tricks = "-" if r.tricks is None else str(r.tricks)
        ns_score = "-" if r.score is None else str(r.score)
        ew_score = "-" if r.score is None else str(-r.score)
    cells = [str(r.table_no), str(r.round_no), str(r.ns), str(r.ew), contract, decl, tricks,
             r.lead or "-", ns_score, ew_score]
    if mp:
        points = scored.matchpoints(r)
        ns_mp, ew_mp = (points[0], points[1]) if points else (None, None)
        cells += [cell(ns_mp) or "-", cell(ew_mp) or "-", cell(nsv) or "-", cell(ewv) or "-"]
    else:
        cells += [cell(nsv) or "-", cell(ewv) or "-"]
    return " ".join(cells)


def _totals(scored: Scored[RecordedResult], section: str, mp: bool) -> list[str]:
    """The section's ``TotalScoreTable``: each pair's overall rank, line and score, and its
    players' names when any pair of the event has them."""
    named = any(k.section == section for k in scored.players)
    rows = []
    for line, standings in scored.rankings.items():
        for s, p in zip(standings, scored.placings.get(line, []), strict=False):
            key = p.key
            if not isinstance(key, PairKey) or key.section != section:
                continue
            direction = key.line or line or "-"
            if mp:
                row = (f"{p.position} {key.number} {direction} {s.total or 0.0:.2f} "
                       f"{s.score:.2f} {s.boards}")
            else:
                row = f"{p.position} {key.number} {direction} {s.score:.2f} {s.boards}"
            if named:
                who = scored.names(key, " - ")
                row += f' "{escape(who)}"' if who else " -"
            rows.append(row)
    if not rows:
        return []
    cols: list[str] = (["Rank\\2R", "PairId\\3R", "Direction\\2L", "TotalMP\\6R",
                        "TotalPercentage\\6R", "NrBoards\\2R"] if mp else
                       ["Rank\\2R", "PairId\\3R", "Direction\\2L", "TotalIMP\\6R",
                        "NrBoards\\2R"])
    if named:
        cols.append("Names\\40L")
    return [f'[TotalScoreTable "{";".join(cols)}"]', *rows]


def _quoted(value: str) -> str:
    """A string cell: quoted, with no white space inside (see the module's note)."""
    token = "".join(value.split()).replace('"', "")
    return f'"{token}"' if token else "-"
