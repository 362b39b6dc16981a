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
