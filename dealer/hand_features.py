"""Hand features of whole batches of deals, as NumPy vectors (the teaching sets' engine).

A :class:`Batch` wraps the owners array of :func:`dealer.generate.owners_batch`
(shape ``(52, n)``) and computes features lazily over the ``n`` deals: HCP, suit
lengths, controls, losers, shape. Both the constraint language
(:mod:`dealer.constraint_lang`) and :mod:`dealer.constraints` build on it; it
lives apart from both so that neither imports the other in a circle.

>>> import numpy as np
>>> owners = np.array([[i % 4] for i in range(52)], dtype=np.int8)  # card i to seat i % 4
>>> b = Batch(owners)
>>> [int(b.length(0, suit)[0]) for suit in range(4)], sum(int(b.hcp(s)[0]) for s in range(4))
([4, 3, 3, 3], 40)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from dealer.errors import BoardwrightError


class ConstraintError(BoardwrightError):
    """A constraint is malformed, impossible, or too rare to satisfy in time."""


# --------------------------------------------------------------------------- lookup tables
def _suit_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per 13-bit suit holding: length, losers (LTC) and controls (A=2, K=1)."""
    masks = np.arange(1 << 13)
    length = np.zeros(1 << 13, dtype=np.uint8)
    for bit in range(13):
        length += (masks >> bit & 1).astype(np.uint8)
    ace, king, queen = masks >> 12 & 1, masks >> 11 & 1, masks >> 10 & 1
    # Losing-trick count: at most 3 per suit, one for each of A, K, Q missing
    # among the top min(length, 3) positions (void 0; singleton A = 0; Kx = 1).
    losers = np.where(length == 0, 0,
             np.where(length == 1, 1 - ace,
             np.where(length == 2, 2 - ace - king, 3 - ace - king - queen)))
    controls = 2 * ace + king
    return length, losers.astype(np.uint8), controls.astype(np.uint8)


_LEN, _LOSERS, _CONTROLS = _suit_tables()
_WEIGHTS13 = (1 << np.arange(13)).astype(np.uint16)


def shape_table(pattern: str) -> np.ndarray:
    """A boolean table over ``(spades, hearts, diamonds, clubs)`` lengths for a pattern.

    Patterns follow ``dealer``: ``4333`` is spades-hearts-diamonds-clubs in that
    order, ``x`` is any length, ``any`` allows every order, ``+`` adds and ``-``
    removes. ``balanced`` means ``any 4333 + any 4432 + any 5332``.

    >>> t = shape_table("any 4333 + 5xxx - 5431")
    >>> bool(t[3, 3, 4, 3]), bool(t[5, 2, 3, 3]), bool(t[5, 4, 3, 1])
    (True, True, False)
    """
    table = np.zeros((14, 14, 14, 14), dtype=bool)
    text = pattern.replace("+", " + ").replace("-", " - ").split()
    sign, any_order, expect = "+", False, True
    for tok in text:
        low = tok.lower()
        if low in ("+", "-"):
            sign, expect = low, True
            continue
        if low == "any":
            any_order = True
            continue
        if low == "balanced":
            bal = shape_table("any 4333 + any 4432 + any 5332")
            table = table | bal if sign == "+" else table & ~bal
            any_order, expect = False, False
            continue
        if len(low) != 4 or any(ch not in "0123456789x" for ch in low):
            raise ConstraintError(
                f"shape pattern {tok!r} must be four characters of digits or x, like 4333 or 5xxx")
        fixed = [None if ch == "x" else int(ch) for ch in low]
        known = sum(v for v in fixed if v is not None)
        if known > 13 or (None not in fixed and known != 13):
            raise ConstraintError(f"shape pattern {tok!r} does not add up to 13 cards")
        orders = set(itertools.permutations(fixed)) if any_order else {tuple(fixed)}
        part = np.zeros_like(table)
        for order in orders:
            idx = tuple(slice(None) if v is None else v for v in order)
            part[idx] = True
        # only real hands: lengths summing to 13
        if sign == "+":
            table |= part
        else:
            table &= ~part
        any_order, expect = False, False
    if expect and text:
        raise ConstraintError(f"shape pattern {pattern!r} ends with an operator")
    s, h, d, c = np.indices(table.shape)
    return table & (s + h + d + c == 13)


BALANCED = shape_table("balanced")


# --------------------------------------------------------------------------- batch features
class Batch:
    """Lazy, cached hand features of a batch of deals (vectors of length ``n``)."""

    def __init__(self, owners: np.ndarray) -> None:
        self.owners = owners
        self.n = owners.shape[1]
        self._cache: dict[tuple, np.ndarray] = {}

    def _memo(self, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = make()
        return got

    def suit_mask(self, seat: int, suit: int) -> np.ndarray:
        """The 13-bit holding of ``seat`` in ``suit`` (bit r = rank r+2)."""
        def make() -> np.ndarray:
            block = self.owners[suit * 13:(suit + 1) * 13] == seat
            return _WEIGHTS13 @ block.astype(np.uint16)
        return self._memo(("mask", seat, suit), make)

    def length(self, seat: int, suit: int) -> np.ndarray:
        def make() -> np.ndarray:
            block = self.owners[suit * 13:(suit + 1) * 13]
            return np.count_nonzero(block == seat, axis=0).astype(np.int16)
        return self._memo(("len", seat, suit), make)

    def hcp(self, seat: int, suit: int | None = None) -> np.ndarray:
        def make() -> np.ndarray:
            suits = range(4) if suit is None else (suit,)
            total = np.zeros(self.n, dtype=np.int16)
            for s in suits:
                for rank_off, pts in ((12, 4), (11, 3), (10, 2), (9, 1)):
                    total += (self.owners[s * 13 + rank_off] == seat) * np.int16(pts)
            return total
        return self._memo(("hcp", seat, suit), make)

    def controls(self, seat: int) -> np.ndarray:
        def make() -> np.ndarray:
            total = np.zeros(self.n, dtype=np.int16)
            for s in range(4):
                total += (self.owners[s * 13 + 12] == seat) * np.int16(2)
                total += self.owners[s * 13 + 11] == seat
            return total
        return self._memo(("controls", seat), make)

    def losers(self, seat: int) -> np.ndarray:
        def make() -> np.ndarray:
            total = np.zeros(self.n, dtype=np.int16)
            for s in range(4):
                total += _LOSERS[self.suit_mask(seat, s)]
            return total
        return self._memo(("losers", seat), make)

    def shape_in(self, seat: int, table: np.ndarray) -> np.ndarray:
        return table[self.length(seat, 3), self.length(seat, 2),
                     self.length(seat, 1), self.length(seat, 0)]

    def holds(self, seat: int, card: int) -> np.ndarray:
        return self.owners[card] == seat
