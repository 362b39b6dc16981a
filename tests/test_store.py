"""The store on a real SQLite file, and on a throwaway PostgreSQL cluster."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import IntegrityError

from dealer import Board, Deal, DealSet, Seat, Vulnerability
from dealer.config import Settings
from dealer.generate import random_dealset
from dealer.store import Store, StoreError, make_engine, migrate
from dealer.store.models import all_metadata

CORE_TABLES = {"events", "deal_sets", "boards"}


# -- a throwaway PostgreSQL cluster ---------------------------------------------------

def _pg_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_pg_user(args: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; the Debian package brings a `postgres` user.
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL cluster on a unix socket in a temp folder; yields a URL prefix."""
    bindir = _pg_bindir()
    if bindir is None or not (bindir / "pg_ctl").exists():
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed; "
                    "apt-get install postgresql")
    base = Path(tempfile.mkdtemp(prefix="bw-pg-"))
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    data, log = base / "data", base / "log"
    with socket.socket() as s:  # the port only names the socket file, but keep it unique anyway
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run(_as_pg_user([str(bindir / "initdb"), "-D", str(data), "-A", "trust",
                                "-U", "bw", "-E", "UTF8", "--locale=C", "--no-sync"]),
                   check=True, capture_output=True)
    opts = f"-k {base} -p {port} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
    subprocess.run(_as_pg_user([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log),
                                "-o", opts, "-w", "-t", "60", "start"]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://bw@/{{db}}?host={base}&port={port}"
    finally:
        subprocess.run(_as_pg_user([str(bindir / "pg_ctl"), "-D", str(data), "-m",
                                    "immediate", "stop"]), capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def _fresh_pg_database(server: str) -> str:
    name = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(server.format(db="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    return server.format(db=name)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'instance' / 'boardwright.sqlite'}"
    return _fresh_pg_database(request.getfixturevalue("pg_server"))


# -- sample data ----------------------------------------------------------------------

FIXED = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")


def sample_set() -> DealSet:
    """36 boards with every kind of thing the model holds."""
    ds = random_dealset(range(1, 37), event="Thursday pairs")
    ds.meta.update({"Site": "Club room", "Date": "2026.11.22", "Generator": "test ♠"})
    b1 = ds.board(1)
    b1.deal = FIXED
    b1.tags.update({"Contract": "4SX", "Declarer": "N", "Result": "10", "Zebra": "1"})
    b1.sections.update({"Auction": "N\n1S Pass 4S X\nPass Pass Pass", "Play": "E\nHA H2 H3 H4"})
    ds.boards[4] = Board(5, Deal.from_pbn("N:AKQ.-.-.- - - -", partial=True))
    ds.boards[5] = Board(6, None)
    ds.boards[6] = Board(7, ds.boards[6].deal, dealer=Seat.NORTH,  # not the cycle: kept as given
                         vulnerability=Vulnerability.NONE)
    return ds


def assert_same(a: DealSet, b: DealSet) -> None:
    assert b.meta == a.meta and list(b.meta) == list(a.meta)
    assert b.sealed == a.sealed
    assert len(b) == len(a)
    for x, y in zip(a, b, strict=True):
        assert (y.number, y.dealer, y.vulnerability) == (x.number, x.dealer, x.vulnerability)
        assert y.deal == x.deal
        assert (y.deal is None) or y.deal.partial == x.deal.partial  # type: ignore[union-attr]
        assert list(y.tags.items()) == list(x.tags.items())
        assert list(y.sections.items()) == list(x.sections.items())


# -- tests on both backends -----------------------------------------------------------

def test_migrations_upgrade_from_empty_to_single_head(db_url: str) -> None:
    assert len(migrate.heads()) == 1, f"migration scripts have several heads: {migrate.heads()}"
    engine = make_engine(db_url)
    assert migrate.current(engine) is None
    assert not CORE_TABLES & set(inspect(engine).get_table_names())
    migrate.upgrade(engine)
    assert migrate.current(engine) == migrate.heads()[0]
    assert CORE_TABLES <= set(inspect(engine).get_table_names())
    # the models and the migration scripts describe the same schema
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), all_metadata())
    assert diff == []
    migrate.downgrade(engine, "base")
    assert not CORE_TABLES & set(inspect(engine).get_table_names())
    migrate.upgrade(engine)
    assert migrate.current(engine) == migrate.heads()[0]
    engine.dispose()


def test_round_trip_of_36_boards(db_url: str) -> None:
    ds = sample_set()
    with Store.open(db_url) as store:
        set_id = store.save(ds, source="thursday.pbn")
    # a second, independent open reads exactly what was written
    with Store.open(db_url) as store:
        back = store.load(set_id)
        listed = store.list()
    assert_same(ds, back)
    assert back.board(1).deal == FIXED
    assert back.board(5).deal is not None and back.board(5).deal.partial
    assert back.board(6).deal is None
    assert not back.board(7).standard_markings
    [summary] = listed
    assert (summary.id, summary.boards, summary.first, summary.last) == (set_id, 36, 1, 36)
    assert (summary.event, summary.date, summary.name) == ("Thursday pairs", "2026.11.22",
                                                           "thursday.pbn")


def test_list_delete_and_cascade(db_url: str) -> None:
    with Store.open(db_url) as store:
        a = store.save(random_dealset(range(1, 5), event="A"))
        b = store.save(random_dealset(range(1, 3), event="A"), name="second")
        sealed = DealSet(random_dealset([9]).boards, sealed=True)
        c = store.save(sealed, event="B")
        assert [s.id for s in store.list()] == [a, b, c]
        assert store.load(c).sealed
        with store.engine.connect() as conn:  # same event name and date: one event row
            assert conn.execute(text("SELECT count(*) FROM events")).scalar() == 2
        store.delete(b)
        assert [s.id for s in store.list()] == [a, c]
        with store.engine.connect() as conn:
            n = conn.execute(text("SELECT count(*) FROM boards WHERE deal_set_id = :i"),
                             {"i": b}).scalar()
        assert n == 0, "deleting a set must delete its boards"
        with pytest.raises(StoreError, match=f"no deal set {b}"):
            store.load(b)
        with pytest.raises(StoreError, match=f"no deal set {b}"):
            store.delete(b)
        assert len(store.load(a)) == 4


def test_foreign_keys_are_enforced(db_url: str) -> None:
    with Store.open(db_url) as store:
        store.save(random_dealset([1]))
        with pytest.raises(IntegrityError), store.engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO boards (deal_set_id, position, number, partial, dealer,"
                " vulnerability, tags, sections) VALUES (9999, 0, 1, false, 0, 'None', '[]', '[]')"))
        with pytest.raises(IntegrityError), store.engine.begin() as conn:
            conn.execute(text(
                "INSERT INTO boards (deal_set_id, position, number, partial, dealer,"
                " vulnerability, tags, sections) VALUES (1, 5, 1, false, 7, 'None', '[]', '[]')"))


# -- SQLite specifics -----------------------------------------------------------------

def test_sqlite_pragmas_are_on_for_every_connection(tmp_path: Path) -> None:
    path = tmp_path / "boardwright.sqlite"
    with Store.open(f"sqlite:///{path}") as store:
        conns = [store.engine.connect() for _ in range(3)]  # several pooled connections
        for conn in conns:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        for conn in conns:
            conn.close()
    assert path.exists() and path.stat().st_size > 0


def test_wal_lets_a_reader_and_a_writer_overlap(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.sqlite'}"
    with Store.open(url) as writer, Store.open(url) as reader:
        first = writer.save(random_dealset([1, 2]))
        with reader.engine.connect() as conn:
            conn.exec_driver_sql("BEGIN")
            before = conn.exec_driver_sql("SELECT count(*) FROM deal_sets").scalar()
            writer.save(random_dealset([3]))  # must not wait for the open read transaction
            assert conn.exec_driver_sql("SELECT count(*) FROM deal_sets").scalar() == before
            conn.exec_driver_sql("COMMIT")
        assert [s.id for s in reader.list()] == [first, first + 1]


def test_default_database_is_in_the_instance_folder(tmp_path: Path) -> None:
    settings = Settings.load(environ={"BOARDWRIGHT_INSTANCE": str(tmp_path / "inst")})
    assert settings.database_url == f"sqlite:///{tmp_path / 'inst' / 'boardwright.sqlite'}"
    with Store.open(settings=settings) as store:
        store.save(random_dealset([1]))
    assert (tmp_path / "inst" / "boardwright.sqlite").exists()


def test_database_url_from_environment_or_config_file(tmp_path: Path) -> None:
    (tmp_path / "boardwright.toml").write_text(
        'database_url = "postgresql+psycopg://club@db.example/boards"\n')
    assert Settings.load(tmp_path, environ={}).database_url == \
        "postgresql+psycopg://club@db.example/boards"
    env = {"BOARDWRIGHT_DATABASE_URL": "sqlite:///elsewhere.sqlite"}
    assert Settings.load(tmp_path, environ=env).database_url == "sqlite:///elsewhere.sqlite"
    (tmp_path / "boardwright.toml").write_text("database_url = [\n")
    with pytest.raises(Exception, match="boardwright.toml: not a valid TOML"):
        Settings.load(tmp_path, environ={})


def test_bad_databases_give_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="bad database URL"):
        Store.open("not a url")
    with pytest.raises(StoreError, match="unsupported database URL"):
        Store.open("nosuchdb://x/y")
    with pytest.raises(StoreError, match="cannot open the database") as err:
        Store.open(f"postgresql+psycopg://bw:secret@/nodb?host={tmp_path}&port=1")
    assert "secret" not in str(err.value) and "\n" not in str(err.value)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the database"):
        Store.open(f"sqlite:///{junk}")


def test_a_damaged_stored_deal_is_reported(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'd.sqlite'}") as store:
        set_id = store.save(random_dealset([1, 2]))
        with store.engine.begin() as conn:  # give North's first card to East too
            blob = bytearray(conn.execute(text("SELECT deal FROM boards WHERE number = 2"))
                             .scalar())
            blob[-1] |= 1
            blob[-7] |= 1 << 4  # bit 52: East's club two
            conn.execute(text("UPDATE boards SET deal = :d WHERE number = 2"), {"d": bytes(blob)})
        with pytest.raises(StoreError, match=f"deal set {set_id} is damaged"):
            store.load(set_id)


# -- round trips of real files and random sets ----------------------------------------

@pytest.mark.parametrize("name", ["endplay/example2.pbn", "endplay/example1.pbn",
                                  "bigdeal/full99.dlm"])
def test_real_files_round_trip_through_the_store(corpus: Path, tmp_path: Path,
                                                 name: str) -> None:
    from dealer import formats

    fmt = {"pbn": "pbn", "dlm": "dlm"}[name.rsplit(".", 1)[1]]
    if fmt not in formats.names():
        pytest.skip(f"the {fmt} reader is not registered yet")
    ds = formats.read(corpus / name)
    with Store.open(f"sqlite:///{tmp_path / 'r.sqlite'}") as store:
        back = store.load(store.save(ds, source=name))
    assert_same(ds, back)
    if fmt == "pbn":  # a file rich in tags: the store must keep every one, in order
        assert sum(len(b.tags) for b in back) > len(back)


_hands = st.permutations([i // 13 for i in range(52)]).map(lambda o: Deal.from_owners(o))
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@st.composite
def _dealsets(draw: st.DrawFn) -> DealSet:
    numbers = draw(st.lists(st.integers(1, 999), min_size=0, max_size=8, unique=True))
    boards = []
    for n in numbers:
        b = Board(n, draw(st.none() | _hands),
                  dealer=draw(st.sampled_from(list(Seat))),
                  vulnerability=draw(st.sampled_from(list(Vulnerability))),
                  tags=draw(st.dictionaries(_text, _text, max_size=4)),
                  sections=draw(st.dictionaries(_text, _text, max_size=2)))
        boards.append(b)
    return DealSet(boards, meta=draw(st.dictionaries(_text, _text, max_size=4)),
                   sealed=draw(st.booleans()))


def test_random_sets_round_trip(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'h.sqlite'}") as store:

        @settings(max_examples=60, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(_dealsets())
        def check(ds: DealSet) -> None:
            assert_same(ds, store.load(store.save(ds)))

        check()


def test_two_processes_write_the_same_sqlite_file(tmp_path: Path) -> None:
    # The panel and the rig write the same file at once; busy_timeout makes one wait.
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    Store.open(url).close()  # migrate first, as `make demo` does
    code = ("import sys\nfrom dealer.store import Store\nfrom dealer.generate import "
            "random_dealset\nwith Store.open(sys.argv[1]) as s:\n"
            "    for _ in range(15):\n        s.save(random_dealset(range(1, 37)))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, url], stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    with Store.open(url) as store:
        sets = store.list()
    assert len(sets) == 30 and all(s.boards == 36 for s in sets)
