"""Real photographs of real decks, as a bench condition: learn each deck from 52 of them, read the rest.

A corpus is a folder with one sub-folder per deck::

    PHOTOS/
      my-deck/            # a deck: any name
        AS.jpg            # the card is the first token of the file name:
        AS-2.jpg          #   rank and suit either way round, T or 10 (AS, SA, 10h, hT_3)
        qh_webcam.png
        ...
      another-deck/ ...

Each photo is shown as the gate's camera would show its card
(:func:`gate_view`): a portrait photo turned to landscape, fitted into the
gate's 640×480 frame (scaled down to fit, the rest filled by repeating the
photo's own edge, so the floor model sees the photo's own floor), and, when the
card is found there only too small or too large to read, brought to the gate's
scale from the photo's own pixels. For each deck, the first photo of each of the
52 cards (in name order) that the locator finds as one card is the learning
pass, shown in bridge order; when the learner refuses the pass naming one of
its frames, that card is shown again (its next such photo), as an operator
would, up to ``MAX_RESHOWN`` times (:attr:`DeckResult.reshown` says which and
why). Every other photo is read with the learned design and counted as
accepted right, accepted **wrong**, or rejected (by reason). A deck missing a
card, or whose pass is refused, is reported as not learned, with the reason.
Files whose name does not start with a card are listed as skipped, never
guessed.

>>> card_of_name("10h_webcam-3.jpg"), card_of_name("SA.png"), card_of_name("back.jpg")
(Card('HT'), Card('SA'), None)
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import cv2
import numpy as np

from dealer.cards import Card, CardError
from vision.court_frame import frame_outlines
from vision.decision import Outcome, Reject
from vision.gate_view import gate_view, other_views
from vision.index import (
    RETRIED_IN_PHOTOS,
    IndexReader,
    for_altered_faces,
    for_photo_outlines,
    for_small_photo_cards,
)
from vision.learn import LearnedDesign, LearnError, bridge_order, learn
from vision.locate import MIN_AREA, Located, locate
from vision.photo_cards import evenly_lit, index_column, index_outlines, photo_outlines
from vision.sources import IMAGE_SUFFIXES, picture

MAX_RESHOWN = 20  # cards of the learning pass shown again (the learner named their frame)


def card_of_name(name: str) -> Card | None:
    """The card a photo's file name starts with (``AS``, ``SA``, ``10h``, ``hT``), or ``None``."""
    token = re.split(r"[^0-9A-Za-z♠♥♦♣]", Path(name).stem, maxsplit=1)[0]
    try:
        return Card.parse(token)
    except CardError:
        return None


@dataclass
class DeckResult:
    """One deck's figures: what was read right, wrong, or rejected, and why."""

    name: str
    photos: int = 0
    learned: bool = False
    not_learned: str = ""
    order: str = ""
    right: int = 0
    wrong: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    courts: list[int] = field(default_factory=lambda: [0, 0])  # photos, accepted right
    numbers: list[int] = field(default_factory=lambda: [0, 0])
    skipped: list[str] = field(default_factory=list)
    wrong_examples: list[str] = field(default_factory=list)
    reshown: list[str] = field(default_factory=list)  # cards of the pass shown again, and why
    cpu: list[float] = field(default_factory=list)  # CPU seconds of each read (bench_deck)

    @property
    def tested(self) -> int:
        return self.right + self.wrong + sum(self.rejected.values())

    def count(self, card: Card, out: Outcome, name: str) -> None:
        """Tally the read ``out`` of a picture ``name`` of ``card``."""
        tally = self.courts if 11 <= int(card.rank) <= 13 else self.numbers
        tally[0] += 1
        if isinstance(out, Reject):
            self.rejected[out.reason.value] += 1
        elif out.card == card:
            self.right += 1
            tally[1] += 1
        else:
            self.wrong += 1
            self.wrong_examples.append(f"{name} read as {out.label}")

    def as_dict(self) -> dict[str, object]:
        return {"photos": self.photos, "learned": self.learned, "not_learned": self.not_learned,
                "order": self.order, "tested": self.tested, "accepted_right": self.right,
                "accepted_wrong": self.wrong, "rejected": dict(self.rejected),
                "accepted_pct": round(100 * (self.right + self.wrong) / max(1, self.tested), 2),
                "courts": self.courts, "numbers": self.numbers, "skipped": self.skipped,
                "wrong_examples": self.wrong_examples, "reshown": self.reshown,
                **({"cpu_p50_ms": round(float(np.percentile(self.cpu, 50)) * 1000, 2),
                    "cpu_p99_ms": round(float(np.percentile(self.cpu, 99)) * 1000, 2)} if self.cpu else {})}


