"""Run a plan and write the signed certification: report.json, the DSSE envelope, report.html.

The report holds every section's data and verdicts (each with its article), the overall
verdict, every input with its SHA-256, the rule data, tool and core versions, the platform,
and start and end times. Nothing in it depends on the signing key or the clock except the
two timestamps, so the same inputs and version give byte-identical reports otherwise
(``SOURCE_DATE_EPOCH`` fixes the timestamps too).
"""

from __future__ import annotations

import datetime as dt
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
from tablecert.report.html import render_report
from tablecert.report.plan import Plan, PlanEntry, load_plan
from tablecert.report.registry import Context, Outcome, Section, overall
from tablecert.report.signing import key_id, public_pem
from tablecert.rules import RULES_DIR, load_rules

REPORT_JSON = "report.json"
ENVELOPE_JSON = "report.intoto.dsse.json"
REPORT_HTML = "report.html"
SIGNER_PUB = "signer.pub"

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


def certify(
    plan_path: Path,
    key: Ed25519PrivateKey,
    out_dir: Path,
    *,
    ephemeral: bool = False,
    clock: Clock = utc_now,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> Certification:
    """Run ``plan_path``, sign the statement with ``key`` and write the report folder."""
    started = clock()
    plan = load_plan(plan_path)
    sections = run_sections(plan, progress, executor)
    report, subjects = build_report(plan, sections, started, clock())
    envelope = dsse.sign_statement(dsse.statement(subjects, report), key)
    kid = key_id(key.public_key())
    note = (
        "Signed with an ephemeral key made for this run: it proves integrity, not who signed."
        if ephemeral
        else ""
    )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlanError(f"{out_dir}: cannot create the output folder: {exc.strerror}") from exc
    paths = {name: out_dir / name for name in (REPORT_JSON, ENVELOPE_JSON, REPORT_HTML, SIGNER_PUB)}
    paths[REPORT_JSON].write_bytes(canonical_pretty(report))
    paths[ENVELOPE_JSON].write_bytes(envelope.to_bytes())
    paths[REPORT_HTML].write_text(render_report(report, sections, [kid], note), encoding="utf-8")
    paths[SIGNER_PUB].write_bytes(public_pem(key.public_key()))
    return Certification(
        out_dir,
        paths[REPORT_JSON],
        paths[ENVELOPE_JSON],
        paths[REPORT_HTML],
        paths[SIGNER_PUB],
        report["verdict"],
        kid,
        report,
    )


def ephemeral_key() -> Ed25519PrivateKey:
    """A key made for one run and never stored (the public half goes beside the report)."""
    return Ed25519PrivateKey.generate()
