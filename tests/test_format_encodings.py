"""Encodings and layout (issue 16, finding 6): UTF-16, BOMs, charset lines, split tag pairs,
PBN to LIN results, and ``%`` lines inside a game."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main

# ../shared beside the checkout, or where BOARDWRIGHT_SHARED says (a clone made elsewhere).
BIGDEAL = Path(os.environ.get("BOARDWRIGHT_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "corpus" / "bigdeal"
DEAL = "N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765"


@pytest.mark.parametrize("name", ["club36.pbn", "club36.lin", "club36.csv", "club36.dlm"])
@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_files_read_in_every_text_format(name, codec, tmp_path, capsys):
    data = (BIGDEAL / name).read_bytes()
    ref = formats.loads(data, strict=True)
    f = tmp_path / name
    f.write_bytes(data.decode("latin-1").encode(codec))  # PowerShell's Out-File writes UTF-16
    assert formats.read(f, strict=True).deals == ref.deals
    assert formats.read(f, format=name.split(".")[1], strict=True).deals == ref.deals
    assert main(["deals", "check", str(f), "--strict"]) == 0
    assert "36 boards" in capsys.readouterr().out


def test_dlm_with_a_utf8_bom_is_read(tmp_path):
    data = (BIGDEAL / "club36.dlm").read_bytes()
    f = tmp_path / "bom.dlm"
    f.write_bytes(b"\xef\xbb\xbf" + data)
    assert formats.read(f, strict=True).deals == formats.loads(data).deals


def test_bridge_composer_charset_line_is_honoured():
    text = (f'% PBN 2.1\n% EXPORT\n%Content-type: text/plain; charset=ISO-8859-1\n'
            f'[Event "Caf\xe9 d\xe9j\xe0 vu"]\n[Board "1"]\n[Deal "{DEAL}"]\n').encode("latin-1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = formats.loads(text, strict=True)
    assert ds.meta["Event"] == "Café déjà vu"
    out = formats.dumps(ds, "pbn")
    assert b"charset=UTF-8" in out and "Café déjà vu".encode() in out
    assert formats.loads(out, strict=True).meta["Event"] == "Café déjà vu"


def test_a_tag_pair_split_over_lines_is_read():
    # PBN 1.0 section 3.1 allows white space, line ends included, inside a tag pair;
    # Tis Veugen's "no errors" test file has such a game.
    text = (f'% PBN 1.0\n[Event\n  "Split"]\n[Board\n"7"\n]\n[Deal "{DEAL}"]\n\n'
            f'[Event "Split"]\n[Board "8"]\n[Deal "{DEAL}"]\n').encode()
    ds = formats.loads(text, strict=True)
    assert ds.numbers == [7, 8] and ds.meta["Event"] == "Split"


def test_pbn_to_lin_keeps_a_result_with_no_play():
    text = (f'[Board "1"]\n[Deal "{DEAL}"]\n[Declarer "S"]\n[Contract "3NT"]\n'
            '[Result "9"]\n').encode()
    lin = formats.dumps(formats.loads(text), "lin")
    assert b"mc|9|" in lin
    assert formats.loads(lin).boards[0].tags["Result"] == "9"


def test_percent_lines_inside_a_game_stay_in_that_game():
    text = (f'% PBN 2.1\n% EXPORT\n[Board "1"]\n% checked by the director\n'
            f'[Deal "{DEAL}"]\n\n[Board "2"]\n[Deal "{DEAL}"]\n').encode()
    out = formats.dumps(formats.loads(text), "pbn").decode()
    head, game1, game2 = out.split("\n\n")[0], out.split("\n\n")[0], out.split("\n\n")[1]
    assert "% checked by the director" in game1
    assert head.index("% checked") > head.index('[Board "1"]')
    assert "% checked" not in game2
    assert out.count("% checked by the director") == 1
