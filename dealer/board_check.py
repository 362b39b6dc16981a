"""What ``deals check`` finds in a board's auction, result and play, by replaying them.

Every auction goes through :class:`~dealer.auction.Auction` and every play
through :func:`dealer.play_section.read_play`, the rules the rest of
boardwright uses, so a file is called clean only if its calls and cards are
legal (WBF Laws 2017: Law 18 and 27 for bids, Law 19 for doubles, Law 41 for
the opening lead, Law 44 for the tricks). A revoke is not a fault of the file:
it happened at the table, and the record keeps it (Law 61-64).

>>> from dealer.board import Board
>>> from dealer.deal import Deal
>>> b = Board(1, Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"))
>>> b.tags.update({"Auction": "N", "Contract": "1NT", "Declarer": "N", "Result": "14"})
>>> b.sections["Auction"] = "1H 1D Pass Pass Pass"
>>> for fault in board_faults(b): print(fault)
board 1, auction, call 2 (E): insufficient bid 1D: it must be higher than 1H
board 1: Result "14" is not a number of tricks from 0 to 13
"""

from __future__ import annotations

import re

from dealer.auction import Auction, AuctionError
from dealer.board import Board
from dealer.contract import Contract
from dealer.errors import BoardwrightError
from dealer.play_section import read_play
from dealer.seats import Seat

__all__ = ["auction_of", "board_faults"]

_NOT_A_CALL = re.compile(r"^(?:=\d+=|\$\d+|[!?]{1,2}|-|\+)$")
_COMMENT = re.compile(r"\{[^}]*\}|;[^\n]*")


def auction_of(board: Board) -> tuple[Auction | None, str | None]:
    """The board's auction replayed call by call, and the first fault (``None`` if legal).

    ``(None, None)`` when the board has no auction.
    """
    dealer_text, text = board.tags.get("Auction", "").strip(), board.sections.get("Auction")
    if not dealer_text or text is None:
        return None, None
    try:
        auction = Auction(Seat.parse(dealer_text))
    except BoardwrightError as e:
        return None, f"auction: the Auction tag: {e}"
    for tok in _COMMENT.sub(" ", text).split():
        if tok == "*":
            break
        if _NOT_A_CALL.match(tok):
            continue
        try:
            if tok.upper() == "AP":
                while not auction.is_complete:
                    auction.call("Pass")
            else:
                auction.call(tok)
        except AuctionError as e:
            return auction, f"auction, {e}"
    return auction, None


def _contract(board: Board, auction: Auction | None) -> tuple[Contract | None, str | None]:
    """The contract the tags give (else the auction's), and a fault if the two disagree."""
    text = board.tags.get("Contract", "").strip()
    from_auction = auction.contract if auction is not None else None
    if not text or text == "?":
        return from_auction, None
    try:
        stated = Contract.parse(text, board.tags.get("Declarer", "").strip() or None)
    except BoardwrightError as e:
        return from_auction, f"the Contract and Declarer tags: {e}"
    if stated.declarer is None and from_auction is not None:
        stated = Contract(stated.level, stated.strain, stated.doubled, from_auction.declarer) \
            if not stated.is_passed_out else stated
    if from_auction is not None and stated != from_auction:
        said = "passed out" if stated.is_passed_out else f"{stated.ascii} by {stated.declarer}"
        got = ("passed out" if from_auction.is_passed_out
               else f"{from_auction.ascii} by {from_auction.declarer}")
        return stated, f"the Contract and Declarer tags say {said}, the auction gives {got}"
    return stated, None


def board_faults(board: Board) -> list[str]:
    """Each fault of the board's auction, contract, result and play, one line each,
    naming the board (and the call or trick)."""
    where = f"board {board.number}"
    faults: list[str] = []
    auction, fault = auction_of(board)
    if fault is not None:
        faults.append(f"{where}, {fault}")
    contract, fault = _contract(board, auction if fault is None else None)
    if fault is not None:
        faults.append(f"{where}: {fault}")
    result = board.tags.get("Result", "").strip()
    tricks: int | None = None
    if result.isdigit():
        tricks = int(result)
        if tricks > 13:
            faults.append(f'{where}: Result "{result}" is not a number of tricks from 0 to 13')
            tricks = None
    leader, text = board.tags.get("Play", "").strip(), board.sections.get("Play")
    if leader and leader != "?" and text and text.strip() not in ("", "*"):
        if contract is None or contract.declarer is None or contract.is_passed_out:
            faults.append(f"{where}: a Play section, but no contract with a declarer")
        else:
            try:
                play = read_play(contract, leader, text, board.deal)
            except BoardwrightError as e:
                faults.append(f"{where}, {e}")
            else:
                # One wrong card (a hand given in the wrong place) puts the rest out of
                # hand too: name the first card fault, count the others.
                cards = [f for f in play.faults if f.startswith("trick")]
                faults += [f"{where}: {f}" for f in play.faults if not f.startswith("trick")]
                if cards:
                    more = f" (and {len(cards) - 1} more in this play)" if len(cards) > 1 else ""
                    faults.append(f"{where}, {cards[0]}{more}")
                if (not play.faults and tricks is not None and len(play.completed_tricks) == 13
                        and play.declarer_tricks != tricks):
                    faults.append(f'{where}: Result "{result}", but declarer took '
                                  f"{play.declarer_tricks} tricks in the play")
    return faults
