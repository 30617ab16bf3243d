"""DSSE envelopes over in-toto Statements v1: sign, add a signature, verify.

The envelope is ``{"payload", "payloadType", "signatures": [{"keyid", "sig"}]}`` with the
payload base64-encoded; each signature is Ed25519 over the DSSE pre-authentication encoding
``PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body``. The payload is an
in-toto Statement v1 (``_type``, ``subject`` = every input file with its SHA-256,
``predicateType``, ``predicate`` = the report). Verification accepts an envelope only if it
has at least one signature and every signature verifies against a given public key; a
base64 text that does not re-encode to itself is rejected, so no byte can change unnoticed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tablecert.errors import EnvelopeError
from tablecert.report.canonical import canonical_bytes, canonical_pretty
from tablecert.report.certificate import signatory_check
from tablecert.report.signing import key_id

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://tablecert.example/certification/v1"
_HEX64 = re.compile(r"[0-9a-f]{64}")


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding of a payload type and body."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Subject:
    """A certified input: its name (a relative path) and SHA-256."""

    name: str
    sha256: str

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "digest": {"sha256": self.sha256}}


def statement(subjects: Sequence[Subject], predicate: Mapping[str, Any]) -> dict[str, Any]:
    """An in-toto Statement v1 whose predicate is a certification report."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [s.as_json() for s in sorted(subjects, key=lambda s: s.name)],
        "predicateType": PREDICATE_TYPE,
        "predicate": dict(predicate),
    }


@dataclass(frozen=True)
class Signature:
    keyid: str
    sig: bytes


@dataclass(frozen=True)
class Envelope:
    """A decoded DSSE envelope."""

    payload: bytes
    payload_type: str
    signatures: tuple[Signature, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "payload": _b64(self.payload),
            "payloadType": self.payload_type,
            "signatures": [{"keyid": s.keyid, "sig": _b64(s.sig)} for s in self.signatures],
        }

    def to_bytes(self) -> bytes:
        """Compact canonical JSON, no trailing newline: every byte of the file is significant."""
        return canonical_bytes(self.as_json())

    def signed(self, key: Ed25519PrivateKey) -> Envelope:
        """This envelope with one more signature (e.g. the reviewer's after the tester's)."""
        kid = key_id(key.public_key())
        if any(s.keyid == kid for s in self.signatures):
            raise EnvelopeError(f"the envelope is already signed by key {kid}")
        sig = Signature(kid, key.sign(pae(self.payload_type, self.payload)))
        return Envelope(self.payload, self.payload_type, (*self.signatures, sig))


def sign_statement(stmt: Mapping[str, Any], key: Ed25519PrivateKey) -> Envelope:
    """A new envelope over the canonical bytes of ``stmt``, signed once."""
    return Envelope(canonical_bytes(stmt), PAYLOAD_TYPE, ()).signed(key)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _b64_decode(text: Any, what: str) -> bytes:
    """Standard or URL-safe base64 (DSSE allows both), rejected unless it re-encodes exactly."""
    if not isinstance(text, str):
        raise EnvelopeError(f"{what} is not a string")
    altchars = b"-_" if "-" in text or "_" in text else b"+/"
    padded = text + "=" * (-len(text) % 4) if "=" not in text else text
    try:
        data = base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise EnvelopeError(f"{what} is not valid base64: {exc}") from exc
    again = base64.b64encode(data, altchars=altchars).decode("ascii")
    if text not in (again, again.rstrip("=")):
        raise EnvelopeError(f"{what} is not canonical base64")
    return data


