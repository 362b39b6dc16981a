"""The director's events and deal sets on the panel: the movements clubs run (half table,
arrow switch, skip or relay, EW offset), a deal set too short for the movement, editing and
deleting events and deal sets. Through Flask's test client on a real SQLite file."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from flask import Flask
from web_helpers import csrf, director, make_app, new_event, table_tokens

from dealer.generate import random_dealset
from dealer.store import results as rs
from webpanel.db import store


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


@pytest.fixture
def client(app: Flask):
    c = app.test_client()
    director(c)
    return c


def _post_event(client, **form: str):
    data = {"name": "Club pairs", "date": "2026.11.24", "kind": "pairs",
            "movement": "mitchell", "tables": "3", "boards_per_round": "2", "sections": "A",
            "scoring": "matchpoints", "deal_set_id": ""}
    data.update(form)
    data["csrf_token"] = csrf(client, "/events/new")
    return client.post("/events/new", data=data)


def _movement(app: Flask, ce: int):
    with app.app_context():
        return rs.movement(store(), ce)


def _set(app: Flask, boards: int) -> int:
    with app.app_context():
        return store().save(random_dealset(range(1, boards + 1)), name=f"{boards} boards")


def test_a_six_and_a_half_table_mitchell_with_an_arrow_switch_in_the_last_round(
        app: Flask, client) -> None:
    r = _post_event(client, tables="7", half_table="on", arrow_switch="last",
                    boards_per_round="4")
    assert r.status_code == 302, r.get_data(as_text=True)
    ce = int(r.headers["Location"].rstrip("/").split("/")[-1])
    m = _movement(app, ce)
    assert m.problems() == [] and m.rounds == 7 and m.winners == 1
    assert {p for _, p in m.pairs()} == set(range(1, 14))  # 13 pairs: EW 14 is missing
    assert all(s.switched for s in m.round(7)) and not any(s.switched for s in m.round(6))
    assert sum(1 for s in m.sittings if 0 in (s.ns, s.ew)) == 7  # one sit-out a round
    page = client.get(f"/events/{ce}").get_data(as_text=True)
    assert "arrow switch [7]" in page and "EW pair 14 is missing" in page
    assert len(table_tokens(app, ce)) == 7


@pytest.mark.parametrize(("form", "check"), [
    ({"movement": "howell", "tables": "4", "half_table": "on"},
     lambda m: m.rounds == 7 and {p for _, p in m.pairs()} == set(range(1, 8))),
    ({"movement": "howell", "tables": "3", "missing_pair": "2"},
     lambda m: 2 not in {p for _, p in m.pairs()}),
    ({"tables": "6", "method": "skip"},
     lambda m: m.rounds == 5 and "skip" in m.name),
    ({"tables": "6", "method": "relay"},
     lambda m: m.rounds == 6 and "relay" in m.name),
    ({"tables": "5", "ew_offset": "10"},
     lambda m: {s.ew for s in m.sittings} == set(range(11, 16)) and m.numbering == "unique"),
    ({"tables": "5", "missing_pair": "NS 2"},
     lambda m: all(s.ns != 2 for s in m.sittings) and m.problems() == []),
])
def test_the_new_event_form_offers_the_core_movements(app: Flask, client, form, check
                                                      ) -> None:
    r = _post_event(client, **form)
    assert r.status_code == 302, r.get_data(as_text=True)
    m = _movement(app, int(r.headers["Location"].rstrip("/").split("/")[-1]))
    assert check(m) and m.problems() == [], (m.name, m.problems())


@pytest.mark.parametrize(("form", "says"), [
    ({"tables": "5", "ew_offset": "2"}, "EW offset of 2 makes EW pairs 3-5 collide"),
    ({"tables": "5", "arrow_switch": "9"}, "arrow-switch round(s) [9] are not among"),
    ({"tables": "5", "arrow_switch": "x"}, "arrow switch: round numbers or"),
    ({"tables": "5", "arrow_switch": "5", "ew_offset": "0"}, "offset by at least 5"),
    ({"tables": "5", "method": "skip"}, "a skip Mitchell needs an even number of tables"),
    ({"tables": "5", "missing_pair": "XX 3"}, "missing pair 'XX 3': write EW 7"),
    ({"tables": "5", "missing_pair": "EW 9"}, "missing pair EW 9 is not in this Mitchell"),
    ({"movement": "howell", "tables": "3", "missing_pair": "7"},
     "missing pair 7 is not among pairs 1-6"),
    ({"movement": "howell", "tables": "3", "rounds": "4"}, "a 3-table Howell plays 5 rounds"),
    ({"tables": "5", "sections": "A A"}, "each section name once"),
])
def test_an_impossible_movement_is_refused_on_the_form(client, form, says) -> None:
    r = _post_event(client, **form)
    page = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 400 and says in page, page[-1500:]
    assert 'value="Club pairs"' in page  # what was typed is still there


def test_a_deal_set_with_too_few_boards_is_refused_when_the_event_is_created(
        app: Flask, client) -> None:
    # Before: accepted; tables found boards 7 and 8 missing during the evening.
    short = _set(app, 6)
    r = _post_event(client, tables="4", deal_set_id=str(short))
    page = r.get_data(as_text=True)
    assert r.status_code == 400
    assert (f"deal set {short} (6 boards) has 6 boards; the movement plays boards 1-8 and 2 of "
            "them are not in the set (7, 8)") in page
    assert _post_event(client, tables="3", deal_set_id=str(short)).status_code == 302
    # Choosing a short set for an existing event is refused on its page too.
    ce = new_event(client, tables="5")
    tok = csrf(client, f"/events/{ce}")
    r = client.post(f"/events/{ce}/settings", data={"csrf_token": tok,
                                                   "deal_set_id": str(short)},
                    follow_redirects=True)
    assert "the movement plays boards 1-10 and 4 of them are not in the set" in r.get_data(
        as_text=True)
    with app.app_context():
        assert rs.get_event(store(), ce).deal_set_id is None


def _enter(app: Flask, ce: int, table: int = 1, board: int = 1) -> None:
    with app.app_context():
        out = rs.submit(store(), ce, "A", table, 1,
                        rs.Entry(board=board, contract="4S", declarer="N", tricks=10),
                        submission_id=f"s{table}-{board}", who=f"table {table}")
        assert out.status == "recorded", out


def test_edit_an_event_keeps_the_printed_cards_of_tables_that_stay(app: Flask, client
                                                                    ) -> None:
    ce = new_event(client, tables="3")
    before = table_tokens(app, ce)
    form = {"csrf_token": csrf(client, f"/events/{ce}/edit"), "name": "Renamed pairs",
            "date": "2026.11.25", "kind": "pairs", "movement": "mitchell", "tables": "4",
            "boards_per_round": "3", "sections": "A", "scoring": "matchpoints",
            "method": "skip"}
    r = client.post(f"/events/{ce}/edit", data=form)
    assert r.status_code == 302, r.get_data(as_text=True)
    after = table_tokens(app, ce)
    assert len(after) == 4 and all(after[t] == before[t] for t in (1, 2, 3))
    m = _movement(app, ce)
    assert m.tables == 4 and m.rounds == 3 and m.boards_per_round == 3 and "skip" in m.name
    with app.app_context():
        assert rs.event_name(store(), ce) == ("Renamed pairs", "2026.11.25")
    # The edit page shows the event's own settings back.
    page = client.get(f"/events/{ce}/edit").get_data(as_text=True)
    assert 'value="Renamed pairs"' in page and '<option value="skip" selected>' in page
    # Down to 3 tables again: table 4's card no longer opens anything.
    client.post(f"/events/{ce}/edit", data={**form, "tables": "3", "method": "auto"})
    assert client.get(f"/t/{after[4]}").status_code == 404
    assert client.get(f"/t/{after[1]}").status_code == 200


def test_once_results_are_in_only_the_name_and_date_change(app: Flask, client) -> None:
    ce = new_event(client, tables="3")
    _enter(app, ce)
    page = client.get(f"/events/{ce}/edit").get_data(as_text=True)
    assert 'id="locked"' in page and 'name="tables"' not in page
    tok = csrf(client, f"/events/{ce}/edit")
    r = client.post(f"/events/{ce}/edit", data={"csrf_token": tok, "name": "Late name",
                                                "date": "2026.11.30", "tables": "9"})
    assert r.status_code == 302
    assert _movement(app, ce).tables == 3
    with app.app_context():
        assert rs.event_name(store(), ce)[0] == "Late name"
        # The store refuses a movement change outright, whoever asks.
        with pytest.raises(rs.EntryError, match="results have been entered"):
            rs.edit_club_event(store(), ce, "x", kind="pairs", movement="howell", tables=3,
                               boards_per_round=2, sections=["A"], scoring="matchpoints")


def test_delete_an_event_needs_the_box_ticked_and_takes_its_results(app: Flask, client
                                                                     ) -> None:
    ce = new_event(client, tables="3")
    _enter(app, ce)
    toks = table_tokens(app, ce)
    tok = csrf(client, f"/events/{ce}/edit")
    r = client.post(f"/events/{ce}/delete", data={"csrf_token": tok}, follow_redirects=True)
    assert "Tick the box to confirm" in r.get_data(as_text=True)
    assert client.get(f"/events/{ce}").status_code == 200
    r = client.post(f"/events/{ce}/delete", data={"csrf_token": tok, "confirm": "yes"},
                    follow_redirects=True)
    assert "Deleted the event &#39;Monday pairs&#39; and its 1 results." in r.get_data(
        as_text=True)
    assert client.get(f"/events/{ce}").status_code == 400  # "there is no club event"
    assert client.get(f"/t/{toks[1]}").status_code == 404
    with app.app_context():
        assert rs.result_count(store(), ce) == 0


def test_rename_and_delete_a_deal_set_but_not_one_an_event_plays(app: Flask, client
                                                                  ) -> None:
    used, spare = _set(app, 6), _set(app, 6)
    new_event(client, tables="3", deal_set_id=str(used))
    tok = csrf(client, "/dealsets/")
    r = client.post(f"/dealsets/{spare}/rename", data={"csrf_token": tok, "name": "Spare"},
                    follow_redirects=True)
    assert f"Deal set {spare} renamed." in r.get_data(as_text=True)
    assert any(s.name == "Spare" for s in store_list(app))
    r = client.post(f"/dealsets/{used}/delete", data={"csrf_token": tok, "confirm": "yes"},
                    follow_redirects=True)
    assert (f"deal set {used} is played in Monday pairs: choose another set for those "
            "events, or delete them, first") in r.get_data(as_text=True)
    r = client.post(f"/dealsets/{spare}/delete", data={"csrf_token": tok},
                    follow_redirects=True)
    assert "tick the box" in r.get_data(as_text=True)
    r = client.post(f"/dealsets/{spare}/delete", data={"csrf_token": tok, "confirm": "yes"},
                    follow_redirects=True)
    assert f"Deleted deal set {spare}." in r.get_data(as_text=True)
    assert [s.id for s in store_list(app)] == [used]


def store_list(app: Flask):
    with app.app_context():
        return store().list()


def test_results_exports_of_a_two_section_event_through_the_panel(app: Flask, client
                                                                  ) -> None:
    """Issue 16, finding 1, through the export routes: two sections, both lines numbered
    from 1, so pair "1" exists four times; each export keeps them apart."""
    import warnings
    import xml.etree.ElementTree as ET

    from endplay.parsers import pbn as endplay_pbn

    from dealer.formats import pbn

    set_id = _set(app, 6)
    ce = new_event(client, sections="A B", deal_set_id=str(set_id))
    entered = 0
    with app.app_context():
        for sec in ("A", "B"):
            m = rs.movement(store(), ce, sec)
            assert m.numbering == "by_line"
            for rnd in (1, 2):
                for st in m.round(rnd):
                    for board in st.boards:
                        tricks = 10 + (board + st.table + (sec == "B")) % 2
                        out = rs.submit(store(), ce, sec, st.table, rnd, rs.Entry(
                            board=board, contract="4S", declarer="N", tricks=tricks,
                            lead="HT"), submission_id=f"{sec}{rnd}{st.table}{board}",
                            who="test")
                        assert out.status == "recorded", out
                        entered += 1
    root = ET.fromstring(client.get(f"/events/{ce}/export.xml").data)
    assert root.findtext("EVENT/WINNER_TYPE") == "2"
    assert root.findtext("EVENT/DATE") == "23/11/2026"  # new_event: 2026.11.23
    secs = root.findall("EVENT/SESSION/SECTION")
    assert [s.get("SECTION_ID") for s in secs] == ["A", "B"]
    ids = [p.findtext("PAIR_NUMBER") for p in root.iter("PAIR")]
    assert len(ids) == len(set(ids)) == 12  # 3 NS + 3 EW pairs in each section
    for s in secs:
        mine = {p.findtext("PAIR_NUMBER") for p in s.iter("PAIR")}
        for tl in s.iter("TRAVELLER_LINE"):
            assert {tl.findtext("NS_PAIR_NUMBER"), tl.findtext("EW_PAIR_NUMBER")} <= mine
            assert tl.findtext("LEAD") == "TH"
    assert len(root.findall(".//TRAVELLER_LINE")) == entered
    assert len(root.findall("HANDSET/BOARD")) == 6
    pbn_data = client.get(f"/events/{ce}/export.pbn").data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        games = pbn.loads(pbn_data, strict=True).boards
    assert {b.tags["Section"] for b in games} == {"A", "B"}
    rows = [(b.info["Section"], row) for b in endplay_pbn.loads(pbn_data.decode())
            for row in b.info["ScoreTable"]["rows"]]
    assert len(rows) == entered
    csv_text = client.get(f"/events/{ce}/export.csv").get_data(as_text=True)
    assert len(csv_text.strip().splitlines()) == entered + 1
    # Sealing the set takes the hands out of both files.
    with app.app_context():
        rs.set_sealed(store(), set_id, True)
    assert ET.fromstring(client.get(f"/events/{ce}/export.xml").data).find("HANDSET") is None
    assert b"[Deal " not in client.get(f"/events/{ce}/export.pbn").data
