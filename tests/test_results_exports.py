"""The results exports (CSV, PBN, USEBIO) against what other tools read (issue 16, finding 1).

The events are scored by the real scoring entry point; the files are read
back by the project's own strict PBN reader, by endplay, and by the elements
the public USEBIO importers read (see ``docs/formats.md`` for the sources).
"""

from __future__ import annotations

import csv
import io
import re
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
import xmltodict
from endplay.parsers import pbn as endplay_pbn

from dealer import __version__
from dealer.board import DealSet
from dealer.events.model import PairKey
from dealer.events.score import Scored, score_event
from dealer.formats import pbn, results_csv, results_pbn, usebio
from dealer.generate import random_dealset
from dealer.seats import Seat
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
    swapped: bool = False


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


# ----------------------------------------------------------------------------- USEBIO


def howell() -> list[Row]:
    """One section, pairs 1-4 numbered uniquely and playing both directions: one winner."""
    return [_line(1, "A", 1, 1, 2, "4S", "N", 10, 420), _line(1, "A", 2, 3, 4, "4S", "N", 9, -50),
            _line(2, "A", 1, 4, 1, "3NT", "S", 9, 400), _line(2, "A", 2, 2, 3, "3NT", "S", 10, 430)]


def usebio_xml(rows: list[Row], scoring: str = "matchpoints", **kw: Any) -> ET.Element:
    numbering = "by_line" if any(r.section == "B" for r in rows) else "unique"
    s = score_event(rows, rs.as_results(rows), method=scoring, numbering=numbering)
    assert not s.problem, s.problem
    data = usebio.to_usebio("Monday pairs", "2026.11.24", "pairs", scoring, s,
                            kw.pop("dealset", None), **kw)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE USEBIO SYSTEM ')
    return ET.fromstring(data)


def _sections(root: ET.Element) -> list[ET.Element]:
    """Where PARTICIPANTS and BOARD sit: each SECTION, or the EVENT itself for one section."""
    ev = root.find("EVENT")
    assert ev is not None
    return ev.findall("SESSION/SECTION") or [ev]


def test_usebio_pair_numbers_join_the_travellers_and_two_sections_do_not_collide() -> None:
    root = usebio_xml(two_sections())
    secs = _sections(root)
    assert [s.get("SECTION_ID") for s in secs] == ["A", "B"]
    assert root.findtext("EVENT/SECTION_COUNT") == "2"
    all_ids: list[str] = []
    for sec in secs:
        ids = [p.findtext("PAIR_NUMBER") or "" for p in sec.findall("PARTICIPANTS/PAIR")]
        all_ids += ids
        assert len(ids) == 4  # 1NS 2NS 1EW 2EW of this section
        for tl in sec.findall("BOARD/TRAVELLER_LINE"):
            assert tl.findtext("NS_PAIR_NUMBER") in ids and tl.findtext("EW_PAIR_NUMBER") in ids
            ns = next(p for p in sec.findall("PARTICIPANTS/PAIR")
                      if p.findtext("PAIR_NUMBER") == tl.findtext("NS_PAIR_NUMBER"))
            assert ns.findtext("DIRECTION") == "NS"
    assert len(all_ids) == len(set(all_ids)) == 8  # A1NS and B1NS are different pairs
    assert "A1NS" in all_ids and "B1EW" in all_ids


def test_usebio_event_header_has_what_importers_read() -> None:
    root = usebio_xml(two_sections(), club="Hillside BC", club_id="2074")
    assert root.tag == "USEBIO" and root.get("Version") == "1.2"
    assert root.findtext("CLUB/CLUB_NAME") == "Hillside BC"
    assert root.findtext("CLUB/CLUB_ID_NUMBER") == "2074"
    ev = root.find("EVENT")
    assert ev is not None and ev.get("EVENT_TYPE") == "MP_PAIRS"
    assert ev.findtext("PROGRAM_NAME") == "boardwright"
    assert ev.findtext("PROGRAM_VERSION") == __version__
    assert ev.findtext("DATE") == "24/11/2026"
    assert datetime.strptime(ev.findtext("DATE") or "", "%d/%m/%Y")  # as cobalt reads it
    assert ev.findtext("BOARD_SCORING_METHOD") == "MATCH_POINTS"
    assert ev.findtext("WINNER_TYPE") == "2"  # two-winner Mitchell
    assert usebio_xml(howell()).findtext("EVENT/WINNER_TYPE") == "1"  # one winner


@pytest.mark.parametrize(("scoring", "method", "event_type", "line_tag"), [
    ("butler", "IMPS", "BUTLER_PAIRS", "NS_BUTLER_POINTS"),
    ("cross", "CROSS_IMPS", "CROSS_IMP", "NS_CROSS_IMP_POINTS")])
