"""`tablecert verify` as a regulator uses it: what was certified, from the verified statement
only, and the signed report checked under the name it was mailed as."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.report import dsse
from tablecert.report.signing import key_id, public_pem
from tests.support import envelopes
from tests.support.hostile import run_cli

TESTER = Ed25519PrivateKey.generate()
IDENTIFICATION = {
    "report_id": "PRGL-2026-0317",
    "revision": 2,
    "issue_date": "2026-11-30",
    "applicant": "Casino Lotus, Cotai",
    "manufacturer": None,
    "equipment": [],
    "signatory": {
        "name": "Ana Lei",
        "role": "Head of testing",
        "key_id": key_id(TESTER.public_key()),
    },
    "standards": [],
    "scope_notes": None,
}


def _verify_json(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Any:
    """What ``tablecert verify ARGS --json`` prints, parsed."""
    return json.loads(run_cli(["verify", *args, "--json"], monkeypatch, capsys).out)


def _certified(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A signed certification of a plan and a report.pdf; (envelope, public key, the PDF)."""
    lab = tmp_path / "lab"
    subjects = envelopes.files(lab, {"plan.toml": b"title = 'x'\n", "report.pdf": b"%PDF-1.7 x"})
    body = envelopes.report(
        subjects, title="Q Poker", certificate=IDENTIFICATION, outputs=["report.pdf"]
    )
    body["inputs"] = body["inputs"][:1]
    stmt = dsse.statement(subjects, body)
    env = tmp_path / "report.intoto.dsse.json"
    env.write_bytes(dsse.sign_statement(stmt, TESTER).to_bytes())
    pub = tmp_path / "tester.pub"
    pub.write_bytes(public_pem(TESTER.public_key()))
    return env, pub, lab / "report.pdf"


def test_verify_prints_what_was_certified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env, pub, _ = _certified(tmp_path)
    run = run_cli(["verify", str(env), "--pubkey", str(pub)], monkeypatch, capsys)
    assert run.code == 0, run.err
    kid = key_id(TESTER.public_key())
    assert (
        "certified: Q Poker\n"
        "  report number: PRGL-2026-0317\n"
        "  revision: 2\n"
        "  issue date: 2026-11-30\n"
        "  lab: Test lab\n"
        "  applicant: Casino Lotus, Cotai\n"
        f"  signatory: Ana Lei, Head of testing: bound to key id {kid}, which signed (verified)\n"
        "  verdict: PASS\n"
    ) in run.out
    data = _verify_json([str(env), "--pubkey", str(pub)], monkeypatch, capsys)
    assert data["certified"]["report number"] == "PRGL-2026-0317"
    assert data["certified"]["applicant"] == "Casino Lotus, Cotai"


def test_verify_shows_nothing_certified_when_invalid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env, pub, pdf = _certified(tmp_path)
    pdf.write_bytes(b"%PDF-1.7 edited")
    run = run_cli(
        ["verify", str(env), "--pubkey", str(pub), "--inputs", str(pdf)], monkeypatch, capsys
    )
    assert run.code == 1
    assert "PRGL-2026-0317" not in run.out
    assert "Casino Lotus" not in run.out
    data = _verify_json([str(env), "--pubkey", str(pub), "--inputs", str(pdf)], monkeypatch, capsys)
    assert data["certified"] is None


def test_a_renamed_copy_of_the_report_pdf_is_the_certified_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env, pub, pdf = _certified(tmp_path)
    mailed = tmp_path / "inbox" / "PRGL-2026-0317.pdf"
    mailed.parent.mkdir()
    mailed.write_bytes(pdf.read_bytes())
    run = run_cli(
        ["verify", str(env), "--pubkey", str(pub), "--inputs", str(mailed)], monkeypatch, capsys
    )
    assert run.code == 0, run.out
    assert run.out.startswith("VALID")
    assert f"{dsse.file_sha256(pdf)}  report.pdf  checked\n" in run.out
    assert (
        f"  note: {mailed} is the certified 'report.pdf' under another name: same SHA-256\n"
    ) in run.out
    data = _verify_json(
        [str(env), "--pubkey", str(pub), "--inputs", str(mailed)], monkeypatch, capsys
    )
    assert data["inputs"] == [
        {
            "file": str(mailed),
            "subject": "report.pdf",
            "matches": True,
            "note": f"{mailed} is the certified 'report.pdf' under another name: same SHA-256",
        }
    ]


def test_the_predicate_type_is_the_projects_versioned_uri() -> None:
    assert dsse.PREDICATE_TYPE == (
        "https://github.com/tablecert/tablecert/blob/main/docs/predicate/v1.md"
    )
    root = Path(__file__).resolve().parents[2]
    schema = json.loads((root / "python/tablecert/report/report.schema.json").read_text())
    assert schema["properties"]["format"]["const"] == dsse.PREDICATE_TYPE
    assert "example" not in schema["$id"]
    assert (root / "docs/predicate/v1.md").read_text().count(dsse.PREDICATE_TYPE) == 1
