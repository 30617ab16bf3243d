"""`tablecert keys generate`, `certify`, `sign`, `verify` through Typer's test runner."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import SigningError

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "fixtures" / "rules"
runner = CliRunner()
PASS_ENV = {"TABLECERT_KEY_PASSPHRASE": "s3cret passphrase"}


def _plan(tmp_path: Path) -> Path:
    """A small plan over copies of two rule files, so the test can tamper with them."""
    (tmp_path / "rules").mkdir()
    for name in ("q-poker.macau.toml", "q-poker.standard.toml"):
        shutil.copy(RULES / name, tmp_path / "rules" / name)
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[certification]\ntitle = "Q Poker orderings"\nlab = "Test lab"\n\n'
        '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\n'
        'rules = "rules/q-poker.macau.toml"\n\n'
        '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\n'
        'rules = "rules/q-poker.standard.toml"\n',
        encoding="utf-8",
    )
    return plan


def _keys(tmp_path: Path, name: str) -> Path:
    result = runner.invoke(
        app, ["keys", "generate", "-o", str(tmp_path / "keys" / name)], env=PASS_ENV
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("key id: ")
    return tmp_path / "keys" / name


def test_keys_generate_mode_and_refusal(tmp_path: Path) -> None:
    key = _keys(tmp_path, "tester")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    again = runner.invoke(app, ["keys", "generate", "-o", str(key)], env=PASS_ENV)
    assert again.exit_code == 1
    assert isinstance(again.exception, SigningError)
    assert "refusing to overwrite" in str(again.exception)


def test_keys_generate_prompts_for_the_passphrase(tmp_path: Path) -> None:
    out = tmp_path / "lab"
    result = runner.invoke(
        app, ["keys", "generate", "-o", str(out)], input="pass phrase\npass phrase\n"
    )
    assert result.exit_code == 0, result.output
    assert out.with_name("lab.pub").is_file()


def test_certify_sign_verify_round_trip(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    tester = _keys(tmp_path, "tester")
    reviewer = _keys(tmp_path, "reviewer")
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["certify", str(plan), "--key", str(tester), "-o", str(out)], env=PASS_ENV
    )
    assert result.exit_code == 0, result.output
    assert f"report:   {out / 'report.html'}" in result.stdout
    assert "verdict:  PASS (6 of 6 requirements passed, 0 failed)" in result.stdout
    envelope = out / "report.intoto.dsse.json"

    verify = ["verify", str(envelope), "--pubkey", f"{tester}.pub"]
    ok = runner.invoke(app, [*verify, "--report", str(out / "report.json")])
    assert ok.exit_code == 0, ok.output
    assert f"{out / 'report.json'} is exactly the signed report" in ok.stdout
    assert "VALID: 1 signature(s)" in ok.stdout
    assert "certified: Q Poker orderings" in ok.stdout
    assert "verdict: PASS" in ok.stdout

    sign = ["sign", str(envelope), "--key", str(reviewer)]
    refused = runner.invoke(app, [*sign, "--pubkey", f"{reviewer}.pub"], env=PASS_ENV)
    assert refused.exit_code == 1  # the tester's signature does not verify with this key
    assert "not co-signing: signature 1" in str(refused.exception)
    signed = runner.invoke(app, [*sign, "--pubkey", f"{tester}.pub"], env=PASS_ENV)
    assert signed.exit_code == 0, signed.output
    assert "signatures now: 2" in signed.stdout
    both = runner.invoke(app, [*verify, "--pubkey", f"{reviewer}.pub", "--json"])
    assert both.exit_code == 0, both.output
    data = json.loads(both.stdout)
    assert data["valid"] is True
    assert len(data["signers"]) == 2
    only_tester = runner.invoke(app, verify)
    assert only_tester.exit_code == 1
    assert "signature 2" in only_tester.stdout

    rules = tmp_path / "rules"
    inputs = ["--inputs", str(rules / "q-poker.macau.toml"), str(rules / "q-poker.standard.toml")]
    keys = ["--pubkey", f"{reviewer}.pub"]
    assert runner.invoke(app, [*verify, *keys, *inputs]).exit_code == 0
    edited = rules / "q-poker.standard.toml"
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    bad = runner.invoke(app, [*verify, *keys, *inputs])
    assert bad.exit_code == 1
    assert "INVALID" in bad.stdout
    assert f"input {edited} does not match the certified rules/q-poker.standard.toml" in (
        bad.stdout.replace("\n    ", " ")
    )


def test_certify_with_ephemeral_key(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["certify", str(_plan(tmp_path)), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "pass"
    assert data["ephemeral_key"] is True
    ok = runner.invoke(app, ["verify", data["envelope"], "--pubkey", str(out / "signer.pub")])
    assert ok.exit_code == 0, ok.output


def test_verify_exit_codes(tmp_path: Path) -> None:
    tester = _keys(tmp_path, "tester")
    malformed = tmp_path / "bad.json"
    malformed.write_text('{"payload": ')
    result = runner.invoke(app, ["verify", str(malformed), "--pubkey", f"{tester}.pub"])
    assert result.exit_code == 1
    assert "malformed JSON at line 1 column 13" in result.stdout
    missing_key = runner.invoke(app, ["verify", str(malformed)])
    assert missing_key.exit_code == 2
    no_file = runner.invoke(app, ["verify", str(tmp_path / "nope.json"), "--pubkey", str(tester)])
    assert no_file.exit_code == 2
    not_a_key = runner.invoke(app, ["verify", str(malformed), "--pubkey", str(malformed)])
    assert not_a_key.exit_code == 2


def test_certify_rejects_wrong_passphrase(tmp_path: Path) -> None:
    tester = _keys(tmp_path, "tester")
    result = runner.invoke(
        app,
        ["certify", str(_plan(tmp_path)), "--key", str(tester), "-o", str(tmp_path / "o")],
        env={"TABLECERT_KEY_PASSPHRASE": "wrong"},
    )
    assert result.exit_code == 1
    assert "wrong passphrase" in str(result.exception)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("game", ["caribbean-stud", "mahjong"])
def test_section_errors_name_the_plan_line(tmp_path: Path, game: str) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[certification]\ntitle = "t"\n[[section]]\nkind = "hand-categories"\n'
        f'game = "{game}"\nrules = "q-poker.macau"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["certify", str(plan), "-o", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert f"{plan}:" in str(result.exception)
    assert "section 1 (hand-categories)" in str(result.exception)
