"""The table watcher over recorded play: attributed, unconfirmed, wrong, revokes, frame time.

Boards with recorded play (the corpus files ``endplay/example1.lin`` and
``example1.pbn``, then the RealBridge event ``example2.pbn``) are rendered by the emulated
overhead camera (:mod:`vision.table_render`) with the standard disturbances
and read back by :class:`vision.table_watch.TableWatcher`. Every recorded
card is compared with the truth:

* attributed: the watcher named the right card for the right seat and trick;
* unconfirmed: the watcher flagged it for a person (never counted as right);
* wrong: any other named card (the goal is 0).

Every ``--revoke-every``-th board gets a planted revoke (a follower's card is
swapped with a later card of another suit from the same hand, so the hand
stays the same); the truth is :meth:`dealer.play.Play.revokes` on the planted
play. A quarter of the boards are watched without the deal (rules alone).
Frame time is the wall time of ``TableWatcher.feed`` per 1280×720 frame (and
its CPU time, less disturbed by other load on a shared machine).

Run ``python bench/table_watch.py [--boards 200] [--workers 2]``; the last line
of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer import formats  # noqa: E402
from dealer.board import Board  # noqa: E402
from dealer.cards import Card  # noqa: E402
from dealer.contract import Contract  # noqa: E402
from dealer.deal import Deal  # noqa: E402
from dealer.play import replay, trick_winner  # noqa: E402
from dealer.play_record import PlayRecordError, board_play  # noqa: E402
from dealer.seats import Seat  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus" / "endplay"
Tricks = list[list[tuple[int, Card]]]


def plant_revoke(contract: Contract, deal: Deal, tricks: Tricks,
                 rng: np.random.Generator) -> tuple[Tricks, list[tuple[int, int]]] | None:
    """Swap one follower's card with a later off-suit card of the same hand.

    Returns the new tricks and the true revokes as (1-based trick, seat).
    """
    if len(tricks) != 13 or any(len(t) != 4 for t in tricks):
        return None
    per_seat = {s: [dict(t)[s] for t in tricks] for s in range(4)}
    leaders = [t[0][0] for t in tricks]
    options = []
    for ti, t in enumerate(tricks):
        led = t[0][1].suit
        for seat, card in t[1:]:
            if card.suit != led:
                continue
            for t2 in range(ti + 1, 13):
                if per_seat[seat][t2].suit != led:
                    options.append((ti, seat, t2))
    if not options:
        return None
    ti, seat, t2 = options[int(rng.integers(len(options)))]
    seq = per_seat[seat]
    seq[ti], seq[t2] = seq[t2], seq[ti]
    trump = contract.strain.suit if contract.strain is not None else None
    leader = Seat(leaders[0])
    out: Tricks = []
    for t in range(13):
        order = [int(leader.rotate(k)) for k in range(4)]
        cards = [per_seat[s][t] for s in order]
        out.append(list(zip(order, cards, strict=True)))
        leader = trick_winner(cards, leader, trump)
    play = replay(contract, [c for t in out for _, c in t], deal, enforce=False)
    truth = [(r.trick, int(r.seat)) for r in play.revokes()]
    return (out, truth) if truth else None


def load_boards(n: int) -> list[Board]:
    out: list[Board] = []
    for name in ("example1.lin", "example1.pbn", "example2.pbn", "example3.pbn"):
        for b in formats.read(SHARED / name):
            if len(out) >= n:
                return out
            if b.deal is None or b.deal.partial:
                continue
            try:
                _, tricks = board_play(b)
            except PlayRecordError:
                continue
            if sum(len(t) for t in tricks) >= 8:
                out.append(b)
    return out


_STATE: dict[str, Any] = {}


def _init(suit_min: float | None = None) -> None:
    import cv2

    from vision.index import IndexReader, Thresholds
    from vision.table_render import CALM, TableCamera, bridge_layout
    from vision.table_watch import learn_at_table

    cv2.setNumThreads(1)
    lay = bridge_layout()
    _STATE["layout"] = lay
    t = Thresholds() if suit_min is None else Thresholds(suit_min=suit_min)
    _STATE["reader"] = IndexReader(learn_at_table(TableCamera(lay, seed=424242, disturbances=CALM)), t)


def watch_board(job: tuple[Board, int, bool, bool]) -> dict[str, Any]:
    from vision.table_render import TableCamera, frames, play_scenes
    from vision.table_watch import TableWatcher, bridge_record

    board, seed, with_deal, plant = job
    contract, tricks = board_play(board)
    assert board.deal is not None and contract.declarer is not None
    truth_revokes: list[tuple[int, int]] = []
    planted = False
    if plant:
        got = plant_revoke(contract, board.deal, tricks, np.random.default_rng(seed))
        if got is not None:
            tricks, truth_revokes = got
            planted = True
    lay = _STATE["layout"]
    rec = bridge_record(contract, board.deal if with_deal else None)
    w = TableWatcher(lay, _STATE["reader"], rec)
    cam = TableCamera(lay, seed=seed)
    dummy_seat = contract.declarer.partner
    scenes = play_scenes(tricks, 4, dummy=(int(dummy_seat), board.deal.hand(dummy_seat).cards),
                         seed=seed)
    cpu: list[float] = []
    for frame, _ in frames(scenes, cam):
        c0 = time.process_time()
        w.feed(frame)
        cpu.append((time.process_time() - c0) * 1000)
    truth = {(ti, s): c for ti, t in enumerate(tricks) for s, c in t}
    got = {(ti, e.seat): e for ti, e in rec.entries()}
    auto = sum(1 for k, c in truth.items() if k in got and got[k].card == c)
    unconf = sum(1 for k in truth if k in got and got[k].card is None)
    wrong_list = [f"board {board.number} trick {k[0] + 1} seat {k[1]}: {c} recorded as {got[k].card}"
                  for k, c in truth.items() if k in got and got[k].card not in (None, c)]
    unconf_list = [f"board {board.number} trick {k[0] + 1} seat {k[1]} ({c}): {got[k].note[:90]}"
                   for k, c in truth.items() if k in got and got[k].card is None]
    missing = sum(1 for k in truth if k not in got)
    extra = sum(1 for k in got if k not in truth)
    found = {(r.trick, r.seat) for r in rec.revokes()}
    false_list = [f"board {board.number} ({'deal' if with_deal else 'no deal'}): "
                  f"{r.describe(rec.names)}" for r in rec.revokes()
                  if (r.trick, r.seat) not in set(truth_revokes)]
    inferred = sum(1 for k in w.inferred if k in got and k in truth and got[k].card == truth[k])
    return {"board": board.number, "cards": len(truth), "auto": auto, "unconfirmed": unconf,
            "wrong": len(wrong_list), "wrong_examples": wrong_list[:3],
            "unconfirmed_examples": unconf_list[:3], "missing": missing,
            "extra": extra, "with_deal": with_deal, "planted": planted,
            "revokes_true": len(truth_revokes),
            "revokes_found": len(found & set(truth_revokes)),
            "revokes_false": len(found - set(truth_revokes)), "false_examples": false_list,
            "inferred": inferred,
            "frames": w.frame_no, "wall_ms": w.frame_times_ms, "cpu_ms": cpu}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--revoke-every", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--suit-min", type=float, help="the index reader's suit_min (default 0.93)")
    args = ap.parse_args(argv)
    t0 = time.time()
    boards = load_boards(args.boards)
    jobs = [(b, args.seed * 100_000 + i, i % 4 != 3, i % args.revoke_every == 0)
            for i, b in enumerate(boards)]
    results: list[dict[str, Any]] = []
    with mp.get_context("fork").Pool(args.workers, _init, (args.suit_min,)) as pool:
        for r in pool.imap_unordered(watch_board, jobs):
            results.append(r)
            if len(results) % 20 == 0:
                print(f"... {len(results)} of {len(jobs)} boards, {time.time() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    elapsed = time.time() - t0
    tot = {k: sum(r[k] for r in results) for k in
           ("cards", "auto", "inferred", "unconfirmed", "wrong", "missing", "extra", "frames",
            "revokes_true", "revokes_found", "revokes_false")}
    wall = np.concatenate([r["wall_ms"] for r in results])
    cpu = np.concatenate([r["cpu_ms"] for r in results])
    nodeal = [r for r in results if not r["with_deal"]]
    planted = sum(1 for r in results if r["planted"])
    pct = 100 * tot["auto"] / max(1, tot["cards"])
    print(f"boards {len(results)} ({len(nodeal)} without the deal), cards {tot['cards']}, "
          f"frames {tot['frames']}, {elapsed:.0f} s with {args.workers} workers")
    print(f"attributed automatically {tot['auto']} ({pct:.2f} %), unconfirmed {tot['unconfirmed']}, "
          f"WRONG {tot['wrong']}, missing {tot['missing']}, extra {tot['extra']}")
    print(f"  of which named from partial reads (rank and colour, plus the closed world or a "
          f"second frame): {tot['inferred']}")
    nd_cards = sum(r["cards"] for r in nodeal)
    nd_auto = sum(r["auto"] for r in nodeal)
    print(f"  without the deal: {nd_auto} of {nd_cards} automatic "
          f"({100 * nd_auto / max(1, nd_cards):.2f} %)")
    for r in results:
        for ex in r["wrong_examples"]:
            print("  WRONG:", ex)
    for ex in [e for r in results for e in r["unconfirmed_examples"]][:12]:
        print("  unconfirmed:", ex)
    for r in results:
        for ex in r["false_examples"]:
            print("  FALSE REVOKE:", ex)
    print(f"revokes: {planted} boards planted, {tot['revokes_true']} true revokes, "
          f"{tot['revokes_found']} detected, {tot['revokes_false']} flagged that were not")
    print(f"frame time (wall) p50 {np.percentile(wall, 50):.2f} ms, p99 {np.percentile(wall, 99):.2f} ms, "
          f"max {wall.max():.1f} ms; (cpu) p50 {np.percentile(cpu, 50):.2f} ms, "
          f"p99 {np.percentile(cpu, 99):.2f} ms")
    summary = {"bench": "table_watch", "boards": len(results), "boards_without_deal": len(nodeal),
               "cards": tot["cards"], "frames": tot["frames"],
               "attributed": tot["auto"], "attributed_pct": round(pct, 3),
               "inferred": tot["inferred"], "unconfirmed": tot["unconfirmed"], "wrong": tot["wrong"],
               "missing": tot["missing"], "boards_with_planted_revoke": planted,
               "revokes_true": tot["revokes_true"], "revokes_detected": tot["revokes_found"],
               "revokes_false": tot["revokes_false"],
               "frame_wall_p50_ms": round(float(np.percentile(wall, 50)), 2),
               "frame_wall_p99_ms": round(float(np.percentile(wall, 99)), 2),
               "frame_cpu_p99_ms": round(float(np.percentile(cpu, 99)), 2),
               "suit_min": args.suit_min, "workers": args.workers,
               "elapsed_s": round(elapsed, 1)}
    print(json.dumps(summary, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
