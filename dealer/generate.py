"""Deal generation (placeholder for the secure generator of the deals issue).

Uses the operating system's cryptographic source and an unbiased shuffle.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from dealer.board import Board, DealSet
from dealer.deal import Deal


def random_deal() -> Deal:
    """One uniformly random deal from ``secrets.SystemRandom`` (Fisher-Yates, no modulo bias)."""
    owners = [i // 13 for i in range(52)]
    secrets.SystemRandom().shuffle(owners)
    return Deal.from_owners(owners)


def random_dealset(numbers: Iterable[int], *, event: str = "") -> DealSet:
    boards = [Board(n, random_deal()) for n in numbers]
    return DealSet(boards=boards, meta={"Event": event} if event else {})
