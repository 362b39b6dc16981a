"""Results for the players (issue 14, part 6): publication with a confirmation step and
its undo inside the Law 79C correction period, the public results page (ranking,
travellers, hand records with double dummy and par, score cards), its A4 print, the
self-contained HTML file for a club's website, and the table phones' link.

Through Flask's test client on a real SQLite file; every figure checked against the
core's own scoring of the same results.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import csrf, director, event_on_six_boards, make_app, new_event, table_tokens

from dealer.board import DealSet
from dealer.events.matchpoints import MatchpointOptions, score_matchpoints
from dealer.events.model import PairKey
from dealer.events.rankings import score_card
from dealer.generate import random_dealset
from dealer.players.names import PlayerName
from dealer.store import players as ps
from dealer.store import results as rs
from dealer.store.panel_models import ClubEvent
from webpanel.db import store
from webpanel.scoring import score_event

# A lead that shows only where a traveller shows leads: table 1's first board.
CONTRACTS = ["4S", "3NT", "2H", "4H", "1NT", "3C"]


@pytest.fixture(scope="module")
def deals() -> DealSet:
    """One set for the module: its double-dummy tables are solved once (they take seconds)."""
    return random_dealset(range(1, 7))


@pytest.fixture()
def club(tmp_path: Path, deals: DealSet) -> Iterator[tuple[Flask, FlaskClient, int, int]]:
    """A 3-table Mitchell with a six-board deal set and rounds 1 and 2 played."""
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    director(c)
    with app.app_context():
        set_id = store().save(deals, name="six boards")
    ce = new_event(c, tables="3", boards_per_round="2", deal_set_id=str(set_id),
                   name="Tuesday pairs")
    play_round(app, ce, 1)
    play_round(app, ce, 2)
    yield app, c, ce, set_id


def play_round(app: Flask, ce: int, rnd: int) -> None:
    with app.app_context():
        m = rs.movement(store(), ce)
        for s in m.round(rnd):
            for i, b in enumerate(s.boards):
                contract = CONTRACTS[(b + s.table + i) % len(CONTRACTS)]
                level = int(contract[0])
                tricks = 6 + level + (s.table % 3) - 1
                out = rs.submit(store(), ce, "A", s.table, rnd,
                                rs.Entry(board=b, contract=contract, declarer="N",
                                         tricks=min(13, tricks), lead="HK"),
                                submission_id=f"{ce}-{rnd}-{s.table}-{b}", who=f"table {s.table}",
                                confirm=True)
                assert out.status == "recorded", out


def publish(c: FlaskClient, ce: int) -> None:
    r = c.post(f"/events/{ce}/publish", data={"csrf_token": csrf(c, f"/events/{ce}/publish"),
                                              "confirm": "yes"})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]


def text_of(body: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", body))


# -- before publication: nothing -------------------------------------------------------------

def test_an_unpublished_event_has_no_public_page(club) -> None:
    app, c, ce, _ = club
    stranger = app.test_client()
    never = stranger.get("/results/999")
    assert never.status_code == 404
    for url in (f"/results/{ce}", f"/results/{ce}/results.pdf", f"/results/{ce}/download"):
        r = stranger.get(url)
        assert r.status_code == 404, url
        assert r.get_data() == never.get_data()  # the same answer as an event that never was
    assert "Tuesday pairs" not in stranger.get("/results/").get_data(as_text=True)
    publish(c, ce)
    assert stranger.get(f"/results/{ce}").status_code == 200
    assert "Tuesday pairs" in stranger.get("/results/").get_data(as_text=True)


def test_publishing_needs_the_confirmation(club) -> None:
    app, c, ce, _ = club
    page = c.get(f"/events/{ce}/publish").get_data(as_text=True)
    # The confirmation says what will be public, and what is still missing.
    assert "12 results entered of 18" in text_of(page) and "6 missing" in page
    assert f"/results/{ce}" in page and "hand records with double-dummy" in page
    r = c.post(f"/events/{ce}/publish", data={"csrf_token": csrf(c, f"/events/{ce}/publish")})
    assert r.status_code == 302
    assert "Tick the box" in c.get(r.headers["Location"]).get_data(as_text=True)
    with app.app_context():
        assert rs.get_event(store(), ce).published_at is None
    # The desk's old button without the box goes to the confirmation page, publishing nothing.
    r = c.post(f"/events/{ce}/desk/publish", data={"csrf_token": csrf(c, f"/events/{ce}/desk/")})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/events/{ce}/publish")
    with app.app_context():
        assert rs.get_event(store(), ce).published_at is None
    publish(c, ce)
    with app.app_context():
        assert rs.get_event(store(), ce).published_at is not None
        log = [(a.action, a.who) for a in rs.audit_log(store(), ce)]
    assert ("publish", "director td") in log
    assert 'id="unpublish"' in c.get(f"/events/{ce}/publish").get_data(as_text=True)


def test_the_public_page_holds_ranking_travellers_hand_records_and_score_cards(club) -> None:
    app, c, ce, _ = club
    publish(c, ce)
    body = app.test_client().get(f"/results/{ce}").get_data(as_text=True)  # no log-in
    with app.app_context():
        rows = rs.results(store(), ce)
        ev = score_matchpoints(rs.as_results(rows), MatchpointOptions(numbering="by_line"))
    # Ranking: every pair with the core's percentage, to two decimals.
    ranking = body.split('id="ranking"')[1].split('id="boards"')[0]
    for key, total in ev.totals.items():
        row = re.search(rf">{re.escape(str(key))}</a></td><td>([0-9.]+)</td>", ranking)
        assert row, f"pair {key} not ranked"
        assert row.group(1) == f"{total.percent:.2f}", key
    # Travellers: every line played, with its score and lead; boards not played say so.
    for r in rows:
        block = body.split(f'id="b{r.board}"')[1].split("</section>")[0]
        assert f"{r.score:+d}" in block and "HK" in block
    # Hand records with the double-dummy grid and par, one a board of the movement.
    assert body.count('class="bw-dd"') == 6 and body.count('class="bw-par"') == 6
    # Score cards: each pair's, from the core's score_card (matchpoints over the top).
    for key in ev.totals:
        anchor = "card-" + "-".join(str(key).split())
        card = body.split(f'id="{anchor}"')[1].split("</section>")[0]
        for line in score_card(ev, key):
            assert f"{line.mp:g}/{line.top:g} ({line.percent:.2f}%)" in card, (key, line)
        assert f"{ev.totals[key].percent:.2f}%" in card
    # Nothing of the director's: who entered a line, a play link, a table token.
    assert "table 1" not in text_of(body) and "/play/" not in body
    for tok in table_tokens(app, ce).values():
        assert tok not in body


def test_a_sealed_set_shows_no_hand_record_anywhere_public(club) -> None:
    app, c, ce, set_id = club
    with app.app_context():
        rs.set_sealed(store(), set_id, True)
    publish(c, ce)
    s = app.test_client()
    page = s.get(f"/results/{ce}").get_data(as_text=True)
    assert 'id="sealed"' in page and "bw-dd" not in page and "bw-diagram" not in page
    export = s.get(f"/results/{ce}/download").get_data(as_text=True)
    assert 'class="bw-diagram"' not in export and 'id="sealed"' in export
    pdf = s.get(f"/results/{ce}/results.pdf").get_data()
    assert pdf.startswith(b"%PDF")
    holdings = long_holdings(app, set_id)
    assert not [h for h in holdings if h in pdf_text(pdf)]
    with app.app_context():  # the control: unsealed, the same PDF shows the hands
        rs.set_sealed(store(), set_id, False)
    assert [h for h in holdings if h in pdf_text(s.get(f"/results/{ce}/results.pdf").get_data())]


def long_holdings(app: Flask, set_id: int) -> list[str]:
    """Suit holdings of five cards or more in the set (as a hand record prints them)."""
    with app.app_context():
        ds = store().load(set_id)
    out = []
    for b in ds.boards:
        for hand in b.deal.to_pbn()[2:].split(" "):  # type: ignore[union-attr]
            out += [h for h in hand.split(".") if len(h) >= 5]
    return out


def pdf_text(data: bytes) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    text = subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True,
                          check=True).stdout.decode()
    return re.sub(r"\s+", "", text)


def test_unpublish_inside_the_correction_period_and_not_after(club) -> None:
    app, c, ce, _ = club
    publish(c, ce)
    s = app.test_client()
    assert s.get(f"/results/{ce}").status_code == 200
    r = c.post(f"/events/{ce}/unpublish", data={"csrf_token": csrf(c, f"/events/{ce}/publish")})
    assert "Tick the box" in c.get(r.headers["Location"]).get_data(as_text=True)
    assert s.get(f"/results/{ce}").status_code == 200  # not without the box
    r = c.post(f"/events/{ce}/unpublish", data={"csrf_token": csrf(c, f"/events/{ce}/publish"),
                                                "confirm": "yes"})
    assert r.status_code == 302
    assert s.get(f"/results/{ce}").status_code == 404  # gone again, as before publication
    with app.app_context():
        assert rs.get_event(store(), ce).published_at is None
        assert "unpublish" in [a.action for a in rs.audit_log(store(), ce)]
    # Published 31 minutes ago with a 30-minute period: the publication stands.
    publish(c, ce)
    with app.app_context(), store().write() as st:
        st.get(ClubEvent, ce).published_at = datetime.now(UTC) - timedelta(minutes=31)
    page = c.get(f"/events/{ce}/publish").get_data(as_text=True)
    assert 'id="unpublish"' not in page and 'id="final"' in page
    r = c.post(f"/events/{ce}/unpublish", data={"csrf_token": csrf(c, f"/events/{ce}/"),
                                                "confirm": "yes"}, follow_redirects=True)
    assert "correction period ended" in r.get_data(as_text=True)
    assert s.get(f"/results/{ce}").status_code == 200
    assert "Final." in s.get(f"/results/{ce}").get_data(as_text=True)


def test_the_table_phone_links_to_the_results_once_published(club) -> None:
    app, c, ce, _ = club
    phone = app.test_client()
    tok = table_tokens(app, ce)[1]
    assert 'id="results-link"' not in phone.get(f"/t/{tok}").get_data(as_text=True)
    publish(c, ce)
    page = phone.get(f"/t/{tok}").get_data(as_text=True)
    link = re.search(r'id="results-link">[^<]*<a href="([^"]+)"', page)
    assert link and link.group(1) == f"/results/{ce}"
    assert phone.get(link.group(1)).status_code == 200


def test_the_club_website_file_is_one_self_contained_page(club) -> None:
    app, c, ce, _ = club
    publish(c, ce)
    r = app.test_client().get(f"/results/{ce}/download")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert r.headers["Content-Disposition"].startswith("attachment; filename=\"results-tuesday")
    body = r.get_data(as_text=True)
    # Styles inline, nothing fetched from the panel: no stylesheet link, script or image.
    assert "<style>" in body and "@page" in body and "--accent" in body
    assert not re.search(r"<link|<script|<img|src=", body)
    assert not re.search(r'href="/', body)  # only the page's own anchors
    assert 'href="#card-' in body and body.count('class="bw-dd"') == 6
    assert 'id="made-at"' in body  # a copy says when it was made (it may be provisional)
    assert 'id="made-at"' not in app.test_client().get(f"/results/{ce}").get_data(as_text=True)


def test_the_printable_version_is_a4(club) -> None:
    app, c, ce, _ = club
    publish(c, ce)
    s = app.test_client()
    r = s.get(f"/results/{ce}/results.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    box = re.search(rb"/MediaBox \[\s*0 0 ([0-9.]+) ([0-9.]+)", r.get_data())
    assert box and (round(float(box.group(1))), round(float(box.group(2)))) == (595, 842)
    css = s.get("/static/results.css").get_data(as_text=True)
    assert "size: A4" in css and "@media print" in css
    assert "results.css" in s.get(f"/results/{ce}").get_data(as_text=True)


def test_a_late_correction_shows_on_the_public_page(club) -> None:
    """The page is read live: a correction in the period changes the published scores."""
    app, c, ce, _ = club
    publish(c, ce)
    s = app.test_client()
    with app.app_context():
        row = next(r for r in rs.results(store(), ce) if r.table_no == 1)
        rs.correct(store(), row.id, who="td", reason="wrong tricks", tricks=13,
                   expected_version=row.version)
        new = rs.result(store(), row.id).score
    block = s.get(f"/results/{ce}").get_data(as_text=True).split(f'id="b{row.board}"')[1]
    assert f"{new:+d}" in block.split("</section>")[0]


def test_a_pair_key_anchor() -> None:
    from webpanel.results_page import anchor
    assert anchor(str(PairKey("A", "EW", 3))) == "card-A3-EW"


# -- multi-session events -------------------------------------------------------------------------

def test_a_second_session_gives_a_combined_ranking_averaging_percentages(club) -> None:
    app, c, one, set_id = club
    two = new_event(c, tables="3", boards_per_round="2", deal_set_id=str(set_id),
                    name="Tuesday pairs", date="2026.11.30", continues=str(one))
    play_round(app, two, 3)
    play_round(app, two, 1)
    with app.app_context():
        assert [ce.id for ce, _ev in rs.sessions(store(), one)] == [one, two]
        per = [{st.pair: st.score for sts in score_event(store(), ce).rankings.values()
                for st in sts} for ce in (one, two)]
    assert 'id="combined"' in c.get(f"/events/{two}").get_data(as_text=True)
    page = c.get(f"/events/{one}/combined").get_data(as_text=True)
    assert "average of its session percentages" in page
    for pair in per[0]:
        mean = (per[0][pair] + per[1][pair]) / 2
        row = re.search(rf"<td>{re.escape(pair)}</td><td>([0-9.]+)</td><td>([0-9.]+)</td>"
                        rf"<td>([0-9.]+)</td>", page)
        assert row, pair
        assert row.groups() == (f"{per[0][pair]:.2f}", f"{per[1][pair]:.2f}", f"{mean:.2f}")
    # The players see the published sessions only, and nothing of an unpublished one.
    s = app.test_client()
    assert s.get(f"/results/{one}/combined").status_code == 404
    publish(c, one)
    shown = s.get(f"/results/{one}/combined").get_data(as_text=True)
    assert "After 1 session:" in text_of(shown) and "(not published)" in shown
    assert s.get(f"/results/{two}/combined").status_code == 404
    assert 'id="combined-link"' in s.get(f"/results/{one}").get_data(as_text=True)
    publish(c, two)
    assert "After 2 sessions:" in text_of(s.get(f"/results/{two}/combined").get_data(as_text=True))


def test_a_session_scored_otherwise_is_refused_by_name(club) -> None:
    app, c, one, _ = club
    data = {"csrf_token": csrf(c, "/events/new"), "name": "Butler night", "kind": "pairs",
            "movement": "mitchell", "tables": "3", "boards_per_round": "2", "sections": "A",
            "scoring": "butler", "continues": str(one)}
    r = c.post("/events/new", data=data)
    assert r.status_code == 400
    assert "continues: event" in r.get_data(as_text=True)
    with app.app_context():
        assert [ev.name for _ce, ev in rs.list_events(store())] == ["Tuesday pairs"]
    # The edit form takes a session out of its event again.
    two = new_event(c, tables="3", name="Tuesday pairs", continues=str(one))
    form = {"csrf_token": csrf(c, f"/events/{two}/edit"), "name": "Tuesday pairs",
            "kind": "pairs", "movement": "mitchell", "tables": "3", "boards_per_round": "2",
            "sections": "A", "scoring": "matchpoints", "continues": ""}
    assert c.post(f"/events/{two}/edit", data=form).status_code == 302
    with app.app_context():
        assert [ce.id for ce, _ev in rs.sessions(store(), one)] == [one]


# -- IMP pairs and teams ---------------------------------------------------------------------

def test_an_imp_pairs_page_has_score_cards_of_imps_from_the_travellers(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    director(c)
    ce = new_event(c, tables="3", scoring="butler", name="Butler night")
    play_round(app, ce, 1)
    play_round(app, ce, 2)
    publish(c, ce)
    body = app.test_client().get(f"/results/{ce}").get_data(as_text=True)
    with app.app_context():
        scored = score_event(store(), ce)
    assert scored.rankings[""] and not scored.problem
    for st in scored.rankings[""]:
        card = body.split(f'id="card-{"-".join(st.pair.split())}"')[1].split("</section>")[0]
        imps = [float(v) for v in re.findall(r"<td>([+-][0-9.]+) IMPs</td>", card)]
        assert len(imps) == st.boards == 4
        assert f"{sum(imps):+.1f} IMPs over 4 boards" in card
        assert abs(sum(imps) - st.score) < 0.06, (st.pair, imps, st.score)


def test_a_teams_page_shows_the_ranking_in_vps_and_no_pair_cards(tmp_path: Path) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    director(c)
    ce = new_event(c, name="Club teams", kind="teams", movement="teams", tables="4",
                   boards_per_round="2")
    with app.app_context():
        for s in rs.movement(store(), ce).round(1):
            for b in s.boards:
                out = rs.submit(store(), ce, "A", s.table, 1,
                                rs.Entry(board=b, contract="4S", declarer="N",
                                         tricks=9 + s.table % 2),
                                submission_id=f"t{s.table}-{b}", who="t", confirm=True)
                assert out.status == "recorded", out
        vps = {st.pair: st.score for st in score_event(store(), ce).rankings[""]}
    publish(c, ce)
    r = app.test_client().get(f"/results/{ce}")
    body = r.get_data(as_text=True)
    assert r.status_code == 200 and 'id="cards"' not in body
    for team, vp in vps.items():
        assert re.search(rf"<td>{team}</td><td>{vp:.2f}</td>", body), team


def test_the_public_pdf_is_built_once_per_change_and_never_stale(club, monkeypatch) -> None:
    """A room of phones opening the PDF costs one build; a result, a name or a seal
    changed after it makes a new one (webpanel/publish.py, rs.public_stamp)."""
    from dealer.formats import results_pdf
    app, c, ce, set_id = club
    publish(c, ce)
    built: list[int] = []
    real = results_pdf.results_pdf

    def counting(*args, **kw):  # type: ignore[no-untyped-def]
        built.append(1)
        return real(*args, **kw)
    monkeypatch.setattr(results_pdf, "results_pdf", counting)
    s = app.test_client()
    first = [s.get(f"/results/{ce}/results.pdf").get_data() for _ in range(5)]
    assert len(built) == 1 and len(set(first)) == 1 and first[0].startswith(b"%PDF")
    play_round(app, ce, 3)  # new results after publication (marked late)
    after = s.get(f"/results/{ce}/results.pdf").get_data()
    assert len(built) == 2 and after != first[0]
    with app.app_context():
        ps.set_pair(store(), ce, PairKey("A", "NS", 1),
                    [PlayerName("Zoe Quill"), PlayerName("Abe Vance")], who="director")
    named = s.get(f"/results/{ce}/results.pdf").get_data()
    assert len(built) == 3 and "ZoeQuill" in pdf_text(named)
    with app.app_context():
        rs.set_sealed(store(), set_id, True)
    sealed = s.get(f"/results/{ce}/results.pdf").get_data()
    assert len(built) == 4
    assert not [h for h in long_holdings(app, set_id) if h in pdf_text(sealed)]


# -- the boards' double dummy: solved ahead, not while the director waits -------------------

@pytest.fixture()
def solving(monkeypatch) -> list[int]:
    """The deals DDS solves (batch sizes), counted at endplay's own entry point."""
    from endplay import dds as endplay_dds
    batches: list[int] = []
    real = endplay_dds.calc_all_tables

    def counted(eds, *args, **kw):  # type: ignore[no-untyped-def]
        batches.append(len(eds))
        return real(eds, *args, **kw)
    monkeypatch.setattr(endplay_dds, "calc_all_tables", counted)
    return batches


