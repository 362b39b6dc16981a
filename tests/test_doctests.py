"""Every module's examples run in the suite (issue 17 found 14 of them run, of 135 examples).

One test per module of the core and the adapters, so a failing example names its module.
The examples are documentation: they must stay true.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("dealer", "vision", "firmware_bridge", "webpanel")
# Run only under Alembic (env.py) or as a program (__main__): importing them does things.
SKIP = ("dealer.migrations", "dealer.__main__", "webpanel.__main__", "vision.__main__",
        "firmware_bridge.__main__")


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, f"{package}.")
                  if not m.name.startswith(SKIP)]
    return sorted(names)


MODULES = _modules()


def test_every_package_is_walked() -> None:
    assert {"dealer.play", "dealer.formats.lin", "vision.table_watch", "webpanel.events",
            "firmware_bridge.emulator"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
