"""``deals check`` shows a progress bar on a terminal and writes no ``\\r`` into a log (issue 16,
findings 7 and 9). Its speed against a plain read is measured by bench/check.py."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout, or where BOARDWRIGHT_SHARED says (a clone made elsewhere).
CLUB36 = Path(os.environ.get("BOARDWRIGHT_SHARED", ROOT.parent / "shared")) / "corpus" / "bigdeal" / "club36.pbn"


def _on_pty(cmd: list[str]) -> bytes:
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave, cwd=ROOT)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=60) == 0
    os.close(master)
    return seen


def test_check_draws_a_bar_on_a_terminal_only(tmp_path):
    cmd = [sys.executable, "-m", "dealer", "deals", "check", str(CLUB36.resolve())]
    seen = _on_pty(cmd)
    assert b"\rchecking: [" in seen and b"36/36" in seen
    log = tmp_path / "log"
    with log.open("wb") as f:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=f, cwd=ROOT, check=True, timeout=60)
    assert b"\r" not in log.read_bytes()
