"""Duplicate events: matchpoints, IMPs, victory points, movements, rankings, checks.

One module per concern:

- :mod:`dealer.events.model`: traveller lines (:class:`Result`) and pair identities.
- :mod:`dealer.events.matchpoints`: matchpoints (WBF/ACBL units, Neuberg,
  artificial and fouled boards), vectorised with NumPy for whole fields.
- :mod:`dealer.events.imps_events`: teams, Butler, cross-IMPs, board-a-match.
- :mod:`dealer.events.vp`: victory-point scales (WBF 2013 continuous, tables).
- :mod:`dealer.events.movements` and :mod:`dealer.events.asc`: Mitchell and
  Howell movements and the ``.ASC`` movement text format.
- :mod:`dealer.events.rankings`: places with ties, one or two winners, score cards.
- :mod:`dealer.events.validation`: a director's checks on results.

The rules and their sources are in ``docs/scoring-events.md``.
"""
