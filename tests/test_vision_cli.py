"""`boardwright vision` end to end: learn, read (JSON), print-deck, render; sources."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealer.cards import Card
from dealer.cli import main
from vision.photos import card_of_name
from vision.render import render_card_frame
from vision.sources import CaptureSource, FolderSource, open_source


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_learn_then_read_by_index_prints_one_json_object_per_frame(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = tmp_path / "std.npz"
    assert main(["vision", "learn", "std", "--source", "synthetic:design=standard,cards=sorted+check,seed=4",
                 "-o", str(design)]) == 0
    capsys.readouterr()
    assert main(["vision", "read", "synthetic:cards=SA+TD+back,seed=9", "--design", str(design),
                 "--json"]) == 0
    rows = _json_lines(capsys.readouterr().out)
    assert [r["frame"] for r in rows] == ["0000-SA", "0001-DT", "0002-back"]
    assert rows[0]["card"] == "SA" and rows[1]["card"] == "DT"
    assert rows[2]["reject"] == "face down" and "card" not in rows[2]


def test_read_barcodes_from_a_folder_with_a_corrupt_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i, c in enumerate(["HQ", "C3"]):
        frame = render_card_frame(Card.parse(c), design="code128", deck_id=3, seed=i)
        cv2.imwrite(str(tmp_path / f"f{i}.png"), frame)
    (tmp_path / "f2.png").write_bytes(b"\x89PNG garbage")
    assert main(["vision", "read", str(tmp_path), "--barcode", "code128", "--deck", "3",
                 "--json"]) == 0
    rows = _json_lines(capsys.readouterr().out)
    assert rows[0] == {**rows[0], "frame": "f0.png", "card": "HQ"}
    assert rows[1]["card"] == "C3"
    assert rows[2] == {"frame": "f2.png", "error": "the image could not be decoded"}


def test_read_barcoded_faces_refuses_a_stuck_pair_only_when_told_the_faces(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    from vision.render import NORMAL

    stuck = replace(NORMAL, second_card=True, stuck=(10.0, 10.0))
    cv2.imwrite(str(tmp_path / "a-alone.png"), render_card_frame(Card.parse("HQ"), design="qr", deck_id=3, seed=1))
    cv2.imwrite(str(tmp_path / "b-stuck.png"),
                render_card_frame(Card.parse("C3"), design="qr", deck_id=3, seed=2, distortions=stuck))
    assert main(["vision", "read", str(tmp_path), "--barcode", "qr", "--deck", "3", "--json"]) == 0
    plain = _json_lines(capsys.readouterr().out)
    assert [r.get("card") for r in plain] == ["HQ", "C3"]  # stickers: no layout to check
    assert main(["vision", "read", str(tmp_path), "--barcode", "qr", "--deck", "3", "--faces", "rendered",
                 "--json"]) == 0
    faces = _json_lines(capsys.readouterr().out)
    assert faces[0]["card"] == "HQ"
    assert faces[1]["reject"] == "two cards" and "closer together than the renderer's QR faces" in faces[1]["detail"]


def test_a_sticker_decks_codes_are_learned_card_by_card_and_a_stuck_pair_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 15, fourteenth pass: stickers put on by hand lie each a millimetre or two from
    # their place, so no one layout fits a sticker deck; each card's is learned from one
    # pass, in any order. Then a card with another stuck under it 10 px out is two cards.
    from dataclasses import replace

    from vision.render import NORMAL

    layout = tmp_path / "club.codes.json"
    assert main(["vision", "learn-codes", "club", "--source", "synthetic:design=qr-stickers,cards=bridge,deck=3,seed=8",
                 "--deck", "3", "-o", str(layout)]) == 0
    assert "learned where the codes of the 52 cards of 'club' lie" in capsys.readouterr().out
    assert main(["vision", "learn-codes", "club", "--source", "synthetic:design=qr-stickers,cards=SA,deck=3",
                 "-o", str(layout)]) == 2  # never over a layout without --replace
    assert "already exists" in capsys.readouterr().err
    stuck = replace(NORMAL, second_card=True, stuck=(10.0, 10.0))
    frames = tmp_path / "frames"
    frames.mkdir()
    for i, c in enumerate(("HQ", "C3", "SA")):
        cv2.imwrite(str(frames / f"a{i}-alone.png"),
                    render_card_frame(Card.parse(c), design="qr-stickers", deck_id=3, seed=40 + i))
        cv2.imwrite(str(frames / f"b{i}-stuck.png"),
                    render_card_frame(Card.parse(c), design="qr-stickers", deck_id=3, seed=50 + i, distortions=stuck))
    assert main(["vision", "read", str(frames), "--barcode", "--deck", "3", "--faces", str(layout), "--json"]) == 0
    rows = {r["frame"]: r for r in _json_lines(capsys.readouterr().out)}
    assert [rows[f"a{i}-alone.png"].get("card") for i in range(3)] == ["HQ", "C3", "SA"]
    details = [rows[f"b{i}-stuck.png"]["detail"] for i in range(3)]
    assert all(rows[f"b{i}-stuck.png"]["reject"] == "two cards" for i in range(3)), details
    assert any("closer together than the learned 'club' deck's codes" in d for d in details), details
    # Without the layout, two of the three pairs are read as their top card.
    assert main(["vision", "read", str(frames), "--barcode", "--deck", "3", "--json"]) == 0
    plain = {r["frame"]: r for r in _json_lines(capsys.readouterr().out)}
    assert sum("card" in plain[f"b{i}-stuck.png"] for i in range(3)) == 2
    # The renderer's one layout does not fit stickers put on by hand: it refuses single
    # cards that the learned one reads, every one.
    from vision.barcode import BarcodeReader
    from vision.code_layout import CodeLayout, rendered

    one = BarcodeReader("zxing", "qr", deck_id=3, layout=rendered("qr"))
    learned = BarcodeReader("zxing", "qr", deck_id=3, layout=CodeLayout.load(layout))
    alone = [render_card_frame(c, design="qr-stickers", deck_id=3, seed=900 + int(c)) for c in Card.all()]
    assert [learned.read(f).card for f in alone] == list(Card.all())
    assert sum(one.read(f).label == "two cards" for f in alone) >= 8


def test_learning_codes_names_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "learn-codes", "x", "--source", "synthetic:design=qr-stickers,cards=SA+HK,deck=3",
                 "-o", str(tmp_path / "x.json")]) == 2
    assert "the pass lacks 50 card(s)" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
    (tmp_path / "bad.json").write_text("{ not json")
    assert main(["vision", "read", "synthetic:cards=SA,design=qr", "--barcode", "--faces",
                 str(tmp_path / "bad.json")]) == 2
    assert "bad.json: not a learned code layout" in capsys.readouterr().err


def test_a_design_learned_before_the_places_is_read_with_a_note_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import dataclasses

    from vision.learn import LearnedDesign

    design = tmp_path / "std.npz"
    assert main(["vision", "learn", "std", "--source", "synthetic:design=standard,cards=sorted+check,seed=4",
                 "-o", str(design)]) == 0
    old = dataclasses.replace(LearnedDesign.load(design), rank_places=None)
    old.save(tmp_path / "old.npz")
    capsys.readouterr()
    assert main(["vision", "read", "synthetic:cards=SA+TD,seed=9", "--design", str(tmp_path / "old.npz"),
                 "--json"]) == 0
    got = capsys.readouterr()
    assert [r["card"] for r in _json_lines(got.out)] == ["SA", "DT"]
    assert got.err.count("note: design 'std' was learned before") == 1 and "--replace" in got.err
    assert main(["vision", "read", "synthetic:cards=SA,seed=9", "--design", str(design), "--json"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_bad_source_or_design_is_one_line_and_status_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "read", str(tmp_path / "nope"), "--barcode"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["vision", "read", "synthetic:cards=SA", "--design", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err
    assert "no learned design" in err and "Traceback" not in err
    assert main(["vision", "read", "synthetic:cards=ZZ", "--barcode"]) == 2
    assert "cannot read 'ZZ' as a card" in capsys.readouterr().err


def test_learning_from_a_folder_with_a_corrupt_file_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A file the camera's folder cannot decode is named, with where it falls in the pass;
    # it was a traceback (the source yields no picture for it, and the learner located it).
    for i, card in enumerate(Card.all()):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), render_card_frame(card, seed=i))
    (tmp_path / "04.png").write_bytes(b"\x89PNG garbage")
    assert main(["vision", "learn", "std", "--source", str(tmp_path), "-o", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err
    assert "frame 04.png (card 5 of the pass): the image could not be decoded" in err
    assert "Traceback" not in err and not (tmp_path / "d.npz").exists()


def test_synthetic_source_options_must_be_whole_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "read", "synthetic:cards=SA,seed=abc", "--barcode"]) == 2
    assert "synthetic option seed='abc' is not a whole number" in capsys.readouterr().err
    assert main(["vision", "read", "synthetic:cards=SA,deck=-3", "--barcode"]) == 2
    assert "synthetic option deck=-3 is negative" in capsys.readouterr().err


def test_print_deck_writes_a_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deck.pdf"
    assert main(["vision", "print-deck", "-o", str(out), "--deck", "12", "--boards", "1-4"]) == 0
    assert out.read_bytes().startswith(b"%PDF-")
    assert "wrote 112 qr symbols" in capsys.readouterr().out  # (52 cards + 4 boards) x 2 ends
    assert main(["vision", "print-deck", "-o", str(out), "--boards", "1-x"]) == 2


def test_render_writes_pngs_that_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "render", "synthetic:cards=S2+joker,design=qr,deck=1", "-o",
                 str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0000-S2.png", "0001-joker.png"]
    capsys.readouterr()
    main(["vision", "read", str(tmp_path), "--barcode", "--json"])
    rows = _json_lines(capsys.readouterr().out)
    assert rows[0]["card"] == "S2" and rows[1]["reject"] == "joker"


def test_video_file_and_folder_sources(tmp_path: Path) -> None:
    video = tmp_path / "gate.avi"
    frames = [render_card_frame(Card(i), design="qr", seed=i) for i in range(4)]
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 480))
    for f in frames:
        w.write(f)
    w.release()
    got = list(open_source(str(video)))
    assert isinstance(open_source(str(video)), CaptureSource)
    assert [n for n, _ in got] == [f"frame{i:05d}" for i in range(4)]
    assert all(f is not None and f.shape == (480, 640, 3) for _, f in got)
    for i, f in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"{i}.png"), f)
    assert [n for n, _ in FolderSource(tmp_path)] == ["0.png", "1.png", "2.png", "3.png"]


def test_pictures_of_another_size_are_shown_as_the_gate_would_show_them(tmp_path: Path) -> None:
    # Issue 15, ninth pass: the readers take the gate's 640×480 frame. A phone's photo of
    # any size (here a card shot from twice as far, 2560×1920, and a real 640×480 one) is
    # shown as the gate would show its card, and read; a gate frame whose card is found is
    # read as it is; a video of another size (1280×720) is fitted into 640×480, never zoomed.
    from vision.barcode import BarcodeReader
    from vision.decision import Reason
    from vision.locate import Located, locate

    gate = render_card_frame(Card.parse("HQ"), design="qr", seed=5)
    far = cv2.copyMakeBorder(cv2.resize(gate, (1280, 960), interpolation=cv2.INTER_CUBIC),
                             480, 480, 640, 640, cv2.BORDER_REPLICATE)
    cv2.imwrite(str(tmp_path / "a-gate.png"), gate)
    cv2.imwrite(str(tmp_path / "b-phone.jpg"), far)
    got = dict(FolderSource(tmp_path))
    assert np.array_equal(got["a-gate.png"], gate)
    assert isinstance(locate(got["b-phone.jpg"]), Located)
    assert locate(cv2.resize(far, (640, 480), interpolation=cv2.INTER_AREA)).reason is Reason.TOO_SMALL
    assert BarcodeReader("zxing", "qr").read(got["b-phone.jpg"]).card == Card.parse("HQ")
    small = Path(__file__).parent / "data" / "photos" / "raw" / "3H-IMG_20220921_200614.jpg"  # 640×480
    assert locate(cv2.imread(str(small))).reason is Reason.TOO_SMALL
    ((_, shown),) = list(open_source(str(small)))
    assert isinstance(locate(shown), Located)  # a real phone photo, the card brought closer
    video = tmp_path / "hd.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    w.write(cv2.resize(gate, (1280, 720)))
    w.release()
    ((_, frame),) = list(open_source(str(video)))
    assert frame is not None and frame.shape == (480, 640, 3)
    assert np.array_equal(frame[:60], np.repeat(frame[60:61], 60, axis=0))  # fitted: edge repeated


def test_a_gate_sized_frame_of_a_card_beside_another_shape_is_never_looked_past() -> None:
    # A card beside another large shape in a picture of another size (a portrait phone
    # photo, here a real one on black glass with a light strip at its edge) is brought to
    # the gate's scale. The same picture given as a 640×480 frame may be the gate's own,
    # a double feed there: it is only fitted, and stays "two cards".
    from vision.decision import Reason
    from vision.gate_view import fit_frame, gate_view
    from vision.locate import Located, locate

    photo = cv2.imread(str(Path(__file__).parent / "data" / "photos" / "raw" / "4C-IMG_20220921_194600.jpg"))
    assert photo.shape[:2] == (640, 480)
    assert isinstance(locate(gate_view(photo)), Located)
    as_gate = np.ascontiguousarray(np.rot90(photo, -1))
    assert as_gate.shape[:2] == (480, 640)
    assert np.array_equal(gate_view(as_gate), fit_frame(as_gate))
    assert locate(gate_view(as_gate)).reason is Reason.TWO_CARDS


def test_read_takes_photos_as_photos_and_gate_sized_files_as_the_gates(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A photo (not 640×480) is read as a photograph: a shadow's edge beside the card is no
    # card under it. A 640×480 file may be the gate's own frame and is read as the gate's,
    # unless --photo says otherwise; --gate reads photos as the gate's frames too.
    photos = Path(__file__).parent / "data" / "photos"
    design = str(photos / "phone-standard.npz")
    name = "2H-IMG_20220921_195421.jpg"
    photo = cv2.imread(str(photos / "on-a-table" / name))
    cv2.imwrite(str(tmp_path / name), photo)
    from vision.gate_view import gate_view

    cv2.imwrite(str(tmp_path / "gate-sized.png"), gate_view(photo))  # the same view, 640×480
    assert main(["vision", "read", str(tmp_path), "--design", design, "--json"]) == 0
    out = {o["frame"]: o for o in _json_lines(capsys.readouterr().out)}
    assert out[name].get("card") == "H2", out[name]
    assert out["gate-sized.png"].get("reject") == "background too light", out["gate-sized.png"]
    assert main(["vision", "read", str(tmp_path), "--design", design, "--json", "--photo"]) == 0
    out = {o["frame"]: o for o in _json_lines(capsys.readouterr().out)}
    assert out[name].get("card") == out["gate-sized.png"].get("card") == "H2", out
    assert main(["vision", "read", str(tmp_path), "--design", design, "--json", "--gate"]) == 0
    out = {o["frame"]: o for o in _json_lines(capsys.readouterr().out)}
    assert "card" not in out[name] and "card" not in out["gate-sized.png"], out


def test_read_looks_at_a_photos_other_views(capsys: pytest.CaptureFixture[str]) -> None:
    # A photo refused as the gate would show it is read in another view of it; --gate reads
    # the gate's view only.
    photos = Path(__file__).parent / "data" / "photos"
    args = ["vision", "read", str(photos / "other-view"), "--design", str(photos / "phone-standard.npz"),
            "--json"]
    assert main(args) == 0
    got = {o["frame"][:3]: o.get("card") for o in _json_lines(capsys.readouterr().out)}
    assert got == {"10S": "ST", "JH-": "HJ", "KH-": "HK"}, got
    assert main([*args, "--gate"]) == 0
    assert all("card" not in o for o in _json_lines(capsys.readouterr().out))


def test_read_finds_a_photos_card_by_its_shape_or_its_indices(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 15, eleventh pass: a card small in the photo, at a slant, or whose edges are
    # lost on a glossy board is read from the photo's own pixels (vision.photo_cards);
    # --gate reads the gate's view only, and finds none of them.
    photos = Path(__file__).parent / "data" / "photos"
    for folder in ("small-or-slanted", "by-its-indices"):
        args = ["vision", "read", str(photos / folder), "--design", str(photos / "phone-standard.npz"),
                "--json"]
        assert main(args) == 0
        got = {o["frame"]: o.get("card") for o in _json_lines(capsys.readouterr().out)}
        want = {p.name: str(card_of_name(p.name)) for p in (photos / folder).glob("*.jpg")}
        assert got == want, (folder, got)
        assert main([*args, "--gate"]) == 0
        assert all("card" not in o for o in _json_lines(capsys.readouterr().out))
