"""Teaching-set constraints, evaluated on whole batches of deals at once.

A :class:`Batch` wraps the owners array of :func:`dealer.generate.owners_batch`
(shape ``(52, n)``) and computes hand features lazily, as NumPy vectors over
the ``n`` deals: HCP, suit lengths, controls, losers, shape. Constraints are
expressions over those features (see :mod:`dealer.constraint_lang`), per-seat
:class:`SeatSpec` ranges, predealt cards, and, last and slowest, any Python
predicate on a :class:`~dealer.deal.Deal`.

>>> c = Constraints.parse("hcp(north) >= 15 and hcp(north) <= 17 and balanced(north)")
>>> deals = find_deals(c, 2, key=bytes(32), progress=False)
>>> all(15 <= d[Seat.NORTH].hcp <= 17 for d in deals)
True
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from dealer.cards import Card, Suit
from dealer.constraint_lang import compile_expr
from dealer.deal import Deal
from dealer.errors import CardError
from dealer.generate import KeyedStream, OsStream, deal_from_owner_column, owners_batch
from dealer.hand import Hand
from dealer.hand_features import BALANCED, Batch, ConstraintError, shape_table
from dealer.progress import is_terminal
from dealer.seats import Seat

# Defined in dealer.hand_features (so the constraint language needs nothing from here);
# re-exported because callers know them as dealer.constraints.*.
__all__ = ["BALANCED", "Batch", "ConstraintError", "Constraints", "SeatSpec", "find_deals",
           "parse_predeal", "shape_table"]


# --------------------------------------------------------------------------- seat specs
Range = tuple[int, int]


@dataclass
class SeatSpec:
    """Ranges for one seat; ``None`` means no limit.

    >>> SeatSpec(hcp=(15, 17), shape="balanced").describe()
    'hcp 15-17, shape balanced'
    """

    hcp: Range | None = None
    shape: str | None = None
    lengths: dict[Suit, Range] = field(default_factory=dict)
    controls: Range | None = None
    losers: Range | None = None

    def describe(self) -> str:
        parts = []
        if self.hcp:
            parts.append(f"hcp {self.hcp[0]}-{self.hcp[1]}")
        if self.shape:
            parts.append(f"shape {self.shape}")
        for suit, (lo, hi) in self.lengths.items():
            parts.append(f"{suit.symbol} {lo}-{hi}")
        if self.controls:
            parts.append(f"controls {self.controls[0]}-{self.controls[1]}")
        if self.losers:
            parts.append(f"losers {self.losers[0]}-{self.losers[1]}")
        return ", ".join(parts)

    def mask(self, batch: Batch, seat: int) -> np.ndarray:
        ok = np.ones(batch.n, dtype=bool)
        if self.hcp:
            v = batch.hcp(seat)
            ok &= (v >= self.hcp[0]) & (v <= self.hcp[1])
        for suit, (lo, hi) in self.lengths.items():
            v = batch.length(seat, int(suit))
            ok &= (v >= lo) & (v <= hi)
        if self.controls:
            v = batch.controls(seat)
            ok &= (v >= self.controls[0]) & (v <= self.controls[1])
        if self.losers:
            v = batch.losers(seat)
            ok &= (v >= self.losers[0]) & (v <= self.losers[1])
        if self.shape:
            ok &= batch.shape_in(seat, shape_table(self.shape))
        return ok


# --------------------------------------------------------------------------- constraints
@dataclass
class Constraints:
    """Everything a teaching set asks for.

    ``expr`` is a compiled expression (:func:`dealer.constraint_lang.compile_expr`),
    ``seats`` per-seat ranges, ``predeal`` cards fixed to a seat, ``predicate``
    a Python function tried on each candidate that passed the rest.
    """

    seats: dict[Seat, SeatSpec] = field(default_factory=dict)
    predeal: dict[Seat, Hand] = field(default_factory=dict)
    expr: Callable[[Batch], np.ndarray] | None = None
    text: str = ""
    predicate: Callable[[Deal], bool] | None = None
    bounds: dict[tuple, list[int]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, **kw: object) -> Constraints:
        """Compile the expression language (see :mod:`dealer.constraint_lang`)."""
        fn, bounds = compile_expr(text)
        return cls(expr=fn, text=text, bounds=bounds, **kw)  # type: ignore[arg-type]

    def fixed_owners(self) -> np.ndarray | None:
        if not self.predeal:
            return None
        fixed = np.full(52, -1, dtype=np.int8)
        for seat, hand in self.predeal.items():
            if len(hand) > 13:
                raise ConstraintError(f"{seat.title} is predealt {len(hand)} cards, more than 13")
            for card in hand.cards:
                if fixed[card] >= 0:
                    raise ConstraintError(
                        f"{card.symbol} is predealt to both {Seat(int(fixed[card])).title} "
                        f"and {seat.title}")
                fixed[card] = seat
        return fixed

    def check_possible(self) -> None:
        """Reject requests that cannot be met, before dealing a single card."""
        hcp_lo = [0, 0, 0, 0]
        hcp_hi = [37, 37, 37, 37]
        len_lo = [[0] * 4 for _ in range(4)]
        len_hi = [[13] * 4 for _ in range(4)]
        for seat, spec in self.seats.items():
            if spec.hcp:
                hcp_lo[seat] = max(hcp_lo[seat], spec.hcp[0])
                hcp_hi[seat] = min(hcp_hi[seat], spec.hcp[1])
            for suit, (lo, hi) in spec.lengths.items():
                len_lo[seat][suit] = max(len_lo[seat][suit], lo)
                len_hi[seat][suit] = min(len_hi[seat][suit], hi)
        for (kind, seat, *rest), (lo, hi) in self.bounds.items():
            if kind == "hcp" and not rest:
                hcp_lo[seat], hcp_hi[seat] = max(hcp_lo[seat], lo), min(hcp_hi[seat], hi)
            elif kind == "len":
                suit = rest[0]
                len_lo[seat][suit] = max(len_lo[seat][suit], lo)
                len_hi[seat][suit] = min(len_hi[seat][suit], hi)
        for seat, hand in self.predeal.items():
            hcp_lo[seat] = max(hcp_lo[seat], hand.hcp)
            for suit in Suit:
                len_lo[seat][suit] = max(len_lo[seat][suit], hand.suit_length(suit))
        names = [s.title for s in Seat]
        for s in range(4):
            if hcp_lo[s] > hcp_hi[s]:
                raise ConstraintError(
                    f"impossible: {names[s]} needs at least {hcp_lo[s]} and at most {hcp_hi[s]} HCP")
            if sum(len_lo[s]) > 13:
                raise ConstraintError(
                    f"impossible: {names[s]}'s minimum suit lengths add up to {sum(len_lo[s])} cards, "
                    "more than 13")
            if sum(len_hi[s]) < 13:
                raise ConstraintError(
                    f"impossible: {names[s]}'s maximum suit lengths add up to only {sum(len_hi[s])} cards")
            for si in range(4):  # a suit's index (``suit`` above is a Suit)
                if len_lo[s][si] > len_hi[s][si]:
                    raise ConstraintError(
                        f"impossible: {names[s]} needs {len_lo[s][si]} to {len_hi[s][si]} "
                        f"{Suit(si).name.lower()}")
        if sum(hcp_lo) > 40:
            raise ConstraintError(
                f"impossible: the seats need at least {sum(hcp_lo)} HCP together; the deck has 40")
        if sum(hcp_hi) < 40:
            raise ConstraintError(
                f"impossible: the seats may hold at most {sum(hcp_hi)} HCP together; the deck has 40")
        for si in range(4):
            total = sum(len_lo[s][si] for s in range(4))
            if total > 13:
                raise ConstraintError(
                    f"impossible: the seats need at least {total} {Suit(si).name.lower()} "
                    "together; a suit has 13")
        self.fixed_owners()

    def mask(self, batch: Batch) -> np.ndarray:
        ok = np.ones(batch.n, dtype=bool)
        for seat, spec in self.seats.items():
            ok &= spec.mask(batch, seat)
        if self.expr is not None:
            got = self.expr(batch)
            ok &= np.broadcast_to(np.asarray(got, dtype=bool), ok.shape)
        return ok


# --------------------------------------------------------------------------- search
class _Progress:
    """A one-line progress bar on stderr, shown only once a request proves slow."""

    def __init__(self, total: int, enabled: bool, after: float = 1.0) -> None:
        self.total, self.enabled, self.shown, self.after = total, enabled, False, after
        self.start = time.monotonic()

    def update(self, found: int, tried: int) -> None:
        elapsed = time.monotonic() - self.start
        # Off a terminal (a log file, a pipe) the \r redraws would garble it: draw nothing.
        if not self.enabled or not is_terminal() or (elapsed < self.after and not self.shown):
            return
        self.shown = True
        width = 30
        full = int(width * found / max(self.total, 1))
        rate = found / tried if tried else 0
        sys.stderr.write(f"\r[{'#' * full}{'.' * (width - full)}] {found}/{self.total} deals, "
                         f"1 in {1 / rate:,.0f} match, {elapsed:.0f}s" if rate else
                         f"\r[{'.' * width}] {found}/{self.total}, {tried:,} tried, {elapsed:.0f}s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def find_deals(
    constraints: Constraints,
    count: int,
    *,
    key: bytes | None = None,
    max_seconds: float = 60.0,
    max_tries: int = 200_000_000,
    batch_size: int = 65_536,
    progress: bool = True,
    progress_after: float = 1.0,
) -> list[Deal]:
    """``count`` uniformly random deals meeting ``constraints``.

    With ``key`` the result is reproducible (a keyed SHAKE-256 stream); without,
    bytes come from the OS CSPRNG. Deals are taken in the order generated, so
    each is uniform over the deals that satisfy the constraints.

    Raises :class:`ConstraintError` when the request is impossible, or when the
    acceptance rate seen so far says it would take longer than ``max_seconds``.
    """
    found: list[Deal] = []
    for columns in iter_owner_columns(constraints, count, key=key, max_seconds=max_seconds,
                                      max_tries=max_tries, batch_size=batch_size,
                                      progress=progress, progress_after=progress_after):
        found.extend(deal_from_owner_column(columns, i) for i in range(columns.shape[1]))
    return found


def iter_owner_columns(
    constraints: Constraints,
    count: int,
    *,
    key: bytes | None = None,
    max_seconds: float = 60.0,
    max_tries: int = 200_000_000,
    batch_size: int = 65_536,
    progress: bool = True,
    progress_after: float = 1.0,
) -> Iterator[np.ndarray]:
    """The deals of :func:`find_deals`, in the same order, as owner columns ``(52, k)``
    a batch at a time: a caller can write 200,000 deals without holding them all."""
    constraints.check_possible()
    fixed = constraints.fixed_owners()
    stream = KeyedStream(key) if key is not None else OsStream()
    done = 0
    tried = 0
    bar = _Progress(count, progress, progress_after)
    start = time.monotonic()
    try:
        while done < count:
            owners = owners_batch(batch_size, stream, fixed=fixed)
            ok = np.flatnonzero(constraints.mask(Batch(owners)))
            tried += batch_size
            if constraints.predicate is not None:
                ok = np.array([i for i in ok if constraints.predicate(
                    deal_from_owner_column(owners, int(i)))], dtype=np.int64)
            ok = ok[:count - done]
            if len(ok):
                done += len(ok)
                yield owners[:, ok]
            bar.update(done, tried)
            elapsed = time.monotonic() - start
            _check_time(constraints, done, count, tried, elapsed, max_seconds, max_tries)
    finally:
        bar.close()


def _check_time(constraints: Constraints, found: int, count: int, tried: int,
                elapsed: float, max_seconds: float, max_tries: int) -> None:
    what = constraints.text or "these constraints"
    if found >= count:
        return
    if not found:
        if elapsed > max_seconds or tried >= max_tries:
            raise ConstraintError(
                f"no deal among {tried:,} matched {what!r}: the request looks impossible "
                f"or is rarer than 1 in {tried:,}")
        return
    if elapsed < 0.5:
        return
    per_deal = elapsed / found
    eta = per_deal * (count - found)
    if elapsed + eta > max_seconds * 1.05 or tried / found * count > max_tries:
        raise ConstraintError(
            f"{what!r} matches about 1 deal in {tried / found:,.0f}; {count} deals would take "
            f"about {elapsed + eta:,.0f} s, over the limit of {max_seconds:.0f} s "
            "(loosen the constraints or raise --max-seconds)")


def parse_predeal(text: str) -> dict[Seat, Hand]:
    """``"N:AKQ.. S:.AK.."`` or ``"north=SA,HK"`` style predeal specs.

    >>> parse_predeal("N:AK... W:.Q..")[Seat.NORTH].to_pbn()
    'AK...'
    """
    out: dict[Seat, Hand] = {}
    for part in text.split():
        sep = ":" if ":" in part else "="
        if sep not in part:
            raise ConstraintError(f"predeal {part!r} must look like N:AK.QJ.. or N=SA,HK")
        seat_txt, cards = part.split(sep, 1)
        try:
            seat = Seat.parse(seat_txt)
            if cards.count(".") == 3:
                hand = Hand.from_pbn(cards)
            else:
                hand = Hand(Card.parse(c) for c in cards.split(",") if c)
        except CardError as exc:
            raise ConstraintError(f"predeal {part!r}: {exc}") from None
        out[seat] = out.get(seat, Hand()) | hand
    return out
