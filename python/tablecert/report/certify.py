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
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

import tablecert
from tablecert import _core
from tablecert.distributed import Executor
from tablecert.errors import PlanError, ReportError, TableCertError
from tablecert.judgement import VERDICTS, Outcome, overall
from tablecert.report import dsse
from tablecert.report.canonical import canonical_bytes, json_data
from tablecert.report.certificate import PAPER_SIZES
from tablecert.report.display import display
from tablecert.report.entry import Context, Plan, PlanEntry, Section
from tablecert.report.html import render_report
from tablecert.report.pdf import check_pdf_text, render_pdf
from tablecert.report.plan import load_plan
from tablecert.report.sections.par_sheet import EXPORT_NAMES
from tablecert.report.sections.stud_par_sheet import EXPORT_FILE
from tablecert.report.signing import key_id, public_pem
from tablecert.report.snapshot import InputChangedError, InputSnapshot
from tablecert.report.staging import Outputs, StagedFolder, check_outside
from tablecert.report.template_folder import read_template_folder
from tablecert.rules import RULES_DIR, RuleFile, load_rules

if TYPE_CHECKING:  # cryptography is imported where used (start-up of light commands)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

REPORT_JSON = "report.json"
#: report.json's dialect name and version (the same header as every command's --json).
REPORT_SCHEMA = "tablecert.report/1"
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
    plan: Plan,
    progress: Progress | None = None,
    executor: Executor | None = None,
    snapshot: InputSnapshot | None = None,
) -> list[Section]:
    """Build every section of the plan, in plan order; section ids must be unique. Sections
    with heavy work run it on ``executor`` when one is given; files they read beyond their
    plan entry are read through ``snapshot``."""

    def read(path: Path) -> Path:
        return snapshot.add(path).copy if snapshot is not None else path

    sections: list[Section] = []
    seen: dict[str, PlanEntry] = {}
    total = len(plan.entries)
    for done, entry in enumerate(plan.entries):

        def step(message: str, done: int = done) -> None:
            if progress is not None:
                progress(done, total, message)

        step(f"{entry.kind.name} (section {entry.index})")
        section = entry.kind.build(entry, Context(plan, step, executor, read))
        if section.id in seen:
            raise entry.error(
                None, f"section {section.id!r} repeats section {seen[section.id].index}"
            )
        seen[section.id] = entry
        sections.append(section)
    if progress is not None:
        progress(total, total, "done")
    return sections


InputBase = Literal["plan", "absolute", "bundled"]


@dataclass(frozen=True)
class InputName:
    """How an input is named in the report and the signed statement: relative to the plan's
    folder as the plan writes it (``base`` "plan"), an absolute path kept as given
    ("absolute"), or a rule file bundled with tablecert, given by name ("bundled")."""

    name: str
    base: InputBase


def input_names(plan: Plan, paths: list[Path]) -> dict[Path, InputName]:
    """Each resolved input path's name; two inputs with one name are an error."""
    folder = plan.path.resolve().parent
    fixtures = RULES_DIR.parent.resolve()
    given: dict[Path, str] = {}
    for entry in plan.entries:
        for resolved, written in entry.given.items():
            given.setdefault(Path(resolved), written)
    names: dict[Path, InputName] = {}
    for path in paths:
        text = given.get(path)
        if path == plan.path.resolve():
            names[path] = InputName(plan.path.name, "plan")
        elif text is not None and Path(text).is_absolute():
            names[path] = InputName(PurePosixPath(text).as_posix(), "absolute")
        elif text is not None and (folder / text).resolve() == path:
            names[path] = InputName(PurePosixPath(text).as_posix(), "plan")
        elif path.is_relative_to(fixtures):
            names[path] = InputName(f"bundled/{path.relative_to(fixtures).as_posix()}", "bundled")
        else:
            names[path] = InputName(os.path.relpath(path, folder), "plan")
    seen: dict[str, Path] = {}
    for path, named in names.items():
        if named.name in seen:
            raise ReportError(
                f"{seen[named.name]} and {path} would both be named {named.name!r} in the "
                "report; give them distinct paths in the plan"
            )
        seen[named.name] = path
    return names


