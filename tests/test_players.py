"""Players: the member list (store, CSV import, director pages, CLI) and the names of pairs.

The member CSVs in ``tests/data/members`` are as clubs save them: an EBU club's
list from Excel (UTF-8 with a BOM, CRLF, accents, a quoted comma, bad lines),
a Dutch club's from an older program (Latin-1, semicolons) and an ACBL roster.
The web tests use Flask's client on a real SQLite file; the store's functions
also run on PostgreSQL (``db_url``, from tests/test_store.py).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from test_store import db_url, pg_server  # noqa: F401  (fixtures)
from web_helpers import csrf, director, make_app

from dealer.cli import main as cli_main
from dealer.events.model import PairKey
from dealer.players import MemberIn, PlayerError, PlayerName, read_members_csv, search_key
from dealer.store import Store, audit
from dealer.store import players as ps

DATA = Path(__file__).parent / "data" / "members"


# -- reading a club's CSV ------------------------------------------------------------------

def test_an_excel_utf8_csv_with_a_bom_keeps_accents_and_names_each_bad_line() -> None:
    got = read_members_csv((DATA / "ebu-club-utf8-bom.csv").read_bytes())
    assert got.encoding == "utf-8 (BOM)"
    names = {m.name: (m.scheme, m.number, m.email) for m in got.members}
    assert names["José Müller"] == ("EBU", "123456", "jose.muller@example.org")
    assert names["Siobhán O'Brien"] == ("EBU", "234567", "siobhan@example.org")
    assert names["Zofia Łęcka"] == ("EBU", "345678", "")
    assert names["Bob Smith, Jr"] == ("EBU", "456789", "bob@example.org")
    assert names["Åse Ødegaard"] == ("", "", "ase@example.org")
    assert len(got.members) == 5
    said = [str(p) for p in got.problems]
    assert said == [
        "line 6: Surname: empty (a name is needed)",
        "line 7: Email: 'ana(at)example.org' is not an email address",
        "line 8: EBU: '12-3!' is not a membership number (letters and digits)",
        "line 9: EBU: EBU 234567 is on line 3 already",
    ]
    assert got.columns["last"] == "Surname" and got.columns["number"] == "EBU"
    assert got.ignored == ["Phone"]


def test_a_latin1_csv_with_semicolons_is_read_as_windows_1252() -> None:
    got = read_members_csv((DATA / "nbb-club-latin1.csv").read_bytes())
    assert got.encoding == "windows-1252"
    assert [(m.name, m.scheme, m.number) for m in got.members] == [
        ("Jérôme Dûpont", "NBB", "1234567"), ("Anneke van der Bèrg", "NBB", "2345678"),
        ("Françoise Hoe", "NBB", "3456789"), ("Søren Ågård", "NBB", "4567890")]
    assert not got.problems


def test_acbl_roster_and_other_headers_clubs_use() -> None:
    got = read_members_csv((DATA / "acbl-roster.csv").read_bytes())
    assert [(m.name, m.scheme, m.number, m.email) for m in got.members] == [
        ("Mary Smith", "ACBL", "J123456", "mary@example.com"), ("Li Wei", "ACBL", "K234567", "")]
    dutch = "Lidnummer\tVoornaam\tTussenvoegsel\tAchternaam\n42\tJan\tvan der\tBerg\n"
    got = read_members_csv(dutch.encode(), scheme="nbb")
    assert [(m.name, m.scheme, m.number) for m in got.members] == [("Jan van der Berg", "NBB",
                                                                     "42")]
    plain = "Name,Member number,Scheme\nAnn Lee,77,wbu\nBo Ng,78,\n"
    got = read_members_csv(plain.encode(), scheme="EBU")
    assert [(m.scheme, m.number) for m in got.members] == [("WBU", "77"), ("EBU", "78")]
    utf16 = "Name,Email\r\nÉva Kovács,eva@example.hu\r\n".encode("utf-16")
    assert read_members_csv(utf16).members[0].name == "Éva Kovács"


@pytest.mark.parametrize(("data", "said"), [
    (b"PK\x03\x04rest of a zip", "spreadsheet"),
    (b"", "empty"),
    (b"Phone,Address\n123,Main St\n", "no name column"),
    (b"Name\x00,x\n", "not text"),
])
def test_a_file_that_is_not_a_member_list_is_refused_in_one_line(data: bytes, said: str) -> None:
    with pytest.raises(PlayerError, match=said) as exc:
        read_members_csv(data)
    assert exc.value.field == "file"


def test_search_keys_ignore_accents_case_and_apostrophes() -> None:
    assert search_key("ZOFIA Łęcka") == search_key("zofia lecka")
    assert search_key("Siobhán O'Brien") == "siobhan obrien"
    assert search_key("Ødegaard") == "odegaard"


# -- the store, on SQLite and PostgreSQL ---------------------------------------------------------

def test_members_are_added_changed_searched_and_deleted(db_url: str) -> None:  # noqa: F811
    with Store.open(db_url) as st:
        a = ps.add_member(st, MemberIn("José Müller", "ebu", "123456", "jm@example.org"))
        ps.add_member(st, MemberIn("Ann Lee"))
        ps.add_member(st, MemberIn("Anna Jones", "EBU", "999"))
        assert [m.label for m in ps.search(st, "jose mul")] == ["José Müller (EBU 123456)"]
        assert [m.name for m in ps.search(st, "ANN")] == ["Ann Lee", "Anna Jones"]
        assert [m.name for m in ps.search(st, "1234")] == ["José Müller"]
        assert ps.search(st, "%") == [] and ps.search(st, "  ") == []
        assert ps.member_count(st) == 3 and ps.member_count(st, "lee") == 1
        with pytest.raises(PlayerError, match="EBU 999 is Anna Jones's already") as exc:
            ps.update_member(st, a, MemberIn("José Müller", "EBU", "999"))
        assert exc.value.field == "number"
        with pytest.raises(PlayerError, match="email"):
            ps.add_member(st, MemberIn("Bad Mail", email="nope"))
        ps.update_member(st, a, MemberIn("José Müller-Ruiz", "EBU", "123456"))
        assert ps.get_member(st, a).name == "José Müller-Ruiz"
        assert ps.delete_member(st, a) == "José Müller-Ruiz"
        with pytest.raises(PlayerError, match="no member"):
            ps.get_member(st, a)


def test_importing_twice_updates_rather_than_doubles(db_url: str) -> None:  # noqa: F811
    got = read_members_csv((DATA / "ebu-club-utf8-bom.csv").read_bytes())
    with Store.open(db_url) as st:
        ps.add_member(st, MemberIn("Zofia Lecka", "EBU", "345678", "zofia@example.org"))
        ps.add_member(st, MemberIn("Åse Ødegaard"))
        first = ps.import_members(st, got.members)
        assert (first.added, first.updated, first.unchanged) == (3, 2, 0)
        again = ps.import_members(st, got.members)
        assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
        assert ps.member_count(st) == 5
        zofia = ps.search(st, "zofia")[0]
        # The list's spelling wins; a known email is not erased by an empty cell.
        assert (zofia.name, zofia.email) == ("Zofia Łęcka", "zofia@example.org")
        assert ps.search(st, "odegaard")[0].email == "ase@example.org"


def test_pair_names_are_kept_per_pair_and_resolved_to_members(db_url: str) -> None:  # noqa: F811
    from dealer.store import results as rs
    with Store.open(db_url) as st:
        ce = rs.create_club_event(st, "Monday", tables=3, movement="mitchell")
        mid = ps.add_member(st, MemberIn("José Müller", "EBU", "123456"))
        ps.add_member(st, MemberIn("Ann Lee"))
        jose = ps.resolve(st, "José Müller (EBU 123456)")
        assert jose == PlayerName("José Müller", "EBU", "123456", mid)
        assert ps.resolve(st, "jose muller") == jose  # one member of that name
        assert ps.resolve(st, "Vera Visitor") == PlayerName("Vera Visitor")
        assert ps.resolve(st, "   ") is None
        key = PairKey("A", "NS", 1)
        assert ps.set_pair(st, ce, key, [jose, ps.resolve(st, "Ann Lee")], who="table A1")
        assert not ps.set_pair(st, ce, key, [jose, ps.resolve(st, "Ann Lee")], who="table A1")
        assert ps.set_pair(st, ce, PairKey("A", "EW", 1), [PlayerName("Vera Visitor"), None],
                           who="td")
        names = ps.pair_names(st, ce)
        assert [p.name for p in names[key]] == ["José Müller", "Ann Lee"]
        assert names[PairKey("A", "EW", 1)] == (PlayerName("Vera Visitor"),)
        assert ps.pair_names(st, ce, [key]) == {key: names[key]}
        assert ps.pair_labels(st, ce)[key] == "José Müller & Ann Lee"
        # The event keeps the name it had when the member is deleted.
        ps.delete_member(st, mid)
        assert ps.pair_names(st, ce)[key][0] == PlayerName("José Müller", "EBU", "123456")
        log = [a for a in rs.audit_log(st, ce) if a.action == "pair-names"]
        assert len(log) == 2 and "José Müller & Ann Lee" in log[0].detail
        rs.delete_club_event(st, ce)
        assert ps.pair_names(st, ce) == {}


# -- the director's member pages --------------------------------------------------------------

@pytest.fixture
def app(tmp_path: Path):  # type: ignore[no-untyped-def]
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


@pytest.fixture
def td(app):  # type: ignore[no-untyped-def]
    c = app.test_client()
    director(c)
    return c


def _upload(td, path: Path, scheme: str = "") -> str:  # type: ignore[no-untyped-def]
    r = td.post("/members/import", data={
        "csrf_token": csrf(td, "/members/import"), "scheme": scheme,
        "file": (io.BytesIO(path.read_bytes()), path.name)},
        content_type="multipart/form-data")
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    return r.get_data(as_text=True)


def test_the_director_imports_the_club_list_and_sees_each_refused_line(td) -> None:  # type: ignore[no-untyped-def]
    page = _upload(td, DATA / "ebu-club-utf8-bom.csv")
    assert "5 added, 0 updated, 0 unchanged, 4 lines refused" in page
    assert "line 7: Email: &#39;ana(at)example.org&#39; is not an email address" in page
    assert "line 6: Surname: empty" in page
    page = _upload(td, DATA / "nbb-club-latin1.csv")
    assert "4 added" in page and "windows-1252" in page
    listing = td.get("/members/?q=jerome").get_data(as_text=True)
    assert "Jérôme Dûpont" in listing and "NBB 1234567" in listing
    listing = td.get("/members/").get_data(as_text=True)
    assert "Zofia Łęcka" in listing and "Siobhán O&#39;Brien" in listing
    found = td.get("/members/search.json?q=lecka").get_json()
    assert [m["label"] for m in found["members"]] == ["Zofia Łęcka (EBU 345678)"]


def test_an_upload_that_is_not_a_list_gets_a_clear_answer(td) -> None:  # type: ignore[no-untyped-def]
    r = td.post("/members/import", data={
        "csrf_token": csrf(td, "/members/import"),
        "file": (io.BytesIO(b"PK\x03\x04junk"), "members.xlsx")},
        content_type="multipart/form-data")
    assert r.status_code == 400
    assert "members.xlsx: this is a spreadsheet" in r.get_data(as_text=True)


def test_the_director_adds_edits_searches_and_deletes_a_member(td, app) -> None:  # type: ignore[no-untyped-def]
    tok = csrf(td, "/members/")
    r = td.post("/members/add", data={"csrf_token": tok, "name": "Ann  Lee", "scheme": "ebu",
                                      "number": "777", "email": "ann@example.org"})
    assert r.status_code == 302
    r = td.post("/members/add", data={"csrf_token": tok, "name": "Bo Ng", "scheme": "EBU",
                                      "number": "777"})
    assert r.status_code == 400 and "EBU 777 is Ann Lee&#39;s already" in r.get_data(as_text=True)
    r = td.post("/members/add", data={"csrf_token": tok, "name": "x" * 101})
    assert r.status_code == 400 and "name: at most 100 characters" in r.get_data(as_text=True)
    with app.app_context():
        from webpanel.db import store
        mid = ps.search(store(), "lee")[0].id
    r = td.post(f"/members/{mid}/edit", data={"csrf_token": tok, "name": "Ann Lee-Ng",
                                              "scheme": "EBU", "number": "777", "email": ""})
    assert r.status_code == 302
    assert "Ann Lee-Ng" in td.get("/members/?q=ng").get_data(as_text=True)
    r = td.post(f"/members/{mid}/delete", data={"csrf_token": tok})
    assert r.status_code == 302 and "Ann Lee-Ng" in td.get("/members/").get_data(as_text=True)
    r = td.post(f"/members/{mid}/delete", data={"csrf_token": tok, "confirm": "yes"})
    assert r.status_code == 302
    assert "No members yet" in td.get("/members/").get_data(as_text=True)
    assert td.get(f"/members/{mid}/edit").status_code == 400


def test_member_pages_need_the_director(app) -> None:  # type: ignore[no-untyped-def]
    c = app.test_client()
    for url in ("/members/", "/members/search.json?q=a", "/members/import"):
        r = c.get(url)
        assert r.status_code in (302, 401, 403) and "Zofia" not in r.get_data(as_text=True)


# -- the command line ---------------------------------------------------------------------------

def test_members_import_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("BOARDWRIGHT_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.sqlite'}")
    assert cli_main(["members", "import", str(DATA / "ebu-club-utf8-bom.csv")]) == 1
    out, err = capsys.readouterr()
    assert "5 added, 0 updated, 0 unchanged, 4 lines refused" in out
    assert "line 8: EBU: '12-3!' is not a membership number" in err
    assert cli_main(["members", "import", str(DATA / "acbl-roster.csv")]) == 0
    assert cli_main(["members", "list", "smith"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Mary Smith\tACBL J123456\tmary@example.com", out)
    assert "Bob Smith, Jr\tEBU 456789" in out
    assert cli_main(["members", "import", str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv" in capsys.readouterr().err
    with Store.open(f"sqlite:///{tmp_path / 'cli.sqlite'}") as st:
        lines = audit.entries(st, action="import-members")
    assert len(lines) == 2 and lines[0].who.startswith("cli:")


# -- names at the table ---------------------------------------------------------------------------

def _members(app) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """The EBU club's list in the store; the members' ids by name."""
    from webpanel.db import store
    with app.app_context():
        ps.import_members(store(), read_members_csv(
            (DATA / "ebu-club-utf8-bom.csv").read_bytes()).members)
        return {m.name: m.id for m in ps.members(store())}


def _names(app, ce: int) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    from webpanel.db import store
    with app.app_context():
        return {str(k): [p.name for p in v] for k, v in ps.pair_names(store(), ce).items()}


def _tcsrf(app, token: str) -> str:  # type: ignore[no-untyped-def]
    from webpanel.tables import table_csrf
    with app.app_context():
        return table_csrf(token)


def test_a_table_names_its_four_players_with_the_member_search(app, td) -> None:  # type: ignore[no-untyped-def]
    from web_helpers import new_event, table_tokens
    ids = _members(app)
    ce = new_event(td, tables="3")
    tok = table_tokens(app, ce)[1]
    c = app.test_client()  # the phone: no session, no cookie
    page = c.get(f"/t/{tok}").get_data(as_text=True)
    assert 'id="players-ask"' in page and f"/t/{tok}/players" in page
    form = c.get(f"/t/{tok}/players").get_data(as_text=True)
    assert all(f'name="{n}"' in form for n in ("ns1", "ns2", "ew1", "ew2"))
    assert "North" in form and "West" in form and "NS: pair 1" in form
    # The search behind the fields: accents and case aside, names and numbers, no email.
    found = c.get(f"/t/{tok}/members?q=JOSE").get_json()["members"]
    assert found == [{"label": "José Müller (EBU 123456)", "name": "José Müller"}]
    assert c.get(f"/t/{tok}/members?q=j").get_json() == {"members": []}
    assert "@" not in c.get(f"/t/{tok}/members?q=o").get_data(as_text=True)
    # Without JavaScript: Find lists the members matching what was typed.
    find = c.get(f"/t/{tok}/players?find=1&ns2=lecka&ew1=Vera").get_data(as_text=True)
    assert 'name="pick_ns2" value="Zofia Łęcka (EBU 345678)"' in find
    assert "no member found: a visitor" in find
    r = c.post(f"/t/{tok}/players", data={
        "csrf_token": _tcsrf(app, tok), "ns1": "José Müller (EBU 123456)", "ns2": "lecka",
        "pick_ns2": "Zofia Łęcka (EBU 345678)", "ew1": "siobhan o'brien",
        "ew2": "Vera Visitor"})
    assert r.status_code == 302 and r.headers["Location"].endswith("names=saved")
    assert _names(app, ce) == {"A1 NS": ["José Müller", "Zofia Łęcka"],
                               "A1 EW": ["Siobhán O'Brien", "Vera Visitor"]}
    from webpanel.db import store
    with app.app_context():
        got = ps.pair_names(store(), ce)[PairKey("A", "NS", 1)]
    assert [p.member_id for p in got] == [ids["José Müller"], ids["Zofia Łęcka"]]
    page = c.get(r.headers["Location"]).get_data(as_text=True)
    assert "Names saved." in page and 'id="players-ask"' not in page
    assert "José Müller &amp; Zofia Łęcka" in page and "Siobhán O&#39;Brien &amp; Vera" in page
    # The form shows them again as the search offers them; saving again changes nothing.
    again = c.get(f"/t/{tok}/players").get_data(as_text=True)
    assert 'value="José Müller (EBU 123456)"' in again and 'value="Vera Visitor"' in again
    with app.app_context():
        log = [a for a in rs_audit(store(), ce) if a.action == "pair-names"]
    assert [a.who for a in log] == ["table A1", "table A1"]


def test_a_finished_round_says_which_round_the_players_line_is_about(app, td) -> None:  # type: ignore[no-untyped-def]
    """Before: a table looking back at its finished round 1 (named) read "Who is playing?",
    about the next round's new pairs, as if round 1's names had been lost."""
    from web_helpers import new_event, table_tokens
    ce = new_event(td, tables="3")
    tok = table_tokens(app, ce)[1]
    c = app.test_client()
    r = c.post(f"/t/{tok}/players", data={"csrf_token": _tcsrf(app, tok), "ns1": "Ann Lee",
                                          "ns2": "Bo Ng", "ew1": "Cy Do", "ew2": "Di Eh"})
    assert r.status_code == 302
    for board in (1, 2):
        r = c.post(f"/t/{tok}/enter", data={
            "csrf_token": _tcsrf(app, tok), "board": str(board), "level": "4",
            "strain": "S", "dbl": "", "declarer": "N", "tricks": "10",
            "submission_id": f"r{board}"})
        assert r.status_code == 302
    back = c.get(f"/t/{tok}?round=1").get_data(as_text=True)
    assert "Who is playing in round 2?" in back  # EW pair 3 arrives, not yet named
    now = c.get(f"/t/{tok}").get_data(as_text=True)
    assert "Who is playing?" in now and "in round 2?" not in now


def rs_audit(st, ce):  # type: ignore[no-untyped-def]
    from dealer.store import results as rs
    return rs.audit_log(st, ce)


def test_names_never_block_results_and_a_table_names_only_its_own_pairs(app, td) -> None:  # type: ignore[no-untyped-def]
    from web_helpers import new_event, table_tokens
    ce = new_event(td, tables="3")
    toks = table_tokens(app, ce)
    c = app.test_client()
    # Table 2 enters a result with no names at all.
    r = c.post(f"/t/{toks[2]}/enter", data={
        "csrf_token": _tcsrf(app, toks[2]), "board": "3", "level": "4", "strain": "S",
        "dbl": "", "declarer": "N", "tricks": "10", "submission_id": "n1"})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]
    # Table 2's form names table 2's pairs, whatever else is sent.
    r = c.post(f"/t/{toks[2]}/players", data={
        "csrf_token": _tcsrf(app, toks[2]), "ns1": "Ann Lee", "ew1": "Bo Ng",
        "p_A_NS_1_1": "Intruder"})
    assert r.status_code == 302
    assert _names(app, ce) == {"A2 NS": ["Ann Lee"], "A2 EW": ["Bo Ng"]}
    # Another table's token, a forged form, a name too long: refused, nothing kept.
    r = c.post(f"/t/{toks[2]}/players", data={"csrf_token": _tcsrf(app, toks[1]),
                                               "ns1": "X"})
    assert r.status_code == 400
    r = c.post(f"/t/{toks[2]}/players", data={"csrf_token": _tcsrf(app, toks[2]),
                                               "ns1": "x" * 141})
    assert r.status_code == 400 and "ns1: at most 140 characters" in r.get_data(as_text=True)
    r = c.post(f"/t/{toks[2]}/players", data={"csrf_token": _tcsrf(app, toks[2]),
                                               "ns2": "y" * 120})
    body = r.get_data(as_text=True)
    assert r.status_code == 400 and "South: at most 100 characters" in body
    assert 'aria-invalid="true"' in body
    assert _names(app, ce) == {"A2 NS": ["Ann Lee"], "A2 EW": ["Bo Ng"]}
    # An empty field is "not known": clearing a seat removes that player.
    r = c.post(f"/t/{toks[2]}/players", data={"csrf_token": _tcsrf(app, toks[2]),
                                               "ns1": "Ann Lee", "ew1": ""})
    assert _names(app, ce) == {"A2 NS": ["Ann Lee"]}


@pytest.mark.parametrize(("form", "table", "pairs"), [
    ({"movement": "howell", "tables": "4"}, 1, ("NS: pair 8", "EW: pair 1")),
    ({"kind": "teams", "movement": "teams", "tables": "4"}, 2, ("NS: pair 7 (team 4)",
                                                                "EW: pair 2 (team 1)")),
    # The half table has no EW pair in round 1: it names the pairs of its first round
    # with play (the table's current round, as the fair-play rules count them).
    ({"tables": "4", "half_table": "on", "arrow_switch": "4"}, 4, ("NS: pair 4",
                                                                  "EW: pair 7")),
])
def test_a_howell_a_teams_match_and_a_half_table_ask_for_the_pairs_seated_there(
        app, td, form: dict[str, str], table: int, pairs: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    from web_helpers import new_event, table_tokens
    ce = new_event(td, **form)
    tok = table_tokens(app, ce)[table]
    page = app.test_client().get(f"/t/{tok}/players").get_data(as_text=True)
    assert ("Round 2." in page) == ("half_table" in form)
    assert [p for p in ("NS: pair", "EW: pair") if p in page] == [p[:8] for p in pairs]
    for p in pairs:
        assert p in page
    data = {"csrf_token": _tcsrf(app, tok), "ns1": "North Player", "ew2": "West Player"}
    assert app.test_client().post(f"/t/{tok}/players", data=data).status_code == 302
    got = _names(app, ce)
    want = {f"A{p.split()[2]}" for p in pairs}
    assert set(got) == want


def test_the_director_pre_assigns_and_corrects_names_on_the_pairs_page(app, td) -> None:  # type: ignore[no-untyped-def]
    from web_helpers import new_event
    _members(app)
    ce = new_event(td, tables="3")
    page = td.get(f"/events/{ce}/pairs/").get_data(as_text=True)
    assert "0 of 6 pairs have both names" in page
    assert page.index("A1 NS") < page.index("A1 EW") < page.index("A2 NS")
    assert "round 1, table 2 EW" in page
    tok = csrf(td, f"/events/{ce}/pairs/")
    r = td.post(f"/events/{ce}/pairs/", data={
        "csrf_token": tok, "p_A_NS_1_1": "Ödegaard", "p_A_NS_1_2": "Åse Ødegaard",
        "p_A_EW_3_1": "Bob Smith, Jr (EBU 456789)", "p_A_EW_3_2": "Mary Visitor"})
    assert r.status_code == 302
    assert td.get(f"/events/{ce}/pairs/").get_data(as_text=True).count(
        "Names saved (2 pairs changed).") == 1
    assert _names(app, ce) == {"A1 NS": ["Ödegaard", "Åse Ødegaard"],
                               "A3 EW": ["Bob Smith, Jr", "Mary Visitor"]}
    # A refused field is said beside it, what was typed stays, and nothing is saved.
    r = td.post(f"/events/{ce}/pairs/", data={
        "csrf_token": tok, "p_A_NS_1_1": "Fixed Name", "p_A_NS_2_1": "z" * 101})
    body = r.get_data(as_text=True)
    assert r.status_code == 400 and "pair A2 NS player 1: at most 100 characters" in body
    assert 'value="Fixed Name"' in body
    assert _names(app, ce)["A1 NS"] == ["Ödegaard", "Åse Ødegaard"]
    # Find without JavaScript, then a correction.
    find = td.get(f"/events/{ce}/pairs/?find=1&p_A_NS_1_1=odegaard").get_data(as_text=True)
    assert 'value="Åse Ødegaard"' in find
    r = td.post(f"/events/{ce}/pairs/", data={"csrf_token": tok, "p_A_NS_1_1": "Ann Lee",
                                              "p_A_NS_1_2": "Åse Ødegaard"})
    assert r.status_code == 302 and _names(app, ce)["A1 NS"] == ["Ann Lee", "Åse Ødegaard"]
    found = td.get("/members/search.json?q=smith").get_json()["members"]
    assert [m["label"] for m in found] == ["Bob Smith, Jr (EBU 456789)"]


# -- names on every output ---------------------------------------------------------------------

NAMED = {("NS", 1): ("José Müller (EBU 123456)", "Zofia Łęcka (EBU 345678)"),
         ("EW", 1): ("Siobhán O'Brien (EBU 234567)", "Vera Visitor"),
         ("NS", 2): ("Bob Smith, Jr (EBU 456789)", "Åse Ødegaard")}


@pytest.fixture
def played(app, td):  # type: ignore[no-untyped-def]
    """A 3-table Mitchell on six boards, three pairs named, rounds 1 and 2 played, published."""
    from web_helpers import new_event

    from dealer.generate import random_dealset
    from dealer.store import results as rs
    from webpanel.db import store
    _members(app)
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="six boards")
    ce = new_event(td, tables="3", deal_set_id=str(set_id))
    tok = csrf(td, f"/events/{ce}/pairs/")
    form = {f"p_A_{line}_{n}_{seat}": text for (line, n), pair in NAMED.items()
            for seat, text in enumerate(pair, 1)}
    assert td.post(f"/events/{ce}/pairs/", data={"csrf_token": tok, **form}).status_code == 302
    with app.app_context():
        m = rs.movement(store(), ce)
        for s in m.sittings:
            if s.round > 2:
                continue
            for i, b in enumerate(s.boards):
                out = rs.submit(store(), ce, "A", s.table, s.round,
                                rs.Entry(board=b, contract="4S", declarer="N",
                                         tricks=9 + (s.table + i) % 3, lead="HK"),
                                submission_id=f"p{b}-{s.table}", who="test", confirm=True)
                assert out.status == "recorded", out
        rs.publish(store(), ce, who="td")
    return ce


def test_names_on_the_desk_the_results_pages_and_the_score_cards(app, td, played) -> None:  # type: ignore[no-untyped-def]
    ce = played
    both = "José Müller &amp; Zofia Łęcka"
    desk = td.get(f"/events/{ce}/desk/").get_data(as_text=True)
    rankings = desk[desk.index('id="rankings"'):desk.index('id="travellers"')]
    assert both in rankings and "Bob Smith, Jr &amp; Åse Ødegaard" in rankings
    travellers = desk[desk.index('id="travellers"'):]
    assert both in travellers and "Siobhán O&#39;Brien &amp; Vera Visitor" in travellers
    printable = td.get(f"/events/{ce}/results").get_data(as_text=True)
    assert printable.count(both) >= 2  # the ranking and a traveller
    public = app.test_client().get(f"/results/{ce}").get_data(as_text=True)
    ranking = public[public.index('id="ranking"'):public.index('id="boards"')]
    assert both in ranking
    assert both in public[public.index('id="boards"'):public.index('id="cards"')]
    cards = public[public.index('id="cards"'):]
    assert re.search(r"<h3>Pair A1 NS <span class=\"names\">José Müller &amp; Zofia Łęcka", cards)
    # Pairs with no names show their numbers only.
    assert re.search(r"<h3>Pair A3 NS</h3>", cards)


def test_names_in_the_csv_pbn_usebio_and_pdf_exports(td, played) -> None:  # type: ignore[no-untyped-def]
    import csv
    import shutil
    import subprocess
    import warnings
    import xml.etree.ElementTree as ET

    from endplay.parsers import pbn as endplay_pbn

    from dealer.formats import pbn
    ce = played
    rows = list(csv.DictReader(io.StringIO(td.get(f"/events/{ce}/export.csv")
                                           .get_data(as_text=True))))
    line = next(r for r in rows if r["ns"] == "1" and r["ew"] == "1")
    assert (line["ns_names"], line["ew_names"]) == ("José Müller & Zofia Łęcka",
                                                    "Siobhán O'Brien & Vera Visitor")
    assert next(r for r in rows if r["ns"] == "3")["ns_names"] == ""

    data = td.get(f"/events/{ce}/export.pbn").get_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the project's strict reader takes it, no warning
        pbn.loads(data, strict=True)
    boards = endplay_pbn.loads(data.decode())
    total = next(b.info["TotalScoreTable"] for b in boards if "TotalScoreTable" in b.info)
    cols = [h["name"] if isinstance(h, dict) else h for h in total["headers"]]
    assert cols[-1] == "Names"
    names = {}
    for row in total["rows"]:
        # endplay splits on white space: the names are the cells after the others.
        cells = row[:len(cols) - 1] + [" ".join(row[len(cols) - 1:])]
        names[(cells[1], cells[2])] = cells[-1]
    assert names[("1", "NS")] == '"José Müller - Zofia Łęcka"'
    assert names[("1", "EW")] == '"Siobhán O\'Brien - Vera Visitor"'
    assert names[("3", "NS")] == "-" and len(names) == 6

    root = ET.fromstring(td.get(f"/events/{ce}/export.xml").get_data())
    players = {}
    for pair in root.iter("PAIR"):
        key = pair.findtext("PAIR_NUMBER"), pair.findtext("DIRECTION")
        players[key] = [(p.findtext("PLAYER_NAME"), p.findtext("NATIONAL_ID_NUMBER"))
                        for p in pair.iter("PLAYER")]
    assert players[("1NS", "NS")] == [("José Müller", "123456"), ("Zofia Łęcka", "345678")]
    assert players[("1EW", "EW")] == [("Siobhán O'Brien", "234567"), ("Vera Visitor", "")]
    assert players[("3NS", "NS")] == [("Unknown", ""), ("Unknown", "")]

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    text = subprocess.run(["pdftotext", "-", "-"], input=td.get(f"/events/{ce}/export.pdf")
                          .get_data(), capture_output=True, check=True).stdout.decode()
    assert "José Müller & Zofia Łęcka" in text and "Bob Smith, Jr & Åse Ødegaard" in text


def test_a_combined_ranking_shows_the_names_of_the_latest_session(app, td, played) -> None:  # type: ignore[no-untyped-def]
    from web_helpers import new_event

    from dealer.store import results as rs
    from webpanel.db import store
    one = played
    with app.app_context():
        set_id = rs.get_event(store(), one).deal_set_id
    two = new_event(td, tables="3", deal_set_id=str(set_id), name="Tuesday pairs",
                    date="2026.11.30", continues=str(one))
    with app.app_context():
        for s in rs.movement(store(), two).sittings:
            if s.round <= 2:
                for b in s.boards:
                    rs.submit(store(), two, "A", s.table, s.round,
                              rs.Entry(board=b, contract="3NT", declarer="S", tricks=9),
                              submission_id=f"two{b}-{s.table}", who="test", confirm=True)
        # Pair A1 EW brought another partner to the second session.
        ps.set_pair(store(), two, PairKey("A", "EW", 1),
                    [PlayerName("Siobhán O'Brien"), PlayerName("Walter Guest")], who="td")
    page = td.get(f"/events/{one}/combined").get_data(as_text=True)
    assert "José Müller &amp; Zofia Łęcka" in page  # named in session one only
    assert "Siobhán O&#39;Brien &amp; Walter Guest" in page and "Vera Visitor" not in page
