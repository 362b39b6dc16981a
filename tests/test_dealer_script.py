"""Scripts of Hans van Staveren's ``dealer`` run as they are (issue 16, finding 8).

The acceptance rate of each example script Debian's ``dealer`` package ships is
compared with what the real ``/usr/games/dealer`` accepts on the same number of
deals, within statistical noise.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.cli import main
from dealer.constraints import Constraints
from dealer.dealer_script import parse_script, read_script
from dealer.generate import KeyedStream, owners_batch
from dealer.hand_features import Batch, ConstraintError
from dealer.seats import Seat, Vulnerability

EXAMPLES = Path("/usr/share/doc/dealer/examples")
DEALER = Path("/usr/games/dealer")
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("Descr.*")) if EXAMPLES.is_dir() else []
N = 60_000

needs_dealer = pytest.mark.skipif(not DEALER.exists() or not SCRIPTS,
                                  reason="Debian's dealer package is not installed")


def _our_rate(script_path: Path, n: int) -> float:
    s = read_script(str(script_path))
    c = Constraints(expr=s.mask, predeal=dict(s.predeal))
    owners = owners_batch(n, KeyedStream(b"rate " + script_path.name.encode()),
                          fixed=c.fixed_owners())
    return float(c.mask(Batch(owners)).mean())


def _dealer_rate(script_path: Path, n: int) -> float:
    out = subprocess.run([str(DEALER), "-s", "7", "-q", "-g", str(n), "-p", str(n),
                          str(script_path)], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    generated = int(re.search(r"Generated (\d+) hands", out).group(1))  # type: ignore[union-attr]
    produced = int(re.search(r"Produced (\d+) hands", out).group(1))  # type: ignore[union-attr]
    return produced / generated


def test_debian_ships_the_examples():
    if not SCRIPTS:
        pytest.skip("Debian's dealer package is not installed")
    assert len(SCRIPTS) >= 15


@needs_dealer
@pytest.mark.parametrize("name", SCRIPTS)
def test_acceptance_rate_matches_debian_dealer(name):
    path = EXAMPLES / name
    ours, theirs = _our_rate(path, N), _dealer_rate(path, N)
    p = (ours + theirs) / 2
    sigma = (p * (1 - p) * 2 / N) ** 0.5
    assert abs(ours - theirs) <= 5 * sigma + 3 / N, (name, ours, theirs)


@needs_dealer
def test_operator_order_script_gives_the_values_it_documents():
    path = EXAMPLES / "Descr.test_operator_order"
    text = path.read_text()
    s = parse_script(text, str(path))
    b = Batch(owners_batch(2, KeyedStream(b"ops")))
    expected = re.findall(r"(\w+), \"==(-?\d+)", text)
    assert len(expected) >= 30
    for name, value in expected:
        got = np.asarray(s.variables[name](b)).ravel()[0]
        assert int(got) == int(value), name


def test_the_constructs_of_finding_8():
    s = parse_script("""
        /* a C comment */  # and a shell one
        generate 1000
        produce 5
        dealer south
        vulnerable ns
        predeal west SA, H10, D2
        big = hcp(north) >= 12 ? 1 : 0      # ?:
        half = hcp(north) / 2 % 3           # / and %
        ctl = control(north) + controls(south) + loser(east) + losers(east, spades)
        tops = top2(north, spades) + top3(north, hearts) + top4(east, clubs) + top5(west, diamonds)
        condition big and half >= 0 and ctl >= 0 and tops >= 0
            and shape(north, any 4333, any 4432, 5332)
            and !hascard(west, 2C) and hascard(west, 10H) and not hascard(north, TS)
        action printpbn
    """, "t.dlr")
    assert (s.produce, s.generate, s.dealer, s.vulnerable) == (5, 1000, Seat.SOUTH,
                                                              Vulnerability.NS)
    assert s.predeal[Seat.WEST].to_pbn() == "A.T.2."
    assert s.actions == ["printpbn"]
    owners = owners_batch(20_000, KeyedStream(b"c"), fixed=Constraints(
        predeal=dict(s.predeal)).fixed_owners())
    b = Batch(owners)
    ok = s.mask(b)
    assert ok.any()
    hcp = b.hcp(0)
    assert np.all(hcp[ok] >= 12)
    assert not np.any(b.holds(3, 0)[ok])  # ♣2 not with West
    assert np.all(np.asarray(s.variables["half"](b)) == (hcp // 2) % 3)


@pytest.mark.parametrize("text, where", [
    ("condition hcp(north) >= \n  frobnicate(west)", "line 2"),
    ("x = 1\ncondition y > 2", "line 2"),
    ("condition tricks(north, notrump) >= 9", "line 1"),
    ("predeal north SZ2", "line 1"),
])
def test_script_mistakes_name_the_line(text, where):
    with pytest.raises(ConstraintError, match=where):
        parse_script(text, "bad.dlr")


@needs_dealer
def test_teach_runs_a_debian_example_as_it_is(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    out = tmp_path / "you_hold.pbn"
    assert main(["deals", "teach", "--file", str(EXAMPLES / "Descr.you_hold"), "-o", str(out)]) == 0
    ds = formats.read(out, strict=True)
    assert ds.numbers == list(range(1, 26))  # its "produce 25"
    for b in ds:
        assert b.dealer is Seat.WEST and b.vulnerability is Vulnerability.EW  # its dealer/vulnerable
        assert b.deal[Seat.SOUTH].to_pbn() == "AQ542.KJ87.32.AK"  # its predeal
        w = b.deal[Seat.WEST]
        assert w.hcp > 10 and w.suit_length(0) >= 3  # west1c: 11+ HCP, 3+ clubs
    again = tmp_path / "again.pbn"
    assert main(["deals", "recreate", str(out) + ".secret.json", "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()
    dlm = tmp_path / "pbn.dlm"
    assert main(["deals", "teach", "--file", str(EXAMPLES / "Descr.pbn"), "-o", str(dlm),
                 "--boards", "1-4"]) == 2  # dealer north/vul all on every board: DLM cannot say
    assert "standard cycle" in capsys.readouterr().err


def test_streamed_pbn_is_what_the_writer_writes():
    from io import BytesIO

    from dealer.board import Board, DealSet
    from dealer.constraints import find_deals, iter_owner_columns
    from dealer.formats import pbn
    from dealer.formats.pbn_stream import write_pbn_stream

    c = Constraints.parse("north: 15-17 hcp, balanced")
    meta = {"Generator": "test", "Event": "Club {night} 100%"}
    buf = BytesIO()
    write_pbn_stream(buf, iter_owner_columns(c, 60, key=b"s", batch_size=512, progress=False),
                     range(3, 63), meta, dealer=Seat.EAST)
    deals = find_deals(c, 60, key=b"s", batch_size=512, progress=False)
    ref = DealSet([Board(i + 3, d, Seat.EAST) for i, d in enumerate(deals)], dict(meta))
    assert buf.getvalue() == pbn.dumps(ref)
