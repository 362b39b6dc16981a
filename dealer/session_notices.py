"""What the dealing session tells the operator: a plain message and what to do.

Every error a club meets at the machine has one constructor here, so the
wording lives in one place (the console, the panel and the docs show the same
text). A notice with ``stop=True`` means the machine is paused until the
operator has done what the instruction says.

>>> from dealer.cards import Card
>>> n = duplicate_card(Card.parse("HQ"), "board 3")
>>> n.message
'board 3: this deck has two ♥Q'
>>> n.instruction
'check the deck: take the second ♥Q out of the reject tray and put it aside'
>>> missing_cards([Card.parse("S7"), Card.parse("D2")], "board 3").message
'board 3: the hopper is empty but 2 cards were never read: ♠7 ♦2'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dealer.cards import Card
from dealer.seats import Seat


@dataclass(frozen=True)
class Notice:
    """One message for the operator. ``code`` is stable, for tests and the panel."""

    code: str
    message: str
    instruction: str = ""
    stop: bool = False  # the machine stays paused until the operator acts

    def __str__(self) -> str:
        return f"{self.message}: {self.instruction}" if self.instruction else self.message


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(c.symbol for c in sorted(cards, key=lambda c: (-c.suit, -c.rank)))


# ----------------------------------------------------------------------------- cards
def unreadable(where: str, detail: str = "") -> Notice:
    why = f" ({detail})" if detail else ""
    return Notice("unreadable", f"{where}: a card could not be read{why}; it went to the reject tray",
                  "re-feed it: put it back on top of the hopper", stop=False)


def duplicate_card(card: Card, where: str, pocket: int | None = None,
                   unread: dict[int, list[Card]] | None = None) -> Notice:
    """A card read a second time. ``pocket``: where the first one was dealt, when known;
    the camera cannot tell a second copy from that one fed again (taken out of its
    pocket by mistake). ``unread``: pocket -> the cards a stuck pair left there unread,
    the ones the operator was asked to take out, when this board has any.

    >>> duplicate_card(Card.parse("S7"), "board 3", 0).message
    "board 3: this deck has two ♠7, or the ♠7 dealt to North's pocket was fed again"
    >>> duplicate_card(Card.parse("S7"), "board 3", 0, {0: [Card.parse("D2")]}).instruction
    "the card to take out of North's pocket is ♦2, never read, not ♠7: put ♠7 back in North's pocket from the reject tray, then look for ♦2"
    """
    if pocket is None:
        return Notice("duplicate", f"{where}: this deck has two {card.symbol}",
                      f"check the deck: take the second {card.symbol} out of the reject tray "
                      "and put it aside", stop=False)
    said = f"{where}: this deck has two {card.symbol}, or the {card.symbol} dealt to {_pocket(pocket)} was fed again"
    if unread:
        names = " and ".join(_pocket(p) for p in sorted(unread))
        cards = _cards(c for cs in unread.values() for c in cs)
        return Notice("duplicate", said,
                      f"the card to take out of {names} is {cards}, never read, not {card.symbol}: put "
                      f"{card.symbol} back in {_pocket(pocket)} from the reject tray, then look for {cards}",
                      stop=False)
    return Notice("duplicate", said,
                  f"if you took {card.symbol} out of {_pocket(pocket)}, put it back there from the reject "
                  f"tray; if not, check the deck: take the second {card.symbol} out of the reject tray "
                  "and put it aside", stop=False)


def joker(where: str) -> Notice:
    return Notice("joker", f"{where}: a joker went to the reject tray",
                  "take the joker out of the deck", stop=False)


def other_deck(where: str, card: Card | None, deck: str | None) -> Notice:
    what = card.symbol if card is not None else "a card"
    frm = f" (deck {deck})" if deck else ""
    return Notice("other_deck", f"{where}: {what} is from another deck{frm}; it went to the "
                  "reject tray", "give it back to its own deck", stop=False)


def face_down(where: str) -> Notice:
    return Notice("face_down", f"{where}: a card came face down; it went to the reject tray",
                  "turn it face up and re-feed it", stop=False)


def extra_card(where: str, card: Card | None) -> Notice:
    what = card.symbol if card is not None else "a card"
    return Notice("extra", f"{where}: the board is full but {what} came to the gate; "
                  "it went to the reject tray", "take it out of the reject tray", stop=False)


def left_over(where: str) -> Notice:
    return Notice("left_over", f"{where}: cards are left on the hopper after the 52 were dealt: "
                  "the deck has too many cards (a second copy, a joker or a stray card)",
                  "take them off the hopper and check the deck before the next board")


def unread_rejects(where: str, count: int) -> Notice:
    return Notice("unread_rejects", f"{where} is complete, but the reject tray holds {count} "
                  f"card{'s' * (count != 1)} never read: the deck had more than 52 cards "
                  "(a second copy or a stray card)",
                  "take them out of the reject tray and check the deck before the next board")


def _pocket(pocket: int) -> str:
    return f"{Seat(pocket).title}'s pocket"


def _fell_unread(card: Card | None, pocket: int, held: int, tail: str) -> str:
    """How a stuck pair's unread card is said, at the drop (deal and scan alike)."""
    how = (f"a card came stuck to {card.symbol} and fell unread into" if card is not None
           else "a card fell unread into")
    return f"{how} {_pocket(pocket)} (it holds {held} cards, {tail})"


