"""The import rules of the ports-and-adapters design, enforced by reading the source.

* ``dealer`` (the core) imports only the standard library, itself, and the
  third-party packages in :data:`CORE_THIRD_PARTY`.
* An adapter (``vision``, ``firmware_bridge``, ``webpanel``) may import ``dealer``
  and any library, but never another adapter or the rig.
* ``rig.py`` is the one module allowed to wire several adapters together.

See docs/architecture.md.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = "dealer"
ADAPTERS = ("vision", "firmware_bridge", "webpanel")
RIG = "rig"
# Third-party packages the core may use: storage, double-dummy analysis, PDF output, and
# numpy for vectorised deal generation. Anything else belongs in an adapter.
CORE_THIRD_PARTY = frozenset({"sqlalchemy", "alembic", "numpy", "endplay", "reportlab"})
# Named so a violation reads plainly; they are also simply not in the allowed set.
CORE_FORBIDDEN = frozenset({"flask", "werkzeug", "cv2", "serial", "pyzbar", "zxingcpp",
                            *ADAPTERS, RIG})
STDLIB = frozenset(sys.stdlib_module_names)


def imported_modules(source: str, filename: str = "<src>") -> list[tuple[int, str]]:
    """(line, top-level module) for every absolute import, including imports inside
    functions and ``TYPE_CHECKING`` blocks, and ``importlib.import_module("x")`` calls
    with a literal name."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name)
                       and node.func.id in ("import_module", "__import__")))):
            name = node.args[0].value
            if not name.startswith("."):
                found.append((node.lineno, name.split(".")[0]))
    return found


def violations(source: str, package: str, filename: str = "<src>") -> list[str]:
    """The import-rule violations of one file belonging to ``package``."""
    out = []
    for line, mod in imported_modules(source, filename):
        where = f"{filename}:{line}"
        if package == CORE:
            if mod in CORE_FORBIDDEN:
                out.append(f"{where}: the core imports {mod!r} (an adapter concern)")
            elif mod not in STDLIB and mod != CORE and mod not in CORE_THIRD_PARTY:
                out.append(f"{where}: the core imports third-party {mod!r}, which is not in "
                           f"the allowed set {sorted(CORE_THIRD_PARTY)}")
        elif package in ADAPTERS:
            if mod in ADAPTERS and mod != package:
                out.append(f"{where}: adapter {package!r} imports adapter {mod!r}; "
                           "wire them in rig.py instead")
            elif mod == RIG:
                out.append(f"{where}: adapter {package!r} imports the rig")
    return out


def _sources() -> list[tuple[str, Path]]:
    files = [(CORE, p) for p in sorted((ROOT / CORE).rglob("*.py"))]
    for adapter in ADAPTERS:
        files += [(adapter, p) for p in sorted((ROOT / adapter).rglob("*.py"))]
    return files


def test_the_scanner_catches_each_kind_of_violation() -> None:
    assert violations("import cv2", CORE)
    assert violations("from flask import Flask", CORE)
    assert violations("def f():\n    import serial.tools", CORE)
    assert violations("import importlib\nimportlib.import_module('webpanel.app')", CORE)
    assert violations("import requests", CORE)  # not in the allowed third-party set
    assert violations("from webpanel import app", "vision")
    assert violations("import rig", "firmware_bridge")
    assert not violations("import sqlite3, json\nfrom dealer.deal import Deal\nimport numpy", CORE)
    assert not violations("from . import sibling\nfrom .x import y", CORE)
    assert not violations("import cv2\nfrom dealer import Deal", "vision")


def test_core_and_adapters_follow_the_import_rules() -> None:
    problems = []
    files = _sources()
    assert any(pkg == CORE for pkg, _ in files), "no dealer sources found"
    for package, path in files:
        rel = str(path.relative_to(ROOT))
        problems += violations(path.read_text(encoding="utf-8"), package, rel)
    assert problems == [], "\n".join(problems)


