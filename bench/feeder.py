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
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dealer.cards import Card  # noqa: E402
from vision.corner_view import CornerReader, learning_pass  # noqa: E402
from vision.decision import Reject  # noqa: E402
from vision.learn import LearnError  # noqa: E402
from vision.photos import card_of_name  # noqa: E402

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
    by_card: dict[Card, list[Path]] = {}
    none: list[Path] = []
    for p in sorted(a.folder.glob("*.jpg")):
        card = card_of_name(p.name)
        if card is not None:
            by_card.setdefault(card, []).append(p)
        elif p.name.startswith("NONE-"):
            none.append(p)
    by_card = {c: ps[a.start % len(ps):] + ps[: a.start % len(ps)] for c, ps in by_card.items()}
    try:
        learned = learning_pass("pp2021", by_card)
    except LearnError as e:
        print(json.dumps({"bench": "feeder", "learned": False, "not_learned": str(e)}))
        return 1
    reader = CornerReader(learned.design)
    right = wrong = 0
    rejected: Counter[str] = Counter()
    courts, numbers = [0, 0], [0, 0]  # frames read, accepted right
    wrong_examples: list[str] = []
    cpu: list[float] = []
    for card, paths in by_card.items():
        tally = courts if 11 <= int(card.rank) <= 13 else numbers
        for p in paths:
            if p.name in learned.taught:
                continue
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            c0 = time.process_time()
            out = reader.read(img)
            cpu.append(time.process_time() - c0)
            tally[0] += 1
            if isinstance(out, Reject):
                rejected[out.reason.value] += 1
            elif out.card == card:
                right += 1
                tally[1] += 1
            else:
                wrong += 1
                wrong_examples.append(f"{p.name} read as {out.label}")
    none_out: Counter[str] = Counter()
    for p in none:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        c0 = time.process_time()
        out = reader.read(img)
        cpu.append(time.process_time() - c0)
        none_out[out.reason.value if isinstance(out, Reject) else f"READ AS {out.label}"] += 1
    tested = right + wrong + sum(rejected.values())
    ms = np.array(cpu) * 1000
    summary = {
        "bench": "feeder", "corpus": str(a.folder), "start": a.start, "learned": True,
        "learning_frames": len(learned.taught), "reshown": len(learned.reshown),
        "tested": tested, "accepted_right": right, "accepted_wrong": wrong,
        "accepted_pct": round(100 * (right + wrong) / max(1, tested), 1),
        "rejected": dict(rejected.most_common()), "courts": courts, "numbers": numbers,
        "no_card_frames": len(none), "no_card_outcomes": dict(none_out),
        "cpu_p50_ms": round(float(np.percentile(ms, 50)), 2), "cpu_p99_ms": round(float(np.percentile(ms, 99)), 2),
        "wrong_examples": wrong_examples[:10],
    }
    print(f"learned from {len(learned.taught)} frames ({len(learned.reshown)} cards shown again)")
    print(f"read {tested}: right {right}, WRONG {wrong}, rejected {sum(rejected.values())} "
          f"({', '.join(f'{k} {v}' for k, v in rejected.most_common())})")
    print(f"courts {courts[1]}/{courts[0]}, number cards {numbers[1]}/{numbers[0]}; "
          f"no card: {dict(none_out)}; CPU p50 {summary['cpu_p50_ms']} ms, p99 {summary['cpu_p99_ms']} ms")
    print(json.dumps(summary))
    return 0 if wrong == 0 and not any(k.startswith("READ") for k in none_out) else 1


if __name__ == "__main__":
    raise SystemExit(main())
