"""Build the feeder-camera corpus for ``bench/feeder.py`` from a fetched public repository.

The source is the public GitHub repository ``zpigula/pp_2021`` ("Playing Cards
Recognition using Machine Learning", 2021; licence **Apache-2.0**, its
``LICENSE`` at the repository's root), whose card-dealing machine photographs each
card in its feeder. Fetch that repository's snapshot first (the search tool's
``fetch``, into ``/work/.mirror``); nothing is downloaded here.

What it holds (``pytorch/card_detection_data/cards_A/<CARD>/*.jpg``, checked by eye
on contact sheets, docs/vision.md): 821 colour frames of 224×224 px from the feeder's
camera, one real deck (a duplicate-bridge deck with board numbers printed), 10–33
frames a card, named by folder (``10C``, ``QD``, ``AS``), and a ``NONE`` folder of
frames with no card. Each frame shows one corner of the card: its top-left corner
index (rank above suit) and part of its face, the dark feeder on the left and a
metal post on the right.

Five more files lie under ``.ipynb_checkpoints/`` folders there (Jupyter's
checkpoint copies, byte for byte the same as five frames kept: three of ``8D``,
two of ``NONE``); they are left out, so each frame counts once: 816 frames.

The frames are copied as they are (the same bytes: nothing is changed) into one
folder, named ``<CARD>-<original name>.jpg`` (``NONE-<original name>.jpg`` for a
frame with no card): the folder's own name, which :func:`vision.photos.card_of_name`
reads (``10C`` is ♣10). ``SOURCES.md`` beside them names the source, commit,
path, licence and attribution. Ends with one JSON line (the counts).

    .venv/bin/python bench/feeder_fetch.py [GIT_DIR] [--out ~/.cache/boardwright/feeder/pp2021]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = "zpigula/pp_2021"
DEFAULT_GIT_DIR = Path("/work/.mirror/zpigula+pp_2021/repo")
PREFIX = "pytorch/card_detection_data/cards_A/"
DEFAULT_OUT = Path.home() / ".cache/boardwright/feeder/pp2021"


def _git(repo: Path, *args: str, text: bool = True) -> str | bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True,
                          text=text).stdout


def frames_in(files: list[str]) -> list[tuple[str, str]]:
    """(folder, path) of every frame of the corpus, in path order.

    >>> frames_in(["README.md", PREFIX + "QD/b.jpg", PREFIX + "NONE/a.jpg", PREFIX + "QD/x/c.jpg"])
    [('NONE', 'pytorch/card_detection_data/cards_A/NONE/a.jpg'), ('QD', 'pytorch/card_detection_data/cards_A/QD/b.jpg')]
    """
    out = []
    for f in sorted(files):
        if not f.startswith(PREFIX) or not f.lower().endswith(".jpg"):
            continue
        parts = f[len(PREFIX):].split("/")
        if len(parts) == 2:  # not a .ipynb_checkpoints/ copy
            out.append((parts[0], f))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir", type=Path, nargs="?", default=DEFAULT_GIT_DIR,
                    help=f"the fetched snapshot of {REPO} (default {DEFAULT_GIT_DIR})")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the corpus folder (default {DEFAULT_OUT})")
    a = ap.parse_args()
    if not (a.git_dir / "HEAD").exists() and not (a.git_dir / ".git").exists():
        print(f"feeder_fetch: no git snapshot at {a.git_dir}: fetch github:{REPO} first "
              f"(the search tool's fetch puts it under /work/.mirror)", file=sys.stderr)
        return 2
    commit = str(_git(a.git_dir, "rev-parse", "HEAD")).strip()
    frames = frames_in(str(_git(a.git_dir, "ls-tree", "-r", "--name-only", "HEAD")).split("\n"))
    if not frames:
        print(f"feeder_fetch: {a.git_dir} holds no frames under {PREFIX}: is it {REPO}?", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    written: set[Path] = set()
    per: Counter[str] = Counter()
    for folder, f in frames:
        dest = a.out / f"{folder}-{Path(f).name}"
        data = _git(a.git_dir, "show", f"HEAD:{f}", text=False)
        assert isinstance(data, bytes)
        if not dest.exists() or dest.read_bytes() != data:
            dest.write_bytes(data)
        written.add(dest)
        per[folder] += 1
    # A frame an earlier build wrote that this one does not would still be read by the bench.
    stale = [q for q in a.out.glob("*.jpg") if q not in written]
    for q in stale:
        q.unlink()
    cards = {k: v for k, v in per.items() if k != "NONE"}
    (a.out / "SOURCES.md").write_text(
        "# Feeder camera frames (one corner of each card)\n\n"
        f"From the public GitHub repository {REPO} (\"Playing Cards Recognition using Machine "
        f"Learning\", 2021, by zpigula), commit {commit}, path `{PREFIX}<CARD>/*.jpg`.\n\n"
        f"Licence: **Apache License 2.0** (the repository's `LICENSE`). Copyright the author, "
        f"zpigula; used under that licence with attribution.\n\n"
        "Changed: nothing. Each file is copied byte for byte; only its name is changed, to "
        "`<CARD>-<original name>.jpg` (the folder it came from first; `NONE-` for a frame "
        "with no card). Built by boardwright's bench/feeder_fetch.py.\n\n"
        f"{sum(per.values())} frames: {sum(cards.values())} of {len(cards)} cards "
        f"({min(cards.values())}-{max(cards.values())} a card), {per.get('NONE', 0)} with no card. "
        "Left out: the copies under `.ipynb_checkpoints/` folders (Jupyter's, byte for byte the "
        "same as frames kept).\n",
        encoding="utf-8")
    print(json.dumps({"bench": "feeder_fetch", "source": REPO, "commit": commit, "licence": "Apache-2.0",
                      "out": str(a.out), "frames": sum(per.values()), "cards": len(cards),
                      "card_frames": sum(cards.values()), "none_frames": per.get("NONE", 0),
                      "stale_frames_removed": len(stale), "per_card": dict(sorted(per.items()))}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