def _holds(pocket: int, held: int, tail: str) -> str:
    return f"{_pocket(pocket)} holds {held} cards where {tail}"


def _routed(counts: tuple[int, int, int, int]) -> str:
    return ", ".join(f"{Seat(p).title} {n}" for p, n in enumerate(counts))


def missing_cards(cards: list[Card], where: str,
                  routed: tuple[int, int, int, int] | None = None) -> Notice:
    """The hopper is empty and cards were never read; no pocket sensor points at one.

    A card that never came to the gate may still be in a pocket: two cards stuck
    together, so well aligned that the thickness sensor missed them, fall into the
    pocket the top one was routed to. ``routed`` is what the journal put in each pocket.

    >>> n = missing_cards([Card.parse("D2")], "board 3", (13, 12, 13, 13))
    >>> n.instruction.split(":")[0]
    'it may be in a pocket, stuck to another card'
    """
    n = len(cards)
    per = (f"the journal routed {_routed(routed)}" if routed is not None
           else "13 cards each")
    return Notice("missing", f"{where}: the hopper is empty but {n} card{'s' * (n != 1)} "
                  f"{'was' if n == 1 else 'were'} never read: {_cards(cards)}",
                  f"{'it' if n == 1 else 'they'} may be in a pocket, stuck to another card: count "
                  f"each pocket ({per}; a pocket holding more holds a card never read), and look "
                  "in the reject tray and under the machine; take out what you find, put "
                  f"{'it' if n == 1 else 'them'} on the hopper, then continue", stop=True)


def stuck_card(where: str, cards: list[Card],
               pockets: dict[int, tuple[int, int, list[Card]]]) -> Notice:
    """The hopper is empty, cards were never read, and pocket sensors count more cards than
    the journal routed there: a stuck pair put an unread card in that pocket.

    ``pockets``: pocket -> (cards its sensor counts, cards routed there, the read cards
    whose drop made it grow by more than one).

    >>> n = stuck_card("board 3", [Card.parse("D2")], {0: (14, 13, [Card.parse("S7")])})
    >>> n.message
    "board 3: 1 card was never read (♦2); North's pocket holds 14 cards where 13 were routed: 1 card went in unread, stuck to ♠7"
    >>> n.instruction
    "look through North's pocket for ♦2 and take it out (North's pocket then holds 13 cards), put it on the hopper, then continue; if it is not there, look in the reject tray and under the machine"
    """
    n = len(cards)
    said = []
    for p, (held, routed, tops) in sorted(pockets.items()):
        extra = held - routed
        to = f"stuck to {_cards(tops)}" if tops else "stuck to another card"
        said.append(_holds(p, held, f"{routed} were routed") + f": {extra} "
                    f"card{'s' * (extra != 1)} went in unread, {to}")
    names = " and ".join(_pocket(p) for p in sorted(pockets))
    then = ", ".join(f"{_pocket(p)} then holds {routed} cards"
                     for p, (_, routed, _) in sorted(pockets.items()))
    it = "it" if n == 1 else "them"
    return Notice("stuck_card", f"{where}: {n} card{'s' * (n != 1)} {'was' if n == 1 else 'were'} "
                  f"never read ({_cards(cards)}); " + "; ".join(said),
                  f"look through {names} for {_cards(cards)} and take {it} out ({then}), put "
                  f"{it} on the hopper, then continue; if {'it is' if n == 1 else 'one is'} not "
                  "there, look in the reject tray and under the machine", stop=True)


