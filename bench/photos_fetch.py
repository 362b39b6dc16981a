"""Build the real-photograph corpus for ``bench/vision.py --photos`` from a fetched public dataset.

The source is the Roboflow Universe dataset "Card Detection" (cadyzedevelopmenthub,
``card-detection-zk7wu`` version 12, licence **CC BY 4.0**), as exported into the
public GitHub repository ``Ammememe/CardCounterML`` (its ``README.dataset.txt`` and
``data.yaml`` state the licence). Fetch that repository's snapshot first (the
search tool's ``fetch``, into ``/work/.mirror``); nothing is downloaded here.

What it holds, told apart by the original file names and checked by eye on
contact sheets (docs/vision.md): real photographs of three real decks, and
synthetic images that are left out:

=================  ==========================  =====================================
original name      what                        deck written
=================  ==========================  =====================================
``IMG_20220921_*`` Android phone, portrait     ``phone-standard`` (white faces, a
                   3:4, one card a photo       standard index, pictured courts)
``IMG_77*, 78*``   iPhone, portrait 3:4        ``black-gold`` (black faces, gold and
                                               silver pips and indices)
``WIN_2024*``      Windows webcam, 16:9,       ``webcam-standard`` (white faces,
                   several cards a frame       another standard deck on a light table)
numbered, ``A_1_`` cards pasted on textures;   left out (synthetic; not a card)
                   index crops
=================  ==========================  =====================================

How the photos are turned into gate frames, and why:

- **One version of each photo.** Roboflow exported each photo three times with
  mild noise (``…_jpg.rf.<hash>.jpg``); the first is kept.
- **The export's stretch undone.** Every photo was stretched to 640×640
  ("Resize to 640x640 (Stretch)", ``README.roboflow.txt``), which makes each card
  a third too wide or too tall. Each camera session is given back its own shape
  (3:4 portrait for the two phones, 16:9 for the webcam), checked by eye: cards
  come back to a card's proportions. Nineteen phone photos were shot in landscape
  (``LANDSCAPE``, checked by eye on contact sheets of both shapes): theirs is undone
  as 4:3.
- **Labels from the boxes.** The dataset boxes the two corner indices of each
  card, named by card. A card is used only when both its corner boxes are there;
  the distance between them gives the card's size (the indices sit about 0.72 of
  the card's diagonal apart), and its midpoint the card's centre.
- **Gate scale and lie.** The gate's camera sees a card at a fixed size, long
  side level; these photos are from any distance, at any angle. Each card is
  shown as the gate would: the photo turned and scaled so the card lies level at
  the frame's centre and covers about 95,000 px of a 640×480 frame (the gate's
  cards cover 60,000 to 230,000), its angle and size from its two index boxes.
  Where that frame would reach past the photo, the card is brought closer (up
  to 180,000 px) until it does not; what still reaches past is filled by
  repeating the photo's edge, as ``vision/photos.py`` does. A card that would need more than 2.5× enlarging is
  left out ("too small in the photo").
- **One whole card.** A frame is written only when the card lies inside the
  photo (its corners, from its two indices: these decks have two), and no
  other card's box (another card, a back, a joker) lies inside the frame. What
  is left out is counted by reason in ``SOURCES.md``. The labels never come from
  the recogniser under test.
- **Labels checked.** Two photos' labels name another card than the photo shows
  (a Q♠ labelled Q♥, a J♣ labelled J♠: the suit under each index and in the
  picture). ``photos_relabelled.csv`` names each, and the frame is written as
  the card it shows (thirteenth pass). Only the photos no build read were looked
  at for this: a photo read right was labelled right.
- **Checked by eye.** The corners found from the indices are rough (about 24 px
  off at the gate's scale), so some frames still show a card cut off by the
  frame, or a piece of another card. ``photos_by_eye.csv`` holds two labellers'
  independent calls on every phone-deck frame (is the whole card in view, is it
  alone): two of the project's helper agents, each alone, on contact sheets in
  shuffled order that showed no recogniser's outcome (issue 15, eighth pass). A
  frame both called cut off, or both called not alone, is left out ("cut off, by
  eye", "another card in view, by eye").

Files are ``<CARD>-<photo>.jpg`` in one folder per deck, as ``vision/photos.py``
reads them (a photo with several whole cards alone in their frames gives one file
per card). ``SOURCES.md`` beside the decks names the source, commit, licence and
counts. Ends with one JSON line.

**As shot** (``--raw``, into ``~/.cache/boardwright/photos-raw``): each photo whose
only boxes are one card's two corner indices, that card's corners inside the
photo, kept as the phone took it (the export's stretch undone, nothing else; the
by-eye calls applied as above). A real corpus comes like this, and the bench
must bring each card to the gate's scale itself (``vision.gate_view.gate_view``);
``bench/vision.py`` reads these as ``<deck> as shot``, the deck learned from its
gate frames.

    .venv/bin/python bench/photos_fetch.py [GIT_DIR] [--out ~/.cache/boardwright/photos]
    .venv/bin/python bench/photos_fetch.py --raw
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

NAMES = ['10C', '10D', '10H', '10S', '2C', '2D', '2H', '2S', '3C', '3D', '3H', '3S', '4C', '4D',
         '4H', '4S', '5C', '5D', '5H', '5S', '6C', '6D', '6H', '6S', '7C', '7D', '7H', '7S', '8C',
         '8D', '8H', '8S', '9C', '9D', '9H', '9S', 'AC', 'AD', 'AH', 'AS', 'BACK', 'BLACK JOKER',
         'JC', 'JD', 'JH', 'JS', 'KC', 'KD', 'KH', 'KS', 'QC', 'QD', 'QH', 'QS', 'RED JOKER']
NOT_CARDS = {"BACK", "BLACK JOKER", "RED JOKER"}
REPO = "Ammememe/CardCounterML"
DEFAULT_GIT_DIR = Path("/work/.mirror/Ammememe+CardCounterML/repo")
DATASET = ("Roboflow Universe, cadyzedevelopmenthub/card-detection-zk7wu, version 12 "
           "(https://universe.roboflow.com/cadyzedevelopmenthub/card-detection-zk7wu/dataset/12)")
#: Original-name prefix -> (deck folder, the session's true width:height before the export's stretch).
SESSIONS = {"IMG_20220921": ("phone-standard", 3 / 4), "IMG_77": ("black-gold", 3 / 4),
            "IMG_78": ("black-gold", 3 / 4), "WIN_2024": ("webcam-standard", 16 / 9)}
#: Photos of a session shot the other way round (landscape, 4:3), so their stretch is
#: undone the other way. Checked by eye on contact sheets of every photo of the phone
#: session in both shapes: in these 19 the card's corners are square at 4:3 and the card
#: a parallelogram at 3:4 (a run from 20:05:16 to 20:06:24, and two later ones); in the
#: others the other way round, or the card lies level and only 3:4 keeps it whole.
LANDSCAPE = frozenset({
    "IMG_20220921_200516", "IMG_20220921_200518", "IMG_20220921_200521",
    "IMG_20220921_200523", "IMG_20220921_200526", "IMG_20220921_200529",
    "IMG_20220921_200539", "IMG_20220921_200544", "IMG_20220921_200547",
    "IMG_20220921_200550", "IMG_20220921_200603", "IMG_20220921_200605",
    "IMG_20220921_200608", "IMG_20220921_200611", "IMG_20220921_200614",
    "IMG_20220921_200621", "IMG_20220921_200624", "IMG_20220921_200949",
    "IMG_20220921_201038",
})
FRAME_W, FRAME_H = 640, 480
#: Two labellers' calls on each frame, by eye (see the module's docstring).
BY_EYE = Path(__file__).with_name("photos_by_eye.csv")
#: Photos whose corpus label names another card than the photo shows, checked by eye.
RELABELLED = Path(__file__).with_name("photos_relabelled.csv")
CARD_AREA = 95_000  # px at the gate's scale; the locator takes 60,000-230,000
CARD_RATIO = 88 / 63  # a card's long side over its short side
MAX_CARD = 180_000  # brought closer than CARD_AREA, up to this, rather than fill with edges
MAX_ENLARGE = 2.5
#: Between the two corner indices' centres, in mm of a 63x88 mm card: each index's centre
#: sits about 12 % of the width and 15 % of the height in from its corner. Measured on the
#: phone deck's photos the locator finds: the indices are 0.71-0.73 of the diagonal apart.
INDEX_DX, INDEX_DY = 63 * 0.76, 88 * 0.70
INDEX_SPAN = math.hypot(INDEX_DX, INDEX_DY) / math.hypot(63, 88)  # 0.72


@dataclass
class Box:
    name: str
    cx: float
    cy: float
    w: float
    h: float


def _git(repo: Path, *args: str, text: bool = True) -> str | bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True,
                          text=text).stdout


def session_of(base: str) -> tuple[str, float] | None:
    return next((v for k, v in SESSIONS.items() if base.startswith(k)), None)


def unstretch(img: np.ndarray, aspect: float) -> tuple[np.ndarray, float, float]:
    """The photo at its session's own shape (its long side kept), and the x and y scales applied."""
    h, w = img.shape[:2]
    if aspect < 1:
        nw, nh = round(h * aspect), h
    else:
        nw, nh = w, round(w / aspect)
    return cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA), nw / w, nh / h


