"""``tablecert certify``, ``sign`` and ``verify``: signed certifications.

Every string that comes from an envelope, a plan or a key file is printed through ``plain``
(control characters escaped, never Rich markup): an envelope cannot forge a line of output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from tablecert.cli import common, conventions
from tablecert.cli.common import JsonOption, emit_json, exit_for, fail, plain, stderr, stdout
from tablecert.cli.keys import AllowInsecureKeyOption, read_private_key, read_public_key
from tablecert.cli.progress import cluster_progress
from tablecert.errors import EnvelopeError, OutputError
from tablecert.io.outputs import check_replaceable, replace_regular_file
from tablecert.judgement import Outcome
from tablecert.report import dsse
from tablecert.report.certificate import PAPER_SIZES, signatory_check
from tablecert.report.staging import check_target

if TYPE_CHECKING:
    pass


def certify(
    plan: Annotated[
        str,
        typer.Argument(
            metavar="PLAN", help="The plan (PLAN.toml), or a bundled plan's name: smoke, main."
        ),
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
    pdf: Annotated[
        bool,
        typer.Option("--pdf", help="Also print report.pdf (headless Chromium); it is signed too."),
    ] = False,
    paper: Annotated[
        str | None,
        typer.Option("--paper", help="PDF page size: A4 or Letter (default: the plan's, A4)."),
    ] = None,
    template: Annotated[
        Path | None,
        typer.Option(
            "--template",
            exists=True,
            file_okay=False,
            help="Folder of Jinja2 templates overriding the report's (e.g. report.html.j2).",
        ),
    ] = None,
    json_out: JsonOption = False,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
    allow_insecure_key: AllowInsecureKeyOption = False,
    old_out: conventions.DeprecatedOutputOption = None,
) -> None:
    """Run a certification plan; write report.json, the signed envelope and report.html
    (and report.pdf with --pdf, a signed subject too).

    Every input is read once into a snapshot, hashed, and analysed from that copy; a file
    that changes during the run fails the certification. The output folder appears whole
    or not at all.

    Exit status: 0 pass, 1 fail (a requirement failed), 2 usage or input error (a bad plan,
    key or input: nothing written), 3 inconclusive (no requirement failed, one could not be
    judged), 4 internal error. The report is written for every verdict.
    """
    # The certification machinery (every report section, Jinja2, the PDF printer) is
    # imported only by the command that runs it: `verify` and `sign` start without it.
    from tablecert.report.certify import OUTPUTS, ephemeral_key
    from tablecert.report.certify import certify as run_certify

    out_dir = conventions.required_output(output, old_out)
    if paper is not None and paper not in PAPER_SIZES:
        raise typer.BadParameter(
            f"{paper!r} is not one of {', '.join(PAPER_SIZES)}", param_hint="--paper"
        )
    check_target(out_dir, OUTPUTS)  # before the passphrase and the run (again at the end)
    private = read_private_key(key, allow_insecure_key) if key else ephemeral_key()
    with cluster_progress(cluster, workers, "certify") as (executor, reporter):
        result = run_certify(
            plan,
            private,
            out_dir,
            ephemeral=key is None,
            progress=lambda done, total, message: reporter.update(done, total, message),
            executor=executor,
            template_dir=template,
            pdf=pdf,
            paper=paper,
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
                "pdf": None if result.pdf is None else str(result.pdf),
            }
        )
    else:
        if key is None:
            stderr.print(
                f"signed with an ephemeral key; its public key is {plain(result.signer_public_key)}"
            )
        stdout.print(f"report:   {plain(result.html)}")
        if result.pdf is not None:
            stdout.print(f"pdf:      {plain(result.pdf)} (signed)")
        stdout.print(f"data:     {plain(result.report)}")
        stdout.print(f"signed:   {plain(result.envelope)} (key id {result.key_id})")
        summary = result.data["summary"]
        stdout.print(
            f"verdict:  {result.verdict.upper()} ({summary['pass']} of "
            f"{summary['requirements']} requirements passed, {summary['fail']} failed)"
        )
    raise exit_for(result.verdict)


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
            help="Public key of an existing signer (one for each); every existing signature "
            "is verified before co-signing.",
        ),
    ] = None,
    trust_on_first_use: Annotated[
        bool,
        typer.Option(
            "--trust-on-first-use",
            help="Co-sign even though signatures by keys not given cannot be checked.",
        ),
    ] = False,
    allow_insecure_key: AllowInsecureKeyOption = False,
) -> None:
    """Add a signature (e.g. the reviewer's) to a signed certification envelope.

    The existing signatures are verified first: give --pubkey for each existing signer (or
    --trust-on-first-use, said out loud). An envelope with a signature that does not verify,
    a repeated signature, or one already signed by this key is never co-signed. Exit 0
    signed, 1 refused (the envelope is invalid), 2 usage or input error.
    """
    try:  # a link, FIFO or device is refused before it is read
        check_replaceable(envelope, what="envelope")
        current = dsse.read_envelope(envelope)
    except (EnvelopeError, OutputError) as exc:
        raise fail(str(exc)) from exc
    trusted = [read_public_key(p) for p in pubkey or []]
    private = read_private_key(key, allow_insecure_key)
    try:
        updated, policy = dsse.cosign(
            current, private, trusted, trust_on_first_use=trust_on_first_use
        )
    except (dsse.InvalidEnvelopeError, dsse.NotCertificationError) as exc:
        stderr.print(Text.assemble(("not co-signing", "bold red"), f": {plain(envelope)}: "))
        stderr.print(f"  {plain(exc)}")
        raise exit_for(Outcome.FAIL) from exc
    except EnvelopeError as exc:
        raise fail(f"{envelope}: not co-signing: {exc}") from exc
    for check in policy.unchecked:
        stderr.print(
            f"warning: signature {check.index} (key id {plain(check.keyid)}) was not checked "
            "(--trust-on-first-use)"
        )
    try:
        replace_regular_file(envelope, updated.to_bytes(), what="envelope")
    except OutputError as exc:
        raise fail(str(exc)) from exc
    predicate = json.loads(updated.payload)["predicate"]
    stdout.print(f"signed: {plain(predicate['title'])} (verdict {plain(predicate['verdict'])})")
    for check in policy.checks:
        stdout.print(f"  signature {check.index}: key id {plain(check.keyid)} {check.status}")
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
    threshold: Annotated[
        int,
        typer.Option(
            "--threshold",
            min=1,
            help="How many distinct given keys must have signed (default 1).",
        ),
    ] = 1,
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
    inputs_root: Annotated[
        Path | None,
        typer.Option(
            "--inputs-root",
            exists=True,
            file_okay=False,
            help="The folder the plan was in: input names are resolved against it.",
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
    """Check the signatures (at least --threshold distinct given keys), the statement and,
    for the given files, their digests. Signatures by keys not given are listed, not
    checked.

    Exit status: 0 valid, 1 invalid (a signature, digest or the report does not match), 2
    usage or input error (a malformed envelope, key or option), 4 internal error."""
    keys = [read_public_key(p) for p in pubkey]
    files = [*(inputs or []), *(more_inputs or [])]
    try:
        result = dsse.verify_file(
            envelope, keys, files, report, threshold=threshold, inputs_root=inputs_root
        )
    except EnvelopeError as exc:
        raise fail(str(exc)) from exc
    if json_out:
        emit_json(_verification_json(result))
    else:
        _print_verification(result, report)
    raise exit_for(result.outcome)


def _verification_json(result: dsse.Verification) -> dict[str, Any]:
    return {
        "verdict": result.outcome.word("validity"),
        "valid": result.valid,
        "tablecert_certification": not result.foreign,
        "reasons": list(result.reasons),
        "threshold": result.threshold,
        "signers": list(result.signers),
        "signatory": signatory_check(result.statement, result.signers)[0]
        if result.statement is not None
        else None,
        "signatures": [c.as_json() for c in result.policy.checks],
        "certified": dict(certified_fields(result.statement, result.signers))
        if result.statement is not None
        else None,
        "inputs": [
            {"file": str(c.path), "subject": c.subject, "matches": c.matches}
            | ({"note": c.note} if c.note else {})
            for c in result.inputs
        ],
        "statement": result.statement,
    }


def certified_fields(
    statement: Mapping[str, Any], signers: tuple[str, ...]
) -> list[tuple[str, str]]:
    """What a regulator matches against the paper, from the verified statement only: report
    number, revision, issue date, lab, applicant, signatory and verdict ("not stated" where
    the plan left a field out)."""
    report: Mapping[str, Any] = statement["predicate"]
    ident: Mapping[str, Any] = report["certificate"]

    def stated(value: Any) -> str:
        return "not stated" if value is None else str(value)

    return [
        ("report number", stated(ident["report_id"])),
        ("revision", stated(ident["revision"])),
        ("issue date", stated(ident["issue_date"])),
        ("lab", str(report["lab"])),
        ("applicant", stated(ident["applicant"])),
        ("signatory", signatory_check(statement, signers)[0]),
        ("verdict", str(report["verdict"]).upper()),
    ]


def _print_signatures(result: dsse.Verification) -> None:
    for check in result.policy.checks:
        note = " (no --pubkey for this key id)" if check.status == "not checked" else ""
        stdout.print(
            f"  signature {check.index}: key id {plain(check.keyid)}: {check.status}{note}"
        )


def _print_verification(result: dsse.Verification, report_file: Path | None) -> None:
    if not result.valid:
        title = "INVALID: not a tablecert certification" if result.foreign else "INVALID"
        stdout.print(Text(title, style="bold red"))
        for reason in result.reasons:
            stdout.print(f"  - {plain(reason)}")
        _print_signatures(result)
        return
    assert result.statement is not None
    report: Mapping[str, Any] = result.statement["predicate"]
    stdout.print(
        Text.assemble(
            ("VALID", "bold green"),
            f": {len(result.signers)} distinct given key(s) signed (threshold {result.threshold})",
        )
    )
    _print_signatures(result)
    stdout.print(f"certified: {plain(report['title'])}")
    for label, value in certified_fields(result.statement, result.signers):
        stdout.print(f"  {label}: {plain(value)}")
    tool = report["tool"]
    stdout.print(
        f"  by tablecert {plain(tool['version'])} (core {plain(tool['core_version'])}), "
        f"{plain(report['started_at'])} to {plain(report['finished_at'])}"
    )
    if report_file is not None:
        stdout.print(f"  {plain(report_file)} is exactly the signed report")
    for section in report["sections"]:
        stdout.print(f"  section {plain(section['id'])}: {plain(section['verdict']).upper()}")
    stdout.print(f"inputs ({len(result.statement['subject'])}):")
    checked = {c.subject for c in result.inputs}
    for subject in result.statement["subject"]:
        mark = "  checked" if subject["name"] in checked else ""
        stdout.print(f"  {subject['digest']['sha256']}  {plain(subject['name'])}{mark}")
    for check in result.inputs:
        if check.note:
            stdout.print(f"  note: {plain(check.note)}")


def register(app: typer.Typer) -> None:
    app.command("certify")(certify)
    app.command("sign")(sign)
    app.command("verify")(verify)
