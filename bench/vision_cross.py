"""Every learned design reads every other design's cards: is any card named wrong?

A club's gate is set up for one deck. A card of another deck in the hopper
must be refused or read as the card it is, never as another card. Each design
of the bench (synthetic and Debian's real decks, learned as ``bench/vision.py``
learns them) reads ``--cards`` rendered cards of every other design, and of the
two typefaces no design learns (``script``, ``italic``), on four floors. Each
read is counted as refused, read right, or **wrong** (with how both corners
passed: both on every check, the second by its shapes or by search, or both
searched). The Dutch and French decks print the same letter, V, for another
rank (vrouw, queen; valet, jack): no reader of glyphs can tell those apart, so
they are counted on their own (``v_swaps``).

    python bench/vision_cross.py [--cards 52]

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dealer.cards import Card  # noqa: E402
from vision import benchmark  # noqa: E402
from vision.index import IndexReader  # noqa: E402
from vision.render import render_card_frame  # noqa: E402

FLOORS = ("normal", "light-floor", "focus-blur", "warm-light")
UNLEARNED = ("script", "italic")
V_DECKS = {"dutch", "french"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=52, help="cards of each design shown (default 52)")
    args = ap.parse_args()
    t0 = time.process_time()
    readers = {d: IndexReader(x) for d, x in benchmark.learn_designs().items()}
    tally: Counter[str] = Counter()
    wrong: list[dict[str, str]] = []
    for shown in [*readers, *UNLEARNED]:
        for k in range(args.cards):
            card = Card((k * 7 + 3) % 52)
            frame = render_card_frame(card, design=shown, deck_id=benchmark.DECK, seed=1000 + k,
                                      distortions=FLOORS[k % len(FLOORS)])
            for learned, reader in readers.items():
                if learned == shown:
                    continue
                out = reader.read(frame)
                tally["reads"] += 1
                if not out.accepted:
                    tally["refused"] += 1
                    continue
                how = out.evidence.get("by") or out.evidence.get("second_corner", {}).get("by", "both")
                tally[f"by {how}"] += 1
                if out.card == card:
                    tally["right"] += 1
                elif {shown, learned} == V_DECKS and out.card is not None and out.card.suit == card.suit \
                        and {int(out.card.rank), int(card.rank)} == {11, 12}:
                    tally["v_swaps"] += 1
                else:
                    tally["wrong"] += 1
                    wrong.append({"shown": shown, "learned": learned, "card": str(card),
                                  "read": out.label, "by": str(how)})
    for w in wrong[:20]:
        print(f"WRONG: {w['shown']} {w['card']} read as {w['read']} with {w['learned']}'s design ({w['by']})")
    print(json.dumps({"bench": "vision_cross", "cards": args.cards, "designs": len(readers),
                      **{k.replace(" ", "_"): v for k, v in sorted(tally.items())},
                      "wrong_examples": wrong[:20], "cpu_s": round(time.process_time() - t0, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
