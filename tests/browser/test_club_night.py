"""A whole club night in real headless Chromium (issue 14, the first "What it must show").

``boardwright serve`` runs in its own process, bound to 127.0.0.2, with a public
address (``club-night.test``) unlike the bind address: only Chromium's resolver rules
know the name, so every phone reaches the panel the way a phone on the club's Wi-Fi
does, through the address printed in the table cards' QR codes.

The evening:

- the director imports the club's member list (``boardwright members import``), sets up
  the panel with the one-time code ``serve`` printed, generates the boards, and creates
  a 6½-table Mitchell (13 pairs: seven tables, East-West 7 missing, so one table sits
  out each round) with an arrow switch in the last round, on the *New event* form;
  the East-West acceptance step is switched on;
- the table cards are printed as PDF, their QR codes decoded, and each table's phone
  (390×844, its own browser context) opens its card's address;
- round 1: each phone names its four players (the member search for some, visitors for
  others; the director names the pair sitting out on the desk's Pairs page) and enters
  its boards with the chips (=, +1, −2 ...), passed to East-West who accept; then the
  phone shows the movement's instruction and opens round 2;
- later rounds are sent through the phones' own forms (the same POSTs the pages make)
  to keep the test short, except the special events and the last round at two tables,
  which are clicked: a board "not played" with its reason, a correction with a reason
  on the desk, an adjusted score (A+/A−) on the desk;
- the director publishes (the confirmation step), and a phone follows its table page's
  link to the public results and reads the ranking, a traveller and a score card.

Every line in the database is checked against what the phones entered (contract,
declarer, tricks, and the score the core computes for the board's vulnerability), and
every pair's percentage and matchpoints on the public page against the core's own
scoring (:func:`dealer.events.matchpoints.score_matchpoints`) of those results.

Why 28 boards, not 27: a Mitchell on seven tables has seven board sets, so its boards
are a multiple of seven (7 rounds of 4 = 28; 27 cannot be played by this movement).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from test_club_network import _card_urls, _free_port, serve
from web_helpers import PASSWORD

from dealer.contract import Contract
from dealer.events.matchpoints import MatchpointOptions, score_matchpoints
from dealer.events.moves import after_round
from dealer.scoring.duplicate import score_ns
from dealer.store import Store
from dealer.store import players as ps
from dealer.store import results as rs

pw = pytest.importorskip("playwright.sync_api")

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}
NAME = "club-night.test"
ROUNDS, PER_ROUND, TABLES = 7, 4, 7
MEMBERS = [("José Müller", "100001"), ("Zofia Łęcka", "100002"), ("Ann Lee", "100003"),
           ("Bo Ng", "100004"), ("Carys Evans", "100005"), ("Dev Patel", "100006")]
# The contracts the tables reach, by board: (level, strain, declarer); the result chip
# varies by table so that the matchpoints spread.
CONTRACTS = [(4, "S", "N"), (3, "NT", "S"), (2, "H", "E"), (4, "H", "W"), (1, "NT", "N"),
             (3, "C", "S"), (5, "D", "E")]
RESULTS = ["=", "+1", "-1", "=", "-2", "+2", "="]


def _result_for(board: int, table: int) -> tuple[int, str, str, str]:
    level, strain, decl = CONTRACTS[board % len(CONTRACTS)]
    res = RESULTS[(board + 2 * table) % len(RESULTS)]
    if level + 6 + int(res.replace("=", "0")) > 13:
        res = "="
    return level, strain, decl, res


def _tricks(level: int, res: str) -> int:
    return level + 6 + int(res.replace("=", "0"))


def _tap(page, name: str, value: str) -> None:
    page.click(f"#entry .chips label:has(input[name={name}][value='{value}']) span")


class Phones:
    """The table phones: one browser context each, opened at its table card's address."""

    def __init__(self, browser, urls: list[str]) -> None:
        self.pages: dict[int, object] = {}
        self.tokens: dict[int, str] = {}
        for url in urls:
            page = browser.new_context(**PHONE).new_page()
            page.goto(url)
            m = re.match(r"Table A(\d+)", page.inner_text("h1"))
            assert m, page.inner_text("h1")
            self.pages[int(m.group(1))] = page
            self.tokens[int(m.group(1))] = url.rsplit("/t/", 1)[1].strip("/")
        assert sorted(self.pages) == list(range(1, TABLES + 1))

    def form_token(self, table: int) -> str:
        page = self.pages[table]
        return page.locator("input[name=csrf_token]").first.get_attribute("value")


