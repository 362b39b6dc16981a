"""Browser tests: the panel on a real werkzeug server, driven in Debian's headless Chromium.

Never ``playwright install``: the browser is the system's ``/usr/bin/chromium``
(scripts/system-packages.txt). Screenshots go to ``tests/browser/screenshots``
(or ``$BW_SCREENSHOTS``) for people to look at.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/web_helpers.py

CHROMIUM = os.environ.get("BW_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(os.environ.get("BW_SCREENSHOTS", Path(__file__).parent / "screenshots"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    from web_helpers import make_app
    from werkzeug.serving import make_server

    db = tmp_path_factory.mktemp("panel") / "bw.sqlite"
    app = make_app(f"sqlite:///{db}", TESTING=False, RIG_TIME_SCALE=0.02)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}", app
    finally:
        srv.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    pw_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    with pw_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def shot() -> object:
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: object, name: str) -> Path:
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
        return path
    return take


@pytest.fixture(scope="module")
def launch() -> Iterator[object]:
    """Start Chromium with extra switches (``--host-resolver-rules``): ``launch(*args)``."""
    pw_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    with pw_api.sync_playwright() as pw:
        started: list[object] = []

        def go(*extra: str) -> object:
            b = pw.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *extra],
                                   headless=True)
            started.append(b)
            return b
        try:
            yield go
        finally:
            for b in started:
                b.close()  # type: ignore[attr-defined]
