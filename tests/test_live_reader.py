"""The real camera's reader at the gate knows where the deck's codes lie (issue 15, fourteenth pass).

``boardwright deal --camera camera:0 --faces LAYOUT``: print-deck's faces, or a sticker
deck's layout learned with ``vision learn-codes``; without it, no such check (as before).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dealer.cards import Card
from dealer.errors import BoardwrightError
from dealer.rig_job import add_deal_arguments
from vision.barcode import learn_layout
from vision.render import NORMAL, render_card_frame
from vision.rig_sources import live_reader


def test_the_live_reader_takes_a_learned_layout_and_refuses_a_stuck_pair(tmp_path: Path) -> None:
    path = learn_layout("club", [(str(c), render_card_frame(c, design="qr-stickers", seed=300 + int(c)))
                                 for c in Card.all()]).save(tmp_path / "club.codes.json")
    reader = live_reader(str(path))
    assert reader.layout is not None and len(reader.layout.per_card) == 52
    stuck = replace(NORMAL, second_card=True, stuck=(10.0, 10.0))
    for c in (Card.parse("SA"), Card.parse("D7"), Card.parse("H2")):
        assert reader.read(render_card_frame(c, design="qr-stickers", seed=int(c))).card == c
        out = reader.read(render_card_frame(c, design="qr-stickers", seed=int(c), distortions=stuck))
        assert not out.accepted and out.label == "two cards", out
    assert live_reader(None).layout is None
    assert "print-deck" in live_reader("printed").layout.name


def test_a_wrong_layout_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"format": 1, "outer": {"ZZ": 3}}')
    with pytest.raises(BoardwrightError, match="x.json: not a learned code layout"):
        live_reader(str(tmp_path / "x.json"))
    with pytest.raises(BoardwrightError, match="nope.json: no learned code layout there"):
        live_reader(str(tmp_path / "nope.json"))


def test_deal_takes_faces() -> None:
    import argparse

    p = argparse.ArgumentParser()
    add_deal_arguments(p)
    args = p.parse_args(["1", "--machine", "/dev/ttyACM0", "--camera", "camera:0", "--faces", "club"])
    assert args.faces == "club"