def parse_envelope(data: bytes, source: str = "envelope") -> Envelope:
    """Decode a DSSE JSON envelope; any malformation is an EnvelopeError naming what is wrong."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise EnvelopeError(f"{source}: not UTF-8 at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise EnvelopeError(
            f"{source}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    if not isinstance(raw, dict):
        raise EnvelopeError(f"{source}: a DSSE envelope is a JSON object")
    for field in ("payload", "payloadType", "signatures"):
        if field not in raw:
            raise EnvelopeError(f"{source}: missing field {field!r}")
    payload_type = raw["payloadType"]
    if not isinstance(payload_type, str):
        raise EnvelopeError(f"{source}: payloadType is not a string")
    payload = _b64_decode(raw["payload"], f"{source}: payload")
    if not isinstance(raw["signatures"], list):
        raise EnvelopeError(f"{source}: signatures is not a list")
    signatures = []
    for i, entry in enumerate(raw["signatures"], start=1):
        if not isinstance(entry, dict) or "sig" not in entry:
            raise EnvelopeError(f"{source}: signature {i} has no 'sig'")
        kid = entry.get("keyid", "")
        if not isinstance(kid, str):
            raise EnvelopeError(f"{source}: signature {i}: keyid is not a string")
        signatures.append(Signature(kid, _b64_decode(entry["sig"], f"{source}: signature {i}")))
    return Envelope(payload, payload_type, tuple(signatures))


def read_envelope(path: Path) -> Envelope:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EnvelopeError(f"{path}: cannot read: {exc.strerror}") from exc
    return parse_envelope(data, str(path))


def parse_statement(payload: bytes) -> dict[str, Any]:
    """The in-toto Statement v1 in a payload, with its subjects checked."""
    try:
        stmt = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EnvelopeError(f"the payload is not JSON: {exc}") from exc
    if not isinstance(stmt, dict) or stmt.get("_type") != STATEMENT_TYPE:
        raise EnvelopeError(f"the payload is not an in-toto Statement ({STATEMENT_TYPE})")
    subjects = stmt.get("subject")
    if not isinstance(subjects, list) or not subjects:
        raise EnvelopeError("the statement has no subject")
    for i, s in enumerate(subjects, start=1):
        digest = s.get("digest") if isinstance(s, dict) else None
        if not isinstance(digest, dict) or not _HEX64.fullmatch(str(digest.get("sha256"))):
            raise EnvelopeError(f"statement subject {i} has no sha256 digest")
    if not isinstance(stmt.get("predicateType"), str):
        raise EnvelopeError("the statement has no predicateType")
    return stmt


@dataclass(frozen=True)
class InputCheck:
    """One file given to verify: the subject it was matched to, and whether it matches."""

    path: Path
    subject: str | None
    matches: bool
    problem: str = ""


@dataclass(frozen=True)
class Verification:
    """The outcome of verifying an envelope: valid only with no reasons against it."""

    reasons: tuple[str, ...]
    signers: tuple[str, ...]
    statement: Mapping[str, Any] | None
    inputs: tuple[InputCheck, ...]

    @property
    def valid(self) -> bool:
        return not self.reasons


def verify_envelope(
    envelope: Envelope,
    public_keys: Sequence[Ed25519PublicKey],
    inputs: Sequence[Path] = (),
    report: Path | None = None,
) -> Verification:
    """Check every signature, the payload type, the statement, the given input files and
    (if given) that a report.json is exactly the signed predicate."""
    reasons: list[str] = []
    if not public_keys:
        reasons.append("no public key given")
    if not envelope.signatures:
        reasons.append("the envelope has no signatures")
    keys = {key_id(k): k for k in public_keys}
    message = pae(envelope.payload_type, envelope.payload)
    signers: list[str] = []
    for i, sig in enumerate(envelope.signatures, start=1):
        # The keyid is an unauthenticated hint: it only narrows which keys to try.
        candidates = [keys[sig.keyid]] if sig.keyid in keys else list(keys.values())
        signer = next((k for k in candidates if _verifies(k, sig.sig, message)), None)
        if signer is None:
            reasons.append(
                f"signature {i} (keyid {sig.keyid or 'unset'}) does not verify against "
                "the given public key(s)"
            )
        else:
            signers.append(key_id(signer))
    if envelope.payload_type != PAYLOAD_TYPE:
        reasons.append(f"payloadType is {envelope.payload_type!r}, expected {PAYLOAD_TYPE!r}")
    stmt: dict[str, Any] | None = None
    try:
        stmt = parse_statement(envelope.payload)
    except EnvelopeError as exc:
        reasons.append(str(exc))
    checks: tuple[InputCheck, ...] = ()
    if stmt is not None:
        checks = tuple(check_inputs(stmt, inputs))
        reasons.extend(c.problem for c in checks if not c.matches)
        problem = signatory_check(stmt, signers)[1]
        if problem:
            reasons.append(problem)
        if report is not None:
            reasons.extend(check_report(stmt, report))
    return Verification(tuple(reasons), tuple(signers), stmt if not reasons else None, checks)


def verify_file(
    path: Path,
    public_keys: Sequence[Ed25519PublicKey],
    inputs: Sequence[Path] = (),
    report: Path | None = None,
) -> Verification:
    """Verify an envelope file; a malformed file is an invalid verification, not a crash."""
    try:
        envelope = read_envelope(path)
    except EnvelopeError as exc:
        return Verification((str(exc),), (), None, ())
    return verify_envelope(envelope, public_keys, inputs, report)


def check_report(stmt: Mapping[str, Any], report: Path) -> list[str]:
    """Problems if ``report`` is not byte for byte the signed predicate (as certify writes it)."""
    try:
        data = report.read_bytes()
    except OSError as exc:
        return [f"{report}: cannot read: {exc.strerror}"]
    if data == canonical_pretty(stmt.get("predicate")):
        return []
    try:
        same = json.loads(data.decode("utf-8")) == stmt.get("predicate")
    except (UnicodeDecodeError, json.JSONDecodeError):
        same = False
    if same:
        return [f"{report} holds the signed report but not in canonical form"]
    return [f"{report} is not the signed report (its content differs from the predicate)"]


def _verifies(key: Ed25519PublicKey, sig: bytes, message: bytes) -> bool:
    try:
        key.verify(sig, message)
    except InvalidSignature:
        return False
    return True


def check_inputs(stmt: Mapping[str, Any], files: Sequence[Path]) -> list[InputCheck]:
    """Match each file to a subject (by file name, then by path) and compare digests."""
    subjects = {str(s.get("name", "")): s["digest"]["sha256"] for s in stmt["subject"]}
    by_digest = {digest: name for name, digest in subjects.items()}
    checks = []
    for path in files:
        digest = file_sha256(path)
        name = _subject_for(path, list(subjects))
        if name is None:
            if digest in by_digest:
                checks.append(InputCheck(path, by_digest[digest], True))
            else:
                checks.append(
                    InputCheck(path, None, False, f"{path} is not among the certified inputs")
                )
            continue
        if subjects[name] == digest:
            checks.append(InputCheck(path, name, True))
            continue
        problem = (
            f"input {path} does not match the certified {name}: sha256 {digest}, "
            f"certified {subjects[name]}"
        )
        if digest in by_digest:
            problem += f"; its content is the certified {by_digest[digest]} (swapped?)"
        checks.append(InputCheck(path, name, False, problem))
    return checks


def _subject_for(path: Path, names: Sequence[str]) -> str | None:
    same_name = [n for n in names if PurePosixPath(n).name == path.name]
    if len(same_name) <= 1:
        return same_name[0] if same_name else None
    parts = path.resolve().parts
    for name in same_name:
        tail = PurePosixPath(name).parts
        if parts[-len(tail) :] == tail:
            return name
    return None
