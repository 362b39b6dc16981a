"""The publish page's first open: the director's confirmation page for a 28-board night.

The evening as ``tests/browser/test_club_night.py`` plays it, in the panel itself
(Flask's test client, a real SQLite file in a fresh instance folder): the director
generates 28 boards on the Deal sets page, creates a 7-table Mitchell of 4 boards a
round on them, and later opens ``/events/<id>/publish``. That page shows every
board's hand record with its double-dummy table and par.

Two scenarios, each in a fresh process (so imports and per-process caches count as
they do for a newly started panel), ``--runs`` times:

- ``later``: the page is opened after whatever the panel does in the background
  once the boards exist has finished (on a club night the page is opened hours
  later); ``ahead_s`` is how long that took;
- ``at-once``: the page is opened the moment the event exists (the worst case).

Reported per open: wall seconds, and how many deals were solved meanwhile (rows
added to the store's ``dd_tables`` while the page was being opened: by the page
itself, or by the background thread it waited for); the same for the players' page
(``/results/<id>``, opened by a phone right after the director publishes). Also
the time of the generate request.

    .venv/bin/python bench/publish_page.py [--runs 3]

Prints its figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARDS, TABLES, PER_ROUND = 28, 7, 4
PASSWORD = "correct horse battery"
CODE = "BNCH-SETU-PCDE"


def _csrf(client, path: str) -> str:  # type: ignore[no-untyped-def]
    m = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).get_data(as_text=True))
    assert m, path
    return m.group(1)


def _dd_rows(engine) -> int:  # type: ignore[no-untyped-def]
    from sqlalchemy import text
    with engine.connect() as conn:
        return int(conn.scalar(text("SELECT count(*) FROM dd_tables")) or 0)


def scenario(name: str) -> dict[str, object]:
    """One evening in this process: returns its figures."""
    sys.path.insert(0, str(ROOT))
    from webpanel import create_app, handrecord
    from webpanel.db import store

    folder = Path(tempfile.mkdtemp(prefix="bw-bench-publish-"))
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'bw.sqlite'}",
                      "SECRET_KEY": "bench", "SESSION_COOKIE_SECURE": False,
                      "SETUP_CODE": CODE})
    c = app.test_client()
    r = c.post("/setup", data={"csrf_token": _csrf(c, "/setup"), "name": "td",
                               "password": PASSWORD, "again": PASSWORD, "code": CODE})
    assert r.status_code == 302, r.status_code
    tok = _csrf(c, "/dealsets/")
    t0 = time.perf_counter()
    r = c.post("/dealsets/generate", data={"csrf_token": tok, "name": "Tuesday boards",
                                           "first": "1", "count": str(BOARDS)})
    generate_s = time.perf_counter() - t0
    assert r.status_code == 302, r.status_code
    with app.app_context():
        set_id = store().list()[-1].id
        engine = store().engine
    r = c.post("/events/new", data={
        "csrf_token": _csrf(c, "/events/new"), "name": "Tuesday pairs", "date": "2026.11.24",
        "kind": "pairs", "movement": "mitchell", "tables": str(TABLES),
        "boards_per_round": str(PER_ROUND), "sections": "A", "scoring": "matchpoints",
        "deal_set_id": str(set_id)})
    assert r.status_code == 302, r.get_data(as_text=True)
    ce = int(r.headers["Location"].rstrip("/").split("/")[-1])
    ahead_s = 0.0
    wait = getattr(handrecord, "wait_ahead", None)  # (the panel before it solved ahead: none)
    if name == "later" and wait is not None:
        t0 = time.perf_counter()
        wait(600)
        ahead_s = time.perf_counter() - t0
    rows = _dd_rows(engine)
    t0 = time.perf_counter()
    r = c.get(f"/events/{ce}/publish")
    first_s = time.perf_counter() - t0
    assert "hand records with double-dummy" in r.get_data(as_text=True), r.status_code
    solved = _dd_rows(engine) - rows
    t0 = time.perf_counter()
    c.get(f"/events/{ce}/publish")
    second_s = time.perf_counter() - t0
    r = c.post(f"/events/{ce}/publish", data={"csrf_token": _csrf(c, f"/events/{ce}/publish"),
                                              "confirm": "yes"})
    assert r.status_code == 302, r.status_code
    rows = _dd_rows(engine)
    t0 = time.perf_counter()
    r = app.test_client().get(f"/results/{ce}")  # a phone: no cookie
    public_s = time.perf_counter() - t0
    assert r.status_code == 200 and "Par: " in r.get_data(as_text=True), r.status_code
    return {"scenario": name, "generate_s": round(generate_s, 3), "ahead_s": round(ahead_s, 3),
            "first_open_s": round(first_s, 3), "solved_meanwhile": solved,
            "second_open_s": round(second_s, 3), "public_first_open_s": round(public_s, 3),
            "public_solved_meanwhile": _dd_rows(engine) - rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scenario", choices=("later", "at-once"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.scenario:  # the child: one evening, one JSON line
        print(json.dumps(scenario(a.scenario)))
        return 0
    out: dict[str, list[dict[str, object]]] = {"later": [], "at-once": []}
    for _ in range(a.runs):
        for name in out:
            done = subprocess.run([sys.executable, __file__, "--scenario", name],
                                  capture_output=True, text=True, check=True, cwd=ROOT)
            fig = json.loads(done.stdout.strip().splitlines()[-1])
            out[name].append(fig)
            print(f"{name:8} generate {fig['generate_s']:.3f} s, ahead {fig['ahead_s']:.3f} s, "
                  f"first open {fig['first_open_s']:.3f} s ({fig['solved_meanwhile']} deals "
                  f"solved meanwhile), second open {fig['second_open_s']:.3f} s; the players' "
                  f"page after publication {fig['public_first_open_s']:.3f} s "
                  f"({fig['public_solved_meanwhile']} solved meanwhile)",
                  flush=True)
    summary: dict[str, object] = {"bench": "publish_page", "boards": BOARDS, "runs": a.runs}
    for name, figs in out.items():
        key = name.replace("-", "_")
        for f in ("first_open_s", "second_open_s", "public_first_open_s", "generate_s",
                  "ahead_s"):
            summary[f"{key}_{f}_median"] = round(statistics.median(
                float(x[f]) for x in figs), 3)  # type: ignore[arg-type]
        for f in ("solved_meanwhile", "public_solved_meanwhile"):
            summary[f"{key}_{f}"] = [x[f] for x in figs]
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
