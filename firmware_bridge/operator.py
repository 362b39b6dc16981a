"""The operators at the dealing machine: a person at a real one, a simulated one at the emulator.

An operator is told every notice of the session (``handle``) and is called
between machine events (``tick``), after each card dropped into a pocket
(``after_drop``) and when nothing has happened for a while (``idle``):

* :class:`ConsoleOperator` — a person at a real machine: reads the
  instruction, acts, presses Enter;
* :class:`EmulatedOperator` — a patient volunteer at the emulator, who feeds
  decks with the faults of a :class:`Scenario`, clears jams, re-feeds rejects
  and checks each finished board's pockets (:class:`BoardCheck`).

The operator sees the running rig only through :class:`dealer.rig_ports.Host`
(its session, "continue the machine", "hold it for the operator"), and the camera only by duck typing (``cards``
seen at the gate, ``smudged`` cards to read badly once), because this adapter
may import neither the rig nor ``vision``; ``rig.py`` wires them. Moved here
from ``rig.py``.

>>> Scenario.parse("jam@2,duplicate@3").faults
{2: ['jam'], 3: ['duplicate']}
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dealer.cards import Card
from dealer.rig_ports import Host
from dealer.rig_report import CONTINUE, DONE, RigError
from dealer.session_notices import Notice
from firmware_bridge.physical import PhysicalCard, standard_deck

if TYPE_CHECKING:
    from firmware_bridge.simboard import VirtualMachine


class ConsoleOperator:
    """A person at a real machine: reads the instruction, acts, presses Enter."""

    def __init__(self, ask: Callable[[str], str] = input) -> None:
        self.ask = ask

    def handle(self, notice: Notice, rig: Host) -> None:
        if notice.stop and notice.code in CONTINUE:
            try:
                self.ask(f"  {notice.instruction} — press Enter to continue ")
            except EOFError:
                pass  # no terminal (a service, a test): carry on as if Enter was pressed

    def after_drop(self, rig: Host) -> None:
        pass

    def tick(self, rig: Host) -> None:
        pass

    def idle(self, rig: Host) -> bool:
        return False


class PanelOperator:
    """A person at a real machine started from the panel: answers with the panel's Resume.

    A stop that needs the person (a jam, missing cards) holds the machine
    still; the job's row shows the instruction, and the director's Resume
    (the person is done) continues it.
    """

    def handle(self, notice: Notice, rig: Host) -> None:
        if notice.stop and notice.code in CONTINUE:
            rig.hold_for_operator()

    def after_drop(self, rig: Host) -> None:
        pass

    def tick(self, rig: Host) -> None:
        pass

    def idle(self, rig: Host) -> bool:
        return False


@dataclass
class Scenario:
    """Faults the simulated operator's decks and machine will have, by board number.

    Kinds: deck faults ``duplicate``, ``missing``, ``joker``, ``face_down``,
    ``other_deck``, ``unreadable``, ``same_back``, ``wrong_board``; machine
    faults ``jam``, ``misfeed``, ``double``, ``stuck_pair`` (two cards stuck together that
    the thickness sensor misses), ``cover``, ``power_cut``, ``unplug`` (injected after
    ``at_card`` drops).
    """

    faults: dict[int, list[str]] = field(default_factory=dict)
    at_card: int = 20
    seed: int = 0

    @classmethod
    def parse(cls, text: str) -> Scenario:
        """``"jam@2,duplicate@3"`` -> jam on board 2, a duplicate card on board 3."""
        sc = cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            kind, _, board = part.partition("@")
            if kind not in FAULT_KINDS or not board.isdigit():
                raise RigError(f"cannot read fault {part!r}: use KIND@BOARD with KIND one of "
                               f"{', '.join(sorted(FAULT_KINDS))}")
            sc.faults.setdefault(int(board), []).append(kind)
        return sc


FAULT_KINDS = {"duplicate", "missing", "joker", "face_down", "other_deck", "unreadable",
               "same_back", "wrong_board", "jam", "misfeed", "double", "stuck_pair", "cover",
               "power_cut", "unplug"}
#: Machine faults, injected after ``Scenario.at_card`` drops; the feed faults by ``inject``.
MACHINE_FAULTS = ("jam", "misfeed", "double", "stuck_pair", "cover", "power_cut", "unplug")


@dataclass
class BoardCheck:
    """What was physically in one board's pockets when the operator took it out."""

    number: int
    copy: int
    ok: bool
    pockets: list[list[PhysicalCard]]


