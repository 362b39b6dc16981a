"""Bench the corner-view reader on a real feeder camera's frames (vision/corner_view.py).

Reads the corpus ``bench/feeder_fetch.py`` builds (zpigula/pp_2021's feeder camera:
one corner of each card in view; ``<CARD>-<name>.jpg``, ``NONE-<name>.jpg`` with no
card). The deck is learned from one frame of each card: the first of each card in
name order, shown in bridge order, a card shown again (its next frame) when the
learner names its frame. Every other frame is read: accepted right, accepted
**wrong**, or rejected by reason; courts and number cards apart; the frames with
no card must all be rejected. CPU time per read (``time.process_time``, OpenCV held
to one thread): p50 and p99.

``--start K`` learns from each card's (K+1)-th frame instead (the frames before it
are read too): another learning pass over the same deck, to see how much the
figures hang on the pass.

    .venv/bin/python bench/feeder.py [FOLDER] [--start K]

Prints a short table and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.corner_view import bench_folder  # noqa: E402

DEFAULT = Path.home() / ".cache/boardwright/feeder/pp2021"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, nargs="?", default=DEFAULT,
                    help=f"the corpus (default {DEFAULT}; build it with bench/feeder_fetch.py)")
    ap.add_argument("--start", type=int, default=0, help="learn from each card's (K+1)-th frame")
    a = ap.parse_args()
    if not a.folder.is_dir():
        print(f"feeder: no corpus at {a.folder}: run bench/feeder_fetch.py first", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    r = bench_folder(a.folder, a.start)
    if not r["learned"]:
        print(json.dumps({"bench": "feeder", "learned": False, "not_learned": r["not_learned"]}))
        return 1
    summary = {"bench": "feeder", "corpus": str(a.folder), "start": a.start, **r}
    rejected, courts, numbers = r["rejected"], r["courts"], r["numbers"]
    none_out = r["no_card_outcomes"]
    print(f"learned from {r['learning_frames']} frames ({len(r['reshown'])} cards shown again)")
    print(f"read {r['tested']}: right {r['accepted_right']}, WRONG {r['accepted_wrong']}, "
          f"rejected {sum(rejected.values())} "
          f"({', '.join(f'{k} {v}' for k, v in rejected.items())})")
    print(f"courts {courts[1]}/{courts[0]}, number cards {numbers[1]}/{numbers[0]}; "
          f"no card: {dict(none_out)}; CPU p50 {summary['cpu_p50_ms']} ms, p99 {summary['cpu_p99_ms']} ms")
    print(json.dumps(summary))
    return 0 if r["accepted_wrong"] == 0 and not any(k.startswith("READ") for k in none_out) else 1


if __name__ == "__main__":
    raise SystemExit(main())
