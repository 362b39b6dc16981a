"""Build the real-photograph corpus for ``bench/vision.py --photos`` from a public dataset.

The source is the Roboflow dataset "Card Detection" (cadyzedevelopmenthub,
``card-detection-zk7wu`` version 12, **CC BY 4.0**), as exported into the GitHub
repository ``Ammememe/CardCounterML`` (``README.dataset.txt``, ``data.yaml``: 55
classes, each card by rank and suit, BACK and the jokers). Its images are of four
kinds, told apart by their original file names and looked at as contact sheets:

- ``IMG_…``: real phone photographs of real decks on real tables (kept);
- ``WIN_…``: real webcam frames of several cards on a table (kept as photographs,
  but none shows one card alone);
- numbered (``000534301_jpg…``): synthetic composites, cards pasted on textures (left out);
- ``A_1_png…``: crops of a corner index, not a card (left out).

Roboflow exported each training photo three times with mild noise and brightness
changes (``…_jpg.rf.<hash>.jpg``): one version of each photo is kept. A photo is
labelled by its YOLO boxes; a photo whose boxes all name one card shows that card
alone and is written as ``<CARD>-<photo>.jpg`` into a folder per deck, as
``vision/photos.py`` reads it. The phone session ``IMG_20220921_…`` is one deck
(a standard design, every one of the 52 cards); the other photos are of decks
with fewer than 52 cards in the set, so they cannot be learned and are listed only.

    .venv/bin/python bench/photos_prepare.py GIT_DIR [--out ~/.cache/boardwright/photos]

``GIT_DIR`` is a clone (or bare mirror) of the repository. Writes ``SOURCES.md``
beside the decks. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

NAMES = ['10C', '10D', '10H', '10S', '2C', '2D', '2H', '2S', '3C', '3D', '3H', '3S', '4C', '4D',
         '4H', '4S', '5C', '5D', '5H', '5S', '6C', '6D', '6H', '6S', '7C', '7D', '7H', '7S', '8C',
         '8D', '8H', '8S', '9C', '9D', '9H', '9S', 'AC', 'AD', 'AH', 'AS', 'BACK', 'BLACK JOKER',
         'JC', 'JD', 'JH', 'JS', 'KC', 'KD', 'KH', 'KS', 'QC', 'QD', 'QH', 'QS', 'RED JOKER']
REPO = "Ammememe/CardCounterML"
DATASET = ("Roboflow Universe, cadyzedevelopmenthub/card-detection-zk7wu, version 12 "
           "(https://universe.roboflow.com/cadyzedevelopmenthub/card-detection-zk7wu/dataset/12)")


def _git(repo: Path, *args: str, text: bool = True) -> str | bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True,
                          text=text).stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("--out", type=Path, default=Path.home() / ".cache/boardwright/photos")
    a = ap.parse_args()
    commit = str(_git(a.git_dir, "rev-parse", "HEAD")).strip()
    files = str(_git(a.git_dir, "ls-tree", "-r", "--name-only", "HEAD")).split()
    photos: dict[str, str] = {}
    for f in sorted(files):
        m = re.search(r"/images/((IMG|WIN)_[^/]*?)\.rf\.[0-9a-f]+\.jpg$", f)
        if m and m.group(1) not in photos:
            photos[m.group(1)] = f
    kinds: Counter[str] = Counter()
    decks: dict[str, Counter[str]] = {}
    for base, f in photos.items():
        label = f.replace("/images/", "/labels/").rsplit(".", 1)[0] + ".txt"
        try:
            lines = str(_git(a.git_dir, "show", f"HEAD:{label}")).splitlines()
        except subprocess.CalledProcessError:
            kinds["no label"] += 1
            continue
        classes = {NAMES[int(x.split()[0])] for x in lines if x.strip()}
        if len(classes) != 1 or classes & {"BACK", "BLACK JOKER", "RED JOKER"}:
            kinds["several cards, a back or a joker"] += 1
            continue
        card = classes.pop()
        deck = "phone-2022-09-21" if base.startswith("IMG_20220921") else "other-decks"
        folder = a.out / deck
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{card}-{base}.jpg").write_bytes(
            _git(a.git_dir, "show", f"HEAD:{f}", text=False))  # type: ignore[arg-type]
        decks.setdefault(deck, Counter())[card] += 1
        kinds["one card"] += 1
    summary = {deck: {"photos": sum(c.values()), "cards": len(c)} for deck, c in decks.items()}
    (a.out / "SOURCES.md").write_text(
        f"# Real photographs\n\nFrom {DATASET}, licence **CC BY 4.0** (attribution: "
        f"cadyzedevelopmenthub on Roboflow Universe), as exported into the GitHub "
        f"repository {REPO} at commit {commit}.\n\nBuilt by bench/photos_prepare.py: one "
        f"version of each real photograph (IMG_, WIN_), labelled by its boxes.\n\n"
        + "".join(f"- {k}: {v}\n" for k, v in sorted(kinds.items()))
        + "".join(f"- deck {d}: {s['photos']} photos of {s['cards']} cards\n"
                  for d, s in sorted(summary.items())), encoding="utf-8")
    print(json.dumps({"bench": "photos_prepare", "source": REPO, "commit": commit,
                      "licence": "CC BY 4.0", "real_photographs": len(photos),
                      "kinds": dict(kinds), "decks": summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
