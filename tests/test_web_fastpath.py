"""The table forms' fast path (webpanel.fastpath) answers exactly as Flask does.

The same evening of table forms is sent to two panels on two real SQLite
files, one with the fast path and one without: every answer (status, the
address it sends the phone to, the security headers, the page) and the
database at the end must be the same. The fast path must also really
answer the common forms itself: a count of the requests that reach Flask
says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_helpers import csrf, director, make_app, new_event, table_tokens

from dealer.store import results as rs
from webpanel.db import store
from webpanel.fastpath import TableFastPath
from webpanel.tables import table_csrf


def _evening(app: Flask) -> tuple[list[tuple[int, str, str, str]], list[tuple]]:
    """Send the evening's forms; the answers (tokens and ids made neutral) and the rows."""
    c = app.test_client()
    director(c)
    ce = new_event(c)
    r = c.post(f"/events/{ce}/settings", data={
        "csrf_token": csrf(c, f"/events/{ce}"), "options": "1", "show_traveller": "on",
        "show_hand_record": "on", "correction_minutes": "30", "reveal_after": "board",
        "ew_accept": "on"})
    assert r.status_code == 302
    toks = table_tokens(app, ce)
    with app.app_context():
        good = {t: table_csrf(tok) for t, tok in toks.items()}
    phone = app.test_client()
    answers = []

    def send(path: str, **form: Any) -> None:
        resp = phone.post(path, data={k: str(v) for k, v in form.items()})
        text = resp.get_data(as_text=True)
        for t, tok in toks.items():
            text = text.replace(tok, f"TABLE{t}").replace(good[t], f"CSRF{t}")
        text = re.sub(r"[0-9a-f]{32}", "ID", text)  # the fresh submission id on each page
        location = resp.headers.get("Location", "")
        for t, tok in toks.items():
            location = location.replace(tok, f"TABLE{t}")
        headers = sorted((k, v) for k, v in resp.headers.items()
                         if k not in ("Content-Length", "Location"))
        answers.append((resp.status_code, location, repr(headers), text))

    t1, t2 = toks[1], toks[2]
    entry = dict(level=4, strain="S", dbl="", declarer="N", lead="")
    send(f"/t/{t1}/enter?round=1", csrf_token=good[1], submission_id="a" * 32, board=1,
         result="=", **entry)                                               # recorded
    send(f"/t/{t1}/enter?round=1", csrf_token=good[1], submission_id="a" * 32, board=1,
         result="=", **entry)                                               # resent
    send(f"/t/{t1}/enter", csrf_token=good[1], submission_id="b" * 32, board=1,
         result="+1", **entry)                                              # conflict
    send(f"/t/{t1}/enter", csrf_token=good[2], submission_id="c" * 32, board=2,
         result="=", **entry)                                               # another table's token
    send(f"/t/{t1}/enter", csrf_token=good[1], submission_id="d" * 32, board=2,
         result="+9", **entry)                                              # impossible result
    send(f"/t/{t1}/enter", csrf_token=good[1], submission_id="e" * 32, board=5,
         result="=", **entry)                                               # a later round
    send(f"/t/{t1}/enter", csrf_token=good[1], board=2, step="check", result="-1",
         **entry)                                                           # the confirm step
    send(f"/t/{t1}/accept/1", csrf_token=good[1], version=2)                # a version not shown
    send(f"/t/{t1}/accept/1", csrf_token=good[1], version=1)                # accepted
    send(f"/t/{t1}/accept/1", csrf_token=good[1], version=1)                # resent
    send(f"/t/{t1}/accept/2", csrf_token=good[1], version=1)                # no entry there
    send(f"/t/{t1}/fix/1", csrf_token=good[1], submission_id="f" * 32, version=1,
         result="-1", reason="wrong chip", **entry)                         # changed
    send(f"/t/{t1}/fix/1", csrf_token=good[1], submission_id="f" * 32, version=1,
         result="-1", reason="wrong chip", **entry)                         # resent
    send(f"/t/{t1}/fix/1", csrf_token=good[1], submission_id="g" * 32, version=1,
         result="-2", **entry)                                              # stale
    send(f"/t/{t1}/fix/2", csrf_token=good[1], submission_id="h" * 32, version=1,
         result="-2", **entry)                                              # no entry there
    send(f"/t/{t2}/enter", csrf_token=good[2], submission_id="i" * 32, board=3,
         not_played="other", not_played_other="fire alarm")                 # not played
    send(f"/t/{t2}/enter", csrf_token=good[2], submission_id="j" * 32, board=4,
         result="\u22122", **entry)                                         # a non-ASCII form
    send(f"/t/{t2}/enter", csrf_token=good[2], submission_id="k" * 32, board=4, level="",
         strain="S", declarer="N", result="=")                              # incomplete
    send(f"/t/{t2}/enter", submission_id="l" * 32, board=4, result="=", **entry)  # no token
    send("/t/nosuchtoken/enter", csrf_token="x", board=4, result="=", **entry)
    with app.app_context():
        rows = [(r.board, r.table_no, r.contract, r.declarer, r.tricks, r.score, r.pending,
                 r.version, r.not_played, r.not_played_reason)
                for r in rs.results(store(), ce, include_pending=True)]
    return answers, sorted(rows)


