"""Minibridge, as seed 002 ("Minibridge") describes it.

Each player in turn from the dealer announces their high card points
(A=4 K=3 Q=2 J=1). The side with more points plays; its member with more
points declares; if partners tie, the one who spoke first declares. At 20-20
the same dealer redeals. Declarer then names "part score" or "game" and a
trump suit or no trumps. Trick score: 20 (clubs, diamonds), 30 (hearts,
spades), 40 for the first and 30 for each later trick at no trumps, for every
trick over six. A part score needs 7 tricks and adds 50; a game needs 100
trick points (11 tricks in a minor, 10 in a major, 9 at no trumps) and adds
300. A failed contract gives the defenders 50 per trick short. There is no
vulnerability.

>>> minibridge_declarer("N", [13, 8, 11, 8])       # N 13 + S 11 = 24
<Seat.NORTH: 0>
>>> minibridge_score("part", "NT", 7), minibridge_score("part", "NT", 10), minibridge_score("part", "NT", 5)
(90, 180, -100)
>>> minibridge_score("game", "H", 10), minibridge_score("game", "H", 11), minibridge_score("game", "H", 7)
(420, 450, -150)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dealer.cards import Strain
from dealer.errors import BoardwrightError
from dealer.seats import Seat


class MinibridgeError(BoardwrightError, ValueError):
    """Announced points or a contract that Minibridge does not allow."""


KINDS = ("part", "game")


def minibridge_declarer(dealer: Seat | str, points: Sequence[int] | Mapping[Seat, int]
                        ) -> Seat | None:
    """The declarer from the announced points, or ``None`` for a redeal (20-20).

    ``points`` is either four numbers in speaking order (dealer first) or a
    mapping from seat to points. They must add up to 40.
    """
    first = Seat.parse(dealer) if isinstance(dealer, str) else Seat(dealer)
    if isinstance(points, Mapping):
        by_seat = {Seat(s): int(p) for s, p in points.items()}
    else:
        if len(points) != 4:
            raise MinibridgeError(f"four players announce points, not {len(points)}")
        by_seat = {first.rotate(i): int(p) for i, p in enumerate(points)}
    if set(by_seat) != set(Seat):
        raise MinibridgeError("every seat must announce its points")
    for seat, p in by_seat.items():
        if not 0 <= p <= 37:
            raise MinibridgeError(f"{seat.title} announced {p} points; a hand holds 0 to 37")
    total = sum(by_seat.values())
    if total != 40:
        raise MinibridgeError(f"the announced points add up to {total}, not 40: recount")
    ns = by_seat[Seat.NORTH] + by_seat[Seat.SOUTH]
    if ns == 20:
        return None
    side = (Seat.NORTH, Seat.SOUTH) if ns > 20 else (Seat.EAST, Seat.WEST)
    a, b = side
    if by_seat[a] != by_seat[b]:
        return a if by_seat[a] > by_seat[b] else b
    # Tie between partners: whoever spoke first, i.e. is fewer seats after the dealer.
    return min(side, key=lambda s: (s - first) % 4)


def _trick_score(strain: Strain, odd_tricks: int) -> int:
    if odd_tricks <= 0:
        return 0
    if strain is Strain.NOTRUMP:
        return 40 + 30 * (odd_tricks - 1)
    return odd_tricks * (30 if strain in (Strain.HEARTS, Strain.SPADES) else 20)


def tricks_needed(kind: str, strain: Strain | str) -> int:
    """7 for a part score; for a game the fewest tricks worth 100 trick points."""
    s = Strain.parse(strain) if isinstance(strain, str) else Strain(strain)
    if kind not in KINDS:
        raise MinibridgeError(f"a Minibridge contract is 'part' or 'game', not {kind!r}")
    if kind == "part":
        return 7
    return next(t for t in range(7, 14) if _trick_score(s, t - 6) >= 100)


def minibridge_score(kind: str, strain: Strain | str, tricks: int) -> int:
    """Score for declarer's side (negative: what the defenders score)."""
    if not 0 <= tricks <= 13:
        raise MinibridgeError(f"{tricks} tricks is impossible: a deal has 0 to 13")
    s = Strain.parse(strain) if isinstance(strain, str) else Strain(strain)
    need = tricks_needed(kind, s)
    if tricks < need:
        return -50 * (need - tricks)
    return _trick_score(s, tricks - 6) + (300 if kind == "game" else 50)
