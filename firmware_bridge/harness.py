"""A tiny host loop and a patient operator, for tests, soaks and demos.

The real per-card decision belongs to the dealing session (a later issue).
Here the host knows the deal, "sees" each card through the emulator's camera
hook, and routes it; the operator clears jams, closes the cover and puts
double-fed cards back. At the end the pockets are compared card by card with
the deal, and with what the host believes happened.

>>> import random
>>> from firmware_bridge.emulator import Emulator
>>> from firmware_bridge.driver import Machine
>>> with Emulator.start(pty=True, seed=2, time_scale=0.01, heartbeat=0.05) as emu:
...     with Machine.open(emu.url, rto=0.02, link_timeout=0.5) as m:
...         deal = random_deal(random.Random(2))
...         Harness(emu, m).deal_board(1, deal).ok
True
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from dealer.cards import Card
from dealer.deal import Deal
from firmware_bridge import events as ev
from firmware_bridge.driver import Machine, MachineError
from firmware_bridge.emulator import Emulator
from firmware_bridge.physical import PhysicalCard, owner_pocket, standard_deck


def random_deal(rng: random.Random) -> Deal:
    """A random complete deal from ``rng`` (13 cards to each seat)."""
    owners = [i % 4 for i in range(52)]
    rng.shuffle(owners)
    return Deal.from_owners(owners)


@dataclass
class BoardResult:
    """How one board went: the truth in the pockets against the deal."""

    number: int
    drops: int = 0
    lost: list[Card] = field(default_factory=list)  # in the deal, in no pocket
    duplicated: list[PhysicalCard] = field(default_factory=list)  # one card in two places
    misrouted: list[tuple[PhysicalCard, int]] = field(default_factory=list)  # in a wrong pocket
    host_disagrees: int = 0  # pockets differ from what the host was told
    rejected: list[PhysicalCard] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.misrouted or self.host_disagrees)


class HarnessError(MachineError):
    """The board could not be finished (no events, or a card went missing)."""


class Harness:
    """Deal known deals through ``machine`` from ``emulator``'s hopper."""

    def __init__(self, emulator: Emulator, machine: Machine, *, idle_timeout: float = 5.0) -> None:
        self.emu = emulator
        self.m = machine
        self.idle_timeout = idle_timeout
        self.seen: dict[tuple[int, int], PhysicalCard] = {}
        self.totals: Counter[str] = Counter()
        emulator.camera = self._camera

    def _camera(self, gate_id: int, card: PhysicalCard) -> None:
        # What the vision pipeline would read at the gate. Gate ids restart after
        # a power cut, so the host keys cards by (boot id, gate id).
        self.seen[(self.emu.boot_id, gate_id)] = card

    def deal_board(
        self,
        number: int,
        deal: Deal,
        hopper: list[PhysicalCard] | None = None,
        *,
        deck_id: str = "A",
        after_drop: Callable[[int], None] | None = None,
        shuffle: random.Random | None = None,
    ) -> BoardResult:
        """Insert a board, deal ``hopper`` (default: a shuffled full deck) by ``deal``.

        ``after_drop(n)`` runs after the n-th confirmed drop, to inject faults.
        """
        if hopper is None:
            hopper = standard_deck(deck_id)
            (shuffle or random.Random(number)).shuffle(hopper)
        res = BoardResult(number)
        placed: set[int] = set()  # deal cards the host has seen land in a pocket
        host_view: list[list[PhysicalCard]] = [[], [], [], []]
        host_rejects: list[PhysicalCard] = []
        dropped_ids: set[tuple[int, int]] = set()
        self.emu.insert_board(number, hopper)
        self._wait_for(ev.BoardInserted, res)
        self._resume()
        done = False
        while not done:
            e = self.m.next_event(self.idle_timeout)
            if e is None:
                raise HarnessError(
                    f"board {number}: no event from the machine on {self.m.url} for "
                    f"{self.idle_timeout:.1f} s after {res.drops} drops"
                )
            res.events[type(e).__name__] += 1
            if isinstance(e, ev.CardAtGate):
                pc = self.seen[(e.boot_id, e.gate_id)]
                pocket = owner_pocket(deal, pc, deck_id=deck_id)
                if pocket is not None and pc.card is not None and int(pc.card) in placed:
                    pocket = None  # a second copy of a card already dealt
                try:
                    self.m.route(e.gate_id, pocket)
                except MachineError:
                    pass  # the link is down; the resync announces the card again
            elif isinstance(e, ev.CardDropped):
                key = (e.boot_id, e.gate_id)
                if key in dropped_ids:
                    res.duplicated.append(self.seen[key])
                dropped_ids.add(key)
                if e.inferred:
                    res.events["InferredDrop"] += 1
                pc = self.seen[key]
                res.drops += 1
                if e.pocket is None:
                    host_rejects.append(pc)
                else:
                    host_view[e.pocket].append(pc)
                    if pc.card is not None:
                        placed.add(int(pc.card))
                done = len(placed) == 52
                if after_drop is not None and not done:
                    after_drop(res.drops)
            elif isinstance(e, ev.DoubleFeed):
                self.emu.return_rejects(e.cards)
                self._resume()
            elif isinstance(e, ev.Jam):
                if e.cleared:
                    self._resume()
                else:
                    self.emu.clear_jam()
            elif isinstance(e, ev.Cover):
                if e.open:
                    self.emu.close_cover()
                else:
                    self._resume()
            elif isinstance(e, ev.Connected):
                self._resume()  # after a power cut the machine waits, idle
            elif isinstance(e, ev.HopperEmpty):
                time.sleep(0.05)  # let a drop in flight report before deciding
                if not self.emu.hopper and self.emu.phase == "idle":
                    done = True
        self.m.pause()
        pockets = self.emu.remove_board()
        self._wait_for(ev.BoardRemoved, res)
        res.rejected = self.emu.return_rejects()
        self.emu.take_hopper()  # the operator clears the hopper for the next board
        self._check(res, deal, pockets, host_view, host_rejects, placed)
        self.totals.update(res.events)
        return res

    def _check(
        self,
        res: BoardResult,
        deal: Deal,
        pockets: list[list[PhysicalCard]],
        host_view: list[list[PhysicalCard]],
        host_rejects: list[PhysicalCard],
        placed: set[int],
    ) -> None:
        where: Counter[PhysicalCard] = Counter()
        for seat, cards in enumerate(pockets):
            for pc in cards:
                where[pc] += 1
                if owner_pocket(deal, pc, deck_id=pc.deck_id) != seat:
                    res.misrouted.append((pc, seat))
        res.duplicated += [pc for pc, n in where.items() if n > 1]
        in_pockets = {int(pc.card) for cards in pockets for pc in cards if pc.card is not None}
        res.lost = [Card(i) for i in range(52) if deal.owner(Card(i)) is not None and i not in in_pockets]
        for truth, told in zip([*pockets, res.rejected], [*host_view, host_rejects], strict=True):
            a, b = Counter(truth), Counter(told)
            res.host_disagrees += sum(((a - b) + (b - a)).values())

    def _resume(self) -> None:
        try:
            self.m.resume()
        except MachineError:
            pass  # refused (cover, jam) or link down: a later event brings us back

    def _wait_for(self, kind: type[ev.Event], res: BoardResult) -> None:
        deadline = time.monotonic() + self.idle_timeout
        while time.monotonic() < deadline:
            e = self.m.next_event(max(0.0, deadline - time.monotonic()))
            if e is None:
                break
            res.events[type(e).__name__] += 1
            if isinstance(e, kind):
                return
            if isinstance(e, ev.Connected):
                continue
        raise HarnessError(f"board {res.number}: the machine on {self.m.url} never sent {kind.__name__}")
