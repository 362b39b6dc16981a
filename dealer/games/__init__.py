"""Other games played with the same cards and boards.

* :mod:`.minibridge`: the teaching game of seed 002 (declarer from announced points).
* :mod:`.tigerbridge`: TigerBridge, seed 000 (houses, crests, set and game points).
* :mod:`.bugger`: Bugger Bridge, seed 001 (3-10 players, exact-bid scoring).
"""