def test_the_fast_path_answers_as_flask_does(tmp_path: Path) -> None:
    fast = make_app(f"sqlite:///{tmp_path / 'fast.sqlite'}")
    slow = make_app(f"sqlite:///{tmp_path / 'slow.sqlite'}", FAST_TABLE_FORMS=False)
    assert isinstance(fast.wsgi_app, TableFastPath)
    assert not isinstance(slow.wsgi_app, TableFastPath)
    got, want = _evening(fast), _evening(slow)
    assert [a[:2] for a in got[0]] == [a[:2] for a in want[0]]
    for i, (g, w) in enumerate(zip(got[0], want[0], strict=True)):
        assert g == w, f"answer {i} differs"
    assert got[1] == want[1]
    statuses = [a[0] for a in got[0]]
    # The evening covers what it says: redirects, refusals, conflicts and pages.
    assert statuses.count(302) >= 6 and {400, 403, 404, 409} <= set(statuses)


@pytest.fixture
def counted(tmp_path: Path) -> tuple[Flask, FlaskClient, dict[int, str], list[str]]:
    app = make_app(f"sqlite:///{tmp_path / 'bw.sqlite'}")
    c = app.test_client()
    director(c)
    ce = new_event(c)
    reached: list[str] = []
    fp = app.wsgi_app
    assert isinstance(fp, TableFastPath)
    inner = fp.app

    def flask_app(environ: dict, start_response: Any) -> Any:
        reached.append(f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}")
        return inner(environ, start_response)

    fp.app = flask_app
    return app, app.test_client(), table_tokens(app, ce), reached


def test_the_common_forms_never_reach_flask(counted) -> None:
    app, phone, toks, reached = counted
    with app.app_context():
        token = table_csrf(toks[1])
    entry = dict(csrf_token=token, level="4", strain="S", dbl="", declarer="N", lead="")
    r = phone.post(f"/t/{toks[1]}/enter", data=dict(entry, submission_id="a" * 32, board="1",
                                                    result="="))
    assert r.status_code == 302 and r.headers["Location"] == f"/t/{toks[1]}?done=1&round=1"
    r = phone.post(f"/t/{toks[1]}/fix/1", data=dict(entry, submission_id="b" * 32,
                                                    version="1", result="+1"))
    assert r.status_code == 302 and "changed=1" in r.headers["Location"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert reached == []
    # What did not go through reaches Flask, which shows the page.
    r = phone.post(f"/t/{toks[1]}/enter", data=dict(entry, submission_id="c" * 32,
                                                    board="1", result="-3"))
    assert r.status_code == 409 and "Conflict" in r.get_data(as_text=True)
    assert reached == [f"POST /t/{toks[1]}/enter"]
    # The page a redirect leads to is Flask's.
    assert phone.get(f"/t/{toks[1]}?done=1&round=1").status_code == 200
    assert reached[-1] == f"GET /t/{toks[1]}"


def test_a_form_body_shorter_than_it_says_goes_to_flask_whole(counted) -> None:
    app, phone, toks, reached = counted
    with app.app_context():
        token = table_csrf(toks[1])
    body = f"csrf_token={token}&board=1&level=4&strain=S&declarer=N&result=%3D"
    r = phone.post(f"/t/{toks[1]}/enter", data=body.encode(),
                   headers={"Content-Type": "application/x-www-form-urlencoded",
                            "Content-Length": str(len(body) + 50)})
    # Flask gets what came and answers as it would: the submission id is missing.
    assert reached == [f"POST /t/{toks[1]}/enter"]
    assert r.status_code == 400