def test_only_the_rig_may_wire_adapters_together() -> None:
    # pyproject ships the rig as the one top-level module (another issue writes it).
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["py-modules"] == [RIG]
    # Any other top-level module that pulls in two adapters is a second rig in disguise.
    problems = []
    for path in sorted(ROOT.glob("*.py")):
        if path.stem == RIG:
            continue
        mods = {m for _, m in imported_modules(path.read_text(encoding="utf-8"), path.name)}
        if len(mods & set(ADAPTERS)) > 1:
            problems.append(f"{path.name} wires adapters {sorted(mods & set(ADAPTERS))}; "
                            "only rig.py may")
    assert problems == []
    rig = ROOT / f"{RIG}.py"
    if rig.exists():  # the rig may import every adapter, but never the other way round
        assert violations(rig.read_text(encoding="utf-8"), RIG) == []


def test_importing_the_whole_core_loads_no_adapter_library() -> None:
    # The static scan above cannot see imports made by a library the core uses, so also
    # import every core module in a fresh interpreter and look at what got loaded.
    code = (
        "import importlib, pkgutil, sys, dealer\n"
        "for m in pkgutil.walk_packages(dealer.__path__, 'dealer.'):\n"
        # env.py runs only under Alembic; __main__ runs the command line
        "    if not m.name.startswith(('dealer.migrations', 'dealer.__main__')):\n"
        "        importlib.import_module(m.name)\n"
        f"bad = sorted(set({sorted(CORE_FORBIDDEN)!r}) & set(sys.modules))\n"
        "print(','.join(bad))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "", f"importing dealer loaded {p.stdout.strip()}"


def _module_names(package: str) -> dict[str, Path]:
    names = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ``modules`` it imports, counting imports inside functions
    (a lazy import that only dodges a circle at import time is still a circle)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:  # "from dealer import play" names a module
                    full = f"{node.module}.{alias.name}"
                    deps.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[name] = {d for d in deps if d in modules and d != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                cycles.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_cycle_finder_sees_a_lazy_import_circle() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_any_package() -> None:
    # dealer.constraints <-> dealer.constraint_lang was one (issue 17): the batch features
    # both need now live in dealer.hand_features.
    for package in (CORE, *ADAPTERS):
        cycles = import_cycles(import_graph(_module_names(package)))
        assert cycles == [], f"{package}: import cycles {cycles}"


# -- the store's privates stay in the store ---------------------------------------------

STORE_MODULE = ROOT / "dealer" / "store" / "repository.py"
# The unit-of-work privates other modules used to reach into (issue 17), named even
# after they were renamed, so they cannot come back under their old names.
STORE_PRIVATES = frozenset({"_write", "_read", "_sessions"})


def store_privates() -> frozenset[str]:
    """Every private name of ``Store``: its ``_methods`` and the ``self._x`` it sets."""
    tree = ast.parse(STORE_MODULE.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Store")
    names = set(STORE_PRIVATES)
    for node in ast.walk(cls):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "self" and isinstance(node.ctx, ast.Store)):
            name = node.attr
        else:
            continue
        if name.startswith("_") and not name.startswith("__"):
            names.add(name)
    return frozenset(names)


def private_reaches(source: str, filename: str = "<src>", names: frozenset[str] = STORE_PRIVATES,
                    skip_class: str | None = None) -> list[str]:
    """``x._write`` and the like on anything but ``self``/``cls`` (the class's own code)."""
    tree = ast.parse(source, filename)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == skip_class:
            skipped |= {id(n) for n in ast.walk(node)}
    return [f"{filename}:{node.lineno}: reaches into Store's private {node.attr!r}; "
            "use store.read() / store.write() / store.session() / store.turn()"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in names and id(node) not in skipped
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))]


