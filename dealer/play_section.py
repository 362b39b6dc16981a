"""The PBN ``Play`` section: the one reader and writer of a recorded play.

PBN 2.1 section 3.10: the ``Play`` tag names the opening leader; each line
of the section is one trick, its cards in seat order from that leader (*not*
in the order played), ``-`` for a card not played, ``*`` ends the record. The
leader of each later trick is the winner of the one before, so laying the
cards out, or reading them back, goes through :class:`~dealer.play.Play`.

Every reader and writer of a play (PBN, LIN, the table camera, the scorer's
record, ``deals check``) uses these functions. A card that breaks a rule is
kept where the record puts it and named in :attr:`Play.faults
<dealer.play.Play.faults>`, never moved or dropped.

>>> from dealer.contract import Contract
>>> p = read_play(Contract.parse("4S N"), "E", "D3 DA D2 D4\\nSK S2 S5 SA\\n*")
>>> [str(c) for c in p.card_sequence()], p.faults
(['D3', 'DA', 'D2', 'D4', 'S2', 'S5', 'SA', 'SK'], [])
>>> print(write_play(p))
D3 DA D2 D4
SK S2 S5 SA
*
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dealer.cards import Card, Strain, Suit
from dealer.contract import Contract
from dealer.deal import Deal
from dealer.errors import BoardwrightError
from dealer.play import Play, PlayError
from dealer.seats import Seat

__all__ = ["pbn_play_sequence", "read_play", "section_rows", "write_play"]

_COMMENT = re.compile(r"\{[^}]*\}|;[^\n]*")
_ANNOTATION = re.compile(r"^(?:\$\d+|=\d+=|[!?]{1,2})$")


def section_rows(first: Seat | str, text: str | Iterable[str]) -> list[dict[Seat, Card]]:
    """The section's tricks as {seat: card}, up to ``*``; ``-`` leaves a seat out.

    Comments, NAGs (``$n``), note references and ``!``/``?`` suffixes are not cards.

    >>> [{s.letter: str(c) for s, c in r.items()} for r in section_rows("W", "D3 - D2 D4 {x}")]
    [{'W': 'D3', 'E': 'D2', 'S': 'D4'}]
    """
    first_seat = Seat.parse(first) if isinstance(first, str) else first
    raw = text if isinstance(text, str) else "\n".join(text)
    tokens: list[str] = []
    for tok in _COMMENT.sub(" ", raw).split():
        if tok == "*":
            break
        if not _ANNOTATION.match(tok):
            tokens.append(tok.rstrip("!?"))
    rows: list[dict[Seat, Card]] = []
    for start in range(0, len(tokens), 4):
        row: dict[Seat, Card] = {}
        for i, tok in enumerate(tokens[start:start + 4]):
            seat = first_seat.rotate(i)
            if tok == "-":
                continue
            try:
                row[seat] = Card.parse(tok)
            except BoardwrightError as e:
                raise PlayError(f"PBN play, trick {start // 4 + 1}, {seat.letter}: {e}") from None
        rows.append(row)
    return rows


def read_play(contract: Contract, first: Seat | str, text: str | Iterable[str],
              deal: Deal | None = None) -> Play:
    """Replay a ``Play`` section under ``contract``: every card is kept, each fault is in
    ``play.faults`` with its trick (a card twice, a card its seat does not hold, a Play
    tag that is not declarer's left-hand opponent, a card after an unfinished trick).

    A card that cannot be read raises :class:`~dealer.play.PlayError` naming trick and seat.
    """
    first_seat = Seat.parse(first) if isinstance(first, str) else first
    play = Play(contract, deal, enforce=False)
    if first_seat != play.opening_leader:
        play.faults.append(f"the Play tag names {first_seat.title} as opening leader, but "
                           f"declarer's left-hand opponent is {play.opening_leader.title} "
                           "(Law 41)")
    rows = section_rows(first_seat, text)
    for number, row in enumerate(rows, start=1):
        if play.is_complete:
            play.faults.append(f"trick {number}: the play is already over, "
                               f"{len(row)} more cards are given")
            break
        leader, done = play.current.leader, len(play.completed_tricks)
        for k, seat in enumerate(leader.clockwise()):
            if seat not in row:
                later = [s.title for s in list(leader.clockwise())[k + 1:] if s in row]
                if later:
                    play.faults.append(f"trick {number}: {seat.title}'s card is missing, but "
                                       f"{' and '.join(later)} played after")
                break
            play.record(row[seat])
        if len(play.completed_tricks) > done:
            continue
        if number < len(rows):
            play.faults.append(f"trick {number} is not finished, but {len(rows) - number} "
                               "more tricks follow")
        break
    return play


def pbn_play_sequence(first: Seat | str, text: str | Iterable[str],
                      trump: Suit | None) -> list[Card]:
    """A ``Play`` section's cards in the order played (the leader of each trick is the
    winner of the one before, so the trump is needed).

    >>> [str(c) for c in pbn_play_sequence("W", "D3 DA D2 D4\\nSK S2 S5 SA\\n*", None)]
    ['D3', 'DA', 'D2', 'D4', 'S2', 'S5', 'SA', 'SK']
    """
    first_seat = Seat.parse(first) if isinstance(first, str) else first
    strain = Strain.NOTRUMP if trump is None else Strain(int(trump))
    return read_play(Contract(1, strain, 0, first_seat.rho), first_seat, text).card_sequence()


def write_play(play: Play, *, end_mark: bool = True) -> str:
    """The ``Play`` section of ``play`` (the ``Play`` tag is ``play.opening_leader``):
    a trick a line in seat order from the opening leader, ``-`` for a seat that has
    not played, and ``*`` when fewer than 13 tricks were played (unless ``end_mark``
    is false: the result store keeps the rows alone)."""
    first = play.opening_leader
    rows = []
    for t in play.tricks:
        if not t.cards:
            break
        by_seat = {t.seat_of(i): c for i, c in enumerate(t.cards)}
        rows.append(" ".join(str(by_seat[s]) if s in by_seat else "-" for s in first.clockwise()))
    if end_mark and len(play.completed_tricks) < 13:
        rows.append("*")
    return "\n".join(rows)
