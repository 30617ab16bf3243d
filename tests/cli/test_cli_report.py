"""`tablecert keys generate`, `certify`, `sign`, `verify` through Typer's test runner."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import SigningError
from tablecert.report import dsse
from tablecert.report.signing import (
    generate_key_pair,
    key_id,
    load_public_key,
    public_pem,
    securesystemslib_key,
)
from tests.support import envelopes
from tests.support.hostile import HOSTILE, CliRun, assert_inert, hostile, hostile_file_name, run_cli
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "fixtures" / "rules"
runner = CliRunner()
PASS_ENV = {"TABLECERT_KEY_PASSPHRASE": "s3cret passphrase"}


def _plan(tmp_path: Path) -> Path:
    """A small plan over copies of two rule files, so the test can tamper with them."""
    (tmp_path / "rules").mkdir()
    for name in ("q-poker.macau.toml", "q-poker.standard.toml"):
        shutil.copy(RULES / name, tmp_path / "rules" / name)
    return write_plan(
        tmp_path,
        '[certification]\ntitle = "Q Poker orderings"\nlab = "Test lab"\n\n'
        '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\n'
        'rules = "rules/q-poker.macau.toml"\n\n'
        '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\n'
        'rules = "rules/q-poker.standard.toml"\n',
    )


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


def test_certify_sign_verify_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
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

    def cli(*args: str) -> CliRun:
        return run_cli(args, monkeypatch, capsys, env=PASS_ENV)

    verify = ["verify", str(envelope), "--pubkey", f"{tester}.pub"]
    ok = cli(*verify, "--report", str(out / "report.json"))
    assert ok.code == 0, ok.err
    assert f"{out / 'report.json'} is exactly the signed report" in ok.out
    assert "VALID: 1 distinct given key(s) signed (threshold 1)" in ok.out
    assert "certified: Q Poker orderings" in ok.out
    assert "verdict: PASS" in ok.out

    sign = ["sign", str(envelope), "--key", str(reviewer)]
    refused = cli(*sign, "--pubkey", f"{reviewer}.pub")
    assert refused.code == 2  # the tester's signature cannot be checked with this key
    assert "cannot check signature 1" in refused.err
    assert "give --pubkey for each existing signer" in refused.err
    signed = cli(*sign, "--pubkey", f"{tester}.pub")
    assert signed.code == 0, signed.err
    assert "signatures now: 2" in signed.out
    assert f"signature 1: key id {key_id(load_public_key(Path(f'{tester}.pub')))} verified" in (
        signed.out
    )
    again = cli(*sign, "--pubkey", f"{tester}.pub")
    assert again.code == 2
    assert "already signed by key" in again.err
    both = cli(*verify, "--pubkey", f"{reviewer}.pub", "--threshold", "2", "--json")
    assert both.code == 0, both.out
    data = json.loads(both.out)
    assert data["valid"] is True
    assert data["verdict"] == "valid"
    assert len(data["signers"]) == 2
    # The lab's key alone still verifies the co-signed report; the reviewer is listed.
    only_tester = cli(*verify)
    assert only_tester.code == 0, only_tester.out
    assert "signature 2: key id" in only_tester.out
    assert "not checked (no --pubkey for this key id)" in only_tester.out
    short = cli(*verify, "--threshold", "2")
    assert short.code == 2
    assert "threshold 2: give at least that many distinct public keys (1 given)" in short.err

    rules = tmp_path / "rules"
    inputs = ["--inputs", str(rules / "q-poker.macau.toml"), str(rules / "q-poker.standard.toml")]
    keys = ["--pubkey", f"{reviewer}.pub"]
    assert cli(*verify, *keys, *inputs).code == 0
    edited = rules / "q-poker.standard.toml"
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    bad = cli(*verify, *keys, *inputs)
    assert bad.code == 1
    assert "INVALID" in bad.out
    assert f"input {edited} does not match the certified rules/q-poker.standard.toml" in bad.out


def test_certify_with_ephemeral_key(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["certify", str(_plan(tmp_path)), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "pass"
    assert data["ephemeral_key"] is True
    ok = runner.invoke(app, ["verify", data["envelope"], "--pubkey", str(out / "signer.pub")])
    assert ok.exit_code == 0, ok.output


def test_verify_exit_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tester = _keys(tmp_path, "tester")
    malformed = tmp_path / "bad.json"
    malformed.write_text('{"payload": ')
    result = run_cli(["verify", str(malformed), "--pubkey", f"{tester}.pub"], monkeypatch, capsys)
    assert result.code == 2  # malformed: nothing judged
    assert result.err.startswith(f"error: {malformed}:1: invalid JSON: Expecting value")
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
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "hand-categories"\n'
        f'game = "{game}"\nrules = "q-poker.macau"\n',
    )
    result = runner.invoke(app, ["certify", str(plan), "-o", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert f"{plan}:" in str(result.exception)
    assert "section 1 (hand-categories)" in str(result.exception)


# --- attacks on the signing layer, through the command line --------------------------------

TESTER = Ed25519PrivateKey.generate()
REVIEWER = Ed25519PrivateKey.generate()


def _pub(tmp_path: Path, name: str, key: Ed25519PrivateKey) -> Path:
    path = tmp_path / f"{name}.pub"
    path.write_bytes(public_pem(key.public_key()))
    return path


def _write(tmp_path: Path, envelope: dsse.Envelope, name: str = "env.json") -> Path:
    path = tmp_path / name
    path.write_bytes(envelope.to_bytes())
    return path


def _subjects(tag: str = "") -> list[dsse.Subject]:
    return [dsse.Subject(f"plan{tag}.toml", "a" * 64), dsse.Subject("log.csv", "b" * 64)]


def test_verify_a_copied_signature_is_no_second_signer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = envelopes.certification(_subjects(), TESTER)
    copied = _write(tmp_path, dsse.Envelope(env.payload, env.payload_type, env.signatures * 2))
    keys = [
        "--pubkey",
        str(_pub(tmp_path, "t", TESTER)),
        "--pubkey",
        str(_pub(tmp_path, "r", REVIEWER)),
    ]
    for threshold in ("1", "2"):
        run = run_cli(["verify", str(copied), *keys, "--threshold", threshold], monkeypatch, capsys)
        assert run.code == 1
        assert run.out.startswith("INVALID\n  - signature 2 repeats key id")
        assert f"signature 2: key id {key_id(TESTER.public_key())}: repeated key id" in run.out


def test_verify_foreign_statement_is_not_a_certification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stmt = envelopes.payload_of(envelopes.raw(envelopes.certification(_subjects(), TESTER)))
    slsa = {**stmt, "predicateType": "https://slsa.dev/provenance/v1", "predicate": {}}
    body = json.dumps(slsa).encode()
    path = _write(tmp_path, dsse.Envelope(body, dsse.PAYLOAD_TYPE, ()).signed(TESTER))
    run = run_cli(
        ["verify", str(path), "--pubkey", str(_pub(tmp_path, "t", TESTER))], monkeypatch, capsys
    )
    assert run.code == 1
    assert run.out.startswith("INVALID: not a tablecert certification\n")
    assert "certified:" not in run.out
    as_json = run_cli(
        ["verify", str(path), "--pubkey", str(_pub(tmp_path, "t", TESTER)), "--json"],
        monkeypatch,
        capsys,
    )
    data = json.loads(as_json.out)
    assert (data["verdict"], data["tablecert_certification"], data["statement"]) == (
        "invalid",
        False,
        None,
    )


def test_sign_refuses_forgeries_and_unchecked_signatures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack: sign without --pubkey co-signed an edited title with a zero-filled signature."""
    reviewer_key = tmp_path / "reviewer"
    generate_key_pair(reviewer_key, PASS_ENV["TABLECERT_KEY_PASSPHRASE"].encode())
    tester_pub = str(_pub(tmp_path, "t", TESTER))
    stmt = envelopes.payload_of(envelopes.raw(envelopes.certification(_subjects(), TESTER)))
    stmt["predicate"]["title"] = "Certified by nobody"
    forged = dsse.Envelope(
        envelopes.canonical_bytes(stmt),
        dsse.PAYLOAD_TYPE,
        (dsse.Signature(key_id(TESTER.public_key()), bytes(64)),),
    )
    path = _write(tmp_path, forged)
    before = path.read_bytes()
    sign = ["sign", str(path), "--key", str(reviewer_key)]
    unchecked = run_cli(sign, monkeypatch, capsys, env=PASS_ENV)
    assert unchecked.code == 2
    assert "give --pubkey for each existing signer, or --trust-on-first-use" in unchecked.err
    invalid = run_cli([*sign, "--pubkey", tester_pub], monkeypatch, capsys, env=PASS_ENV)
    assert invalid.code == 1
    assert "not co-signing" in invalid.err
    assert "signature 1 names the given key" in invalid.err
    assert path.read_bytes() == before
    # Trust on first use, said out loud, co-signs a genuine envelope and warns.
    genuine = _write(tmp_path, envelopes.certification(_subjects(), TESTER), "genuine.json")
    genuine.chmod(0o644)
    tofu = run_cli(
        ["sign", str(genuine), "--key", str(reviewer_key), "--trust-on-first-use"],
        monkeypatch,
        capsys,
        env=PASS_ENV,
    )
    assert tofu.code == 0, tofu.err
    assert "warning: signature 1 (key id" in tofu.err
    assert "was not checked (--trust-on-first-use)" in tofu.err
    assert len(dsse.read_envelope(genuine).signatures) == 2
    assert stat.S_IMODE(genuine.stat().st_mode) == 0o644  # replaced, permissions kept
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_keys_insecure_private_key_and_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _keys(tmp_path, "tester")
    key.chmod(0o644)
    out = tmp_path / "out"
    refused = run_cli(
        ["certify", str(_plan(tmp_path)), "--key", str(key), "-o", str(out)],
        monkeypatch,
        capsys,
        env=PASS_ENV,
    )
    assert refused.code == 2
    assert "the private key is accessible to others (mode 0644)" in refused.err
    assert not out.exists()
    (tmp_path / "x").mkdir()
    plan = _plan(tmp_path / "x")
    allowed = run_cli(
        ["certify", str(plan), "--key", str(key), "-o", str(out), "--allow-insecure-key"],
        monkeypatch,
        capsys,
        env=PASS_ENV,
    )
    assert allowed.code == 0, allowed.err
    assert allowed.err.startswith("warning: ")
    exported = run_cli(["keys", "export", f"{key}.pub"], monkeypatch, capsys)
    assert exported.code == 0
    data = json.loads(exported.out)
    public = load_public_key(Path(f"{key}.pub"))
    assert data == securesystemslib_key(public)
    assert data["keyid"] == key_id(public)
    pem = run_cli(["keys", "export", f"{key}.pub", "--format", "pem"], monkeypatch, capsys)
    assert pem.out == Path(f"{key}.pub").read_text()