def _members_file(tmp: Path) -> Path:
    path = tmp / "members.csv"
    lines = ["Name,Member number,Email"] + [f"{n},{num}," for n, num in MEMBERS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _director_sets_up(page, base: str, code: str) -> int:
    """First run, the boards, and the 6½-table Mitchell on the New event form."""
    page.goto(base + "/")
    page.fill("input[name=code]", code)
    page.fill("input[name=name]", "td")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=again]", PASSWORD)
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r".*/events/?$"))
    page.goto(base + "/dealsets/")
    page.fill("form:has(h2:text('Generate')) input[name=name]", "Tuesday boards")
    page.fill("form:has(h2:text('Generate')) input[name=count]", str(ROUNDS * PER_ROUND))
    with page.expect_navigation():
        page.click("form:has(h2:text('Generate')) button")
    assert "Tuesday boards" in page.inner_text("main")
    page.goto(base + "/events/new")
    page.fill("input[name=name]", "Tuesday pairs")
    page.fill("input[name=date]", "2026.11.24")
    page.select_option("select[name=deal_set_id]", label="1: Tuesday boards (28 boards)")
    page.select_option("#f-movement", "mitchell")
    page.fill("input[name=tables]", str(TABLES))
    page.fill("input[name=boards_per_round]", str(PER_ROUND))
    page.check("input[name=half_table]")
    page.fill("input[name=arrow_switch]", "last")
    with page.expect_navigation():  # (its page's address names the event, read below)
        page.click("button:has-text('Create event')")
    assert "Event created." in page.inner_text("main"), page.inner_text("main")
    m = re.search(r"/events/(\d+)", page.url)
    assert m, page.url
    page.check("#f-ew_accept")
    with page.expect_navigation():  # the box as saved, not as ticked on the old page
        page.click("button:has-text('Save options')")
    assert page.is_checked("#f-ew_accept")
    return int(m.group(1))


def _names_at_table(page, table: int, seated: list[tuple[str, int]]) -> dict[str, str]:
    """Round 1: the phone asks for the players; table 1 finds two members by typing part
    of their names, the others type names (members' full names, or visitors')."""
    page.click("#players-ask a")
    page.wait_for_url(re.compile(r".*/players$"))
    typed: dict[str, str] = {}
    if table == 1:
        page.fill("#f-ns1", "jose mu")
        page.locator("#s-ns1 button").first.wait_for()
        page.locator("#s-ns1 button").first.click()
        page.keyboard.type("lecka")
        page.locator("#s-ns2 button", has_text="Zofia").click()
        typed.update({"ns1": "José Müller", "ns2": "Zofia Łęcka"})
    for field in ("ns1", "ns2", "ew1", "ew2"):
        if field in typed or page.locator(f"#f-{field}").count() == 0:
            continue
        name = f"Visitor {table}{field.upper()}"
        page.fill(f"#f-{field}", name)
        typed[field] = name
    with page.expect_navigation():
        page.click("#save-players")
    assert page.locator("#names-saved").is_visible()
    return typed


def _enter_on_screen(page, board: int, spec: tuple[int, str, str, str]) -> str:
    level, strain, decl, res = spec
    page.select_option("#board", str(board))
    _tap(page, "level", str(level))
    _tap(page, "strain", strain)
    _tap(page, "dbl", "")
    _tap(page, "declarer", decl)
    _tap(page, "result", res)
    page.locator("#score-preview", has_text="NS").wait_for()
    with page.expect_navigation():
        page.click("#send")
    card = page.locator(f"#accept-{board}")
    assert "East-West: is this right?" in card.inner_text()
    with page.expect_navigation():
        card.locator("button.accept").click()
    return page.inner_text("#said")


POST = """async ([url, fields]) => {
    const r = await fetch(url, {method: 'POST', body: new URLSearchParams(fields),
                                redirect: 'manual'});
    return r.type === 'opaqueredirect' ? 302 : r.status; }"""


