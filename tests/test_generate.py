"""Secure generation: the rank/unrank bijection, keyed boards, batches, uniformity, secrets."""

from __future__ import annotations

from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer import Seat
from dealer.cli import main
from dealer.errors import BoardwrightError, DealError
from dealer.generate import (
    DEAL_COUNT,
    KeyedStream,
    SecretRegistry,
    card_seat_test,
    deal_for_board,
    deal_from_owner_column,
    keyed_dealset,
    owners_batch,
    owners_from_deals,
    random_deal,
    random_dealset,
    rank,
    shape_probabilities,
    shape_test,
    unrank,
)


def test_deal_count_is_52_factorial_over_13_factorial_to_the_fourth() -> None:
    assert DEAL_COUNT == factorial(52) // factorial(13) ** 4
    assert DEAL_COUNT == 53_644_737_765_488_792_839_237_440_000


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=DEAL_COUNT - 1))
def test_unrank_then_rank_is_identity(number: int) -> None:
    deal = unrank(number)
    deal.validate()
    assert rank(deal) == number


def test_unrank_ends_of_the_range_and_rejects_outside() -> None:
    # number 0: North the 13 lowest cards (clubs), East diamonds, South hearts, West spades
    assert unrank(0).to_pbn() == ("N:...AKQJT98765432 ..AKQJT98765432. "
                                  ".AKQJT98765432.. AKQJT98765432...")
    assert rank(unrank(DEAL_COUNT - 1)) == DEAL_COUNT - 1
    assert unrank(0) != unrank(1)
    with pytest.raises(DealError, match="outside"):
        unrank(DEAL_COUNT)


def test_keyed_boards_are_reproducible_and_distinct() -> None:
    key = bytes(range(32))
    first = [deal_for_board(key, n) for n in range(1, 9)]
    assert first == [deal_for_board(key, n) for n in range(1, 9)]
    assert len(set(first)) == 8
    other = [deal_for_board(bytes(32), n) for n in range(1, 9)]
    assert not set(first) & set(other)
    ds = keyed_dealset(key, range(1, 5), event="E")
    assert ds.deals == first[:4] and ds.meta["Event"] == "E"


def test_keyed_board_is_a_known_value() -> None:
    # Pins the scheme (HMAC-SHA256, 96-bit candidates, rejection, unrank) so a
    # change that would break recreation of recorded sets is caught.
    deal = deal_for_board(bytes(32), 1)
    assert deal.to_pbn() == "N:J82.T.AKJT96.KJ9 K43.97.Q8752.Q62 QT965.AK8632..85 A7.QJ54.43.AT743"


def test_random_deal_and_dealset_still_work() -> None:
    assert random_deal().is_complete
    ds = random_dealset(range(1, 37), event="demo")
    assert len(ds) == 36 and len(set(ds.deals)) == 36


def test_owners_batch_deals_thirteen_each_and_matches_deal_objects() -> None:
    owners = owners_batch(5000, KeyedStream(b"k"))
    assert owners.shape == (52, 5000)
    for seat in range(4):
        assert (np.count_nonzero(owners == seat, axis=0) == 13).all()
    d = deal_from_owner_column(owners, 17)
    assert [d.owner(c) for c in range(52)] == [Seat(int(s)) for s in owners[:, 17]]
    again = owners_batch(5000, KeyedStream(b"k"))
    assert (again == owners).all()
    assert not (owners_batch(5000, KeyedStream(b"other")) == owners).all()


def test_owners_batch_predeal_is_kept() -> None:
    fixed = np.full(52, -1, dtype=np.int8)
    fixed[51] = 0  # ♠A to North
    fixed[:13] = 3  # all clubs to West
    owners = owners_batch(2000, fixed=fixed)
    assert (owners[51] == 0).all() and (owners[:13] == 3).all()
    for seat in range(4):
        assert (np.count_nonzero(owners == seat, axis=0) == 13).all()
    fixed[:14] = 3
    with pytest.raises(DealError, match="more than 13"):
        owners_batch(10, fixed=fixed)


