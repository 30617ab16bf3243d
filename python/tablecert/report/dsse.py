"""DSSE envelopes over in-toto Statements v1: sign, co-sign, verify under a threshold.

The envelope is ``{"payload", "payloadType", "signatures": [{"keyid", "sig"}]}`` with the
payload in standard, padded base64; each signature is Ed25519 over the DSSE pre-authentication
encoding ``PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body``. The payload
is an in-toto Statement v1 (``_type``, ``subject`` = every input file with its SHA-256,
``predicateType``, ``predicate`` = the report).

The signature policy is DSSE's and in-toto's (:func:`check_signatures`, the one place it is
decided): a signature counts for the key whose id it names, only if it verifies with that
key; each key counts once; the envelope is valid when at least ``threshold`` distinct given
keys signed it. A signature naming a given key that does not verify, or a second signature
naming a given key, makes the envelope invalid; signatures naming keys not given are listed
as not checked and change nothing. Parsing is strict: duplicate JSON keys, unknown fields,
unpadded or URL-safe base64, a foreign payload type or statement are refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from tablecert.bundled import SCHEMA_FILE
from tablecert.errors import EnvelopeError
from tablecert.io import strict_json as strict_json_text
from tablecert.io.inputs import file_sha256 as file_sha256
from tablecert.io.inputs import read_input
from tablecert.judgement import Outcome
from tablecert.report.canonical import canonical_bytes
from tablecert.report.certificate import signatory_check
from tablecert.report.signing import key_id
from tablecert.rules import RULES_DIR

# jsonschema and cryptography are imported where they are used (start-up of light commands).
if TYPE_CHECKING:
    import jsonschema
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://github.com/tablecert/tablecert/blob/main/docs/predicate/v1.md"
"""The signed statement's predicate type: tablecert's certification report, version 1, defined by
the page at this address (docs/predicate/v1.md in the repository) and the report schema."""
_HEX64 = re.compile(r"[0-9a-f]{64}")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
ENVELOPE_FIELDS = ("payload", "payloadType", "signatures")
SIGNATURE_FIELDS = ("keyid", "sig")
STATEMENT_FIELDS = ("_type", "subject", "predicateType", "predicate")


class InputsAmbiguousError(EnvelopeError):
    """A file given to verify matches no single subject by name: nothing is judged."""


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding of a payload type and body."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


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
        """This envelope with one more signature (e.g. the reviewer's after the tester's);
        check the existing ones first (:func:`cosign`)."""
        kid = key_id(key.public_key())
        if any(s.keyid == kid for s in self.signatures):
            raise EnvelopeError(f"the envelope is already signed by key {kid}; a key signs once")
        sig = Signature(kid, key.sign(pae(self.payload_type, self.payload)))
        return Envelope(self.payload, self.payload_type, (*self.signatures, sig))


def sign_statement(stmt: Mapping[str, Any], key: Ed25519PrivateKey) -> Envelope:
    """A new envelope over the canonical bytes of ``stmt``, signed once."""
    return Envelope(canonical_bytes(stmt), PAYLOAD_TYPE, ()).signed(key)


def _quoted(value: Any) -> str:
    """A value from the envelope in a message: a string between quotes as it is (the printer
    escapes it once), anything else as its repr."""
    return f"'{value}'" if isinstance(value, str) else repr(value)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _b64_decode(text: Any, what: str) -> bytes:
    """Standard, padded base64 only (as securesystemslib and most DSSE tools write it)."""
    if not isinstance(text, str):
        raise EnvelopeError(f"{what} is not a string")
    if not _BASE64.fullmatch(text):
        raise EnvelopeError(
            f"{what} is not standard padded base64 (A-Z a-z 0-9 + /, '=' padding to a "
            "multiple of 4 characters)"
        )
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - the pattern rules it out
        raise EnvelopeError(f"{what} is not valid base64: {exc}") from exc
    if _b64(data) != text:
        raise EnvelopeError(f"{what} is not canonical base64 (unused bits are set)")
    return data


def strict_json(data: bytes, where: str) -> Any:
    """JSON read strictly (:mod:`tablecert.io.strict_json`: no duplicate keys, NaN, huge or deep
    values) and with no floats: tablecert writes none, so one is a sign of another writer."""

    def no_float(token: str) -> Any:
        raise EnvelopeError(f"{where}: number {token} is not allowed (no floats)")

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EnvelopeError(f"{where}: not UTF-8 at byte {exc.start}") from exc
    try:
        return strict_json_text.loads(text, where, parse_float=no_float)
    except strict_json_text.StrictJsonError as exc:
        raise EnvelopeError(str(exc)) from exc


def _exact_fields(value: Any, fields: Sequence[str], what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EnvelopeError(f"{what} is not a JSON object")
    missing = [f for f in fields if f not in value]
    if missing:
        raise EnvelopeError(f"{what}: missing field {missing[0]!r}")
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise EnvelopeError(f"{what}: unknown field {_quoted(unknown[0])}")
    return value


def parse_envelope(data: bytes, source: str = "envelope") -> Envelope:
    """Decode a DSSE JSON envelope; any malformation is an EnvelopeError naming what is wrong."""
    raw = _exact_fields(strict_json(data, source), ENVELOPE_FIELDS, f"{source}: the envelope")
    payload_type = raw["payloadType"]
    if not isinstance(payload_type, str):
        raise EnvelopeError(f"{source}: payloadType is not a string")
    payload = _b64_decode(raw["payload"], f"{source}: payload")
    if not isinstance(raw["signatures"], list):
        raise EnvelopeError(f"{source}: signatures is not a list")
    signatures = []
    for i, entry in enumerate(raw["signatures"], start=1):
        entry = _exact_fields(entry, SIGNATURE_FIELDS, f"{source}: signature {i}")
        kid = entry["keyid"]
        if not isinstance(kid, str):
            raise EnvelopeError(f"{source}: signature {i}: keyid is not a string")
        signatures.append(Signature(kid, _b64_decode(entry["sig"], f"{source}: signature {i}")))
    return Envelope(payload, payload_type, tuple(signatures))


def read_envelope(path: Path) -> Envelope:
    try:
        data = read_input(path)
    except OSError as exc:
        raise EnvelopeError(f"{path}: cannot read: {exc.strerror}") from exc
    return parse_envelope(data, str(path))


class NotCertificationError(EnvelopeError):
    """The payload is not a tablecert certification (another statement, or a bad report)."""


@cache
def _report_schema() -> jsonschema.protocols.Validator:
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator: jsonschema.protocols.Validator = jsonschema.Draft202012Validator(schema)
    return validator


def parse_statement(payload: bytes) -> dict[str, Any]:
    """The tablecert certification in a payload: an in-toto Statement v1 whose predicate type
    is tablecert's, with unique named subjects and a predicate valid against the report
    schema (and listing exactly the subjects as its inputs). Anything else is a
    NotCertificationError saying what it is."""
    try:
        stmt = strict_json(payload, "the payload")
    except EnvelopeError as exc:
        raise NotCertificationError(f"not a tablecert certification: {exc}") from exc
    if not isinstance(stmt, dict):
        raise NotCertificationError("not a tablecert certification: the payload is no object")
    if stmt.get("_type") != STATEMENT_TYPE:
        raise NotCertificationError(
            f"not a tablecert certification: _type is {_quoted(stmt.get('_type'))}, "
            f"expected {STATEMENT_TYPE!r}"
        )
    if stmt.get("predicateType") != PREDICATE_TYPE:
        raise NotCertificationError(
            "not a tablecert certification: predicateType is "
            f"{_quoted(stmt.get('predicateType'))}, expected {PREDICATE_TYPE!r}"
        )
    try:
        _exact_fields(stmt, STATEMENT_FIELDS, "the statement")
    except EnvelopeError as exc:
        raise NotCertificationError(f"not a tablecert certification: {exc}") from exc
    subjects = stmt["subject"]
    if not isinstance(subjects, list) or not subjects:
        raise NotCertificationError("not a tablecert certification: the statement has no subject")
    names: set[str] = set()
    for i, s in enumerate(subjects, start=1):
        what = f"statement subject {i}"
        try:
            _exact_fields(s, ("name", "digest"), what)
            _exact_fields(s["digest"], ("sha256",), f"{what}: digest")
        except EnvelopeError as exc:
            raise NotCertificationError(f"not a tablecert certification: {exc}") from exc
        name, digest = s["name"], s["digest"]["sha256"]
        if not isinstance(name, str) or not name:
            raise NotCertificationError(f"{what} has no name")
        if name in names:
            raise NotCertificationError(f"{what}: name {_quoted(name)} is used twice")
        names.add(name)
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise NotCertificationError(
                f"{what} ({_quoted(name)}): sha256 is not 64 lowercase hex digits"
            )
    errors = sorted(
        _report_schema().iter_errors(stmt["predicate"]), key=lambda e: [str(p) for p in e.path]
    )
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(top)"
        message = errors[0].message
        message = message if len(message) <= 200 else message[:200] + "..."
        raise NotCertificationError(
            f"not a tablecert certification: the report does not follow the report schema at "
            f"{where}: {message}"
        )
    listed = sorted((i["name"], i["sha256"]) for i in stmt["predicate"]["inputs"])
    outputs = set(stmt["predicate"]["outputs"])  # rendered files (report.pdf): by name only
    signed = sorted(
        (s["name"], s["digest"]["sha256"]) for s in subjects if s["name"] not in outputs
    )
    if listed != signed or not outputs <= names:
        raise NotCertificationError(
            "not a tablecert certification: the report's inputs are not the statement's subjects"
        )
    return stmt


SignatureStatus = Literal["verified", "does not verify", "repeated key id", "not checked"]


@dataclass(frozen=True)
class SignatureCheck:
    """What became of one signature: verified (counts for its key), does not verify (the
    envelope is invalid), repeated key id (invalid), or not checked (no such key given)."""

    index: int
    keyid: str
    status: SignatureStatus

    def as_json(self) -> dict[str, Any]:
        return {"signature": self.index, "keyid": self.keyid, "status": self.status}


@dataclass(frozen=True)
class SignaturePolicy:
    """The outcome of :func:`check_signatures`."""

    checks: tuple[SignatureCheck, ...]
    reasons: tuple[str, ...]

    @property
    def signers(self) -> tuple[str, ...]:
        """Distinct given keys that signed, in signature order."""
        return tuple(c.keyid for c in self.checks if c.status == "verified")

    @property
    def unchecked(self) -> tuple[SignatureCheck, ...]:
        return tuple(c for c in self.checks if c.status == "not checked")


def check_signatures(
    envelope: Envelope, keys: Sequence[Ed25519PublicKey], threshold: int = 1
) -> SignaturePolicy:
    """The signature policy, in one place (DSSE/in-toto): each signature is checked with the
    given key its key id names; each key counts once; at least ``threshold`` distinct given
    keys must have signed. A failing signature naming a given key, or a second signature
    naming one, is a reason against; signatures naming other keys are listed as not checked
    and change nothing (whose they are is unknown)."""
    given = {key_id(k): k for k in keys}
    message = pae(envelope.payload_type, envelope.payload)
    reasons: list[str] = []
    checks: list[SignatureCheck] = []
    first: dict[str, int] = {}
    for i, sig in enumerate(envelope.signatures, start=1):
        status: SignatureStatus
        if sig.keyid not in given:
            status = "not checked"
        elif sig.keyid in first:
            status = "repeated key id"
            reasons.append(
                f"signature {i} repeats key id {_quoted(sig.keyid)} of signature "
                f"{first[sig.keyid]}: a key signs once, a copy never counts as a second signer"
            )
        elif _verifies(given[sig.keyid], sig.sig, message):
            status = "verified"
        else:
            status = "does not verify"
            reasons.append(
                f"signature {i} names the given key {sig.keyid} but does not verify with it "
                "(altered payload or forged signature)"
            )
        first.setdefault(sig.keyid, i)
        checks.append(SignatureCheck(i, sig.keyid, status))
    policy = SignaturePolicy(tuple(checks), ())
    if not reasons and len(policy.signers) < threshold:
        reasons.append(
            f"{len(policy.signers)} of the given keys signed; at least {threshold} must"
            + ("" if envelope.signatures else " (the envelope has no signatures)")
        )
    return SignaturePolicy(tuple(checks), tuple(reasons))


def cosign(
    envelope: Envelope,
    key: Ed25519PrivateKey,
    trusted: Sequence[Ed25519PublicKey],
    *,
    trust_on_first_use: bool = False,
) -> tuple[Envelope, SignaturePolicy]:
    """``envelope`` signed by ``key`` too, after checking what it already holds: it must be a
    tablecert certification, every existing signature must verify with a ``trusted`` key
    (unless ``trust_on_first_use``: those naming keys not given are then accepted unchecked),
    no key id may repeat, and ``key`` must not have signed it already."""
    if envelope.payload_type != PAYLOAD_TYPE:
        raise NotCertificationError(
            f"not a tablecert certification: payloadType is {_quoted(envelope.payload_type)}"
        )
    parse_statement(envelope.payload)
    kid = key_id(key.public_key())
    if any(s.keyid == kid for s in envelope.signatures):
        raise EnvelopeError(f"the envelope is already signed by key {kid}; a key signs once")
    ids = [s.keyid for s in envelope.signatures]
    repeated = sorted({k for k in ids if ids.count(k) > 1})
    if repeated:
        raise InvalidEnvelopeError(
            f"key id {_quoted(repeated[0])} names {ids.count(repeated[0])} signatures: "
            "a key signs once, a copy never counts as a second signer"
        )
    policy = check_signatures(envelope, trusted, threshold=0)
    if policy.reasons:
        raise InvalidEnvelopeError("; ".join(policy.reasons))
    if policy.unchecked and not trust_on_first_use:
        listed = ", ".join(
            f"signature {c.index} (key id {_quoted(c.keyid)})" for c in policy.unchecked
        )
        raise EnvelopeError(
            f"cannot check {listed}: give --pubkey for each existing signer, or "
            "--trust-on-first-use to co-sign without checking them"
        )
    return envelope.signed(key), policy


class InvalidEnvelopeError(EnvelopeError):
    """An envelope whose signatures do not hold: refused (exit 1), never co-signed."""


@dataclass(frozen=True)
class InputCheck:
    """One file given to verify: the subject it was matched to, whether it matches, and
    (``note``) how it was matched when its name is not the subject's."""

    path: Path
    subject: str | None
    matches: bool
    problem: str = ""
    #: How a matching file was matched when not by its name (a renamed copy).
    note: str = ""


