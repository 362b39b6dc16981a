"""The panel under gunicorn with its own settings module, as a club (and the load bench) runs it."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from dealer.store import Store
from dealer.store import results as rs

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gunicorn_serves_a_table_with_the_panels_settings(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bw.sqlite'}"
    with Store.open(url) as st:
        ce = rs.create_club_event(st, "Gunicorn", tables=3)
        token = rs.tokens(st, ce)[0].token
    port = _free_port()
    env = dict(os.environ, BOARDWRIGHT_DATABASE_URL=url, BOARDWRIGHT_INSTANCE=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:webpanel.gunicorn_config",
         "--bind", f"127.0.0.1:{port}", "webpanel:create_app()"],
        cwd=ROOT, env=env, start_new_session=True, stderr=subprocess.PIPE, text=True)
    try:
        conn = None
        for _ in range(200):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", f"/t/{token}")
                page = conn.getresponse()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise AssertionError("gunicorn did not start: " + (proc.stderr.read() or ""))
        body = page.read().decode()
        assert page.status == 200 and "Table A1" in body
        assert page.getheader("Set-Cookie") is None  # a table needs no cookie
        form_token = re.search(r'name="csrf_token" value="([^"]+)"', body)[1]
        conn.request("POST", f"/t/{token}/enter?round=1", headers={
            "Content-Type": "application/x-www-form-urlencoded"},
            body=f"csrf_token={form_token}&submission_id=g1&board=1&level=3&strain=NT"
                 "&dbl=&declarer=S&tricks=9")
        r = conn.getresponse()
        r.read()  # the same keep-alive connection carries the next request
        assert r.status == 302 and "done=1" in r.getheader("Location", "")
        with Store.open(url) as st:
            assert [(x.board, x.score) for x in rs.results(st, ce)] == [(1, 400)]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    # No director yet: said by the worker that served (its first request), once; not by
    # each worker as it built the app.
    assert proc.stderr.read().count("No director yet") == 1