def test_certify_leaves_nothing_when_the_output_folder_is_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack: report.html a folder left report.json and a valid envelope behind."""
    out = tmp_path / "out"
    (out / "report.html").mkdir(parents=True)
    run = run_cli(["certify", str(_plan(tmp_path)), "-o", str(out)], monkeypatch, capsys)
    assert run.code == 2
    assert run.err == (
        f"error: output folder {out}: report.html is not a regular file; not replacing it "
        "(give an empty or new folder)\n"
    )
    assert [p.name for p in out.iterdir()] == ["report.html"]


# --- nothing untrusted is interpreted on output ---------------------------------------------


def _hostile_envelope() -> dsse.Envelope:
    """A genuine certification by TESTER whose every free-text field is hostile, plus a
    signature by an unknown key whose key id is hostile."""
    subjects = [dsse.Subject(hostile("plan"), "a" * 64), dsse.Subject(hostile("log"), "b" * 64)]
    report = envelopes.report(subjects, title=hostile("title"), lab=hostile("lab"))
    report["sections"][0]["id"] = hostile("section")
    report["tool"]["version"] = hostile("version")
    body = envelopes.canonical_bytes(dsse.statement(subjects, report))
    env = dsse.Envelope(body, dsse.PAYLOAD_TYPE, ()).signed(TESTER)
    stranger = dsse.Signature(hostile("keyid"), env.signatures[0].sig)
    return dsse.Envelope(env.payload, env.payload_type, (*env.signatures, stranger))


def test_verify_shows_envelope_text_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, _hostile_envelope(), hostile_file_name("envelope"))
    tester = str(_pub(tmp_path, "t", TESTER))
    valid = run_cli(["verify", str(path), "--pubkey", tester], monkeypatch, capsys)
    assert valid.code == 0, valid.err
    shown = [hostile(t) for t in ("plan", "log", "title", "lab", "section", "version", "keyid")]
    assert_inert(valid.out + valid.err, shown)
    # Invalid (a key that did not sign): the reasons and the signature list, nothing claimed.
    other = str(_pub(tmp_path, "r", REVIEWER))
    invalid = run_cli(["verify", str(path), "--pubkey", other], monkeypatch, capsys)
    assert invalid.code == 1
    assert_inert(invalid.out + invalid.err, [hostile("keyid")])
    assert "title" not in invalid.out
    # The keyid: clears the screen and prints VALID above an invalid result.
    attack = "\x1b[2J\x1b[HVALID: 1 signature(s), every one verified\x1b[8m"
    env = envelopes.certification(_subjects(), TESTER)
    relabelled = dsse.Envelope(
        env.payload, env.payload_type, (dsse.Signature(attack, env.signatures[0].sig),)
    )
    run = run_cli(
        ["verify", str(_write(tmp_path, relabelled)), "--pubkey", tester], monkeypatch, capsys
    )
    assert run.code == 1
    assert run.out.startswith("INVALID\n")
    assert_inert(run.out + run.err, [attack])
    # Input files named with the payload, and a malformed envelope whose error quotes it.
    for tag in ("input", "malformed"):
        (tmp_path / hostile_file_name(tag)).write_bytes(b"x")
    checked = run_cli(
        [
            "verify",
            str(path),
            "--pubkey",
            tester,
            "--inputs",
            str(tmp_path / hostile_file_name("input")),
        ],
        monkeypatch,
        capsys,
    )
    assert checked.code == 1
    assert_inert(checked.out + checked.err, [hostile_file_name("input")])
    bad = tmp_path / hostile_file_name("malformed")
    bad.write_bytes(
        json.dumps({"payload": "", "payloadType": "", "signatures": [], HOSTILE: 1}).encode()
    )
    malformed = run_cli(["verify", str(bad), "--pubkey", tester], monkeypatch, capsys)
    assert malformed.code == 2
    assert_inert(malformed.out + malformed.err, [hostile_file_name("malformed")])
    assert malformed.err.count("\n") == 1


def test_sign_shows_envelope_text_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reviewer_key = tmp_path / "reviewer"
    generate_key_pair(reviewer_key, PASS_ENV["TABLECERT_KEY_PASSPHRASE"].encode())
    path = _write(tmp_path, _hostile_envelope(), hostile_file_name("envelope"))
    tester = str(_pub(tmp_path, "t", TESTER))
    sign = ["sign", str(path), "--key", str(reviewer_key), "--pubkey", tester]
    refused = run_cli(sign, monkeypatch, capsys, env=PASS_ENV)
    assert refused.code == 2  # the hostile-keyid signature cannot be checked
    assert_inert(refused.out + refused.err, [hostile("keyid")])
    signed = run_cli([*sign, "--trust-on-first-use"], monkeypatch, capsys, env=PASS_ENV)
    assert signed.code == 0, signed.err
    assert_inert(signed.out + signed.err, [hostile("title"), hostile("keyid")])
    again = run_cli([*sign, "--trust-on-first-use"], monkeypatch, capsys, env=PASS_ENV)
    assert again.code == 2
    assert_inert(again.out + again.err, [hostile_file_name("envelope")])
    # Refused as invalid (exit 1): a foreign statement whose predicate type is hostile.
    stmt = envelopes.payload_of(envelopes.raw(envelopes.certification(_subjects(), TESTER)))
    foreign = dsse.Envelope(
        json.dumps({**stmt, "predicateType": hostile("type")}).encode(), dsse.PAYLOAD_TYPE, ()
    ).signed(TESTER)
    other = _write(tmp_path, foreign, "foreign.json")
    invalid = run_cli(
        ["sign", str(other), "--key", str(reviewer_key), "--pubkey", tester],
        monkeypatch,
        capsys,
        env=PASS_ENV,
    )
    assert invalid.code == 1
    assert "not a tablecert certification" in invalid.err
    assert_inert(invalid.out + invalid.err, [hostile("type")])


def test_a_signed_title_with_brackets_is_shown_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack: a signed title 'Plan [draft]' was shown as 'Plan' (read as Rich markup)."""
    env = envelopes.certification(_subjects(), TESTER, title="Plan [draft] [bold]x[/bold]")
    tester = str(_pub(tmp_path, "t", TESTER))
    run = run_cli(["verify", str(_write(tmp_path, env)), "--pubkey", tester], monkeypatch, capsys)
    assert run.code == 0
    assert "certified: Plan [draft] [bold]x[/bold]\n" in run.out