def boxes_of(label_text: str, sx: float, sy: float, w: int, h: int) -> list[Box]:
    out = []
    for line in label_text.splitlines():
        p = line.split()
        if len(p) != 5:  # only boxes (class cx cy w h); this export has no polygons
            continue
        c, cx, cy, bw, bh = int(p[0]), *map(float, p[1:])
        out.append(Box(NAMES[c], cx * w * sx, cy * h * sy, bw * w * sx, bh * h * sy))
    return out


def gate_frame(photo: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The 640x480 frame the affine map ``m`` (photo -> frame) gives; past the photo, its edge repeated."""
    return cv2.warpAffine(photo, m, (FRAME_W, FRAME_H), flags=cv2.INTER_AREA if abs(np.linalg.det(m[:, :2])) < 1
                          else cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)


def to_gate(cx: float, cy: float, long_axis: float, scale: float) -> np.ndarray:
    """The affine map that puts a card centred at (cx, cy), its long side at ``long_axis``
    radians, at the frame's centre with its long side level, scaled by ``scale``: the
    way the gate's camera sees every card (vision/render.py lays cards the same way)."""
    c, s = math.cos(-long_axis) * scale, math.sin(-long_axis) * scale
    return np.array([[c, -s, FRAME_W / 2 - c * cx + s * cy],
                     [s, c, FRAME_H / 2 - s * cx - c * cy]])


def _corners_outside(m: np.ndarray, w: int, h: int) -> int:
    """How many of the frame's corners fall outside the photo (``m``: photo -> frame)."""
    pts = np.array([[0, 0, 1], [FRAME_W, 0, 1], [FRAME_W, FRAME_H, 1], [0, FRAME_H, 1]],
                   float) @ cv2.invertAffineTransform(m).T
    return int(np.sum((pts[:, 0] < 0) | (pts[:, 0] > w) | (pts[:, 1] < 0) | (pts[:, 1] > h)))


def card_corners(a: Box, b: Box, diag: float) -> np.ndarray:
    """The card's four corners, from its two corner-index boxes.

    These decks print their index at the top left and the bottom right only,
    so the line between the two indices runs along the card's diagonal, and
    the other diagonal crosses it at the angle a card's proportions give,
    turned clockwise on the picture (either box may be the top-left one: the
    card is the same).
    """
    ux, uy = (b.cx - a.cx), (b.cy - a.cy)
    n = math.hypot(ux, uy)
    ux, uy = ux / n, uy / n
    cross = 2 * math.atan(1 / CARD_RATIO)  # the angle between a card's diagonals
    c, s = math.cos(cross), math.sin(cross)
    vx, vy = ux * c - uy * s, ux * s + uy * c
    cx, cy, r = (a.cx + b.cx) / 2, (a.cy + b.cy) / 2, diag / 2
    return np.array([(cx + r * ux, cy + r * uy), (cx + r * vx, cy + r * vy),
                     (cx - r * ux, cy - r * uy), (cx - r * vx, cy - r * vy)])


def _inside(corners: np.ndarray, w: int, h: int) -> bool:
    """Do a card's four corners (photo pixels) all lie inside a ``w`` × ``h`` photo?"""
    return bool(corners.min() >= 0 and corners[:, 0].max() <= w and corners[:, 1].max() <= h)


def cards_in(photo: np.ndarray, boxes: list[Box]) -> tuple[list[tuple[str, np.ndarray]], Counter[str]]:
    """Every card shown whole and alone at gate scale, and why the others were left out."""
    why: Counter[str] = Counter()
    out = []
    h, w = photo.shape[:2]
    by_name: dict[str, list[Box]] = {}
    for b in boxes:
        by_name.setdefault(b.name, []).append(b)
    for name, bs in sorted(by_name.items()):
        if name in NOT_CARDS:
            continue
        if len(bs) != 2:
            why["one corner index only" if len(bs) == 1 else "card boxed more than twice"] += 1
            continue
        a, b = bs
        span = math.hypot(a.cx - b.cx, a.cy - b.cy)
        diag = span / INDEX_SPAN
        short = diag / math.hypot(1, CARD_RATIO)
        area = short * short * CARD_RATIO
        if area < 1:
            why["indices on top of each other"] += 1
            continue
        scale = math.sqrt(CARD_AREA / area)
        cx, cy = (a.cx + b.cx) / 2, (a.cy + b.cy) / 2
        corners = card_corners(a, b, diag)
        if not _inside(corners, w, h):
            why["card not whole in the photo"] += 1
            continue
        if scale > MAX_ENLARGE:
            why["too small in the photo"] += 1
            continue
        # The card's long side: the line between its indices turned by the angle
        # between a card's diagonal and its long side, measured between its indices.
        turn = math.atan2(INDEX_DX, INDEX_DY)
        ux, uy = (b.cx - a.cx) / span, (b.cy - a.cy) / span
        long_axis = math.atan2(ux * math.sin(turn) + uy * math.cos(turn),
                               ux * math.cos(turn) - uy * math.sin(turn))
        m = to_gate(cx, cy, long_axis, scale)
        # Closer, up to a card of MAX_CARD px, while the frame reaches past the photo:
        # the photo's own floor is better than its edge repeated.
        while scale * 1.05 <= math.sqrt(MAX_CARD / area) and _corners_outside(m, w, h):
            scale *= 1.05
            m = to_gate(cx, cy, long_axis, scale)
        others = []
        for o in boxes:
            if o.name == name:
                continue
            ox, oy = m @ (o.cx, o.cy, 1.0)
            reach = scale * max(o.w, o.h) / 2
            if -reach < ox < FRAME_W + reach and -reach < oy < FRAME_H + reach:
                others.append(o)
        if others:
            why["another card in the frame"] += 1
            continue
        out.append((name, gate_frame(photo, m)))
    return out, why


def one_card_photo(photo: np.ndarray, boxes: list[Box]) -> str | None:
    """The card a photo shows whole and alone, as shot (for ``--raw``), or ``None``: its two
    corner-index boxes are the photo's only boxes, and its corners lie inside the photo."""
    names = {b.name for b in boxes}
    if len(boxes) != 2 or len(names) != 1 or names & NOT_CARDS:
        return None
    a, b = boxes
    span = math.hypot(a.cx - b.cx, a.cy - b.cy)
    if span < 1:
        return None
    corners = card_corners(a, b, span / INDEX_SPAN)
    h, w = photo.shape[:2]
    if not _inside(corners, w, h):
        return None
    return a.name


def left_out_by_eye(path: Path = BY_EYE) -> dict[str, str]:
    """``<CARD>-<photo>`` -> why it is left out: the frames both labellers called cut off,
    or both called not alone.

    >>> left_out_by_eye()["4H-IMG_20220921_193925_jpg"]
    'cut off, by eye'
    """
    out: dict[str, str] = {}
    if not path.exists():
        return out
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            key = f"{row['card']}-{row['photo']}"
            if row["whole_a"] == row["whole_b"] == "no":
                out[key] = "cut off, by eye"
            elif row["alone_a"] == row["alone_b"] == "no":
                out[key] = "another card in view, by eye"
    return out


def relabelled(path: Path = RELABELLED) -> dict[str, str]:
    """``<CORPUS LABEL>-<photo>`` -> the card the photo shows, where the corpus's label is
    wrong (looked at: the suit under each index and in the picture; thirteenth pass).

    >>> relabelled()["QH-IMG_20220921_201241_jpg"]
    'QS'
    """
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as fh:
        return {f"{row['corpus_label']}-{row['photo']}": row["card"] for row in csv.DictReader(fh)}


def corpus_photos(git_dir: Path) -> Iterator[tuple[str, str, np.ndarray, list[Box] | None]]:
    """Each real photograph of the snapshot (IMG_, WIN_; one version of each, of a known
    session): its name, its deck, the photo with its export's stretch undone, and its
    boxes in the photo's pixels (``None``: the export has no labels for it)."""
    files = str(_git(git_dir, "ls-tree", "-r", "--name-only", "HEAD")).split()
    photos: dict[str, str] = {}
    for f in sorted(files):
        m = re.search(r"/images/((IMG|WIN)_[^/]*?)\.rf\.[0-9a-f]+\.jpg$", f)
        if m and m.group(1) not in photos:
            photos[m.group(1)] = f
    for base, f in photos.items():
        sess = session_of(base)
        if sess is None:
            continue
        deck, aspect = sess
        if base.removesuffix("_jpg") in LANDSCAPE:
            aspect = 1 / aspect
        raw = cv2.imdecode(np.frombuffer(_git(git_dir, "show", f"HEAD:{f}", text=False),  # type: ignore[arg-type]
                                         np.uint8), cv2.IMREAD_COLOR)
        photo, sx, sy = unstretch(raw, aspect)
        label = f.replace("/images/", "/labels/").rsplit(".", 1)[0] + ".txt"
        try:
            text = str(_git(git_dir, "show", f"HEAD:{label}"))
        except subprocess.CalledProcessError:
            yield base, deck, photo, None
            continue
        yield base, deck, photo, boxes_of(text, sx, sy, raw.shape[1], raw.shape[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dir", type=Path, nargs="?", default=DEFAULT_GIT_DIR,
                    help=f"the fetched snapshot of {REPO} (default {DEFAULT_GIT_DIR})")
    ap.add_argument("--out", type=Path, default=None,
                    help="the corpus folder (default ~/.cache/boardwright/photos, or photos-raw with --raw)")
    ap.add_argument("--raw", action="store_true",
                    help="write each photo of one whole card as shot (its export's stretch undone, "
                         "nothing else), for the bench to bring to the gate's scale itself")
    a = ap.parse_args()
    if a.out is None:
        a.out = Path.home() / ".cache/boardwright" / ("photos-raw" if a.raw else "photos")
    if not (a.git_dir / "HEAD").exists() and not (a.git_dir / ".git").exists():
        print(f"photos_fetch: no git snapshot at {a.git_dir}: fetch github:{REPO} first "
              f"(the search tool's fetch puts it under /work/.mirror)", file=sys.stderr)
        return 2
    commit = str(_git(a.git_dir, "rev-parse", "HEAD")).strip()
    why: dict[str, Counter[str]] = {}
    by_eye = left_out_by_eye()
    shows = relabelled()
    fixed: dict[str, list[str]] = {}
    decks: dict[str, Counter[str]] = {}
    used_photos: dict[str, int] = Counter()
    written: set[Path] = set()
    photos = 0
    for base, deck, photo, boxes in corpus_photos(a.git_dir):
        photos += 1
        if boxes is None:
            why.setdefault(deck, Counter())["photo without labels"] += 1
            continue
        if a.raw:
            alone = one_card_photo(photo, boxes)
            found, reasons = ([(alone, photo)], Counter()) if alone else ([], Counter(["not one whole card alone"]))
        else:
            found, reasons = cards_in(photo, boxes)
        why.setdefault(deck, Counter()).update(reasons)
        folder = a.out / deck
        for name, frame in found:
            if (seen := by_eye.get(f"{name}-{base}")) is not None:
                why[deck][seen] += 1
                continue
            if (card := shows.get(f"{name}-{base}")) is not None:
                fixed.setdefault(deck, []).append(f"{name}-{base} shows {card}")
                name = card
            folder.mkdir(parents=True, exist_ok=True)  # (a deck with no frame has no folder)
            cv2.imwrite(str(folder / f"{name}-{base}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
            written.add(folder / f"{name}-{base}.jpg")
            decks.setdefault(deck, Counter())[name] += 1
        used_photos[deck] += any(f"{name}-{base}" not in by_eye for name, _ in found)
    # A frame an earlier build wrote that this one leaves out (checked by eye since) would
    # still be read by the bench: the deck folders hold this build's frames only.
    stale = [q for d in decks for q in (a.out / d).glob("*.jpg") if q not in written]
    for q in stale:
        q.unlink()
    summary = {d: {"frames": sum(c.values()), "cards": len(c), "photos": used_photos[d],
                   "left_out": dict(why.get(d, {})), "relabelled": fixed.get(d, [])}
               for d, c in sorted(decks.items())}
    kept = ("each photo of one whole card alone kept as shot (`--raw`: the bench brings the card "
            "to the gate's scale itself)" if a.raw else "each card whole and alone shown at the gate's scale")
    lines = [f"# Real photographs\n\nFrom {DATASET}, licence **CC BY 4.0** (attribution: "
             f"cadyzedevelopmenthub on Roboflow Universe), as exported into the GitHub "
             f"repository {REPO} at commit {commit}.\n\nBuilt by bench/photos_fetch.py: one "
             f"version of each real photograph (IMG_, WIN_), its export's stretch undone, {kept}, "
             "labelled by its two corner-index boxes, and checked by eye (frames two labellers both "
             "saw cut off or not alone left out: bench/photos_by_eye.csv; a photo whose label names "
             "another card than it shows named by the card it shows: bench/photos_relabelled.csv).\n\n"
             "| deck | frames | cards | photos used | left out | relabelled |\n|---|---|---|---|---|---|\n"]
    for d, s in summary.items():
        lo = ", ".join(f"{k} {v}" for k, v in sorted(s["left_out"].items()))
        lines.append(f"| {d} | {s['frames']} | {s['cards']} | {s['photos']} | {lo} | {'; '.join(s['relabelled'])} |\n")
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "SOURCES.md").write_text("".join(lines), encoding="utf-8")
    print(json.dumps({"bench": "photos_fetch", "raw": a.raw, "source": REPO, "commit": commit,
                      "licence": "CC BY 4.0", "real_photographs": photos, "stale_frames_removed": len(stale),
                      "decks": summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