def test_usebio_imp_scoring_is_spelled_as_usebio_files_spell_it(
        scoring: str, method: str, event_type: str, line_tag: str) -> None:
    root = usebio_xml(howell(), scoring)
    assert root.findtext("EVENT/BOARD_SCORING_METHOD") == method
    assert root.find("EVENT").get("EVENT_TYPE") == event_type  # type: ignore[union-attr]
    lines = root.findall("EVENT/BOARD/TRAVELLER_LINE")
    assert lines and all(tl.findtext(line_tag) is not None for tl in lines)
    assert all(p.findtext("PERCENTAGE") is None and p.findtext("TOTAL_SCORE")
               for p in root.findall("EVENT/PARTICIPANTS/PAIR"))


def test_usebio_match_points_are_matchpoints_and_percentages_sit_on_the_pair() -> None:
    root = usebio_xml(two_sections())
    for sec in _sections(root):
        for tl in sec.findall("BOARD[BOARD_NUMBER='1']/TRAVELLER_LINE"):
            ns, ew = float(tl.findtext("NS_MATCH_POINTS") or ""), float(
                tl.findtext("EW_MATCH_POINTS") or "")
            assert ns + ew == pytest.approx(6.0)  # 4 results across the field: top 6
        for p in sec.findall("PARTICIPANTS/PAIR"):
            assert 0.0 <= float(p.findtext("PERCENTAGE") or "") <= 100.0
            assert float(p.findtext("TOTAL_SCORE") or "") <= 12.0  # matchpoints, 2 boards
    a1ns = root.find(".//PAIR[PAIR_NUMBER='A1NS']")
    assert a1ns is not None and a1ns.findtext("TOTAL_SCORE") == "4.33"


def test_usebio_adjusted_score_is_an_a_score_as_importers_expect() -> None:
    root = usebio_xml(two_sections())
    adj = [tl for tl in root.iter("TRAVELLER_LINE") if (tl.findtext("SCORE") or "")[:1] == "A"]
    assert len(adj) == 1
    tl = adj[0]
    assert tl.findtext("SCORE") == "A6040" and tl.find("CONTRACT") is None
    assert int((tl.findtext("SCORE") or "")[1:3]) == 60  # cobalt: "A5050 ... use 1:3"
    assert float(tl.findtext("NS_MATCH_POINTS") or "") > float(tl.findtext("EW_MATCH_POINTS")
                                                               or "")
    assert not any(t.tag.endswith("ARTIFICIAL") for t in root.iter())  # no made-up elements


def test_usebio_a_swapped_line_names_the_pairs_that_sat_there_by_their_own_lines() -> None:
    # Section A of two_sections(), board 1 at table 2: EW pair 2 sat North-South and NS
    # pair 2 East-West (the desk's "Swap NS/EW"). The line's pairs keep their field.
    rows = [r for r in two_sections() if r.section == "A"]
    rows[1].swapped = True
    names = {PairKey("A", "NS", 2): [usebio.Player("Nora North"), usebio.Player("Sam South")],
             PairKey("A", "EW", 2): [usebio.Player("Eve East"), usebio.Player("Walt West")]}
    s = score_event(rows, rs.as_results(rows), method="matchpoints", numbering="by_line")
    assert not s.problem, s.problem
    got = _read_like_cobalt(usebio.to_usebio("Monday", "2026.11.24", "pairs", "matchpoints",
                                             s, random_dealset(range(1, 3)), players=names))
    swapped = [ln for ln in got["lines"] if ln[4] == 450]
    assert [(ln[0], ln[1]) for ln in swapped] == [("Eve East & Walt West",
                                                   "Nora North & Sam South")]
    root = ET.fromstring(usebio.to_usebio("Monday", "2026.11.24", "pairs", "matchpoints", s,
                                          players=names))
    line = next(tl for tl in root.iter("TRAVELLER_LINE") if tl.findtext("SCORE") == "450")
    assert (line.findtext("NS_PAIR_NUMBER"), line.findtext("EW_PAIR_NUMBER")) == ("2EW", "2NS")


def test_usebio_players_two_per_pair_named_when_a_member_list_gives_names() -> None:
    rows = howell()
    names = {PairKey("A", "", 3): [usebio.Player("Ann Lee", "123"), usebio.Player("Bo Ng")]}
    root = usebio_xml(rows, players=names)
    for p in root.findall("EVENT/PARTICIPANTS/PAIR"):
        players = p.findall("PLAYER")
        assert len(players) == 2
        assert all(pl.find("NATIONAL_ID_NUMBER") is not None for pl in players)
        got = [pl.findtext("PLAYER_NAME") for pl in players]
        if p.findtext("PAIR_NUMBER") == "3":
            assert got == ["Ann Lee", "Bo Ng"]
            assert players[0].findtext("NATIONAL_ID_NUMBER") == "123"
        else:
            assert got == [usebio.UNKNOWN_PLAYER] * 2


