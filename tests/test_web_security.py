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


# 4. Sessions end: log-out, password change, the CLI's reset --------------------------------

def _cookie(client) -> str:
    cookie = client.get_cookie("session")
    assert cookie is not None, "no session cookie"
    return cookie.value


def _with_cookie(app: Flask, value: str):
    other = app.test_client()
    other.set_cookie("session", value)
    return other


def test_a_copied_session_cookie_stops_working_after_log_out(app: Flask) -> None:
    c = app.test_client()
    director(c)
    copied = _cookie(c)
    assert _with_cookie(app, copied).get("/events/").status_code == 200  # a copy works ...
    _logout(c)
    stolen = _with_cookie(app, copied)
    r = stolen.get("/events/")  # ... until the director logs out
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    assert stolen.get("/dealsets/").status_code == 302
    # The store keeps only the hash of the cookie's secret: a copy of the database is no key.
    secret = app.session_interface.get_signing_serializer(app).loads(copied)["sid"]
    from dealer.store.panel_models import DirectorSession
    from webpanel.db import store
    with app.app_context(), store().read() as s:
        rows = [(r.id, r.revoked_at) for r in s.query(DirectorSession)]
    assert len(rows) == 1 and rows[0][1] is not None
    assert secret not in rows[0][0] and len(rows[0][0]) == 64


def _change(client, current: str, new: str, again: str | None = None, token: str | None = None):
    data = {"current": current, "new": new, "again": new if again is None else again}
    data["csrf_token"] = token if token is not None else csrf(client, "/account/password")
    return client.post("/account/password", data=data)


def test_a_password_change_ends_every_other_session(app: Flask) -> None:
    laptop = app.test_client()
    director(laptop)
    phone = app.test_client()
    assert _login(phone).status_code == 302
    assert phone.get("/events/").status_code == 200
    assert app.test_client().get("/account/password").status_code == 302  # directors only
    assert _change(laptop, PASSWORD, "new password 1", token="").status_code == 400  # CSRF
    r = _change(laptop, "not my password", "new password 1")
    assert r.status_code == 400 and "current password is wrong" in r.get_data(as_text=True)
    r = _change(laptop, PASSWORD, "new password 1", again="new password 2")
    assert r.status_code == 400 and "differ" in r.get_data(as_text=True)
    r = _change(laptop, PASSWORD, "short")
    assert r.status_code == 400 and "8 characters" in r.get_data(as_text=True)
    assert phone.get("/events/").status_code == 200  # nothing changed yet
    r = _change(laptop, PASSWORD, "new password 1")
    assert r.status_code == 302
    assert "Password changed" in laptop.get(r.headers["Location"]).get_data(as_text=True)
    assert laptop.get("/events/").status_code == 200  # this browser goes on ...
    assert phone.get("/events/").status_code == 302  # ... the other one is signed out
    assert _login(app.test_client()).status_code == 401  # the old password is dead
    assert _login(app.test_client(), password="new password 1").status_code == 302


def test_reset_password_on_the_command_line_ends_every_session(app: Flask) -> None:
    c = app.test_client()
    director(c)
    runner = app.test_cli_runner()
    out = runner.invoke(args=["reset-password", "td"], input="fresh password\nfresh password\n")
    assert out.exit_code == 0 and "every session of theirs is ended" in out.output
    assert c.get("/events/").status_code == 302
    assert _login(app.test_client(), password="fresh password").status_code == 302
    bad = runner.invoke(args=["reset-password", "nobody"], input="fresh password\n" * 2)
    assert bad.exit_code != 0 and "no director called 'nobody'" in bad.output


# 6. Login limits: per address and per account -------------------------------------------

def _try(client, name: str, password: str, addr: str):
    return client.post("/login", environ_base={"REMOTE_ADDR": addr},
                       data={"csrf_token": csrf(client, "/login"), "name": name,
                             "password": password})


def test_one_address_trying_many_names_is_limited(app: Flask) -> None:
    # Behind a reverse proxy everyone has the proxy's address: this is that address.
    c = app.test_client()
    director(c)
    _logout(c)
    for i in range(5):
        assert _try(c, f"name {i}", "guess", "10.9.9.9").status_code == 401
    r = _try(c, "td", PASSWORD, "10.9.9.9")
    assert r.status_code == 429 and "from this device" in r.get_data(as_text=True)
    assert _try(c, "td", PASSWORD, "10.9.9.10").status_code == 302  # another address


