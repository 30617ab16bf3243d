"""The certificate's identification: the plan's ``[certification]`` table, checked strictly.

::

    [certification]
    title = "Q Poker under Macau statute 89/2004"        # required
    lab = "Example Gaming Lab"                           # the issuing laboratory
    report_id = "EGL-2026-0142"                          # the certificate number
    revision = 0                                         # 0 for the first issue
    issue_date = 2026-11-30                              # a TOML date
    applicant = "Casino C"
    manufacturer = "Example Shufflers Ltd"
    standards = ["Macau Administrative Regulation 89/2004", "NIST SP 800-22 rev1a"]
    scope_notes = "Free text printed under the generated scope."
    paper = "A4"                                         # or "Letter" (the PDF's page size)

    [certification.signatory]
    name = "A. Reviewer"
    role = "Technical Manager"
    key_id = "3f1c..."   # optional: the SHA-256 key id that must sign (checked by certify/verify)

    [[certification.equipment]]
    item = "Card shuffling machine"
    model = "ES-52"
    serial = "SN-0001"
    version = "firmware 4.2.1"

Every value is checked for its type before anything runs; an error names the plan file, the
line and the dotted key. The report carries these fields in ``report.json`` (``certificate``)
and on its first page.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecert.errors import PlanError
from tablecert.io.locate import TomlBlock, toml_blocks
from tablecert.visible_text import hidden

PAPER_SIZES = ("A4", "Letter")
MAX_TEXT = 2_000  # characters of any one field: a certificate field, not a document
MAX_REVISION = 9_999
_KEY_ID = re.compile(r"^[0-9a-f]{64}$")

_TEXT_KEYS = ("title", "lab", "report_id", "applicant", "manufacturer", "scope_notes", "paper")
_KEYS = (*_TEXT_KEYS, "revision", "issue_date", "standards", "signatory", "equipment")
SIGNATORY_KEYS = ("name", "role", "key_id")
EQUIPMENT_KEYS = ("item", "model", "serial", "version")


@dataclass(frozen=True)
class Signatory:
    """Who signs the certificate, in which role, and (optionally) the key they sign with."""

    name: str
    role: str
    key_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "key_id": self.key_id}


@dataclass(frozen=True)
class Equipment:
    """One item examined: what it is, its model, serial number and firmware/software version."""

    item: str
    model: str
    serial: str
    version: str

    def as_json(self) -> dict[str, str]:
        return {
            "item": self.item,
            "model": self.model,
            "serial": self.serial,
            "version": self.version,
        }


@dataclass(frozen=True)
class Certificate:
    """The identification fields of the plan's ``[certification]`` table."""

    title: str
    lab: str = ""
    report_id: str | None = None
    revision: int | None = None
    issue_date: str | None = None
    applicant: str | None = None
    manufacturer: str | None = None
    standards: tuple[str, ...] = ()
    scope_notes: str | None = None
    signatory: Signatory | None = None
    equipment: tuple[Equipment, ...] = ()
    paper: str = "A4"

    def as_json(self) -> dict[str, Any]:
        """The ``certificate`` object of report.json (the title and lab stay top-level)."""
        return {
            "report_id": self.report_id,
            "revision": self.revision,
            "issue_date": self.issue_date,
            "applicant": self.applicant,
            "manufacturer": self.manufacturer,
            "equipment": [e.as_json() for e in self.equipment],
            "signatory": self.signatory.as_json() if self.signatory else None,
            "standards": list(self.standards),
            "scope_notes": self.scope_notes,
        }


class _Locator:
    """Lines of the ``[certification]`` table's keys and sub-tables, for error messages (read
    by the one TOML locator, :func:`tablecert.io.locate.toml_blocks`)."""

    def __init__(self, path: Path, lines: Sequence[str]) -> None:
        self.path = path
        self.blocks = toml_blocks(tuple(lines))

    def _headers(self, *table: str) -> list[TomlBlock]:
        return [b for b in self.blocks if b.table == table]

    def line(self, dotted: str, index: int | None = None) -> int | None:
        """The line of ``certification.<dotted>`` (``index``: the n-th equipment entry)."""
        cert = next(iter(self._headers("certification")), None)
        cert_line = cert.line if cert is not None else None
        keys = cert.keys if cert is not None else {}
        parts = dotted.split(".")
        if len(parts) == 1:
            line = keys.get(parts[0])
            if line is None and parts[0] in ("signatory", "equipment"):
                found = self._headers("certification", parts[0])
                line = found[index or 0].line if len(found) > (index or 0) else None
            return line or cert_line
        table, key = parts
        headers = self._headers("certification", table)
        if headers and len(headers) > (index or 0):
            header = headers[index or 0]
            return header.keys.get(key) or header.line
        return keys.get(table) or cert_line

    def error(self, dotted: str, message: str, index: int | None = None) -> PlanError:
        line = self.line(dotted, index)
        where = f"{self.path}:{line}" if line else str(self.path)
        label = dotted if index is None else dotted.replace(".", f"[{index + 1}].", 1)
        if index is not None and "." not in dotted:
            label = f"{dotted}[{index + 1}]"
        return PlanError(f"{where}: certification.{label}: {message}")


