"""``deals check`` against a plain read of the same file: it must stay linear.

Builds a 40,000-board PBN (and, with ``--dup-mb``, a DUP of that many MB) in a
temporary folder, then times ``formats.read`` and ``boardwright deals check``
on it in this process (best of ``--runs``). Goal: check time <= 1.5 x read
time. Also runs ``deals check`` once with stderr on a pseudo-terminal (a
progress bar must be drawn) and once with stderr in a file (no ``\\r`` at all).
Prints the figures, then one JSON line.

    .venv/bin/python bench/check.py [--boards 40000] [--dup-mb 10] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pty
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer import formats  # noqa: E402
from dealer.cli import main as cli  # noqa: E402
from dealer.formats import dup  # noqa: E402
from dealer.formats._duplimate import encode_bri, encode_dge  # noqa: E402
from dealer.generate import keyed_dealset  # noqa: E402


def best_of(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def big_dup(path: Path, megabytes: float) -> int:
    """A DUP far past 99 boards (as a damaged or concatenated file would be)."""
    ds = keyed_dealset(b"bench-check-dup", list(range(1, 257)))
    recs = [encode_bri(b.deal) + encode_dge(b.deal) for b in ds]  # type: ignore[arg-type]
    count = int(megabytes * 1e6) // dup.RECORD
    trailer = b"YN1  0 99 "
    path.write_bytes(b"".join(recs[i % len(recs)] + trailer for i in range(count)))
    return count


def quiet_check(path: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli(["deals", "check", str(path)])


def terminal_bar(path: Path) -> tuple[bool, bool]:
    """(bar drawn on a pty, no \\r when stderr is a file)."""
    cmd = [sys.executable, "-m", "dealer", "deals", "check", str(path)]
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
    proc.wait()
    os.close(master)
    with tempfile.TemporaryFile() as log:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=log, cwd=ROOT, check=False)
        log.seek(0)
        clean = b"\r" not in log.read()
    return b"\rchecking: [" in seen, clean


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=40_000)
    ap.add_argument("--dup-mb", type=float, default=10.0)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    result: dict[str, object] = {"bench": "check", "boards": args.boards}
    with tempfile.TemporaryDirectory() as tmp:
        pbn_path = Path(tmp) / "big.pbn"
        formats.write(keyed_dealset(b"bench-check", list(range(1, args.boards + 1))), pbn_path)
        read_s = best_of(args.runs, lambda: formats.read(pbn_path))
        check_s = best_of(args.runs, lambda: quiet_check(pbn_path))
        ratio = check_s / read_s
        print(f"PBN {args.boards} boards ({pbn_path.stat().st_size / 1e6:.1f} MB): "
              f"read {read_s:.2f} s, check {check_s:.2f} s, ratio {ratio:.2f} (goal <= 1.5)")
        result.update(pbn_read_s=round(read_s, 3), pbn_check_s=round(check_s, 3),
                      pbn_ratio=round(ratio, 3))
        if args.dup_mb:
            dup_path = Path(tmp) / "big.dup"
            n = big_dup(dup_path, args.dup_mb)
            dread = best_of(1, lambda: formats.read(dup_path))
            dcheck = best_of(1, lambda: quiet_check(dup_path))
            print(f"DUP {args.dup_mb:g} MB ({n} records): read {dread:.2f} s, "
                  f"check {dcheck:.2f} s, ratio {dcheck / dread:.2f}")
            result.update(dup_records=n, dup_read_s=round(dread, 3),
                          dup_check_s=round(dcheck, 3), dup_ratio=round(dcheck / dread, 3))
        bar, clean = terminal_bar(pbn_path)
        print(f"progress bar on a terminal: {bar}; no \\r in a log file: {clean}")
        result.update(bar_on_terminal=bar, no_cr_in_log=clean)
    result["ok"] = ratio <= 1.5 and bar and clean
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
