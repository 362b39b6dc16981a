"""Write a large generated set to PBN as it is dealt, without a Deal object per board.

``deals teach`` can ask for 200,000 boards; holding them as :class:`Deal`,
:class:`Board` and one big text costs hundreds of megabytes. Here each batch
of accepted deals arrives as owner columns (the layout of
:func:`dealer.generate.owners_batch`), its deal strings are built with numpy
in one go, and the games are written and forgotten. The bytes are exactly
those of :func:`dealer.formats.pbn.dumps` on the same set (a test checks it).

>>> import numpy as np
>>> owners = np.repeat(np.arange(4, dtype=np.uint8), 13)[:, None]  # clubs N, diamonds E ...
>>> pbn_deal_strings(owners)
['N:...AKQJT98765432 ..AKQJT98765432. .AKQJT98765432.. AKQJT98765432...']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from dealer.board import Board, DealSet
from dealer.deal import Deal
from dealer.errors import FormatError
from dealer.formats import pbn
from dealer.seats import Seat, Vulnerability, board_dealer, board_vulnerability

_RANKS = np.frombuffer(b"23456789TJQKA", dtype=np.uint8)
# Cells per deal: 16 groups (seat N..W, suit S..C) of 13 rank slots and one separator.
_SEPARATOR_GRID = np.array([[ord(".")] * 3 + [ord(" ")]] * 3 + [[ord(".")] * 3 + [ord("\n")]],
                           dtype=np.uint8)  # [seat, suit]: "." between suits, " " between hands


def pbn_deal_strings(columns: np.ndarray) -> list[str]:
    """``"N:..."`` deal strings of owner columns ``(52, k)`` (card 0 = ♣2).

    One numpy pass: a ``(k, seat, suit, 14)`` grid holds each rank character where
    the seat holds it (NUL elsewhere) and a separator in the last cell; dropping
    the NULs from its bytes leaves the strings, one a line.
    """
    k = columns.shape[1]
    if k == 0:
        return []
    by_card = columns.T.reshape(k, 4, 13)[:, ::-1, ::-1]  # [deal, suit S..C, rank A..2]
    seats = np.arange(4, dtype=by_card.dtype)[None, :, None, None]
    cells = np.empty((k, 4, 4, 14), dtype=np.uint8)
    cells[..., :13] = np.where(by_card[:, None, :, :] == seats, _RANKS[::-1], 0)
    cells[..., 13] = _SEPARATOR_GRID
    text = cells.tobytes().replace(b"\x00", b"").decode("ascii")
    return ["N:" + line for line in text.split("\n")[:k]]


def _template(meta: dict[str, str]) -> tuple[str, str]:
    """The directives and one game of ``pbn.dumps`` with markers for the per-board values."""
    probe = Deal.from_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. "
                          "...AKQJT98765432")
    ds = DealSet([Board(1, probe, Seat.NORTH, Vulnerability.NONE)], dict(meta))
    text = pbn.dumps(ds).decode("utf-8")
    directives = pbn._directives(ds)
    game = text[len(directives) + 1:] if directives else text
    for old, new in (('[Board "1"]', '[Board "{n}"]'), ('[Dealer "N"]', '[Dealer "{d}"]'),
                     ('[Vulnerable "None"]', '[Vulnerable "{v}"]'),
                     (f'[Deal "{probe.to_pbn()}"]', '[Deal "{deal}"]')):
        if game.count(old) != 1:
            raise FormatError(f"cannot stream PBN: the writer's game has no single {old}")
        game = game.replace("{", "{{").replace("}", "}}") if old == '[Board "1"]' else game
        game = game.replace(old, new)
    return directives, game


def write_pbn_stream(out: BinaryIO | str | Path, chunks: Iterable[np.ndarray],
                     numbers: Iterable[int], meta: dict[str, str], *,
                     dealer: Seat | None = None,
                     vulnerability: Vulnerability | None = None) -> int:
    """Write the deals of ``chunks`` (owner columns) as boards ``numbers``; returns the count.

    ``dealer`` and ``vulnerability`` override every board's (a ``dealer`` script's
    ``dealer`` and ``vulnerable`` lines); otherwise each board has its number's.
    """
    if not isinstance(out, (str, Path)):
        return _write(out, chunks, iter(numbers), meta, dealer, vulnerability)
    with open(out, "wb") as fh:
        return _write(fh, chunks, iter(numbers), meta, dealer, vulnerability)


def _write(fh: BinaryIO, chunks: Iterable[np.ndarray], numbers: Iterator[int],
           meta: dict[str, str], dealer: Seat | None, vul: Vulnerability | None) -> int:
    directives, game = _template(meta)
    if directives:
        fh.write((directives + "\n").encode("utf-8"))
    # The dealer and vulnerability repeat every 16 boards: one %-template for each.
    game = game.replace("%", "%%").replace("{n}", "%d").replace("{deal}", "%s")
    game = game.replace("{{", "{").replace("}}", "}")
    by_cycle = []
    for n in range(16):
        d = dealer if dealer is not None else board_dealer(n or 16)
        v = vul if vul is not None else board_vulnerability(n or 16)
        by_cycle.append(game.replace("{d}", d.letter).replace("{v}", v.value))
    count = 0
    for columns in chunks:
        # The deals first: zip stops on them without taking a number the next chunk needs.
        parts = [by_cycle[n % 16] % (n, deal)
                 for deal, n in zip(pbn_deal_strings(columns), numbers, strict=False)]
        fh.write("".join(parts).encode("utf-8"))
        count += len(parts)
    return count
