"""The results exports (CSV, PBN, USEBIO) against what other tools read (issue 16, finding 1).

The events are scored by the real scoring entry point; the files are read
back by the project's own strict PBN reader, by endplay, and by the elements
the public USEBIO importers read (see ``docs/formats.md`` for the sources).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import pytest

from dealer.events.score import Scored, score_event
from dealer.formats import results_csv
from dealer.store import results as rs


@dataclass
class Row:
    """A traveller row as the store keeps it (the writers' ``RecordedResult``)."""

    board: int
    section: str
    table_no: int
    round_no: int
    ns: int
    ew: int
    contract: str | None = None
    declarer: str | None = None
    lead: str | None = None
    tricks: int | None = None
    score: int | None = None
    ns_artificial: str | None = None
    ew_artificial: str | None = None
    not_played: bool = False
    fouled_group: int = 0


def _line(board: int, sec: str, table: int, ns: int, ew: int, contract: str, decl: str,
          tricks: int, score: int, lead: str = "HK") -> Row:
    return Row(board, sec, table, 1 if board <= 2 else 2, ns, ew, contract, decl, lead, tricks,
               score)


def two_sections() -> list[Row]:
    """Two Mitchell sections (A, B) of two tables, both lines numbered from 1, boards 1-2.

    Pair numbers repeat across the sections and between the lines: A1 NS, A1 EW,
    B1 NS and B1 EW are four different pairs, which is what the exports must keep apart.
    """
    rows = []
    for sec, bonus in (("A", 0), ("B", 1)):
        rows += [_line(1, sec, 1, 1, 1, "4S", "N", 10 + bonus, 420 + 30 * bonus),
                 _line(1, sec, 2, 2, 2, "4S", "N", 11, 450),
                 _line(2, sec, 1, 1, 2, "3NT", "S", 9, 400)]
    rows.append(Row(2, "A", 2, 1, 2, 1, ns_artificial="A+", ew_artificial="A-"))
    rows.append(_line(2, "B", 2, 2, 1, "2H", "E", 8, -110))
    return rows


def scored_mp(rows: list[Row]) -> Scored[Row]:
    s = score_event(rows, rs.as_results(rows), method="matchpoints", numbering="by_line")
    assert not s.problem, s.problem
    assert set(s.rankings) == {"NS", "EW"}  # two winners
    return s


# ----------------------------------------------------------------------------- CSV


def test_csv_ns_mp_is_real_matchpoints_and_the_percentages_have_their_own_column() -> None:
    rows = two_sections()
    out = list(csv.DictReader(io.StringIO(results_csv.to_csv(scored_mp(rows)))))
    assert list(out[0]) == list(results_csv.CSV_FIELDS)
    board1 = [r for r in out if r["board"] == "1"]
    # Board 1 across both sections: 420, 450, 450, 450 -> NS matchpoints 0, 4, 4, 4 (top 6).
    assert sorted(float(r["ns_mp"]) for r in board1) == [0.0, 4.0, 4.0, 4.0]
    for r in board1:
        assert float(r["ns_mp"]) + float(r["ew_mp"]) == pytest.approx(6.0)
        assert float(r["ns_pct"]) == pytest.approx(100 * float(r["ns_mp"]) / 6, abs=0.01)
        assert r["ns_imps"] == r["ew_imps"] == ""
    adjusted = next(r for r in out if r["ns_artificial"] == "A+")
    assert float(adjusted["ns_pct"]) >= 60.0 and adjusted["ns_mp"] != ""


def test_csv_imp_events_fill_the_imp_columns_not_the_matchpoint_ones() -> None:
    rows = [r for r in two_sections() if r.section == "A" and r.ns_artificial is None]
    s = score_event(rows, rs.as_results(rows), method="cross", numbering="unique")
    out = list(csv.DictReader(io.StringIO(results_csv.to_csv(s))))
    assert all(r["ns_mp"] == r["ns_pct"] == "" for r in out)
    assert {r["ns_imps"] for r in out} != {""}
