"""Helpers shared by the webpanel tests: an app on a real database, logins, CSRF tokens."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from dealer.store import results as rs
from webpanel import create_app
from webpanel.db import store

PASSWORD = "correct horse battery"
# The first-run code /setup asks for. The tests fix it in the settings (SETUP_CODE) rather
# than share the instance folder's code file; tests/test_web_security.py covers the file.
SETUP_CODE = "TEST-SETU-PCDE"


def make_app(db_url: str, **extra: Any) -> Flask:
    cfg = {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "test-secret",
           "SESSION_COOKIE_SECURE": False, "RIG_TIME_SCALE": 0.02, "SETUP_CODE": SETUP_CODE}
    cfg.update(extra)
    return create_app(cfg)


def csrf(client: FlaskClient, path: str) -> str:
    page = client.get(path).get_data(as_text=True)
    m = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert m, f"no CSRF token on {path}"
    return m.group(1)


def setup_code(app: Flask) -> str:
    """The code /setup asks for: the settings' SETUP_CODE, else a new one as the CLI makes."""
    if app.config.get("SETUP_CODE"):
        return str(app.config["SETUP_CODE"])
    from webpanel import setup_code as codes
    with app.app_context():
        return codes.new_code()


def director(client: FlaskClient, name: str = "td") -> None:
    tok = csrf(client, "/setup")
    r = client.post("/setup", data={"csrf_token": tok, "name": name, "password": PASSWORD,
                                    "again": PASSWORD, "code": setup_code(client.application)})
    assert r.status_code == 302, r.get_data(as_text=True)


def new_event(client: FlaskClient, **form: str) -> int:
    data = {"name": "Monday pairs", "date": "2026.11.23", "kind": "pairs",
            "movement": "mitchell", "tables": "3", "boards_per_round": "2", "sections": "A",
            "scoring": "matchpoints", "deal_set_id": ""}
    data.update(form)
    data["csrf_token"] = csrf(client, "/events/new")
    r = client.post("/events/new", data=data)
    assert r.status_code == 302, r.get_data(as_text=True)
    return int(r.headers["Location"].rstrip("/").split("/")[-1])


def event_on_six_boards(db_url: str) -> tuple[Flask, FlaskClient, int, int]:
    """An app, its client with the director signed in, a 3-table event (2 boards a round)
    and the six-board deal set it plays, stored as the command line stores one."""
    from dealer.generate import random_dealset

    app = make_app(db_url)
    client = app.test_client()
    director(client)
    with app.app_context():
        set_id = store().save(random_dealset(range(1, 7)), name="six boards")
    event = new_event(client, tables="3", boards_per_round="2", deal_set_id=str(set_id))
    return app, client, event, set_id


def table_tokens(app: Flask, ce: int) -> dict[int, str]:
    """Each table's token (section A, or a one-section event) by table number."""
    with app.app_context():
        return {t.table_no: t.token for t in rs.tokens(store(), ce)}


def browser_login(page, base: str) -> None:
    """Sign in as the director in a browser page: first-run setup with the fixed code, or log in."""
    page.goto(base + "/")
    if "/setup" in page.url:
        page.fill("input[name=code]", SETUP_CODE)
        page.fill("input[name=name]", "td")
        page.fill("input[name=password]", PASSWORD)
        page.fill("input[name=again]", PASSWORD)
        page.click("button:has-text('Create')")
    elif "/login" in page.url or page.locator("text=Director login").count():
        if "/login" not in page.url:
            page.click("text=Director login")
        page.fill("input[name=name]", "td")
        page.fill("input[name=password]", PASSWORD)
        page.click("button:has-text('Log in')")
    page.wait_for_url(re.compile(r".*/events/?$"))
