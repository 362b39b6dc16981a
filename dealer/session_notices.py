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
'board 3: the deck is missing 2 cards: ♠7 ♦2'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dealer.cards import Card


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


def duplicate_card(card: Card, where: str) -> Notice:
    return Notice("duplicate", f"{where}: this deck has two {card.symbol}",
                  f"check the deck: take the second {card.symbol} out of the reject tray "
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


def missing_cards(cards: list[Card], where: str) -> Notice:
    n = len(cards)
    return Notice("missing", f"{where}: the deck is missing {n} card{'s' * (n != 1)}: {_cards(cards)}",
                  "find them (under the machine, in the reject tray, in another deck) and put "
                  "them on the hopper, then continue", stop=True)


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