def test_the_private_scanner_catches_a_reach_into_the_store() -> None:
    assert private_reaches("with store._write() as s:\n    pass")
    assert private_reaches("st._sessions()")
    assert private_reaches("store()._read()")
    assert not private_reaches("self._write(wire)")  # a class's own private, not the store's
    assert not private_reaches("with store.write() as s:\n    pass")
    assert {"_sessions", "_write", "_read"} <= store_privates()


def test_nothing_outside_the_store_reaches_into_its_privates() -> None:
    names = store_privates()
    problems = []
    files = [p for _, p in _sources()] + sorted((ROOT / "tests").rglob("*.py")) + sorted(
        (ROOT / "bench").rglob("*.py")) + sorted(ROOT.glob("*.py"))
    for path in files:
        if path.name == Path(__file__).name:
            continue  # this file names them on purpose
        rel = str(path.relative_to(ROOT))
        problems += private_reaches(path.read_text(encoding="utf-8"), rel, names,
                                    skip_class="Store" if path == STORE_MODULE else None)
    assert problems == [], "\n".join(problems)

# --------------------------------------------------------------------------- process channels
# Between processes, a dealing job has one channel: its row in the store (JobLink, see
# dealer/rig_ports.py). No program reads another's output, and none is paused by a signal:
# a paused host with a running machine would keep feeding cards (issue 17).
_OUTPUT_READERS = frozenset({"check_output", "getoutput", "getstatusoutput", "communicate",
                             "popen"})
_SIGNALS = frozenset({"kill", "killpg", "pidfd_send_signal", "send_signal", "SIGSTOP",
                      "SIGCONT", "SIGTSTP"})


def channel_violations(source: str, filename: str = "<src>") -> list[str]:
    """Reading a child's output, or signalling a process, in one file."""
    out = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute):
            if node.attr == "PIPE" or node.attr in _OUTPUT_READERS:
                out.append(f"{where}: reads another process's output ({node.attr}); "
                           "publish through the job's row (JobLink) instead")
            elif node.attr == "stdout" and not (isinstance(node.value, ast.Name)
                                                and node.value.id == "sys"):
                out.append(f"{where}: reads another process's stdout")
            elif node.attr in _SIGNALS:
                out.append(f"{where}: signals a process ({node.attr}); send the job a command "
                           "through its row, which the rig carries out with the machine's PAUSE")
        elif isinstance(node, ast.keyword) and node.arg == "capture_output":
            out.append(f"{where}: captures another process's output")
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "signal", "subprocess"):
            bad = [a.name for a in node.names if a.name in _SIGNALS | _OUTPUT_READERS]
            if bad:
                out.append(f"{where}: imports {', '.join(bad)}")
    return out


def test_the_channel_scanner_catches_output_parsing_and_signals() -> None:
    assert channel_violations("import subprocess\nsubprocess.Popen(c, stdout=subprocess.PIPE)")
    assert channel_violations("for line in proc.stdout:\n    pass")
    assert channel_violations("subprocess.run(c, capture_output=True)")
    assert channel_violations("out = subprocess.check_output(c)")
    assert channel_violations("import os, signal\nos.killpg(pid, signal.SIGSTOP)")
    assert channel_violations("os.kill(pid, 19)")
    assert channel_violations("proc.send_signal(s)")
    assert channel_violations("from os import kill")
    assert not channel_violations("import sys\nprint('x', file=sys.stdout)")
    assert not channel_violations("subprocess.Popen(c, stdin=subprocess.DEVNULL, stdout=log)")


def test_no_output_parsing_or_signals_between_processes() -> None:
    problems = []
    files = _sources() + [(RIG, ROOT / f"{RIG}.py")]
    for _, path in files:
        problems += channel_violations(path.read_text(encoding="utf-8"),
                                       str(path.relative_to(ROOT)))
    assert problems == [], "\n".join(problems)
    # The runners that did so are gone for good.
    assert not (ROOT / "webpanel" / "rigrunner.py").exists()
    assert not (ROOT / "webpanel" / "runner.py").exists()



