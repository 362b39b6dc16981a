"""Frame sources behind one interface: camera, video file, folder, renderer.

Every source is an iterable of ``(name, frame)`` pairs; ``frame`` is a BGR
``uint8`` array, or ``None`` when that frame could not be decoded (the reader
reports it and carries on, so one bad file never ends a run).

:func:`open_source` turns a command-line SOURCE into a source:

- a folder: every image in it, in name order;
- an image file: that one image;
- a video file: each frame, named by its number;
- ``camera:0`` (a device index) or an ``rtsp://`` / ``http://`` URL: a live capture;
- ``synthetic:design=standard,cards=sorted,seed=1,distortions=normal,deck=7``:
  the renderer. ``cards`` is a ``+``-separated list of cards (``SA+TD``),
  ``sorted`` (the 52 in boardwright's order ♣2..♠A), ``bridge`` (♠A..♠2, ♥, ♦, ♣),
  ``check`` (the three check cards of ``vision learn``), ``shuffled``, ``back`` and ``joker``.

An image file is shown as the gate would show its card (:mod:`vision.gate_view`); a
camera is asked for 640×480, and a video's frames of another size are fitted into it.
A folder or image source notes which of its pictures are photographs (``photos``:
every picture not of the gate's 640×480, by name, with its file), so that a reader need
not ask of them what only the gate must (:func:`vision.locate.locate`'s ``photo``), and
can look at a photo's other views (:func:`vision.photos.read_photo`).

>>> frames = list(open_source("synthetic:cards=SA+TD,design=qr,seed=2"))
>>> [name for name, _ in frames]
['0000-SA', '0001-DT']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from dealer.cards import Card
from dealer.errors import BoardwrightError
from vision.gate_view import FRAME_H, FRAME_W, fit_frame, gate_view, is_gate_frame
from vision.render import CONDITIONS, render_card_frame

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm"}
Frame = tuple[str, "np.ndarray | None"]


class SourceError(BoardwrightError):
    """A frame source could not be opened."""


def picture(path: Path, view: Callable[[np.ndarray], np.ndarray] = gate_view) -> np.ndarray | None:
    """An image file as a frame, shown as the gate would show its card
    (:func:`vision.gate_view.gate_view`: a phone's photo of any size, either way up; a
    gate frame whose card is found is left as it is), or by ``view``; ``None`` when it
    cannot be decoded."""
    return _shown(path, view)[0]


def _shown(path: Path, view: Callable[[np.ndarray], np.ndarray] = gate_view) -> tuple[np.ndarray | None, bool]:
    """:func:`picture`, and whether the file is a photograph (not of the gate's 640×480)."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return (None, False) if img is None else (view(img), not is_gate_frame(img))


class FolderSource:
    """Every image in a folder, in name order."""

    def __init__(self, path: str | Path, *, limit: int | None = None) -> None:
        self.path = Path(path)
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if limit is not None:
            self.files = self.files[:limit]
        self.photos: dict[str, Path] = {}  # the pictures read so far that are photographs

    def __iter__(self) -> Iterator[Frame]:
        for p in self.files:
            frame, photo = _shown(p)  # (None if unreadable)
            if photo:
                self.photos[p.name] = p
            yield p.name, frame


class ImageSource:
    """One image file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.photos: dict[str, Path] = {}  # its name and file, once read, if it is a photograph

    def __iter__(self) -> Iterator[Frame]:
        frame, photo = _shown(self.path)
        if photo:
            self.photos[self.path.name] = self.path
        yield self.path.name, frame


class CaptureSource:
    """OpenCV ``VideoCapture``: a camera index, a stream URL or a video file."""

    def __init__(self, target: int | str, *, limit: int | None = None) -> None:
        self.target, self.limit = target, limit

    def __iter__(self) -> Iterator[Frame]:
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            raise SourceError(f"cannot open video source {self.target!r}")
        if isinstance(self.target, int):  # a camera: ask for the gate's frame size
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, FRAME_W)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, FRAME_H)
        try:
            n = 0
            while self.limit is None or n < self.limit:
                ok, frame = cap.read()
                if not ok:
                    break
                # A camera that will not give 640×480, or a video of another size: fitted
                # into the gate's frame (never zoomed: the gate's camera does not move).
                yield f"frame{n:05d}", frame if is_gate_frame(frame) else fit_frame(frame)
                n += 1
        finally:
            cap.release()


class SyntheticSource:
    """Rendered gate frames: a camera that never lies about what it shows."""

    def __init__(self, cards: list[Card | str], *, design: str = "standard", deck_id: int = 0,
                 seed: int = 0, distortions: str = "normal") -> None:
        if distortions not in CONDITIONS:
            raise SourceError(f"unknown distortion set {distortions!r}; "
                              f"one of {', '.join(CONDITIONS)}")
        self.cards, self.design, self.deck_id = cards, design, deck_id
        self.seed, self.distortions = seed, distortions

    def __iter__(self) -> Iterator[Frame]:
        for i, c in enumerate(self.cards):
            render = functools.partial(render_card_frame, design=self.design, deck_id=self.deck_id,
                                       seed=self.seed * 100_003 + i, distortions=self.distortions)
            if c == "back":
                yield f"{i:04d}-back", render(Card(0), face_up=False)
            elif c == "joker":
                yield f"{i:04d}-joker", render(None, joker=True)
            else:
                card = c if isinstance(c, Card) else Card.parse(c)
                yield f"{i:04d}-{card}", render(card)


def _synthetic(spec: str) -> SyntheticSource:
    opts: dict[str, str] = {}
    for part in filter(None, spec.split(",")):
        key, sep, value = part.partition("=")
        if not sep:
            raise SourceError(f"synthetic source option {part!r} needs key=value")
        opts[key.strip()] = value.strip()
    known = {"design", "cards", "seed", "distortions", "deck"}
    if set(opts) - known:
        raise SourceError(f"unknown synthetic option(s) {sorted(set(opts) - known)}; use {sorted(known)}")
    seed, deck = _whole(opts, "seed"), _whole(opts, "deck")
    cards: list[Card | str] = []
    for item in opts.get("cards", "sorted").split("+"):
        if item == "sorted":
            cards += list(Card.all())
        elif item == "bridge":
            from vision.learn import bridge_order

            cards += bridge_order()
        elif item == "check":
            from vision.learn import CHECK_CARDS

            cards += list(CHECK_CARDS)
        elif item == "shuffled":
            cards += [Card(int(i)) for i in np.random.default_rng(seed).permutation(52)]
        elif item in ("back", "joker"):
            cards.append(item)
        else:
            cards.append(Card.parse(item))
    from vision.designs import DESIGNS

    design = opts.get("design", "standard")
    if design not in DESIGNS:
        raise SourceError(f"unknown design {design!r}; one of {', '.join(DESIGNS)}")
    return SyntheticSource(cards, design=design, deck_id=deck, seed=seed,
                           distortions=opts.get("distortions", "normal"))


def _whole(opts: dict[str, str], key: str) -> int:
    """The synthetic option ``key`` as a whole number (0 when absent), or a clear error."""
    try:
        value = int(opts.get(key, "0"))
    except ValueError:
        raise SourceError(f"synthetic option {key}={opts[key]!r} is not a whole number") from None
    if value < 0:
        raise SourceError(f"synthetic option {key}={value} is negative")
    return value


def open_source(spec: str, *, limit: int | None = None) -> FolderSource | ImageSource | CaptureSource | SyntheticSource:
    """The frame source a command-line SOURCE names (see the module docstring)."""
    if spec.startswith("synthetic:") or spec == "synthetic":
        return _synthetic(spec.partition(":")[2])
    if spec.startswith("camera:"):
        try:
            return CaptureSource(int(spec[7:]), limit=limit)
        except ValueError:
            raise SourceError(f"camera index {spec[7:]!r} is not a number") from None
    if "://" in spec:
        return CaptureSource(spec, limit=limit)
    p = Path(spec)
    if p.is_dir():
        return FolderSource(p, limit=limit)
    if not p.exists():
        raise SourceError(f"{spec}: no such file or folder")
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return ImageSource(p)
    return CaptureSource(str(p), limit=limit)