def test_many_addresses_trying_one_name_lock_that_name(app: Flask) -> None:
    # Before: only the address was counted, so a guesser with many addresses never stopped.
    c = app.test_client()
    director(c)
    from webpanel.security import create_director
    with app.app_context():
        create_director("ann", "ann's password")
    _logout(c)
    for i in range(10):
        assert _try(c, "td", f"guess {i}", f"10.0.0.{i}").status_code == 401
    r = _try(c, "td", PASSWORD, "10.0.1.1")  # the right password, from a fresh address
    text = r.get_data(as_text=True)
    assert r.status_code == 429 and "Too many failed logins for the name &#39;td&#39;" in text
    assert "reset-password" in text
    assert _try(c, "ann", "ann's password", "10.0.1.1").status_code == 302  # others log in
    _logout(c)
    # An unknown name is locked the same way: the lock tells nobody which names exist.
    for i in range(10):
        assert _try(c, "nobody", f"guess {i}", f"10.0.2.{i}").status_code == 401
    assert _try(c, "nobody", "x", "10.0.3.1").status_code == 429
    # The command line lifts the lock (with a new password).
    app.test_cli_runner().invoke(args=["reset-password", "td"], input="new password\n" * 2)
    assert _try(c, "td", "new password", "10.0.1.1").status_code == 302


# 7. Score pads: a limit per address, expiry, the director's list -------------------------

def _new_pad(client, name: str = "p", addr: str = "10.1.1.1"):
    return client.post("/pads/new", environ_base={"REMOTE_ADDR": addr},
                       data={"csrf_token": csrf(client, "/pads/"), "kind": "rubber",
                             "name": name})


def test_one_address_may_start_only_so_many_pads(tmp_path: Path) -> None:
    # Before: 50 pads in 0.4 s, kept for ever.
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", PAD_LIMIT=3)
    c = app.test_client()
    urls = [_new_pad(c, f"p{i}").headers["Location"] for i in range(3)]
    r = _new_pad(c, "p3")
    assert r.status_code == 429 and "Too many score pads" in r.get_data(as_text=True)
    assert _new_pad(c, "other", addr="10.1.1.2").status_code == 302  # another address
    # The pads already started are used freely by whoever holds their address.
    player = app.test_client()
    form = {"csrf_token": csrf(player, urls[0]), "sid": "x1", "contract": "4S",
            "declarer": "N", "tricks": "10"}
    assert player.post(urls[0], data=form).status_code == 302
    assert "WE 120" in player.get(urls[0]).get_data(as_text=True)


def test_unused_pads_expire_and_the_director_lists_and_deletes_pads(app: Flask) -> None:
    from datetime import UTC, datetime, timedelta

    from dealer.store.panel_models import Pad
    from webpanel.db import store
    c = app.test_client()
    old_url = _new_pad(c, "Old pad").headers["Location"]
    keep_url = _new_pad(c, "Kept pad").headers["Location"]
    with app.app_context(), store().write() as s:
        old = s.query(Pad).filter_by(name="Old pad").one()
        old.updated_at = datetime.now(UTC) - timedelta(days=31)
    assert app.test_client().get("/pads/all").status_code == 302  # the director's only
    director(c)
    page = c.get("/pads/all").get_data(as_text=True)  # listing deletes the unused lazily
    assert "Kept pad" in page and "Old pad" not in page
    assert c.get(old_url).status_code == 404 and c.get(keep_url).status_code == 200
    with app.app_context(), store().read() as s:
        keep_id = s.query(Pad).filter_by(name="Kept pad").one().id
    assert c.post(f"/pads/all/{keep_id}/delete").status_code == 400  # no CSRF token
    assert c.get(keep_url).status_code == 200
    r = c.post(f"/pads/all/{keep_id}/delete", data={"csrf_token": csrf(c, "/pads/all")})
    assert r.status_code == 302 and c.get(keep_url).status_code == 404
    assert c.post(f"/pads/all/{10**25}/delete",
                  data={"csrf_token": csrf(c, "/pads/all")}).status_code == 404


