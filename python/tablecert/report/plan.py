"""The certification plan (PLAN.toml): what is certified, with which rules and inputs.

::

    [certification]                   # the certificate's identification: report id,
    title = "Q Poker and Caribbean Stud, Macau statutes"   # revision, applicant, signatory,
    lab = "Example Gaming Lab"        # equipment, ... (report/certificate.py)

    [[section]]
    kind = "hand-categories"          # a registered section kind (report/registry.py)
    game = "q-poker"
    rules = "../rules/q-poker.macau.toml"   # relative to this file, or a bundled name

Every entry is checked against its kind's fields before anything runs; an error names the
plan file, the line and the key. Paths are relative to the plan file.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any

from tablecert.bundled import BundledDataError, bundled_plan, is_bare_name
from tablecert.errors import PlanError, RuleFileError
from tablecert.io import toml_input
from tablecert.io.inputs import read_input
from tablecert.io.locate import TomlBlock, toml_blocks
from tablecert.io.pathlike import repeated_file
from tablecert.notation import written
from tablecert.report.certificate import parse_certificate
from tablecert.report.entry import Field, Plan, PlanEntry
from tablecert.report.sections import section_kinds
from tablecert.rules import load_rules


def load_plan(source: str | os.PathLike[str]) -> Plan:
    """Read and check a plan (a path, or the name of a bundled plan: ``smoke``, ``main``); every
    error names the file, line and key."""
    if is_bare_name(source):
        try:
            path = bundled_plan(str(source))
        except BundledDataError as exc:
            raise PlanError(f"{source}: no such plan file, and {exc}") from None
    else:
        path = Path(source)
    try:
        raw = read_input(path)
    except OSError as exc:
        raise PlanError(f"{path}: cannot read plan: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8")
        data = toml_input.loads(text, path, PlanError)
    except UnicodeDecodeError as exc:
        raise PlanError(f"{path}: not UTF-8 at byte {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{path}: invalid TOML: {exc}") from exc
    lines = text.splitlines()
    blocks = toml_blocks(tuple(lines))
    unknown = set(data) - {"certification", "section"}
    if unknown:
        key = sorted(unknown)[0]
        line = blocks[0].keys.get(key) or next(
            (b.line for b in blocks if b.table[:1] == (key,)), None
        )
        raise PlanError(
            f"{_where(path, line)}: unknown table or key {key!r}; "
            "a plan has [certification] and [[section]] entries"
        )
    cert = data.get("certification")
    if not isinstance(cert, dict):
        raise PlanError(f"{path}: missing [certification] table (title = ..., lab = ...)")
    certificate = parse_certificate(path, lines, cert)
    sections = data.get("section", [])
    if not isinstance(sections, list) or not sections:
        raise PlanError(f"{path}: no [[section]] entries: nothing to certify")
    written = [b for b in blocks if b.table == ("section",)]
    entries = tuple(
        _entry(path, index, values, written[index - 1] if index <= len(written) else None)
        for index, values in enumerate(sections, start=1)
    )
    return Plan(
        path=path,
        sha256=hashlib.sha256(raw).hexdigest(),
        certificate=certificate,
        entries=entries,
    )


def _where(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def _entry(path: Path, index: int, values: dict[str, Any], block: TomlBlock | None) -> PlanEntry:
    """The ``index``-th ``[[section]]`` (``block``: where it is written, when it is a table of
    its own), checked against its kind's fields."""
    line = block.line if block is not None else None
    written = block.keys if block is not None else {}
    key_lines = {key: written[key] for key in values if key in written}
    kinds = section_kinds()
    kind_name = values.get("kind")
    if not isinstance(kind_name, str) or kind_name not in kinds:
        where = _where(path, key_lines.get("kind", line))
        raise PlanError(
            f"{where}: section {index}: kind: {kind_name!r} is not a section kind; "
            f"known: {', '.join(sorted(kinds))}"
        )
    kind = kinds[kind_name]
    entry = PlanEntry(path, index, kind, {}, line, key_lines)
    checked: dict[str, Any] = {}
    for key, value in values.items():
        if key == "kind":
            continue
        spec = kind.fields.get(key)
        if spec is None:
            raise entry.error(
                key, f"unknown key; {kind.name} accepts {', '.join(sorted(kind.fields))}"
            )
        checked[key] = _check_value(entry, key, spec, value)
    for key, spec in kind.fields.items():
        if spec.required and key not in checked:
            raise entry.error(None, f"missing key {key!r} ({spec.help or spec.kind})")
    given: dict[str, str] = {}
    for key, spec in kind.fields.items():
        if key in checked and spec.kind in ("file", "rules"):
            given.setdefault(checked[key], values[key])
        elif key in checked and spec.kind == "files":
            for resolved, text in zip(checked[key], values[key], strict=True):
                given.setdefault(resolved, text)
    result = PlanEntry(path, index, kind, checked, line, key_lines, given)
    if kind.check is not None:
        kind.check(result)
    return result


def _check_value(entry: PlanEntry, key: str, spec: Field, value: Any) -> Any:
    if spec.kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise entry.error(key, f"expected an integer, got {written(value)}")
        if spec.minimum is not None and value < spec.minimum:
            raise entry.error(key, f"must be at least {spec.minimum}, got {value}")
        return value
    if spec.kind == "boolean":
        if not isinstance(value, bool):
            raise entry.error(key, f"expected true or false, got {written(value)}")
        return value
    if spec.kind == "texts":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise entry.error(key, f"expected a list of strings, got {written(value)}")
        return tuple(value)
    if spec.kind == "files":
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise entry.error(key, f"expected a non-empty list of file paths, got {written(value)}")
        resolved = tuple(_resolve_file(entry, key, v) for v in value)
        named = [entry.plan_path.parent / v for v in value]
        repeated = repeated_file(named)
        if repeated is not None:
            first, second, how = repeated
            first_name, second_name = value[first], value[second]
            raise entry.error(
                key,
                f"{second_name!r} is {first_name!r} again ({how}): each file counts once, so "
                "name it once",
            )
        return resolved
    if not isinstance(value, str) or not value:
        raise entry.error(key, f"expected a non-empty string, got {written(value)}")
    if spec.kind == "text":
        return value
    if spec.kind == "file":
        return _resolve_file(entry, key, value)
    candidate = (entry.plan_path.parent / value).resolve()
    if not candidate.exists():
        try:  # a bundled rule file by name, e.g. q-poker.macau
            return str(load_rules(value).path.resolve())
        except RuleFileError:
            pass
    path = _resolve_file(entry, key, value)
    try:
        load_rules(Path(path))
    except RuleFileError as exc:
        raise entry.error(key, f"bad rule file: {exc}") from exc
    return path


def _resolve_file(entry: PlanEntry, key: str, value: str) -> str:
    """A path relative to the plan, resolved; an error naming the key when it is no file."""
    if not value:
        raise entry.error(key, f"expected a non-empty string, got {written(value)}")
    candidate = (entry.plan_path.parent / value).resolve()
    if not candidate.is_file():
        raise entry.error(key, f"no such file {written(value)} (looked for {candidate})")
    return str(candidate)
