"""The panel on the club's network, as a club runs it: ``boardwright serve`` in its own
process on a non-loopback address, the director logging in over plain http from another
machine, the table cards printed as PDF, their QR codes decoded and opened on a phone.

Two networks: a network namespace joined by a veth pair (a second machine on a LAN,
``serve --lan`` finds its address itself; needs root), and 127.0.0.2 with a
``--public-url`` unlike the bind address, its name mapped by Chromium's resolver rules
(not a secure context for the browser, as a LAN address is not). HTTPS: the self-signed
certificate made on first run, its fingerprint as printed and as served.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from web_helpers import PASSWORD

pw = pytest.importorskip("playwright.sync_api")
np = pytest.importorskip("numpy")
zxingcpp = pytest.importorskip("zxingcpp")
cv2 = pytest.importorskip("cv2")

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}
NAME = "club-panel.test"  # a name no resolver knows: only Chromium's rules map it


class Panel:
    """``boardwright serve`` in a child process, with what it printed."""

    def __init__(self, proc: subprocess.Popen, lines: list[str], qr: str) -> None:
        self.proc, self.lines, self.qr = proc, lines, qr

    def printed(self, prefix: str) -> str:
        for line in self.lines:
            if line.strip().startswith(prefix):
                return line.strip().removeprefix(prefix).strip()
        raise AssertionError(f"{prefix!r} not printed: {self.lines}")


def _decode_terminal_qr(text: str) -> str:
    """Read back segno's half-block QR (light modules drawn) as an image, with zxing."""
    dark = {" ": (1, 1), "\u2580": (0, 1), "\u2584": (1, 0), "\u2588": (0, 0)}
    rows: list[list[int]] = [[], []]
    grid = []
    for line in text.splitlines():
        rows = [[dark[c][0] for c in line], [dark[c][1] for c in line]]
        grid.extend(rows)
    width = len(grid[0])
    img = (1 - np.array(grid[:width], dtype=np.uint8)) * 255  # dark modules black
    img = cv2.resize(img, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    found = zxingcpp.read_barcodes(img)
    assert found, "the QR code in the terminal does not decode"
    return found[0].text


@contextmanager
def serve(tmp: Path, *args: str, netns: str | None = None,
          port: int = 5000, host_check: str = "") -> Iterator[Panel]:
    """Start the CLI and read its banner up to the end of the QR code."""
    env = {**os.environ, "BOARDWRIGHT_INSTANCE": str(tmp / "instance"),
           "PYTHONUNBUFFERED": "1"}
    env.pop("BOARDWRIGHT_PUBLIC_URL", None)
    cmd = [sys.executable, "-m", "dealer", "serve", "--port", str(port),
           "--database", f"sqlite:///{tmp / 'panel.sqlite'}", *args]
    if netns:
        cmd = ["ip", "netns", "exec", netns, *cmd]
    err = open(tmp / f"serve-{port}.err", "w")  # noqa: SIM115 -- closed below
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True,
                            encoding="utf-8", env=env)
    try:
        lines: list[str] = []
        qr: list[str] = []
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("serve ended: " + (tmp / f"serve-{port}.err").read_text())
            if qr or (line.rstrip("\n") and set(line.rstrip("\n")) <= set(" \u2580\u2584\u2588")
                      and len(line) > 20):
                qr.append(line.rstrip("\n"))
                if len(qr) == (len(qr[0]) + 1) // 2:
                    break
            else:
                lines.append(line)
        panel = Panel(proc, lines, "\n".join(qr))
        _wait_port(host_check, port, netns)
        yield panel
    finally:
        proc.terminate()
        proc.wait(10)
        err.close()