def _text(loc: _Locator, dotted: str, value: Any, index: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise loc.error(dotted, f"expected a non-empty string, got {value!r}", index)
    if len(value) > MAX_TEXT:
        raise loc.error(dotted, f"longer than {MAX_TEXT:,} characters ({len(value):,})", index)
    bad = hidden(value, "\t\n" if dotted == "scope_notes" else "\t")
    if bad is not None:
        raise loc.error(
            dotted, f"control or direction character U+{ord(bad):04X} in {value!r}", index
        )
    return value


def _table(loc: _Locator, dotted: str, value: Any, keys: Sequence[str], index: int | None) -> None:
    if not isinstance(value, Mapping):
        raise loc.error(dotted, f"expected a table, got {value!r}", index)
    for key in value:
        if key not in keys:
            raise loc.error(f"{dotted}.{key}", f"unknown key; expected {', '.join(keys)}", index)


def parse_certificate(path: Path, lines: Sequence[str], cert: Mapping[str, Any]) -> Certificate:
    """The checked ``[certification]`` table of the plan at ``path`` (``lines``: its text)."""
    loc = _Locator(path, lines)
    for key in cert:
        if key not in _KEYS:
            raise loc.error(key, f"unknown key; a certification has {', '.join(_KEYS)}")
    if "title" not in cert:
        raise loc.error("title", "missing")
    texts = {key: _text(loc, key, cert[key]) for key in _TEXT_KEYS if key in cert}
    paper = texts.get("paper", "A4")
    if paper not in PAPER_SIZES:
        raise loc.error("paper", f"{paper!r} is not one of {', '.join(PAPER_SIZES)}")
    revision = cert.get("revision")
    if revision is not None and (
        isinstance(revision, bool)
        or not isinstance(revision, int)
        or not 0 <= revision <= MAX_REVISION
    ):
        raise loc.error("revision", f"expected an integer 0..{MAX_REVISION:,}, got {revision!r}")
    return Certificate(
        title=texts["title"],
        lab=texts.get("lab", ""),
        report_id=texts.get("report_id"),
        revision=revision,
        issue_date=_date(loc, cert.get("issue_date")),
        applicant=texts.get("applicant"),
        manufacturer=texts.get("manufacturer"),
        standards=_standards(loc, cert.get("standards", [])),
        scope_notes=texts.get("scope_notes"),
        signatory=_signatory(loc, cert.get("signatory")),
        equipment=_equipment(loc, cert.get("equipment", [])),
        paper=paper,
    )


def _date(loc: _Locator, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime) or not isinstance(value, dt.date | str):
        raise loc.error("issue_date", f"expected a date such as 2026-11-30, got {value!r}")
    if isinstance(value, str):
        try:
            value = dt.date.fromisoformat(value)
        except ValueError:
            raise loc.error(
                "issue_date", f"expected a date such as 2026-11-30, got {value!r}"
            ) from None
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(value)):
            raise loc.error("issue_date", f"expected YYYY-MM-DD, got {value!r}")
    return str(value.isoformat())


def _standards(loc: _Locator, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise loc.error("standards", f"expected a list of strings, got {value!r}")
    out = tuple(_text(loc, "standards", v) for v in value)
    repeated = sorted({s for s in out if out.count(s) > 1})
    if repeated:
        raise loc.error("standards", f"{repeated[0]!r} is listed twice")
    return out


def _signatory(loc: _Locator, value: Any) -> Signatory | None:
    if value is None:
        return None
    _table(loc, "signatory", value, SIGNATORY_KEYS, None)
    for key in ("name", "role"):
        if key not in value:
            raise loc.error(f"signatory.{key}", "missing")
    key_id = value.get("key_id")
    if key_id is not None and (not isinstance(key_id, str) or not _KEY_ID.match(key_id)):
        raise loc.error(
            "signatory.key_id",
            f"expected 64 lowercase hex digits (tablecert keys generate prints it), got {key_id!r}",
        )
    return Signatory(
        _text(loc, "signatory.name", value["name"]),
        _text(loc, "signatory.role", value["role"]),
        key_id,
    )


def _equipment(loc: _Locator, value: Any) -> tuple[Equipment, ...]:
    if not isinstance(value, list):
        raise loc.error("equipment", f"expected [[certification.equipment]] tables, got {value!r}")
    out = []
    for index, item in enumerate(value):
        _table(loc, "equipment", item, EQUIPMENT_KEYS, index)
        for key in EQUIPMENT_KEYS:
            if key not in item:
                raise loc.error(f"equipment.{key}", "missing", index)
        out.append(
            Equipment(*(_text(loc, f"equipment.{key}", item[key], index) for key in EQUIPMENT_KEYS))
        )
    return tuple(out)


def signatory_check(statement: Mapping[str, Any], signers: Sequence[str]) -> tuple[str, str]:
    """The signed report's named signatory against the verified signers' key ids: (a line for
    the reader, a problem or ""). A certificate that binds its signatory to a key id is valid
    only with a verified signature by that key; one that does not bind a key names the
    signatory without proof of who signed."""
    predicate = statement.get("predicate")
    cert = predicate.get("certificate") if isinstance(predicate, Mapping) else None
    signatory = cert.get("signatory") if isinstance(cert, Mapping) else None
    if not isinstance(signatory, Mapping):
        return "no signatory named", ""
    who = f"{signatory.get('name')}, {signatory.get('role')}"
    key = signatory.get("key_id")
    if key is None:
        return f"{who} (named; the certificate binds no key id to the signatory)", ""
    if key in signers:
        return f"{who}: bound to key id {key}, which signed (verified)", ""
    return (
        f"{who}: bound to key id {key}, which did not sign",
        f"the certificate names {who} as signatory with key id {key}, but no verified "
        "signature is by that key",
    )
