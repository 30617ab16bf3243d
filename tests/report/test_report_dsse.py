"""DSSE envelopes over in-toto statements: PAE per the spec, the signature policy (each key
once, a threshold of given keys, other signers listed), strict parsing, and every tamper
detected, including by an adversary who edits the unsigned parts of the envelope."""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tablecert.errors import EnvelopeError
from tablecert.report import dsse
from tablecert.report.signing import key_id
from tablecert.rules import RULES_DIR
from tests.support import envelopes

TESTER = Ed25519PrivateKey.generate()
REVIEWER = Ed25519PrivateKey.generate()
STRANGER = Ed25519PrivateKey.generate()
T_ID = key_id(TESTER.public_key())
R_ID = key_id(REVIEWER.public_key())
BOTH = [TESTER.public_key(), REVIEWER.public_key()]


def test_pae_matches_the_dsse_spec_test_vector() -> None:
    # secure-systems-lab/dsse protocol.md, "Test Vectors".
    assert dsse.pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )
    assert dsse.pae("t", b"") == b"DSSEv1 1 t 0 "
    assert dsse.pae("類", b"x") == "DSSEv1 3 類 1 x".encode()  # LEN counts UTF-8 bytes


def _inputs(tmp_path: Path) -> tuple[Path, Path, list[dsse.Subject]]:
    subjects = envelopes.files(
        tmp_path, {"rules/a.toml": b"alpha = 1\n", "logs/b.csv": b"deal,cards\n1,As Kh\n"}
    )
    return tmp_path / "rules" / "a.toml", tmp_path / "logs" / "b.csv", subjects


def _envelope(tmp_path: Path, *keys: Ed25519PrivateKey) -> tuple[dsse.Envelope, Path, Path]:
    a, b, subjects = _inputs(tmp_path)
    return envelopes.certification(subjects, *(keys or (TESTER,))), a, b


