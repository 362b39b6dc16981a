"""Learn a deck design from one pass of a sorted deck past the camera.

Feed the 52 cards in index order (♣2 … ♣A, ♦2 … ♦A, ♥2 … ♥A, ♠2 … ♠A),
optionally followed by the jokers. For each frame the card is found, warped
and both corner indices are cut out; a rank template is the mean of the 8
glyphs of that rank, a suit template the mean of its 26. The design also keeps
how big and where the glyphs were, the red/black split of ink colour and how
sharp the learning frames were, so a frame from a deck that was never learned
fails these fit checks instead of matching the nearest template.

>>> from vision.render import render_card_frame
>>> from dealer.cards import Card
>>> frames = [(f"{c}", render_card_frame(c, design="standard", seed=int(c))) for c in Card.all()]
>>> d = learn("standard", frames)
>>> d.rank_templates.shape, d.suit_templates.shape
((13, 768), (4, 1024))
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dealer.cards import Card
from dealer.errors import BoardwrightError
from vision.decision import Reject
from vision.glyphs import Glyphs, corner_glyphs
from vision.locate import locate

FORMAT_VERSION = 1


class LearnError(BoardwrightError):
    """The learning pass could not be used (names the frame and the card)."""


@dataclass
class LearnedDesign:
    """Templates and fit statistics of one deck design."""

    name: str
    rank_templates: np.ndarray  # (13, 32*24), ranks 2..A
    suit_templates: np.ndarray  # (4, 32*32), clubs..spades
    rank_height: np.ndarray  # (13,) mean box height
    rank_aspect: np.ndarray  # (13,) mean box w/h
    suit_height: float
    suit_aspect: np.ndarray  # (4,)
    red_split: float  # redness above this is red ink
    red_gap: float  # distance between the red and black ink means
    sharpness: float  # median sharpness of the learning frames
    joker_template: np.ndarray | None = None
    source: str = ""

    # ----------------------------------------------------------------- storage
    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"format": FORMAT_VERSION, "name": self.name, "source": self.source,
                "suit_height": self.suit_height, "red_split": self.red_split,
                "red_gap": self.red_gap, "sharpness": self.sharpness}
        arrays = {"rank_templates": self.rank_templates, "suit_templates": self.suit_templates,
                  "rank_height": self.rank_height, "rank_aspect": self.rank_aspect,
                  "suit_aspect": self.suit_aspect}
        if self.joker_template is not None:
            arrays["joker_template"] = self.joker_template
        with open(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> LearnedDesign:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                arrays = {k: z[k] for k in z.files if k != "meta"}
        except FileNotFoundError:
            raise LearnError(f"{path}: no learned design there (run 'boardwright vision learn')") from None
        except (OSError, ValueError, KeyError) as exc:
            raise LearnError(f"{path}: not a learned deck design ({exc})") from None
        if meta.get("format") != FORMAT_VERSION:
            raise LearnError(f"{path}: design format {meta.get('format')} is not {FORMAT_VERSION}")
        return cls(name=meta["name"], source=meta.get("source", ""),
                   suit_height=meta["suit_height"], red_split=meta["red_split"],
                   red_gap=meta["red_gap"], sharpness=meta["sharpness"],
                   joker_template=arrays.pop("joker_template", None), **arrays)


def instance_dir() -> Path:
    """The instance folder: ``$BOARDWRIGHT_INSTANCE`` or ``./instance``."""
    return Path(os.environ.get("BOARDWRIGHT_INSTANCE", "instance"))


def design_path(name_or_path: str) -> Path:
    """A design name resolves inside the instance folder; a path is used as it is."""
    p = Path(name_or_path)
    if p.suffix == ".npz" or os.sep in name_or_path:
        return p
    return instance_dir() / "vision" / "designs" / f"{name_or_path}.npz"


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean(axis=-1, keepdims=True)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def learn(name: str, frames: Iterable[tuple[str, np.ndarray]], *, jokers: int = 0,
          source: str = "") -> LearnedDesign:
    """Build a design from 52 sorted frames (then ``jokers`` joker frames)."""
    per_card: list[list[Glyphs]] = []
    joker_glyphs: list[np.ndarray] = []
    want = 52 + jokers
    seen = 0
    for frame_name, frame in frames:
        if seen >= want:
            break
        card = Card(seen) if seen < 52 else None
        label = str(card) if card is not None else "joker"
        found = locate(frame)
        if isinstance(found, Reject):
            raise LearnError(f"frame {frame_name} (expected {label}): {found.reason.value}: "
                             f"{found.detail}")
        both = [corner_glyphs(found.face), corner_glyphs(found.face, turned=True)]
        for corner, g in zip(("top-left", "bottom-right"), both, strict=True):
            if isinstance(g, Reject):
                raise LearnError(f"frame {frame_name} (expected {label}), {corner} index: "
                                 f"{g.detail or g.reason.value}")
            if card is not None and g.single is not None:
                raise LearnError(f"frame {frame_name} (expected {label}), {corner} index: "
                                 "rank and suit could not be told apart")
        if card is None:
            joker_glyphs += [g.single if g.single is not None else g.rank for g in both]
        else:
            per_card.append(both)  # type: ignore[arg-type]
        seen += 1
    if seen < want:
        raise LearnError(f"the learning pass has {seen} frames; a sorted deck needs {want}")
    ranks = [[g for c in range(52) if c % 13 == r for g in per_card[c]] for r in range(13)]
    suits = [[g for c in range(52) if c // 13 == s for g in per_card[c]] for s in range(4)]
    red = [g.redness for c in range(13, 39) for g in per_card[c]]
    black = [g.redness for c in list(range(13)) + list(range(39, 52)) for g in per_card[c]]
    if min(red) <= max(black):
        raise LearnError("red and black ink overlap in the learning pass: check the lighting")
    design = LearnedDesign(
        name=name,
        rank_templates=_unit(np.stack([np.mean([g.rank.ravel() for g in r], 0) for r in ranks])),
        suit_templates=_unit(np.stack([np.mean([g.suit.ravel() for g in s], 0) for s in suits])),
        rank_height=np.array([np.mean([g.rank_box[3] for g in r]) for r in ranks]),
        rank_aspect=np.array([np.mean([g.rank_box[2] / g.rank_box[3] for g in r]) for r in ranks]),
        suit_height=float(np.mean([g.suit_box[3] for s in suits for g in s])),
        suit_aspect=np.array([np.mean([g.suit_box[2] / g.suit_box[3] for g in s]) for s in suits]),
        red_split=float((np.mean(red) + np.mean(black)) / 2),
        red_gap=float(np.mean(red) - np.mean(black)),
        sharpness=float(np.median([g.sharpness for c in per_card for g in c])),
        joker_template=_unit(np.mean([j.ravel() for j in joker_glyphs], 0)) if joker_glyphs else None,
        source=source,
    )
    return design
