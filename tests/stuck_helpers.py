"""Shared by the stuck-pair tests: a played board, and a rig run with one stuck pair."""

from __future__ import annotations

import random
from typing import Any

import rig
from dealer.cards import Card
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.play import Play

#: The emulator's time scale in these runs (the firmware under simavr runs at 0.02).
SCALE = 0.005


def random_deal(seed: int) -> Deal:
    owners = [i % 4 for i in range(52)]
    random.Random(seed).shuffle(owners)
    return Deal.from_owners(owners)


def played(deal: Deal, contract: Contract, seed: int) -> tuple[Play, list[list[Card]]]:
    """A legal play of ``deal`` (random, seeded), and each player's cards in the order played."""
    p = Play(contract, deal)
    rng = random.Random(seed)
    while not p.is_complete:
        p.play(rng.choice(p.legal_cards()))
    return p, [p.played_by(seat) for seat in range(4)]


def run_with_a_stuck_pair(operator: type, ds: Any, db_url: str, *, at_card: int, machine: str,
                          operator_options: dict[str, Any] | None = None,
                          **options: Any) -> tuple[Any, Any]:
    """``rig.run_emulated`` with one stuck pair fed at feed ``at_card`` of board 1 and the
    simulated operator ``operator`` (a subclass of ``rig.EmulatedOperator``, built by that
    name inside the rig, given ``operator_options`` too). Returns the report and the
    operator."""
    ops: list[Any] = []

    class Watched(operator):  # type: ignore[valid-type, misc]
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **(operator_options or {}), **kw)
            ops.append(self)

    sc = rig.Scenario.parse("stuck_pair@1")
    sc.at_card = at_card
    real = rig.EmulatedOperator
    rig.EmulatedOperator = Watched
    try:
        report = rig.run_emulated(ds, db_url, camera="emulator:variants=1", scenario=sc,
                                  time_scale=SCALE if machine == "emulator" else 0.02,
                                  quiet=True, machine=machine, **options)
    finally:
        rig.EmulatedOperator = real
    return report, ops[0]