class EmulatedOperator:
    """A patient volunteer at the emulator: follows every instruction to the letter.

    Inserts boards with a freshly shuffled deck (decks alternate between two
    back designs, as clubs alternate red and blue), clears jams, closes the
    cover, re-feeds rejected cards, finds missing cards, takes out jokers and
    strays, and checks each finished board's pockets against the deal.
    """

    def __init__(self, emu: VirtualMachine, camera: Any, scenario: Scenario | None = None, *,
                 hands: Callable[[int], list[list[Card]]] | None = None) -> None:
        self.emu = emu
        self.camera = camera
        self.hands = hands  # scan modes: the four hands of a board, fed N, E, S, W
        self.fed: dict[int, list[list[Card]]] = {}
        self.scenario = scenario or Scenario()
        self.rng = random.Random(self.scenario.seed)
        self.checks: list[BoardCheck] = []
        self.aside: list[PhysicalCard] = []  # cards found later (missing) or put aside
        self.deck_count = 0
        self.drops = 0
        self.pending_machine_faults: list[str] = []
        self.wrong_done: set[int] = set()
        self.injected: Counter[str] = Counter()
        self.todo: Any = None  # a finished board to take out once the machine stands still
        self.rescan = False  # a void scan to start again once the machine stands still
        self.reuse: list[PhysicalCard] | None = None
        self.put_aside: list[PhysicalCard] = []
        self.last_deck = "2"

    # -- boards
    def _deck_for(self, number: int) -> list[PhysicalCard]:
        faults = self.scenario.faults.get(number, [])
        self.deck_count += 1
        # Clubs alternate two back designs; "same_back" repeats the previous one.
        same = "same_back" in faults
        deck_id = self.last_deck if same else ("2" if self.last_deck == "1" else "1")
        self.last_deck = deck_id
        deck = standard_deck(deck_id)
        self.rng.shuffle(deck)
        self.aside = []
        if "missing" in faults:
            self.aside.append(deck.pop(self.rng.randrange(len(deck))))
        if "duplicate" in faults:
            deck.insert(self.rng.randrange(len(deck)), self.rng.choice(deck))
        if "joker" in faults:
            deck.insert(self.rng.randrange(len(deck)), PhysicalCard.make_joker(deck_id))
        if "face_down" in faults:
            i = self.rng.randrange(len(deck))
            deck[i] = dataclasses.replace(deck[i], face_up=False)
        if "other_deck" in faults:
            stray = PhysicalCard(Card(self.rng.randrange(52)), "77")
            deck.insert(self.rng.randrange(len(deck)), stray)
        readable = [c for c in deck if c.face_up and not c.joker]
        for pc in self.rng.sample(readable, min(len(readable), faults.count("unreadable"))):
            self.camera.smudged.add(pc)
        for kind in faults:
            self.injected[kind] += 1
        self.pending_machine_faults = [f for f in faults if f in MACHINE_FAULTS]
        self.drops = 0
        return deck

    def insert(self, rig: Host) -> None:
        slot = rig.session.next_slot
        if slot is None:
            return
        number = slot.number
        if self.reuse is not None:  # the same board again, with the cards it already had
            back, self.reuse = self.reuse, None
            self.emu.insert_board(number, back)
            return
        self.emu.take_rejects()  # a fresh deck: clear what the last one left behind
        self.emu.take_hopper()
        self.put_aside = []  # second copies of the last deck went with it
        faults = self.scenario.faults.get(number, [])
        if "wrong_board" in faults and slot.index not in self.wrong_done:
            self.wrong_done.add(slot.index)
            self.injected["wrong_board"] += 1
            self.emu.insert_board(number + 1000, [])  # a board from another set
            return
        deck = self._deck_for(number)
        if self.hands is not None:  # scan modes: the hands in order, North's on top
            by_card = {pc.card: pc for pc in deck if pc.card is not None}
            hands = self.hands(number)
            self.fed[number] = hands
            deck = [by_card.get(c) or PhysicalCard(c, "1") for h in hands for c in h]
        self.emu.insert_board(number, deck)

    def handle(self, notice: Notice, rig: Host) -> None:
        code = notice.code
        if code == "duplicate" and self.camera.cards:
            # The card the notice is about is the one just seen at the gate.
            self.put_aside.append(next(reversed(self.camera.cards.values())))
        if code in ("insert",):
            self.insert(rig)
        elif code == "wrong_board":
            self.emu.remove_board()  # the BoardRemoved event then asks for the right one
        elif code in DONE:
            # Wait for the machine to stop (a card fed before the pause still comes to the
            # gate and is rejected), then take the board out: see tick().
            cur = rig.session.current
            if cur is not None and hasattr(cur, "slot"):
                d = cur.slot.deal
                self.todo = (cur.slot.number, cur.slot.copy,
                             [[int(c) for c in d.hand(seat).cards] for seat in range(4)])
            elif cur is not None:
                fed = self.fed.get(cur.number, cur.hands)
                self.todo = (cur.number, 1, [[int(c) for c in h] for h in fed])
        elif code in ("board_pulled", "restart"):
            self._start_again(rig)
        elif code == "rescan":
            # As the notice says, once the card in hand has landed (see tick()): the cards in
            # the order they were fed (pockets North to West, the reject tray, the hopper).
            self.rescan = True
        elif code == "refeed":
            self._refeed(rig)
        elif code in ("missing", "stuck_card"):
            # As the notice says: cards set aside, and any never read found in a pocket
            # that holds more than the journal routed there (a stuck pair).
            found, self.aside = self.aside + self._from_pockets(rig), []
            self.emu.put_on_hopper(found)  # on the hopper before the tray is touched
            if not found and not self._refeed(rig):
                # Nothing to add: going on would only hear "missing" again, for ever.
                raise RigError(f"{notice.message}: the simulated operator has no such card")
            self.emu.load_hopper([])  # "cards added": the machine may say empty again
        elif code == "double_feed":
            self.emu.return_rejects(2)
        elif code == "jam":
            self.emu.clear_jam()
        elif code == "cover_open":
            self.emu.close_cover()
        elif code == "hopper_empty":
            self.emu.load_hopper(standard_deck())

    def _start_again(self, rig: Host) -> None:
        """Put every card of the board and the reject tray back and insert it again."""
        keep = [pc for pocket in self.emu.pockets for pc in pocket]
        keep += [pc for pc in self._take_rejects() if not pc.joker and pc.deck_id != "77"]
        self.reuse = keep + self.emu.take_hopper()
        if self.emu.board_number is not None:
            self.emu.remove_board()  # its BoardRemoved event asks for the board again
        else:
            self.insert(rig)

    def _refeed(self, rig: Host) -> int:
        """Put back what belongs to the deck; jokers, strays and second copies go aside.

        Returns how many cards went back on the hopper.
        """
        keep = []
        for pc in self._take_rejects():
            if pc.joker or pc.deck_id == "77":
                continue
            # The very piece of cardboard the session called a second copy (by identity:
            # an equal card of an earlier deck with the same back is another card).
            second = next((i for i, x in enumerate(self.put_aside) if x is pc), None)
            if second is not None:
                del self.put_aside[second]
                continue
            keep.append(pc if pc.face_up else dataclasses.replace(pc, face_up=True))
        self.emu.put_on_hopper(keep)
        return len(keep)

    def _from_pockets(self, rig: Host) -> list[PhysicalCard]:
        """Count each pocket against what was routed there; from one that holds more, take
        out the cards the session never read (the notice names them)."""
        cur = rig.session.current
        if cur is None or not hasattr(cur, "missing"):
            return []
        routed = cur.counts()
        wanted = {int(c) for c in cur.missing()}
        found: list[PhysicalCard] = []
        for p, held in enumerate(self.emu.pockets):
            if len(held) <= routed[p]:
                continue
            mine = [pc for pc in held if pc.card is not None and int(pc.card) in wanted]
            found += self.emu.take_from_pocket(p, mine[: len(held) - routed[p]])
        return found

    def _take_rejects(self) -> list[PhysicalCard]:
        """Empty the reject tray into the operator's hand (not onto the hopper)."""
        return self.emu.take_rejects()

    def tick(self, rig: Host) -> None:
        """Called between events: finish what waits for the machine to stand still."""
        if self.emu.phase != "idle":
            return
        if self.rescan:
            self.rescan = False
            self._start_again(rig)
        if self.todo is None:
            return
        number, copy, want = self.todo
        self.todo = None
        pockets = self.emu.remove_board()
        ok = all(sorted(int(pc.card) for pc in got if pc.card is not None and pc.face_up)
                 == sorted(w) and len(got) == 13 for got, w in zip(pockets, want, strict=True))
        self.checks.append(BoardCheck(number, copy, ok, pockets))

    def after_drop(self, rig: Host) -> None:
        self.drops += 1
        if self.drops != self.scenario.at_card or not self.pending_machine_faults:
            return
        for kind in self.pending_machine_faults:
            if kind in ("jam", "misfeed", "double", "stuck_pair"):
                self.emu.inject(kind)
            elif kind == "cover":
                self.emu.open_cover()
            elif kind == "power_cut":
                self.emu.power_cut(when="dropping")
            elif kind == "unplug":
                self.emu.unplug(1.0)  # longer than the link timeout: a real cable pull
        self.pending_machine_faults = []

    def idle(self, rig: Host) -> bool:
        """Nothing happens: look at the machine as a person would. True if acted."""
        st = rig.session.state
        if st == "waiting_board" and self.emu.board_number is None:
            self.insert(rig)
            return True
        if self.emu.cover_open:
            self.emu.close_cover()
            return True
        if self.emu.jammed is not None:
            self.emu.clear_jam()
            return True
        if st == "dealing":
            rig.continue_machine()
            return True
        return False