def _dd_rows(app: Flask) -> set[bytes]:
    from sqlalchemy import select

    from dealer.store.dd_models import DDTableRow
    with app.app_context(), store().engine.connect() as conn:
        return set(conn.scalars(select(DDTableRow.deal)))


def _analysed(boards: list) -> list[str]:  # type: ignore[type-arg]
    """Each board's hand record as the results page shows it, solved here without a cache."""
    from dealer.dd import analyse
    from dealer.records import board_html
    return [board_html(b, res) for b, res in zip(boards, analyse(boards), strict=True)]


def test_a_generated_sets_double_dummy_is_solved_before_the_publish_page_opens(
        tmp_path: Path, solving: list[int]) -> None:
    # before: nothing was solved until the publish page was opened, which solved all the
    # boards while the director waited (28 boards: 2.9 s on an idle laptop, over 30 s under
    # load in tests/browser/test_club_night.py); the players' page then read them.
    from webpanel import handrecord
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", DD_AHEAD=True)
    c = app.test_client()
    director(c)
    r = c.post("/dealsets/generate", data={"csrf_token": csrf(c, "/dealsets/"),
                                           "name": "Tuesday", "first": "1", "count": "6"})
    assert r.status_code == 302
    assert handrecord.wait_ahead(120), "still solving after 2 minutes"
    with app.app_context():
        set_id = store().list()[-1].id
        ds = store().load(set_id)
    assert _dd_rows(app) == {b.deal.bits.to_bytes(26, "big") for b in ds.boards}  # type: ignore[union-attr]
    assert sum(solving) == 6
    ce = new_event(c, tables="3", boards_per_round="2", deal_set_id=str(set_id))
    play_round(app, ce, 1)
    page = c.get(f"/events/{ce}/publish").get_data(as_text=True)
    assert "hand records with double-dummy" in page
    publish(c, ce)
    body = app.test_client().get(f"/results/{ce}").get_data(as_text=True)
    for fragment in _analysed(ds.boards):
        assert fragment in body
    assert sum(solving) == 6 + 6  # _analysed's own: neither page solved anything
    assert handrecord.wait_ahead(60)  # (the event's and the page's checks: all cached)
    assert sum(solving) == 12


