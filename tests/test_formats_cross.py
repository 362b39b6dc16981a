"""All deal-file formats together.

* Every file in corpus/bigdeal (the same 36 deals in seven formats, and the same
  99 deals in two) decodes to identical boards: numbers, dealers,
  vulnerabilities and deals, with the format detected from the content.
* The DUP, DLM, BRI and DGE writers reproduce Big Deal's files byte for byte from
  the deals of Big Deal's PBN file.
* Random deals round-trip through every writable format in the registry, and
  each written file is detected as the format that wrote it.

A format whose reader is not in the registry yet is skipped with a reason, so
the test covers it as soon as its module lands.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer import formats
from dealer.board import Board, DealSet
from dealer.deal import Deal
from dealer.errors import FormatWarning
from dealer.seats import board_dealer, board_vulnerability

# The format each corpus file must be detected as (the extension is used for nothing else).
EXPECTED = {"dup": "dup", "dlm": "dlm", "bri": "bri", "dge": "dge", "pbn": "pbn", "lin": "lin",
            "csv": "csv"}
CORPUS_FILES = ["club36.dup", "club36.dlm", "club36.bri", "club36.dge", "club36.pbn",
                "club36.lin", "club36.csv", "full99.dlm", "full99.pbn"]
# Formats that carry no board numbers: their reader takes the first number as an option.
UNNUMBERED = ("bri", "dge")
# Formats that can mark a set sealed (DLM Status=Sealed, the blind DUP).
SEALABLE = ("dup", "dlm")


def _need(fmt: str) -> None:
    if fmt not in formats.registry():
        pytest.skip(f"the {fmt} reader is not in dealer.formats yet")


def _rows(ds: DealSet) -> list[tuple]:
    return [(b.number, b.dealer, b.vulnerability, b.deal) for b in ds]


def _read(path: Path) -> DealSet:
    fmt = EXPECTED[path.suffix[1:]]
    _need(fmt)
    data = path.read_bytes()
    assert formats.detect(data, source=path.name).name == fmt
    with warnings.catch_warnings():
        warnings.simplefilter("error", FormatWarning)  # Big Deal's files are clean
        return formats.loads(data, source=path.name)


@pytest.fixture(scope="module")
def reference(corpus: Path) -> dict[str, list[tuple]]:
    """Boards as the DUP (36) and DLM (99) files give them."""
    big = corpus / "bigdeal"
    return {"club36": _rows(formats.read(big / "club36.dup", format="dup")),
            "full99": _rows(formats.read(big / "full99.dlm", format="dlm"))}


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_corpus_file_decodes_to_the_same_boards(corpus, reference, name):
    ds = _read(corpus / "bigdeal" / name)
    rows = _rows(ds)
    expected = reference[name.split(".")[0]]
    assert len(rows) == len(expected) == (99 if name.startswith("full99") else 36)
    for got, want in zip(rows, expected, strict=True):
        assert got == want, f"{name}, board {want[0]}"
    # The numbers run 1..n and the markings follow the 16-board cycle (seed 002).
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r[1] == board_dealer(r[0]) and r[2] == board_vulnerability(r[0]) for r in rows)


@pytest.mark.parametrize("fmt,target", [("dup", "club36.dup"), ("dlm", "club36.dlm"),
                                        ("bri", "club36.bri"), ("dge", "club36.dge"),
                                        ("dlm", "full99.dlm")])
def test_writers_reproduce_big_deal_from_the_pbn_deals(corpus, fmt, target):
    big = corpus / "bigdeal"
    ds = _read(big / f"{target.split('.')[0]}.pbn")
    assert formats.dumps(ds, fmt) == (big / target).read_bytes()


# --- hypothesis: random deals through every writer and reader ------------------------------

def _writable() -> list[str]:
    return sorted(name for name, f in formats.registry().items() if f.dumps is not None)


@st.composite
def deal_sets(draw: st.DrawFn) -> DealSet:
    """1-6 consecutive boards with random full deals, within 1-99 (DLM and DUP's limit)."""
    count = draw(st.integers(1, 6))
    first = draw(st.integers(1, 100 - count))
    boards = []
    for i in range(count):
        order = draw(st.permutations(range(52)))
        owners = [0] * 52
        for pos, card in enumerate(order):
            owners[card] = pos // 13
        boards.append(Board(first + i, Deal.from_owners(owners)))
    return DealSet(boards, sealed=draw(st.booleans()))


def test_every_writable_format_is_covered():
    names = _writable()
    assert {"dup", "dlm", "bri", "dge"} <= set(names)
    assert "csv" not in names  # Big Deal's CSV is read only


@pytest.mark.parametrize("fmt", ["dup", "dlm", "bri", "dge", "pbn", "lin"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ds=deal_sets())
def test_round_trip_random_deals(fmt, ds):
    _need(fmt)
    f = formats.get(fmt)
    assert f.dumps is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)  # BRI/DGE: "no board numbers"
        # The encoding is what is tested, so a sealed set is written with its hands
        # (unseal); test_sealed.py tests the seal itself.
        data = f.dumps(ds, unseal=True)
    assert formats.detect(data).name == fmt
    options = {"first_board": ds.boards[0].number} if fmt in UNNUMBERED else {}
    back = f.loads(data, source=f"random.{fmt}", strict=True, **options)
    assert _rows(back) == _rows(ds)
    if fmt in SEALABLE:
        assert back.sealed == ds.sealed
    # Writing what was read gives the same bytes again (a format that cannot mark a set
    # sealed reads back unsealed, so that case may legitimately differ).
    if ds.sealed and fmt not in SEALABLE:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)
        assert f.dumps(back, unseal=True) == data


def test_round_trip_covers_every_writable_format_in_the_registry():
    # A new writer must be added to the parametrize list above.
    assert set(_writable()) <= {"dup", "dlm", "bri", "dge", "pbn", "lin"}
