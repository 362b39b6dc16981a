"""The WBF IMP scale (Law 78B, Laws of Duplicate Bridge 2017).

>>> imps(0), imps(10), imps(20), imps(-30), imps(420), imps(4000)
(0, 0, 1, -1, 9, 24)
"""

from __future__ import annotations

from bisect import bisect_right

#: Lower bound of each IMP band, 1 IMP to 24 IMPs (Law 78B; seed 002 prints the same table).
IMP_BANDS: tuple[int, ...] = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
    750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
)


def imps(diff: int | float) -> int:
    """IMPs for a point difference; the sign follows ``diff``.

    Scores are multiples of 10, but any number works: a difference of 15
    (half-way, e.g. from a Butler datum) counts as less than 20, so 0.
    """
    n = bisect_right(IMP_BANDS, abs(diff))
    return n if diff >= 0 else -n
