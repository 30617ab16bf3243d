"""Ed25519 key files: encrypted, mode 0600, never overwritten, named by key id."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from tablecert.errors import SigningError
from tablecert.report.signing import generate_key_pair, load_private_key, load_public_key

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
