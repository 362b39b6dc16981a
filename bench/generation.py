"""Deal generation speed: unconstrained, and "North 15-17 HCP balanced" against ``dealer``.

Run: ``.venv/bin/python bench/generation.py [--seconds 3] [--produce 20000] [--boards 200000]``

The end-to-end case runs ``boardwright deals teach`` writing ``--boards`` boards
to a PBN file, and ``dealer`` with ``printpbn`` writing the same request to a
file, each as a child process measured alone (``os.wait4``: its own CPU time
and peak resident memory). Goals: time ratio <= 1.0, peak memory <= 100 MB.

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


END_TO_END_SCRIPT = """generate 100000000
produce {produce}
condition hcp(north) >= 15 && hcp(north) <= 17 && shape(north, any 4333 + any 4432 + any 5332)
action printpbn
"""


def _child(cmd: list[str], stdout: object, env: dict[str, str] | None = None
           ) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak RSS in MB) of one child process, alone."""
    import os

    wall0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed with status {proc.returncode}")
    return (usage.ru_utime + usage.ru_stime, time.perf_counter() - wall0,
            usage.ru_maxrss / 1024)


def end_to_end(boards: int) -> dict[str, object]:
    """``deals teach`` to PBN against ``dealer`` with printpbn, same request, same count."""
    import os

    exe = shutil.which("dealer") or "/usr/games/dealer"
    out: dict[str, object] = {"boards": boards}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BOARDWRIGHT_INSTANCE": str(Path(tmp) / "inst")}
        ours = _child([sys.executable, "-m", "dealer", "deals", "teach", REQUEST, "--boards",
                       f"1-{boards}", "--max-seconds", "3600", "-o", str(Path(tmp) / "t.pbn")],
                      subprocess.DEVNULL, env)
        out.update(teach_cpu_s=round(ours[0], 2), teach_wall_s=round(ours[1], 2),
                   teach_peak_mb=round(ours[2], 1),
                   teach_file_mb=round((Path(tmp) / "t.pbn").stat().st_size / 1e6, 1))
        if Path(exe).exists():
            script = Path(tmp) / "e2e.dl"
            script.write_text(END_TO_END_SCRIPT.format(produce=boards))
            with open(Path(tmp) / "d.pbn", "wb") as fh:
                theirs = _child([exe, str(script)], fh)
            out.update(dealer_cpu_s=round(theirs[0], 2), dealer_wall_s=round(theirs[1], 2),
                       dealer_peak_mb=round(theirs[2], 1),
                       ratio_cpu=round(ours[0] / theirs[0], 2),
                       ratio_wall=round(ours[1] / theirs[1], 2))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--produce", type=int, default=20_000)
    ap.add_argument("--boards", type=int, default=200_000,
                    help="boards for the end-to-end deals teach case (0 to skip)")
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
    if args.boards:
        e2e = end_to_end(args.boards)
        print(f"end to end, {args.boards:,} boards to PBN: deals teach {e2e['teach_cpu_s']} s CPU, "
              f"peak {e2e['teach_peak_mb']} MB; dealer printpbn {e2e.get('dealer_cpu_s')} s CPU, "
              f"peak {e2e.get('dealer_peak_mb')} MB; ratio {e2e.get('ratio_cpu')} "
              "(goals: ratio <= 1.0, peak <= 100 MB)")
        result["end_to_end"] = e2e
        result["goal_end_to_end_met"] = (e2e["teach_peak_mb"] <= 100  # type: ignore[operator]
                                         and e2e.get("ratio_cpu", 9) <= 1.0)  # type: ignore[operator]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
