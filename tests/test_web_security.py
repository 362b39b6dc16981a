"""The panel's security findings of issue 13, each reproduced as it was found: the Flask
test client on a real SQLite file, and a real ``boardwright serve`` (and gunicorn) in their
own processes for the access log.

3 the redirect after login stays on the site; 4 sessions end at log-out and at a password
change; 5 an unknown name is refused as slowly as a known one; 6 a limit per account as
well as per address; 7 score pads are limited, expire, and are listed for the director;
8 the first-run setup needs the code printed on the console; 12 no token in the access log.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from flask import Flask
from web_helpers import PASSWORD, csrf, director, make_app

from dealer.store import Store
from dealer.store import results as rs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")


def _login(client, name: str = "td", password: str = PASSWORD, path: str = "/login"):
    return client.post(path, data={"csrf_token": csrf(client, "/login"), "name": name,
                                   "password": password})


def _logout(client) -> None:
    r = client.post("/logout", data={"csrf_token": csrf(client, "/events/")})
    assert r.status_code == 302


# 3. The redirect after login -------------------------------------------------------------

@pytest.mark.parametrize("nxt", [
    "%2F%09%2Fexample.org",      # the finding: a browser drops the tab, "//example.org"
    "%2F%0A%2Fexample.org",      # a newline: was a 500 (no newline in a Location header)
    "%2F%0D%0ALocation:%20http://example.org",
    "%2F%00%2Fexample.org",
    "%2F%5C%2Fexample.org",      # "/\\/example.org": a backslash is a slash to a browser
    "%2F%5Cexample.org",
    "%2F%2Fexample.org",
    "https%3A%2F%2Fexample.org%2F",
    "%09https://example.org",
    "%2F%7F%2Fexample.org",
    "events",                    # not a path
])
def test_the_redirect_after_login_never_leaves_the_site(app: Flask, nxt: str) -> None:
    c = app.test_client()
    director(c)
    _logout(c)
    r = _login(c, path=f"/login?next={nxt}")
    assert r.status_code == 302, r.get_data(as_text=True)[:300]
    where = r.headers["Location"]
    parts = urlsplit(where)
    assert parts.netloc in ("", "localhost") and where.endswith("/events/"), where
    assert c.get("/events/").status_code == 200  # logged in all the same


def test_a_local_next_is_still_followed(app: Flask) -> None:
    c = app.test_client()
    director(c)
    _logout(c)
    r = c.get("/dealsets/")
    assert r.status_code == 302 and "next=" in r.headers["Location"]
    login_url = urlsplit(r.headers["Location"])
    r = _login(c, path=f"{login_url.path}?{login_url.query}")
    assert r.status_code == 302 and r.headers["Location"] == "/dealsets/"


# 5. Timing: an unknown name takes as long to refuse as a known one ------------------------

def test_an_unknown_name_is_refused_as_slowly_as_a_wrong_password(tmp_path: Path) -> None:
    # Before: a known name took ~200 ms (the password hash), an unknown one ~10 ms.
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", LOGIN_LIMIT=1000,
                   ACCOUNT_LOGIN_LIMIT=1000)
    c = app.test_client()
    director(c)
    _logout(c)
    token = csrf(c, "/login")
    known, unknown = [], []

    def timed(name: str) -> float:
        t0 = time.perf_counter()
        r = c.post("/login", data={"csrf_token": token, "name": name, "password": "wrong pw"})
        took = time.perf_counter() - t0
        assert r.status_code == 401
        return took

    timed("nobody at all")  # the first unknown name also makes the dummy hash
    for i in range(7):  # interleaved, so a busy moment of the machine falls on both
        known.append(timed("td"))
        unknown.append(timed(f"nobody {i}"))
    k, u = statistics.median(known), statistics.median(unknown)
    assert u >= 0.5 * k, f"unknown name refused in {u * 1000:.0f} ms, known in {k * 1000:.0f} ms"
    assert u <= 2.0 * k, f"unknown name refused in {u * 1000:.0f} ms, known in {k * 1000:.0f} ms"


# 12. No token in the access log ---------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, headers: dict[str, str] | None = None) -> int:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _wait(url: str, proc: subprocess.Popen) -> None:
    for _ in range(300):
        if proc.poll() is not None:
            raise AssertionError(f"the server ended ({proc.returncode})")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing answers at {url}")


def _event_with_pad(url: str) -> tuple[str, str]:
    from dealer.store import pads
    with Store.open(url) as st:
        ce = rs.create_club_event(st, "Log test", tables=3)
        table = rs.tokens(st, ce)[0].token
        pad = pads.create(st, "rubber", "Log pad", {})
    return table, pad


def test_serve_writes_no_table_or_pad_token_in_its_access_log(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bw.sqlite'}"
    table, pad = _event_with_pad(url)
    port = _free_port()
    env = {**os.environ, "BOARDWRIGHT_INSTANCE": str(tmp_path / "instance"),
           "PYTHONUNBUFFERED": "1"}
    log = open(tmp_path / "serve.log", "w")  # noqa: SIM115 -- closed below
    proc = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", str(port),
                             "--database", url], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base + "/pads/", proc)
        assert _get(f"{base}/t/{table}") == 200
        assert _get(f"{base}/t/{table}/board/1?round=1",
                    headers={"Referer": f"{base}/t/{table}"}) in (200, 403)
        assert _get(f"{base}/pads/{pad}") == 200
        assert _get(f"{base}/login?next=%2Ft%2F{table}") == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        log.close()
    text = (tmp_path / "serve.log").read_text()
    assert "GET /t/<redacted> HTTP/1.1" in text and "GET /pads/<redacted>" in text, text
    assert table not in text and pad not in text, text


def test_gunicorn_writes_no_token_in_its_access_log(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bw.sqlite'}"
    table, pad = _event_with_pad(url)
    port = _free_port()
    env = dict(os.environ, BOARDWRIGHT_DATABASE_URL=url, BOARDWRIGHT_INSTANCE=str(tmp_path))
    log = open(tmp_path / "gunicorn.log", "w")  # noqa: SIM115 -- closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:webpanel.gunicorn_config",
         "--bind", f"127.0.0.1:{port}", "--workers", "1", "--access-logfile", "-",
         "webpanel:create_app()"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base + "/pads/", proc)
        assert _get(f"{base}/t/{table}", headers={"Referer": f"{base}/pads/{pad}"}) == 200
        assert _get(f"{base}/pads/{pad}", headers={"Referer": f"{base}/t/{table}"}) == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        log.close()
    text = (tmp_path / "gunicorn.log").read_text()
    assert '"GET /t/<redacted> HTTP/1.1" 200' in text, text
    assert f"{base}/pads/<redacted>" in text, text  # the Referer field, redacted too
    assert table not in text and pad not in text, text