# ------------------------------------------------------------------ each rule written once
# A rule, the one definition that states it, and the names any other statement of it
# would bear (issue 17: the trick winner was in play.py, play_record.py and formats/lin.py;
# the declarer in auction.py and formats/lin.py; the PBN Play section in six places).
RULES: dict[str, tuple[str | tuple[str, ...], str]] = {
    "who wins a trick (Law 44)": ("dealer.play.trick_winner",
                                  r"trick_winner|winning_card|trick_won_by"),
    "the declarer (Law 1)": ("dealer.auction.Auction.contract",
                             r"^(contract|auction_result|declarer_of|find_declarer|final_contract)$"),
    "reading the PBN Play section": (("dealer.play_section.read_play",
                                      "dealer.play_section.pbn_play_sequence"),
                                     r"play_sequence$|^_?(read|parse)_play$|play_section$"),
    "writing the PBN Play section": ("dealer.play_section.write_play",
                                     r"play_rows$|^_?(write|format)_play$"),
    "a seat's name": ("dealer.seats.Seat.title", r"^(title|seat_name|seat_title)$"),
}
_SEAT_TITLES = ("North", "East", "South", "West")


def definitions(source: str, module: str) -> list[str]:
    """Qualified names of the functions defined in ``source`` (``@overload`` stubs are
    declarations, not definitions)."""
    found: list[str] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}.{child.name}")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                if not any(isinstance(d, ast.Name) and d.id == "overload"
                           for d in child.decorator_list):
                    found.append(f"{prefix}.{child.name}")
                walk(child, f"{prefix}.{child.name}")

    walk(ast.parse(source), module)
    return found


def _all_definitions() -> list[str]:
    out: list[str] = []
    files = [p for pkg in (CORE, *ADAPTERS, "bench") for p in sorted((ROOT / pkg).rglob("*.py"))]
    for path in [*files, *sorted(ROOT.glob("*.py"))]:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out += definitions(path.read_text(encoding="utf-8"), module.removesuffix(".__init__"))
    return out


def test_definitions_sees_methods_and_skips_overloads() -> None:
    src = ("from typing import overload\n@overload\ndef f(x: int) -> int: ...\n"
           "def f(x): return x\nclass A:\n    def g(self): pass\n")
    assert definitions(src, "m") == ["m.f", "m.A.g"]


def test_each_rule_has_exactly_one_definition() -> None:
    defined = _all_definitions()
    for rule, (home, names) in RULES.items():
        pattern = re.compile(names)
        found = [d for d in defined if pattern.search(d.rsplit(".", 1)[1])]
        homes = [home] if isinstance(home, str) else list(home)
        assert found == homes, f"{rule}: defined as {found}, only {homes} should be"


def test_the_seat_names_are_written_once() -> None:
    problems = []
    files = [p for pkg in (CORE, *ADAPTERS, "bench") for p in sorted((ROOT / pkg).rglob("*.py"))]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple | ast.List) and tuple(
                    e.value if isinstance(e, ast.Constant) else None for e in node.elts) == _SEAT_TITLES:
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: use Seat.title")
    assert problems == []


# -- SQLAlchemy stays in the store ------------------------------------------------------

# The store and the command line use the database; the migrations are Alembic's scripts,
# run only by dealer.store.migrate. Everything else in the core is pure.
DB_PACKAGES = ("dealer/store/", "dealer/cli/", "dealer/migrations/")
DB_LIBRARIES = frozenset({"sqlalchemy", "alembic"})


def module_level_imports(source: str, filename: str = "<src>") -> list[tuple[int, str]]:
    """(line, top-level module) of the imports that run when the module is imported:
    not those inside a function, nor under ``if TYPE_CHECKING:``."""
    found: list[tuple[int, str]] = []

    def visit(nodes: list[ast.stmt]) -> None:
        for n in nodes:
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if isinstance(n, ast.Import):
                found.extend((n.lineno, a.name.split(".")[0]) for a in n.names)
            elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
                found.append((n.lineno, n.module.split(".")[0]))
            if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
                visit(n.orelse)
                continue
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(n, field, None)
                if isinstance(sub, list):
                    visit(sub)

    visit(ast.parse(source, filename).body)
    return found