def _wait_port(host: str, port: int, netns: str | None) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {host}:{port}")


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@contextmanager
def lan_namespace() -> Iterator[tuple[str, str]]:
    """A second machine on a LAN: a network namespace joined to this one by a veth pair."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("a network namespace needs root and iproute2")
    tag = f"bw{os.getpid() % 100000}"
    net = f"10.213.{os.getpid() % 250}"
    run = lambda *a: subprocess.run(["ip", *a], check=True, capture_output=True)  # noqa: E731
    try:
        run("netns", "add", tag)
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"cannot make a network namespace here: {exc.stderr.decode().strip()}")
    try:
        run("link", "add", f"{tag}h", "type", "veth", "peer", "name", f"{tag}n")
        run("link", "set", f"{tag}n", "netns", tag)
        run("addr", "add", f"{net}.1/24", "dev", f"{tag}h")
        run("link", "set", f"{tag}h", "up")
        run("-n", tag, "addr", "add", f"{net}.2/24", "dev", f"{tag}n")
        run("-n", tag, "link", "set", f"{tag}n", "up")
        run("-n", tag, "link", "set", "lo", "up")
        run("-n", tag, "route", "add", "default", "via", f"{net}.1")
        yield tag, f"{net}.2"
    finally:
        subprocess.run(["ip", "link", "del", f"{tag}h"], capture_output=True)
        subprocess.run(["ip", "netns", "del", tag], capture_output=True)


def _director_sets_up(page, base: str, code: str) -> None:
    page.goto(base + "/")
    assert "/setup" in page.url
    page.fill("input[name=code]", code)  # as printed by `boardwright serve`
    page.fill("input[name=name]", "td")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=again]", PASSWORD)
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r".*/events/?$"))
    assert "Form expired" not in page.inner_text("body")
    page.click("text=New event")
    page.fill("input[name=name]", "Wi-Fi pairs")
    page.fill("input[name=tables]", "3")
    with page.expect_navigation():  # (its page's address names the event, read next)
        page.click("button:has-text('Create event')")
    assert "Event created." in page.inner_text("main")


def _card_urls(page, tmp: Path) -> list[str]:
    """Print the table cards (the PDF the director downloads) and decode their QR codes."""
    m = re.search(r"/events/(\d+)", page.url)
    assert m
    # Fetched by the page itself: the browser's own resolver, cookies and certificate trust.
    b64 = page.evaluate("""async (url) => {
        const r = await fetch(url);
        if (!r.ok || r.headers.get('content-type') !== 'application/pdf') return '';
        const bytes = new Uint8Array(await r.arrayBuffer());
        let s = ''; for (const b of bytes) s += String.fromCharCode(b);
        return btoa(s); }""", f"/events/{m.group(1)}/table-cards.pdf")
    assert b64, "the table cards did not download as a PDF"
    (tmp / "cards.pdf").write_bytes(base64.b64decode(b64))
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    subprocess.run(["pdftoppm", "-r", "150", "-png", str(tmp / "cards.pdf"), str(tmp / "card")],
                   check=True)
    urls = []
    for png in sorted(tmp.glob("card*.png")):
        urls += [b.text for b in zxingcpp.read_barcodes(cv2.imread(str(png)))]
    return sorted(urls)


def _phone_enters(browser_, url: str) -> str:
    phone = browser_.new_context(**PHONE).new_page()
    phone.goto(url)
    assert "Record result" in phone.inner_text("main")
    phone.select_option("#board", index=0)  # the table's first board this round
    phone.click(".chips label:has(input[name=level][value='4']) span")
    phone.click(".chips label:has(input[name=strain][value='S']) span")
    phone.click(".chips label:has(input[name=dbl][value='']) span")
    phone.click(".chips label:has(input[name=declarer][value='N']) span")
    phone.select_option("#tricks", "10")
    with phone.expect_navigation():
        phone.click("#send")
    text = phone.inner_text("main")
    phone.context.close()
    return text


def _club_night(browser_, base: str, phones: str, tmp: Path, code: str) -> None:
    laptop = browser_.new_context(**LAPTOP)
    page = laptop.new_page()
    _director_sets_up(page, base, code)
    # Plain http: the session cookie must not be Secure, or the browser drops it.
    cookies = laptop.cookies()
    assert cookies and not any(c["secure"] for c in cookies)
    urls = _card_urls(page, tmp)
    assert len(urls) == 3 and all(u.startswith(phones + "/t/") for u in urls), urls
    assert re.search(r"Board \d+ recorded: 4S by N, 10 tricks, NS \+(420|620)\.",
                     _phone_enters(browser_, urls[0]))
    page.goto(page.url.split("?")[0].rstrip("/") + "/desk/")
    assert "1 result" in page.inner_text("#rankings")
    laptop.close()


def test_serve_lan_from_another_machine_on_a_veth_pair(launch, tmp_path: Path) -> None:
    with lan_namespace() as (ns, addr):
        with serve(tmp_path, "--lan", netns=ns, host_check=addr) as panel:
            phones = f"http://{addr}:5000"
            assert panel.printed("Phones and table cards:") == phones + "/"
            assert panel.printed("The panel:").startswith(phones + "/")
            assert _decode_terminal_qr(panel.qr) == phones + "/"
            _club_night(launch(), phones, phones, tmp_path, panel.printed("Setup code:"))


def test_serve_on_127_0_0_2_with_a_public_url_unlike_the_bind_address(
        launch, tmp_path: Path) -> None:
    port = _free_port("127.0.0.2")
    public = f"http://{NAME}:{port}"
    with serve(tmp_path, "--host", "127.0.0.2", "--public-url", public, port=port,
               host_check="127.0.0.2") as panel:
        assert panel.printed("Phones and table cards:") == public + "/"
        assert _decode_terminal_qr(panel.qr) == public + "/"
        b = launch(f"--host-resolver-rules=MAP {NAME} 127.0.0.2")
        # The director opens the public name too: for Chromium it is no secure context,
        # as 127.0.0.2 itself would be, so a Secure cookie would be dropped there.
        _club_night(b, public, public, tmp_path, panel.printed("Setup code:"))


def test_https_with_a_self_signed_certificate_and_its_fingerprint(
        launch, tmp_path: Path) -> None:
    port = _free_port("127.0.0.2")
    public = f"https://{NAME}:{port}"
    args = ("--host", "127.0.0.2", "--https", "--public-url", public)
    with serve(tmp_path, *args, port=port, host_check="127.0.0.2") as panel:
        printed = panel.printed("Certificate SHA-256 fingerprint").strip()
        assert any("Made a self-signed certificate" in line for line in panel.lines)
        fp_line = panel.lines[[i for i, line in enumerate(panel.lines)
                               if "fingerprint" in line][0] + 1].strip()
        served = ssl.get_server_certificate(("127.0.0.2", port))
        import hashlib
        digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(served)).hexdigest().upper()
        assert fp_line.replace(":", "") == digest, (printed, fp_line)
        b = launch(f"--host-resolver-rules=MAP {NAME} 127.0.0.2")
        ctx = b.new_context(ignore_https_errors=True, **LAPTOP)  # the phone's "trust it"
        page = ctx.new_page()
        _director_sets_up(page, public, panel.printed("Setup code:"))
        assert all(c["secure"] for c in ctx.cookies())  # over HTTPS the cookie is Secure
        urls = _card_urls(page, tmp_path)
        assert urls and all(u.startswith(public + "/t/") for u in urls)
        ctx.close()
    # The next start keeps the certificate: the phones trusted this fingerprint.
    with serve(tmp_path, *args, port=port, host_check="127.0.0.2") as again:
        assert not any("Made a self-signed" in line for line in again.lines)
        nxt = again.lines[[i for i, line in enumerate(again.lines)
                           if "fingerprint" in line][0] + 1].strip()
        assert nxt == fp_line
