"""DSSE envelopes over in-toto statements: PAE per the spec, and every tamper detected."""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import EnvelopeError
from tablecert.report import dsse
from tablecert.report.signing import key_id

TESTER = Ed25519PrivateKey.generate()
REVIEWER = Ed25519PrivateKey.generate()


def test_pae_matches_the_dsse_spec_test_vector() -> None:
    # secure-systems-lab/dsse protocol.md, "Test Vectors".
    assert dsse.pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )
    assert dsse.pae("t", b"") == b"DSSEv1 1 t 0 "
    assert dsse.pae("類", b"x") == "DSSEv1 3 類 1 x".encode()  # LEN counts UTF-8 bytes


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    a = tmp_path / "rules" / "a.toml"
    b = tmp_path / "logs" / "b.csv"
    a.parent.mkdir()
    b.parent.mkdir()
    a.write_text("alpha = 1\n")
    b.write_text("deal,cards\n1,As Kh\n")
    return a, b


def _envelope(tmp_path: Path) -> tuple[dsse.Envelope, Path, Path]:
    a, b = _inputs(tmp_path)
    subjects = [
        dsse.Subject("rules/a.toml", dsse.file_sha256(a)),
        dsse.Subject("logs/b.csv", dsse.file_sha256(b)),
    ]
    report = {"title": "test", "verdict": "pass", "note": "第八條 " * 50}
    return dsse.sign_statement(dsse.statement(subjects, report), TESTER), a, b


def test_envelope_shape_and_statement(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    raw = json.loads(env.to_bytes())
    assert set(raw) == {"payload", "payloadType", "signatures"}
    assert raw["payloadType"] == "application/vnd.in-toto+json"
    assert raw["signatures"] == [
        {"keyid": key_id(TESTER.public_key()), "sig": raw["signatures"][0]["sig"]}
    ]
    stmt = json.loads(base64.b64decode(raw["payload"]))
    assert stmt["_type"] == "https://in-toto.io/Statement/v1"
    assert stmt["predicateType"] == dsse.PREDICATE_TYPE
    assert [s["name"] for s in stmt["subject"]] == ["logs/b.csv", "rules/a.toml"]
    assert stmt["predicate"]["verdict"] == "pass"
    result = dsse.verify_envelope(env, [TESTER.public_key()])
    assert result.valid, result.reasons
    assert result.signers == (key_id(TESTER.public_key()),)


def test_two_signatures_both_required(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    both = env.signed(REVIEWER)
    keys = [TESTER.public_key(), REVIEWER.public_key()]
    assert dsse.verify_envelope(both, keys).valid
    only_tester = dsse.verify_envelope(both, [TESTER.public_key()])
    assert not only_tester.valid
    assert "signature 2" in only_tester.reasons[0]
    with pytest.raises(EnvelopeError, match="already signed"):
        both.signed(REVIEWER)


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


def test_flipping_bytes_of_the_envelope_file_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    data = env.to_bytes()
    raw = json.loads(data)
    regions = []
    for value in (raw["payload"], raw["signatures"][0]["sig"], raw["payloadType"]):
        start = data.index(value.encode())
        regions.append(range(start, start + len(value)))
    rng = random.Random(80)
    positions = [*rng.sample(regions[0], 400), *regions[1], *regions[2]]
    path = tmp_path / "env.json"
    for i in positions:
        tampered = bytearray(data)
        tampered[i] ^= 0x01
        path.write_bytes(bytes(tampered))
        assert not dsse.verify_file(path, [TESTER.public_key()]).valid, i
    path.write_bytes(data)
    assert dsse.verify_file(path, [TESTER.public_key()]).valid


def test_non_canonical_base64_is_rejected(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    raw = json.loads(env.to_bytes())
    raw["payload"] = base64.urlsafe_b64encode(env.payload).decode().rstrip("=")
    ok = dsse.parse_envelope(json.dumps(raw).encode())  # URL-safe, unpadded: DSSE allows it
    assert ok.payload == env.payload
    # A 64-byte signature ends in "X==": only 2 of X's 6 bits carry data, so flipping its
    # lowest bit decodes to the same bytes; the envelope must still be refused.
    sig = raw["signatures"][0]["sig"]
    alphabet = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"
    spare = alphabet[alphabet.index(sig[-3]) ^ 1]
    assert base64.b64decode(sig[:-3] + spare + "==") == base64.b64decode(sig)
    raw["signatures"][0]["sig"] = sig[:-3] + spare + "=="
    with pytest.raises(EnvelopeError, match="signature 1 is not canonical base64"):
        dsse.parse_envelope(json.dumps(raw).encode())


def test_wrong_key_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    result = dsse.verify_envelope(env, [Ed25519PrivateKey.generate().public_key()])
    assert not result.valid
    assert result.statement is None
    assert "does not verify against the given public key" in result.reasons[0]


def test_no_signatures_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    bare = dsse.Envelope(env.payload, env.payload_type, ())
    result = dsse.verify_envelope(bare, [TESTER.public_key()])
    assert result.reasons == ("the envelope has no signatures",)


def test_other_payload_type_fails(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    other = dsse.Envelope(env.payload, "application/json", ()).signed(TESTER)
    result = dsse.verify_envelope(other, [TESTER.public_key()])
    assert not result.valid
    assert "payloadType" in result.reasons[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"payload": "AAAA", ', "malformed JSON at line 1 column"),
        (b"[]", "a DSSE envelope is a JSON object"),
        (b'{"payload": "AAAA", "payloadType": "x"}', "missing field 'signatures'"),
        (b'{"payload": "A!AA", "payloadType": "x", "signatures": []}', "not valid base64"),
        (b'{"payload": "AAAA", "payloadType": "x", "signatures": [{}]}', "signature 1 has no"),
        (b"\xff", "not UTF-8"),
    ],
)
def test_malformed_envelopes_give_clear_errors(tmp_path: Path, text: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    result = dsse.verify_file(path, [TESTER.public_key()])
    assert not result.valid
    assert message in result.reasons[0]
    assert str(path) in result.reasons[0]


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


def test_swapped_input_named(tmp_path: Path) -> None:
    env, a, b = _envelope(tmp_path)
    original_a = a.read_bytes()
    a.write_bytes(b.read_bytes())
    b.write_bytes(original_a)
    result = dsse.verify_envelope(env, [TESTER.public_key()], [a, b])
    assert not result.valid
    assert len(result.reasons) == 2
    assert f"input {a} does not match the certified rules/a.toml" in result.reasons[0]
    assert result.reasons[0].endswith("its content is the certified logs/b.csv (swapped?)")


def test_unknown_input_named(tmp_path: Path) -> None:
    env, _, _ = _envelope(tmp_path)
    stranger = tmp_path / "stranger.txt"
    stranger.write_text("?")
    result = dsse.verify_envelope(env, [TESTER.public_key()], [stranger])
    assert result.reasons == (f"{stranger} is not among the certified inputs",)