def test_expire_pads_on_the_command_line(app: Flask) -> None:
    from datetime import UTC, datetime, timedelta

    from dealer.store.panel_models import Pad
    from webpanel.db import store
    c = app.test_client()
    url = _new_pad(c, "Stale").headers["Location"]
    with app.app_context(), store().write() as s:
        s.query(Pad).update({Pad.updated_at: datetime.now(UTC) - timedelta(days=40)})
    out = app.test_cli_runner().invoke(args=["expire-pads"])
    assert "1 score pad unused for 30 days deleted" in out.output
    assert c.get(url).status_code == 404


# 8. The first run needs the setup code ----------------------------------------------------

def _setup(client, code: str | None, name: str = "td", addr: str = "127.0.0.1"):
    data = {"csrf_token": csrf(client, "/setup"), "name": name, "password": PASSWORD,
            "again": PASSWORD}
    if code is not None:
        data["code"] = code
    return client.post("/setup", data=data, environ_base={"REMOTE_ADDR": addr})


def test_setup_is_refused_without_the_right_code(app: Flask) -> None:
    # Before: whoever opened /setup first became the director, even from the Wi-Fi.
    stranger = app.test_client()
    for code in (None, "", "WRONG-CODE-HERE", "x", "y"):
        r = _setup(stranger, code, name="mallory", addr="10.6.6.6")
        assert r.status_code == 403, code
        assert "Wrong or missing setup code" in r.get_data(as_text=True)
    assert stranger.get("/").headers["Location"].endswith("/setup")  # still no director
    assert stranger.get("/events/").status_code == 302
    # Wrong codes count as failed logins: this address may not try more for a while.
    r = _setup(stranger, app.config["SETUP_CODE"], name="mallory", addr="10.6.6.6")
    assert r.status_code == 429 and "Too many wrong setup codes" in r.get_data(as_text=True)
    owner = app.test_client()
    assert _setup(owner, app.config["SETUP_CODE"].lower().replace("-", " ")).status_code == 302
    assert owner.get("/events/").status_code == 200


def test_the_setup_code_from_the_command_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "instance"))
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", SETUP_CODE=None)
    c = app.test_client()
    r = _setup(c, "ANYT-HING-GOES")
    assert r.status_code == 403 and "No setup code has been made yet" in r.get_data(as_text=True)
    runner = app.test_cli_runner()
    first = runner.invoke(args=["setup-code"]).output.split("Setup code: ")[1].split()[0]
    second = runner.invoke(args=["setup-code"]).output.split("Setup code: ")[1].split()[0]
    kept = tmp_path / "instance" / "setup_code"
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    assert second not in kept.read_text() and second.replace("-", "") not in kept.read_text()
    assert _setup(c, first).status_code == 403  # a new code replaces the last
    assert _setup(c, second).status_code == 302
    assert not kept.exists()  # spent
    again = runner.invoke(args=["setup-code"])
    assert again.exit_code != 0 and "there is a director already" in again.output
    # The command line still adds directors as before.
    out = runner.invoke(args=["create-director", "ann"], input="longpassword\nlongpassword\n")
    assert "director ann created" in out.output


# The session secret in the instance folder ----------------------------------------------

@pytest.mark.parametrize("blank", ["", "  \n", "\n\n"])
def test_a_blank_secret_key_file_is_replaced_by_a_new_key(blank: str, tmp_path: Path,
                                                           monkeypatch, caplog) -> None:
    # before: an empty secret_key was taken as the key "": no session could be signed, so
    # the first-run setup (and any login) failed, and the table forms' signatures had an
    # empty key.
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "secret_key").write_text(blank)
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(instance))
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", SECRET_KEY=None)
    kept = (instance / "secret_key").read_text().strip()
    assert len(kept) == 64 and app.secret_key == kept
    assert oct((instance / "secret_key").stat().st_mode & 0o777) == "0o600"
    assert f"{instance / 'secret_key'} was empty: made a new session secret" in caplog.text
    c = app.test_client()
    director(c)
    assert c.get("/events/").status_code == 200  # signed in: the session is signed
    # The key kept is the key: the next start reads it and says nothing.
    caplog.clear()
    assert make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", SECRET_KEY=None).secret_key == kept
    assert "session secret" not in caplog.text
    assert sorted(p.name for p in instance.iterdir()) == ["secret_key"]  # no temporary file


