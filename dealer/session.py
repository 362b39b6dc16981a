"""The dealing session: the state machine that owns the truth about every card.

Pure Python: no serial port, no camera. The rig (``rig.py``) feeds it what the
machine and the camera report and carries out what it decides:

* ``board_inserted(sticker)`` — which slot of the :class:`~dealer.session_plan.Plan`
  this board fills (or a "wrong board" notice);
* ``card_at_gate(key, sighting)`` — a :class:`Decision`: the pocket from the
  deal, or the reject tray with a notice (unreadable, duplicate, joker, face
  down, another deck, extra card). The decision is **journalled before it is
  returned**, so a card is never routed that the journal does not know;
* ``card_dropped(key, pocket, counts=...)`` — the drop is journalled (one durable
  commit) before the next card can be decided; a full board is then checked card
  by card against the deal, and against the machine's pocket sensors: a pocket
  that holds more cards than were read into it (two cards stuck together, which
  the thickness sensor missed, fall as one) is never declared fine;
* ``hopper_empty()``, ``board_removed()``, machine faults — notices with plain
  instructions;
* ``reconcile(view)`` — after a crash, a cable pull or a power cut, the
  machine's sensor counts are compared with the journal: the board is resumed
  where it stopped, or restarted cleanly, never left different from the deal.

A card is identified by its gate key ``(boot_id, gate_id)`` (gate ids restart
at each power-up, see docs/protocol.md). Pockets are seats 0..3 (N, E, S, W,
WBF Law 6: each pocket holds one hand of 13); ``None`` is the reject tray.

>>> from dealer.generate import random_dealset
>>> from dealer.session_plan import Plan
>>> ds = random_dealset([1])
>>> s = DealingSession(Plan.build(ds), MemoryJournal())
>>> s.board_inserted(1)[0].code
'start'
>>> deal = ds.board(1).deal
>>> for gate, card in enumerate(Card.all(), start=1):
...     d = s.card_at_gate((7, gate), Sighting(card))
...     _ = s.card_dropped((7, gate), d.pocket)
>>> s.state, s.boards_done, s.notices[-1].code
(<SessionState.BOARD_DONE: 'board_done'>, 1, 'board_done')
>>> s.card_at_gate((7, 99), Sighting(Card.parse("HQ"))).notices[0].message
'board 1: the board is full but ♥Q came to the gate; it went to the reject tray'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from dealer import session_notices as say
from dealer.cards import Card
from dealer.errors import BoardwrightError
from dealer.session_notices import Notice
from dealer.session_plan import Plan, Slot

GateKey = tuple[int, int]  # (boot_id, gate_id)

#: What a camera can say about a card instead of naming it.
PROBLEMS = ("unreadable", "joker", "face_down", "other_deck")


class SessionState(StrEnum):
    """Where a dealing (or scanning) session stands. A ``StrEnum``: each state equals its
    old string (``SessionState.DEALING == "dealing"``), so readers of the value see no change."""

    WAITING_BOARD = "waiting_board"
    DEALING = "dealing"
    BOARD_DONE = "board_done"
    STOPPED = "stopped"
    FINISHED = "finished"


class JournalError(BoardwrightError):
    """The journal could not record an entry; nothing may move until it can."""


@dataclass(frozen=True)
class Sighting:
    """What the camera saw at the gate: a card (with its deck, if known) or a problem.

    ``problem`` is one of :data:`PROBLEMS`; ``deck`` names the deck (a barcode
    deck id or a learned design), used to spot cards of another deck and
    decks with the same back.
    """

    card: Card | None
    problem: str | None = None
    detail: str = ""
    deck: str | None = None

    def __post_init__(self) -> None:
        if self.problem is None and self.card is None:
            object.__setattr__(self, "problem", "unreadable")
        if self.problem is not None and self.problem not in PROBLEMS:
            raise ValueError(f"unknown sighting problem {self.problem!r}")


@dataclass(frozen=True)
class Entry:
    """One journal record. ``kind``: board, route, drop, return, restart, done, removed.

    ``pocket`` is 0..3 or ``None`` (reject tray); ``code`` says why a card went
    to the reject tray, or how a drop was known ("inferred").
    """

    kind: str
    slot: int
    boot_id: int = 0
    gate_id: int = 0
    card: int | None = None
    pocket: int | None = None
    code: str = ""
    deck: str | None = None

    @property
    def key(self) -> GateKey:
        return (self.boot_id, self.gate_id)


class Journal(Protocol):
    """Where the session writes each entry; ``append`` is durable when it returns."""

    def append(self, entry: Entry) -> None: ...


class MemoryJournal:
    """A journal in a list: for tests of the pure session and for dry runs.

    >>> j = MemoryJournal(); j.append(Entry("board", 0)); len(j.entries)
    1
    """

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.broken: str | None = None  # set to a reason to make every append fail

    def append(self, entry: Entry) -> None:
        if self.broken is not None:
            raise JournalError(self.broken)
        self.entries.append(entry)


@dataclass(frozen=True)
class Decision:
    """Where the card at the gate goes. ``route`` False: do not route; stop the machine."""

    route: bool
    pocket: int | None
    card: Card | None = None
    notices: tuple[Notice, ...] = ()


@dataclass(frozen=True)
class MachineView:
    """What the machine's sensors say, from a state query (see docs/protocol.md 5.2)."""

    board_present: bool
    board_number: int | None
    counts: tuple[int, int, int, int]
    rejects: int = 0
    gate: GateKey | None = None  # the card at the gate or falling
    gate_routed: bool = False


