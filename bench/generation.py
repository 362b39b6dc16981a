"""Deal generation speed: unconstrained, and "North 15-17 HCP balanced" against ``dealer``.

Run: ``.venv/bin/python bench/generation.py [--seconds 3] [--produce 20000]``

Figures are given in CPU time (process time of this process, child CPU time
of ``/usr/games/dealer``) as well as wall time, because the machine may be
shared; the ratio uses CPU time. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dealer.constraints import Batch, Constraints, find_deals  # noqa: E402
from dealer.generate import KeyedStream, OsStream, owners_batch  # noqa: E402

REQUEST = "north: 15-17 hcp, balanced"
DEALER_SCRIPT = """generate 100000000
produce {produce}
condition hcp(north) >= 15 && hcp(north) <= 17 && shape(north, any 4333 + any 4432 + any 5332)
action average hcp(north)
"""
BATCH = 131_072


def unconstrained(stream: object, seconds: float) -> tuple[float, float]:
    n = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < seconds:
        owners_batch(BATCH, stream)  # type: ignore[arg-type]
        n += BATCH
    return n / (time.process_time() - cpu0), n / (time.perf_counter() - wall0)


def constrained(produce: int) -> tuple[float, float, float]:
    """Accepted deals per second (CPU, wall), as owner arrays, like dealer's counting."""
    c = Constraints.parse(REQUEST)
    stream = OsStream()
    accepted = tried = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while accepted < produce:
        accepted += int(c.mask(Batch(owners_batch(BATCH, stream))).sum())
        tried += BATCH
    return (accepted / (time.process_time() - cpu0), accepted / (time.perf_counter() - wall0),
            tried / accepted)


def run_dealer(produce: int) -> tuple[float, float, int] | None:
    exe = shutil.which("dealer") or ("/usr/games/dealer" if Path("/usr/games/dealer").exists() else None)
    if exe is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".dl", delete=False) as fh:
        fh.write(DEALER_SCRIPT.format(produce=produce))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall0 = time.perf_counter()
    out = subprocess.run([exe, fh.name], capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - wall0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    generated = int(next(line.split()[1] for line in out.splitlines() if line.startswith("Generated")))
    Path(fh.name).unlink()
    return produce / cpu, produce / wall, generated


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--produce", type=int, default=20_000)
    args = ap.parse_args()

    os_cpu, os_wall = unconstrained(OsStream(), args.seconds)
    print(f"unconstrained, OS CSPRNG:      {os_cpu:12,.0f} deals/s CPU   {os_wall:12,.0f} deals/s wall")
    k_cpu, k_wall = unconstrained(KeyedStream(b"bench"), args.seconds)
    print(f"unconstrained, keyed SHAKE-256: {k_cpu:11,.0f} deals/s CPU   {k_wall:12,.0f} deals/s wall")

    c_cpu, c_wall, one_in = constrained(args.produce)
    print(f"{REQUEST!r}: {c_cpu:,.0f} accepted/s CPU, {c_wall:,.0f} wall "
          f"(1 in {one_in:.2f} deals; exact 1 in 20.55)")
    start = time.perf_counter()
    deals = find_deals(Constraints.parse(REQUEST), 2000, progress=False)
    as_objects = len(deals) / (time.perf_counter() - start)
    print(f"  as Deal objects through find_deals: {as_objects:,.0f} deals/s wall")

    d = run_dealer(args.produce)
    result = {"bench": "generation", "unconstrained_deals_per_s_cpu": round(os_cpu),
              "unconstrained_deals_per_s_wall": round(os_wall),
              "keyed_deals_per_s_cpu": round(k_cpu),
              "constrained_accepted_per_s_cpu": round(c_cpu),
              "constrained_accepted_per_s_wall": round(c_wall),
              "find_deals_objects_per_s_wall": round(as_objects),
              "goal_unconstrained_met": os_cpu >= 1_000_000}
    if d is None:
        print("dealer: not installed (Debian package 'dealer'); no ratio")
    else:
        d_cpu, d_wall, generated = d
        ratio = c_cpu / d_cpu
        print(f"dealer (C) same request: {d_cpu:,.0f} accepted/s CPU, {d_wall:,.0f} wall "
              f"(1 in {generated / args.produce:.1f})")
        print(f"ratio boardwright/dealer: {ratio:.2f} (CPU), {c_wall / d_wall:.2f} (wall); goal >= 1.0")
        result.update({"dealer_accepted_per_s_cpu": round(d_cpu),
                       "dealer_accepted_per_s_wall": round(d_wall),
                       "ratio_vs_dealer_cpu": round(ratio, 2),
                       "ratio_vs_dealer_wall": round(c_wall / d_wall, 2),
                       "goal_ratio_met": ratio >= 1.0})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
