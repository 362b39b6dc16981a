"""Load on the panel: 100 simulated tables submit and correct results under gunicorn.

Runs the panel under gunicorn first with SQLite (WAL), then with PostgreSQL
(a throwaway cluster from Debian's ``postgresql`` package, as the store
tests use), each with the panel's own settings (webpanel/gunicorn_config.py).
Each simulated table is one coroutine with one keep-alive connection (all of
them in one asyncio process, so the client costs the two cores little): it
opens its entry page once (the table-bound form token), then enters its
boards round by round as fast as it can, corrects the entries
of its last round once its boards are done (a table changes only its round in
progress), and now and then sends a form again
exactly as a flaky phone would (same submission id). At the end the
database is compared with what the tables were told: a result they were
told is recorded but is missing or different is *lost*; a row more than the
tables entered is *duplicated*.

    .venv/bin/python bench/panel_load.py              # 60 s per backend
    .venv/bin/python bench/panel_load.py --seconds 10 --backends sqlite
    .venv/bin/python bench/panel_load.py --workers 2 --threads 4
    .venv/bin/python bench/panel_load.py --no-accept --no-names   # entries alone

A club night as issue 14 asks for it is the default: each table first names its
four players (the round-1 form a phone shows, one POST), and the event's
acceptance step is on (``ClubEvent.ew_accept``): each entry is pending until the
table sends East-West's acceptance (a second POST, resent now and then like any
form). An entry never accepted counts as lost, and so does a name the table
was told is kept but that the database does not hold (``names_lost``).

Besides p50/p99, throughput, lost and duplicated it reports the panel's CPU
time a request (gunicorn's processes) and the spread of the tables' mean
latencies (a table on a busier worker waits longer).

Prints figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import http.client
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECTIONS = ("A", "B", "C", "D")
TABLES = 25  # 4 sections x 25 tables = 100 tables; a 25-table Mitchell has 25 rounds
RETRY_RATE = 0.05


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ PostgreSQL cluster
class PgCluster:
    """initdb + pg_ctl in a temp folder, on a unix socket (as tests/test_store.py does)."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                       key=lambda p: int(Path(p).parts[-3]))
        if not found:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = Path(found[-1]).parent
        self.base = Path(tempfile.mkdtemp(prefix="bw-bench-pg-"))
        self.port = free_port()

    def _as_pg(self, args: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args

    def start(self) -> str:
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
        data = self.base / "data"
        subprocess.run(self._as_pg([str(self.bin / "initdb"), "-D", str(data), "-A", "trust",
                                    "-U", "bw", "-E", "UTF8", "--locale=C", "--no-sync"]),
                       check=True, capture_output=True)
        opts = (f"-k {self.base} -p {self.port} -c listen_addresses='' -c max_connections=300 "
                "-c synchronous_commit=on")
        subprocess.run(self._as_pg([str(self.bin / "pg_ctl"), "-D", str(data), "-l",
                                    str(self.base / "log"), "-o", opts, "-w", "start"]),
                       check=True, capture_output=True)
        from sqlalchemy import create_engine
        admin = create_engine(f"postgresql+psycopg://bw@/postgres?host={self.base}"
                              f"&port={self.port}", isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.exec_driver_sql("CREATE DATABASE bench")
        admin.dispose()
        return f"postgresql+psycopg://bw@/bench?host={self.base}&port={self.port}"

    def postmaster(self) -> int | None:
        """The server's pid (its first line of postmaster.pid), once started."""
        try:
            return int((self.base / "data" / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        subprocess.run(self._as_pg([str(self.bin / "pg_ctl"), "-D", str(self.base / "data"),
                                    "-m", "fast", "stop"]), capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)


# ------------------------------------------------------------------ one simulated table
@dataclass
class Table:
    section: str
    table: int
    token: str
    sittings: list[tuple[int, int]]  # (round, board) in playing order
    latencies: list[float] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # what each request was (its path's verb)
    ledger: dict[int, int] = field(default_factory=dict)     # board -> tricks told recorded
    versions: dict[int, int] = field(default_factory=dict)
    rounds: dict[int, int] = field(default_factory=dict)
    accept: bool = False  # East-West accept each entry (a second POST)
    # The round-1 players form: field (ns1, ns2, ew1, ew2) -> name, and the pairs' keys.
    names: dict[str, str] = field(default_factory=dict)
    pair_fields: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    names_told: bool = False
    retries: int = 0
    errors: list[str] = field(default_factory=list)


class Connection:
    """One keep-alive HTTP/1.1 connection, spoken directly on an asyncio stream.

    The simulated tables share the machine's two cores with the panel, so the
    client must cost as little as it can: one event loop for all the tables
    (threads spent most of their time handing the GIL to each other) and no
    ``http.client`` (it parses every response's headers with the ``email``
    package). This reads only the status, Content-Length and Set-Cookie,
    which is all a table needs here.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    async def exchange(self, method: str, path: str, body: str | None,
                       cookie: str) -> tuple[int, str, str]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        data = (body or "").encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        if body is not None:
            head += ("Content-Type: application/x-www-form-urlencoded\r\n"
                     f"Content-Length: {len(data)}\r\n")
        self.writer.write(head.encode() + b"\r\n" + data)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length, set_cookie, closing = 0, "", False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.lower()
            if name == "content-length":
                length = int(value)
            elif name == "set-cookie":
                set_cookie = value.strip().split(";", 1)[0]
            elif name == "connection" and value.strip().lower() == "close":
                closing = True
            elif name == "transfer-encoding":
                raise http.client.HTTPException("chunked responses are not expected here")
        payload = await self.reader.readexactly(length) if length else b""
        if closing:
            self.close()
        return status, payload.decode("utf-8", "replace"), set_cookie


async def _request(conn: Connection, t: Table, method: str, path: str,
                   body: str | None = None, cookie: str = "") -> tuple[int, str, str]:
    start = time.perf_counter()
    out = await conn.exchange(method, path, body, cookie)
    t.latencies.append(time.perf_counter() - start)
    parts = path.split("?", 1)[0].split("/")
    t.kinds.append(f"{method} {parts[3] if len(parts) > 3 else 'page'}")
    return out


def _form(**fields: object) -> str:
    from urllib.parse import urlencode
    return urlencode({k: str(v) for k, v in fields.items()})


async def run_table(port: int, t: Table, deadline: float, seed: int) -> None:
    rnd = random.Random(seed)
    conn = Connection(port)
    try:
        status, page, cookie = await _request(conn, t, "GET", f"/t/{t.token}")
        m = re.search(r'name="csrf_token" value="([^"]+)"', page)
        if status != 200 or m is None:
            t.errors.append(f"entry page: {status}")
            return
        token = m.group(1)
        if t.names:  # round 1: the phone asks for the four players first
            body = _form(csrf_token=token, **t.names)
            status, _, _ = await _request(conn, t, "POST", f"/t/{t.token}/players", body,
                                          cookie)
            if status != 302:
                t.errors.append(f"players: HTTP {status}")
            else:
                t.names_told = True
        todo = list(t.sittings)
        while time.perf_counter() < deadline:
            if todo:
                round_no, board = todo[0]
                tricks = rnd.randint(6, 12)
                body = _form(csrf_token=token, submission_id=uuid.uuid4().hex, board=board,
                             level=4, strain="S", dbl="", declarer="N", tricks=tricks, lead="")
                path = f"/t/{t.token}/enter?round={round_no}"
                status, _, _ = await _request(conn, t, "POST", path, body, cookie)
                if status != 302:
                    t.errors.append(f"enter board {board}: HTTP {status}")
                    continue
                t.ledger[board], t.versions[board], t.rounds[board] = tricks, 1, round_no
                todo.pop(0)
                if rnd.random() < RETRY_RATE:  # the same form again: must change nothing
                    t.retries += 1
                    status, _, _ = await _request(conn, t, "POST", path, body, cookie)
                    if status != 302:
                        t.errors.append(f"retry board {board}: HTTP {status}")
                if t.accept:  # the phone passed to East-West, who accept what they see
                    accept = _form(csrf_token=token, version=1)
                    apath = f"/t/{t.token}/accept/{board}"
                    for _ in range(2 if rnd.random() < RETRY_RATE else 1):
                        status, _, _ = await _request(conn, t, "POST", apath, accept, cookie)
                        if status != 302:
                            t.errors.append(f"accept board {board}: HTTP {status}")
            else:
                # A table changes only its round in progress (issue 13): once every board
                # is entered, that is its last round.
                last = max(t.rounds.values())
                board = rnd.choice([b for b in t.ledger if t.rounds[b] == last])
                tricks = rnd.randint(6, 12)
                body = _form(csrf_token=token, submission_id=uuid.uuid4().hex,
                             version=t.versions[board], contract="4S", declarer="N",
                             tricks=tricks)
                path = f"/t/{t.token}/fix/{board}?round={t.rounds[board]}"
                status, _, _ = await _request(conn, t, "POST", path, body, cookie)
                if status != 302:
                    t.errors.append(f"correct board {board}: HTTP {status}")
                    continue
                t.ledger[board] = tricks
                t.versions[board] += 1
                if rnd.random() < RETRY_RATE:
                    t.retries += 1
                    status, _, _ = await _request(conn, t, "POST", path, body, cookie)
                    if status != 302:
                        t.errors.append(f"retry correction {board}: HTTP {status}")
    except (OSError, asyncio.IncompleteReadError, http.client.HTTPException) as exc:
        t.errors.append(f"connection: {exc}")
    finally:
        conn.close()


def run_tables(port: int, tables: list[Table], deadline: float) -> tuple[list[Table], float]:
    """All the tables in one event loop until the (wall-clock) deadline; and the CPU
    seconds the tables' process spent (the client's share of the two cores)."""
    local_deadline = time.perf_counter() + (deadline - time.time())
    cpu = time.process_time()

    async def everyone() -> None:
        await asyncio.gather(*(run_table(port, t, local_deadline, i)
                               for i, t in enumerate(tables)))
    asyncio.run(everyone())
    return tables, time.process_time() - cpu


def _cpu_where(counts) -> float:  # type: ignore[no-untyped-def]
    """CPU time (user + system) so far of the processes ``counts(pid, ppid, pgrp)`` takes."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if counts(int(stat.parent.name), int(fields[1]), int(fields[2])):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _cpu_seconds(root: int) -> float:
    """CPU time of ``root``'s process group (the one gunicorn leads) so far: the panel's cost."""
    return _cpu_where(lambda pid, ppid, pgrp: pgrp == root)


def _server_cpu_seconds(postmaster: int | None) -> float:
    """CPU time of a PostgreSQL server so far: the postmaster and its backends (the
    panel's connections), which share the two cores with the panel."""
    if postmaster is None:
        return 0.0
    return _cpu_where(lambda pid, ppid, pgrp: postmaster in (pid, ppid))


def _wait_ready(port: int, workers: int) -> None:
    """Until every worker has booted (the master binds the port before they are ready)."""
    ok = 0
    for _ in range(600):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/pads/")
            if c.getresponse().status == 200:
                ok += 1
                if ok >= 4 * workers:
                    return
            c.close()
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the panel did not start under gunicorn")


# ------------------------------------------------------------------ one backend
def run_backend(name: str, url: str, seconds: float, workers: int, threads: int,
                accept: bool = True, names: bool = True, server: int | None = None) -> dict:
    from dealer.events.model import PairKey
    from dealer.players.seating import pairs_at
    from dealer.store import Store
    from dealer.store import players as ps
    from dealer.store import results as rs
    from dealer.store.panel_models import ResultChange, ResultRow

    instance = Path(tempfile.mkdtemp(prefix="bw-bench-inst-"))
    (instance / "secret_key").write_text(uuid.uuid4().hex)
    store = Store.open(url)
    ce = rs.create_club_event(store, "Load test", tables=TABLES, sections=SECTIONS,
                              ew_accept=accept)
    tables = []
    for tok in rs.tokens(store, ce):
        m = rs.movement(store, ce, tok.section)
        sittings = [(s.round, b) for s in sorted(m.sittings, key=lambda s: s.round)
                    if s.table == tok.table_no for b in s.boards]
        t = Table(tok.section, tok.table_no, tok.token, sittings, accept=accept)
        if names:
            for sp in pairs_at(m, tok.table_no, 1):
                for i in (1, 2):
                    f = f"{sp.field}{i}"
                    t.names[f] = f"Player {tok.section}{tok.table_no} {f.upper()}"
                t.pair_fields[sp.field] = (sp.key.section, sp.key.line, sp.key.number)
        tables.append(t)
    port = free_port()
    env = dict(os.environ, BOARDWRIGHT_DATABASE_URL=url, BOARDWRIGHT_INSTANCE=str(instance))
    # The panel's own gunicorn settings (webpanel/gunicorn_config.py), as a club would run it.
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", "python:webpanel.gunicorn_config",
                "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads",
                str(threads), "webpanel:create_app()"]
    proc = subprocess.Popen(gunicorn, env=env, cwd=ROOT, start_new_session=True)
    try:
        _wait_ready(port, workers)
        # The tables run in several client processes (threads within each): one
        # Python process with 100 threads would measure its own GIL, not the panel.
        cpu_before = _cpu_seconds(proc.pid)
        server_before = _server_cpu_seconds(server)
        start = time.time()
        deadline = start + seconds
        # The tables run in a child process of their own (one event loop), so the
        # bench's own bookkeeping never competes with them.
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=ctx) as pool:
            tables, client_cpu = pool.submit(run_tables, port, tables, deadline).result()
        elapsed = time.time() - start
        panel_cpu = _cpu_seconds(proc.pid) - cpu_before
        server_cpu = _server_cpu_seconds(server) - server_before
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    rows = rs.results(store, ce)  # accepted results only: a pending one is not a result
    kept = ps.pair_names(store, ce)
    names_lost = 0
    for t in tables:
        if not t.names_told:
            continue
        for prefix, (sec, line, number) in t.pair_fields.items():
            got_names = [p.name for p in kept.get(PairKey(sec, line, number), ())]
            if got_names != [t.names[f"{prefix}1"], t.names[f"{prefix}2"]]:
                names_lost += 1
    with store.session() as s:
        changes = s.query(ResultChange).join(ResultRow).filter(
            ResultRow.club_event_id == ce).count()
    store.close()
    shutil.rmtree(instance, ignore_errors=True)
    got = {(r.section, r.table_no, r.board): r.tricks for r in rows}
    told = {(t.section, t.table, b): v for t in tables for b, v in t.ledger.items()}
    lost = sum(1 for k, v in told.items() if got.get(k) != v)
    duplicated = len(rows) - len(told)
    lat = sorted(x for t in tables for x in t.latencies)
    # Fairness: a table whose connection landed on a busier worker waits longer.
    means = sorted(statistics.fmean(t.latencies) for t in tables if t.latencies)
    errors = [e for t in tables for e in t.errors]
    out = {
        "backend": name, "accept": accept, "names": names,
        "pairs_named": sum(len(t.pair_fields) for t in tables if t.names_told),
        "names_lost": names_lost, "seconds": round(elapsed, 1), "tables": len(tables),
        "requests": len(lat), "throughput_rps": round(len(lat) / elapsed, 1),
        "panel_cpu_ms_per_request": round(1000 * panel_cpu / max(len(lat), 1), 2),
        "client_cpu_ms_per_request": round(1000 * client_cpu / max(len(lat), 1), 2),
        "db_server_cpu_ms_per_request": round(1000 * server_cpu / max(len(lat), 1), 2),
        "p50_ms": round(1000 * statistics.median(lat), 1) if lat else None,
        "p99_ms": round(1000 * lat[int(0.99 * (len(lat) - 1))], 1) if lat else None,
        "table_mean_ms_min": round(1000 * means[0], 1) if means else None,
        "table_mean_ms_max": round(1000 * means[-1], 1) if means else None,
        "results": len(rows), "corrections_audited": changes,
        "retries": sum(t.retries for t in tables), "lost": lost,
        "duplicated": max(duplicated, 0), "errors": len(errors),
        "by_kind": _by_kind(tables),
    }
    print(f"{name}: {out['requests']} requests in {out['seconds']} s = "
          f"{out['throughput_rps']} req/s (panel CPU {out['panel_cpu_ms_per_request']} ms a "
          f"request, the tables' client {out['client_cpu_ms_per_request']} ms, the database "
          f"server {out['db_server_cpu_ms_per_request']} ms); p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms (tables' means "
          f"{out['table_mean_ms_min']}-{out['table_mean_ms_max']} ms); {out['results']} "
          f"results, {changes} audited changes, {out['retries']} resent forms; lost {lost}, "
          f"duplicated {out['duplicated']}, errors {len(errors)}; "
          f"{out['pairs_named']} pairs named, names lost {names_lost}"
          + (f" (first: {errors[0]})" if errors else ""))
    for kind, row in out["by_kind"].items():
        print(f"  {kind:>14}: {row['n']:>6} requests, p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
    return out


def _by_kind(tables: list[Table]) -> dict[str, dict[str, float]]:
    """p50 and p99 of each kind of request (the entry page, an entry, an acceptance...)."""
    seen: dict[str, list[float]] = {}
    for t in tables:
        for kind, x in zip(t.kinds, t.latencies, strict=True):
            seen.setdefault(kind, []).append(x)
    out = {}
    for kind, xs in sorted(seen.items()):
        xs.sort()
        out[kind] = {"n": len(xs), "p50_ms": round(1000 * statistics.median(xs), 1),
                     "p99_ms": round(1000 * xs[int(0.99 * (len(xs) - 1))], 1)}
    return out


def machine_speed() -> float:
    """CPU milliseconds for a fixed piece of the panel's own Python (scoring 20,000
    contracts, best of three): the figures of different machines compare through it
    (a machine that takes twice as long here serves about half the requests)."""
    from dealer.contract import Contract
    from dealer.scoring.duplicate import score_ns
    from dealer.seats import Vulnerability
    contracts = [Contract.parse(f"{lv}{st}", "NESW"[i % 4]) for i, (lv, st) in enumerate(
        (lv, st) for lv in range(1, 8) for st in ("C", "D", "H", "S", "NT"))]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for i in range(20_000):
            c = contracts[i % len(contracts)]
            score_ns(c, min(13, 6 + c.level + (i % 3) - 1), Vulnerability.BOTH if i % 2 else
                     Vulnerability.NONE)
        best = min(best, time.process_time() - start)
    return round(1000 * best, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--backends", default="sqlite,postgresql")
    # Defaults: webpanel/gunicorn_config.py's (2 workers of 4 threads: one worker a core;
    # SQLite's writers of both workers queue at the store's writer turn).
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers (2)")
    ap.add_argument("--threads", type=int, default=4, help="threads a worker (4)")
    ap.add_argument("--no-accept", dest="accept", action="store_false",
                    help="the acceptance step off (on by default: East-West accept each entry)")
    ap.add_argument("--accept", action="store_true", default=True, help=argparse.SUPPRESS)
    ap.add_argument("--no-names", dest="names", action="store_false",
                    help="no players named in round 1 (named by default)")
    a = ap.parse_args()
    speed = machine_speed()
    print(f"machine speed: {speed} ms CPU for the reference work (scoring 20,000 contracts)")
    runs = []
    for name in a.backends.split(","):
        if name == "sqlite":
            folder = Path(tempfile.mkdtemp(prefix="bw-bench-sqlite-"))
            runs.append(run_backend("sqlite", f"sqlite:///{folder / 'bw.sqlite'}", a.seconds,
                                    a.workers, a.threads, a.accept, a.names))
            if not os.environ.get("BW_BENCH_KEEP"):
                shutil.rmtree(folder, ignore_errors=True)
            else:
                print("kept", folder)
        elif name == "postgresql":
            pg = PgCluster()
            try:
                url = pg.start()
                runs.append(run_backend("postgresql", url, a.seconds, a.workers,
                                        a.threads, a.accept, a.names, pg.postmaster()))
            finally:
                pg.stop()
    ok = all(r["lost"] == 0 and r["duplicated"] == 0 and r["names_lost"] == 0
             and r["p99_ms"] is not None
             and r["p99_ms"] <= 150 for r in runs)
    print(json.dumps({"bench": "panel_load", "goal": "p99<=150ms, 0 lost, 0 duplicated, 0 names lost",
                      "met": ok, "machine_speed_ms": speed, "runs": runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
