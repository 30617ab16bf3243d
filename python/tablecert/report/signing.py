"""Ed25519 signing keys of a lab: generate, store, load, and name them by key id.

The private key is PKCS#8 PEM encrypted with a passphrase (mode 0600); the public key is
SubjectPublicKeyInfo PEM. The key id is the SHA-256 (hex) of the raw 32-byte public key, so
anyone holding the public key can recompute it. Existing key files are never overwritten.
A key file holds exactly one PEM block and nothing else; a private key readable or writable
by anyone but its owner is refused unless the caller allows it (and then warned about).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablecert.errors import SigningError
from tablecert.io.inputs import read_input

# cryptography is imported where it is used, so that light commands start fast.
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

PASSPHRASE_ENV = "TABLECERT_KEY_PASSPHRASE"
PUBLIC_SUFFIX = ".pub"
_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\s:,-]*?-----END \1-----")


@dataclass(frozen=True)
class KeyPairFiles:
    """Where a generated key pair was written, and its key id."""

    private: Path
    public: Path
    key_id: str


def key_id(public_key: Ed25519PublicKey) -> str:
    """SHA-256 hex of the raw 32-byte Ed25519 public key."""
    from cryptography.hazmat.primitives import serialization

    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def public_pem(public_key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def public_path_for(private: Path) -> Path:
    """``DIR/NAME`` -> ``DIR/NAME.pub``."""
    return private.with_name(private.name + PUBLIC_SUFFIX)


def generate_key_pair(private: Path, passphrase: bytes) -> KeyPairFiles:
    """Create ``private`` (encrypted PKCS#8 PEM, 0600) and ``private.pub``; refuse to overwrite."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    if not passphrase:
        raise SigningError("an empty passphrase would leave the private key unencrypted")
    public = public_path_for(private)
    for path in (private, public):
        if path.exists() or path.is_symlink():
            raise SigningError(f"{path} already exists; refusing to overwrite a key")
    private.parent.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    encrypted = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(passphrase),
    )
    _write_new(private, encrypted, 0o600)
    _write_new(public, public_pem(key.public_key()), 0o644)
    return KeyPairFiles(private, public, key_id(key.public_key()))


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError as exc:
        raise SigningError(f"{path} already exists; refusing to overwrite a key") from exc
    except OSError as exc:
        raise SigningError(f"{path}: cannot create: {exc.strerror}") from exc
    try:
        os.fchmod(fd, mode)  # the umask may have removed bits we want (never added any)
        os.write(fd, data)
    finally:
        os.close(fd)


def insecure_key_mode(path: Path) -> str | None:
    """A problem if the private key file is readable or writable by others (else None)."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as exc:
        raise SigningError(f"{path}: cannot read key: {exc.strerror}") from exc
    if mode & 0o077:
        return (
            f"{path}: the private key is accessible to others (mode {mode:04o}); chmod 600 {path}"
        )
    return None


def load_private_key(
    path: Path, passphrase: bytes | None, *, allow_insecure: bool = False
) -> Ed25519PrivateKey:
    """Unlock an encrypted PKCS#8 PEM private key; wrong passphrase or key type is an error,
    and so is a key file others can read (unless ``allow_insecure``)."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    problem = insecure_key_mode(path)
    if problem and not allow_insecure:
        raise SigningError(f"{problem}, or pass --allow-insecure-key to use it anyway")
    data = _one_pem(path, _read(path), "private key")
    try:
        key = serialization.load_pem_private_key(data, password=passphrase or None)
    except TypeError as exc:
        raise SigningError(f"{path}: {_passphrase_problem(exc)}") from exc
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise SigningError(
            f"{path}: cannot unlock the private key (wrong passphrase or not a PEM key)"
        ) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{path}: not an Ed25519 private key")
    return key


def _passphrase_problem(exc: TypeError) -> str:
    if "not encrypted" in str(exc):
        return "the private key is not encrypted; tablecert keys are always encrypted"
    return f"the private key is encrypted; set {PASSPHRASE_ENV} or enter the passphrase"


def _one_pem(path: Path, data: bytes, what: str) -> bytes:
    """``data`` if it is exactly one PEM block (surrounding whitespace allowed)."""
    blocks = list(_PEM_BLOCK.finditer(data))
    begins = data.count(b"-----BEGIN ")
    if begins > 1 or len(blocks) > 1:
        raise SigningError(
            f"{path}: holds {max(begins, len(blocks))} PEM blocks; a key file holds one {what}"
        )
    if not blocks:
        raise SigningError(f"{path}: not a PEM {what}")
    block = blocks[0]
    if data[: block.start()].strip() or data[block.end() :].strip():
        raise SigningError(f"{path}: data outside the PEM block; a key file holds only the key")
    return data


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A PEM (SubjectPublicKeyInfo) Ed25519 public key."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    data = _one_pem(path, _read(path), "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise SigningError(f"{path}: not a PEM public key") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(f"{path}: not an Ed25519 public key")
    return key


def securesystemslib_key(public_key: Ed25519PublicKey) -> dict[str, Any]:
    """The public key as securesystemslib (and TUF/in-toto tooling) describe an Ed25519 key,
    with tablecert's key id: ``SSlibKey.from_dict(d.pop("keyid"), d)`` loads it, and
    ``securesystemslib.dsse.Envelope.verify`` then matches tablecert's signatures."""
    from cryptography.hazmat.primitives import serialization

    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return {
        "keyid": key_id(public_key),
        "keytype": "ed25519",
        "scheme": "ed25519",
        "keyval": {"public": raw.hex()},
    }


def _read(path: Path) -> bytes:
    try:
        return read_input(path)
    except OSError as exc:
        raise SigningError(f"{path}: cannot read key: {exc.strerror}") from exc