def _pure_core() -> list[Path]:
    return [p for p in sorted((ROOT / CORE).rglob("*.py"))
            if not str(p.relative_to(ROOT)).startswith(DB_PACKAGES)]


def test_the_module_level_scanner_sees_through_functions_and_type_checking() -> None:
    src = ("import sqlalchemy\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
           "    from sqlalchemy import Engine\ndef f():\n    import alembic\n"
           "class C:\n    from sqlalchemy.orm import Session\ntry:\n    import numpy\n"
           "except ImportError:\n    pass\n")
    assert [m for _, m in module_level_imports(src)] == ["sqlalchemy", "typing", "sqlalchemy",
                                                         "numpy"]


def test_the_core_outside_the_store_imports_no_sqlalchemy_at_module_level() -> None:
    problems = []
    for path in _pure_core():
        rel = str(path.relative_to(ROOT))
        problems += [f"{rel}:{line}: imports {mod!r} at module level; only dealer/store and "
                     "dealer/cli may (import it inside the function that needs it)"
                     for line, mod in module_level_imports(path.read_text(encoding="utf-8"), rel)
                     if mod in DB_LIBRARIES]
    assert problems == [], "\n".join(problems)


def test_importing_the_pure_core_loads_no_sqlalchemy() -> None:
    # What a static scan cannot see: a module that loads SQLAlchemy through another.
    # Modules that use the store's API (they import dealer.store) are its callers and
    # may; every other core module must import without it.
    mods = []
    for path in _pure_core():
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        src = path.read_text(encoding="utf-8")
        lines = src.splitlines()
        if name == "dealer.__main__" or any(m == CORE and "dealer.store" in lines[n - 1]
                                            for n, m in module_level_imports(src)):
            continue
        mods.append(name)
    code = ("import importlib, sys\n"
            f"for m in {mods!r}:\n"
            "    importlib.import_module(m)\n"
            "    if 'sqlalchemy' in sys.modules:\n"
            "        print(m)\n"
            "        break\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert len(mods) > 30
    assert p.stdout.strip() == "", f"importing {p.stdout.strip()} loaded SQLAlchemy"


# -- one event-scoring entry point ------------------------------------------------------

SCORERS = frozenset({"score_matchpoints", "score_imp_pairs", "score_matches"})
SCORING_ENTRY = ROOT / "dealer" / "events" / "score.py"


def scorer_calls(source: str, filename: str = "<src>") -> list[str]:
    """Calls of the event scorers by name (``score_matchpoints(...)``, ``m.score_matches(...)``)."""
    out = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
                else ""
            if name in SCORERS:
                out.append(f"{filename}:{node.lineno}: calls {name}; score an event through "
                           "dealer.events.score.score_event")
    return out


def test_events_are_scored_through_one_entry_point() -> None:
    # The command line and the panel both chose the method (matchpoints, IMPs, teams)
    # themselves; dealer.events.score does it once. (bench/ measures the scorers directly.)
    assert scorer_calls("from dealer.events import matchpoints as mp\nmp.score_matchpoints(x)")
    assert len(SCORING_ENTRY.read_text(encoding="utf-8").split("def score_event(")) == 2
    problems = []
    for _, path in _sources():
        if path != SCORING_ENTRY:
            problems += scorer_calls(path.read_text(encoding="utf-8"),
                                     str(path.relative_to(ROOT)))
    rig = ROOT / f"{RIG}.py"
    problems += scorer_calls(rig.read_text(encoding="utf-8"), rig.name)
    assert problems == [], "\n".join(problems)
