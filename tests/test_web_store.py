"""Results and pads under concurrency, on a real SQLite file and a throwaway PostgreSQL.

Reuses the store tests' PostgreSQL cluster (``pg_server``) and their ``db_url``
fixture, so these run on both backends."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from test_store import db_url, pg_server  # noqa: F401  (fixtures)

from dealer.store import Store, pads
from dealer.store import results as rs
from dealer.store.panel_models import ClubEvent
from webpanel import contexts


def _many(n: int, fn) -> list:
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(fn, range(n)))


def test_concurrent_entries_one_board_one_result(db_url: str) -> None:  # noqa: F811
    with Store.open(db_url) as st:
        ce = rs.create_club_event(st, "Race", tables=3)
        e = rs.Entry(board=1, contract="4S", declarer="N", tricks=10)
        # Eight phones enter board 1 at once, each its own form ...
        outs = _many(8, lambda i: rs.submit(st, ce, "A", 1, 1, e, submission_id=f"p{i}",
                                            who=f"phone {i}"))
        assert Counter(o.status for o in outs) == {"recorded": 1, "conflict": 7}
        # ... and one flaky phone sends the same form eight times at once.
        e2 = rs.Entry(board=2, contract="3NT", declarer="S", tricks=9)
        outs = _many(8, lambda i: rs.submit(st, ce, "A", 1, 1, e2, submission_id="same",
                                            who="phone"))
        assert Counter(o.status for o in outs) == {"recorded": 1, "duplicate": 7}
        rows = rs.results(st, ce)
        assert [(r.board, r.score) for r in rows] == [(1, 420), (2, 600)]


def test_concurrent_corrections_one_wins_and_the_audit_says_so(db_url: str) -> None:  # noqa: F811
    with Store.open(db_url) as st:
        ce = rs.create_club_event(st, "Fix", tables=3)
        rid = rs.submit(st, ce, "A", 1, 1, rs.Entry(1, "4S", "N", 10), submission_id="a",
                        who="table A1").result_id
        # Six different tricks, none the 10 recorded (a winner changing nothing would
        # leave no audit rows: the test failed one run in six).
        outs = _many(6, lambda i: rs.correct(st, rid, who=f"director {i}", reason="race",
                                             expected_version=1, contract="4S",
                                             declarer="N", tricks=(7, 8, 9, 11, 12, 13)[i]))
        won = [o for o in outs if o.status == "corrected"]
        assert len(won) == 1 and Counter(o.status for o in outs)["conflict"] == 5
        row = rs.result(st, rid)
        assert row.version == 2 and row.score == won[0].score
        audit = rs.changes(st, ce)
        assert [c.field for c in audit] == ["tricks", "score"]
        assert audit[0].old == "10" and audit[0].new == str(row.tricks)


def test_two_phones_on_one_pad_lose_nothing(db_url: str) -> None:  # noqa: F811
    with Store.open(db_url) as st:
        tok = pads.create(st, "minibridge", "club", {})
        entries = [{"side": "NS", "kind": "part", "strain": "S", "tricks": 8, "sid": f"s{i}"}
                   for i in range(12)]
        _many(6, lambda i: [pads.add(st, tok, entries[j]) for j in (2 * i, 2 * i + 1)])
        _many(4, lambda i: pads.add(st, tok, entries[0]))  # resent forms
        pad, view = pads.view(st, tok)
        assert sorted(e["sid"] for e in pad.entries) == sorted(e["sid"] for e in entries)
        assert view.totals == {"NS": 12 * 110, "EW": 0}


def _enter_from_process(args: tuple[str, int, int]) -> list[str]:
    url, ce, table = args
    with Store.open(url, migrate_schema=False) as st:
        return [rs.submit(st, ce, "A", table, 1, rs.Entry(b, "4S", "N", 10),
                          submission_id=f"t{table}b{b}", who=f"table {table}",
                          confirm=True).status for b in range(1, 41)]


def test_writers_in_several_processes_take_turns_on_sqlite(tmp_path) -> None:
    """Gunicorn runs several worker processes: on SQLite their writers queue at the
    store's writer turn (an flock) instead of failing with "database is locked"."""
    import multiprocessing

    url = f"sqlite:///{tmp_path / 'bw.sqlite'}"
    with Store.open(url) as st:
        ce = rs.create_club_event(st, "Many", tables=6)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(3) as pool:
        outs = pool.map(_enter_from_process, [(url, ce, t) for t in range(1, 7)])
    assert all(o == ["recorded"] * 40 for o in outs)
    assert (tmp_path / "bw.sqlite-writer.lock").exists()
    with Store.open(url) as st:
        assert len(rs.results(st, ce)) == 240


