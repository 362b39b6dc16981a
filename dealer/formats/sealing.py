"""Sealed sets on the way out: no writer puts a hand of a sealed set in a file unless told to.

Every deal-file writer (``pbn``, ``lin``, ``dlm``, ``dup``, ``bri``, ``dge``)
first passes its set through :func:`for_writing`. A set is sealed when
``DealSet.sealed`` says so (Big Deal's blind DUP, DLM ``Status=Sealed``,
``deals new --seal``, the panel's "sealed" box) or when any board carries
boardwright's ``[Sealed "Yes"]`` tag. Then, per format:

* **PBN** writes every board without its hands: no ``Deal`` tag, no play,
  no double-dummy or par tags, each board tagged ``[Sealed "Yes"]`` and the
  file headed by a ``%`` comment. PBN 2.1 has no tag for a sealed deal (its
  ``Hidden`` tag only asks a program not to display hands the file still
  holds), so the tag is boardwright's own; reading the file gives a sealed set.
* **DLM and DUP** must hold every hand (the dealing machine deals from them),
  so they are refused, unless ``unseal`` is given: then the hands are written
  and the file keeps the machine's own seal (``Status=Sealed``, the blind DUP),
  so the machine still shows no cards.
* **LIN, BRI and DGE** have no way to say "sealed" and are refused unless
  ``unseal`` is given; then the hands are written in clear.

``unseal`` is the CLI's ``--unseal``; whoever passes it is responsible for
saying so (the CLI prints a line on stderr and, on the store, writes an audit
row). Nothing else writes a sealed hand.
"""

from __future__ import annotations

from dealer.board import Board, DealSet
from dealer.errors import FormatError

#: boardwright's board tag for a board written without its hands because its set is sealed.
SEALED_TAG = "Sealed"
#: The one line every refusal says, whichever writer refuses.
UNSEAL_HINT = "set is sealed; use --unseal to write the hands"
#: The ``%`` comment heading a PBN file of a sealed set.
PBN_COMMENT = "% boardwright: sealed set; the hands are withheld until the director unseals it"

#: Formats that write a sealed set without its hands, marked sealed.
WITHHOLDING = frozenset({"pbn"})
#: Formats whose files carry every hand and the machine's own seal (``--unseal`` only).
MACHINE_SEALED = frozenset({"dlm", "dup"})

#: Tags and sections that give cards away: the deal itself, the play, and what a
#: double-dummy solver or a hand evaluator worked out from the hands.
HAND_TAGS = frozenset({
    "Deal", "Play", "Hidden", "DoubleDummyTricks", "OptimumResultTable", "OptimumPlayTable",
    "OptimumContract", "OptimumScore", "ParContract", "Minimax", "Ability",
})


class SealedError(FormatError):
    """A writer refused to put a sealed set's hands in a file (no ``--unseal``)."""


def is_sealed(dealset: DealSet) -> bool:
    """Sealed by the set's flag or by any board's ``[Sealed "Yes"]`` tag."""
    return dealset.sealed or any(b.tags.get(SEALED_TAG) == "Yes" for b in dealset)


def policy(fmt: str) -> str:
    """What ``fmt``'s writer does with a sealed set: ``withhold``, ``machine`` or ``refuse``.

    >>> policy("pbn"), policy("dlm"), policy("lin")
    ('withhold', 'machine', 'refuse')
    """
    if fmt in WITHHOLDING:
        return "withhold"
    if fmt in MACHINE_SEALED:
        return "machine"
    return "refuse"


def _tag_name(key: str) -> str:
    return key.split("#", 1)[0]


def withheld(dealset: DealSet) -> DealSet:
    """A copy of ``dealset`` with no hand in it: every board marked ``[Sealed "Yes"]``.

    >>> from dealer.generate import random_dealset
    >>> ds = withheld(random_dealset([1, 2]))
    >>> ds.sealed, [b.deal for b in ds], ds.boards[0].tags["Sealed"]
    (True, [None, None], 'Yes')
    """
    boards = []
    for b in dealset:
        tags = {k: v for k, v in b.tags.items() if _tag_name(k) not in HAND_TAGS}
        tags[SEALED_TAG] = "Yes"
        sections = {k: v for k, v in b.sections.items() if _tag_name(k) not in HAND_TAGS}
        boards.append(Board(b.number, None, b.dealer, b.vulnerability, tags, sections))
    return DealSet(boards, dict(dealset.meta), sealed=True)


def _unmarked(dealset: DealSet, *, sealed: bool) -> DealSet:
    """A copy without boardwright's ``Sealed`` tags (the hands are there to be written)."""
    boards = [Board(b.number, b.deal, b.dealer, b.vulnerability,
                    {k: v for k, v in b.tags.items() if _tag_name(k) != SEALED_TAG},
                    dict(b.sections)) for b in dealset]
    return DealSet(boards, dict(dealset.meta), sealed=sealed)


def for_writing(dealset: DealSet, fmt: str, *, unseal: bool = False) -> DealSet:
    """The set ``fmt``'s writer may write: ``dealset`` itself when it is not sealed.

    A sealed set comes back without its hands (PBN), or the writer is refused
    with :class:`SealedError` naming ``--unseal``; with ``unseal`` the hands
    are written, under the machine's seal for DLM and DUP.
    """
    if not is_sealed(dealset):
        return dealset
    how = policy(fmt)
    if unseal:
        return _unmarked(dealset, sealed=how == "machine")
    if how == "withhold":
        return withheld(dealset)
    why = (f"{fmt} files must hold every hand for the dealing machine" if how == "machine"
           else f"{fmt} files cannot mark a set sealed")
    raise SealedError(f"{UNSEAL_HINT} ({why})", format=fmt)