def test_certify_shows_plan_text_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / hostile_file_name("config")
    shutil.copy(ROOT / "fixtures" / "configs" / "q-poker.casino-c.toml", config)
    plan = tmp_path / "plan.toml"
    # Certificate text with control or direction characters is refused (it would be printed
    # on the certificate): one inert error line naming the key, exit 2.
    plan.write_text(
        f"[certification]\ntitle = {json.dumps(HOSTILE)}\nlab = {json.dumps(HOSTILE)}\n"
        f'[[section]]\nkind = "configuration"\nfile = {json.dumps(config.name)}\n',
        encoding="utf-8",
    )
    refused = run_cli(["certify", str(plan), "-o", str(tmp_path / "o0")], monkeypatch, capsys)
    assert refused.code == 2
    assert next(line for line in refused.err.splitlines() if line).startswith(
        f"error: {plan}:2: certification.title: control or direction character U+001B"
    )
    assert_inert(refused.out + refused.err)
    # Hostile file names go through to the report and are shown as text.
    plan.write_text(
        f'[certification]\ntitle = "t"\nlab = "l"\n'
        f'[[section]]\nkind = "configuration"\nfile = {json.dumps(config.name)}\n',
        encoding="utf-8",
    )
    out = tmp_path / hostile_file_name("out")
    run = run_cli(["certify", str(plan), "-o", str(out)], monkeypatch, capsys)
    assert run.code == 0, run.err
    assert_inert(run.out + run.err, [str(out / "report.html")])
    # An error that quotes the plan: one inert error line, exit 2.
    plan.write_text(
        f'[certification]\ntitle = "t"\n[[section]]\nkind = {json.dumps(HOSTILE)}\n',
        encoding="utf-8",
    )
    bad = run_cli(["certify", str(plan), "-o", str(tmp_path / "o2")], monkeypatch, capsys)
    assert bad.code == 2
    assert len([line for line in bad.err.splitlines() if line]) == 1
    assert_inert(bad.out + bad.err)