def test_a_table_sees_the_directors_change_at_once(tmp_path) -> None:
    """Table contexts are kept for a moment; the director's change drops them."""
    with Store.open(f"sqlite:///{tmp_path / 'bw.sqlite'}") as st:
        ce = rs.create_club_event(st, "Kept", tables=3)
        tok = rs.tokens(st, ce)[0].token
        first = contexts.table_context(st, tok)
        assert first is not None and first[1].current_round == 1
        assert contexts.table_context(st, tok) is first  # kept: no query for the next entry
        contexts.update_event(st, ce, current_round=2)
        again = contexts.table_context(st, tok)
        assert again is not first and again[1].current_round == 2
        # A table's change still sees publication at once, whatever is kept.
        rid = rs.submit(st, ce, "A", 1, 2, rs.Entry(3, "4S", "N", 10), submission_id="k1",
                        who="t", confirm=True).result_id
        assert rid is not None
        kept = contexts.table_context(st, tok)[1]
        with st.write() as s:  # published behind the cache's back (another worker)
            s.get(ClubEvent, ce).published_at = datetime.now(UTC)
        assert contexts.table_context(st, tok)[1] is kept and kept.published_at is None
        with pytest.raises(rs.EntryError, match="published"):
            rs.correct_at_table(st, kept, "A", 1, 3, who="t", reason="", submission_id="k2",
                                expected_version=1, tricks=9)


def test_a_resent_correction_changes_nothing_and_a_stale_one_is_refused(db_url: str) -> None:  # noqa: F811
    with Store.open(db_url) as st:
        ce = rs.create_club_event(st, "Again", tables=3)
        rid = rs.submit(st, ce, "A", 1, 1, rs.Entry(1, "4S", "N", 10), submission_id="e",
                        who="table A1").result_id
        fix = dict(who="table A1", reason="typo", contract="4S", declarer="N", tricks=9)
        assert rs.correct(st, rid, submission_id="c1", expected_version=1, **fix).status == \
            "corrected"
        again = rs.correct(st, rid, submission_id="c1", expected_version=1, **fix)
        assert again.status == "duplicate"
        stale = rs.correct(st, rid, submission_id="c2", expected_version=1,
                           **{**fix, "tricks": 11})
        assert stale.status == "conflict" and "4S by N, 9 tricks" in stale.message
        # The director's desk (no version, no form id) still corrects; the audit has it all.
        assert rs.correct(st, rid, who="director td", reason="ruling", ns_artificial="A+",
                          ew_artificial="A-").status == "corrected"
        row = rs.result(st, rid)
        assert (row.version, row.ns_artificial, row.score, row.contract) == (3, "A+", None, None)
        audit = [(c.field, c.old, c.new) for c in rs.changes(st, ce)]
        assert audit[:2] == [("tricks", "10", "9"), ("score", "420", "-50")]
        assert ("ns_artificial", "", "A+") in audit and ("contract", "4S", "") in audit


def test_a_resent_undo_takes_back_one_entry_on_both_backends(db_url: str) -> None:  # noqa: F811
    """Four copies of one undo form arrive at once: one entry goes, not four."""
    with Store.open(db_url) as st:
        tok = pads.create(st, "chicago", "undo race", {})
        for i, c in enumerate(("1C", "2D", "3H")):
            pads.add(st, tok, {"contract": c, "declarer": "N", "tricks": "9", "sid": f"d{i}"})
        _many(4, lambda i: pads.undo(st, tok, "u1"))
        pad, view = pads.view(st, tok)
        assert [r["contract"] for r in view.rows] == ["1♣ N", "2♦ N"]
        pads.undo(st, tok, "u2")  # another form: one more goes
        assert [r["contract"] for r in pads.view(st, tok)[1].rows] == ["1♣ N"]


