"""Which boards a dealing job fills, and in what order.

Dupsoft's options (research note, "Duplimate control software"): a board
range, copies of each board, descending order, and automatic board numbers
read from the board's sticker. A :class:`Plan` turns a deal set and those
options into an ordered list of :class:`Slot` s, one per physical board to
fill. With ``auto_number`` the order is only a default: the sticker of the
board the operator inserts picks the slot.

>>> from dealer.generate import random_dealset
>>> ds = random_dealset(range(1, 5))
>>> plan = Plan.build(ds, copies=2, descending=True, first=2, last=3)
>>> [(s.number, s.copy) for s in plan.slots]
[(3, 1), (3, 2), (2, 1), (2, 2)]
>>> plan.describe()
'boards 3-2 (descending), 2 copies each: 4 boards to fill'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer.board import DealSet
from dealer.deal import Deal
from dealer.errors import BoardwrightError


class PlanError(BoardwrightError):
    """The dealing options do not fit the deal set (names the board or option)."""


@dataclass(frozen=True)
class Slot:
    """One physical board to fill: board ``number``, the ``copy``-th of its copies."""

    index: int  # position in the plan, 0-based; the journal refers to slots by it
    number: int
    copy: int
    deal: Deal

    @property
    def label(self) -> str:
        return f"board {self.number}" if self.copy == 1 else f"board {self.number} (copy {self.copy})"


@dataclass(frozen=True)
class Plan:
    """The ordered slots of a dealing job and the options that made them."""

    slots: tuple[Slot, ...]
    copies: int = 1
    descending: bool = False
    auto_number: bool = False
    options: dict[str, object] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, dealset: DealSet, *, copies: int = 1, first: int | None = None,
              last: int | None = None, descending: bool = False,
              auto_number: bool = False) -> Plan:
        """Slots for boards ``first``..``last`` of ``dealset``, ``copies`` of each.

        Copies of one board are dealt one after another (Dupsoft's "several
        boards of the same number before moving to the next deal"), so the
        same deck order problems stay on one board.
        """
        if copies < 1:
            raise PlanError(f"copies must be 1 or more, not {copies}")
        numbers = sorted(b.number for b in dealset if b.deal is not None)
        if not numbers:
            raise PlanError("the deal set has no boards with a full deal to put in a board")
        lo = numbers[0] if first is None else first
        hi = numbers[-1] if last is None else last
        if lo > hi:
            raise PlanError(f"board range {lo}-{hi} is empty (first is after last)")
        chosen = [n for n in numbers if lo <= n <= hi]
        if not chosen:
            raise PlanError(f"no board of the set is in the range {lo}-{hi} "
                            f"(the set has {dealset.describe_range()})")
        for n in chosen:
            deal = dealset.board(n).deal
            if deal is None or not deal.is_complete:
                raise PlanError(f"board {n}: the deal is not complete, so it cannot be dealt")
        if descending:
            chosen.reverse()
        slots: list[Slot] = []
        for n in chosen:
            deal = dealset.board(n).deal
            assert deal is not None
            for c in range(1, copies + 1):
                slots.append(Slot(len(slots), n, c, deal))
        opts: dict[str, object] = {"copies": copies, "first": lo, "last": hi, "descending": descending,
                "auto_number": auto_number}
        return cls(tuple(slots), copies, descending, auto_number, opts)

    def __len__(self) -> int:
        return len(self.slots)

    @property
    def numbers(self) -> list[int]:
        """Board numbers in plan order, each once."""
        out: list[int] = []
        for s in self.slots:
            if not out or out[-1] != s.number:
                out.append(s.number)
        return out

    def describe(self) -> str:
        nums = self.numbers
        rng = f"boards {nums[0]}-{nums[-1]}" if len(nums) > 1 else f"board {nums[0]}"
        bits = [rng + (" (descending)" if self.descending else "")]
        if self.copies > 1:
            bits.append(f"{self.copies} copies each")
        if self.auto_number:
            bits.append("board numbers from the sticker")
        return ", ".join(bits) + f": {len(self.slots)} boards to fill"

    def next_for(self, number: int, done: set[int]) -> Slot | None:
        """The first unfilled slot of board ``number`` (automatic board numbers)."""
        for s in self.slots:
            if s.number == number and s.index not in done:
                return s
        return None

    def has_board(self, number: int) -> bool:
        return any(s.number == number for s in self.slots)
