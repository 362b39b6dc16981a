"""Bad input found by a sweep of every command: one clear line and status 2, never a
traceback, and never an output written over the file it is made from.

Each case here was a Python traceback (or lost data) before: a secret record or
public file that is not JSON text, a CSV cell over the csv module's limit, a
board range past the last board number, a PDF written over its own deal file,
and out-of-range numbers in the adapters' options.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from dealer.cli import main
from dealer.commit import parse_boards
from dealer.errors import BoardwrightError

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


@pytest.fixture(autouse=True)
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "instance"))
    return tmp_path / "instance"


@pytest.fixture
def club36(tmp_path: Path, corpus: Path) -> Path:
    """A copy: a test that went wrong must not write over the shared corpus."""
    return Path(shutil.copy(corpus / "bigdeal" / "club36.pbn", tmp_path / "club36.pbn"))


def one_line(capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardwright: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def usage_error(capsys: pytest.CaptureFixture[str], argv: list[str], *needles: str) -> None:
    """An argparse refusal: status 2, its usage and one 'error:' line naming the option."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "error: argument" in last, err
    for needle in needles:
        assert needle in last, (needle, last)


# ------------------------------------------------------ secret records and public files
def _made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, Path]:
    """A set with its secret record, and a commitment's public file and secret."""
    assert main(["deals", "new", "--boards", "1-4", "-o", str(tmp_path / "set.pbn")]) == 0
    assert main(["deals", "commit", "--event", "E", "--session", "1:1-4", "--public-value", "x",
                 "-o", str(tmp_path / "pub.json")]) == 0
    capsys.readouterr()
    return tmp_path / "set.pbn", tmp_path / "pub.json", tmp_path / "pub.json.secret"


@pytest.mark.parametrize("content", [PNG, "[1, 2]", '"text"', "folder"])
def test_a_secret_record_or_public_file_that_is_not_one_is_named(
        content: bytes | str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A picture, a JSON list or a folder given as the record, the public file or the
    # secret was a UnicodeDecodeError, an AttributeError or an IsADirectoryError.
    dealt, pub, secret = _made(tmp_path, capsys)
    bad = tmp_path / "bad.json"
    if content == "folder":
        bad.mkdir()
    elif isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content)
    out = str(tmp_path / "out.pbn")
    assert main(["deals", "recreate", str(bad), "-o", out]) == 2
    one_line(capsys, str(bad))
    assert main(["deals", "unseal", str(dealt), "--record", str(bad), "-o", out]) == 2
    one_line(capsys, str(bad))
    assert main(["deals", "generate", str(bad), "--secret", str(secret), "--public-value", "v",
                 "--session", "1", "-o", out]) == 2
    one_line(capsys, str(bad))
    assert main(["deals", "verify", str(bad), "--secret", str(secret), "--public-value", "v",
                 str(dealt)]) == 2
    one_line(capsys, str(bad))
    if content != "folder":  # a folder is not taken for a secret file: it is read as the secret
        assert main(["deals", "verify", str(pub), "--secret", str(bad), "--public-value", "v",
                     str(dealt)]) == 2
        one_line(capsys)
    assert not Path(out).exists()


