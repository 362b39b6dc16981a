"""PBN carries event-level metadata and the sealed mark through a round trip."""

from dealer import Board, DealSet, formats
from dealer.generate import random_dealset


def test_generator_meta_survives_pbn_round_trip():
    ds = random_dealset(range(1, 5), event="Club night")
    ds.meta["Generator"] = "boardwright test"
    back = formats.loads(formats.dumps(ds, "pbn"))
    assert back.meta["Generator"] == "boardwright test"
    assert back.meta["Event"] == "Club night"
    assert [b.deal for b in back] == [b.deal for b in ds]


def test_sealed_tag_reads_as_a_sealed_set():
    boards = [Board(n, None, tags={"Sealed": "Yes"}) for n in range(1, 4)]
    back = formats.loads(formats.dumps(DealSet(boards=boards), "pbn"))
    assert back.sealed and all(b.deal is None for b in back)
    plain = formats.loads(formats.dumps(random_dealset(range(1, 3)), "pbn"))
    assert not plain.sealed