def test_without_solving_ahead_the_players_page_solves_what_is_missing(
        tmp_path: Path, solving: list[int]) -> None:
    # A set stored by the command line (store().save here), with the panel's solving ahead
    # off (TESTING): the director's confirmation page still solves nothing, and the
    # players' page solves the boards it shows, once, keeping them in dd_tables.
    app, c, ce, _ = event_on_six_boards(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    assert "hand records with double-dummy" in c.get(f"/events/{ce}/publish").get_data(
        as_text=True)
    assert solving == [] and _dd_rows(app) == set()
    publish(c, ce)
    body = app.test_client().get(f"/results/{ce}").get_data(as_text=True)
    assert body.count('class="bw-par"') == 6
    assert solving == [6] and len(_dd_rows(app)) == 6


def test_the_double_dummy_shown_follows_the_deals(tmp_path: Path) -> None:
    """The tables are kept by the 52 cards, never by set or board number: an event moved to
    another deal set (or a set deleted and another stored in its place) shows the new
    deals' tables, never the old ones'."""
    first, second = random_dealset(range(1, 7)), random_dealset(range(1, 7))
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    director(c)
    with app.app_context():
        a = store().save(first, name="first")
    ce = new_event(c, tables="3", boards_per_round="2", deal_set_id=str(a))
    publish(c, ce)
    s = app.test_client()
    assert all(f in s.get(f"/results/{ce}").get_data(as_text=True) for f in _analysed(
        list(first.boards)))
    with app.app_context():
        rs.unpublish(store(), ce, who="td")
        rs.update_event(store(), ce, deal_set_id=None)
        rs.delete_deal_set(store(), a)
        b = store().save(second, name="second")
    assert b == a  # the old set's number, with other deals
    r = c.post(f"/events/{ce}/settings", data={"csrf_token": csrf(c, f"/events/{ce}"),
                                               "deal_set_id": str(b)})
    assert r.status_code == 302
    publish(c, ce)
    body = s.get(f"/results/{ce}").get_data(as_text=True)
    assert all(f in body for f in _analysed(list(second.boards)))
    assert not any(f in body for f in _analysed(list(first.boards)))
