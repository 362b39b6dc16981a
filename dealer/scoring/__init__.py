"""Scoring (import ``imps`` from :mod:`dealer.scoring.imps`; it is not re-exported
here so the module name is not shadowed by the function).

Scoring: one deal by WBF Law 77 (:mod:`.duplicate`), the IMP scale
(:mod:`.imps`), rubber bridge (:mod:`.rubber`) and Chicago (:mod:`.chicago`).

>>> from dealer.contract import Contract
>>> duplicate_score(Contract.parse("1NT"), 7, vulnerable=False)
90
"""

from dealer.scoring.duplicate import ScoreParts, duplicate_score, score_ns, score_parts

__all__ = ["ScoreParts", "duplicate_score", "score_ns", "score_parts"]
