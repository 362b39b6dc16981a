"""Real photographs read where a wrong read is likeliest: is any card named wrong?

``vision.photos.read_photo`` tries many outlines and altered faces of a photo
until two corners name one card. Every step it adds is a new chance to name a
card the photo does not show, so two checks are run on each change (issue 15,
tenth pass onward):

- **Other decks' designs.** Every photo of the phone deck (labelled and as
  shot, ``bench/photos_fetch.py`` and ``--raw``) is read with designs learned
  from renders of six other decks (two synthetic, four of Debian's real
  decks). A design that is not the photo's may refuse it or read the card it
  is (the decks share the standard index), never another card.
- **Photos of two or more cards** (as shot, from the corpus's snapshot, any of
  its decks): each read with the phone deck's design must name a card the
  photo shows, or be refused.

Counts are refused, read right (the same card) and **wrong**, per design.

    .venv/bin/python bench/photos_safety.py [--designs standard,classic,...] [--no-multi]

Takes about 45 minutes on one core (each design reads 498 photos, the refused
ones through every step). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # (the project before bench/: bench/vision.py)
sys.path.append(str(Path(__file__).resolve().parent))

import photos_fetch as fetch  # noqa: E402

from vision.decision import Reject  # noqa: E402
from vision.gate_view import gate_view  # noqa: E402
from vision.index import IndexReader  # noqa: E402
from vision.learn import bridge_order, learn  # noqa: E402
from vision.photos import DeckResult, _by_card, _learning_pass, card_of_name, read_photo  # noqa: E402
from vision.render import render_card_frame  # noqa: E402

CACHE = Path.home() / ".cache/boardwright"
DESIGNS = ("standard", "classic", "dondorf", "bonded", "tigullio", "nicu-white")
DECK = "phone-standard"


def cross_deck(designs: list[str]) -> dict[str, dict[str, int]]:
    """Each design (learned from renders) reading every photo of the phone deck."""
    photos = [(card, path) for corpus in ("photos", "photos-raw") for path in sorted((CACHE / corpus / DECK).glob("*.jpg"))
              if (card := card_of_name(path.name)) is not None]
    out: dict[str, dict[str, int]] = {}
    for name in designs:
        design = learn(name, [(str(c), render_card_frame(c, design=name, seed=900_000 + i))
                              for i, c in enumerate(bridge_order())])
        reader = IndexReader(design, photo=True)
        tally: Counter[str] = Counter()
        for card, path in photos:
            if (photo := cv2.imread(str(path), cv2.IMREAD_COLOR)) is None:
                tally["unreadable image"] += 1
                continue
            got = read_photo(reader, photo)
            tally["refused" if isinstance(got, Reject) else "same card" if got.card == card else "wrong"] += 1
            if not isinstance(got, Reject) and got.card != card:
                print(f"WRONG: {name} read {path.parent.parent.name}/{path.name} as {got.card}", file=sys.stderr)
        out[name] = {"photos": len(photos), **tally}
        print(name, dict(tally), file=sys.stderr, flush=True)
    return out


def several_cards(git_dir: Path) -> tuple[dict[str, object], int]:
    """Every photo of the corpus (any of its decks) boxing two or more different cards, read
    with the phone deck's design (learned from its photos as shot, as the bench learns it); and how
    many were read as a card the photo does not show."""
    folder = CACHE / "photos-raw" / DECK
    res = DeckResult(DECK)
    learned = _learning_pass(folder, _by_card(folder, res), res, gate_view)
    if learned is None:
        return {"error": f"not learned: {res.not_learned}"}, 0
    reader = IndexReader(learned[0], photo=True)
    tally: Counter[str] = Counter()
    wrong: list[str] = []
    for base, _, photo, boxes in fetch.corpus_photos(git_dir):
        if boxes is None:
            continue
        shown = {card_of_name(b.name) for b in boxes if b.name not in fetch.NOT_CARDS}
        if len(shown) < 2:
            continue
        got = read_photo(reader, photo)
        if isinstance(got, Reject):
            tally["refused"] += 1
        elif got.card in shown:
            tally["a card it shows"] += 1
        else:
            tally["wrong"] += 1
            wrong.append(f"{base} read as {got.card}; it shows {', '.join(sorted(map(str, shown)))}")
    return {"photos": sum(tally.values()), **tally, "wrong_examples": wrong}, len(wrong)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", default=",".join(DESIGNS), help="the other decks' designs (comma-separated)")
    ap.add_argument("--no-multi", action="store_true", help="skip the photos of two or more cards")
    ap.add_argument("--git-dir", type=Path, default=fetch.DEFAULT_GIT_DIR,
                    help=f"the fetched snapshot of {fetch.REPO}, for the photos of several cards")
    a = ap.parse_args()
    if not (CACHE / "photos" / DECK).is_dir() or not (CACHE / "photos-raw" / DECK).is_dir():
        print(f"photos_safety: no corpus under {CACHE}/photos and photos-raw: run bench/photos_fetch.py "
              "and bench/photos_fetch.py --raw first", file=sys.stderr)
        return 2
    started = time.monotonic()
    cross = cross_deck([d for d in a.designs.split(",") if d])
    multi, multi_wrong = (None, 0) if a.no_multi or not (a.git_dir / "HEAD").exists() else several_cards(a.git_dir)
    wrong = sum(t.get("wrong", 0) for t in cross.values()) + multi_wrong
    print(json.dumps({"bench": "photos_safety", "cross_deck": cross, "several_cards": multi,
                      "accepted_wrong": wrong, "elapsed_s": round(time.monotonic() - started, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
