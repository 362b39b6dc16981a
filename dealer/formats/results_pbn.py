"""Results as PBN: each board with its ``ScoreTable``, the first with the ``TotalScoreTable``.

PBN tables follow PBN 2.1 section 5 (tables): a tag whose value is the
column header, then one line per row.
"""

from __future__ import annotations

from dealer.board import Board, DealSet
from dealer.events.score import RecordedResult, Scored
from dealer.formats import pbn
from dealer.formats.results_csv import cell
from dealer.seats import board_dealer, board_vulnerability


def to_pbn(name: str, date: str, scored: Scored[RecordedResult], dealset: DealSet | None
           ) -> bytes:
    """The event's results as a PBN file (the deals from ``dealset`` where it has them)."""
    boards = {b.number: b for b in dealset.boards} if dealset is not None else {}
    out = []
    first = True
    for number, lines in sorted(scored.travellers.items()):
        src = boards.get(number)
        b = Board(number, src.deal if src else None,
                  dealer=src.dealer if src else board_dealer(number),
                  vulnerability=src.vulnerability if src else board_vulnerability(number))
        b.tags.update({"Event": name, "Site": "", "Date": date or "?", "Board": str(number)})
        b.tags["ScoreTable"] = ("PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;"
                                "Result\\2R;Lead\\3L;Score_NS\\6R;MP_NS\\6R;MP_EW\\6R")
        rows = []
        for r, nsv, ewv in lines:
            contract = r.contract or (f"{r.ns_artificial}/{r.ew_artificial}"
                                      if r.ns_artificial else "-")
            rows.append(f'{r.ns:>2} {r.ew:>2} "{contract}" "{r.declarer or "-"}" '
                        f'{"-" if r.tricks is None else r.tricks:>2} "{r.lead or "-"}" '
                        f'{"-" if r.score is None else r.score:>6} {cell(nsv) or "-":>6} '
                        f'{cell(ewv) or "-":>6}')
        b.sections["ScoreTable"] = "\n".join(rows)
        if first:
            b.tags["TotalScoreTable"] = "Rank\\3R;PairId\\4R;Line\\2L;Score\\7R;Boards\\2R"
            total = []
            for line, standings in scored.rankings.items():
                for s in standings:
                    total.append(f'"{s.place}" "{s.pair}" "{line or "-"}" {s.score:>7.2f} '
                                 f"{s.boards:>2}")
            b.sections["TotalScoreTable"] = "\n".join(total)
            first = False
        out.append(b)
    return pbn.dumps(DealSet(boards=out, meta={"Event": name, "Date": date}))
