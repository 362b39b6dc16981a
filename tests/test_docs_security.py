"""docs/security.md names a test for each promise: every test it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_named_in_the_threat_model_exists() -> None:
    text = (ROOT / "docs" / "security.md").read_text()
    named: list[tuple[str, str]] = []
    current = ""
    # "`tests/x.py::test_a`, `::test_b`": a bare "::name" belongs to the file before it.
    for m in re.finditer(r"`(tests/[\w/]+\.py)?(?:::(\w+))?`", text):
        path, name = m.groups()
        if path:
            current = path
            assert (ROOT / path).is_file(), f"docs/security.md names a missing file {path}"
        if name:
            assert current, f"{name} has no file before it"
            named.append((current, name))
    assert len(named) >= 30
    for path, name in named:
        source = (ROOT / path).read_text()
        assert re.search(rf"^(async )?def {name}\(", source, re.M), \
            f"docs/security.md names {path}::{name}, which does not exist"
