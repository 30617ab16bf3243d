"""``tablecert keys generate``, ``certify``, ``sign`` and ``verify``: signed certifications."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

from tablecert.cli import common, conventions, values
from tablecert.cli.common import JsonOption, emit_json, stderr, stdout
from tablecert.errors import EnvelopeError, SigningError
from tablecert.report import dsse
from tablecert.report.certify import certify as run_certify
from tablecert.report.certify import ephemeral_key
from tablecert.report.signing import (
    PASSPHRASE_ENV,
    generate_key_pair,
    load_private_key,
    load_public_key,
)

keys_app = typer.Typer(no_args_is_help=True, help="Manage the lab's Ed25519 signing keys.")


def _passphrase(confirm: bool) -> bytes:
    """The key passphrase from $TABLECERT_KEY_PASSPHRASE, else a hidden prompt."""
    env = os.environ.get(PASSPHRASE_ENV)
    if env is not None:
        return env.encode("utf-8")
    text: str = typer.prompt("Key passphrase", hide_input=True, confirmation_prompt=confirm)
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
    stderr.print(f"private key: {files.private} (encrypted, mode 0600)")
    stderr.print(f"public key:  {files.public}")
    stdout.print(f"key id: {files.key_id}")


def certify(
    plan: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="The plan (PLAN.toml).")
    ],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Folder for the report.")
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key", exists=True, dir_okay=False, help="Private key (default: ephemeral)."
        ),
    ] = None,
    json_out: JsonOption = False,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
    old_out: conventions.DeprecatedOutputOption = None,
) -> None:
    """Run a certification plan; write report.json, the signed envelope and report.html."""
    out_dir = conventions.required_output(output, old_out)
    private = load_private_key(key, _passphrase(confirm=False)) if key else ephemeral_key()
    with common.cluster_progress(
        cluster,
        workers,
        TextColumn("[bold]certify[/]"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} {task.description}"),
        TimeElapsedColumn(),
    ) as (executor, bar):
        task = bar.add_task("", total=None)

        def progress(done: int, total: int, message: str) -> None:
            bar.update(task, completed=done, total=total, description=message)

        result = run_certify(
            plan,
            private,
            out_dir,
            ephemeral=key is None,
            progress=progress,
            executor=executor,
        )
    if json_out:
        emit_json(
            {
                "verdict": result.verdict,
                "key_id": result.key_id,
                "ephemeral_key": key is None,
                "report": str(result.report),
                "envelope": str(result.envelope),
                "html": str(result.html),
            }
        )
    else:
        if key is None:
            stderr.print(
                f"signed with an ephemeral key; its public key is {result.signer_public_key}"
            )
        stdout.print(f"report:   {result.html}")
        stdout.print(f"data:     {result.report}")
        stdout.print(f"signed:   {result.envelope} (key id {result.key_id})")
        summary = result.data["summary"]
        stdout.print(
            f"verdict:  {result.verdict.upper()} ({summary['pass']} of "
            f"{summary['requirements']} requirements passed, {summary['fail']} failed)"
        )
    if result.verdict == "fail":
        raise typer.Exit(1)


def sign(
    envelope: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A DSSE envelope to co-sign.")
    ],
    key: Annotated[Path, typer.Option("--key", exists=True, dir_okay=False, help="Private key.")],
    pubkey: Annotated[
        list[Path] | None,
        typer.Option(
            "--pubkey",
            exists=True,
            dir_okay=False,
            help="Verify the existing signatures with these public keys before co-signing.",
        ),
    ] = None,
) -> None:
    """Add a signature (e.g. the reviewer's) to a signed certification envelope."""
    current = dsse.read_envelope(envelope)
    stmt = dsse.parse_statement(current.payload)
    if pubkey:
        try:
            keys = [load_public_key(p) for p in pubkey]
        except SigningError as exc:
            raise typer.BadParameter(str(exc), param_hint="--pubkey") from exc
        check = dsse.verify_envelope(current, keys)
        if not check.valid:
            raise EnvelopeError(f"{envelope}: not co-signing: {'; '.join(check.reasons)}")
    updated = current.signed(load_private_key(key, _passphrase(confirm=False)))
    tmp = envelope.with_name(envelope.name + ".tmp")
    tmp.write_bytes(updated.to_bytes())
    tmp.replace(envelope)
    predicate = stmt.get("predicate", {})
    stdout.print(f"signed: {predicate.get('title', '?')} (verdict {predicate.get('verdict')})")
    stdout.print(f"key id: {updated.signatures[-1].keyid}")
    stdout.print(f"signatures now: {len(updated.signatures)}")


def verify(
    envelope: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="report.intoto.dsse.json")
    ],
    pubkey: Annotated[
        list[Path],
        typer.Option(
            "--pubkey", exists=True, dir_okay=False, help="Public key(s); repeat for each."
        ),
    ],
    inputs: Annotated[
        list[Path] | None,
        typer.Option(
            "--inputs", exists=True, dir_okay=False, help="Input files to check (repeatable)."
        ),
    ] = None,
    more_inputs: Annotated[
        list[Path] | None,
        typer.Argument(
            exists=True,
            dir_okay=False,
            show_default=False,
            metavar="[FILE]...",
            help="More input files to check (so --inputs A B C works).",
        ),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            exists=True,
            dir_okay=False,
            help="A report.json to check against the signed report, byte for byte.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Check every signature and, for the given files, their digests. Exit 0 valid, 1 not."""
    try:
        keys = [load_public_key(p) for p in pubkey]
    except SigningError as exc:
        raise typer.BadParameter(str(exc), param_hint="--pubkey") from exc
    files = [*(inputs or []), *(more_inputs or [])]
    result = dsse.verify_file(envelope, keys, files, report)
    if json_out:
        emit_json(
            {
                "valid": result.valid,
                "reasons": list(result.reasons),
                "signers": list(result.signers),
                "inputs": [
                    {"file": str(c.path), "subject": c.subject, "matches": c.matches}
                    for c in result.inputs
                ],
                "statement": result.statement,
            }
        )
    else:
        _print_verification(result, report)
    if not result.valid:
        raise typer.Exit(1)


def _print_verification(result: dsse.Verification, report_file: Path | None) -> None:
    if not result.valid:
        stdout.print("INVALID")
        for reason in result.reasons:
            stdout.print(f"  - {reason}")
        return
    assert result.statement is not None
    report = result.statement.get("predicate", {})
    stdout.print(f"VALID: {len(result.signers)} signature(s), every one verified")
    for kid in result.signers:
        stdout.print(f"  key id {kid}")
    stdout.print(f"certified: {report.get('title', '?')}")
    stdout.print(f"  lab: {report.get('lab', '')}")
    stdout.print(f"  verdict: {str(report.get('verdict', '?')).upper()}")
    tool = report.get("tool", {})
    stdout.print(
        f"  by tablecert {tool.get('version', '?')} (core {tool.get('core_version', '?')}), "
        f"{report.get('started_at', '?')} to {report.get('finished_at', '?')}"
    )
    if report_file is not None:
        stdout.print(f"  {report_file} is exactly the signed report")
    for section in report.get("sections", []):
        stdout.print(f"  section {section.get('id')}: {str(section.get('verdict')).upper()}")
    stdout.print(f"inputs ({len(result.statement['subject'])}):")
    checked = {c.subject: c for c in result.inputs}
    for subject in result.statement["subject"]:
        mark = "  checked" if subject.get("name") in checked else ""
        stdout.print(f"  {subject['digest']['sha256']}  {subject.get('name')}{mark}")


def register(app: typer.Typer) -> None:
    app.add_typer(keys_app, name="keys")
    app.command("certify")(certify)
    app.command("sign")(sign)
    app.command("verify")(verify)