def test_usebio_handset_has_the_hands_unless_the_set_is_sealed() -> None:
    ds = random_dealset(range(1, 3))
    root = usebio_xml(howell(), dealset=ds)
    hands = root.findall("HANDSET/BOARD[BOARD_NUMBER='1']/HAND")
    assert [h.findtext("DIRECTION") for h in hands] == ["North", "East", "South", "West"]
    north = ds.boards[0].deal[Seat.NORTH].to_pbn().split(".")  # type: ignore[index]
    assert [hands[0].findtext(s) or "" for s in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")] == north
    ds.sealed = True
    assert usebio_xml(howell(), dealset=ds).find("HANDSET") is None


def _read_like_cobalt(data: bytes) -> dict[str, Any]:
    """ABF cobalt's import of an MP pairs file, replayed: the same parse call and the same
    element look-ups, over our bytes.

    abftech/cobalt (GPL-3.0), read not copied:
    ``results/views/usebio.py`` parse_usebio_file (``xmltodict.parse(xml,
    force_list=("TRAVELLER_LINE",))["USEBIO"]``) and
    create_player_records_from_usebio_format_pairs;
    ``organisations/views/club_menu_tabs/results.py`` (``@EVENT_TYPE`` in its list,
    DATE by ``%d/%m/%Y``); ``results/views/results_views.py``
    usebio_mp_pairs_results_summary_view_two_field / _single_field,
    _get_traveller_info_process_board and the HANDSET board view.
    """
    usebio = xmltodict.parse(data, force_list=("TRAVELLER_LINE",))["USEBIO"]
    ev = usebio["EVENT"]
    assert ev["@EVENT_TYPE"] in ("MP_PAIRS", "CROSS_IMP", "BUTLER_PAIRS")
    datetime.strptime(ev.get("DATE"), "%d/%m/%Y")
    assert ev["WINNER_TYPE"] in ("1", "2")
    names = {}
    for item in ev["PARTICIPANTS"]["PAIR"]:
        player_1 = item["PLAYER"][0]["PLAYER_NAME"].title()
        player_2 = item["PLAYER"][1]["PLAYER_NAME"].title()
        try:
            int(item["PLAYER"][0]["NATIONAL_ID_NUMBER"])
            int(item["PLAYER"][1]["NATIONAL_ID_NUMBER"])
        except TypeError:
            pass
        int(item["PLACE"])
        float(item["PERCENTAGE"])
        if ev["WINNER_TYPE"] == "2":
            assert item["DIRECTION"] in ("NS", "EW")
        names[item["PAIR_NUMBER"]] = f"{player_1} & {player_2}"
    lines = []
    for board in ev["BOARD"]:
        int(board.get("BOARD_NUMBER"))
        for tl in board.get("TRAVELLER_LINE"):
            score = tl.get("SCORE")
            try:
                score = int(score)
            except (ValueError, TypeError):
                pass
            ew_mp = float(tl.get("EW_MATCH_POINTS"))
            ns_mp = float(tl.get("NS_MATCH_POINTS"))
            if isinstance(score, str):
                int(score[1:3])  # "A5050 ... use 1:3 as percentage"
            lines.append((names[tl.get("NS_PAIR_NUMBER")], names[tl.get("EW_PAIR_NUMBER")],
                          ns_mp, ew_mp, score))
    hands = {}
    for board in usebio["HANDSET"]["BOARD"]:
        hands[int(board["BOARD_NUMBER"])] = {h["DIRECTION"]: h["SPADES"] for h in board["HAND"]}
    return {"names": names, "lines": lines, "hands": hands}


def test_usebio_one_section_reads_as_cobalt_reads_it() -> None:
    rows = [r for r in two_sections() if r.section == "A"]
    s = score_event(rows, rs.as_results(rows), method="matchpoints", numbering="by_line")
    ds = random_dealset(range(1, 3))
    got = _read_like_cobalt(usebio.to_usebio("Monday", "2026.11.24", "pairs", "matchpoints",
                                             s, ds))
    assert len(got["names"]) == 4 and set(got["names"].values()) == {"Unknown & Unknown"}
    assert len(got["lines"]) == len(rows)
    assert sorted(ln[4] for ln in got["lines"] if isinstance(ln[4], str)) == ["A6040"]
    # A void is an empty element, which xmltodict reads as None (random deals have voids).
    assert (got["hands"][1]["North"] or "") == ds.boards[0].deal[Seat.NORTH].to_pbn().split(".")[0]  # type: ignore[index]


def test_usebio_two_sections_read_as_importusebio_reads_them() -> None:
    """marcshearer/ImportUsebio "Usebio Parser.swift": SESSION and SECTION are read as
    the EVENT itself, every PAIR goes in one list, PAIR_NUMBER is its id, and
    ScoringMethod(BOARD_SCORING_METHOD) must be one it knows."""
    root = usebio_xml(two_sections())
    ev = root.find("EVENT")
    assert ev is not None
    pairs = [p.findtext("PAIR_NUMBER") for p in ev.iter("PAIR")]
    assert len(pairs) == len(set(pairs)) == 8
    known = {"vps", "imps", "match_points", "percentage", "cross_imps", "aggregate"}
    for scoring in ("matchpoints", "butler", "cross"):
        root = usebio_xml(howell(), scoring)
        assert (root.findtext("EVENT/BOARD_SCORING_METHOD") or "").lower() in known


# ----------------------------------------------------------------------------- PBN


def _pbn(rows: list[Row], dealset: DealSet | None = None, scoring: str = "matchpoints"
         ) -> bytes:
    numbering = "by_line" if any(r.section == "B" for r in rows) else "unique"
    s = score_event(rows, rs.as_results(rows), method=scoring, numbering=numbering)
    return results_pbn.to_pbn("Monday pairs", "2026.11.24", s, dealset, scoring)


def test_pbn_results_read_back_strictly_without_a_warning_mandatory_tags_first() -> None:
    data = _pbn(two_sections(), random_dealset(range(1, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        ds = pbn.loads(data, strict=True)
    assert [(b.number, b.tags.get("Section")) for b in ds.boards] == [
        (1, "A"), (2, "A"), (1, "B"), (2, "B")]
    assert data.startswith(b"% PBN 2.1\n% EXPORT\n")
    for game in data.decode().split("\n\n")[1:]:
        if not game.strip():
            continue
        names = re.findall(r'^\[(\w+) "', game, re.M)
        assert names[:15] == list(pbn.MANDATORY_TAGS)  # export order, first
        assert names.count("Board") == 1
        assert '[Scoring "MP"]' in game
        head = re.search(r'\[ScoreTable "[^"]*"\](.*)$', game, re.M)
        assert head is not None and head.group(1) == ""  # no row on the tag's line


def test_pbn_results_through_endplay_keep_every_row_pair_and_section() -> None:
    rows = two_sections()
    boards = endplay_pbn.loads(_pbn(rows, random_dealset(range(1, 3))).decode())
    assert len(boards) == 4
    seen = []
    for b in boards:
        table = b.info["ScoreTable"]
        cols = [h["name"] if isinstance(h, dict) else h for h in table["headers"]]
        for row in table["rows"]:
            assert len(row) == len(cols)  # no cell split in two
            cell_ = dict(zip(cols, row, strict=True))
            seen.append((b.info["Section"], b.board_num, int(cell_["PairId_NS"]),
                         int(cell_["PairId_EW"])))
            if cell_["MP_NS"] != "-":
                assert float(cell_["MP_NS"]) + float(cell_["MP_EW"]) <= 6.4 + 1e-9
                assert float(cell_["Percentage_NS"]) == pytest.approx(
                    100 * float(cell_["MP_NS"]) / 6, abs=0.1)
    assert sorted(seen) == sorted((r.section, r.board, r.ns, r.ew) for r in rows)
    totals = [b.info["TotalScoreTable"] for b in boards if "TotalScoreTable" in b.info]
    assert len(totals) == 2  # one per section
    pairs = {(row[1], row[2]) for t in totals for row in t["rows"]}
    assert pairs == {("1", "NS"), ("2", "NS"), ("1", "EW"), ("2", "EW")}
    assert sum(len(t["rows"]) for t in totals) == 8


def test_pbn_scoring_tag_and_imp_columns_for_imp_events() -> None:
    data = _pbn(howell(), scoring="butler").decode()
    assert '[Scoring "IMP"]' in data and ";IMP_NS" in data and ";MP_NS" not in data
    assert "-0.00" not in data


def test_pbn_results_of_a_sealed_set_have_no_deal() -> None:
    ds = random_dealset(range(1, 3))
    ds.sealed = True
    data = _pbn(howell(), ds)
    assert b"[Deal " not in data and b"[ScoreTable " in data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(pbn.loads(data, strict=True).boards) == 2