@pytest.mark.parametrize(("change", "field"), [
    ({"secret": "zz"}, "field secret"), ({"secret": 5}, "field secret"),
    ({"boards": None}, "field boards"), ({"boards": "x"}, "field boards"),
])
def test_a_damaged_secret_record_names_its_field(
        change: dict, field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dealt, _, _ = _made(tmp_path, capsys)
    record = Path(f"{dealt}.secret.json")
    data = {**json.loads(record.read_text()), **change}
    record.write_text(json.dumps(data))
    assert main(["deals", "recreate", str(record), "-o", str(tmp_path / "again.pbn")]) == 2
    one_line(capsys, str(record), field)


def test_a_board_range_past_the_last_board_number_is_refused_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 1-1000000 dealt 999,999 boards (minutes) before board 1,000,000 was refused;
    # 1-99999999999 filled the memory.
    started = time.monotonic()
    with pytest.raises(BoardwrightError, match="board 99999999999 is too large"):
        parse_boards("1-99999999999")
    assert main(["deals", "new", "--boards", "1-1000000", "-o", str(tmp_path / "n.pbn")]) == 2
    one_line(capsys, "board 1000000 is too large (at most 999,999)")
    assert time.monotonic() - started < 10
    assert list(tmp_path.glob("n.pbn*")) == []
    assert parse_boards("999998-999999") == [999998, 999999]


# ------------------------------------------------------------------------ CSV inputs
def test_results_and_members_csv_with_a_huge_cell_or_nul_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A cell over the csv module's 131,072 characters was a _csv.Error traceback.
    huge = tmp_path / "huge.csv"
    huge.write_text("board,ns,ew,score\n1,1,2," + "4" * 200_000 + "\n")
    for verb in ("check", "score"):
        assert main(["event", verb, str(huge)]) == 2
        one_line(capsys, f"{huge}, line 2: cannot read it as CSV (field larger than field limit")
    members = tmp_path / "members.csv"
    members.write_text("Name,EBU\n" + "x" * 200_000 + ",1\n")
    assert main(["members", "import", str(members)]) == 2
    one_line(capsys, f"{members}: line 2: cannot read it as CSV")
    binary = tmp_path / "results.csv"
    binary.write_bytes(PNG)  # its header was shown as control characters over six lines
    assert main(["event", "check", str(binary)]) == 2
    one_line(capsys, "this file is not text (it holds NUL bytes)")


# ------------------------------------------------------- outputs over their own inputs
def test_an_output_is_never_written_over_the_file_it_is_made_from(
        club36: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = club36.read_bytes()
    assert main(["records", str(club36), "-o", str(club36), "--no-dd"]) == 2
    one_line(capsys, "cannot write the PDF over", "which it is made from")
    assert main(["curtains", str(club36), "-o", str(tmp_path / "c.pdf"), "--sheets",
                 str(tmp_path / "." / "c.pdf")]) == 2
    one_line(capsys, "the curtain cards PDF and the deal sheets PDF would be the same file")
    assert main(["records", str(club36), "-o", str(tmp_path / "r.pdf"), "--html",
                 str(tmp_path / "r.pdf"), "--no-dd"]) == 2
    one_line(capsys, "the PDF and the HTML file would be the same file")
    assert main(["deals", "convert", str(club36), str(club36), "--format", "dup"]) == 2
    one_line(capsys, "cannot write the converted file over")
    link = tmp_path / "link.pbn"
    link.symlink_to(club36)
    assert main(["deals", "convert", str(club36), str(link)]) == 2
    one_line(capsys, "cannot write the converted file over")
    assert club36.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["club36.pbn", "link.pbn"]
    # Other names are written as before.
    assert main(["deals", "convert", str(club36), str(tmp_path / "copy.dup")]) == 0


def test_vision_watch_checks_its_outputs_before_watching(
        corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    played = Path(shutil.copy(corpus / "endplay" / "example1.pbn", tmp_path / "played.pbn"))
    before = played.read_bytes()
    assert main(["vision", "watch", str(played), "--calm", "--pbn", str(played)]) == 2
    one_line(capsys, "cannot write the PBN file over")
    assert main(["vision", "watch", str(played), "--calm", "--pbn",
                 str(tmp_path / "missing" / "w.pbn")]) == 2
    one_line(capsys, "the folder", "does not exist")
    assert played.read_bytes() == before


# --------------------------------------------------------------------------- vision
def test_vision_options_and_files_out_of_range(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")  # was EOFError
    assert main(["vision", "read", "synthetic:cards=SA", "--design", str(empty)]) == 2
    one_line(capsys, f"{empty}: not a learned deck design (the file is empty)")
    picture = tmp_path / "picture.npz"
    picture.write_bytes(PNG)  # numpy's advice to load it unsafely is not shown
    assert main(["vision", "read", "synthetic:cards=SA", "--design", str(picture)]) == 2
    assert "unsafely" not in one_line(capsys, "not a learned deck design (not a .npz file)")
    folder = tmp_path / "folder"
    folder.mkdir()
    assert main(["vision", "print-deck", "-o", str(folder)]) == 2  # was IsADirectoryError
    one_line(capsys, "that is a folder")
    afile = tmp_path / "afile.png"
    afile.write_bytes(PNG)
    assert main(["vision", "render", "synthetic:cards=SA", "-o", str(afile)]) == 2  # FileExistsError
    one_line(capsys, "it is a file, not a folder")
    source = "synthetic:design=standard,cards=sorted+check,seed=4"
    assert main(["vision", "learn", "x", "--source", source, "-o", str(folder),
                 "--replace"]) == 2  # learned the whole pass, then IsADirectoryError
    one_line(capsys, "cannot save the design: that is a folder")
    # Each of these was a traceback (islice, multiprocessing, a joker index) or a wait.
    usage_error(capsys, ["vision", "learn", "x", "--source", source, "--jokers", "-1"], "--jokers")
    usage_error(capsys, ["vision", "learn", "x", "--source", source, "--patience", "-1"],
                "--patience")
    usage_error(capsys, ["vision", "bench", "--workers", "0"], "--workers")
    usage_error(capsys, ["vision", "bench", "--frames", "0"], "--frames")
    usage_error(capsys, ["vision", "print-deck", "-o", str(tmp_path / "d.pdf"), "--jokers",
                         "1000"], "--jokers")
    usage_error(capsys, ["vision", "read", "synthetic:cards=SA", "--barcode", "--limit", "0"],
                "--limit")


# ----------------------------------------------------- the machine, the panel, the rig
@pytest.mark.parametrize(("argv", "needle"), [
    (["emulator", "--tcp", "-1"], "--tcp"),  # OverflowError from bind()
    (["emulator", "--tcp", "99999"], "--tcp"),
    (["emulator", "--board", "1000000"], "--board"),  # struct.error in the BOARD event
    (["emulator", "--board", "-1"], "--board"),
    (["emulator", "--byte-error-rate", "2"], "--byte-error-rate"),
    (["emulator", "--time-scale", "-1"], "--time-scale"),
    (["emulator", "--decks", "0"], "--decks"),
    (["deal", "x.pbn", "--time-scale", "-1"], "--time-scale"),  # as the emulator's own
    (["serve", "--port", "-1"], "--port"),  # OverflowError from bind()
    (["serve", "--port", "99999"], "--port"),
])
def test_adapter_numbers_out_of_range_are_usage_errors(
        argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    usage_error(capsys, argv, needle)


def test_deal_sample_name_is_checked_before_dealing(
        club36: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A name without a picture suffix was a cv2.error after the whole set was dealt.
    usage_error(capsys, ["deal", str(club36), "--machine", "emulator", "--time-scale", "0.01",
                         "--boards", "1", "--quiet", "--sample", str(tmp_path / "sample")],
                "--sample", "the camera's sample is a picture")
    usage_error(capsys, ["deal", str(club36), "--machine", "emulator", "--sample",
                         str(tmp_path)], "--sample", "that is a folder")
    assert not (tmp_path / "instance").exists()  # no job was opened


def test_demo_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("keep me")
    assert main(["demo", "--out", str(afile), "--no-deal", "--no-serve"]) == 2  # FileExistsError
    one_line(capsys, "the demo writes its files into a folder")
    assert afile.read_text() == "keep me"