def _enter_by_form(page, token: str, form_token: str, rnd: int, board: int,
                   spec: tuple[int, str, str, str]) -> None:
    """The same two POSTs the phone's page makes (sent by the phone's browser itself):
    the entry, then East-West's acceptance. Both answer with a redirect to the page."""
    level, strain, decl, res = spec
    status = page.evaluate(POST, [f"/t/{token}/enter?round={rnd}", {
        "csrf_token": form_token, "submission_id": uuid.uuid4().hex, "step": "record",
        "board": str(board), "level": str(level), "strain": strain, "dbl": "",
        "declarer": decl, "result": res, "lead": ""}])
    assert status == 302, (status, token, board)
    status = page.evaluate(POST, [f"/t/{token}/accept/{board}",
                                  {"csrf_token": form_token, "version": "1"}])
    assert status == 302, (status, token, board)


def test_a_whole_club_night(launch, tmp_path: Path, shot) -> None:  # noqa: C901, PLR0915
    started = time.monotonic()
    port = _free_port("127.0.0.2")
    public = f"http://{NAME}:{port}"
    db_url = f"sqlite:///{tmp_path / 'panel.sqlite'}"
    env = {**os.environ, "BOARDWRIGHT_DATABASE_URL": db_url,
           "BOARDWRIGHT_INSTANCE": str(tmp_path / "instance")}
    out = subprocess.run([sys.executable, "-m", "dealer", "members", "import",
                          str(_members_file(tmp_path)), "--scheme", "EBU"],
                         env=env, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr

    with serve(tmp_path, "--host", "127.0.0.2", "--public-url", public, port=port,
               host_check="127.0.0.2") as panel:
        browser = launch(f"--host-resolver-rules=MAP {NAME} 127.0.0.2")
        laptop = browser.new_context(**LAPTOP)
        desk = laptop.new_page()
        ce = _director_sets_up(desk, public, panel.printed("Setup code:"))
        store = Store.open(db_url)
        m = rs.movement(store, ce)
        assert (m.tables, m.rounds, m.boards) == (TABLES, ROUNDS, ROUNDS * PER_ROUND)
        assert any(s.switched for s in m.round(ROUNDS)), "the last round is an arrow switch"
        sit_outs = {r: next(s.table for s in m.round(r) if not (s.ns and s.ew))
                    for r in range(1, ROUNDS + 1)}
        vul = {b.number: b.vulnerability for b in rs.dealset_of(store, rs.get_event(store, ce))
               .boards}

        # The cards, as printed: each QR code decodes to the public address of a table.
        urls = _card_urls(desk, tmp_path)
        assert len(urls) == TABLES and all(u.startswith(public + "/t/") for u in urls), urls
        phones = Phones(browser, urls)

        entered: dict[tuple[int, int, int], tuple[int, str, str, str] | str] = {}
        # -- round 1, on the phones' screens -------------------------------------------
        typed_names: dict[tuple[int, str], str] = {}
        for table, page in phones.pages.items():
            s = m.at(table, 1)
            if table == sit_outs[1]:
                continue  # its pair sits out this round: named on the desk below
            seated = [("ns", s.ns), ("ew", s.ew)]
            for field, name in _names_at_table(page, table, seated).items():
                typed_names[(table, field)] = name
            for i, board in enumerate(s.boards):
                spec = _result_for(board, table)
                said = _enter_on_screen(page, board, spec)
                assert f"Board {board}" in said and "accepted by East-West" in said, said
                entered[(table, 1, board)] = spec
                if i == 0 and table == 1:
                    shot(page, "club-night-phone-entry")
            done = page.inner_text("#round-complete")
            instruction = after_round(m, table, 1).text
            assert instruction in done, (instruction, done)
            if table == 1:
                shot(page, "club-night-phone-after-round")
            with page.expect_navigation():
                page.click("#next-round")
            # The next round with a game here (a table whose pair sits out round 2 goes on
            # to round 3).
            nxt = next(r for r in range(2, ROUNDS + 1) if sit_outs[r] != table)
            assert f"Round {nxt}:" in page.inner_text("#sitting")
        # The pair sitting out in round 1: named by the director on the Pairs page.
        out_table = sit_outs[1]
        out_pair = m.at(out_table, 1).ns or m.at(out_table, 1).ew
        desk.goto(f"{public}/events/{ce}/pairs/")
        fields = desk.locator(f"input[name^='p_A_'][name$='_{out_pair}_1']")
        assert fields.count() == 1, desk.content()[:2000]
        desk.fill(f"input[name={fields.get_attribute('name')}]", "Ann Lee")
        second = fields.get_attribute("name").removesuffix("_1") + "_2"
        desk.fill(f"input[name={second}]", "Bo Ng")
        with desk.expect_navigation():
            desk.click("#save-pairs")

        # -- rounds 2 to 7 ---------------------------------------------------------------
        # (table, round): its first board is not played (a table with a game in round 3).
        not_played = (next(t for t in range(2, TABLES + 1) if t != sit_outs[3]), 3)
        for rnd in range(2, ROUNDS + 1):
            for table, page in phones.pages.items():
                s = m.at(table, rnd)
                if not (s.ns and s.ew):
                    continue
                on_screen = rnd == ROUNDS and table in (1, 2)
                if on_screen or (table, rnd) == not_played:
                    page.goto(f"{public}/t/{phones.tokens[table]}")
                    assert f"Round {rnd}:" in page.inner_text("#sitting")
                for i, board in enumerate(s.boards):
                    if (table, rnd) == not_played and i == 0:
                        page.click("#not-played summary")
                        page.select_option("#not-played select[name=board]", str(board))
                        page.click("#not-played .chips label:has(input[value=other]) span")
                        page.fill("#not-played input[name=not_played_other]",
                                  "board fouled at table")
                        with page.expect_navigation():
                            page.click("#send-not-played")
                        with page.expect_navigation():
                            page.locator(f"#accept-{board} button.accept").click()
                        entered[(table, rnd, board)] = "not played"
                        continue
                    spec = _result_for(board, table)
                    if on_screen:
                        _enter_on_screen(page, board, spec)
                    else:
                        _enter_by_form(page, phones.tokens[table], phones.form_token(table),
                                       rnd, board, spec)
                    entered[(table, rnd, board)] = spec
                if on_screen:
                    page.goto(f"{public}/t/{phones.tokens[table]}")
                    assert after_round(m, table, rnd).text in page.inner_text(
                        "#round-complete")
            if rnd == 4:
                desk.goto(f"{public}/events/{ce}/desk/")
                # The desk says where the tables are (not the event's old "current round"
                # setting, which stayed at 1 all evening).
                assert desk.inner_text("[data-bw-part=tables]").startswith("Round 5: ")
                assert "Round 1 in play" not in desk.inner_text("main")
                shot(desk, "club-night-desk")

        played = [(t, r, b) for r in range(1, ROUNDS + 1) for t in range(1, TABLES + 1)
                  if t != sit_outs[r] for b in m.at(t, r).boards]
        assert sorted(entered) == sorted(played)

        # -- the desk: the board not played is there with its reason; a correction and
        #    an adjusted score, each with its reason --------------------------------------
        desk.goto(f"{public}/events/{ce}/desk/")
        assert "(board fouled at table)" in desk.locator("span.reason").all_text_contents()
        rows = {(r.table_no, r.round_no, r.board): r for r in rs.results(store, ce)}
        fix_key = next(k for k in sorted(rows) if k[1] == 2 and entered[k] != "not played")
        fix = rows[fix_key]
        level, strain, decl, _res = entered[fix_key]  # type: ignore[misc]
        new_tricks = fix.tricks - 1
        line = desk.locator(f"#r{fix.id}")
        line.locator("summary").click()
        line.locator("input[name=tricks]").fill(str(new_tricks))
        line.locator("form:has(button[value=correct]) input[name=reason]").fill(
            "the table agreed one trick less")
        with desk.expect_navigation():
            line.locator("button[value=correct]").click()
        entered[fix_key] = (level, strain, decl, str(new_tricks))
        adj_key = next(k for k in sorted(rows) if k[1] == 5 and entered[k] != "not played")
        adj = rows[adj_key]
        line = desk.locator(f"#r{adj.id}")
        line.locator("summary").click()
        line.locator("input[name=ns_artificial]").fill("A+")
        line.locator("input[name=ew_artificial]").fill("A-")
        line.locator("form:has(button[value=artificial]) input[name=reason]").fill(
            "slow play: East-West at fault")
        with desk.expect_navigation():
            line.locator("button[value=artificial]").click()
        entered[adj_key] = "A+/A-"
        trail = desk.inner_text("#audit")
        assert "the table agreed one trick less" in trail
        assert "slow play: East-West at fault" in trail
        # The trail names board, table and round (not internal ids).
        assert (f"\t{fix_key[2]}\tA{fix_key[0]}\t2\ttricks\t{fix.tricks}\t{new_tricks}\t"
                in trail), trail

        # -- every line as entered, scored by the core for its board's vulnerability ------
        rows = {(r.table_no, r.round_no, r.board): r for r in rs.results(store, ce)}
        assert sorted(rows) == sorted(played)
        for key, spec in entered.items():
            r = rows[key]
            if spec == "not played":
                assert r.not_played and r.not_played_reason == "board fouled at table"
            elif spec == "A+/A-":
                assert (r.ns_artificial, r.ew_artificial) == ("A+", "A-")
            else:
                level, strain, decl, res = spec  # type: ignore[misc]
                tricks = int(res) if res.isdigit() else _tricks(level, res)
                contract = Contract.parse(f"{level}{strain}", decl)
                assert (r.contract, r.declarer, r.tricks) == (f"{level}{strain}", decl, tricks)
                assert r.score == score_ns(contract, tricks, vul[key[2]]), key
        core = score_matchpoints(rs.as_results(rs.results(store, ce)),
                                 MatchpointOptions(numbering=m.numbering))
        assert len(core.totals) == 13  # 13 pairs, one winner (the arrow switch)

        # -- publication, with its confirmation step ------------------------------------
        desk.goto(f"{public}/events/{ce}/desk/")
        with desk.expect_navigation():
            desk.click("#publish-link")
        desk.check("#publish input[name=confirm]")
        with desk.expect_navigation():
            desk.click("#publish button")
        assert desk.inner_text("#public-address").endswith(f"/results/{ce}")

        # -- a phone reads the results -------------------------------------------------
        phone = phones.pages[3]
        phone.goto(f"{public}/t/{phones.tokens[3]}")
        with phone.expect_navigation():
            phone.click("#results-link a")
        assert phone.url == f"{public}/results/{ce}"
        shown = {}
        for row in phone.locator("#ranking tbody tr").all_inner_texts():
            cells = row.split("\t")
            pair, _, names = cells[1].strip().partition("\n")
            shown[pair] = [*cells, names.strip()]
        expected = {str(k): t for k, t in core.totals.items()}
        assert set(shown) == set(expected), (shown.keys(), expected.keys())
        for pair, total in expected.items():
            _place, _pair, percent, mps, boards = shown[pair][:5]
            assert (percent, mps, boards) == (f"{total.percent:.2f}", f"{total.mp:g}",
                                              str(total.boards)), (pair, shown[pair], total)
        # The ranking, names and all, fits the phone's width: no sideways scrolling to
        # see the matchpoints and the boards.
        fits = phone.evaluate("""() => [...document.querySelectorAll('#ranking .scroll')]
            .map(e => [e.scrollWidth, e.clientWidth])""")
        assert fits and all(w <= c for w, c in fits), fits
        # The places follow the percentages, best first.
        order = [p for p in shown]
        assert order == sorted(order, key=lambda p: -expected[p].percent)
        # Names on the ranking, as entered at the tables and by the director.
        for table in range(1, TABLES + 1):
            s = m.at(table, 1)
            if table == sit_outs[1]:
                continue
            for field, pair in (("ns", s.ns), ("ew", s.ew)):
                if pair:
                    want = (f"{typed_names[(table, field + '1')]} & "
                            f"{typed_names[(table, field + '2')]}")
                    assert shown[f"A{pair}"][-1] == want, (pair, shown[f"A{pair}"], want)
        assert shown[f"A{out_pair}"][-1] == "Ann Lee & Bo Ng"
        assert shown["A1"][-1] == "José Müller & Zofia Łęcka"
        # A traveller and a score card on the same page.
        assert phone.locator("#boards [id^=b]").count() >= ROUNDS * PER_ROUND
        first = next(iter(core.totals))
        card = phone.locator(f"#card-{'-'.join(str(first).split())}")
        assert card.count() == 1
        assert f"{core.totals[first].percent:.2f}%" in card.inner_text()
        shot(phone, "club-night-public-results")
        named = ps.pair_names(store, ce)
        assert len(named) == 13, named
        store.close()
    assert time.monotonic() - started < 600
