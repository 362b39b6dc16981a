"""What a recogniser decides about one frame: a card with evidence, or a reject.

A recogniser never guesses. It returns a :class:`Read` only when every check
agreed, and otherwise a :class:`Reject` that names the reason, so the dealing
machine can re-feed the card or stop for a human.

>>> from dealer.cards import Card
>>> r = Read(Card.parse("SA"), "index", {"corners": 2})
>>> r.accepted, r.label
(True, 'SA')
>>> j = Reject(Reason.BLURRED, "index sharpness 3.1 < 12")
>>> j.accepted, j.label
(False, 'blurred')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dealer.cards import Card


class Reason(StrEnum):
    """Why a frame was rejected. The value is what the CLI and JSON show."""

    NO_CARD = "no card found"
    BLURRED = "blurred"
    AMBIGUOUS = "ambiguous"
    TWO_PAYLOADS = "two payloads"
    TWO_CARDS = "two cards"
    NOT_THIS_DECK = "not a card of this deck"
    UPSIDE_DOWN = "upside down"
    FACE_DOWN = "face down"
    JOKER = "joker"
    DISAGREE = "reads disagree"
    UNREADABLE = "no readable barcode"
    BACKGROUND_LIGHT = "background too light"
    TOO_SMALL = "card too small"
    CUT_OFF = "index cut off"  # a corner-view camera: the index runs past the frame's edge

    @property
    def label(self) -> str:
        return self.value


@dataclass(frozen=True)
class Read:
    """An accepted card (or board sticker), with the evidence that made it safe."""

    card: Card | None
    method: str
    evidence: dict[str, Any] = field(default_factory=dict)
    board: int | None = None  # set instead of ``card`` for a board-number sticker
    accepted: bool = True

    @property
    def label(self) -> str:
        return str(self.card) if self.card is not None else f"board {self.board}"

    def to_json(self) -> dict[str, Any]:
        key: dict[str, Any] = {"card": str(self.card)} if self.card is not None else {"board": self.board}
        return {**key, "method": self.method, "evidence": self.evidence}


@dataclass(frozen=True)
class Reject:
    """A refusal to name a card, with the reason and a human-readable detail."""

    reason: Reason
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    accepted: bool = False

    @property
    def label(self) -> str:
        return self.reason.value

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reject": self.reason.value}
        if self.detail:
            out["detail"] = self.detail
        return out


Outcome = Read | Reject
