"""Serving phones on the club's network, without a browser: the Secure flag follows the
scheme, the table cards carry the public address, the setting and the command line refuse
bad input in one line, and the self-signed certificate is made once and kept.
(The browser tests on a non-loopback address are tests/browser/test_club_network.py.)"""

from __future__ import annotations

import re
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest
from web_helpers import director, make_app, new_event, setup_code, table_tokens

from dealer.cli import main
from dealer.config import ConfigError, Settings, check_public_url
from webpanel.lan import LanError, check_certificate, fingerprint, lan_address, self_signed


def _session_cookie(resp) -> str:
    return next(h for h in resp.headers.getlist("Set-Cookie") if h.startswith("session="))


@pytest.mark.parametrize(("base", "secure"), [("http://192.168.1.20:5000", False),
                                              ("https://192.168.1.20:5000", True)])
def test_the_session_cookie_is_secure_exactly_over_https(tmp_path: Path, base: str,
                                                         secure: bool) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", SESSION_COOKIE_SECURE="auto")
    c = app.test_client()
    r = c.get("/setup", base_url=base)
    cookie = _session_cookie(r)
    assert ("; Secure" in cookie) is secure, cookie


def test_the_default_is_to_follow_the_scheme(tmp_path: Path, monkeypatch) -> None:
    # Before: Secure always, unless `serve` bound to the loopback address, so a phone on
    # the LAN lost the cookie over http and every login said "Form expired".
    from webpanel import create_app
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "instance"))  # its setup code
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'bw.sqlite'}",
                      "SECRET_KEY": "x"})
    assert app.config["SESSION_COOKIE_SECURE"] == "auto"
    c = app.test_client()
    page = c.get("/setup", base_url="http://10.0.0.5")
    assert "; Secure" not in _session_cookie(page)
    tok = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))[1]
    r = c.post("/setup", base_url="http://10.0.0.5",
               data={"csrf_token": tok, "name": "td", "password": "long enough pw",
                     "again": "long enough pw", "code": setup_code(app)})
    assert r.status_code == 302


def _qr_urls(pdf: bytes, tmp: Path) -> list[str]:
    cv2 = pytest.importorskip("cv2")
    zxingcpp = pytest.importorskip("zxingcpp")
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    (tmp / "cards.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "150", "-png", str(tmp / "cards.pdf"), str(tmp / "p")],
                   check=True)
    out = []
    for png in sorted(tmp.glob("p*.png")):
        out += [b.text for b in zxingcpp.read_barcodes(cv2.imread(str(png)))]
    return sorted(out)


@pytest.mark.parametrize("public", ["http://bridge.club.example:8080",
                                    "https://club.example/bridge"])
def test_table_cards_carry_the_public_url(tmp_path: Path, public: str) -> None:
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}", PUBLIC_URL=public + "/")
    c = app.test_client()
    director(c)
    ce = new_event(c)
    urls = _qr_urls(c.get(f"/events/{ce}/table-cards.pdf").data, tmp_path)
    toks = table_tokens(app, ce)
    assert urls == sorted(f"{public}/t/{toks[t]}" for t in (1, 2, 3))


@pytest.mark.parametrize(("value", "says"), [
    ("192.168.1.20:5000", "must start with http:// or https://"),
    ("ftp://host/", "must start with http:// or https://"),
    ("http://host:99999/", "is not an address"),
    ("http://host/?x=1", "without a user, query or fragment"),
    ("http:///nohost", "must be http(s)://host"),
])
def test_a_bad_public_url_is_refused_in_one_line(value: str, says: str) -> None:
    with pytest.raises(ConfigError, match=None) as exc:
        check_public_url(value)
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_public_url_from_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / "boardwright.toml").write_text('public_url = "http://10.1.2.3:5000/"\n')
    assert Settings.load(tmp_path, environ={}).public_url == "http://10.1.2.3:5000"
    (tmp_path / "boardwright.toml").write_text('public_url = "10.1.2.3"\n')
    with pytest.raises(ConfigError, match=r"boardwright.toml: public_url: '10.1.2.3' must"):
        Settings.load(tmp_path, environ={})


