"""Duplicate scoring of one deal, by WBF Law 77 (Laws of Duplicate Bridge 2017).

The score is split into its Law 77 parts (:class:`ScoreParts`) because rubber
and Chicago scoring reuse the same trick, overtrick, undertrick, slam and
insult values and differ only in the game and part-score premiums.

>>> from dealer.contract import Contract
>>> duplicate_score(Contract.parse("2S"), 8, vulnerable=False)     # seed 002: 110
110
>>> duplicate_score(Contract.parse("4H"), 10, vulnerable=False)    # seed 002: 420
420
>>> duplicate_score(Contract.parse("4H"), 10, vulnerable=True)     # seed 002: 620
620
>>> duplicate_score(Contract.parse("3NTX"), 6, vulnerable=True)    # three down doubled
-800
>>> from dealer.seats import Vulnerability
>>> score_ns(Contract.parse("4S E"), 11, Vulnerability.EW)
-650
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer.cards import Strain
from dealer.contract import Contract, ContractError
from dealer.seats import Vulnerability


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """The Law 77 parts of one deal's score, all for the declaring side.

    ``undertricks`` is positive: it is what the defenders score. ``game`` holds
    the game premium (300/500) or the part-score premium (50), which only
    duplicate scoring uses.
    """

    contract_points: int = 0   # trick score for the odd tricks bid (below the line)
    overtricks: int = 0
    insult: int = 0            # 50 for making a doubled, 100 a redoubled contract
    slam: int = 0
    game: int = 0
    undertricks: int = 0

    @property
    def declarer_total(self) -> int:
        """The net score for declarer's side: negative when the contract failed."""
        made = self.contract_points + self.overtricks + self.insult + self.slam + self.game
        return made - self.undertricks


def trick_value(strain: Strain, doubled: int, trick_number: int) -> int:
    """Law 77 trick score for the ``trick_number``-th odd trick (1-based).

    >>> trick_value(Strain.NOTRUMP, 0, 1), trick_value(Strain.NOTRUMP, 0, 2)
    (40, 30)
    >>> trick_value(Strain.CLUBS, 2, 1)
    80
    """
    if strain is Strain.NOTRUMP:
        base = 40 if trick_number == 1 else 30
    elif strain in (Strain.HEARTS, Strain.SPADES):
        base = 30
    else:
        base = 20
    return base << doubled  # doubled x2, redoubled x4


def contract_trick_points(contract: Contract) -> int:
    """The trick score for the odd tricks bid, as if made (below the line in rubber).

    >>> contract_trick_points(Contract.parse("3NT")), contract_trick_points(Contract.parse("2HX"))
    (100, 120)
    """
    if contract.is_passed_out:
        return 0
    assert contract.strain is not None
    return sum(trick_value(contract.strain, contract.doubled, i)
               for i in range(1, contract.level + 1))


def undertrick_penalty(down: int, doubled: int, vulnerable: bool) -> int:
    """What the defenders score when declarer is ``down`` tricks short (Law 77).

    >>> [undertrick_penalty(n, 1, False) for n in range(1, 6)]
    [100, 300, 500, 800, 1100]
    >>> [undertrick_penalty(n, 1, True) for n in range(1, 5)]
    [200, 500, 800, 1100]
    """
    if down <= 0:
        return 0
    if doubled == 0:
        return down * (100 if vulnerable else 50)
    if vulnerable:
        penalty = 200 + 300 * (down - 1)
    else:
        # Non-vulnerable doubled: 100, then 200 each for the 2nd and 3rd,
        # then 300 each from the 4th (200 + the Law 77 "extra 100").
        penalty = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
    return penalty * (2 if doubled == 2 else 1)


def score_parts(contract: Contract, tricks: int, vulnerable: bool) -> ScoreParts:
    """Every Law 77 part of the score for ``tricks`` taken by declarer (0-13)."""
    if not 0 <= tricks <= 13:
        raise ContractError(f"{tricks} tricks is impossible: a deal has 0 to 13")
    if contract.is_passed_out:
        return ScoreParts()
    assert contract.strain is not None
    need = contract.tricks_needed
    if tricks < need:
        return ScoreParts(undertricks=undertrick_penalty(need - tricks, contract.doubled,
                                                         vulnerable))
    points = contract_trick_points(contract)
    extra = tricks - need
    if contract.doubled == 0:
        # Undoubled overtricks are worth the trick value (30 at NT, not 40).
        over = extra * trick_value(contract.strain, 0, 2)
    else:
        over = extra * (100 if not vulnerable else 200) * contract.doubled
    insult = (0, 50, 100)[contract.doubled]
    slam = 0
    if contract.level == 6:
        slam = 750 if vulnerable else 500
    elif contract.level == 7:
        slam = 1500 if vulnerable else 1000
    game = (500 if vulnerable else 300) if points >= 100 else 50
    return ScoreParts(points, over, insult, slam, game, 0)


def duplicate_score(contract: Contract, tricks: int, vulnerable: bool) -> int:
    """Law 77 duplicate score for declarer's side; negative when the contract fails.

    ``tricks`` is the total declarer took (0-13), not over- or undertricks.
    A passed-out deal scores 0.
    """
    return score_parts(contract, tricks, vulnerable).declarer_total


def score_ns(contract: Contract, tricks: int, vulnerability: Vulnerability) -> int:
    """The duplicate score from North-South's point of view (as travellers write it).

    Needs ``contract.declarer`` unless the deal was passed out.
    """
    if contract.is_passed_out:
        return 0
    if contract.declarer is None:
        raise ContractError(f"contract {contract.ascii} has no declarer; cannot score it for NS")
    score = duplicate_score(contract, tricks, vulnerability.is_vulnerable(contract.declarer))
    return score if contract.declarer.is_ns else -score