def test_acceptance_and_not_played_on_both_backends(db_url: str) -> None:  # noqa: F811
    """The acceptance step's writes: a pending entry (PostgreSQL's one-statement insert
    carries it), four copies of East-West's acceptance at once (one accepts), and a
    table's not-played board with its reason, corrected later into a result."""
    with Store.open(db_url) as st:
        ce_id = rs.create_club_event(st, "Accept", tables=3, ew_accept=True)
        ce = rs.get_event(st, ce_id)
        out = rs.submit_at_table(st, ce, "A", 1, rs.Entry(1, "4S", "N", result="+1"),
                                 submission_id="p1", who="table A1")
        assert out.status == "recorded" and out.score == 450
        assert rs.results(st, ce_id) == []
        [row] = rs.results(st, ce_id, include_pending=True)
        assert row.pending and row.tricks == 11
        # North-South change it while pending: it stays pending, East-West's view is stale.
        fixed = rs.correct_at_table(st, ce, "A", 1, 1, who="table A1", reason="typo",
                                    submission_id="p2", expected_version=1, tricks=10)
        assert fixed is not None and fixed.status == "corrected"
        stale = rs.accept_at_table(st, ce, "A", 1, 1, version=1)
        assert stale is not None and stale.status == "conflict"
        outs = _many(4, lambda i: rs.accept_at_table(st, ce, "A", 1, 1, version=2))
        assert Counter(o.status for o in outs) == {"accepted": 1, "duplicate": 3}
        [row] = rs.results(st, ce_id)
        assert (row.pending, row.tricks, row.score, row.version) == (False, 10, 420, 2)
        assert rs.accept_at_table(st, ce, "A", 1, 2, version=1) is None  # nothing there
        # A board not played, with its reason; the director scores it later.
        np = rs.submit_at_table(st, ce, "A", 1, rs.Entry(2, "", not_played="fouled board"),
                                submission_id="n1", who="table A1")
        assert np.status == "recorded" and "not played (fouled board)" in np.message
        rs.accept_at_table(st, ce, "A", 1, 2, version=1)
        line = next(r for r in rs.results(st, ce_id) if r.board == 2)
        assert (line.not_played, line.not_played_reason, line.score) == (True, "fouled board",
                                                                          None)
        done = rs.correct(st, line.id, who="director", reason="played after all",
                          contract="3NT", declarer="S", tricks=9, not_played=False)
        assert done.status == "corrected"
        line = next(r for r in rs.results(st, ce_id) if r.board == 2)
        assert (line.not_played, line.not_played_reason, line.score) == (False, None, 600)
        trail = [(c.field, c.old, c.new) for c in rs.changes(st, ce_id)]
        assert ("not_played_reason", "fouled board", "") in trail
        # Closing the event ends acceptance: a pending entry stays pending, refused.
        late = rs.submit_at_table(st, ce, "A", 1, rs.Entry(3, "2H", "E", result="="),
                                  submission_id="c1", who="table A1")
        assert late.status == "recorded"
        rs.close_event(st, ce_id, who="director")
        with pytest.raises(rs.Refused, match="closed"):
            rs.accept_at_table(st, ce, "A", 1, 3, version=1)
        assert [r.board for r in rs.results(st, ce_id, include_pending=True)
                if r.pending] == [3]


