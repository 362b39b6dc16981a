"""The `boardwright` command, run as a real subprocess through its installed entry point."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dealer import formats

BIN = Path(sys.executable).parent / "boardwright"
# Inputs in order of preference; formats still being written may be missing from the registry.
PREFERRED = ("pbn", "dup", "dlm", "bri", "dge", "lin")


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONWARNINGS": "default", **(env or {})}
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=120,
                          env=full_env, cwd=cwd)


def assert_one_line_error(p: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("boardwright: ")
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.fixture(scope="module")
def club36(corpus: Path) -> Path:
    for name in PREFERRED:
        if name in formats.names():
            return corpus / "bigdeal" / f"club36.{name}"
    pytest.skip(f"no reader for any of {PREFERRED} is registered yet")


@pytest.fixture
def instance(tmp_path: Path) -> dict[str, str]:
    return {"BOARDWRIGHT_INSTANCE": str(tmp_path / "instance")}


def test_help_lists_the_nouns() -> None:
    p = run("--help")
    assert p.returncode == 0
    assert "deals" in p.stdout and "demo" in p.stdout
    p = run("deals", "--help")
    for verb in ("convert", "show", "check", "import", "list", "export", "delete"):
        assert verb in p.stdout
    p = run("nosuchnoun")
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_show_one_board_as_a_diagram(club36: Path) -> None:
    p = run("deals", "show", str(club36), "--board", "3")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    # board 3 of the 16-board cycle: South deals, East-West vulnerable
    assert out.splitlines()[:3] == [line.rstrip() for line in out.splitlines()[:3]]
    assert out.startswith("Board 3 ")
    assert "Dealer South" in out and "Vul E-W" in out
    assert out.count("♠") == 4 and out.count("♥") == 4 and out.count("♦") == 4
    box = [line for line in out.splitlines() if "│" in line]
    hcp = [int(n) for line in box for n in re.findall(r"\d+", line.split("│")[1])]
    assert len(hcp) == 4 and sum(hcp) == 40
    assert "Board 4" not in out


def test_show_all_boards(club36: Path) -> None:
    p = run("deals", "show", str(club36))
    assert p.returncode == 0
    assert [int(n) for n in re.findall(r"^Board (\d+)", p.stdout, re.M)] == list(range(1, 37))
    assert p.stdout.count("Dealer North") == 9  # boards 1, 5, 9, 13 ... 33


def test_show_a_missing_board(club36: Path) -> None:
    assert_one_line_error(run("deals", "show", str(club36), "--board", "99"), "board 99")


def test_check_a_good_file(club36: Path) -> None:
    p = run("deals", "check", str(club36))
    assert p.returncode == 0, p.stderr
    assert "36 boards (1-36)" in p.stdout
    assert "every board holds a full, valid deal" in p.stdout


@pytest.mark.parametrize("target", ["pbn", "dup", "dlm", "bri", "dge", "lin"])
def test_convert_to_each_format_keeps_the_deals(club36: Path, tmp_path: Path,
                                                target: str) -> None:
    if target not in formats.names() or formats.get(target).dumps is None:
        pytest.skip(f"the {target} writer is not registered yet")
    out = tmp_path / f"out.{target}"
    p = run("deals", "convert", str(club36), str(out))
    assert p.returncode == 0, p.stderr
    assert f"wrote 36 boards to {out}" in p.stdout
    original, back = formats.read(club36), formats.read(out)
    assert back.deals == original.deals
    assert [(b.number, b.dealer, b.vulnerability) for b in back] == \
        [(b.number, b.dealer, b.vulnerability) for b in original]


def test_convert_with_explicit_format_and_unknown_format(club36: Path, tmp_path: Path) -> None:
    writable = [n for n in formats.names() if formats.get(n).dumps is not None]
    out = tmp_path / "no-extension"
    p = run("deals", "convert", str(club36), str(out), "--format", writable[0])
    assert p.returncode == 0, p.stderr
    assert formats.read(out).deals == formats.read(club36).deals
    assert_one_line_error(run("deals", "convert", str(club36), str(tmp_path / "x.zzz")),
                          "unknown format")
    assert_one_line_error(run("deals", "convert", str(club36), str(tmp_path / "nodir" / "x.dup"),
                              "--format", writable[0]), "cannot write", "nodir")


BROKEN = {
    "empty.pbn": b"",
    "garbage.dup": bytes(range(256)) * 3,
    "text.txt": b"this is a shopping list, not a deal file\nmilk\neggs\n",
    "badutf8.pbn": b'[Event "\xff\xfe\xfa"]\n[Board "1"]\n[Deal "N:\xff"]\n',
}


@pytest.mark.parametrize("verb", ["show", "check", "convert", "import"])
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_files_give_one_line_naming_the_file(tmp_path: Path, instance: dict[str, str],
                                                    verb: str, name: str) -> None:
    bad = tmp_path / name
    bad.write_bytes(BROKEN[name])
    extra = [str(tmp_path / "out.dup")] if verb == "convert" else []
    p = run("deals", verb, str(bad), *extra, env=instance)
    assert_one_line_error(p, str(bad))
    assert not (tmp_path / "out.dup").exists()


def test_truncated_file_is_reported(club36: Path, tmp_path: Path) -> None:
    data = club36.read_bytes()
    bad = tmp_path / f"truncated{club36.suffix}"
    bad.write_bytes(data[: len(data) // 3])
    p = run("deals", "check", str(bad))
    assert "Traceback" not in p.stderr
    if p.returncode == 2:
        assert_one_line_error(p, str(bad))
    else:  # a lenient reader may keep the whole boards it found; check must then say so
        assert p.returncode == 1, (p.stdout, p.stderr)
        assert "36 boards" not in p.stdout


def test_missing_file(tmp_path: Path) -> None:
    for verb in ("show", "check"):
        assert_one_line_error(run("deals", verb, str(tmp_path / "nope.pbn")),
                              str(tmp_path / "nope.pbn"), "cannot open")


def test_import_list_export_delete(club36: Path, tmp_path: Path,
                                   instance: dict[str, str]) -> None:
    p = run("deals", "list", env=instance)
    assert p.returncode == 0 and "holds no deal sets" in p.stdout
    p = run("deals", "import", str(club36), "--event", "Monday pairs", env=instance)
    assert p.returncode == 0, p.stderr
    assert "saved 36 boards (1-36) as deal set 1, event Monday pairs" in p.stdout
    db = Path(instance["BOARDWRIGHT_INSTANCE"]) / "boardwright.sqlite"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM boards").fetchone() == (36,)
    p = run("deals", "list", env=instance)
    assert p.returncode == 0
    row = p.stdout.splitlines()[1].split()
    assert row[:3] == ["1", "36", "1-36"] and "Monday" in row and club36.name in row
    writable = [n for n in formats.names() if formats.get(n).dumps is not None]
    out = tmp_path / f"back.{writable[0]}"
    p = run("deals", "export", "1", str(out), env=instance)
    assert p.returncode == 0, p.stderr
    assert formats.read(out).deals == formats.read(club36).deals
    assert_one_line_error(run("deals", "export", "7", str(out), env=instance), "no deal set 7")
    p = run("deals", "delete", "1", env=instance)
    assert p.returncode == 0 and "deleted deal set 1" in p.stdout
    assert "holds no deal sets" in run("deals", "list", env=instance).stdout


def test_store_problems_are_one_line(tmp_path: Path) -> None:
    env = {"BOARDWRIGHT_DATABASE_URL": "postgresql+psycopg://u:pw@/x?host=/nonexistent&port=1"}
    assert_one_line_error(run("deals", "list", env=env), "cannot open the database")
    inst = tmp_path / "inst"
    inst.mkdir()
    (inst / "boardwright.toml").write_text("database_url = \n")
    assert_one_line_error(run("deals", "list", env={"BOARDWRIGHT_INSTANCE": str(inst)}),
                          "boardwright.toml")


def test_demo_runs_the_tour(tmp_path: Path, instance: dict[str, str]) -> None:
    p = run("demo", "--no-serve", env=instance, cwd=tmp_path)
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "DIFFERENT" not in p.stdout
    demo = Path(instance["BOARDWRIGHT_INSTANCE"]) / "demo"
    written = sorted(f.suffix[1:] for f in demo.iterdir())
    assert written, "the demo wrote no deal files"
    for name in written:
        assert re.search(rf"^   {name} .*read back: identical$", p.stdout, re.M), name
    assert re.search(r"^Board 1 .*♠", p.stdout, re.M) and "Dealer North" in p.stdout
    db = Path(instance["BOARDWRIGHT_INSTANCE"]) / "boardwright.sqlite"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM boards").fetchone() == (36,)
    # every file the demo wrote holds the same 36 deals
    deals = {name: formats.read(demo / f"demo.{name}").deals for name in written}
    assert len({tuple(d) for d in deals.values()}) == 1
    # The demo's dealing is a job on the panel's Dealing page, published by the rig.
    with sqlite3.connect(db) as conn:
        jobs = conn.execute("SELECT state, boards_done, cards_done, message FROM dealing_jobs"
                            ).fetchall()
    assert [j[:3] for j in jobs] == [("done", 36, 36 * 52)], jobs
    assert "all 36 boards are dealt and checked" in jobs[0][3]
    assert re.search(r"^dealing job 1 \(the panel's Dealing page shows it", p.stdout, re.M)


def test_a_sealed_set_shows_no_hands(tmp_path: Path, instance: dict[str, str]) -> None:
    if "dlm" not in formats.names():
        pytest.skip("the dlm format (which carries the sealed status) is not registered yet")
    from dealer.generate import random_dealset

    ds = random_dealset(range(1, 5))
    ds.sealed = True
    path = tmp_path / "sealed.dlm"
    formats.write(ds, path, unseal=True)  # the machine's file: hands under Status=Sealed
    p = run("deals", "show", str(path), "--board", "2")
    assert p.returncode == 0, p.stderr
    assert "Board 2" in p.stdout and "sealed" in p.stdout
    assert not any(s in p.stdout for s in "♠♥♦♣"), "a sealed set must not show cards"
    assert "sealed" in run("deals", "check", str(path)).stdout
    assert run("deals", "import", str(path), env=instance).returncode == 0
    assert "(sealed)" in run("deals", "list", env=instance).stdout


# Board 1 of example1.pbn's deal (N:AKT2.5.K854.AQ43 ...), with three faults issue 16 found
# `check --strict` calling clean: an insufficient bid, Result "14", and in the play a card
# its seat does not hold (South plays North's CA).
_FAULTY_PBN = """[Event "faults"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKT2.5.K854.AQ43 8.AKQJ2.Q9.KJT92 QJ9.T643.T7632.6 76543.987.AJ.875"]
[Board "2"]
[Dealer "E"]
[Vulnerable "NS"]
[Deal "N:AKT2.5.K854.AQ43 8.AKQJ2.Q9.KJT92 QJ9.T643.T7632.6 76543.987.AJ.875"]
[Declarer "N"]
[Contract "1NT"]
[Result "14"]
[Auction "E"]
1H 1D Pass Pass
[Board "3"]
[Dealer "S"]
[Vulnerable "EW"]
[Deal "N:AKT2.5.K854.AQ43 8.AKQJ2.Q9.KJT92 QJ9.T643.T7632.6 76543.987.AJ.875"]
[Declarer "N"]
[Contract "1NT"]
[Result "7"]
[Auction "S"]
Pass Pass 1NT Pass
Pass Pass
[Play "E"]
CK CA C5 C3
*
"""


def test_check_replays_auctions_results_and_play(tmp_path: Path) -> None:
    path = tmp_path / "faults.pbn"
    path.write_text(_FAULTY_PBN.replace('[Board "2"]', '\n[Board "2"]')
                    .replace('[Board "3"]', '\n[Board "3"]'))
    p = run("deals", "check", str(path))
    assert p.returncode == 1, (p.stdout, p.stderr)
    out = p.stdout
    assert f"{path}: board 2, auction, call 2 (S): insufficient bid 1D" in out
    assert f'{path}: board 2: Result "14" is not a number of tricks from 0 to 13' in out
    assert f"{path}: board 3, trick 1, card 2 (S): CA is not in South's hand" in out
    assert "every board holds" not in out
    strict = run("deals", "check", str(path), "--strict")
    assert_one_line_error(strict, "3 faults in auctions, play or results")
    assert "insufficient bid 1D" in strict.stdout  # each fault is listed before the verdict


HUGE_ID = "9" * 25


@pytest.mark.parametrize("args", [
    ("deals", "export", HUGE_ID, "out.pbn"),
    ("deals", "delete", HUGE_ID),
    ("deal", HUGE_ID, "--job", HUGE_ID, "--machine", "emulator"),
], ids=["export", "delete", "deal-job"])
def test_a_huge_id_on_the_command_line_is_a_clear_one_line_error(
        args: tuple[str, ...], instance: dict[str, str], tmp_path: Path) -> None:
    """Issue 13, finding 10: the number never reaches the database driver."""
    p = run(*args, env=instance, cwd=tmp_path)
    assert_one_line_error(p, HUGE_ID, "no ")


def test_a_huge_board_number_in_an_imported_pbn_names_the_line(
        instance: dict[str, str], tmp_path: Path) -> None:
    f = tmp_path / "huge.pbn"
    f.write_text('[Event "x"]\n[Board "' + "9" * 23 + '"]\n[Dealer "N"]\n'
                 '[Vulnerable "None"]\n[Deal "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 '
                 'T987.T987.T9.T98 6.J6.J876.J76432"]\n\n')
    assert_one_line_error(run("deals", "import", str(f), env=instance), "huge.pbn",
                          "line 2", "Board", "too large")