@pytest.mark.parametrize(("args", "says"), [
    (["--lan", "--host", "10.0.0.1"], "give --lan or --host, not both"),
    (["--cert", "x.pem"], "--cert and --key go together"),
    (["--cert", "nowhere.pem", "--key", "nokey.pem"], "nowhere.pem: no such file"),
    (["--public-url", "bridge.example"], "--public-url: 'bridge.example' must start with"),
])
def test_serve_refuses_bad_options_in_one_line(args: list[str], says: str, capsys,
                                               tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err and "Traceback" not in err, err


def test_lan_address_is_this_machines_address_on_its_network() -> None:
    try:
        addr = lan_address()
    except LanError as exc:  # a machine on no network at all says so
        assert "no network" in str(exc)
        return
    import socket
    with socket.socket() as s:  # it is one of ours: we can bind to it
        s.bind((addr, 0))
    assert not addr.startswith("127.")


def test_self_signed_certificate_is_made_once_and_renewed_for_a_new_address(
        tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    cert, key, made = self_signed(tmp_path, ["192.168.1.20"])
    assert made and oct(key.stat().st_mode & 0o777) == "0o600"
    first = fingerprint(cert.read_bytes())
    assert len(first.split(":")) == 32
    check_certificate(cert, key)  # a pair that loads in Python's own TLS server
    again, _, made_again = self_signed(tmp_path, ["192.168.1.20"])
    assert not made_again and fingerprint(again.read_bytes()) == first
    moved, _, made_moved = self_signed(tmp_path, ["10.0.0.7"])  # the laptop changed network
    assert made_moved and fingerprint(moved.read_bytes()) != first
    info = ssl._ssl._test_decode_cert(str(moved))  # type: ignore[attr-defined]
    assert ("IP Address", "10.0.0.7") in info["subjectAltName"]


def test_a_certificate_with_the_wrong_key_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    a_cert, _, _ = self_signed(tmp_path / "a", ["10.0.0.1"])
    _, b_key, _ = self_signed(tmp_path / "b", ["10.0.0.2"])
    with pytest.raises(LanError, match="not a certificate and its key"):
        check_certificate(a_cert, b_key)


def test_serve_reads_the_instance_folders_webpanel_cfg(tmp_path: Path, monkeypatch, capsys,
                                                       caplog) -> None:
    # docs/club-night.md: behind a proxy, TRUSTED_PROXIES = 1 in instance/webpanel.cfg; the
    # USEBIO export names the club from CLUB_NAME there. `boardwright serve` built the panel
    # from its options alone and never read that file (found by the sweep of the panel's
    # flask commands); its options still win over it.
    import werkzeug.serving

    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "webpanel.cfg").write_text('TRUSTED_PROXIES = 1\nCLUB_NAME = "Hillside BC"\n'
                                           'RIG_CAMERA = "camera:3"\n', encoding="utf-8")
    served: dict[str, object] = {}
    monkeypatch.setattr(werkzeug.serving, "run_simple",
                        lambda host, port, app, **kw: served.update(app=app))
    assert main(["serve", "--port", "5099", "--camera", "emulator"]) == 0
    app = served["app"]
    assert app.config["TRUSTED_PROXIES"] == 1 and app.config["CLUB_NAME"] == "Hillside BC"
    assert app.config["RIG_CAMERA"] == "emulator"  # the option over the file
    assert "Setup code:" in capsys.readouterr().out
    assert "No director yet" not in caplog.text  # (serve says it above, with the code)
    (tmp_path / "webpanel.cfg").write_text("PAD_EXPIRY_DAYS = -5\n", encoding="utf-8")
    assert main(["serve", "--port", "5099"]) == 2
    err = capsys.readouterr().err.strip()
    assert "webpanel.cfg: PAD_EXPIRY_DAYS must be a whole number" in err and "Traceback" not in err