def unread_in_pockets(sensed: tuple[int, int, int, int] | None,
                      read: tuple[int, int, int, int] | list[int]) -> dict[int, int]:
    """pocket -> cards the pocket sensors count there beyond the ``read`` cards routed
    into it: cards that fell in unread, stuck under a card read (none if not told).

    >>> unread_in_pockets((14, 13, 12, 13), (13, 13, 13, 13))
    {0: 1}
    """
    if sensed is None:
        return {}
    return {p: sensed[p] - read[p] for p in range(4) if sensed[p] > read[p]}


@dataclass
class BoardProgress:
    """The board being filled: what is confirmed in each pocket, what is in flight."""

    slot: Slot
    placed: dict[int, int] = field(default_factory=dict)  # card -> pocket, confirmed drops
    pending: dict[GateKey, tuple[int | None, int | None]] = field(default_factory=dict)
    decided: dict[GateKey, int | None] = field(default_factory=dict)  # every routed key
    dropped: set[GateKey] = field(default_factory=set)
    refeed: int = 0  # rejected cards that may still belong to this board
    deck: str | None = None
    warned_same_back: bool = False
    #: What the machine's pocket sensors last counted (CARD_DROPPED, GET_STATE), if told.
    sensed: tuple[int, int, int, int] | None = None
    #: pocket -> the read cards whose drop grew it by more than one card (a stuck pair).
    stuck: dict[int, list[Card]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.slot.label

    def counts(self) -> tuple[int, int, int, int]:
        c = [0, 0, 0, 0]
        for pocket in self.placed.values():
            c[pocket] += 1
        return (c[0], c[1], c[2], c[3])

    def surplus(self) -> dict[int, int]:
        """pocket -> cards its sensor counts beyond those read into it (none if not told)."""
        return unread_in_pockets(self.sensed, self.counts())

    def claimed(self) -> set[int]:
        """Cards placed or on their way to a pocket."""
        return set(self.placed) | {c for c, p in self.pending.values() if c is not None and p is not None}

    def missing(self) -> list[Card]:
        have = self.claimed()
        return [Card(i) for i in range(52) if i not in have]

    @property
    def complete(self) -> bool:
        return len(self.placed) == 52


class JournalWriting:
    """The one way a session writes its journal: a failed write stops the session.

    Shared by :class:`DealingSession` and the scan sessions, so neither can route
    a card it could not record.
    """

    journal: Journal
    state: SessionState
    stop_reason: str | None

    def _note(self, *notices: Notice) -> list[Notice]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _write(self, entry: Entry) -> bool:
        """Append to the journal; on failure stop everything and say why."""
        if self.state == SessionState.STOPPED:
            return False
        try:
            self.journal.append(entry)
        except JournalError as exc:
            self.state = SessionState.STOPPED
            self.stop_reason = str(exc)
            self._note(say.journal_failed(str(exc)))
            return False
        return True

    def stop(self, notice: Notice) -> list[Notice]:
        """Stop the job for good (the machine broke, the director aborted): say why.

        Nothing is journaled: the run stays open, so dealing the set again
        resumes from the journal.
        """
        if self.state == SessionState.STOPPED:
            return []
        self.state = SessionState.STOPPED
        self.stop_reason = notice.message
        return self._note(notice)


class DealingSession(JournalWriting):
    """DEAL mode: fill the plan's boards, one card at a time. See the module docstring."""

    def __init__(self, plan: Plan, journal: Journal, *, stop_card: bool = False,
                 check_backs: bool = True) -> None:
        self.plan = plan
        self.journal = journal
        self.stop_card = stop_card
        self.check_backs = check_backs
        self.state = SessionState.WAITING_BOARD  # dealing | board_done | stopped | finished
        self.current: BoardProgress | None = None
        self.done: set[int] = set()
        self.previous_deck: str | None = None
        self.notices: list[Notice] = []
        self.faults: Counter[str] = Counter()
        self.cards_placed = 0
        self.stop_reason: str | None = None
        self.board_present = False  # a board is in the machine (from its events)

    # ------------------------------------------------------------------ progress
    @property
    def boards_done(self) -> int:
        return len(self.done)

    @property
    def boards_total(self) -> int:
        return len(self.plan)

    @property
    def next_slot(self) -> Slot | None:
        for s in self.plan.slots:
            if s.index not in self.done:
                return s
        return None

    def progress(self) -> tuple[str, int]:
        """(the board being filled, cards in its pockets) for a status line."""
        cur = self.current
        return (f"#{cur.slot.number}", len(cur.placed)) if cur is not None else ("", 0)

    @property
    def instruction(self) -> Notice | None:
        """The notice the operator should act on now (the last stopping one, else the last)."""
        return self.notices[-1] if self.notices else None

    def _note(self, *notices: Notice) -> list[Notice]:
        for n in notices:
            self.notices.append(n)
            self.faults[n.code] += 1
        del self.notices[:-200]  # the console shows the last few; the journal keeps the rest
        return list(notices)

    def start(self) -> list[Notice]:
        """The first instruction of the job (or where a restored job stands)."""
        if self.state == SessionState.FINISHED or self.next_slot is None:
            self.state = SessionState.FINISHED
            return self._note(say.job_done(self.boards_total))
        if self.current is not None:
            return []
        return self._note(say.insert_board(self.next_slot.label))

    # ------------------------------------------------------------------ boards
    def board_inserted(self, sticker: int | None) -> list[Notice]:
        """A board is in the machine; ``sticker`` is its number from the reader, if any.

        Returns notices; the first has code ``start`` when dealing may begin.
        """
        if self.state == SessionState.STOPPED:
            return []
        cur = self.current
        if (self.board_present and cur is not None and self.state in (SessionState.DEALING, SessionState.BOARD_DONE)
                and (sticker is None or sticker == cur.slot.number)):
            return []  # the same insertion announced again (a new host after a crash)
        self.board_present = True
        if self.current is not None and (self.current.placed or self.current.pending):
            # The board was out of the machine: its pockets cannot be trusted.
            self._restart(self.current, "the board was taken out of the machine")
        if self.state == SessionState.FINISHED or self.next_slot is None:
            self.state = SessionState.FINISHED
            return self._note(say.job_done(self.boards_total))
        if self.plan.auto_number:
            slot = None if sticker is None else self.plan.next_for(sticker, self.done)
            if slot is None:
                self.state = SessionState.WAITING_BOARD
                return self._note(say.not_in_plan(sticker, self.plan.describe()))
        else:
            slot = self.next_slot
            assert slot is not None
            if sticker is not None and sticker != slot.number:
                self.state = SessionState.WAITING_BOARD
                return self._note(say.wrong_board(sticker, slot.label, slot.number))
        if self.current is not None and self.current.slot.index == slot.index and not self.current.placed:
            prog = self.current  # re-inserted before any card: nothing to redo
        else:
            prog = BoardProgress(slot)
            if not self._write(Entry("board", slot.index)):
                return []
        self.current = prog
        self.state = SessionState.DEALING
        return self._note(Notice("start", f"dealing {slot.label}", ""))

    def board_removed(self) -> list[Notice]:
        if self.state == SessionState.STOPPED:
            return []
        self.board_present = False
        cur = self.current
        if cur is None:
            nxt = self.next_slot
            if self.state == SessionState.WAITING_BOARD and nxt is not None:
                return self._note(say.insert_board(nxt.label))
            return []
        if cur.complete:
            self._write(Entry("removed", cur.slot.index))
            self.current = None
            nxt = self.next_slot
            if nxt is None:
                self.state = SessionState.FINISHED
                return self._note(say.job_done(self.boards_total))
            self.state = SessionState.WAITING_BOARD
            return self._note(say.insert_board(nxt.label))
        if not cur.placed and not cur.pending:
            self.current = None
            self.state = SessionState.WAITING_BOARD
            return []
        n = len(cur.placed)
        self._restart(cur, "taken out")
        self.state = SessionState.WAITING_BOARD
        return self._note(say.board_pulled(cur.label, n))

    def _restart(self, cur: BoardProgress, why: str) -> None:
        self._write(Entry("restart", cur.slot.index, code=why[:40]))
        self.cards_placed -= len(cur.placed)
        self.current = None

    # ------------------------------------------------------------------ cards
    def card_at_gate(self, key: GateKey, seen: Sighting) -> Decision:
        """Decide where the card at the gate goes, and journal it before saying so."""
        if self.state == SessionState.STOPPED:
            return Decision(False, None)
        cur = self.current
        if cur is not None and key in cur.decided:  # announced again after a reconnect
            return Decision(True, cur.decided[key], None if seen.card is None else seen.card)
        where = cur.label if cur is not None else "no board"
        notices: list[Notice] = []
        pocket: int | None = None
        card = seen.card
        code = ""
        if cur is None or self.state != SessionState.DEALING:
            code = "no_board"
            notices.append(say.extra_card(where, card))
        elif seen.problem == "face_down" and self.stop_card:
            code = "stop_card"
            missing = cur.missing()
            if missing:
                notices.append(say.stop_card_early(where, missing))
        elif seen.problem is not None:
            code = seen.problem
            if seen.problem in ("unreadable", "face_down"):
                cur.refeed += 1  # it may be a card this board still needs
            notices.append({
                "unreadable": lambda: say.unreadable(where, seen.detail),
                "joker": lambda: say.joker(where),
                "face_down": lambda: say.face_down(where),
                "other_deck": lambda: say.other_deck(where, card, seen.deck),
            }[seen.problem]())
        else:
            assert card is not None
            if cur.deck is None and seen.deck is not None:
                cur.deck = seen.deck
                if (self.check_backs and seen.deck == self.previous_deck
                        and not self.stop_card and not cur.warned_same_back):
                    cur.warned_same_back = True
                    notices.append(say.same_back(where, seen.deck))
            if seen.deck is not None and cur.deck is not None and seen.deck != cur.deck:
                code = "other_deck"
                notices.append(say.other_deck(where, card, seen.deck))
            elif int(card) in cur.claimed():
                code = "duplicate"
                # Where the first one went, and what a stuck pair left unread (the cards the
                # operator was asked to take out): a card fed again by mistake is said so.
                first = cur.placed.get(int(card), next((p for c, p in cur.pending.values() if c == int(card)), None))
                extra, missing = cur.surplus(), cur.missing()
                unread = ({p: missing for p in extra} if len(extra) == 1 and missing
                          and len(missing) <= sum(extra.values()) else {})
                notices.append(say.duplicate_card(card, where, first, unread))
            elif cur.complete:
                code = "extra"
                notices.append(say.extra_card(where, card))
            else:
                owner = cur.slot.deal.owner(card)
                assert owner is not None  # plans hold complete deals only
                pocket = int(owner)
        slot = cur.slot.index if cur is not None else -1
        entry = Entry("route", slot, key[0], key[1], None if card is None else int(card),
                      pocket, code, seen.deck)
        if not self._write(entry):
            return Decision(False, None, card, tuple(self.notices[-1:]))
        if cur is not None:
            cur.decided[key] = pocket
            cur.pending[key] = (entry.card, pocket)
        self._note(*notices)
        return Decision(True, pocket, card, tuple(notices))

    def card_dropped(self, key: GateKey, pocket: int | None, *, inferred: bool = False,
                     counts: tuple[int, int, int, int] | None = None) -> list[Notice]:
        """The machine confirmed a drop; journal it, then check a full board.

        ``counts`` are the machine's pocket sensor counts after the drop (CARD_DROPPED
        carries them). A pocket that grew by more than the card read holds an unread
        card (a stuck pair): said at once, asked for when the hopper is empty, and the
        board is not done while a pocket holds more (or fewer) cards than were read.
        """
        cur = self.current
        if cur is None or key in cur.dropped:
            return []  # a repeat, or a card of a board already closed
        if key not in cur.pending:
            if pocket is None:
                return []  # the machine rejected a card we never routed (ABORT): harmless
            # A card we never routed is in a pocket: the board cannot be trusted.
            self._restart(cur, "unknown card")
            self.state = SessionState.WAITING_BOARD
            return self._note(say.restart_board(cur.label, f"a card the session never routed "
                                                f"landed in pocket {pocket}"))
        card, intended = cur.pending[key]
        if intended != pocket:
            self._restart(cur, "wrong pocket")
            self.state = SessionState.WAITING_BOARD
            return self._note(say.restart_board(cur.label, f"the machine dropped a card into "
                                                f"pocket {pocket}, not {intended}"))
        entry = Entry("drop", cur.slot.index, key[0], key[1], card, pocket,
                      "inferred" if inferred else "")
        before = cur.surplus()
        # Update the truth first (the card IS in the pocket), then try the journal.
        self._apply_drop(cur, key, card, pocket)
        if not self._write(entry):
            return []
        notices = [] if counts is None else self._sensed(cur, counts, before, card, pocket)
        if pocket is not None and cur.complete and cur.slot.index not in self.done:
            return notices + self._finish_board(cur)
        return notices

    def _sensed(self, cur: BoardProgress, counts: tuple[int, int, int, int],
                before: dict[int, int], card: int | None, pocket: int | None) -> list[Notice]:
        """The pocket sensors after a drop: a pocket that grew by more than its card holds
        a card never read (two cards stuck together, aligned so the thickness sensor missed
        them, and the camera saw the top one only)."""
        cur.sensed = (counts[0], counts[1], counts[2], counts[3])
        extra = cur.surplus()
        for p in [p for p in cur.stuck if p not in extra]:
            del cur.stuck[p]  # the operator took the unread card out
        if pocket is None or card is None or extra.get(pocket, 0) <= before.get(pocket, 0):
            return []
        cur.stuck.setdefault(pocket, []).append(Card(card))
        return self._note(say.stuck_pair(cur.label, pocket, Card(card), counts[pocket],
                                         cur.counts()[pocket]))

    def _apply_drop(self, cur: BoardProgress, key: GateKey, card: int | None, pocket: int | None) -> None:
        del cur.pending[key]
        cur.dropped.add(key)
        if pocket is not None and card is not None:
            cur.placed[card] = pocket
            self.cards_placed += 1

    def _finish_board(self, cur: BoardProgress) -> list[Notice]:
        # The final check: every card in the pocket the deal gives it.
        deal = cur.slot.deal
        wrong = [Card(c) for c, p in cur.placed.items() if int(deal.owner(Card(c))) != p]  # type: ignore[arg-type]
        if wrong:
            self._restart(cur, "check failed")
            self.state = SessionState.WAITING_BOARD
            return self._note(say.restart_board(cur.label, "cards in the wrong pockets: "
                                                + " ".join(c.symbol for c in wrong)))
        if cur.sensed is not None and cur.sensed != cur.counts():
            # All 52 were read into their pockets, but a pocket's sensor counts more (an unread
            # card came stuck to another: a 53rd card) or fewer (one was taken out): the pockets
            # are not what the journal says, so the board is not done.
            why = say.pocket_counts_differ(cur.sensed, cur.counts(), cur.stuck)
            self._restart(cur, "pocket counts differ")
            self.state = SessionState.WAITING_BOARD
            return self._note(say.restart_board(cur.label, why))
        if not self._write(Entry("done", cur.slot.index)):
            return []
        self.done.add(cur.slot.index)
        self.previous_deck = cur.deck
        self.state = SessionState.BOARD_DONE
        nxt = self.next_slot
        surplus = []
        if cur.refeed:
            # All 52 are in their pockets, so a card rejected unread and never re-fed is
            # one too many: a second copy read badly the first time, or a stray. Said,
            # not left to be swept away with the tray.
            surplus.append(say.unread_rejects(cur.label, cur.refeed))
            cur.refeed = 0
        return self._note(*surplus, say.board_done(cur.label, nxt.label if nxt else None))

    def card_returned(self, key: GateKey) -> list[Notice]:
        """After a power cut the routed card did not land: it is back on the hopper."""
        cur = self.current
        if cur is None or key not in cur.pending:
            return []
        card, _ = cur.pending.pop(key)
        cur.decided.pop(key, None)
        self._write(Entry("return", cur.slot.index, key[0], key[1], card))
        return []

    def hopper_empty(self) -> list[Notice]:
        """Nothing left to feed. Say which cards are missing, or ask for a re-feed."""
        cur = self.current
        if self.state != SessionState.DEALING or cur is None or cur.complete or cur.pending:
            return []
        where = cur.label
        if cur.refeed:
            n, cur.refeed = cur.refeed, 0
            return self._note(say.refeed_rejects(where, n))
        missing = cur.missing()
        if len(missing) == 52:
            return self._note(say.hopper_empty(where))
        extra = cur.surplus()
        if extra:  # the pocket sensors count cards never read: a stuck pair put them there
            routed = cur.counts()
            held = {p: (routed[p] + n, routed[p], cur.stuck.get(p, [])) for p, n in extra.items()}
            return self._note(say.stuck_card(where, missing, held))
        return self._note(say.missing_cards(missing, where, cur.counts()))

    def hopper_not_empty(self) -> list[Notice]:
        """The board is full and the machine still has cards: the deck had more than 52."""
        cur = self.current
        if self.state != SessionState.BOARD_DONE or cur is None:
            return []
        return self._note(say.left_over(cur.label))

    def double_feed(self, cards: int) -> list[Notice]:
        return self._note(say.double_feed(cards))

    def machine_fault(self, notice: Notice) -> list[Notice]:
        """Jam, cover, misfeed, link: journal nothing, just tell the operator."""
        return self._note(notice)

    # ------------------------------------------------------------------ resync
    def reconcile(self, view: MachineView) -> tuple[list[Notice], list[tuple[GateKey, int | None]]]:
        """Compare the machine's sensors with the journal after a restart or a resync.

        Returns the notices and the routes to send again (a card the journal
        routed that still waits, unrouted, at the gate). A routed card that is
        no longer at the gate landed if its pocket counts one more than the
        journal, else it went back to the hopper.
        """
        cur = self.current
        if self.state == SessionState.STOPPED:
            return [], []
        self.board_present = view.board_present
        if cur is None:
            if self.state == SessionState.FINISHED:
                return [], []
            if view.board_present and not any(view.counts) and self.state == SessionState.WAITING_BOARD:
                return self.board_inserted(view.board_number), []
            if view.board_present and any(view.counts):
                nxt = self.next_slot
                label = nxt.label if nxt else "the board"
                return self._note(say.restart_board(label, "its pockets hold cards the journal "
                                                    "does not know")), []
            return self.start(), []
        if not view.board_present:
            if cur.complete:
                return self.board_removed(), []
            n = len(cur.placed)
            self._restart(cur, "board out")
            self.state = SessionState.WAITING_BOARD
            return self._note(say.board_pulled(cur.label, n)), []
        expect = list(cur.counts())
        for p, n in cur.surplus().items():  # unread cards the sensors already counted (stuck pairs)
            expect[p] += n
        reroute: list[tuple[GateKey, int | None]] = []
        for key, (card, pocket) in list(cur.pending.items()):
            if view.gate == key:
                if not view.gate_routed:
                    reroute.append((key, pocket))
                continue  # still at the gate or falling: its drop event will come
            landed = pocket is not None and view.counts[pocket] == expect[pocket] + 1
            if pocket is None:
                landed = True  # a rejected card is out of the board either way
            if landed:
                self._apply_drop(cur, key, card, pocket)
                self._write(Entry("drop", cur.slot.index, key[0], key[1], card, pocket, "inferred"))
                if pocket is not None:
                    expect[pocket] += 1
            else:
                self.card_returned(key)
        if tuple(expect) != tuple(view.counts):
            have = "/".join(map(str, view.counts))
            want = "/".join(map(str, expect))
            n = len(cur.placed)
            self._restart(cur, "counts differ")
            self.state = SessionState.WAITING_BOARD
            return self._note(say.restart_board(
                cur.label, f"its pockets hold {have} cards but the journal has {want} (after {n})"
            )), []
        cur.sensed = view.counts
        if cur.complete:
            if cur.slot.index not in self.done:
                return self._finish_board(cur), []
            self.state = SessionState.BOARD_DONE
            return [], []
        self.state = SessionState.DEALING
        return self._note(say.resume_board(cur.label, len(cur.placed))), reroute

    # ------------------------------------------------------------------ restore
    @classmethod
    def restore(cls, plan: Plan, entries: Iterable[Entry], journal: Journal, **kwargs: bool) -> DealingSession:
        """Rebuild a session from its journal, after the host crashed or was closed.

        The state is replayed entry by entry with the same rules as live
        dealing; call :meth:`reconcile` with the machine's state next.
        """
        s = cls(plan, journal, **kwargs)
        by_index = {sl.index: sl for sl in plan.slots}
        for e in entries:
            cur = s.current
            if e.kind == "board":
                s.current = BoardProgress(by_index[e.slot])
            elif cur is None or e.slot != cur.slot.index:
                continue  # a card with no board (rejected at once), or an old board's leftover
            elif e.kind == "route":
                cur.decided[e.key] = e.pocket
                cur.pending[e.key] = (e.card, e.pocket)
                if cur.deck is None and e.deck is not None and e.code == "":
                    cur.deck = e.deck
            elif e.kind == "drop" and e.key in cur.pending:
                s._apply_drop(cur, e.key, e.card, e.pocket)
            elif e.kind == "return":
                cur.pending.pop(e.key, None)
                cur.decided.pop(e.key, None)
            elif e.kind == "restart":
                s.cards_placed -= len(cur.placed)
                s.current = None
            elif e.kind == "done":
                s.done.add(cur.slot.index)
                s.previous_deck = cur.deck
            elif e.kind == "removed":
                s.current = None
        if s.current is not None and s.current.slot.index in s.done:
            s.state = SessionState.BOARD_DONE
        elif s.current is not None:
            s.state = SessionState.DEALING
        elif s.next_slot is None:
            s.state = SessionState.FINISHED
        return s
