"""Manage the lab's Ed25519 signing keys.

``tablecert keys generate`` and ``keys export``, and reading the key files the signing
commands are given (``certify``, ``sign``, ``verify``): a private key unlocked with its
passphrase, refused when others can read it unless allowed; a public key, with the option it
came from named on error.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tablecert.cli import conventions, values
from tablecert.cli.common import emit_json, plain, stderr, stdout
from tablecert.errors import SigningError
from tablecert.report.signing import (
    PASSPHRASE_ENV,
    generate_key_pair,
    insecure_key_mode,
    load_private_key,
    load_public_key,
    public_pem,
    securesystemslib_key,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

keys_app = typer.Typer(no_args_is_help=True, help=conventions.summary(__doc__))


def _passphrase(confirm: bool) -> bytes:
    """The key passphrase from $TABLECERT_KEY_PASSPHRASE, else a hidden prompt."""
    env = os.environ.get(PASSPHRASE_ENV)
    if env is not None:
        return env.encode("utf-8")
    try:
        text: str = typer.prompt("Key passphrase", hide_input=True, confirmation_prompt=confirm)
    except typer.Abort:  # standard input ended (no terminal, nothing piped): no passphrase
        raise SigningError(
            f"no passphrase: set ${PASSPHRASE_ENV}, or type it on a terminal"
        ) from None
    return text.encode("utf-8")


@keys_app.command("generate")
def keys_generate(
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="DIR/NAME: writes NAME (private) and NAME.pub."),
    ] = None,
    old_out: conventions.DeprecatedOutputOption = None,
) -> None:
    """Create an Ed25519 key pair; the private key encrypted with a passphrase (mode 0600).

    The passphrase comes from $TABLECERT_KEY_PASSPHRASE or a prompt. Existing files are never
    overwritten.
    """
    out = conventions.required_output(output, old_out)
    values.new_file(out, "--output", create_parents=True, replace=True)  # a usable name, folder
    for path in (out, out.with_name(out.name + ".pub")):
        if path.exists():
            raise SigningError(f"{path} already exists; refusing to overwrite a key")
    files = generate_key_pair(out, _passphrase(confirm=True))
    stderr.print(f"private key: {plain(files.private)} (encrypted, mode 0600)")
    stderr.print(f"public key:  {plain(files.public)}")
    stdout.print(f"key id: {files.key_id}")


class KeyFormat(StrEnum):
    securesystemslib = "securesystemslib"
    pem = "pem"


@keys_app.command("export")
def keys_export(
    public: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A public key (NAME.pub).")
    ],
    key_format: Annotated[
        KeyFormat,
        typer.Option(
            "--format",
            help="securesystemslib: JSON for securesystemslib/in-toto tools, with tablecert's "
            "key id; pem: the SubjectPublicKeyInfo PEM.",
        ),
    ] = KeyFormat.securesystemslib,
) -> None:
    """Write a public key for third-party verifiers (stdout).

    The key id is the SHA-256 (hex) of the raw 32-byte Ed25519 public key. In Python,
    d = json.load(f); key = SSlibKey.from_dict(d.pop("keyid"), d) gives a key that
    securesystemslib.dsse.Envelope.verify accepts for tablecert's signatures.
    """
    key = read_public_key(public, "PUBLIC")
    if key_format is KeyFormat.pem:
        sys.stdout.write(public_pem(key).decode("ascii"))
    else:
        emit_json(securesystemslib_key(key), dialect=False)


def read_public_key(path: Path, hint: str = "--pubkey") -> Ed25519PublicKey:
    """The public key in ``path``; an unreadable one is a usage error naming ``hint``."""
    try:
        return load_public_key(path)
    except SigningError as exc:
        raise typer.BadParameter(plain(exc), param_hint=hint) from exc


def read_private_key(path: Path, allow_insecure: bool) -> Ed25519PrivateKey:
    """The unlocked private key; one readable by others only with --allow-insecure-key."""
    problem = insecure_key_mode(path)
    if problem and allow_insecure:
        stderr.print(f"warning: {plain(problem)}")
    return load_private_key(path, _passphrase(confirm=False), allow_insecure=allow_insecure)


AllowInsecureKeyOption = Annotated[
    bool,
    typer.Option(
        "--allow-insecure-key",
        help="Use a private key file that others can read or write (warned about).",
    ),
]


def register(app: typer.Typer) -> None:
    app.add_typer(keys_app, name="keys")