@dataclass(frozen=True)
class Verification:
    """The outcome of verifying an envelope: valid only with no reasons against it.
    ``statement`` is the certification, only when valid: nothing unverified is shown."""

    reasons: tuple[str, ...]
    policy: SignaturePolicy
    threshold: int
    statement: Mapping[str, Any] | None
    inputs: tuple[InputCheck, ...] = field(default=())
    foreign: bool = False

    @property
    def valid(self) -> bool:
        return not self.reasons

    @property
    def outcome(self) -> Outcome:
        """Fail (invalid) on any reason against the envelope, else pass (valid)."""
        return Outcome.of(bool(self.reasons))

    @property
    def signers(self) -> tuple[str, ...]:
        return self.policy.signers


def verify_envelope(
    envelope: Envelope,
    public_keys: Sequence[Ed25519PublicKey],
    inputs: Sequence[Path] = (),
    report: Path | None = None,
    *,
    threshold: int = 1,
    inputs_root: Path | None = None,
) -> Verification:
    """Check the signatures under the policy (:func:`check_signatures`), the payload type,
    the statement, the given input files and (if given) that a report.json is exactly the
    signed predicate. A usage problem (no key, a threshold above the keys given, an input
    that matches no single subject) raises EnvelopeError instead: nothing is judged."""
    distinct = {key_id(k) for k in public_keys}
    if not distinct:
        raise EnvelopeError("no public key given")
    if not 1 <= threshold <= len(distinct):
        raise EnvelopeError(
            f"threshold {threshold}: give at least that many distinct public keys "
            f"({len(distinct)} given), and at least 1"
        )
    policy = check_signatures(envelope, public_keys, threshold)
    reasons = list(policy.reasons)
    foreign = False
    if envelope.payload_type != PAYLOAD_TYPE:
        foreign = True
        reasons.append(
            f"not a tablecert certification: payloadType is {_quoted(envelope.payload_type)}, "
            f"expected {PAYLOAD_TYPE!r}"
        )
    stmt: dict[str, Any] | None = None
    checks: tuple[InputCheck, ...] = ()
    if not foreign:
        try:
            stmt = parse_statement(envelope.payload)
        except NotCertificationError as exc:
            foreign = True
            reasons.append(str(exc))
    if stmt is not None:
        checks = tuple(check_inputs(stmt, inputs, inputs_root))
        reasons.extend(c.problem for c in checks if not c.matches)
        problem = signatory_check(stmt, policy.signers)[1]
        if problem:
            reasons.append(problem)
        if report is not None:
            reasons.extend(check_report(stmt, report))
    valid_stmt = stmt if not reasons else None
    return Verification(tuple(reasons), policy, threshold, valid_stmt, checks, foreign)


