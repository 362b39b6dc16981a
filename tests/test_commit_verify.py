"""SquareDeal-style commit and verify: the whole loop, and every way it must fail."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.commit import (
    PublicFile,
    Session,
    VerifyError,
    generate,
    make_commitment,
    parse_boards,
    verify,
)

VALUE = "44901,92"


@pytest.fixture()
def committed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> dict[str, Path]:
    """Run the CLI as an organiser would: commit, then generate two sessions."""
    monkeypatch.setenv("BOARDWRIGHT_INSTANCE", str(tmp_path / "inst"))
    pub = tmp_path / "event.json"
    assert main(["deals", "commit", "--event", "Autumn Pairs", "--session", "1:1-24",
                 "--session", "2:25-48", "--public-value", "DJI close on 2026-12-01",
                 "-o", str(pub)]) == 0
    secret = tmp_path / "event.json.secret"
    for name in ("1", "2"):
        assert main(["deals", "generate", str(pub), "--secret", str(secret), "--public-value",
                     VALUE, "--session", name, "-o", str(tmp_path / f"s{name}.pbn")]) == 0
    capsys.readouterr()
    return {"pub": pub, "secret": secret, "s1": tmp_path / "s1.pbn", "s2": tmp_path / "s2.pbn"}


def _verify(c: dict[str, Path], *extra: str, secret: str | None = None,
            value: str = VALUE, deals: Path | None = None) -> int:
    return main(["deals", "verify", str(c["pub"]), "--secret", secret or str(c["secret"]),
                 "--public-value", value, *extra, str(deals or c["s1"])])


def test_public_file_holds_what_squaredeal_publishes(committed) -> None:
    data = json.loads(committed["pub"].read_text())
    assert data["event"] == "Autumn Pairs"
    assert data["sessions"] == [{"name": "1", "boards": "1-24"}, {"name": "2", "boards": "25-48"}]
    assert data["public_value"] == "DJI close on 2026-12-01"
    secret = committed["secret"].read_text().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", secret)
    # anyone can check the commitment with sha256sum of the secret text
    assert data["commitment_sha256"] == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in committed["pub"].read_text()


def test_verify_accepts_the_real_sets(committed, capsys) -> None:
    assert _verify(committed) == 0
    assert "all 24 boards" in capsys.readouterr().out
    assert _verify(committed, deals=committed["s2"]) == 0
    assert "session 2" in capsys.readouterr().out
    # the secret may be given as text as well as a file, in any case
    text = committed["secret"].read_text().strip().upper()
    assert _verify(committed, secret=text) == 0


def test_tampered_deal_file_fails_naming_the_board(committed, capsys, tmp_path) -> None:
    ds = formats.read(committed["s1"])
    b7 = ds.board(7)
    b7.deal = b7.deal.rotated(1)  # swap the hands round: same cards, different deal
    tampered = tmp_path / "tampered.pbn"
    formats.write(ds, tampered)
    assert _verify(committed, deals=tampered) == 2
    err = capsys.readouterr().err
    assert "board 7" in err and "differs" in err and "tampered.pbn" in err
    assert "Traceback" not in err


def test_wrong_secret_fails(committed, capsys) -> None:
    assert _verify(committed, secret="0" * 64) == 2
    assert "wrong secret" in capsys.readouterr().err
    assert _verify(committed, secret="not-hex") == 2
    assert "64 hexadecimal digits" in capsys.readouterr().err


def test_wrong_public_value_fails(committed, capsys) -> None:
    assert _verify(committed, value="44901,93") == 2
    err = capsys.readouterr().err
    assert "board 1 " in err and "public value is probably wrong" in err


def test_board_from_the_other_session_fails(committed, capsys, tmp_path) -> None:
    s1, s2 = formats.read(committed["s1"]), formats.read(committed["s2"])
    s1.board(3).deal = s2.board(27).deal
    mixed = tmp_path / "mixed.pbn"
    formats.write(s1, mixed)
    assert _verify(committed, "--session", "1", deals=mixed) == 2
    assert "board 3" in capsys.readouterr().err


def test_broken_public_file_is_reported(committed, capsys) -> None:
    committed["pub"].write_text('{"scheme": "boardwright-commit-v1", "event": ')
    assert _verify(committed) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "event.json" in err


def test_api_loop_and_description_is_bound() -> None:
    pub, secret = make_commitment("E", [Session("A", parse_boards("1-4"))], "FTSE close",
                                  registry=None)
    ds = generate(pub, secret, "7000.1", "A")
    assert verify(pub, secret, " 7000.1 ", ds).ok  # outer spaces do not matter
    # changing the description after publication changes every deal
    moved = PublicFile.from_json(pub.to_json().replace("FTSE close", "DAX close"))
    with pytest.raises(VerifyError, match="board 1"):
        verify(moved, secret, "7000.1", ds)


def test_commit_claims_its_secret(committed, tmp_path) -> None:
    used = (tmp_path / "inst" / "used-secrets.txt").read_text()
    assert "commit Autumn Pairs" in used