def build_report(
    plan: Plan,
    sections: list[Section],
    snapshot: InputSnapshot,
    started: dt.datetime,
    finished: dt.datetime,
) -> tuple[dict[str, Any], list[dsse.Subject]]:
    """The report.json object and the statement subjects (every input file).

    ``plan`` is the plan as written (its paths are the originals); ``snapshot`` holds the
    digest of every file as the sections read it (files a section lists beyond its plan
    entry are hashed here)."""
    roles: dict[Path, str] = {plan.path.resolve(): "plan"}
    section_inputs: list[list[Path]] = []
    for entry, section in zip(plan.entries, sections, strict=True):
        named = entry.named_files()
        extras = [snapshot.original(p.resolve()) for p in section.inputs]
        rule_files = {snapshot.original(p.resolve()) for p in section.rule_files}
        for key, path in named:
            roles.setdefault(path.resolve(), key)
        for extra in extras:
            roles.setdefault(extra, "rules" if extra in rule_files else "input")
        section_inputs.append([*(p.resolve() for _, p in named), *extras])
    names = input_names(plan, list(roles))
    inputs = []
    subjects = []
    for path, label in sorted(names.items(), key=lambda item: item[1].name):
        held = snapshot.files.get(path)
        digest = held.sha256 if held else dsse.file_sha256(path)
        size = held.size if held else path.stat().st_size
        inputs.append(
            {
                "name": label.name,
                "base": label.base,
                "role": roles[path],
                "sha256": digest,
                "bytes": size,
            }
        )
        subjects.append(dsse.Subject(label.name, digest))
    rule_data = []
    readings: dict[Path, list[dict[str, str]]] = {}
    for path, role in sorted(roles.items(), key=lambda item: names[item[0]].name):
        if role == "rules":
            held = snapshot.files.get(path)
            rules = load_rules(held.copy if held else path)
            readings[path] = rule_readings(rules, names[path].name)
            rule_data.append(
                {
                    "name": names[path].name,
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
    outcomes = [Outcome.parse(r["verdict"]) for r in requirements]
    report = {
        "schema": REPORT_SCHEMA,
        "tablecert_version": tablecert.__version__,
        "format": dsse.PREDICATE_TYPE,
        "title": plan.title,
        "lab": plan.lab,
        "certificate": plan.certificate.as_json(),
        "plan": names[plan.path.resolve()].name,
        "verdict": overall(outcomes).value,
        "summary": {
            "requirements": len(outcomes),
            **{o.value: outcomes.count(o) for o in VERDICTS},
            **{o.value: n for o in Outcome if o not in VERDICTS and (n := outcomes.count(o))},
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
                        r
                        for p in dict.fromkeys(files)
                        if p in readings
                        for r in readings[p]
                        if s.scope.applies(r["key"])
                    ],
                },
                "inputs": sorted(names[p].name for p in files),
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
    return json_data(report), subjects


#: Every file certify writes into the output folder under a name of its own.
OUTPUT_FILES = (
    REPORT_JSON,
    ENVELOPE_JSON,
    REPORT_HTML,
    SIGNER_PUB,
    REPORT_PDF,
    *EXPORT_NAMES,
)
#: What a previous certificate in the output folder may hold, replaced whole: those files,
#: and beside its envelope the exports of a described game's par sheet, named by its rule
#: file (``par-RULES.xlsx``, ``par-RULES.csv``, ``strategy-RULES.csv``).
OUTPUTS = Outputs(OUTPUT_FILES, EXPORT_FILE, ENVELOPE_JSON)


def rule_readings(rules: RuleFile, name: str) -> list[dict[str, str]]:
    """Every value of a rule file marked ``reading = true``: the lab's reading of a point the
    statute leaves open, applied in this certification."""
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

    walk(dict(rules.data), "")
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


def snapshot_plan(plan: Plan, snapshot: InputSnapshot) -> Plan:
    """Copy and hash the plan and every file it names into ``snapshot`` (each read once) and
    return the plan pointing at the copies, so the sections read exactly the hashed bytes."""
    held = snapshot.add(plan.path)
    if held.sha256 != plan.sha256:
        raise InputChangedError(f"{plan.path} changed after it was read; nothing was certified")
    for entry in plan.entries:
        for _, path in entry.named_files():
            snapshot.add(path)
    moved = snapshot.moved()
    return replace(plan, entries=tuple(e.with_files(moved) for e in plan.entries))


def certify(
    plan_path: str | os.PathLike[str],
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

    ``template_dir`` (a lab's templates, read and digested before the run, its digest in
    report.json) overrides the HTML templates; ``pdf`` prints the HTML to report.pdf (on
    ``paper``, default the plan's, A4) and adds it to the signed subjects.

    The inputs are snapshotted first (the analysis reads the copies, the statement carries
    their digests) and checked unchanged at the end; the folder is written beside
    ``out_dir`` and renamed into place only when complete."""
    started = clock()
    plan = load_plan(plan_path)
    kid = key_id(key.public_key())
    binding = signatory_binding(plan, kid, ephemeral)
    page_size = paper or plan.certificate.paper
    if page_size not in PAPER_SIZES:
        raise PlanError(f"--paper {page_size}: expected one of {', '.join(PAPER_SIZES)}")
    templates = read_template_folder(template_dir) if template_dir is not None else None
    named = [plan.path, *(p for e in plan.entries for _, p in e.named_files())]
    check_outside(out_dir, [*named, *([template_dir] if template_dir is not None else [])])
    with StagedFolder(out_dir, OUTPUTS) as stage:
        snapshot = InputSnapshot(stage.scratch / "inputs")
        try:
            sections = run_sections(snapshot_plan(plan, snapshot), progress, executor, snapshot)
        except TableCertError as exc:  # name the user's files, not the snapshot's copies
            exc.args = tuple(
                snapshot.show_originals(a) if isinstance(a, str) else a for a in exc.args
            )
            raise
        snapshot.check_unchanged()
        check_outside(out_dir, list(snapshot.files))  # and what the sections read beyond
        report, subjects = build_report(plan, sections, snapshot, started, clock())
        exports = [item for s in sections for item in s.exports]
        names = [name for name, _ in exports]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise PlanError(f"{plan.path}: two sections export {repeated[0]}; one per game")
        report["outputs"] = sorted([*names, *([REPORT_PDF] if pdf else [])])
        report["template"] = templates.as_json() if templates is not None else None
        report_json = canonical_bytes(report)
        _write_complete(stage.out / REPORT_JSON, report_json)  # final from here
        for name, content in exports:
            _write_complete(stage.out / name, content)
            subjects.append(dsse.Subject(name, hashlib.sha256(content).hexdigest()))
        note = (
            "Signed with an ephemeral key made for this run: it proves integrity, not who signed."
            if ephemeral
            else ""
        )
        html = render_report(
            report_json,
            sections,
            [kid],
            note,
            templates=templates,
            binding=binding,
            paper=page_size,
        )
        _write_complete(stage.out / REPORT_HTML, html.encode("utf-8"))
        if pdf:  # printed from the HTML as written, then signed as a subject
            if progress is not None:
                progress(len(plan.entries), len(plan.entries), "printing report.pdf")
            printed = render_pdf(stage.out / REPORT_HTML, report)
            if templates is not None:
                check_pdf_text(printed, report)
            _write_complete(stage.out / REPORT_PDF, printed)
            subjects.append(dsse.Subject(REPORT_PDF, hashlib.sha256(printed).hexdigest()))
        envelope = dsse.sign_statement(dsse.statement(subjects, report), key)
        files = {
            ENVELOPE_JSON: envelope.to_bytes(),
            SIGNER_PUB: public_pem(key.public_key()),
        }
        for name, data in files.items():
            _write_complete(stage.out / name, data)
        stage.commit()
    paths = {name: out_dir / name for name in OUTPUT_FILES}
    return Certification(
        out_dir,
        paths[REPORT_JSON],
        paths[ENVELOPE_JSON],
        paths[REPORT_HTML],
        paths[SIGNER_PUB],
        Outcome.parse(report["verdict"]),
        kid,
        report,
        paths[REPORT_PDF] if pdf else None,
    )


def _write_complete(path: Path, data: bytes) -> None:
    """Write and flush to disk, so the renamed folder never holds a short file."""
    try:
        with path.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise ReportError(f"{path.name}: cannot write it: {exc.strerror}") from exc


def ephemeral_key() -> Ed25519PrivateKey:
    """A key made for one run and never stored (the public half goes beside the report)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()