def test_uniformity_card_to_seat_and_shapes_small() -> None:
    """Chi-square on 200,000 deals (bench/uniformity.py runs 10^6 and more)."""
    owners = owners_batch(200_000, KeyedStream(b"uniformity-test"))
    stat, df, p = card_seat_test(owners)
    assert df == 153 and p > 0.001, (stat, p)
    stat, df, p = shape_test(owners)
    assert p > 0.001, (stat, df, p)
    assert abs(sum(shape_probabilities().values()) - 1) < 1e-12
    assert abs(shape_probabilities()[(4, 4, 3, 2)] - 0.2155117) < 1e-6


def test_uniformity_of_the_tournament_path() -> None:
    """deal_for_board (HMAC + unrank), 20,000 boards; the bench runs 10^6."""
    deals = [deal_for_board(b"tournament", n) for n in range(1, 20_001)]
    owners = owners_from_deals(deals)
    assert deal_from_owner_column(owners, 5) == deals[5]
    assert card_seat_test(owners)[2] > 0.001
    assert shape_test(owners)[2] > 0.001


def test_uniformity_test_catches_a_biased_dealer() -> None:
    owners = owners_batch(200_000, KeyedStream(b"biased"))
    # Bias: in 3% of deals give North the ♠A, in exchange for North's lowest card.
    rows = np.arange(0, 200_000, 33)
    lowest = np.argmax(owners[:, rows] == 0, axis=0)
    owners[lowest, rows] = owners[51, rows]
    owners[51, rows] = 0
    assert (np.count_nonzero(owners == 0, axis=0) == 13).all()
    assert card_seat_test(owners)[2] < 1e-6


def test_secret_registry_refuses_reuse(tmp_path) -> None:
    reg = SecretRegistry(tmp_path / "used.txt")
    secret = bytes(32)
    assert not reg.seen(secret)
    fp = reg.claim(secret, "first set")
    assert reg.seen(secret) and fp in (tmp_path / "used.txt").read_text()
    assert secret.hex() not in (tmp_path / "used.txt").read_text()
    with pytest.raises(BoardwrightError, match="already used"):
        reg.claim(secret, "second set")


def test_cli_new_recreate_seal_unseal(tmp_path, monkeypatch, capsys) -> None:
    from dealer import formats

    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    out = tmp_path / "set.pbn"
    assert main(["deals", "new", "--boards", "1-36", "--copies", "2", "--event", "Club",
                 "-o", str(out)]) == 0
    ds = formats.read(out)
    assert ds.numbers == list(range(1, 37)) and all(b.deal.is_complete for b in ds)
    record = tmp_path / "set.pbn.secret.json"
    assert record.stat().st_mode & 0o077 == 0
    again = tmp_path / "again.pbn"
    assert main(["deals", "recreate", str(record), "-o", str(again)]) == 0
    assert formats.read(again).deals == ds.deals
    # seal: the PBN no longer holds any hand, and show prints none
    assert main(["deals", "seal", str(out)]) == 0
    text = out.read_text()
    assert "[Deal " not in text
    capsys.readouterr()
    main(["deals", "show", str(out), "--board", "1"])
    assert "♠" not in capsys.readouterr().out
    assert main(["records", str(out), "-o", str(tmp_path / "r.pdf"), "--no-dd"]) == 2
    assert main(["deals", "unseal", str(out)]) == 0
    assert formats.read(out).deals == ds.deals
    # a DLM must hold the hands, so a sealed one is refused (before a secret is drawn) ...
    dlm = tmp_path / "s.dlm"
    assert main(["deals", "new", "--boards", "1-4", "--seal", "-o", str(dlm)]) == 2
    assert not dlm.exists()
    # ... unless told to write them: then it keeps them for the machine, marked sealed
    assert main(["deals", "new", "--boards", "1-4", "--seal", "--unseal", "-o", str(dlm)]) == 0
    assert "Status=Sealed" in dlm.read_text()
    assert len((tmp_path / "inst" / "used-secrets.txt").read_text().splitlines()) == 2