def test_the_table_statements_run_on_the_driver_on_postgresql(db_url: str) -> None:  # noqa: F811
    """On PostgreSQL a table's entry, acceptance and change run their built statements
    on psycopg's cursor, not through SQLAlchemy's execution (a quarter of a request's
    CPU): each must qualify, and give the same rows and errors as SQLAlchemy would."""
    from sqlalchemy.exc import IntegrityError

    from dealer.store.results import postgres
    from dealer.store.results.corrections import _board_guarded
    from dealer.store.results.fairplay import _ACCEPT, _STATE

    with Store.open(db_url) as st:
        ce_id = rs.create_club_event(st, "Driver", tables=3, ew_accept=True)
        ce = rs.get_event(st, ce_id)
        out = rs.submit_at_table(st, ce, "A", 1, rs.Entry(1, "4S", "N", 10),
                                 submission_id="d1", who="table A1")
        assert out.status == "recorded"
        assert rs.accept_at_table(st, ce, "A", 1, 1, version=1).status == "accepted"
        fixed = rs.correct_at_table(st, ce, "A", 1, 1, who="table A1", reason="typo",
                                    submission_id="d2", expected_version=1, contract="4S",
                                    declarer="N", tricks=9)
        assert fixed is not None and fixed.status == "corrected" and fixed.score == -50
        row = rs.result(st, out.result_id)
        # The model's defaults are filled in as SQLAlchemy would (not NULL).
        assert (row.tricks, row.pending, row.swapped, row.changed_after_view) == (
            9, False, False, False)
        if not db_url.startswith("postgresql"):
            return
        for statement in (postgres.ENTRY, postgres.CORRECTION, _ACCEPT, _STATE,
                          _board_guarded("postgresql")):
            assert postgres._compiled(st, statement) is not None
        rows = postgres.run(st, _STATE, {"ce": ce_id, "section": "A", "table": 1})
        assert [(r[-2], r[-1]) for r in rows] == [(1, False)]
        # A unique key met is SQLAlchemy's IntegrityError still (the callers rely on it).
        with pytest.raises(IntegrityError):
            postgres.record_entry(st, {"club_event_id": ce_id, "section": "A", "table_no": 1,
                                       "round_no": 1, "board": 1, "ns": 1, "ew": 1,
                                       "contract": "3NT", "declarer": "S", "lead": None,
                                       "tricks": 9, "score": 400, "entered_by": "t",
                                       "late": False}, "d3")


def test_the_panel_copies_sqlites_log_from_a_thread_not_in_an_entry(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Before: the commit that filled SQLite's log past 1,000 pages copied it back (with an
    fsync) while holding the writer's turn: 60-220 ms during which every table waited.
    The panel's connections no longer copy; a thread of the panel's does, every 0.5 s."""
    import shutil
    import sqlite3
    import threading
    import time

    from sqlalchemy import text
    from web_helpers import make_app

    from webpanel.db import store

    db = tmp_path / "bw.sqlite"
    app = make_app(f"sqlite:///{db}", CHECKPOINT_IN_BACKGROUND=True)
    with app.app_context():
        st = store()
        with st.engine.connect() as c:
            assert c.execute(text("PRAGMA wal_autocheckpoint")).scalar() == 0
        assert any(t.name == "checkpoint bw.sqlite" for t in threading.enumerate())
        ce = rs.create_club_event(st, "Log", tables=3)
        out = rs.submit(st, ce, "A", 1, 1, rs.Entry(1, "4S", "N", 10), submission_id="w1",
                        who="t")
        assert out.status == "recorded"

        def in_the_database_file() -> int:
            # The database file alone, without its log: what has been copied back.
            alone = tmp_path / "alone.sqlite"
            shutil.copy(db, alone)
            conn = sqlite3.connect(alone)
            try:
                return conn.execute("SELECT count(*) FROM results").fetchone()[0]
            except sqlite3.Error:
                return 0
            finally:
                conn.close()

        deadline = time.monotonic() + 5
        while in_the_database_file() == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert in_the_database_file() == 1
    # A panel under test (TESTING) keeps SQLite's own copying unless asked.
    quiet = make_app(f"sqlite:///{tmp_path / 'other.sqlite'}")
    with quiet.app_context(), store().engine.connect() as c:
        assert c.execute(text("PRAGMA wal_autocheckpoint")).scalar() == 1000
