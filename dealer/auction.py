"""The auction of contract bridge, checked call by call.

The rules are those of seed 002 ("The Auction") and the WBF Laws of Duplicate
Bridge 2017: a bid must be higher than the last bid (Law 18, insufficient bid
Law 27); a double only of the last bid, made by an opponent and not yet
doubled (Law 19A); a redouble only of the opponents' double of one's own
side's bid (Law 19B); calls go clockwise from the dealer (call out of rotation,
Laws 28-32). The auction ends after three passes following a bid, or after
four passes (passed out, Law 22). The declarer is the first player of the
side that won the contract to name its strain (Law 1 definitions, seed 002).

Each illegal call raises :class:`AuctionError` with the reason; the auction
is left as it was, so nothing recorded is lost.

>>> a = Auction.from_calls("N", "pass 1H X 3H 3S pass 4S pass pass pass")
>>> a.is_complete, str(a.contract)         # seed 002's example: North declares
(True, '4♠ N')
>>> Auction.from_calls("N", "1S 2H X XX").calls[-1]
Call('XX')
>>> Auction.from_calls("N", "p p p p").contract.is_passed_out
True
>>> try:
...     Auction.from_calls("N", "1H 1D")
... except AuctionError as e:
...     print(e)
call 2 (E): insufficient bid 1D: it must be higher than 1H
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from dealer.cards import Strain
from dealer.contract import PASSED_OUT, Contract
from dealer.errors import BoardwrightError
from dealer.seats import Seat


class AuctionError(BoardwrightError, ValueError):
    """A call is not allowed at this point of the auction; the message says why."""


_PASS_TEXT = {"P", "PASS", "NB", "NO BID", "NOBID", "-"}
_DOUBLE_TEXT = {"X", "D", "DBL", "DOUBLE", "*"}
_REDOUBLE_TEXT = {"XX", "R", "RDBL", "REDOUBLE", "**"}


@dataclass(frozen=True, slots=True)
class Call:
    """One call: a bid (``level`` 1-7 and ``strain``), or ``PASS``, ``X`` or ``XX``.

    ``kind`` is ``"bid"``, ``"pass"``, ``"double"`` or ``"redouble"``.
    """

    kind: str
    level: int = 0
    strain: Strain | None = None

    @classmethod
    def bid(cls, level: int, strain: Strain) -> Call:
        if not 1 <= level <= 7:
            raise AuctionError(f"bid level {level} is not between 1 and 7")
        return cls("bid", level, Strain(strain))

    @classmethod
    def parse(cls, text: str) -> Call:
        """Read ``1H``, ``3NT``, ``1♠``, ``Pass``/``P``/``NB``, ``X``/``Dbl``, ``XX``/``Rdbl``."""
        key = text.strip().upper().rstrip("!?")  # PBN marks alerts with '!'
        if key in _PASS_TEXT:
            return PASS
        if key in _DOUBLE_TEXT:
            return DOUBLE
        if key in _REDOUBLE_TEXT:
            return REDOUBLE
        if len(key) >= 2 and key[0] in "1234567":
            try:
                return cls.bid(int(key[0]), Strain.parse(key[1:]))
            except BoardwrightError:
                pass
        raise AuctionError(f"cannot read call {text!r} (write e.g. 1H, 3NT, Pass, X or XX)")

    @property
    def rank(self) -> int:
        """Order of bids: 1♣ = 0 ... 7NT = 34. Not defined for other calls."""
        assert self.strain is not None
        return (self.level - 1) * 5 + int(self.strain)

    def __str__(self) -> str:
        if self.kind == "bid":
            assert self.strain is not None
            return f"{self.level}{self.strain.letter}"
        return {"pass": "Pass", "double": "X", "redouble": "XX"}[self.kind]

    def __repr__(self) -> str:
        return f"Call({str(self)!r})"


PASS = Call("pass")
DOUBLE = Call("double")
REDOUBLE = Call("redouble")

#: All 35 bids, lowest first.
ALL_BIDS: tuple[Call, ...] = tuple(Call("bid", lv, st) for lv in range(1, 8) for st in Strain)


class Auction:
    """An auction in progress or finished. Append calls with :meth:`call`.

    ``calls`` holds the calls in order; ``calls[i]`` was made by
    ``dealer.rotate(i)``.
    """

    __slots__ = ("dealer", "calls")

    def __init__(self, dealer: Seat | str) -> None:
        self.dealer = Seat.parse(dealer) if isinstance(dealer, str) else Seat(dealer)
        self.calls: list[Call] = []

    @classmethod
    def from_calls(cls, dealer: Seat | str, calls: str | Iterable[Call | str]) -> Auction:
        """Build an auction from calls in order (a string is split on spaces).

        PBN's ``AP`` ("all pass") is accepted and adds the passes that end it.
        """
        auction = cls(dealer)
        items = calls.split() if isinstance(calls, str) else calls
        for item in items:
            if isinstance(item, str) and item.strip().upper() == "AP":
                while not auction.is_complete:
                    auction.call(PASS)
                continue
            auction.call(item)
        return auction

    # -- state ---------------------------------------------------------------
    @property
    def next_seat(self) -> Seat:
        """Whose turn it is to call."""
        return self.dealer.rotate(len(self.calls))

    def _last_bid_index(self) -> int | None:
        for i in range(len(self.calls) - 1, -1, -1):
            if self.calls[i].kind == "bid":
                return i
        return None

    def _doubling(self) -> int:
        """0, 1 or 2: the doubling status of the last bid."""
        status = 0
        last = self._last_bid_index()
        if last is None:
            return 0
        for c in self.calls[last + 1:]:
            if c.kind == "double":
                status = 1
            elif c.kind == "redouble":
                status = 2
        return status

    @property
    def is_complete(self) -> bool:
        n = len(self.calls)
        if self._last_bid_index() is None:
            return n >= 4  # four passes: passed out
        # Three passes after a bid (n >= 4 because the bid itself comes first).
        return n >= 4 and all(c.kind == "pass" for c in self.calls[-3:])

    @property
    def is_passed_out(self) -> bool:
        return self.is_complete and self._last_bid_index() is None

    # -- legality --------------------------------------------------------------
    def why_illegal(self, call: Call, seat: Seat | None = None) -> str | None:
        """The reason ``call`` may not be made now, or ``None`` if it is legal."""
        if self.is_complete:
            return "the auction is over"
        turn = self.next_seat
        if seat is not None and seat != turn:
            return f"call out of turn by {seat.letter}: it is {turn.letter}'s turn"
        last = self._last_bid_index()
        if call.kind == "pass":
            return None
        if call.kind == "bid":
            if last is not None and call.rank <= self.calls[last].rank:
                return f"insufficient bid {call}: it must be higher than {self.calls[last]}"
            return None
        if last is None:
            return f"{call} without a bid to {'double' if call.kind == 'double' else 'redouble'}"
        bidder = self.dealer.rotate(last)
        own_side = bidder.is_ns == turn.is_ns
        status = self._doubling()
        if call.kind == "double":
            if own_side:
                return f"double of {self.calls[last]}, a bid by your own side"
            if status:
                return f"{self.calls[last]} is already {'doubled' if status == 1 else 'redoubled'}"
            return None
        # redouble
        if status == 0:
            return f"redouble of {self.calls[last]}, which has not been doubled"
        if status == 2:
            return f"{self.calls[last]} is already redoubled"
        if not own_side:
            return f"redouble of your own side's double of {self.calls[last]}"
        return None

    def legal_calls(self) -> list[Call]:
        """Every call the player in turn may make (empty when the auction is over)."""
        if self.is_complete:
            return []
        return [c for c in (PASS, DOUBLE, REDOUBLE, *ALL_BIDS) if self.why_illegal(c) is None]

    def call(self, call: Call | str, seat: Seat | str | None = None) -> Call:
        """Make the next call; ``seat`` (optional) is checked against the turn.

        Raises :class:`AuctionError` naming the call number, seat and reason.
        """
        c = Call.parse(call) if isinstance(call, str) else call
        who = Seat.parse(seat) if isinstance(seat, str) else seat
        reason = self.why_illegal(c, who)
        if reason is not None:
            caller = (who if who is not None else self.next_seat).letter
            raise AuctionError(f"call {len(self.calls) + 1} ({caller}): {reason}")
        self.calls.append(c)
        return c

    # -- result ------------------------------------------------------------------
    @property
    def contract(self) -> Contract | None:
        """The final contract with its declarer; ``None`` while the auction runs."""
        if not self.is_complete:
            return None
        last = self._last_bid_index()
        if last is None:
            return PASSED_OUT
        final = self.calls[last]
        side_is_ns = self.dealer.rotate(last).is_ns
        # Declarer: the first player of the winning side to name the strain.
        for i, c in enumerate(self.calls[: last + 1]):
            seat = self.dealer.rotate(i)
            if c.kind == "bid" and c.strain == final.strain and seat.is_ns == side_is_ns:
                assert final.strain is not None
                return Contract(final.level, final.strain, self._doubling(), seat)
        raise AssertionError("unreachable: the final bidder named the strain")

    def by_seat(self) -> Iterator[tuple[Seat, Call]]:
        """(seat, call) pairs in order."""
        for i, c in enumerate(self.calls):
            yield self.dealer.rotate(i), c

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.calls)

    def __repr__(self) -> str:
        return f"Auction({self.dealer.letter!r}, {str(self)!r})"
