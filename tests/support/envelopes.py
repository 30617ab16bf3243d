"""Small, schema-valid tablecert certifications for the signing tests (no plan is run)."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.report import dsse
from tablecert.report.canonical import canonical_bytes

__all__ = [
    "canonical_bytes",
    "certification",
    "files",
    "payload_of",
    "raw",
    "report",
    "with_payload",
]


def report(subjects: Sequence[dsse.Subject], title: str = "test", **extra: Any) -> dict[str, Any]:
    """A report.json that follows the report schema, listing ``subjects`` as its inputs."""
    body: dict[str, Any] = {
        "schema": "tablecert.report/1",
        "tablecert_version": "0.1.0",
        "format": dsse.PREDICATE_TYPE,
        "title": title,
        "lab": "Test lab",
        "certificate": {
            "report_id": None,
            "revision": None,
            "issue_date": None,
            "applicant": None,
            "manufacturer": None,
            "equipment": [],
            "signatory": None,
            "standards": [],
            "scope_notes": None,
        },
        "outputs": [],
        "plan": subjects[0].name,
        "verdict": "pass",
        "summary": {"requirements": 1, "pass": 1, "fail": 0, "inconclusive": 0},
        "requirements": [
            {
                "section": "s",
                "requirement": "s.one",
                "article": "第八條",
                "statement": "one requirement",
                "verdict": "pass",
                "detail": "第八條 " * 50,
            }
        ],
        "sections": [
            {
                "id": "s",
                "kind": "hand-categories",
                "title": "A section",
                "verdict": "pass",
                "data": {},
                "scope": {
                    "exhaustive": ["every hand"],
                    "sampled": [],
                    "power": [],
                    "limitations": [],
                    "readings": [],
                },
                "inputs": [s.name for s in subjects],
            }
        ],
        "inputs": [
            {"name": s.name, "base": "plan", "role": "file", "sha256": s.sha256, "bytes": 1}
            for s in subjects
        ],
        "rule_data": [],
        "tool": {"name": "tablecert", "version": "0", "core_version": "0"},
        "platform": {"python": "3"},
        "started_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:00:01Z",
    }
    body.update(extra)
    return body


def certification(
    subjects: Sequence[dsse.Subject], *keys: Ed25519PrivateKey, **extra: Any
) -> dsse.Envelope:
    """An envelope over a schema-valid report of ``subjects``, signed by each key in turn."""
    envelope = dsse.Envelope(
        canonical_bytes(dsse.statement(subjects, report(subjects, **extra))),
        dsse.PAYLOAD_TYPE,
        (),
    )
    for key in keys:
        envelope = envelope.signed(key)
    return envelope


def files(tmp_path: Path, contents: Mapping[str, bytes]) -> list[dsse.Subject]:
    """Write ``contents`` under ``tmp_path`` and return them as subjects (name = relative path)."""
    out = []
    for name, data in contents.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(dsse.Subject(name, dsse.file_sha256(path)))
    return out


def raw(envelope: dsse.Envelope) -> dict[str, Any]:
    """The envelope as a JSON object, to edit."""
    data: dict[str, Any] = json.loads(envelope.to_bytes())
    return data


def payload_of(raw_envelope: Mapping[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(base64.b64decode(raw_envelope["payload"]))
    return data


def with_payload(raw_envelope: Mapping[str, Any], statement: Any) -> bytes:
    """The envelope file with its payload replaced (the signatures no longer match it)."""
    body = json.dumps(statement, ensure_ascii=False).encode()
    return json.dumps({**raw_envelope, "payload": base64.b64encode(body).decode()}).encode()
