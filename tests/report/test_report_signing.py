"""Ed25519 key files: encrypted, mode 0600, never overwritten, named by key id."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import SigningError
from tablecert.report.signing import (
    generate_key_pair,
    insecure_key_mode,
    key_id,
    load_private_key,
    load_public_key,
    securesystemslib_key,
)

PASS = b"correct horse battery staple"


def test_generate_writes_encrypted_private_0600_and_public(tmp_path: Path) -> None:
    files = generate_key_pair(tmp_path / "keys" / "lab", PASS)
    assert files.private == tmp_path / "keys" / "lab"
    assert files.public == tmp_path / "keys" / "lab.pub"
    assert stat.S_IMODE(files.private.stat().st_mode) == 0o600
    assert files.private.read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert files.public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    public = load_public_key(files.public)
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert len(raw) == 32
    assert files.key_id == hashlib.sha256(raw).hexdigest()
    private = load_private_key(files.private, PASS)
    assert private.public_key() == public


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    files = generate_key_pair(tmp_path / "lab", PASS)
    before = files.private.read_bytes()
    with pytest.raises(SigningError, match="already exists"):
        generate_key_pair(tmp_path / "lab", PASS)
    assert files.private.read_bytes() == before
    files.private.unlink()  # the public half alone also blocks a new pair
    with pytest.raises(SigningError, match=r"lab\.pub already exists"):
        generate_key_pair(tmp_path / "lab", PASS)
    assert not files.private.exists()


def test_wrong_or_missing_passphrase(tmp_path: Path) -> None:
    files = generate_key_pair(tmp_path / "lab", PASS)
    with pytest.raises(SigningError, match="wrong passphrase"):
        load_private_key(files.private, b"not it")
    with pytest.raises(SigningError, match="TABLECERT_KEY_PASSPHRASE"):
        load_private_key(files.private, None)


def test_empty_passphrase_refused(tmp_path: Path) -> None:
    with pytest.raises(SigningError, match="empty passphrase"):
        generate_key_pair(tmp_path / "lab", b"")
    assert list(tmp_path.iterdir()) == []


def test_not_a_key(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.pub"
    bogus.write_text("hello")
    with pytest.raises(SigningError, match="not a PEM public key"):
        load_public_key(bogus)


def test_a_private_key_others_can_read_is_refused_unless_allowed(tmp_path: Path) -> None:
    files = generate_key_pair(tmp_path / "lab", PASS)
    files.private.chmod(0o644)
    with pytest.raises(SigningError) as caught:
        load_private_key(files.private, PASS)
    assert str(caught.value) == (
        f"{files.private}: the private key is accessible to others (mode 0644); "
        f"chmod 600 {files.private}, or pass --allow-insecure-key to use it anyway"
    )
    assert insecure_key_mode(files.private) is not None
    key = load_private_key(files.private, PASS, allow_insecure=True)
    assert key.public_key() == load_public_key(files.public)
    files.private.chmod(0o600)
    assert insecure_key_mode(files.private) is None


@pytest.mark.parametrize("public", [True, False])
def test_a_key_file_holds_one_pem_block_and_nothing_else(tmp_path: Path, public: bool) -> None:
    first = generate_key_pair(tmp_path / "a", PASS)
    second = generate_key_pair(tmp_path / "b", PASS)
    path, other = (first.public, second.public) if public else (first.private, second.private)

    def load() -> object:
        return load_public_key(path) if public else load_private_key(path, PASS)

    original = path.read_bytes()
    path.write_bytes(original + other.read_bytes())
    with pytest.raises(SigningError, match="holds 2 PEM blocks; a key file holds one"):
        load()
    path.write_bytes(original + b"trailing junk\n")
    with pytest.raises(SigningError, match="data outside the PEM block"):
        load()
    path.write_bytes(b"junk\n" + original)
    with pytest.raises(SigningError, match="data outside the PEM block"):
        load()
    path.write_bytes(b"\n" + original + b"\n\n")
    load()  # whitespace around the block is fine


def test_securesystemslib_verifies_a_tablecert_envelope_at_threshold_2(tmp_path: Path) -> None:
    """Third-party verification: the exported keys and securesystemslib's own DSSE code."""
    try:
        from securesystemslib.dsse import Envelope
        from securesystemslib.exceptions import VerificationError
        from securesystemslib.signer import SSlibKey  # type: ignore[attr-defined]
    except ImportError:  # never skipped: the interop claim needs this test to run
        pytest.fail("securesystemslib (a dev dependency) is missing: run scripts/bootstrap.sh")

    from tablecert.report import dsse
    from tests.support import envelopes

    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    subjects = [dsse.Subject("plan.toml", "a" * 64), dsse.Subject("log.csv", "b" * 64)]
    signed = envelopes.certification(subjects, keys[0], keys[1])
    exported = [securesystemslib_key(k.public_key()) for k in keys]
    assert exported[0]["keyid"] == key_id(keys[0].public_key())

    def sslib(entry: dict[str, Any]) -> SSlibKey:
        entry = json.loads(json.dumps(entry))  # as read back from the exported file
        return SSlibKey.from_dict(entry.pop("keyid"), entry)

    theirs = Envelope.from_dict(json.loads(signed.to_bytes()))
    accepted = theirs.verify([sslib(e) for e in exported], 2)
    assert sorted(accepted) == sorted(key_id(k.public_key()) for k in keys[:2])
    assert theirs.pae() == dsse.pae(signed.payload_type, signed.payload)
    with pytest.raises(VerificationError):
        theirs.verify([sslib(exported[0]), sslib(exported[2])], 2)
    copied = dsse.Envelope(signed.payload, signed.payload_type, signed.signatures[:1] * 2)
    # securesystemslib agrees: a copy is no second signer.
    with pytest.raises(ValueError, match="Multiple signatures found for keyid"):
        Envelope.from_dict(json.loads(copied.to_bytes()))
