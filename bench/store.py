"""Store speed: save and load the 3,816-board example3.pbn, and open an up-to-date store.

    .venv/bin/python bench/store.py [--postgres URL]

Prints the figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

from dealer import formats
from dealer.errors import FormatWarning
from dealer.generate import random_dealset
from dealer.store import Store

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE3 = ROOT.parent / "shared" / "corpus" / "endplay" / "example3.pbn"


def measure(url: str, label: str) -> dict[str, float]:
    if EXAMPLE3.is_file() and "pbn" in formats.names():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FormatWarning)  # the file's quirks are not news here
            ds = formats.read(EXAMPLE3)
    else:  # the corpus or the PBN reader is missing: the same size, random deals
        ds = random_dealset(range(1, 3817))
    t0 = time.perf_counter()
    store = Store.open(url)
    t_open = time.perf_counter() - t0
    t0 = time.perf_counter()
    set_id = store.save(ds)
    t_save = time.perf_counter() - t0
    t0 = time.perf_counter()
    back = store.load(set_id)
    t_load = time.perf_counter() - t0
    assert back.deals == ds.deals, "the store gave back different deals"
    store.close()
    t0 = time.perf_counter()
    Store.open(url).close()  # already at the head: no migration work
    t_reopen = time.perf_counter() - t0
    print(f"{label}: {len(ds)} boards  first open+migrate {t_open:.2f} s  save {t_save:.2f} s  "
          f"load {t_load:.2f} s  reopen {t_reopen * 1000:.0f} ms")
    return {f"{label}_boards": len(ds), f"{label}_migrate_s": round(t_open, 3),
            f"{label}_save_s": round(t_save, 3), f"{label}_load_s": round(t_load, 3),
            f"{label}_reopen_ms": round(t_reopen * 1000, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--postgres", help="also measure on this (empty) PostgreSQL database URL")
    args = ap.parse_args()
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as d:
        result |= measure(f"sqlite:///{d}/bench.sqlite", "sqlite")
    if args.postgres:
        result |= measure(args.postgres, "postgres")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
