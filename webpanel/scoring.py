"""Scores of a club event from the store, through the core's one scoring entry point.

A teams event with the teams round robin (``kind == "teams"``, movement
``"teams"``) is scored as team-against-team matches (:mod:`dealer.events.teams`):
rankings in VPs with the match IMPs, travellers with both tables of each
match side by side and each line's board IMPs for its team. Other events are
matchpoints, or IMP pairs (Butler or cross-IMPs). The dispatch is
:func:`dealer.events.score.score_event`'s; this module only reads the store.
"""

from __future__ import annotations

from dealer.events.score import MatchLine, RecordedResult, Scored, Standing
from dealer.events.score import score_event as score_lines
from dealer.events.teams import round_robin
from dealer.store import players as ps
from dealer.store import results as rs
from dealer.store.repository import Store

__all__ = ["MatchLine", "Scored", "Standing", "score_event"]


def score_event(store: Store, ce_id: int) -> Scored[RecordedResult]:
    """The event scored, with its pairs' names (:attr:`Scored.players`) for the pages
    and the results writers.

    The travellers' rows are the stored results (:class:`~dealer.store.panel_models.ResultRow`);
    they are typed as what the results writers read (``Scored`` is invariant in its row type).
    """
    scored = _scored(store, ce_id)
    if scored.rankings or scored.travellers:
        scored.players = ps.pair_names(store, ce_id)
    return scored


def _scored(store: Store, ce_id: int) -> Scored[RecordedResult]:
    ce = rs.get_event(store, ce_id)
    m = rs.movement(store, ce_id, ce.sections[0])
    rows = rs.results(store, ce_id)
    if not rows:  # nothing to rank yet: no empty rankings on the desk
        return Scored()
    if ce.kind == "teams" and ce.movement == "teams":  # `tables` counts the teams
        schedules = {sec: round_robin(ce.tables, boards_per_round=ce.boards_per_round,
                                      rounds=ce.rounds, section=sec) for sec in ce.sections}
        return score_lines(rows, rs.as_results(rows), method="teams", schedules=schedules)
    return score_lines(rows, rs.as_results(rows), method=ce.scoring, movement=m,
                       numbering=m.numbering)