def _by_card(folder: Path, res: DeckResult) -> dict[Card, list[Path]]:
    """The deck's photos by the card their name starts with (the others listed as skipped)."""
    by_card: dict[Card, list[Path]] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        card = card_of_name(p.name)
        if card is None:
            res.skipped.append(p.name)
            continue
        by_card.setdefault(card, []).append(p)
        res.photos += 1
    return by_card


def _learning_pass(folder: Path, by_card: dict[Card, list[Path]], res: DeckResult,
                   view: Callable[[np.ndarray], np.ndarray]) -> tuple[LearnedDesign, set[str]] | None:
    """The design learned from one photo of each card, and those photos' names; or ``None``,
    with the reason in ``res.not_learned``."""
    missing = [c for c in bridge_order() if c not in by_card]
    if missing:
        res.not_learned = (f"no photo of {len(missing)} card(s) ({', '.join(str(c) for c in missing[:6])}"
                           f"{'…' if len(missing) > 6 else ''}): a learning pass needs all 52")
        return None
    # As at the gate: a card the camera could not find as one card is shown again, so
    # the pass takes the first photo of each card (in name order) that the locator finds
    # as one card; and when the learner names a frame of the pass it cannot use (its
    # index not split in two, or its suit unlike its run's), that card is shown again:
    # its next such photo. The rest are read.
    tried: dict[Card, int] = {}

    def next_photo(c: Card) -> tuple[Path, np.ndarray] | None:
        while tried.get(c, 0) < len(by_card[c]):
            p = by_card[c][tried.get(c, 0)]
            tried[c] = tried.get(c, 0) + 1
            img = picture(p, view)
            if img is not None and isinstance(locate(img), Located):
                return p, img
        return None

    chosen: dict[Card, tuple[Path, np.ndarray]] = {}
    for c in bridge_order():
        first = next_photo(c)
        if first is None:
            res.not_learned = (f"no photo of {c} shows one card the locator finds "
                               f"({len(by_card[c])} tried)")
            return None
        chosen[c] = first
    for _ in range(MAX_RESHOWN + 1):
        try:
            design = learn(folder.name, [(p.name, img) for p, img in chosen.values()], source=str(folder))
            return design, {p.name for p, _ in chosen.values()}
        except LearnError as e:
            named = re.search(r"frame (\S+\.\w+)", str(e))
            card = next((c for c, (p, _) in chosen.items() if named and p.name == named.group(1)), None)
            again = next_photo(card) if card is not None else None
            if card is None or again is None:
                res.not_learned = str(e)
                return None
            res.reshown.append(f"{card}: {chosen[card][0].name} -> {again[0].name} ({str(e)[:200]})")
            chosen[card] = again
    res.not_learned = f"still refused after {MAX_RESHOWN} cards shown again: {res.reshown[-1]}"
    return None