def verify_file(
    path: Path,
    public_keys: Sequence[Ed25519PublicKey],
    inputs: Sequence[Path] = (),
    report: Path | None = None,
    *,
    threshold: int = 1,
    inputs_root: Path | None = None,
) -> Verification:
    """Verify an envelope file; a malformed file raises EnvelopeError (nothing judged)."""
    return verify_envelope(
        read_envelope(path),
        public_keys,
        inputs,
        report,
        threshold=threshold,
        inputs_root=inputs_root,
    )


def check_report(stmt: Mapping[str, Any], report: Path) -> list[str]:
    """Problems if ``report`` is not byte for byte the signed predicate: its RFC 8785 (JCS)
    bytes, exactly as certify writes report.json."""
    try:
        data = read_input(report)
    except OSError as exc:
        return [f"{report}: cannot read: {exc.strerror}"]
    if data == canonical_bytes(stmt.get("predicate")):
        return []
    try:
        same = json.loads(data.decode("utf-8")) == stmt.get("predicate")
    except (UnicodeDecodeError, json.JSONDecodeError):
        same = False
    if same:
        return [f"{report} holds the signed report but not in canonical form"]
    return [f"{report} is not the signed report (its content differs from the predicate)"]


def _verifies(key: Ed25519PublicKey, sig: bytes, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        key.verify(sig, message)
    except InvalidSignature:
        return False
    return True


def subject_path(name: str, root: Path, bundled: bool = False) -> Path:
    """Where the subject ``name`` lies when the plan's folder is ``root`` (absolute names as
    they are; a ``bundled`` one, ``bundled/...``, in this tablecert's bundled data)."""
    if bundled:
        return RULES_DIR.parent / name.removeprefix("bundled/")
    return root / name


def _tail(name: str, bundled: bool) -> tuple[str, ...]:
    """The path parts of a subject name a file's whole path must end with."""
    parts = PurePosixPath(name.removeprefix("bundled/") if bundled else name).parts
    while parts and parts[0] in ("/", ".."):
        parts = parts[1:]
    return parts


def match_subject(
    path: Path, names: Sequence[str], root: Path | None, bundled: Collection[str] = ()
) -> str | None:
    """The one subject ``path`` is, by its recorded name: with ``root`` (the plan's folder),
    the subject whose path is ``path``; without, the subject whose name (leading ``..``
    dropped) ends ``path``'s whole path, or the only subject with its file name. More than
    one candidate is an InputsAmbiguousError: contents never decide. ``bundled``: names of
    rule files bundled with tablecert (``bundled/...``)."""
    where = path.resolve()
    if root is not None:
        found = [n for n in names if subject_path(n, root, n in bundled).resolve() == where]
    else:
        found = [n for n in names if (t := _tail(n, n in bundled)) and where.parts[-len(t) :] == t]
        if not found:  # elsewhere on disk: the subject of that file name, if only one
            found = [n for n in names if PurePosixPath(n).name == path.name]
    if len(found) > 1:
        raise InputsAmbiguousError(
            f"{path} could be any of the certified {', '.join(_quoted(n) for n in found)}: "
            "give --inputs-root DIR (the folder the plan was in) to match whole paths"
        )
    return found[0] if found else None


def check_inputs(
    stmt: Mapping[str, Any], files: Sequence[Path], root: Path | None = None
) -> list[InputCheck]:
    """Match each file to a subject and compare digests. A file whose content is a certified
    subject's is that subject, whatever it is called now (a report mailed under another name
    is still the certified report; the check's note says so); any other file is matched by
    its recorded name (:func:`match_subject`) and reported as not matching it."""
    subjects = {s["name"]: s["digest"]["sha256"] for s in stmt["subject"]}
    bundled = {i["name"] for i in stmt["predicate"]["inputs"] if i["base"] == "bundled"}
    by_digest: dict[str, list[str]] = {}
    for name, digest in sorted(subjects.items()):
        by_digest.setdefault(digest, []).append(name)
    checks = []
    claimed: dict[str, Path] = {}
    for path in files:
        digest = file_sha256(path)
        same = by_digest.get(digest, [])
        try:
            name = match_subject(path, list(subjects), root, bundled)
        except InputsAmbiguousError:
            if not same:
                raise
            name = None
        if same and name not in same:
            checks.append(InputCheck(path, same[0], True, note=_renamed_note(path, same, name)))
            continue
        if name is not None and name in claimed:
            raise InputsAmbiguousError(
                f"{claimed[name]} and {path} both match the certified {_quoted(name)}: "
                "give --inputs-root DIR (the folder the plan was in) to match whole paths"
            )
        if name is None:
            checks.append(
                InputCheck(path, None, False, f"{path} is not among the certified inputs")
            )
            continue
        claimed[name] = path
        if subjects[name] == digest:
            checks.append(InputCheck(path, name, True))
            continue
        problem = (
            f"input {path} does not match the certified {name}: sha256 {digest}, "
            f"certified {subjects[name]}"
        )
        checks.append(InputCheck(path, name, False, problem))
    return checks


def _renamed_note(path: Path, same: Sequence[str], name: str | None) -> str:
    """Why a file is a subject it is not named as: its SHA-256 is the subject's."""
    also = f" (also certified as {', '.join(_quoted(n) for n in same[1:])})" if same[1:] else ""
    note = f"{path} is the certified {_quoted(same[0])}{also} under another name: same SHA-256"
    if name is not None:
        note += f"; its name is that of the certified {_quoted(name)}, whose content it is not"
    return note
