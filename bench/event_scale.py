"""Bench: a simultaneous pairs event matchpointed across the whole field.

1,000 clubs each run a 13-table Mitchell of 26 boards (13 rounds of 2), all
on the same 26 deals: 338,000 results, 13,000 per board, compared across
the field. Scores are drawn per board from a realistic spread (a few
common contracts, some over- and undertricks, the odd double).

Timed: matchpointing every result (NumPy sort + searchsorted), EW points,
per-pair totals and percentages for all 26,000 pairs, and the field ranking.
Goal: <= 5 s and <= 1 GB peak RSS on the 2-core machine.

    .venv/bin/python bench/event_scale.py [--clubs 1000] [--objects]

``--objects`` also times the per-line path (:func:`score_matchpoints` over
338,000 :class:`Result` objects), which a club event uses.
Prints its figures, then exactly one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dealer.events.matchpoints import matchpoint_arrays, matchpoints  # noqa: E402

TABLES, BOARDS = 13, 26


def field(clubs: int, seed: int = 2026) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Board number, NS score, NS pair id and EW pair id of every result."""
    rng = np.random.default_rng(seed)
    per_board = clubs * TABLES
    board = np.repeat(np.arange(1, BOARDS + 1, dtype=np.int32), per_board)
    # Each board: five typical NS outcomes (e.g. 4S=, 4S+1, 3S+1, 4S-1, 4SX-2), one common.
    base = rng.choice([110, 140, 400, 420, 430, 450, 620, 650, 660], size=BOARDS)
    sign = rng.choice([-1, 1], size=BOARDS)
    outcomes = np.stack([base, base + 30, base - 250, -50 - 0 * base, -300 - 0 * base], axis=1)
    outcomes = outcomes * sign[:, None]
    probs = np.array([0.45, 0.2, 0.2, 0.1, 0.05])
    pick = rng.choice(5, size=BOARDS * per_board, p=probs)
    score = outcomes[board - 1, pick].astype(np.int32)
    # Who sat where: within a club, table t round r has NS t and EW (t - r) mod 13.
    idx = np.arange(BOARDS * per_board)
    within = idx % per_board
    club = within // TABLES
    table = within % TABLES
    rnd = (board - 1) // 2  # boards 2r+1, 2r+2 are set r; set s is at table (s - r) mod 13
    # Set s = rnd of the board in round r at table t: t = (s - r) mod 13. Index the 13 plays
    # of a board within a club by round: the play at "table" slot k is round k.
    r = table
    t = (rnd - r) % TABLES
    ew = (t - r) % TABLES
    ns_pair = club * (2 * TABLES) + t
    ew_pair = club * (2 * TABLES) + TABLES + ew
    return board, score, ns_pair.astype(np.int64), ew_pair.astype(np.int64)


def score_field(board: np.ndarray, score: np.ndarray, ns_pair: np.ndarray,
                ew_pair: np.ndarray) -> dict[str, object]:
    ns_mp = matchpoint_arrays(board, score)
    counts = np.bincount(board)
    top = 2.0 * (counts[board] - 1)
    ew_mp = top - ns_mp
    n_pairs = int(max(ns_pair.max(), ew_pair.max())) + 1
    mp = np.bincount(ns_pair, ns_mp, n_pairs) + np.bincount(ew_pair, ew_mp, n_pairs)
    tops = np.bincount(ns_pair, top, n_pairs) + np.bincount(ew_pair, top, n_pairs)
    pct = 100.0 * mp / tops
    order = np.argsort(-pct, kind="stable")
    return {"ns_mp": ns_mp, "pct": pct, "order": order, "pairs": n_pairs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clubs", type=int, default=1000)
    ap.add_argument("--objects", action="store_true", help="also time the Result-object path")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    board, score, ns_pair, ew_pair = field(args.clubs)
    t_gen = time.perf_counter() - t0
    n = int(board.shape[0])

    t0 = time.perf_counter()
    out = score_field(board, score, ns_pair, ew_pair)
    t_score = time.perf_counter() - t0

    # Checks that can fail: the field's points add up, and one board agrees with the
    # per-board reference.
    ns_mp = out["ns_mp"]
    per_board = n // BOARDS
    assert abs(float(ns_mp.sum()) * 2 - BOARDS * per_board * (per_board - 1) * 2) < 1e-3
    sample = np.flatnonzero(board == 7)[:500]
    ref = matchpoints(score[board == 7].tolist())[:500]
    assert np.allclose(ns_mp[sample], ref)
    pct = out["pct"]
    assert np.all((pct >= 0) & (pct <= 100))
    assert abs(float(pct.mean()) - 50.0) < 1e-9  # Mitchell: every board's pairs average 50%

    t_obj = None
    if args.objects:
        from dealer.events.matchpoints import score_matchpoints
        from dealer.events.model import Result

        t0 = time.perf_counter()
        # Pair numbers start at 1 in a Result (the arrays index pairs from 0).
        results = [Result(int(b), int(a) + 1, int(e) + 1, int(s))
                   for b, a, e, s in zip(board.tolist(), ns_pair.tolist(), ew_pair.tolist(),
                                         score.tolist(), strict=True)]
        ev = score_matchpoints(results)
        t_obj = time.perf_counter() - t0
        assert len(ev.totals) == out["pairs"]

    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"field: {args.clubs} clubs x {TABLES} tables x {BOARDS} boards = {n:,} results, "
          f"{per_board:,} per board, {out['pairs']:,} pairs")
    print(f"generate: {t_gen:.3f} s")
    print(f"matchpoint + totals + ranking (NumPy): {t_score:.3f} s")
    if t_obj is not None:
        print(f"per-line Result path (score_matchpoints): {t_obj:.3f} s")
    print(f"peak RSS: {rss_mb:.0f} MB")
    best = int(out["order"][0])
    print(f"winner: pair id {best} with {pct[best]:.2f}%")
    print(json.dumps({
        "bench": "event_scale", "clubs": args.clubs, "results": n,
        "results_per_board": per_board, "pairs": out["pairs"],
        "score_seconds": round(t_score, 3), "generate_seconds": round(t_gen, 3),
        "objects_seconds": None if t_obj is None else round(t_obj, 3),
        "peak_rss_mb": round(rss_mb, 1),
        "goal_met": t_score <= 5.0 and rss_mb <= 1024,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
