"""Shared fixtures. The corpus and seeds live in ../shared beside the clone (as in CI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BOARDWRIGHT_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"
SEEDS = SHARED / "seeds"


@pytest.fixture(scope="session")
def corpus() -> Path:
    assert CORPUS.is_dir(), f"the shared corpus is missing at {CORPUS}"
    return CORPUS


@pytest.fixture(scope="session")
def seeds() -> Path:
    assert SEEDS.is_dir(), f"the shared seeds are missing at {SEEDS}"
    return SEEDS