def test_envelope_shape_and_statement(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    raw = json.loads(env.to_bytes())
    assert set(raw) == {"payload", "payloadType", "signatures"}
    assert raw["payloadType"] == "application/vnd.in-toto+json"
    assert raw["signatures"] == [{"keyid": T_ID, "sig": raw["signatures"][0]["sig"]}]
    stmt = json.loads(base64.b64decode(raw["payload"]))
    assert stmt["_type"] == "https://in-toto.io/Statement/v1"
    assert stmt["predicateType"] == dsse.PREDICATE_TYPE
    assert [s["name"] for s in stmt["subject"]] == ["logs/b.csv", "rules/a.toml"]
    assert stmt["predicate"]["verdict"] == "pass"
    result = dsse.verify_envelope(env, [TESTER.public_key()])
    assert result.valid, result.reasons
    assert result.signers == (T_ID,)


# --- the signature policy ---------------------------------------------------------------


def test_a_copied_signature_never_counts_as_a_second_signer(tmp_path: Path) -> None:
    """Attack: the tester's signature listed twice passed for tester + reviewer."""
    env, _, _ = _envelope(tmp_path)
    (sig,) = env.signatures
    for copies in (2, 5000):
        forged = dsse.Envelope(env.payload, env.payload_type, (sig,) * copies)
        for threshold in (1, 2):
            result = dsse.verify_envelope(forged, BOTH, threshold=threshold)
            assert not result.valid
            assert result.signers == (T_ID,)
            assert result.reasons[0] == (
                f"signature 2 repeats key id {T_ID!r} of signature 1: a key signs once, "
                "a copy never counts as a second signer"
            )
            assert len(result.reasons) == copies - 1


def test_threshold_counts_distinct_given_keys(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path, TESTER, REVIEWER)
    assert dsse.verify_envelope(env, BOTH, threshold=2).signers == (T_ID, R_ID)
    assert dsse.verify_envelope(env, BOTH, threshold=2).valid
    only = dsse.verify_envelope(env, [TESTER.public_key(), STRANGER.public_key()], threshold=2)
    assert only.reasons == ("1 of the given keys signed; at least 2 must",)
    with pytest.raises(EnvelopeError, match="threshold 2: give at least that many distinct"):
        dsse.verify_envelope(env, [TESTER.public_key(), TESTER.public_key()], threshold=2)
    with pytest.raises(EnvelopeError, match="threshold 0"):
        dsse.verify_envelope(env, BOTH, threshold=0)
    with pytest.raises(EnvelopeError, match="no public key given"):
        dsse.verify_envelope(env, [])


def test_a_co_signed_envelope_verifies_with_the_labs_key_alone(tmp_path: Path) -> None:
    """Attack: a co-signature broke verification by one key; DSSE lists other signers."""
    env, _, _ = _envelope(tmp_path, TESTER, REVIEWER)
    result = dsse.verify_envelope(env, [TESTER.public_key()])
    assert result.valid, result.reasons
    assert result.signers == (T_ID,)
    assert [c.as_json() for c in result.policy.checks] == [
        {"signature": 1, "keyid": T_ID, "status": "verified"},
        {"signature": 2, "keyid": R_ID, "status": "not checked"},
    ]


def test_a_signature_naming_a_given_key_that_fails_is_invalid(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path, TESTER, REVIEWER)
    forged = dsse.Envelope(
        env.payload, env.payload_type, (env.signatures[0], dsse.Signature(R_ID, bytes(64)))
    )
    assert dsse.verify_envelope(forged, [TESTER.public_key()]).valid  # reviewer not given
    result = dsse.verify_envelope(forged, BOTH)
    assert result.reasons == (
        f"signature 2 names the given key {R_ID} but does not verify with it "
        "(altered payload or forged signature)",
    )


def test_a_relabelled_signature_does_not_count(tmp_path: Path) -> None:
    """A key id is what a signature claims; a valid signature under another id counts for
    nobody (it is 'not checked'), so relabelling cannot add or move a signer."""
    env, _, _ = _envelope(tmp_path)
    sig = env.signatures[0]
    for label in ("", "0" * 64, R_ID):
        relabelled = dsse.Envelope(env.payload, env.payload_type, (dsse.Signature(label, sig.sig),))
        result = dsse.verify_envelope(relabelled, BOTH)
        assert not result.valid
        assert result.signers == ()


def test_flipping_any_payload_byte_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    rng = random.Random(8)
    n = len(env.payload)
    positions = {0, n - 1, *rng.sample(range(n), 300)}
    for i in positions:
        for mask in (0x01, 0x80, rng.randrange(1, 256)):
            data = bytearray(env.payload)
            data[i] ^= mask
            bad = dsse.Envelope(bytes(data), env.payload_type, env.signatures)
            assert not dsse.verify_envelope(bad, [TESTER.public_key()]).valid, (i, mask)


def test_flipping_any_signature_byte_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    (sig,) = env.signatures
    for i in range(len(sig.sig)):
        for mask in (0x01, 0x80):
            data = bytearray(sig.sig)
            data[i] ^= mask
            bad = dsse.Envelope(
                env.payload, env.payload_type, (dsse.Signature(sig.keyid, bytes(data)),)
            )
            result = dsse.verify_envelope(bad, [TESTER.public_key()])
            assert not result.valid
            assert "does not verify" in result.reasons[0]


def _verifies_file(path: Path, keys: list[Any], threshold: int = 1) -> bool:
    try:
        return dsse.verify_file(path, keys, threshold=threshold).valid
    except EnvelopeError:
        return False


def test_flipping_bytes_of_the_envelope_file_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    data = env.to_bytes()
    rng = random.Random(80)
    positions = [*rng.sample(range(len(data)), 600), *range(len(data) - 120, len(data))]
    path = tmp_path / "env.json"
    for i in positions:
        tampered = bytearray(data)
        tampered[i] ^= 0x01
        path.write_bytes(bytes(tampered))
        assert not _verifies_file(path, [TESTER.public_key()]), i
    path.write_bytes(data)
    assert dsse.verify_file(path, [TESTER.public_key()]).valid


def test_no_signatures_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    bare = dsse.Envelope(env.payload, env.payload_type, ())
    result = dsse.verify_envelope(bare, [TESTER.public_key()])
    assert result.reasons == (
        "0 of the given keys signed; at least 1 must (the envelope has no signatures)",
    )


def test_wrong_key_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    result = dsse.verify_envelope(env, [STRANGER.public_key()])
    assert result.reasons == ("0 of the given keys signed; at least 1 must",)
    assert result.statement is None
    assert result.policy.unchecked[0].keyid == T_ID


# --- strict parsing ------------------------------------------------------------------------


def test_base64_must_be_standard_and_padded(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    raw = envelopes.raw(env)
    for text in (
        base64.urlsafe_b64encode(env.payload).decode().rstrip("="),  # securesystemslib refuses
        raw["payload"].rstrip("="),
        raw["payload"] + "\n",
    ):
        if text == raw["payload"]:
            continue
        with pytest.raises(EnvelopeError, match="payload is not standard padded base64"):
            dsse.parse_envelope(json.dumps({**raw, "payload": text}).encode())
    # A 64-byte signature ends in "X==": only 2 of X's 6 bits carry data, so flipping its
    # lowest bit decodes to the same bytes; the envelope must still be refused.
    sig = raw["signatures"][0]["sig"]
    alphabet = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"
    spare = alphabet[alphabet.index(sig[-3]) ^ 1]
    assert base64.b64decode(sig[:-3] + spare + "==") == base64.b64decode(sig)
    raw["signatures"][0]["sig"] = sig[:-3] + spare + "=="
    with pytest.raises(EnvelopeError, match="signature 1 is not canonical base64"):
        dsse.parse_envelope(json.dumps(raw).encode())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"payload": "AAAA", ', ":1: invalid JSON: Expecting property name"),
        (b"[]", "the envelope is not a JSON object"),
        (b'{"payload": "AAAA", "payloadType": "x"}', "missing field 'signatures'"),
        (b'{"payload": "A!AA", "payloadType": "x", "signatures": []}', "not standard padded"),
        (b'{"payload": "AAAA", "payloadType": "x", "signatures": [{}]}', "missing field 'keyid'"),
        (
            b'{"payload": "AAAA", "payloadType": "x", "signatures": [], "payload": "QUFB"}',
            "duplicate key 'payload'",
        ),
        (
            b'{"payload": "AAAA", "payloadType": "x", "signatures": [{"keyid": "a", '
            b'"keyid": "b", "sig": "AAAA"}]}',
            "duplicate key 'keyid'",
        ),
        (b'{"payload": "AAAA", "payloadType": "x", "signatures": [], "x": 1}', "unknown field"),
        (
            b'{"payload": "AAAA", "payloadType": "x", "signatures": [NaN]}',
            "NaN is not a number JSON allows",
        ),
        (b"\xff", "not UTF-8"),
    ],
)
def test_malformed_envelopes_give_clear_errors(tmp_path: Path, text: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    with pytest.raises(EnvelopeError) as caught:
        dsse.verify_file(path, [TESTER.public_key()])
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def _signed_payload(statement: Any) -> dsse.Envelope:
    body = json.dumps(statement, ensure_ascii=False).encode()
    return dsse.Envelope(body, dsse.PAYLOAD_TYPE, ()).signed(TESTER)


def _statement(tmp_path: Path) -> dict[str, Any]:
    env, _, _ = _envelope(tmp_path)
    return envelopes.payload_of(envelopes.raw(env))


def _reason(env: dsse.Envelope) -> str:
    result = dsse.verify_envelope(env, [TESTER.public_key()])
    assert not result.valid
    assert result.statement is None
    (reason,) = result.reasons
    return reason


def test_foreign_statements_are_not_tablecert_certifications(tmp_path: Path) -> None:
    stmt = _statement(tmp_path)
    slsa = {**stmt, "predicateType": "https://slsa.dev/provenance/v1", "predicate": {}}
    assert _reason(_signed_payload(slsa)) == (
        "not a tablecert certification: predicateType is 'https://slsa.dev/provenance/v1', "
        f"expected {dsse.PREDICATE_TYPE!r}"
    )
    assert _reason(_signed_payload({**stmt, "_type": "https://in-toto.io/Statement/v0.1"}))
    no_predicate = {k: v for k, v in stmt.items() if k != "predicate"}
    assert _reason(_signed_payload(no_predicate)) == (
        "not a tablecert certification: the statement: missing field 'predicate'"
    )
    assert "the report does not follow the report schema at (top)" in _reason(
        _signed_payload({**stmt, "predicate": "PASS"})
    )
    other_type = dsse.Envelope(envelopes.canonical_bytes(stmt), "application/json", ())
    assert _reason(other_type.signed(TESTER)).startswith(
        "not a tablecert certification: payloadType is 'application/json'"
    )
    assert dsse.verify_envelope(other_type.signed(TESTER), [TESTER.public_key()]).foreign


def test_the_statement_is_parsed_strictly(tmp_path: Path) -> None:
    stmt = _statement(tmp_path)
    first, second = stmt["subject"]
    assert _reason(_signed_payload({**stmt, "subject": [{"digest": first["digest"]}, second]})) == (
        "not a tablecert certification: statement subject 1: missing field 'name'"
    )
    assert _reason(_signed_payload({**stmt, "subject": [{**first, "name": ""}, second]})) == (
        "statement subject 1 has no name"
    )
    assert _reason(_signed_payload({**stmt, "subject": [first, {**second, "name": first["name"]}]}))
    upper = {"sha256": first["digest"]["sha256"].upper()}
    assert "not 64 lowercase hex" in _reason(
        _signed_payload({**stmt, "subject": [{**first, "digest": upper}, second]})
    )
    assert "the report's inputs are not the statement's subjects" in _reason(
        _signed_payload({**stmt, "subject": [first]})
    )
    assert "schema at verdict" in _reason(
        _signed_payload({**stmt, "predicate": {**stmt["predicate"], "verdict": "PASS!"}})
    )
    # Python's "$" also matches before a final newline; the schema's lengths close that gap.
    late = {**stmt["predicate"], "finished_at": stmt["predicate"]["finished_at"] + "\n"}
    assert "schema at finished_at" in _reason(_signed_payload({**stmt, "predicate": late}))
    text = envelopes.canonical_bytes(stmt)
    duplicated = text.replace(b'"verdict":"pass"', b'"verdict":"fail","verdict":"pass"', 1)
    assert duplicated != text
    assert "duplicate key 'verdict'" in _reason(
        dsse.Envelope(duplicated, dsse.PAYLOAD_TYPE, ()).signed(TESTER)
    )
    floating = text.replace(b'"bytes":1', b'"bytes":1.0', 1)
    assert "number 1.0 is not allowed (no floats)" in _reason(
        dsse.Envelope(floating, dsse.PAYLOAD_TYPE, ()).signed(TESTER)
    )


# --- co-signing ----------------------------------------------------------------------------


def test_cosign_checks_every_existing_signature_first(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    with pytest.raises(EnvelopeError, match="give --pubkey for each existing signer"):
        dsse.cosign(env, REVIEWER, [])
    with pytest.raises(EnvelopeError, match="cannot check signature 1"):
        dsse.cosign(env, REVIEWER, [STRANGER.public_key()])
    both, policy = dsse.cosign(env, REVIEWER, [TESTER.public_key()])
    assert policy.signers == (T_ID,)
    assert dsse.verify_envelope(both, BOTH, threshold=2).valid
    tofu, policy = dsse.cosign(env, REVIEWER, [], trust_on_first_use=True)
    assert [c.status for c in policy.checks] == ["not checked"]
    assert tofu == both
    with pytest.raises(EnvelopeError, match="already signed by key"):
        dsse.cosign(both, REVIEWER, BOTH)


def test_cosign_never_signs_a_forgery(tmp_path: Path) -> None:
    """Attack: an edited title with a zero-filled signature got the reviewer's signature."""
    env, _, _ = _envelope(tmp_path)
    stmt = envelopes.payload_of(envelopes.raw(env))
    stmt["predicate"]["title"] = "Certified by nobody"
    edited = dsse.Envelope(
        envelopes.canonical_bytes(stmt), dsse.PAYLOAD_TYPE, (dsse.Signature(T_ID, bytes(64)),)
    )
    with pytest.raises(dsse.InvalidEnvelopeError, match="signature 1 names the given key"):
        dsse.cosign(edited, REVIEWER, [TESTER.public_key()])
    with pytest.raises(dsse.InvalidEnvelopeError):
        dsse.cosign(edited, REVIEWER, [TESTER.public_key()], trust_on_first_use=True)
    copied = dsse.Envelope(env.payload, env.payload_type, env.signatures * 2)
    for trusted in ([TESTER.public_key()], []):
        with pytest.raises(dsse.InvalidEnvelopeError, match="names 2 signatures: a key signs once"):
            dsse.cosign(copied, REVIEWER, trusted, trust_on_first_use=True)
    slsa = _signed_payload({**stmt, "predicateType": "https://slsa.dev/provenance/v1"})
    with pytest.raises(dsse.NotCertificationError):
        dsse.cosign(slsa, REVIEWER, [TESTER.public_key()])


# --- input files ---------------------------------------------------------------------------


def test_inputs_checked_and_mismatch_named(tmp_path: Path) -> None:
    env, a, b = _envelope(tmp_path)
    key = [TESTER.public_key()]
    good = dsse.verify_envelope(env, key, [a, b])
    assert good.valid
    assert [c.subject for c in good.inputs] == ["rules/a.toml", "logs/b.csv"]
    b.write_text("deal,cards\n1,As Kd\n")  # one card edited
    edited = dsse.verify_envelope(env, key, [a, b])
    assert not edited.valid
    assert edited.reasons == (
        f"input {b} does not match the certified logs/b.csv: sha256 {dsse.file_sha256(b)}, "
        f"certified {json.loads(env.payload)['subject'][0]['digest']['sha256']}",
    )


def test_swapped_inputs_are_each_the_subject_whose_content_they_hold(tmp_path: Path) -> None:
    env, a, b = _envelope(tmp_path)
    original_a = a.read_bytes()
    a.write_bytes(b.read_bytes())
    b.write_bytes(original_a)
    result = dsse.verify_envelope(env, [TESTER.public_key()], [a, b])
    assert result.valid
    assert [c.subject for c in result.inputs] == ["logs/b.csv", "rules/a.toml"]
    assert result.inputs[0].note == (
        f"{a} is the certified 'logs/b.csv' under another name: same SHA-256; its name is "
        "that of the certified 'rules/a.toml', whose content it is not"
    )


def test_unknown_input_named_and_a_renamed_copy_is_its_subject(tmp_path: Path) -> None:
    env, _, b = _envelope(tmp_path)
    stranger = tmp_path / "stranger.txt"
    stranger.write_text("?")
    result = dsse.verify_envelope(env, [TESTER.public_key()], [stranger])
    assert result.reasons == (f"{stranger} is not among the certified inputs",)
    renamed = tmp_path / "renamed.csv"
    renamed.write_bytes(b.read_bytes())
    result = dsse.verify_envelope(env, [TESTER.public_key()], [renamed])
    assert result.valid
    assert result.inputs[0].subject == "logs/b.csv"
    assert result.inputs[0].note == (
        f"{renamed} is the certified 'logs/b.csv' under another name: same SHA-256"
    )


def test_logs_sharing_a_name_are_matched_by_content_else_by_whole_path(tmp_path: Path) -> None:
    """Two logs with one file name: a copy is the subject whose content it holds (never an
    arbitrary one of the two); an altered copy is matched by whole path or refused."""
    plan = tmp_path / "lab"
    subjects = envelopes.files(plan, {"a/log.csv.gz": b"day one", "b/log.csv.gz": b"day two"})
    env = envelopes.certification(subjects, TESTER)
    key = [TESTER.public_key()]
    a, b = plan / "a" / "log.csv.gz", plan / "b" / "log.csv.gz"
    assert dsse.verify_envelope(env, key, [a, b]).valid
    copies = tmp_path / "copies"
    (copies / "x").mkdir(parents=True)
    (copies / "y").mkdir()
    (copies / "x" / "log.csv.gz").write_bytes(b"day two")
    (copies / "y" / "log.csv.gz").write_bytes(b"day one")
    copied = dsse.verify_envelope(
        env, key, [copies / "x" / "log.csv.gz", copies / "y" / "log.csv.gz"]
    )
    assert copied.valid
    assert [c.subject for c in copied.inputs] == ["b/log.csv.gz", "a/log.csv.gz"]
    (copies / "x" / "log.csv.gz").write_bytes(b"day three")  # altered: by name, ambiguous
    with pytest.raises(dsse.InputsAmbiguousError, match="give --inputs-root DIR"):
        dsse.verify_envelope(env, key, [copies / "x" / "log.csv.gz"])
    # With the plan's folder given, names resolve to whole paths: the copies are no subjects.
    stray = dsse.verify_envelope(env, key, [copies / "x" / "log.csv.gz"], inputs_root=copies)
    assert stray.reasons[0].startswith(f"{copies / 'x' / 'log.csv.gz'} is not among")
    (copies / "a").mkdir()
    (copies / "a" / "log.csv.gz").write_bytes(b"day zero")
    rooted = dsse.verify_envelope(env, key, [copies / "a" / "log.csv.gz"], inputs_root=copies)
    assert rooted.inputs[0].subject == "a/log.csv.gz"
    assert rooted.reasons[0].startswith(f"input {copies / 'a' / 'log.csv.gz'} does not match")
    with pytest.raises(dsse.InputsAmbiguousError, match="both match the certified 'a/log"):
        dsse.verify_envelope(env, key, [a, a])


# --- the property: only a reordering of valid distinct signatures verifies ----------------

_KEYIDS = st.sampled_from([T_ID, R_ID, "", "0" * 64, key_id(STRANGER.public_key())])
_MUTATION = st.one_of(
    st.tuples(st.just("reorder"), st.randoms(use_true_random=False)),
    st.tuples(st.just("duplicate"), st.integers(0, 3)),
    st.tuples(st.just("drop"), st.integers(0, 3)),
    st.tuples(st.just("flip_sig"), st.integers(0, 3), st.integers(0, 63), st.integers(1, 255)),
    st.tuples(st.just("flip_payload"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("keyid"), st.integers(0, 3), _KEYIDS),
    st.tuples(st.just("flip_file"), st.integers(0, 10**6), st.integers(1, 255)),
)
_ORIGINAL = envelopes.certification(
    [dsse.Subject("plan.toml", "0" * 64), dsse.Subject("log.csv", "1" * 64)], TESTER, REVIEWER
)


def _mutate(env: dsse.Envelope, mutation: tuple[Any, ...]) -> dsse.Envelope | None:
    """``env`` changed by ``mutation``; None when the change leaves no parsable envelope."""
    kind, *args = mutation
    sigs = list(env.signatures)
    payload = env.payload
    if kind == "reorder":
        args[0].shuffle(sigs)
    elif kind == "duplicate" and sigs:
        sigs.append(sigs[args[0] % len(sigs)])
    elif kind == "drop" and sigs:
        del sigs[args[0] % len(sigs)]
    elif kind == "flip_sig" and sigs:
        i = args[0] % len(sigs)
        data = bytearray(sigs[i].sig)
        data[args[1] % len(data)] ^= args[2]
        sigs[i] = dsse.Signature(sigs[i].keyid, bytes(data))
    elif kind == "flip_payload":
        data = bytearray(payload)
        data[args[0] % len(data)] ^= args[1]
        payload = bytes(data)
    elif kind == "keyid" and sigs:
        i = args[0] % len(sigs)
        sigs[i] = dsse.Signature(args[1], sigs[i].sig)
    elif kind == "flip_file":
        data = bytearray(dsse.Envelope(payload, env.payload_type, tuple(sigs)).to_bytes())
        data[args[0] % len(data)] ^= args[1]
        try:
            return dsse.parse_envelope(bytes(data))
        except EnvelopeError:
            return None
    return dsse.Envelope(payload, env.payload_type, tuple(sigs))


def _order(sigs: tuple[dsse.Signature, ...]) -> list[tuple[str, bytes]]:
    return sorted((s.keyid, s.sig) for s in sigs)


_GIVEN_IDS = {T_ID, R_ID}


@settings(max_examples=300, deadline=None)
@given(st.lists(_MUTATION, min_size=1, max_size=4))
@example([("duplicate", 0), ("keyid", 2, "0" * 64)])  # a copy relabelled: ignored, listed
@example([("duplicate", 1), ("keyid", 2, T_ID)])  # the reviewer's signature under T's id
@example([("keyid", 0, ""), ("keyid", 1, "")])
def test_no_mutation_verifies_unless_it_reorders_valid_distinct_signatures(
    mutations: list[tuple[Any, ...]],
) -> None:
    """Only a reordering of the two valid, distinct signatures verifies at threshold 2.
    Signatures naming keys that were not given count for nobody: they may be added (DSSE
    lists them as not checked), never change the outcome, and are always reported."""
    env: dsse.Envelope | None = _ORIGINAL
    for mutation in mutations:
        assert env is not None
        env = _mutate(env, mutation)
        if env is None:
            return  # no longer an envelope: nothing can verify
    assert env is not None
    naming_given = tuple(s for s in env.signatures if s.keyid in _GIVEN_IDS)
    reordering = (
        env.payload == _ORIGINAL.payload
        and env.payload_type == _ORIGINAL.payload_type
        and _order(naming_given) == _order(_ORIGINAL.signatures)
    )
    result = dsse.verify_envelope(env, BOTH, threshold=2)
    assert result.valid == reordering
    others = [i for i, s in enumerate(env.signatures, start=1) if s.keyid not in _GIVEN_IDS]
    assert [c.index for c in result.policy.unchecked] == others


def test_bundled_rule_files_resolve_to_this_tablecerts_data(tmp_path: Path) -> None:
    rules = RULES_DIR / "q-poker.macau.toml"
    subjects = [
        dsse.Subject("bundled/rules/q-poker.macau.toml", dsse.file_sha256(rules)),
        *envelopes.files(tmp_path, {"bundled/rules/q-poker.macau.toml": b"a look-alike"}),
    ]
    subjects[1] = dsse.Subject("bundled/rules/q-poker.macau.toml.plan", subjects[1].sha256)
    body = envelopes.report(subjects)
    body["inputs"][0]["base"] = "bundled"
    stmt = dsse.statement(subjects, body)
    env = dsse.sign_statement(stmt, TESTER)
    key = [TESTER.public_key()]
    rooted = dsse.verify_envelope(env, key, [rules], inputs_root=tmp_path)
    assert rooted.valid, rooted.reasons
    assert rooted.inputs[0].subject == "bundled/rules/q-poker.macau.toml"
    look_alike = tmp_path / "bundled" / "rules" / "q-poker.macau.toml"
    stray = dsse.verify_envelope(env, key, [look_alike], inputs_root=tmp_path)
    assert stray.inputs[0].subject == "bundled/rules/q-poker.macau.toml.plan"  # its content's
    assert "under another name" in stray.inputs[0].note
    look_alike.write_bytes(b"another look-alike")
    stray = dsse.verify_envelope(env, key, [look_alike], inputs_root=tmp_path)
    assert stray.reasons[0].startswith(f"{look_alike} is not among the certified inputs")
