"""Sealed means sealed (issue 13, finding 2): no writer, page or export shows a sealed set's hands
unless it is told to unseal, and unsealing is said on stderr or in the audit log.

The writers are enumerated, not listed: every format :func:`dealer.formats.writable` names is
an output of ``deals convert``, ``deals export``, ``deals new --seal`` and ``deals recreate``,
and every CLI command with an output must take ``--unseal`` (or be in :data:`NO_SEALED_INPUT`
with the reason it can never hold a sealed set's hands).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.board import DealSet
from dealer.cli import build_parser, main
from dealer.deal import Deal
from dealer.formats import UNNUMBERED
from dealer.formats.sealing import UNSEAL_HINT, policy
from dealer.generate import random_dealset
from dealer.seats import Seat
from dealer.store import Store, audit

BIN = Path(sys.executable).parent / "boardwright"
OUTPUTS = formats.writable()
# Big Deal's sealed files: DLM Status=Sealed and the blind DUP (our writers are byte-for-byte
# Big Deal's, see test_format_duplimate.py).
SEALED_SOURCES = ("dlm", "dup")


# --------------------------------------------------------------------------- helpers
def hand_texts(ds: DealSet) -> list[str]:
    """Every hand of ``ds`` as text a writer could put in a file: PBN and LIN holdings."""
    out = []
    for b in ds:
        assert b.deal is not None
        for seat in Seat:
            hand = b.deal[seat]
            out.append(hand.to_pbn())  # "AKJ4.T98.765.32"
            lin = "".join(s + h for s, h in zip("SHDC", hand.to_pbn().split("."), strict=True))
            out.append(lin)            # "SAKJ4HT98D76532" (LIN's md)
    return out


def read_back(path: Path, fmt: str, first: int) -> DealSet | None:
    try:
        return formats.read(path, format=fmt,
                            first_board=first if fmt in UNNUMBERED or fmt == "dup" else None)
    except Exception:  # unreadable is fine: nothing is shown from it
        return None


def assert_no_hand(path: Path, ds: DealSet, fmt: str) -> None:
    """No hand of ``ds`` is in the file: not as text, and not when boardwright reads it."""
    if not path.exists():
        return
    data = path.read_bytes()
    for text in hand_texts(ds):
        assert text.encode() not in data, f"{path.name} holds the hand {text}"
    back = read_back(path, fmt, ds.boards[0].number)
    if back is not None:
        originals = {b.number: b.deal for b in ds}
        assert all(b.deal is None or b.deal != originals.get(b.number) for b in back), \
            f"{path.name} reads back with the hands"


def assert_hands(path: Path, ds: DealSet, fmt: str) -> DealSet:
    back = read_back(path, fmt, ds.boards[0].number)
    assert back is not None and back.deals == ds.deals, f"{path.name} lacks the hands"
    return back


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def assert_refused(rc: int, err: str, out_path: Path) -> None:
    assert rc == 2, err
    # The reader's notes may come first (a DUP cannot say its first board); the error
    # itself is one line.
    errors = [ln for ln in err.strip().splitlines()
              if not ln.startswith(("boardwright: note:", "boardwright: warning:"))]
    assert len(errors) == 1 and UNSEAL_HINT in errors[0], err
    assert not out_path.exists(), "a refused writer must write nothing"


@pytest.fixture
def plain() -> DealSet:
    return random_dealset(range(1, 9), event="Simultaneous pairs")


@pytest.fixture(params=SEALED_SOURCES)
def sealed_file(request: pytest.FixtureRequest, tmp_path: Path, plain: DealSet) -> Path:
    """A sealed DLM (Status=Sealed) or blind DUP, as Big Deal writes them."""
    path = tmp_path / f"sealed.{request.param}"
    formats.write(DealSet(plain.boards, dict(plain.meta), sealed=True), path, unseal=True)
    assert formats.read(path).sealed  # the reader marks it sealed
    return path


@pytest.fixture
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "instance"
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(folder))
    monkeypatch.delenv("BOARDWRIGHT_DATABASE_URL", raising=False)
    return folder


# --------------------------------------------------------------------------- the writers
def test_every_writable_format_has_a_seal_policy() -> None:
    assert OUTPUTS and set(OUTPUTS) >= {"pbn", "lin", "dlm", "dup", "bri", "dge"}
    for fmt in OUTPUTS:
        assert policy(fmt) in ("withhold", "machine", "refuse")
    assert policy("pbn") == "withhold"  # PBN alone can carry a sealed set without hands


@pytest.mark.parametrize("fmt", OUTPUTS)
def test_each_writer_withholds_or_refuses_a_sealed_set(fmt: str, plain: DealSet) -> None:
    sealed = DealSet(plain.boards, dict(plain.meta), sealed=True)
    if policy(fmt) == "withhold":
        data = formats.dumps(sealed, fmt)
        assert all(t.encode() not in data for t in hand_texts(plain))
        back = formats.loads(data, format=fmt)
        assert back.sealed and all(b.deal is None for b in back)
        assert b'[Sealed "Yes"]' in data and b"% boardwright: sealed set" in data
    else:
        with pytest.raises(formats.FormatError, match="use --unseal"):
            formats.dumps(sealed, fmt)
    # One board tagged [Sealed "Yes"] is enough to seal the set for every writer.
    tagged = DealSet([*plain.boards], dict(plain.meta))
    tagged.boards[3].tags["Sealed"] = "Yes"
    if policy(fmt) == "withhold":
        assert all(t.encode() not in formats.dumps(tagged, fmt) for t in hand_texts(plain))
    else:
        with pytest.raises(formats.FormatError, match="use --unseal"):
            formats.dumps(tagged, fmt)


@pytest.mark.parametrize("out_fmt", OUTPUTS)
def test_convert_a_sealed_file_writes_no_hand_unless_unsealed(
        out_fmt: str, sealed_file: Path, plain: DealSet, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"out.{out_fmt}"
    rc, stdout, err = run_main(capsys, "deals", "convert", str(sealed_file), str(out))
    if policy(out_fmt) == "withhold":
        assert rc == 0, err
        assert "sealed: no hands written" in stdout
        assert_no_hand(out, plain, out_fmt)
        assert formats.read(out).sealed
    else:
        assert_refused(rc, err, out)
    # --unseal writes them, and says so on stderr.
    rc, stdout, err = run_main(capsys, "deals", "convert", str(sealed_file), str(out),
                               "--unseal")
    assert rc == 0, err
    assert "boardwright: unsealed: the hands of sealed set" in err and str(out) in err
    back = assert_hands(out, plain, out_fmt)
    # DLM and DUP keep the machine's seal: the dealing machine still shows no cards.
    assert back.sealed == (policy(out_fmt) == "machine")


def test_convert_refusal_is_one_line_and_exit_status_2(sealed_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.lin"
    p = subprocess.run([str(BIN), "deals", "convert", str(sealed_file), str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.strip().splitlines() if not ln.startswith("boardwright: note:")]
    assert lines == [
        f"boardwright: {out}: {UNSEAL_HINT} (lin files cannot mark a set sealed)"]
    assert not out.exists()


@pytest.mark.parametrize("out_fmt", OUTPUTS)
def test_export_a_stored_sealed_set_writes_no_hand_unless_unsealed_and_logs_it(
        out_fmt: str, instance: Path, plain: DealSet, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open() as store:
        set_id = store.save(DealSet(plain.boards, dict(plain.meta), sealed=True), name="sim")
    out = tmp_path / f"export.{out_fmt}"
    rc, stdout, err = run_main(capsys, "deals", "export", str(set_id), str(out))
    if policy(out_fmt) == "withhold":
        assert rc == 0, err
        assert_no_hand(out, plain, out_fmt)
    else:
        assert_refused(rc, err, out)
    with Store.open() as store:
        assert audit.entries(store, action="unseal") == []
    rc, stdout, err = run_main(capsys, "deals", "export", str(set_id), str(out), "--unseal")
    assert rc == 0, err
    assert_hands(out, plain, out_fmt)
    assert "boardwright: unsealed" in err
    with Store.open() as store:
        lines = audit.entries(store, action="unseal")
        assert store.load(set_id).sealed  # writing the hands out does not unseal the set
    assert len(lines) == 1 and lines[0].subject == f"deal set {set_id}"
    assert lines[0].who.startswith("cli:") and str(out) in lines[0].detail


@pytest.mark.parametrize("out_fmt", OUTPUTS)
def test_new_seal_writes_no_hand_unless_unsealed(
        out_fmt: str, instance: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"new.{out_fmt}"
    rc, stdout, err = run_main(capsys, "deals", "new", "--boards", "1-8", "--seal", "-o",
                               str(out))
    used = instance / "used-secrets.txt"
    if policy(out_fmt) == "withhold":
        assert rc == 0, err
        back = formats.read(out)
        assert back.sealed and all(b.deal is None for b in back)
        # The secret record recreates the set sealed: recreate is no way round the seal.
        record = Path(f"{out}.secret.json")
        again = tmp_path / f"again.{out_fmt}"
        rc, _, err = run_main(capsys, "deals", "recreate", str(record), "-o", str(again))
        assert rc == 0 and all(b.deal is None for b in formats.read(again)), err
        rc, _, err = run_main(capsys, "deals", "recreate", str(record), "-o", str(again),
                              "--unseal")
        assert rc == 0 and "boardwright: unsealed" in err
        assert all(b.deal is not None and b.deal.is_complete for b in formats.read(again))
    else:
        assert_refused(rc, err, out)
        assert not used.exists() or not used.read_text().strip(), "no secret spent on a refusal"
        assert not Path(f"{out}.secret.json").exists()
    rc, stdout, err = run_main(capsys, "deals", "new", "--boards", "1-8", "--seal", "--unseal",
                               "-o", str(out))
    assert rc == 0 and "boardwright: unsealed" in err, err
    back = read_back(out, out_fmt, 1)
    assert back is not None and all(d is not None and d.is_complete for d in back.deals)
    assert back.sealed == (policy(out_fmt) == "machine")


def test_show_analyse_records_and_curtains_refuse_a_sealed_set_unless_unsealed(
        sealed_file: Path, plain: DealSet, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    north = plain.boards[0].deal[Seat.NORTH]  # type: ignore[index]
    spades = " ".join(north.to_pbn().split(".")[0])
    rc, stdout, err = run_main(capsys, "deals", "show", str(sealed_file), "--board", "1")
    assert rc == 0 and "sealed" in stdout
    assert not any(s in stdout for s in "♠♥♦♣")
    rc, stdout, err = run_main(capsys, "deals", "show", str(sealed_file), "--board", "1",
                               "--unseal")
    assert rc == 0 and "♠" in stdout and "boardwright: unsealed" in err
    assert spades.replace("T", "10") in stdout or spades in stdout

    analysed = tmp_path / "dd.pbn"
    rc, _, err = run_main(capsys, "deals", "analyse", str(sealed_file), "-o", str(analysed))
    assert_refused(rc, err, analysed)

    for verb, extra in (("records", ("--no-dd", "--html", str(tmp_path / "r.html"))),
                        ("curtains", ("--sheets", str(tmp_path / "sheets.pdf")))):
        pdf = tmp_path / f"{verb}.pdf"
        rc, _, err = run_main(capsys, verb, str(sealed_file), "-o", str(pdf), *extra)
        assert_refused(rc, err, pdf)
        assert not (tmp_path / "r.html").exists() and not (tmp_path / "sheets.pdf").exists()
        rc, _, err = run_main(capsys, verb, str(sealed_file), "-o", str(pdf), *extra,
                              "--unseal")
        assert rc == 0 and "boardwright: unsealed" in err, err
        text = pdf_text(pdf)
        assert "♠" in text  # the hands are there once unsealed
        for side in ("r.html", "sheets.pdf"):
            (tmp_path / side).unlink(missing_ok=True)


def pdf_text(path: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_seal_verb_and_a_sealed_record(instance: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "club.pbn"
    assert run_main(capsys, "deals", "new", "--boards", "1-4", "-o", str(out))[0] == 0
    hands = formats.read(out)
    # Sealing into a DLM would have to keep the hands: refused without --unseal.
    dlm = tmp_path / "club.dlm"
    rc, _, err = run_main(capsys, "deals", "seal", str(out), "-o", str(dlm),
                          "--record", f"{out}.secret.json")
    assert_refused(rc, err, dlm)
    assert run_main(capsys, "deals", "seal", str(out))[0] == 0
    assert_no_hand(out, hands, "pbn")


# --------------------------------------------------------------------------- coverage guard
#: CLI commands with an output that can never hold a sealed set's hands, and why.
NO_SEALED_INPUT = {
    "deals commit": "writes the public commitment and its secret: no hand",
    "deals generate": "derives a committed session afresh: no sealed input",
    "deals teach": "deals a new teaching set: no sealed input",
    "deals unseal": "is the explicit unsealing verb (says so on stderr)",
    "demo": "deals its own demonstration set",
    "vision learn": "writes a learned deck design: no hand",
    "vision learn-codes": "writes where a barcoded deck's codes lie: no hand",
    "vision print-deck": "prints the cards of a deck: no deal set",
    "vision render": "writes camera frames of a synthetic source",
}
_OUTPUT_DESTS = {"output", "out", "html", "sheets", "pbn", "lin"}


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _leaves(sub, (*path, name))


def test_every_cli_command_that_writes_or_shows_hands_takes_unseal() -> None:
    found = set()
    missing = []
    for name, parser in _leaves(build_parser()):
        dests = {a.dest for a in parser._actions}
        options = {o for a in parser._actions for o in a.option_strings}
        if not (dests & _OUTPUT_DESTS) and name != "deals show":
            continue
        found.add(name)
        if name not in NO_SEALED_INPUT and "--unseal" not in options:
            missing.append(name)
    assert not missing, f"commands that write hands without --unseal: {missing}"
    assert set(NO_SEALED_INPUT) <= found, "a stale entry in NO_SEALED_INPUT"
    assert {"deals convert", "deals export", "records", "curtains", "deals new"} <= found


def test_a_deal_from_a_sealed_board_tag_is_sealed_in_the_model() -> None:
    # A PBN whose boards carry [Sealed "Yes"] and (wrongly) a Deal tag is still sealed.
    d = Deal.from_pbn("N:AKQJ.T98.765.432 T987.765.432.AKQ 654.432.AKQJ.JT9 32.AKQJ.T98.8765")
    text = (f'[Board "1"]\n[Sealed "Yes"]\n[Deal "{d.to_pbn()}"]\n\n').encode()
    ds = formats.loads(text, format="pbn")
    assert ds.sealed
    assert b"AKQJ.T98.765.432" not in formats.dumps(ds, "pbn")


# --------------------------------------------------------------------------- the panel
def html_hands(ds: DealSet) -> list[str]:
    """Each hand as :func:`dealer.records.board_html` draws it (spades and hearts lines)."""
    def spaced(holding: str) -> str:
        return " ".join("10" if r == "T" else r for r in holding)

    out = []
    for b in ds:
        assert b.deal is not None
        for seat in Seat:
            s, h, _, _ = b.deal[seat].to_pbn().split(".")
            out.append(f'</span> {spaced(s)}<br><span class="bw-red">♥</span> {spaced(h)}<br>')
    return out


@pytest.fixture
def panel(tmp_path: Path):  # type: ignore[no-untyped-def]
    from web_helpers import director, make_app

    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    director(c)
    return app, c


def _sealed_event(app, c, plain: DealSet) -> tuple[int, int, str]:  # type: ignore[no-untyped-def]
    from web_helpers import new_event, table_tokens

    from webpanel.db import store

    with app.app_context():
        set_id = store().save(DealSet(plain.boards[:6], dict(plain.meta), sealed=True),
                              name="simultaneous")
    ce = new_event(c, deal_set_id=str(set_id))
    return set_id, ce, table_tokens(app, ce)[1]


def _play_round_1(phone, tok: str) -> None:  # type: ignore[no-untyped-def]
    """Table 1 enters both boards of round 1, so the reveal rule lets it see board 1."""
    from web_helpers import csrf

    for board in (1, 2):
        data = {"csrf_token": csrf(phone, f"/t/{tok}?round=1"),
                "submission_id": f"sealed-{board}", "board": str(board), "level": "3",
                "strain": "NT", "dbl": "", "declarer": "N", "tricks": "9", "lead": ""}
        r = phone.post(f"/t/{tok}/enter?round=1", data=data)
        assert r.status_code == 302, r.get_data(as_text=True)


def _unseal(c, set_id: int, *, confirm: bool):  # type: ignore[no-untyped-def]
    from web_helpers import csrf

    data = {"csrf_token": csrf(c, "/dealsets/"), "sealed": "0"}
    if confirm:
        data["confirm"] = "yes"
    return c.post(f"/dealsets/{set_id}/seal", data=data)


def test_panel_shows_and_exports_no_hand_of_a_sealed_set_until_the_director_unseals(
        panel, plain: DealSet) -> None:  # type: ignore[no-untyped-def]
    from webpanel.db import store

    app, c = panel
    six = DealSet(plain.boards[:6], dict(plain.meta))
    set_id, ce, tok = _sealed_event(app, c, plain)
    phone = app.test_client()
    _play_round_1(phone, tok)

    def pages() -> dict[str, bytes]:
        got = {
            "table board page": phone.get(f"/t/{tok}/board/1"),
            "table entry page": phone.get(f"/t/{tok}"),
            "deal sets page": c.get("/dealsets/"),
            "results page": c.get(f"/events/{ce}/results"),
            "results PBN": c.get(f"/events/{ce}/export.pbn"),
            "results USEBIO": c.get(f"/events/{ce}/export.xml"),
            "results CSV": c.get(f"/events/{ce}/export.csv"),
        }
        for name, r in got.items():
            assert r.status_code == 200, (name, r.status_code)
        return {name: r.get_data() for name, r in got.items()}

    # Sealed: no hand on any page or in any export, even after the table played board 1.
    for name, body in pages().items():
        for text in [*hand_texts(six), *html_hands(six)]:
            assert text.encode() not in body, f"{name} shows a hand of the sealed set"
    assert b'id="handrecord"' not in phone.get(f"/t/{tok}/board/1").get_data()
    assert b'[Sealed "Yes"]' in c.get(f"/events/{ce}/export.pbn").get_data()
    assert b"HANDSET" not in c.get(f"/events/{ce}/export.xml").get_data()
    results_pdf = c.get(f"/events/{ce}/export.pdf")
    assert results_pdf.status_code == 200
    assert not any(s in pdf_bytes_text(results_pdf.get_data()) for s in "♠♥♦♣")
    # The deal-sets page offers neither PDF, and both answer a clear 403 page.
    listing = c.get("/dealsets/").get_data(as_text=True)
    assert f"/dealsets/{set_id}/curtains.pdf" not in listing
    assert f"/dealsets/{set_id}/records.pdf" not in listing
    for kind in ("curtains", "records"):
        r = c.get(f"/dealsets/{set_id}/{kind}.pdf")
        assert r.status_code == 403 and r.mimetype == "text/html"
        assert "is sealed" in r.get_data(as_text=True)

    # Unsealing needs the confirmation (and the CSRF token); nothing is logged without it.
    r = c.post(f"/dealsets/{set_id}/seal", data={"sealed": "0", "confirm": "yes"})
    assert r.status_code == 400
    assert _unseal(c, set_id, confirm=False).status_code == 302
    with app.app_context():
        assert store().load(set_id).sealed
        assert audit.entries(store(), action="unseal") == []
    assert _unseal(c, set_id, confirm=True).status_code == 302
    with app.app_context():
        assert not store().load(set_id).sealed
        lines = audit.entries(store(), action="unseal")
    assert [(e.who, e.subject) for e in lines] == [("director td", f"deal set {set_id}")]
    listing = c.get("/dealsets/").get_data(as_text=True)
    assert 'class="grid audit-log"' in listing and f"deal set {set_id}" in listing
    assert f"/dealsets/{set_id}/curtains.pdf" in listing

    # Unsealed: the same paths show the hands (so the checks above could fail). Table 1
    # finished round 1, so the default reveal rule (after the round) shows board 1.
    page = phone.get(f"/t/{tok}/board/1").get_data()
    assert b'id="handrecord"' in page
    assert any(t.encode() in page for t in html_hands(DealSet(six.boards[:1])))
    with app.app_context():
        from webpanel import handrecord

        fragment = str(handrecord.board_fragment(store().load(set_id).boards[0]))
    assert any(t in fragment for t in html_hands(DealSet(six.boards[:1])))
    assert b"[Deal " in c.get(f"/events/{ce}/export.pbn").get_data()
    curtains = c.get(f"/dealsets/{set_id}/curtains.pdf")
    assert curtains.status_code == 200 and "♠" in pdf_bytes_text(curtains.get_data())


def pdf_bytes_text(data: bytes) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    return subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True,
                          check=True).stdout.decode("utf-8")


def test_dealing_a_sealed_set_is_blind(panel, plain: DealSet) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import update

    from dealer.store import dealing as jobs
    from dealer.store.panel_models import DealingJob
    from webpanel.db import store

    app, c = panel
    with app.app_context():
        sealed_id = store().save(DealSet(plain.boards, dict(plain.meta), sealed=True), name="s")
        open_id = store().save(DealSet(plain.boards, dict(plain.meta)), name="o")
        job_ids = {}
        for name, set_id in (("sealed", sealed_id), ("open", open_id)):
            job = jobs.create(store(), set_id)
            jobs.set_image(store(), job, b"\x89PNG\r\n\x1a\n" + bytes(8))
            with store().write() as s:
                s.execute(update(DealingJob).where(DealingJob.id == job).values(card="SA"))
            job_ids[name] = job
    sealed = c.get(f"/dealing/{job_ids['sealed']}/status.json").get_json()
    assert sealed["card"] == "sealed" and not sealed["has_image"]
    assert c.get(f"/dealing/{job_ids['sealed']}/image").status_code == 404
    assert "SA" not in c.get(f"/dealing/{job_ids['sealed']}").get_data(as_text=True)
    shown = c.get(f"/dealing/{job_ids['open']}/status.json").get_json()
    assert shown["card"] == "SA" and shown["has_image"]
    assert c.get(f"/dealing/{job_ids['open']}/image").status_code == 200
