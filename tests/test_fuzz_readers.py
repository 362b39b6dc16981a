"""Every reader under mutated input (issue 16): no traceback, no hang, no silent change.

Hypothesis mutates real files of each format (Big Deal's club36 set, endplay's
LIN): flipped, inserted and deleted bytes, cut files, repeated pieces. For
each input, every reader (and detection) must either return a set or raise a
:class:`BoardwrightError` with a message, within 10 s. And where the format can
tell: a file that strict reading accepts with no warning must mean what it is
read as. It must write back and read again to the same boards, and a DUP's
screen part must show the deal its dealing part holds.
"""

from __future__ import annotations

import os
import signal
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer import formats
from dealer.errors import BoardwrightError, FormatNote, FormatWarning

CORPUS = Path(os.environ.get("BOARDWRIGHT_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "corpus"
SEEDS = {
    "pbn": CORPUS / "bigdeal" / "club36.pbn",
    "lin": CORPUS / "bigdeal" / "club36.lin",
    "dup": CORPUS / "bigdeal" / "club36.dup",
    "dlm": CORPUS / "bigdeal" / "club36.dlm",
    "bri": CORPUS / "bigdeal" / "club36.bri",
    "dge": CORPUS / "bigdeal" / "club36.dge",
    "csv": CORPUS / "bigdeal" / "club36.csv",
    "lin-play": CORPUS / "endplay" / "example1.lin",
    "pbn-results": CORPUS / "endplay" / "sample.pbn",
}


class Hang(Exception):
    pass


def _alarm(signum, frame):  # noqa: ANN001
    raise Hang


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed[:4000] if draw(st.booleans()) else seed)
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "cut", "repeat", "byte"]))
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte":
            data[i] = draw(st.sampled_from(b'0123456789"[]{};%|,.-\n\r\x00\x06\xffAKQJTSHDCNEWx'))
        elif kind == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[i:i + draw(st.integers(1, 40))]
        elif kind == "cut":
            del data[i:]
        else:
            j = min(len(data), i + draw(st.integers(1, 200)))
            data[i:i] = data[i:j]
    return bytes(data)


def _rows(ds):
    return [(b.number, b.deal, b.dealer, b.vulnerability) for b in ds]


def _read(data: bytes, fmt: str | None, strict: bool):
    """(dealset or None, warnings); only BoardwrightError may come out, within 10 s."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                ds = formats.loads(data, format=fmt, source="fuzz", strict=strict)
            except BoardwrightError as exc:
                assert str(exc).strip(), "an error must say something"
                return None, []
    except Hang:
        pytest.fail(f"a {fmt or 'detected'} read took over 10 s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return ds, [w for w in caught if issubclass(w.category, FormatWarning)
                and not issubclass(w.category, FormatNote)]


@pytest.mark.parametrize("name", sorted(SEEDS))
@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_reader_under_mutation(name, data):
    seed = SEEDS[name].read_bytes()
    fmt = name.split("-")[0]
    blob = data.draw(mutated(seed))
    _read(blob, None, strict=False)  # detection and whichever reader it picks
    _read(blob, fmt, strict=False)
    ds, warned = _read(blob, fmt, strict=True)
    if ds is None or warned or not ds.boards:
        return
    # Accepted, strictly, without a word: it must mean what it was read as.
    f = formats.get(fmt)
    if fmt == "dup":
        from dealer.formats._duplimate import decode_dge
        from dealer.formats.dup import BLIND, RECORD

        for k, b in enumerate(ds):
            part = blob[k * RECORD + 78:k * RECORD + 146]
            if part != BLIND:
                assert decode_dge(part, board=b.number) == b.deal, "DUP parts disagree"
    if f.dumps is None or any(b.deal is None or b.deal.partial for b in ds):
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = f.dumps(ds)
    except BoardwrightError:
        return  # this set does not fit the format's writer (a documented refusal)
    options = {"first_board": ds.boards[0].number} if fmt in formats.UNNUMBERED else {}
    back = formats.loads(again, format=fmt, **options)
    assert _rows(back) == _rows(ds), f"{name}: read, written and read again differs"
