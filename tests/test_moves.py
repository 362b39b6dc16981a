"""The move at the end of a round (dealer/events/moves.py), checked against the movement
itself for every movement the core builds: each pair named goes where its next
sitting is, the boards go where their set is played next, and nothing is left out."""

from __future__ import annotations

import pytest

from dealer.events.model import EventError
from dealer.events.movements import Movement, howell, mitchell
from dealer.events.moves import after_round

MOVEMENTS = {
    "mitchell 5": mitchell(5),
    "mitchell 6 relay": mitchell(6, method="relay"),
    "mitchell 6 skip": mitchell(6, method="skip"),
    "mitchell 7 arrow last, half table": mitchell(7, arrow_switch=[7], missing=("EW", 14)),
    "mitchell 4 arrow 2 3": mitchell(4, method="skip", arrow_switch=[2, 3]),
    "mitchell 5 offset 10": mitchell(5, ew_offset=10),
    "howell 3": howell(3),
    "howell 4": howell(4),
    "howell 6 half table": howell(6, missing=12),
}


def _seated(m: Movement, s) -> dict[tuple[str, int], str]:
    """(line, pair) -> the chair it takes. In an arrow-switch round the NS line's pair is
    listed EW but stays NS; a two-winner Mitchell numbers each line from 1."""
    ns, ew = (s.ew, s.ns) if s.switched else (s.ns, s.ew)
    line = m.numbering == "by_line"
    return {(seat if line else "", p): seat for p, seat in ((ns, "NS"), (ew, "EW")) if p}


@pytest.mark.parametrize("name", list(MOVEMENTS))
def test_every_move_follows_the_movement(name: str) -> None:
    m: Movement = MOVEMENTS[name]
    for here in m.sittings:
        mv = after_round(m, here.table, here.round)
        if here.round == m.rounds:
            assert mv.last and "last round" in mv.text
            continue
        nxt = {s.table: s for s in m.round(here.round + 1)}
        assert {(p.line, p.pair) for p in mv.pairs} == set(_seated(m, here)), (name, here)
        for p in mv.pairs:
            assert p.was == _seated(m, here)[(p.line, p.pair)]
            where = [s for s in nxt.values() if _seated(m, s).get((p.line, p.pair)) == p.seat]
            assert [s.table for s in where] == [p.table], (name, here, p)
            said = "stay" if p.table == here.table else f"move to table {p.table}"
            assert said in mv.text
        if here.board_set:
            want = tuple(s.table for s in nxt.values() if s.board_set == here.board_set)
            assert mv.boards_to == want, (name, here)
            if len(want) == 1:
                assert (f"boards go to table {want[0]}" in mv.text
                        or (want[0] == here.table and "boards stay here" in mv.text))


def test_the_words_of_the_common_moves() -> None:
    m = mitchell(6, method="skip")
    assert "EW move to table 4 (the skip)" in after_round(m, 2, 3).text  # 2 -> 4
    assert "(the skip)" not in after_round(m, 2, 2).text
    relay = mitchell(6, method="relay")
    texts = [after_round(relay, t, 1).text for t in range(1, 7)]
    assert sum("relay stand" in t for t in texts) == 1
    assert any("shared between them" in t for t in texts)
    arrow = mitchell(5, arrow_switch=[4, 5])
    assert "next round is an arrow switch" in after_round(arrow, 1, 3).text
    assert "arrow switch" not in after_round(arrow, 1, 4).text  # it goes on: nothing to say
    assert "sit East-West" not in after_round(arrow, 1, 3).text  # the pairs keep their chairs
    h = howell(4)
    assert "NS (pair 8) stay" in after_round(h, 1, 1).text
    assert "sit East-West" in " ".join(after_round(h, t, 1).text for t in range(1, 5))
    half = mitchell(7, missing=("EW", 7))
    assert any("sit-out round" in after_round(half, t, 2).text for t in range(1, 8))


def test_a_table_or_round_the_movement_lacks_is_refused() -> None:
    with pytest.raises(EventError, match="no table 9 in round 1"):
        after_round(mitchell(5), 9, 1)
