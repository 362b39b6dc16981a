"""The type checker passes at the level the project holds (issue 17): ``dealer/``,
``vision/``, and the adapters ``firmware_bridge/`` and ``webpanel/`` with the rig
(``rig.py``), each clean with ``--ignore-missing-imports``. ``make lint`` runs the same
commands.

mypy comes with the test extras (``pip install -e '.[test]'``, as ``make test`` does); an
environment installed before it was added skips this test rather than failing it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What make lint checks; keep the two in step.
CHECKS = {"dealer": ["dealer", "--ignore-missing-imports"],
          "vision": ["vision", "--ignore-missing-imports"],
          "adapters": ["firmware_bridge", "webpanel", "rig.py", "--ignore-missing-imports"]}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_mypy_is_clean(name: str) -> None:
    pytest.importorskip("mypy")
    p = subprocess.run([sys.executable, "-m", "mypy", *CHECKS[name]], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_make_lint_runs_the_same_checks() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for args in CHECKS.values():
        assert "mypy " + " ".join(args) in makefile