def stuck_pair(where: str, pocket: int, card: Card, held: int, routed: int) -> Notice:
    """At the drop: the pocket's sensor grew by more than the one card read.

    >>> stuck_pair("board 3", 0, Card.parse("S7"), 6, 5).message
    "board 3: a card came stuck to ♠7 and fell unread into North's pocket (it holds 6 cards, 5 were routed there)"
    """
    return Notice("stuck_pair", f"{where}: " + _fell_unread(card, pocket, held, f"{routed} were routed there"),
                  "nothing to do now: when the hopper is empty you will be told which card to "
                  "take out of the pocket; the board is not finished until it is read")


def pocket_counts_differ(held: tuple[int, int, int, int], routed: tuple[int, int, int, int],
                         stuck: dict[int, list[Card]]) -> str:
    """Why a full board is not done: its pocket sensors disagree with the journal.

    >>> pocket_counts_differ((14, 13, 13, 13), (13, 13, 13, 13), {0: [Card.parse("S7")]})
    "North's pocket holds 14 cards but 13 were read into it (a card came stuck to ♠7)"
    """
    said = []
    for p in range(4):
        if held[p] != routed[p]:
            why = f" (a card came stuck to {_cards(stuck[p])})" if stuck.get(p) else ""
            said.append(f"{_pocket(p)} holds {held[p]} cards but {routed[p]} were read into it{why}")
    return "; ".join(said)


#: A scan's hands are told apart by order: after an unread card it starts again.
RESCAN = ("take the board out; stack its cards back in the order they were fed, the first card "
          "on top: North's pocket, then East's, South's and West's, then the reject tray (each "
          "pile in the order its cards fell); put that stack on top of the cards still on the "
          "hopper and insert the board again")

#: What a scan that cannot be trusted does not give, by scan mode.
NOT_KEPT = {"record": "no deal is recorded", "verify": "nothing is compared with the record",
            "play": "no play is rebuilt"}


def _order_lost(mode: str, tense: str = "would be") -> str:
    return (f"every card after it {tense} counted one place early, so the hands can no longer be "
            f"told apart by order: {NOT_KEPT.get(mode, 'nothing is kept')}, and the board is "
            "scanned again from the start")


def scan_stuck_pair(where: str, mode: str, pocket: int, card: Card | None, held: int,
                    read: int) -> Notice:
    """A scan (verify, record, play): a pocket holds more cards than were read into it.

    The hands are fed in order and told apart by counting, so the card never read
    shifts every later card: the scan is void and starts again. ``card`` is the card
    read whose drop made the pocket grow by two (``None``: not known).

    >>> n = scan_stuck_pair("board 3", "record", 0, Card.parse("S7"), 6, 5)
    >>> n.message
    "board 3: a card came stuck to ♠7 and fell unread into North's pocket (it holds 6 cards, 5 were read into it); every card after it would be counted one place early, so the hands can no longer be told apart by order: no deal is recorded, and the board is scanned again from the start"
    >>> n.code, n.stop, n.instruction == RESCAN
    ('rescan', True, True)
    """
    tail = f"{read} {'was' if read == 1 else 'were'} read into it"
    return Notice("rescan", f"{where}: {_fell_unread(card, pocket, held, tail)}; {_order_lost(mode)}",
                  RESCAN, stop=True)


def scan_stuck_card(where: str, mode: str, placed: int,
                    pockets: dict[int, tuple[int, int]]) -> Notice:
    """A scan's hopper is empty and the pocket sensors count more cards than were read.

    ``pockets``: pocket -> (cards its sensor counts, cards read into it).

    >>> scan_stuck_card("board 3", "verify", 51, {0: (14, 13)}).message
    "board 3: the hopper is empty after 51 of 52 cards, but North's pocket holds 14 cards where 13 were read into it (a card came stuck to another and fell in unread); every card after it was counted one place early, so the hands can no longer be told apart by order: nothing is compared with the record, and the board is scanned again from the start"
    """
    said = "; ".join(_holds(p, held, f"{read} {'was' if read == 1 else 'were'} read into it")
                     for p, (held, read) in sorted(pockets.items()))
    return Notice("rescan", f"{where}: the hopper is empty after {placed} of 52 cards, but {said} "
                  f"(a card came stuck to another and fell in unread); {_order_lost(mode, 'was')}",
                  RESCAN, stop=True)


def refeed_rejects(where: str, count: int) -> Notice:
    return Notice("refeed", f"{where}: the reject tray holds {count} card{'s' * (count != 1)} "
                  "this board may still need", "re-feed: put them back on the hopper, then "
                  "continue", stop=True)


def same_back(where: str, deck: str) -> Notice:
    return Notice("same_back", f"{where}: this deck has the same back design ({deck}) as the "
                  "previous deck", "keep the two decks apart; to be safe, turn on stop cards "
                  "(--stop-card) and put one card face down between decks", stop=False)


