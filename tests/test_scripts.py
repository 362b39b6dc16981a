"""The bootstrap scripts behind `make demo` and `make test`, run for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MISSING = "boardwright-no-such-package"


def _as_nobody(args: list[str]) -> list[str]:
    # As root, drop to `nobody` to exercise the non-root path; otherwise we already are not root.
    return ["runuser", "-u", "nobody", "--", *args] if os.geteuid() == 0 else args


@pytest.fixture
def world_readable() -> Iterator[Path]:
    """A temp folder `nobody` can read (pytest's own tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="bw-scripts-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _deps_script(base: Path, packages: list[str]) -> Path:
    """A copy of system-deps.sh beside a package list of our choosing."""
    folder = base / "scripts"
    folder.mkdir()
    shutil.copy(ROOT / "scripts" / "system-deps.sh", folder)
    (folder / "system-packages.txt").write_text(
        "# test list\n" + "".join(f"{p}   # why\n" for p in packages))
    folder.chmod(0o755)
    return folder / "system-deps.sh"


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs a Debian system (dpkg)")
def test_non_root_gets_the_exact_apt_command(world_readable: Path) -> None:
    script = _deps_script(world_readable, ["bash", MISSING])
    p = subprocess.run(_as_nobody(["bash", str(script)]), capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1
    assert f"missing system packages: {MISSING}" in p.stderr
    assert ("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
            f"--no-install-recommends {MISSING}") in p.stderr
    assert "bash" not in p.stderr.split("missing system packages:")[1].splitlines()[0]


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs a Debian system (dpkg)")
def test_nothing_to_do_when_everything_is_installed(world_readable: Path) -> None:
    script = _deps_script(world_readable, ["bash", "coreutils"])
    p = subprocess.run(_as_nobody(["bash", str(script)]), capture_output=True, text=True,
                       timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")


def test_run_tests_treats_no_tests_as_success(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-tests.sh"), str(empty), "-n", "0",
                        "-p", "no:cacheprovider"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "no tests collected" in p.stdout


def test_run_tests_passes_failures_through(tmp_path: Path) -> None:
    (tmp_path / "test_fails.py").write_text("def test_no():\n    assert 1 == 2\n")
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-tests.sh"), str(tmp_path), "-n", "0",
                        "-p", "no:cacheprovider"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stdout + p.stderr
