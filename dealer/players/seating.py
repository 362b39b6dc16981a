"""Which pairs sit where: the pairs a table names, and each pair's key for its names.

A pair's names are kept by its :class:`~dealer.events.model.PairKey`: its
section, its line when both lines are numbered from 1 (a two-winner Mitchell:
``NS``/``EW``), else ``""``, and its number. At a table, the pair in the NS
seats is the sitting's ``ns`` (in an arrow-switch round, the EW-numbered
pair sits there), seats North and South; the other pair East and West.

>>> from dealer.events.movements import howell, mitchell
>>> [(s.line, str(s.key), s.seats) for s in pairs_at(mitchell(3), 2, 1)]
[('NS', 'A2 NS', ('North', 'South')), ('EW', 'A2 EW', ('East', 'West'))]
>>> [str(s.key) for s in pairs_at(howell(4), 1, 1)]
['A8', 'A1']
>>> [str(s.key) for s in pairs_at(mitchell(7, missing=("EW", 7)), 7, 1)]  # a half table
['A7 NS']
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer.events.model import PairKey
from dealer.events.movements import Movement

#: The seats of the pair in each line's seats, player 1 first.
SEATS = {"NS": ("North", "South"), "EW": ("East", "West")}


@dataclass(frozen=True)
class SeatedPair:
    """A pair at a table: the seats it holds (``NS`` or ``EW``), its key and seat names."""

    line: str
    key: PairKey
    seats: tuple[str, str]

    @property
    def field(self) -> str:
        """The form's field prefix for its players (``ns`` or ``ew``: ``ns1``, ``ns2``)."""
        return self.line.lower()


def pair_key(m: Movement, number: int, line: str) -> PairKey:
    """The key of pair ``number`` sitting in ``line``'s seats (``NS``/``EW``)."""
    return PairKey(m.section, line if m.numbering == "by_line" else "", number)


def pairs_at(m: Movement, table: int, round_no: int) -> list[SeatedPair]:
    """The pairs at ``table`` in ``round_no``, NS seats first (none where it is empty)."""
    s = next((s for s in m.sittings if s.table == table and s.round == round_no), None)
    if s is None:
        return []
    return [SeatedPair(line, pair_key(m, num, line), SEATS[line])
            for line, num in (("NS", s.ns), ("EW", s.ew)) if num]


def all_pairs(m: Movement) -> list[PairKey]:
    """Every pair of the section, by number (NS before EW in a two-winner Mitchell)."""
    return [PairKey(m.section, line, num)
            for line, num in sorted(m.pairs(), key=lambda p: (p[1], p[0] == "EW"))]
