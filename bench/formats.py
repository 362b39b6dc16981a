"""Parse and write speed of the PBN and LIN formats on the corpus.

Measures ``example3.pbn`` (3,816 boards in 7,632 games, 1.9 MB): parse time as
the best of several runs (wall and CPU), and write time; also LIN and Big
Deal's club36 files. Prints the figures, then one JSON line.

    .venv/bin/python bench/formats.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer.errors import FormatWarning  # noqa: E402
from dealer.formats import lin, pbn  # noqa: E402

CORPUS = Path(os.environ.get("BOARDWRIGHT_SHARED", ROOT.parent / "shared")) / "corpus"


def best_of(runs: int, fn) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of ``runs`` calls."""
    wall = cpu = float("inf")
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - w)
        cpu = min(cpu, time.process_time() - c)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    warnings.simplefilter("ignore", FormatWarning)
    data = (CORPUS / "endplay/example3.pbn").read_bytes()
    ds = pbn.loads(data)
    games, boards = len(ds), data.count(b"[Board ")
    parse_wall, parse_cpu = best_of(args.runs, lambda: pbn.loads(data))
    write_wall, write_cpu = best_of(args.runs, lambda: pbn.dumps(ds))
    lin_data = (CORPUS / "endplay/example1.lin").read_bytes()
    lin_wall, _ = best_of(args.runs, lambda: lin.loads(lin_data))
    club = (CORPUS / "bigdeal/club36.pbn").read_bytes()
    club_lin = (CORPUS / "bigdeal/club36.lin").read_bytes()
    exact = {
        "club36.pbn": pbn.dumps(pbn.loads(club)) == club,
        "full99.pbn": pbn.dumps(pbn.loads((CORPUS / "bigdeal/full99.pbn").read_bytes()))
        == (CORPUS / "bigdeal/full99.pbn").read_bytes(),
        "club36.lin": lin.dumps(lin.loads(club_lin)) == club_lin,
    }
    print(f"example3.pbn: {len(data) / 1e6:.2f} MB, {boards} boards in {games} games")
    print(f"  parse  best of {args.runs}: {parse_wall * 1000:7.1f} ms wall, "
          f"{parse_cpu * 1000:7.1f} ms CPU  (limit 1000 ms)")
    print(f"  write  best of {args.runs}: {write_wall * 1000:7.1f} ms wall, "
          f"{write_cpu * 1000:7.1f} ms CPU")
    print(f"example1.lin parse: {lin_wall * 1000:.2f} ms")
    for name, ok in exact.items():
        print(f"{name} written byte for byte: {'yes' if ok else 'NO'}")
    print(json.dumps({
        "bench": "formats", "file": "example3.pbn", "boards": boards, "games": games,
        "runs": args.runs,
        "parse_ms": round(parse_wall * 1000, 1), "parse_cpu_ms": round(parse_cpu * 1000, 1),
        "write_ms": round(write_wall * 1000, 1), "write_cpu_ms": round(write_cpu * 1000, 1),
        "lin_example1_parse_ms": round(lin_wall * 1000, 2),
        "byte_exact": exact, "within_1s": parse_wall <= 1.0,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
