"""Sets that do not start at board 1 (issue 16, finding 2), and files with no or absurd boards (finding 4).

The files in tests/data/bigdeal528 are Big Deal 2.0's own output for boards 5-28
(see the README there).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.errors import FormatError, FormatNote
from dealer.seats import board_dealer, board_vulnerability

DATA = Path(__file__).parent / "data" / "bigdeal528"
NUMBERED = ("pbn", "lin", "csv", "dlm")
UNNUMBERED = ("dup", "bri", "dge")


def _reference():
    return formats.read(DATA / "b528.pbn", strict=True)


def _check_5_to_28(ds):
    ref = _reference()
    assert ds.numbers == list(range(5, 29))
    assert ds.deals == ref.deals
    for b in ds:
        assert (b.dealer, b.vulnerability) == (board_dealer(b.number), board_vulnerability(b.number))
        assert b.standard_markings


@pytest.mark.parametrize("fmt", NUMBERED)
def test_numbered_formats_read_boards_5_to_28_with_no_note(fmt):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = formats.read(DATA / f"b528.{fmt}", strict=True)
    _check_5_to_28(ds)


@pytest.mark.parametrize("fmt", UNNUMBERED)
def test_unnumbered_formats_say_they_cannot_tell_and_read_right_when_told(fmt):
    with pytest.warns(FormatNote, match="--first-board"):
        ds = formats.read(DATA / f"b528.{fmt}", strict=True)
    assert ds.numbers == list(range(1, 25))  # all the file says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        told = formats.read(DATA / f"b528.{fmt}", strict=True, first_board=5)
    _check_5_to_28(told)


def test_big_deal_dup_trailer_is_what_its_source_says():
    data = (DATA / "b528.dup").read_bytes()
    assert data[146:156] == b"YN1  0 24 "


def test_blind_files_of_boards_5_to_28():
    # Big Deal blanks board 1's screen only: a blind 5-28 DUP cannot be told from a plain one.
    ds = formats.read(DATA / "b528blind.dup", first_board=5)
    assert not ds.sealed
    assert ds.deals == _reference().deals
    dlm = formats.read(DATA / "b528blind.dlm", strict=True)
    assert dlm.sealed and dlm.numbers == list(range(5, 29))


def test_first_board_must_agree_with_a_numbered_file():
    with pytest.raises(FormatError, match="from 5, not from 3"):
        formats.read(DATA / "b528.pbn", first_board=3)


@pytest.mark.parametrize("fmt", UNNUMBERED)
def test_cli_first_board(fmt, capsys):
    assert main(["deals", "check", str(DATA / f"b528.{fmt}"), "--first-board", "5", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "24 boards (5-28)" in out and "note" not in out
    assert main(["deals", "check", str(DATA / f"b528.{fmt}")]) == 0
    out = capsys.readouterr().out
    assert "24 boards (1-24)" in out and "note: " in out and "--first-board" in out


def test_cli_convert_with_first_board(tmp_path, capsys):
    out = tmp_path / "x.pbn"
    assert main(["deals", "convert", str(DATA / "b528.bri"), str(out), "--first-board", "5"]) == 0
    _check_5_to_28(formats.read(out, strict=True))


def test_writer_warning_names_the_cli_option(tmp_path):
    with pytest.warns(UserWarning, match="--first-board 5"):
        formats.dumps(_reference(), "bri")


# ---------------------------------------------------------------- finding 4
def test_pbn_cut_inside_its_header_is_not_clean(tmp_path, capsys):
    cut = tmp_path / "cut.pbn"
    cut.write_bytes((DATA / "b528.pbn").read_bytes()[:20])  # "% PBN 2.1\n% EXPORT\n%"
    assert main(["deals", "check", str(cut)]) == 2
    assert "holds no boards" in capsys.readouterr().err


@pytest.mark.parametrize("noun", ["records", "curtains"])
def test_printing_an_empty_set_is_refused(noun, tmp_path, capsys):
    cut = tmp_path / "cut.pbn"
    cut.write_text("% PBN 2.1\n% EXPORT\n")
    out = tmp_path / "out.pdf"
    args = [noun, str(cut), "-o", str(out)] + (["--no-dd"] if noun == "records" else [])
    assert main(args) == 2
    assert "holds no boards" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("text", [
    '[Board "12345678901234567890123"]\n[Deal "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"]\n',
    "qx|o12345678901234567890123|md|1SAKQJHT98D765C432,ST987H765D432CAKQ,S654H432DAKQJCJT9|\n",
])
def test_a_23_digit_board_number_is_refused_with_its_line(text, tmp_path, capsys):
    f = tmp_path / ("x.pbn" if text.startswith("[") else "x.lin")
    f.write_text(text)
    with pytest.raises(FormatError, match="too large"):
        formats.read(f)
    assert main(["deals", "import", str(f)]) == 2
    err = capsys.readouterr().err
    assert "too large" in err and "Traceback" not in err
