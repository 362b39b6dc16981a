"""Secure, reproducible deal generation.

Two generators share one rule: *every one of the*
``D = 52!/(13!)^4 = 53,644,737,765,488,792,839,237,440,000`` *deals is equally
likely*, and all randomness comes from the operating system's CSPRNG or from a
keyed stream derived from a secret that came from it.

**Tournament boards** (:func:`deal_for_board`) follow Big Deal: every deal has
a number in ``[0, D)`` and :func:`unrank` maps numbers to deals one-to-one.
The number for board *b* is the first 96 bits of
``HMAC-SHA256(key, "boardwright-deal-v1" | b | counter)``; a candidate
``>= D`` is thrown away and the counter moves on (rejection, so there is no
modulo bias). Anyone holding the key can re-create the set on any machine.

**Batches** (:func:`owners_batch`, used by teaching sets and benchmarks) deal
whole arrays at once with NumPy: card by card, each card goes to a seat with
probability *cards that seat still needs / cards still undealt*, drawn from
unbiased bytes (rejection sampling again). That is exactly uniform over deals
and, unlike ``argsort`` of random keys, has no ties to break.

>>> key = bytes(32)
>>> deal_for_board(key, 1) == deal_for_board(key, 1)
True
>>> rank(unrank(12345)) == 12345
True
>>> owners_batch(4, KeyedStream(key)).shape
(52, 4)
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from math import comb
from pathlib import Path

import numpy as np

from dealer.board import Board, DealSet
from dealer.deal import Deal
from dealer.errors import BoardwrightError, DealError

#: Number of distinct bridge deals.
DEAL_COUNT = comb(52, 13) * comb(39, 13) * comb(26, 13)
_C52, _C39, _C26 = comb(52, 13), comb(39, 13), comb(26, 13)
_DOMAIN = b"boardwright-deal-v1"
GENERATOR_NAME = "boardwright 0.1.0 (HMAC-SHA256 keyed, rank/unrank, no modulo bias)"


# --------------------------------------------------------------------------- ranking
def _unrank_combination(index: int, pool: list[int], k: int) -> tuple[list[int], list[int]]:
    """The ``index``-th k-subset of ``pool`` in lexicographic order, and what is left."""
    chosen: list[int] = []
    rest: list[int] = []
    n = len(pool)
    for pos, card in enumerate(pool):
        if k == 0:
            rest.extend(pool[pos:])
            break
        # subsets that start by taking this card: C(remaining-1, k-1)
        with_card = comb(n - pos - 1, k - 1)
        if index < with_card:
            chosen.append(card)
            k -= 1
        else:
            index -= with_card
            rest.append(card)
    return chosen, rest


def _rank_combination(chosen: set[int], pool: list[int], k: int) -> int:
    index = 0
    n = len(pool)
    for pos, card in enumerate(pool):
        if k == 0:
            break
        if card in chosen:
            k -= 1
        else:
            index += comb(n - pos - 1, k - 1)
    return index


def unrank(number: int) -> Deal:
    """The deal with this number, ``0 <= number < DEAL_COUNT`` (a bijection).

    North's hand is the ``number mod C(52,13)``-th 13-card subset of the deck,
    East's is chosen from the 39 left, South's from 26; West gets the rest.
    """
    if not 0 <= number < DEAL_COUNT:
        raise DealError(f"deal number {number} is outside 0..{DEAL_COUNT - 1}")
    number, i_n = divmod(number, _C52)
    i_s, i_e = divmod(number, _C39)
    pool = list(range(52))
    masks = []
    for idx in (i_n, i_e, i_s):
        chosen, pool = _unrank_combination(idx, pool, 13)
        masks.append(sum(1 << c for c in chosen))
    masks.append(sum(1 << c for c in pool))
    return Deal.from_bits(masks[0] | masks[1] << 52 | masks[2] << 104 | masks[3] << 156,
                          validate=False)


def rank(deal: Deal) -> int:
    """The number of a full deal; inverse of :func:`unrank`."""
    pool = list(range(52))
    idx = []
    for seat in range(3):
        held = {c for c in range(52) if deal.bits >> (52 * seat + c) & 1}
        idx.append(_rank_combination(held, pool, 13))
        pool = [c for c in pool if c not in held]
    return idx[0] + _C52 * (idx[1] + _C39 * idx[2])


# --------------------------------------------------------------------------- keyed boards
def new_secret() -> bytes:
    """32 bytes (256 bits) from the OS CSPRNG; Big Deal uses 160 bits, we use more."""
    return secrets.token_bytes(32)


def deal_for_board(key: bytes, board: int) -> Deal:
    """The deal of ``board`` under ``key``: HMAC-SHA256 counter stream, rejection to ``D``."""
    counter = 0
    while True:
        msg = _DOMAIN + board.to_bytes(4, "big") + counter.to_bytes(4, "big")
        number = int.from_bytes(hmac.new(key, msg, hashlib.sha256).digest()[:12], "big")
        if number < DEAL_COUNT:  # accepted with probability D / 2**96 ~ 0.68
            return unrank(number)
        counter += 1


def keyed_dealset(key: bytes, numbers: Iterable[int], *, event: str = "") -> DealSet:
    """A set whose every board is :func:`deal_for_board` of ``key``."""
    boards = [Board(n, deal_for_board(key, n)) for n in numbers]
    meta = {"Generator": GENERATOR_NAME}
    if event:
        meta["Event"] = event
    return DealSet(boards=boards, meta=meta)


def secret_fingerprint(secret: bytes) -> str:
    """A public name for a secret (SHA-256 with a domain tag); reveals nothing about it."""
    return hashlib.sha256(b"boardwright-secret-fingerprint-v1:" + secret).hexdigest()


class SecretRegistry:
    """The fingerprints of every secret this installation has dealt from, one per line.

    Reusing a secret would repeat a set, so :meth:`claim` refuses a fingerprint
    it has seen. The file lives in the instance folder and is only appended to.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def seen(self, secret: bytes) -> bool:
        fp = secret_fingerprint(secret)
        try:
            return any(line.split()[0] == fp for line in self.path.read_text().splitlines()
                       if line.strip())
        except FileNotFoundError:
            return False

    def claim(self, secret: bytes, label: str = "") -> str:
        """Record ``secret`` as used; raise if it was used before."""
        fp = secret_fingerprint(secret)
        if self.seen(secret):
            raise BoardwrightError(
                f"this secret (fingerprint {fp[:16]}…) was already used for a set; "
                "a new set needs a new secret")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{fp} {label}".rstrip() + "\n")
        return fp


