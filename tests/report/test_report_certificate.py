"""The certificate's identification ([certification]): strict checks naming file, line and key;
carried into report.json; the signatory bound to the signing key (certify refuses another
key, verify refuses a certificate whose bound key did not sign)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import PlanError
from tablecert.report import dsse
from tablecert.report.certificate import signatory_check
from tablecert.report.certify import certify
from tablecert.report.plan import load_plan
from tablecert.report.signing import key_id, public_pem
from tests.support.plan_support import write_plan

PLANS = Path(__file__).resolve().parents[2] / "fixtures" / "plans"
SECTION = '\n[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "q-poker.macau"\n'
FULL = """[certification]
title = "Q Poker"
lab = "Lab"
report_id = "LAB-1"
revision = 2
issue_date = 2026-11-30
applicant = "Casino"
manufacturer = "Maker"
standards = ["Macau 89/2004", "NIST SP 800-22 rev1a"]
scope_notes = "line one\\nline two"

[certification.signatory]
name = "A. Reviewer"
role = "Technical Manager"

[[certification.equipment]]
item = "Shuffler"
model = "M-1"
serial = "S-1"
version = "fw 1"

[[certification.equipment]]
item = "Evaluator"
model = "E-2"
serial = "S-2"
version = "2.0"
"""


def _plan(tmp_path: Path, text: str) -> Path:
    return write_plan(tmp_path, text + SECTION)


def test_every_field_is_read(tmp_path: Path) -> None:
    cert = load_plan(_plan(tmp_path, FULL)).certificate
    assert cert.as_json() == {
        "report_id": "LAB-1",
        "revision": 2,
        "issue_date": "2026-11-30",
        "applicant": "Casino",
        "manufacturer": "Maker",
        "equipment": [
            {"item": "Shuffler", "model": "M-1", "serial": "S-1", "version": "fw 1"},
            {"item": "Evaluator", "model": "E-2", "serial": "S-2", "version": "2.0"},
        ],
        "signatory": {"name": "A. Reviewer", "role": "Technical Manager", "key_id": None},
        "standards": ["Macau 89/2004", "NIST SP 800-22 rev1a"],
        "scope_notes": "line one\nline two",
    }
    assert cert.paper == "A4"


def test_bundled_plans_carry_the_certificate_fields() -> None:
    for name in ("main.toml", "smoke.toml", "deviating.toml"):
        cert = load_plan(PLANS / name).certificate
        assert cert.signatory is not None, name
        filled = (cert.report_id, cert.issue_date, cert.applicant, cert.manufacturer)
        assert all(filled), name
        assert cert.revision is not None, name
        assert cert.standards, name
        assert cert.signatory.role, name
    assert len(load_plan(PLANS / "main.toml").certificate.equipment) == 3


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("revision = 2", 'revision = "2"', 5, r"certification\.revision: expected an integer"),
        ("revision = 2", "revision = 99999999999", 5, r"certification\.revision: expected"),
        ("revision = 2", "revision = true", 5, r"certification\.revision: expected"),
        ("issue_date = 2026-11-30", 'issue_date = "30/11/2026"', 6, r"issue_date: expected a d"),
        ("issue_date = 2026-11-30", "issue_date = 2026-11-30T10:00:00", 6, r"issue_date"),
        ('applicant = "Casino"', "applicant = 3", 7, r"certification\.applicant: expected a non"),
        ('applicant = "Casino"', 'applicant = ""', 7, r"certification\.applicant: expected a non"),
        ('applicant = "Casino"', 'applicant = "a\\u202eb"', 7, r"direction character U\+202E"),
        ('applicant = "Casino"', 'applicant = "a\\nb"', 7, r"control or direction character"),
        ('applicant = "Casino"', 'aplicant = "Casino"', 7, r"certification\.aplicant: unknown"),
        ('standards = ["Macau', 'standards = ["x", "x"]\n#', 9, r"standards: 'x' is listed tw"),
        ('name = "A. Reviewer"', "", 12, r"certification\.signatory\.name: missing"),
        ('role = "Technical Manager"', 'role = "R"\nkey_id = "abc"', 15, r"signatory\.key_id: exp"),
        ('role = "Technical Manager"', 'rank = "x"', 14, r"certification\.signatory\.rank: unk"),
        ('serial = "S-2"', "", 22, r"certification\.equipment\[2\]\.serial: missing"),
        ('model = "M-1"', "model = 1", 18, r"certification\.equipment\[1\]\.model: expected"),
    ],
)
def test_errors_name_file_line_and_key(
    tmp_path: Path, old: str, new: str, line: int, message: str
) -> None:
    assert old in FULL
    path = _plan(tmp_path, FULL.replace(old, new, 1))
    with pytest.raises(PlanError, match=message) as caught:
        load_plan(path)
    assert str(caught.value).startswith(f"{path}:{line}: "), str(caught.value)


def test_paper(tmp_path: Path) -> None:
    plan = load_plan(_plan(tmp_path, FULL.replace('lab = "Lab"', 'lab = "Lab"\npaper = "Letter"')))
    assert plan.certificate.paper == "Letter"
    with pytest.raises(PlanError, match=r"plan\.toml:4: certification\.paper: 'A5' is not one"):
        load_plan(_plan(tmp_path, FULL.replace('lab = "Lab"', 'lab = "Lab"\npaper = "A5"')))


def _bound(tmp_path: Path, key: Ed25519PrivateKey) -> Path:
    kid = key_id(key.public_key())
    return _plan(
        tmp_path,
        FULL.replace('role = "Technical Manager"', f'role = "Technical Manager"\nkey_id = "{kid}"'),
    )


def test_signatory_bound_to_the_signing_key(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    plan = _bound(tmp_path, key)
    other = Ed25519PrivateKey.generate()
    with pytest.raises(PlanError, match=r"signatory\.key_id: the plan binds A\. Reviewer to key"):
        certify(plan, other, tmp_path / "wrong")
    with pytest.raises(PlanError, match="signed with an ephemeral key"):
        certify(plan, other, tmp_path / "wrong", ephemeral=True)
    assert not (tmp_path / "wrong").exists()  # refused before anything ran or was written
    run = certify(plan, key, tmp_path / "out")
    kid = key_id(key.public_key())
    assert run.data["certificate"]["signatory"]["key_id"] == kid
    html = run.html.read_text(encoding="utf-8")
    assert "A. Reviewer, Technical Manager" in html
    assert "the plan binds the signatory to this key id" in html
    pub = tmp_path / "lab.pub"
    pub.write_bytes(public_pem(key.public_key()))
    result = CliRunner().invoke(app, ["verify", str(run.envelope), "--pubkey", str(pub)])
    assert result.exit_code == 0, result.output
    assert (
        f"signatory: A. Reviewer, Technical Manager: bound to key id {kid}, which signed "
        "(verified)" in result.output
    )
    # A co-signature by another key keeps it valid; the bound key must be among the signers.
    envelope = dsse.read_envelope(run.envelope)
    assert signatory_check(dsse.parse_statement(envelope.payload), [kid])[1] == ""


def test_verify_refuses_a_bound_signatory_whose_key_did_not_sign(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    run = certify(_bound(tmp_path, key), key, tmp_path / "out")
    # The same statement signed by someone else: every signature verifies, but the certificate
    # names a signatory whose key did not sign.
    forger = Ed25519PrivateKey.generate()
    stmt = dsse.parse_statement(dsse.read_envelope(run.envelope).payload)
    forged = dsse.sign_statement(stmt, forger)
    path = tmp_path / "forged.json"
    path.write_bytes(forged.to_bytes())
    result = dsse.verify_file(path, [forger.public_key()])
    assert not result.valid
    assert result.reasons == (
        "the certificate names A. Reviewer, Technical Manager as signatory with key id "
        f"{key_id(key.public_key())}, but no verified signature is by that key",
    )


def test_unbound_signatory_is_named_not_proved(tmp_path: Path) -> None:
    run = certify(
        _plan(tmp_path, FULL), Ed25519PrivateKey.generate(), tmp_path / "o", ephemeral=True
    )
    stmt = dsse.parse_statement(dsse.read_envelope(run.envelope).payload)
    assert signatory_check(stmt, []) == (
        "A. Reviewer, Technical Manager (named; the certificate binds no key id to the signatory)",
        "",
    )
    assert "ephemeral key: the signatory is named, not bound to a key" in run.html.read_text()