def read_photo(reader: IndexReader, photo: np.ndarray, shown: np.ndarray | None = None,
               first: Outcome | None = None) -> Outcome:
    """A photograph read as the gate's camera would show its card (:func:`gate_view`, or
    ``shown``, when the caller has that view; ``first``, its read, when the caller has
    read it), and when that view is refused for what a photo's other views may not show
    (the card not found, or its corners not one card's), each of its other views
    (:func:`vision.gate_view.other_views`) until one is read; last, every shape in the
    photo that may be a card at any size or slant, and where two of its indices put one
    (:mod:`vision.photo_cards`), read with :func:`vision.index.for_photo_outlines` (a
    small one with :func:`vision.index.for_small_photo_cards`); and last of all each of
    those again with its paper's light evened out (:func:`vision.photo_cards.evenly_lit`),
    then the views' outlines and those with only each corner's index column left
    (:func:`vision.photo_cards.index_column`), then those evened out and cut to their
    index columns, both; read with :func:`vision.index.for_altered_faces`. ``reader`` reads photographs
    (``IndexReader(..., photo=True)``)."""
    view = gate_view(photo) if shown is None else shown
    out = reader.read(view) if first is None else first
    if isinstance(out, Reject) and out.reason in RETRIED_IN_PHOTOS:
        for other in other_views(photo, view):
            got = reader.read(other)
            if got.accepted:
                return got
        # Last, every shape in the photo that may be a card, small or seen at a slant, and
        # where each two indices that may be one card's put it (vision.photo_cards), read
        # from the photo's own pixels; a card smaller in the photo than the gate's smallest
        # readable one with the thresholds for its soft face; no black suit named by
        # searching both corners (for_photo_outlines).
        small = IndexReader(reader.design, for_small_photo_cards(reader.t), photo=True)
        large = IndexReader(reader.design, for_photo_outlines(reader.t), photo=True)
        grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
        outlines = [*photo_outlines(photo, grey), *index_outlines(photo, reader.design, grey),
                    *frame_outlines(photo, reader.design.picture_frame, grey)]
        for found in outlines:
            got = (small if found.area < MIN_AREA else large).read_located(found)
            if got.accepted:
                return got
        # Each outline again with its paper's light evened out (a shadow's edge across an
        # index); then the views' own outlines and these with only each corner's index
        # column left (a court's faint index beside its picture's strong colours); last,
        # the outlines evened out and cut to their index columns, both (a shadow and a
        # court's picture at one corner). A face altered here is searched only at the
        # first corner's suit minimum.
        small, large = (IndexReader(reader.design, for_altered_faces(r.t), photo=True) for r in (small, large))
        seen = [f for f in (locate(v, photo=True) for v in (view, *other_views(photo, view)))
                if isinstance(f, Located)]
        evened: list[Located] = []  # (each outline evened out once: 2 ms each)

        def evenly_lit_kept() -> Iterator[Located]:
            for f in outlines:
                evened.append(evenly_lit(f))
                yield evened[-1]

        columns = (index_column(f, reader.design) for f in chain(seen, outlines))
        both = (index_column(f, reader.design) for f in evened)  # (read after evenly_lit_kept)
        for face in chain(evenly_lit_kept(), columns, both):
            if face is not None and (got := (small if face.area < MIN_AREA else large).read_located(face)).accepted:
                return got
    return out


def bench_deck(folder: Path, view: Callable[[np.ndarray], np.ndarray] = gate_view) -> DeckResult:
    """Learn one deck from 52 of its photos and read all the others, as photographs
    (:func:`vision.locate.locate`'s ``photo``; the pass is taken as the gate would).

    ``view``: how a photo is shown to the gate (:func:`gate_view`, or :func:`fit_frame`
    to see what that step does).
    """
    res = DeckResult(folder.name)
    by_card = _by_card(folder, res)
    learned = _learning_pass(folder, by_card, res, view)
    if learned is None:
        return res
    design, taught = learned
    res.learned, res.order = True, design.order
    # The pass is learned from photos where the card is found alone, as at the gate; the
    # others are read as the photographs they are (no card can lie under the card).
    reader = IndexReader(design, photo=True)
    for card, paths in by_card.items():
        for p in paths:
            if p.name in taught:
                continue
            photo = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if photo is None:
                res.rejected["unreadable image"] += 1
                continue
            # Its other views too when the gate's is refused (read_photo); with another
            # view (fit_frame: to see what showing it as the gate would does), that alone.
            started = time.process_time()
            out = read_photo(reader, photo) if view is gate_view else reader.read(view(photo))
            res.cpu.append(time.process_time() - started)
            res.count(card, out, p.name)
    return res


def bench_photos(root: str | Path) -> dict[str, DeckResult]:
    """Every deck folder under ``root``, in name order."""
    root = Path(root)
    return {d.name: bench_deck(d) for d in sorted(root.iterdir()) if d.is_dir()}