def stop_card_early(where: str, cards: list[Card]) -> Notice:
    return Notice("missing", f"{where}: the stop card came before the deck was complete; "
                  f"missing {_cards(cards)}", "find the missing cards, put them on the hopper "
                  "before the stop card, then continue", stop=True)


# ----------------------------------------------------------------------------- boards
def insert_board(label: str) -> Notice:
    return Notice("insert", f"insert {label}", "put an empty board in and a deck on the hopper",
                  stop=True)


def wrong_board(got: int | None, label: str, expected: int) -> Notice:
    what = "a board whose sticker cannot be read" if got is None else f"board {got}"
    return Notice("wrong_board", f"{what} was inserted, but the machine expects board {expected}",
                  f"take it out and insert {label}", stop=True)


def not_in_plan(got: int | None, plan: str) -> Notice:
    if got is None:
        return Notice("wrong_board", "the board's sticker cannot be read",
                      "take the board out and insert it again with the sticker facing the reader",
                      stop=True)
    return Notice("wrong_board", f"board {got} is not in this job ({plan}) or all its copies "
                  "are dealt", "take it out and insert a board the job still needs", stop=True)


def board_done(label: str, nxt: str | None) -> Notice:
    then = f"insert {nxt}" if nxt else "the job is finished"
    return Notice("board_done", f"{label} is dealt and checked", f"take it out; {then}")


def board_pulled(label: str, cards: int) -> Notice:
    return Notice("board_pulled", f"{label} was taken out after {cards} of 52 cards",
                  "empty its pockets and the reject tray onto the hopper and insert it again; "
                  "it will be dealt from the start", stop=True)


def resume_board(label: str, cards: int) -> Notice:
    return Notice("resume", f"{label}: resuming after {cards} of 52 cards; the pockets agree "
                  "with the journal", "continue")


def restart_board(label: str, why: str) -> Notice:
    return Notice("restart", f"{label} cannot be resumed: {why}",
                  "take the board out, put every card from its pockets and the reject tray back "
                  "on the hopper, and insert it again; it will be dealt from the start", stop=True)


def job_done(boards: int) -> Notice:
    return Notice("finished", f"all {boards} boards are dealt and checked")


# ----------------------------------------------------------------------------- machine
def misfeed(attempt: int) -> Notice:
    return Notice("misfeed", f"the feeder slipped (attempt {attempt}); the machine tries again",
                  "if it keeps slipping, clean the feed roller")


def jam() -> Notice:
    return Notice("jam", "a card is jammed in the feed path",
                  "open the cover, pull the card out, put it on top of the hopper and close the "
                  "cover", stop=True)


def cover_open() -> Notice:
    return Notice("cover_open", "the cover is open", "close the cover to continue", stop=True)


def double_feed(cards: int) -> Notice:
    return Notice("double_feed", f"{cards} cards were fed together and went to the reject tray "
                  "before the camera", "put them back on top of the hopper, then continue",
                  stop=True)


def hopper_empty(where: str) -> Notice:
    return Notice("hopper_empty", f"{where}: the hopper is empty", "load a deck, then continue",
                  stop=True)


def link_lost(detail: str) -> Notice:
    return Notice("link_lost", detail, "check the cable; the machine resumes by itself when it "
                  "answers again")


def power_cut() -> Notice:
    return Notice("power_cut", "the machine restarted (power cut); the pockets were checked "
                  "against the journal", "continue")


def machine_broken(detail: str) -> Notice:
    return Notice("machine_fault", f"{detail}; it moves no more cards",
                  "switch the machine off and on again, then deal the set again: the job "
                  "resumes from its journal", stop=True)


def aborted() -> Notice:
    return Notice("aborted", "aborted by the director",
                  "take the boards out; dealing this set again resumes where the journal "
                  "stopped", stop=True)


def paused() -> Notice:
    return Notice("paused", "paused by the director: the machine finished the card in hand "
                  "and feeds no more", "press Resume to go on", stop=True)


def journal_failed(detail: str) -> Notice:
    return Notice("journal_failed", f"the journal cannot be written ({detail}); the machine is "
                  "stopped and no card was routed that is not recorded",
                  "free disk space or close the program holding the database, then restart "
                  "the job: it resumes from the journal", stop=True)


def camera_failed(detail: str) -> Notice:
    return Notice("camera_failed", f"the camera gave no picture of the card ({detail}); it went "
                  "to the reject tray", "check the camera, then re-feed the card", stop=False)