def default_registry() -> SecretRegistry:
    try:
        from dealer.config import instance_path
        folder = instance_path()
    except ImportError:  # config not present in a minimal install
        folder = Path(os.environ.get("BOARDWRIGHT_INSTANCE") or "instance").resolve()
    return SecretRegistry(folder / "used-secrets.txt")


# --------------------------------------------------------------------------- batches
class OsStream:
    """Random bytes straight from the OS CSPRNG (``os.urandom``)."""

    def read(self, n: int) -> np.ndarray:
        return np.frombuffer(os.urandom(n), dtype=np.uint8)


class KeyedStream:
    """A reproducible byte stream: SHAKE-256 of the key and a block counter.

    The same key always yields the same bytes, so a teaching set can be re-made
    from its recorded secret.
    """

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.block = 0

    def read(self, n: int) -> np.ndarray:
        h = hashlib.shake_256(b"boardwright-stream-v1:" + self.key + self.block.to_bytes(8, "big"))
        self.block += 1
        return np.frombuffer(h.digest(n), dtype=np.uint8)


def owners_batch(
    n: int,
    stream: OsStream | KeyedStream | None = None,
    *,
    fixed: np.ndarray | None = None,
) -> np.ndarray:
    """Deal ``n`` uniformly random deals at once; returns owners, shape ``(52, n)``, uint8.

    ``owners[card, i]`` is the seat (0=N … 3=W) holding ``card`` in deal ``i``.
    ``fixed`` (52 int8, -1 = free) predeals cards; the rest is uniform among the
    deals that agree with it. The card-major layout keeps each step contiguous.
    """
    stream = stream or OsStream()
    out = np.empty((52, n), dtype=np.uint8)
    need = [13, 13, 13, 13]
    free = list(range(52))
    if fixed is not None:
        free = []
        for card in range(52):
            seat = int(fixed[card])
            if seat < 0:
                free.append(card)
            else:
                out[card] = seat
                need[seat] -= 1
        if min(need) < 0:
            raise DealError("the predealt cards give a seat more than 13 cards")
    m_total = len(free)
    if m_total == 0:
        return out
    # a, b, c: cards still owed to N, N+E, N+E+S in each deal; a draw u in
    # [0, cards left) goes to N if u < a, E if u < b, S if u < c, else W.
    a = np.full(n, need[0], dtype=np.uint8)
    b = np.full(n, need[0] + need[1], dtype=np.uint8)
    c = np.full(n, need[0] + need[1] + need[2], dtype=np.uint8)
    raw = stream.read(m_total * n).reshape(m_total, n).copy()  # frombuffer is read-only
    ge = np.empty(n, dtype=bool)
    for k, card in enumerate(free):
        left = m_total - k
        u = raw[k]
        if left > 1:
            limit = (256 // left) * left
            bad = np.flatnonzero(u >= limit)
            while bad.size:  # rejection: bytes beyond the last full multiple would bias
                u[bad] = stream.read(bad.size)
                bad = bad[u[bad] >= limit]
            np.remainder(u, left, out=u)
        else:
            u[:] = 0
        row = out[card]
        np.greater_equal(u, a, out=ge)
        np.subtract(a, ~ge, out=a, casting="unsafe")
        row[:] = ge
        np.greater_equal(u, b, out=ge)
        np.subtract(b, ~ge, out=b, casting="unsafe")
        row += ge
        np.greater_equal(u, c, out=ge)
        np.subtract(c, ~ge, out=c, casting="unsafe")
        row += ge
    return out


def deal_from_owner_column(owners: np.ndarray, i: int) -> Deal:
    """Deal ``i`` of an ``owners_batch`` result as a :class:`Deal`."""
    col = owners[:, i]
    masks = [0, 0, 0, 0]
    for card in range(52):
        masks[col[card]] |= 1 << card
    return Deal.from_bits(masks[0] | masks[1] << 52 | masks[2] << 104 | masks[3] << 156)


def owners_from_deals(deals: list[Deal]) -> np.ndarray:
    """Full deals as an owners array ``(52, n)``, the layout of :func:`owners_batch`."""
    mask = (1 << 52) - 1
    hands = np.array([[d.bits >> (52 * s) & mask for s in range(4)] for d in deals],
                     dtype=np.uint64).reshape(len(deals), 4)
    cards = np.arange(52, dtype=np.uint64)
    owners = np.zeros((52, len(deals)), dtype=np.uint8)
    for s in range(1, 4):
        owners += ((hands[:, s][None, :] >> cards[:, None]) & np.uint64(1)).astype(np.uint8) * s
    return owners


# --------------------------------------------------------------------------- simple API
def random_deal() -> Deal:
    """One uniformly random deal from the OS CSPRNG (no secret kept)."""
    return deal_for_board(new_secret(), 1)


def random_dealset(numbers: Iterable[int], *, event: str = "") -> DealSet:
    """A fresh set from a new random secret that is not recorded (demos, tests)."""
    return keyed_dealset(new_secret(), numbers, event=event)


# --------------------------------------------------------------------------- uniformity checks
def card_seat_counts(owners: np.ndarray) -> np.ndarray:
    """How often each card (rows, ♣2 first) went to each seat (columns N E S W)."""
    return np.stack([np.count_nonzero(owners == s, axis=1) for s in range(4)], axis=1)


def shape_counts(owners: np.ndarray, seat: int = 0) -> dict[tuple[int, ...], int]:
    """How often ``seat`` held each hand pattern (lengths sorted longest first)."""
    lengths = np.stack([np.count_nonzero(owners[s * 13:(s + 1) * 13] == seat, axis=0)
                        for s in range(4)])
    patterns = -np.sort(-lengths, axis=0)
    codes = ((patterns[0] * 14 + patterns[1]) * 14 + patterns[2]) * 14 + patterns[3]
    values, counts = np.unique(codes, return_counts=True)
    out: dict[tuple[int, ...], int] = {}
    for v, n in zip(values.tolist(), counts.tolist(), strict=True):
        out[(v // 2744, v // 196 % 14, v // 14 % 14, v % 14)] = n
    return out


def shape_probabilities() -> dict[tuple[int, ...], float]:
    """Exact probability of each hand pattern: orderings × ∏C(13, len) / C(52, 13)."""
    from itertools import permutations

    probs: dict[tuple[int, ...], float] = {}
    total = comb(52, 13)
    for a in range(14):
        for b in range(a + 1):
            for c in range(b + 1):
                d = 13 - a - b - c
                if 0 <= d <= c:
                    orders = len(set(permutations((a, b, c, d))))
                    ways = comb(13, a) * comb(13, b) * comb(13, c) * comb(13, d)
                    probs[(a, b, c, d)] = orders * ways / total
    return probs


def chi_square_sf(stat: float, df: int) -> float:
    """P(X >= stat) for X ~ chi-square(df): the regularised upper gamma Q(df/2, stat/2)."""
    from math import exp, lgamma, log

    a, x = df / 2.0, stat / 2.0
    if x <= 0:
        return 1.0
    if x < a + 1:  # series for the lower part, then complement
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if term < total * 1e-15:
                break
        return max(0.0, 1.0 - total * exp(-x + a * log(x) - lgamma(a)))
    # continued fraction (Lentz) for the upper part
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return exp(-x + a * log(x) - lgamma(a)) * h


def card_seat_test(owners: np.ndarray) -> tuple[float, int, float]:
    """Chi-square of card-to-seat counts against 1/4 each: (statistic, df, p-value).

    Within one deal the 52 cards fill each seat with exactly 13, so a deal is a
    52×4 table with fixed margins; its Pearson statistic has (52-1)(4-1) = 153
    degrees of freedom and, for draws without replacement, is scaled by 51/52.
    """
    counts = card_seat_counts(owners).astype(float)
    expected = owners.shape[1] / 4
    stat = float(((counts - expected) ** 2 / expected).sum()) * 51 / 52
    return stat, 153, chi_square_sf(stat, 153)


def shape_test(owners: np.ndarray, seat: int = 0) -> tuple[float, int, float]:
    """Chi-square of ``seat``'s hand patterns against their exact probabilities.

    Patterns expected fewer than 5 times are pooled into one class.
    """
    n = owners.shape[1]
    seen = shape_counts(owners, seat)
    stat, classes, pooled_o, pooled_e = 0.0, 0, 0.0, 0.0
    for pattern, p in shape_probabilities().items():
        e, o = n * p, seen.get(pattern, 0)
        if e < 5:
            pooled_o, pooled_e = pooled_o + o, pooled_e + e
            continue
        stat += (o - e) ** 2 / e
        classes += 1
    if pooled_e > 0:
        stat += (pooled_o - pooled_e) ** 2 / pooled_e
        classes += 1
    return stat, classes - 1, chi_square_sf(stat, classes - 1)
