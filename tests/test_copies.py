"""`deals new --copies N` reaches the dealing job through PBN and DUP files."""

from __future__ import annotations

import warnings

import pytest

import rig
from dealer import formats
from dealer.cli import main
from dealer.errors import FormatWarning
from dealer.formats import dup, pbn
from dealer.generate import random_dealset


@pytest.fixture
def instance(tmp_path, monkeypatch):
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    return tmp_path


def test_pbn_copies_directive_round_trips_without_warning() -> None:
    ds = random_dealset([1, 2])
    ds.meta["Copies"] = "3"
    text = pbn.dumps(ds)
    assert b"\n% boardwright copies 3\n" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", FormatWarning)
        back = pbn.loads(text)
    assert back.meta["Copies"] == "3" and back.deals == ds.deals
    back.meta["Copies"] = "4"  # a changed count replaces the directive, never adds a second
    again = pbn.dumps(back)
    assert again.count(b"% boardwright copies") == 1 and pbn.loads(again).meta["Copies"] == "4"
    assert "Copies" not in pbn.loads(pbn.dumps(random_dealset([1]))).meta


def test_dup_trailer_carries_copies() -> None:
    ds = random_dealset(range(1, 5))
    ds.meta["Copies"] = "2"
    back = dup.loads(dup.dumps(ds))
    assert back.meta["Copies"] == "2" and back.meta["DUP copies"] == "2"
    ds.meta["Copies"] = "123"  # two digits in the trailer: refused, never a shifted record
    with pytest.raises(formats.FormatError, match="0-99 copies"):
        dup.dumps(ds)


@pytest.mark.parametrize("ext", ["pbn", "dup"])
def test_deals_new_copies_reach_the_dealing_job(instance, ext, capsys) -> None:
    path = instance / f"set.{ext}"
    assert main(["deals", "new", "--boards", "1-3", "--copies", "2", "-o", str(path)]) == 0
    db = f"sqlite:///{instance / 'job.sqlite'}"
    # no --copies: the set's recorded copies, 3 boards x 2
    session, _, _, _ = rig.open_job(db, str(path), options={"copies": None})
    assert session.boards_total == 6
    # an explicit --copies wins
    session, _, _, _ = rig.open_job(db, str(path), options={"copies": 1}, new=True)
    assert session.boards_total == 3


def test_set_without_copies_deals_one_of_each(instance) -> None:
    path = instance / "plain.pbn"
    formats.write(random_dealset([1, 2]), path)
    session, _, _, _ = rig.open_job(f"sqlite:///{instance / 'j.sqlite'}", str(path),
                                    options={"copies": None})
    assert session.boards_total == 2
