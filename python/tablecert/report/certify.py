"""Run a plan and write the signed certification: report.json, the DSSE envelope, report.html
(and report.pdf, a signed subject, with ``pdf=True``).

The report holds every section's data and verdicts (each with its article), the overall
verdict, every input with its SHA-256, the rule data, tool and core versions, the platform,
and start and end times. Nothing in it depends on the signing key or the clock except the
two timestamps, so the same inputs and version give byte-identical reports otherwise
(``SOURCE_DATE_EPOCH`` fixes the timestamps too).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import tablecert
from tablecert import _core
from tablecert.distributed import Executor
from tablecert.errors import PlanError, ReportError
from tablecert.report import dsse
from tablecert.report.canonical import canonical_pretty, plain
from tablecert.report.certificate import PAPER_SIZES
from tablecert.report.html import display, render_report
from tablecert.report.pdf import render_pdf
from tablecert.report.plan import Plan, PlanEntry, load_plan
from tablecert.report.registry import Context, Outcome, Section, overall
from tablecert.report.signing import key_id, public_pem
from tablecert.rules import RULES_DIR, load_rules

REPORT_JSON = "report.json"
ENVELOPE_JSON = "report.intoto.dsse.json"
REPORT_HTML = "report.html"
SIGNER_PUB = "signer.pub"
REPORT_PDF = "report.pdf"

Clock = Callable[[], dt.datetime]
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Certification:
    """Where the outputs went and what they say."""

    out_dir: Path
    report: Path
    envelope: Path
    html: Path
    signer_public_key: Path
    verdict: Outcome
    key_id: str
    data: dict[str, Any]
    pdf: Path | None = None


def utc_now() -> dt.datetime:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        try:
            return dt.datetime.fromtimestamp(int(epoch), dt.UTC)
        except ValueError as exc:
            raise ReportError(f"SOURCE_DATE_EPOCH={epoch!r} is not an integer") from exc
    return dt.datetime.now(dt.UTC)


def _timestamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_sections(
    plan: Plan, progress: Progress | None = None, executor: Executor | None = None
) -> list[Section]:
    """Build every section of the plan, in plan order; section ids must be unique. Sections
    with heavy work run it on ``executor`` when one is given."""
    sections: list[Section] = []
    seen: dict[str, PlanEntry] = {}
    total = len(plan.entries)
    for done, entry in enumerate(plan.entries):

        def step(message: str, done: int = done) -> None:
            if progress is not None:
                progress(done, total, message)

        step(f"{entry.kind.name} (section {entry.index})")
        section = entry.kind.build(entry, Context(plan, step, executor))
        if section.id in seen:
            raise entry.error(
                None, f"section {section.id!r} repeats section {seen[section.id].index}"
            )
        seen[section.id] = entry
        sections.append(section)
    if progress is not None:
        progress(total, total, "done")
    return sections


def _input_names(paths: list[Path]) -> dict[Path, str]:
    """Each input named by its path relative to the inputs' common folder (POSIX form).

    Rule files bundled with tablecert, used from a plan elsewhere, are named
    ``bundled/<path under fixtures/>`` so that the lab's own files keep short names.
    """
    resolved = sorted({p.resolve() for p in paths})
    fixtures = RULES_DIR.parent.resolve()
    own = [p for p in resolved if not p.is_relative_to(fixtures)] or resolved
    root = Path(os.path.commonpath([p.parent for p in own]))
    return {
        p: (
            p.relative_to(root).as_posix()
            if p.is_relative_to(root)
            else f"bundled/{p.relative_to(fixtures).as_posix()}"
        )
        for p in resolved
    }


def build_report(
    plan: Plan, sections: list[Section], started: dt.datetime, finished: dt.datetime
) -> tuple[dict[str, Any], list[dsse.Subject]]:
    """The report.json object and the statement subjects (every input file)."""
    roles: dict[Path, str] = {plan.path.resolve(): "plan"}
    section_inputs: list[list[Path]] = []
    for entry, section in zip(plan.entries, sections, strict=True):
        named = entry.named_files()
        files = [*(path for _, path in named), *section.inputs]
        for key, path in named:
            roles.setdefault(path.resolve(), key)
        for extra in section.inputs:
            roles.setdefault(extra.resolve(), "input")
        section_inputs.append([p.resolve() for p in files])
    names = _input_names(list(roles))
    inputs = []
    subjects = []
    for path, name in sorted(names.items(), key=lambda item: item[1]):
        digest = dsse.file_sha256(path)
        inputs.append(
            {"name": name, "role": roles[path], "sha256": digest, "bytes": path.stat().st_size}
        )
        subjects.append(dsse.Subject(name, digest))
    rule_data = []
    for path, role in sorted(roles.items(), key=lambda item: names[item[0]]):
        if role == "rules":
            rules = load_rules(path)
            rule_data.append(
                {
                    "name": names[path],
                    "game": rules.game,
                    "variant": rules.variant,
                    "sha256": rules.sha256,
                }
            )
    readings = {
        path: rule_readings(path, names[path]) for path, role in roles.items() if role == "rules"
    }
    requirements = [{"section": s.id, **v.as_json()} for s in sections for v in s.verdicts]
    ids = [r["requirement"] for r in requirements]
    repeated = {r["requirement"] for r in requirements if ids.count(r["requirement"]) > 1}
    if repeated:
        raise ReportError(f"requirement id(s) reported twice: {', '.join(sorted(repeated))}")
    outcomes = [r["verdict"] for r in requirements]
    report = {
        "format": dsse.PREDICATE_TYPE,
        "title": plan.title,
        "lab": plan.lab,
        "certificate": plan.certificate.as_json(),
        "plan": names[plan.path.resolve()],
        "verdict": overall(outcomes),
        "summary": {
            "requirements": len(outcomes),
            "pass": outcomes.count("pass"),
            "fail": outcomes.count("fail"),
            "inconclusive": outcomes.count("inconclusive"),
        },
        "requirements": requirements,
        "sections": [
            {
                "id": s.id,
                "kind": entry.kind.name,
                "title": s.title,
                "verdict": s.outcome,
                "data": s.data,
                "scope": {
                    **s.scope.as_json(),
                    "readings": [
                        r for p in dict.fromkeys(files) if p in readings for r in readings[p]
                    ],
                },
                "inputs": sorted(names[p] for p in files),
            }
            for entry, s, files in zip(plan.entries, sections, section_inputs, strict=True)
        ],
        "inputs": inputs,
        "rule_data": rule_data,
        "tool": {
            "name": "tablecert",
            "version": tablecert.__version__,
            "core_version": _core.__version__,
        },
        "platform": {
            "python": platform.python_version(),
            "implementation": sys.implementation.name,
            "system": platform.system(),
            "machine": platform.machine(),
        },
        "started_at": _timestamp(started),
        "finished_at": _timestamp(finished),
    }
    return plain(report), subjects


def rule_readings(path: Path, name: str) -> list[dict[str, str]]:
    """Every value of a rule file marked ``reading = true``: the lab's reading of a point the
    statute leaves open, applied in this certification."""
    rules = load_rules(path)
    out: list[dict[str, str]] = []

    def walk(node: Any, dotted: str) -> None:
        if isinstance(node, dict) and "value" in node and "article" in node:
            value = rules.require(dotted)
            if value.reading:
                out.append(
                    {
                        "file": name,
                        "key": dotted,
                        "article": value.article,
                        "value": display(value.value),
                        "note": value.note,
                    }
                )
        elif isinstance(node, dict):
            for key, child in node.items():
                walk(child, f"{dotted}.{key}" if dotted else key)

    walk(rules.data, "")
    return out


def signatory_binding(plan: Plan, kid: str, ephemeral: bool) -> str:
    """How the plan's signatory relates to the signing key: shown beside the key id. A plan
    that binds its signatory to a key id must be signed with that key (else a usage error)."""
    signatory = plan.certificate.signatory
    if signatory is None:
        return ""
    if signatory.key_id is not None and signatory.key_id != kid:
        raise PlanError(
            f"{plan.path}: certification.signatory.key_id: the plan binds {signatory.name} "
            f"to key id {signatory.key_id}, but this run is signed with "
            f"{'an ephemeral key' if ephemeral else 'key id'} {kid}"
        )
    if signatory.key_id is not None:
        return "the plan binds the signatory to this key id; tablecert verify checks it"
    if ephemeral:
        return "ephemeral key: the signatory is named, not bound to a key"
    return "the plan names the signatory without binding a key id"


def certify(
    plan_path: Path,
    key: Ed25519PrivateKey,
    out_dir: Path,
    *,
    ephemeral: bool = False,
    clock: Clock = utc_now,
    progress: Progress | None = None,
    executor: Executor | None = None,
    template_dir: Path | None = None,
    pdf: bool = False,
    paper: str | None = None,
) -> Certification:
    """Run ``plan_path``, sign the statement with ``key`` and write the report folder.

    ``template_dir`` overrides the HTML templates; ``pdf`` prints the HTML to report.pdf (on
    ``paper``, default the plan's, A4) and adds it to the signed subjects.
    """
    started = clock()
    plan = load_plan(plan_path)
    kid = key_id(key.public_key())
    binding = signatory_binding(plan, kid, ephemeral)
    page_size = paper or plan.certificate.paper
    if page_size not in PAPER_SIZES:
        raise PlanError(f"--paper {page_size}: expected one of {', '.join(PAPER_SIZES)}")
    sections = run_sections(plan, progress, executor)
    report, subjects = build_report(plan, sections, started, clock())
    note = (
        "Signed with an ephemeral key made for this run: it proves integrity, not who signed."
        if ephemeral
        else ""
    )
    outputs = [REPORT_PDF] if pdf else []
    html = render_report(
        report,
        sections,
        [kid],
        note,
        template_dir=template_dir,
        binding=binding,
        outputs=outputs,
        paper=page_size,
    )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlanError(f"{out_dir}: cannot create the output folder: {exc.strerror}") from exc
    paths = {
        name: out_dir / name
        for name in (REPORT_JSON, ENVELOPE_JSON, REPORT_HTML, SIGNER_PUB, REPORT_PDF)
    }
    write_atomic(paths[REPORT_HTML], html.encode("utf-8"))
    pdf_path = None
    if pdf:
        if progress is not None:
            progress(len(plan.entries), len(plan.entries), "printing report.pdf")
        data = render_pdf(paths[REPORT_HTML], report)
        write_atomic(paths[REPORT_PDF], data)
        subjects.append(dsse.Subject(REPORT_PDF, hashlib.sha256(data).hexdigest()))
        pdf_path = paths[REPORT_PDF]
    envelope = dsse.sign_statement(dsse.statement(subjects, report), key)
    write_atomic(paths[REPORT_JSON], canonical_pretty(report))
    write_atomic(paths[ENVELOPE_JSON], envelope.to_bytes())
    write_atomic(paths[SIGNER_PUB], public_pem(key.public_key()))
    return Certification(
        out_dir,
        paths[REPORT_JSON],
        paths[ENVELOPE_JSON],
        paths[REPORT_HTML],
        paths[SIGNER_PUB],
        report["verdict"],
        kid,
        report,
        pdf_path,
    )


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReportError(f"{path}: cannot write: {exc.strerror}") from exc


def ephemeral_key() -> Ed25519PrivateKey:
    """A key made for one run and never stored (the public half goes beside the report)."""
    return Ed25519PrivateKey.generate()
