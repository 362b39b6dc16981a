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


def test_a_real_camera_reads_a_real_decks_corner_index_with_its_learned_design(tmp_path: Path) -> None:
    # A real deck dealt by its corner index at a real machine: --design for the live
    # camera (before, a live camera read QR codes only). Frames from a folder stand in
    # for the camera: Bonded's real SVG deck, learned in bridge order with its back.
    import cv2

    from dealer.session import Sighting
    from rig import make_camera
    from vision.learn import bridge_order, learn
    from vision.rig_sources import LiveCamera

    frames = [(str(c), render_card_frame(c, design="bonded", seed=40 + i)) for i, c in enumerate(bridge_order())]
    frames.append(("back", render_card_frame(Card(0), design="bonded", face_up=False, seed=1)))
    design = learn("bonded", frames, back=True).save(tmp_path / "bonded.npz")
    shots = tmp_path / "gate"
    shots.mkdir()
    stuck = replace(NORMAL, second_card=True, stuck=(12.0, 12.0))
    cards = [Card.parse(c) for c in ("SQ", "H7", "DK")]
    for i, c in enumerate(cards):
        cv2.imwrite(str(shots / f"{i}a.png"), render_card_frame(c, design="bonded", seed=70 + i, distortions="light-floor"))
        cv2.imwrite(str(shots / f"{i}b.png"), render_card_frame(c, design="bonded", seed=80 + i, distortions=stuck))
    cam = make_camera(str(shots), None, design=str(design))
    assert isinstance(cam, LiveCamera)
    seen = [cam.look((0, k)) for k in range(6)]
    assert [s.card for s in seen[0::2]] == cards
    assert all(isinstance(s, Sighting) and s.card is None and "two cards" in s.detail for s in seen[1::2]), seen
    with pytest.raises(Exception, match="give one of them"):
        live_reader("printed", str(design))


def test_deal_takes_a_design() -> None:
    import argparse

    p = argparse.ArgumentParser()
    add_deal_arguments(p)
    assert p.parse_args(["1", "--machine", "/dev/ttyACM0", "--camera", "camera:0", "--design", "club"]).design == "club"
