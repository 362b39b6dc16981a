"""Does the panel's camera picture slow dealing? The rig with and without its PictureFeed.

Run: ``.venv/bin/python bench/rig_picture.py [--boards 12] [--rounds 2] [--time-scale 0.05]``

Deals ``--boards`` boards on the in-process emulator with the rendering
emulated camera (``emulator``: every card is rendered and read by zxing-cpp)
and a few unreadable cards, into a real SQLite file; rounds alternate between
no picture feed and a feed that stores the latest frame (downscaled to 320 px,
JPEG, at most 2 a second, rejected cards at once) in the panel's dealing job
in the same database file, as ``boardwright deal --job N`` does. Reports the
decision latency (card at gate -> route sent) p50/p99 and boards per minute of
each, and the pictures stored. Goal: p99 < 5 ms with the feed, and no
measurable slow-down. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rig  # noqa: E402
from dealer.generate import random_dealset  # noqa: E402
from dealer.store import Store, dealing  # noqa: E402


def one(boards: int, scale: float, seed: int, feed: bool) -> dict:
    sc = rig.Scenario(faults={2: ["unreadable"] * 2, max(3, boards // 2): ["unreadable", "joker"]},
                      seed=seed)
    with tempfile.TemporaryDirectory() as d, contextlib.ExitStack() as stack:
        url = f"sqlite:///{d}/bench.sqlite"
        with Store.open(url) as st:
            set_id = st.save(random_dealset(range(1, boards + 1)))
            job = dealing.create(st, set_id, machine="rig")
        link = rig.job_link(stack, url, job, str(set_id), "emulator")
        pictures = stack.enter_context(rig.PictureFeed(link.picture)) if feed else None
        r = rig.run_emulated(str(set_id), url, camera="emulator", scenario=sc,
                             time_scale=scale, seed=seed, quiet=True, pictures=pictures,
                             link=link)
        stack.close()
        with Store.open(url) as st:
            stored = dealing.image(st, job)
    return {"feed": feed, "boards": r.boards_done, "misdealt": r.misdealt,
            "p50_ms": round(statistics.median(r.decision_ms), 3),
            "p99_ms": round(r.latency(0.99), 3), "max_ms": round(max(r.decision_ms), 2),
            "cards": len(r.decision_ms), "boards_per_minute": round(r.boards_per_minute, 2),
            "pictures_sent": pictures.sent if pictures else 0,
            "picture_failures": pictures.failed if pictures else 0,
            "last_picture_bytes": len(stored) if stored else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--time-scale", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    runs = []
    for i in range(args.rounds):
        for feed in (False, True):
            r = one(args.boards, args.time_scale, args.seed + i, feed)
            runs.append(r)
            print(f"{'with   ' if feed else 'without'} picture feed: {r['boards']} boards, "
                  f"decision p50 {r['p50_ms']:.2f} ms p99 {r['p99_ms']:.2f} ms "
                  f"(max {r['max_ms']:.1f}), {r['boards_per_minute']:.1f} boards/min, "
                  f"{r['pictures_sent']} pictures stored, {r['picture_failures']} failed")

    def agg(feed: bool) -> dict:
        rs = [r for r in runs if r["feed"] == feed]
        return {"p50_ms": round(statistics.median(r["p50_ms"] for r in rs), 3),
                "p99_ms": round(max(r["p99_ms"] for r in rs), 3),
                "boards_per_minute": round(statistics.mean(r["boards_per_minute"] for r in rs), 2),
                "misdealt": sum(r["misdealt"] for r in rs),
                "pictures_sent": sum(r["pictures_sent"] for r in rs),
                "picture_failures": sum(r["picture_failures"] for r in rs)}

    off, on = agg(False), agg(True)
    print(f"without: p99 {off['p99_ms']:.2f} ms, {off['boards_per_minute']:.1f} boards/min; "
          f"with: p99 {on['p99_ms']:.2f} ms, {on['boards_per_minute']:.1f} boards/min")
    out = {"bench": "rig_picture", "boards": args.boards, "rounds": args.rounds,
           "time_scale": args.time_scale, "without_feed": off, "with_feed": on,
           "goals": {"p99_lt_5ms_with_feed": on["p99_ms"] < 5.0,
                     "zero_misdealt": off["misdealt"] + on["misdealt"] == 0,
                     "pictures_stored": on["pictures_sent"] > 0 and on["picture_failures"] == 0}}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