# Each starts the panel when told to, with a pause between finding no key and writing one
# (as a busy laptop may take): the workers of a gunicorn started on a fresh instance.
_WORKER = """
import sys, time
from pathlib import Path
import webpanel
real = webpanel.secrets.token_hex
class Slow:
    @staticmethod
    def token_hex(n):
        time.sleep(0.5)
        return real(n)
webpanel.secrets = Slow
go = Path(sys.argv[1])
(go.parent / f"ready-{sys.argv[3]}").touch()
while not go.exists():
    time.sleep(0.01)
app = webpanel.create_app({"TESTING": True, "DATABASE_URL": sys.argv[2]})
print(app.secret_key)
"""


@pytest.mark.parametrize("blank", [False, True])
def test_workers_starting_at_once_share_one_secret_key(blank: bool, tmp_path: Path) -> None:
    # before: each worker that found no key (or a blank one) wrote its own; the last
    # written was kept, and the other workers signed with keys nobody else knew, so a
    # director's form or a table's form sent to another worker had "expired".
    instance = tmp_path / "instance"
    if blank:
        instance.mkdir()
        (instance / "secret_key").write_text("\n")
    go = tmp_path / "go"
    env = {**os.environ, "BOARDWRIGHT_INSTANCE": str(instance), "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(go),
                                 f"sqlite:///{tmp_path / f'w{i}.sqlite'}", str(i)], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
               for i in range(3)]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < 3:  # each has loaded the panel's code
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers)
        time.sleep(0.05)
    go.touch()
    keys = []
    for w in workers:
        out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
        keys.append(out.strip())
    kept = (instance / "secret_key").read_text().strip()
    assert len(kept) == 64 and keys == [kept] * 3, keys
    assert sorted(p.name for p in instance.iterdir() if "secret" in p.name) == ["secret_key"]


def _serve(tmp_path: Path, url: str, *args: str) -> tuple[subprocess.Popen, str, Path]:
    port = _free_port()
    env = {**os.environ, "BOARDWRIGHT_INSTANCE": str(tmp_path / "instance"),
           "PYTHONUNBUFFERED": "1"}
    log_path = tmp_path / f"serve-{port}.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", str(port),
                                 "--database", url, *args], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    _wait(base + "/pads/", proc)
    return proc, base, log_path


def _browser() -> urllib.request.OpenerDirector:
    import http.cookiejar
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(
        http.cookiejar.CookieJar()))


def _post_form(opener, url: str, fields: dict[str, str]) -> tuple[int, str]:
    import re
    from urllib.parse import urlencode
    page = opener.open(url, timeout=10).read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
    data = urlencode({"csrf_token": token, **fields}).encode()
    try:
        with opener.open(url, data=data, timeout=10) as resp:
            return resp.status, resp.url
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_serve_prints_the_setup_code_and_only_it_opens_setup(tmp_path: Path) -> None:
    proc, base, log = _serve(tmp_path, f"sqlite:///{tmp_path / 'bw.sqlite'}")
    try:
        printed = log.read_text()
        code = printed.split("Setup code: ")[1].split()[0]
        assert f"open {base}/setup" in printed
        fields = {"name": "td", "password": PASSWORD, "again": PASSWORD}
        status, body = _post_form(_browser(), base + "/setup", {**fields, "code": "NOPE"})
        assert status == 403 and "Wrong or missing setup code" in body
        status, landed = _post_form(_browser(), base + "/setup", {**fields, "code": code})
        assert status == 200 and landed.endswith("/events/")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)


def test_serve_demo_needs_no_setup_and_its_password_logs_in(tmp_path: Path) -> None:
    # `make demo` ends in `boardwright serve --demo`: unattended, it prints a login instead.
    proc, base, log = _serve(tmp_path, f"sqlite:///{tmp_path / 'bw.sqlite'}", "--demo")
    try:
        printed = log.read_text()
        assert "Setup code" not in printed
        password = printed.split("log in as 'demo', password ")[1].split(")")[0]
        status, landed = _post_form(_browser(), base + "/login",
                                    {"name": "demo", "password": password})
        assert status == 200 and landed.endswith("/events/")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
