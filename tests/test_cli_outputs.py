"""Output paths that cannot be written (issue 16, finding 5): one clear line, never a traceback.

A missing folder or an existing directory given as the output is refused
before anything is done, so ``deals new`` and ``deals teach`` use up no secret.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLUB36 = Path(os.environ.get("BOARDWRIGHT_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "corpus" / "bigdeal" / "club36.pbn"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dealer", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={"BOARDWRIGHT_INSTANCE": str(cwd / "inst"),
                                                      "PATH": "/usr/bin:/bin"})


def _cases(club36: str) -> list[tuple[str, list[str]]]:
    return [
        ("deals new", ["deals", "new", "--boards", "1-4", "-o", "{OUT}"]),
        ("deals teach", ["deals", "teach", "north: 12+ hcp", "--boards", "1-2", "-o", "{OUT}"]),
        ("deals commit", ["deals", "commit", "--event", "E", "--session", "1:1-4",
                          "--public-value", "x", "-o", "{OUT}"]),
        ("records -o", ["records", club36, "--no-dd", "-o", "{OUT}"]),
        ("records --html", ["records", club36, "--no-dd", "-o", "{TMP}/r.pdf", "--html", "{OUT}"]),
        ("curtains -o", ["curtains", club36, "-o", "{OUT}"]),
        ("curtains --sheets", ["curtains", club36, "-o", "{TMP}/c.pdf", "--sheets", "{OUT}"]),
        ("deals convert", ["deals", "convert", club36, "{OUT}"]),
        ("movement --asc", ["movement", "mitchell", "5", "--asc", "{OUT}"]),
    ]


@pytest.mark.parametrize("where", ["missing folder", "a directory"])
@pytest.mark.parametrize("case", range(9))
def test_unwritable_output_is_one_line(case, where, tmp_path):
    club36 = str(CLUB36.resolve())
    name, args = _cases(club36)[case]
    target = tmp_path / "missing" / "out.pbn" if where == "missing folder" else tmp_path / "adir.pbn"
    if where == "a directory":
        target.mkdir()
    args = [a.replace("{OUT}", str(target)).replace("{TMP}", str(tmp_path)) for a in args]
    r = _run(args, tmp_path)
    assert r.returncode == 2, (name, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, (name, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardwright: "), (name, r.stderr)
    # Nothing was done first: no secret record or secret file beside it, no other output.
    leftovers = sorted(p.name for p in tmp_path.rglob("*") if p.is_file() and "inst" not in p.parts)
    assert leftovers == [], (name, leftovers)
    registry = tmp_path / "inst"
    assert not any(p.is_file() and "secret" in p.name for p in registry.rglob("*")), name


@pytest.mark.parametrize("args", [
    ["movement", "howell", "3", "--boards-per-round", "0"],
    ["movement", "howell", "3", "--boards-per-round", "-2"],
    ["movement", "show", "x.asc", "--boards-per-round", "0"],
    ["movement", "mitchell", "5", "--asc", "MISSING/m.asc"],
])
def test_movement_arguments_are_checked(args, tmp_path):
    r = _run(args, tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "Error:" not in r.stderr.replace("error:", "")
