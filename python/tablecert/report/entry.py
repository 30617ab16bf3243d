"""The section registry: each analysis contributes one kind of report section.

A section kind is a function ``(entry, context) -> Section`` registered under the name a plan
uses in ``[[section]] kind = "..."``, with the plan keys it accepts. To add one (say the
shuffler audit)::

    # python/tablecert/report/sections/shuffler.py
    from tablecert.judgement import Outcome, Verdict
    from tablecert.report.registry import Field, Section, register_section

    @register_section(
        "shuffler-audit",
        title="Shuffler audit",
        fields={"log": Field("file", help="the shuffler's log"), "game": Field("text")},
    )
    def shuffler_section(entry: PlanEntry, context: Context) -> Section:
        log = entry.path("log")               # resolved, checked to exist; becomes a subject
        context.step(f"auditing {log.name}")  # progress line on stderr
        ...
        return Section(id=f"shuffler-audit/{log.name}", title=..., data={...},
                       verdicts=(Verdict(..., Outcome.PASS, ...),), html=html.table(...))

then add ``shuffler`` to the imports in ``report/sections/__init__.py``. Verdicts come from
the judgement layer (``tablecert.judgement``): a section takes each outcome from the result it
was handed and only lays it out. Every ``file``,
``files`` and ``rules`` field of the entry is hashed into the signed statement automatically;
a section that reads further files reads each through ``context.snapshot(path)`` (the
hashed copy) and lists it in ``Section.inputs``. ``data`` must be exact
(int, str, Fraction, Decimal; no floats): it goes into report.json as canonical JSON. ``html``
is a fragment built with the helpers in ``report/html.py`` (they escape text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tablecert.errors import ReportError
from tablecert.judgement import Outcome, Verdict, overall

if TYPE_CHECKING:
    from tablecert.distributed import Executor
    from tablecert.report.plan import Plan, PlanEntry

FieldKind = Literal["text", "integer", "boolean", "file", "files", "rules", "texts"]


@dataclass(frozen=True)
class Field:
    """A key a section accepts in its plan entry.

    ``file``: a path relative to the plan; ``files``: a list of them; ``rules``: a rule file
    path or bundled name (``q-poker.macau``); all become signed subjects. ``texts``: a list of
    strings.
    """

    kind: FieldKind
    required: bool = True
    help: str = ""
    #: For an ``integer``: the smallest value accepted (a count is at least 1: a check that
    #: asks about nothing cannot pass).
    minimum: int | None = None


@dataclass(frozen=True)
class Sample:
    """Something a section examined by a sample: what, how many of how many, which seed."""

    what: str
    size: int
    population: int | None = None
    seed: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "size": self.size,
            "population": self.population,
            "seed": self.seed,
        }

    def text(self) -> str:
        of = f" of {self.population:,}" if self.population is not None else ""
        seed = f", seed {self.seed}" if self.seed is not None else ""
        return f"{self.what}: {self.size:,}{of}{seed}"


@dataclass(frozen=True)
class Scope:
    """What a section examined: exhaustively, by samples, the power of its tests at that size,
    and what it does not cover. The statute readings it applied are added by ``certify`` from
    the section's rule files (their ``reading = true`` values)."""

    exhaustive: tuple[str, ...] = ()
    sampled: tuple[Sample, ...] = ()
    power: tuple[str, ...] = ()
    limitations: tuple[str, ...] = ()
    #: The rule-data tables the section reads (dotted prefixes, e.g. "ranking."): only their
    #: readings are listed as applied. Empty: every reading of its rule files.
    reads: tuple[str, ...] = ()

    def applies(self, key: str) -> bool:
        return not self.reads or key.startswith(self.reads)

    def as_json(self) -> dict[str, Any]:
        return {
            "exhaustive": list(self.exhaustive),
            "sampled": [s.as_json() for s in self.sampled],
            "power": list(self.power),
            "limitations": list(self.limitations),
        }


@dataclass(frozen=True)
class Appendix:
    """A long table a section moves to the end of the report (linked from the section)."""

    title: str
    html: str


@dataclass(frozen=True)
class Section:
    """What one plan entry contributes to the report."""

    id: str
    title: str
    data: Mapping[str, Any]
    verdicts: tuple[Verdict, ...]
    html: str
    inputs: tuple[Path, ...] = ()
    #: Rule files among ``inputs`` (beyond the plan entry's own): signed as inputs with the role
    #: "rules", so their readings are listed as applied and their games on page 1.
    rule_files: tuple[Path, ...] = ()
    scope: Scope = field(default_factory=Scope)
    appendix: Appendix | None = None
    #: Files the section renders for the output folder (name, bytes): certify writes them
    #: beside the report and signs them (e.g. the par sheet as a spreadsheet).
    exports: tuple[tuple[str, bytes], ...] = ()

    @property
    def outcome(self) -> Outcome:
        return overall(v.outcome for v in self.verdicts)


@dataclass
class Context:
    """What a section builder may use besides its entry: the plan, a progress line, and where
    heavy work may run (``None``: on this machine; else shards on a cluster, same answers)."""

    plan: Plan
    step: Callable[[str], None] = field(default=lambda _message: None)
    executor: Executor | None = None
    #: A file the section reads beyond its plan entry: returns the path to read (certify's
    #: hashed snapshot copy), so the signed digest is of the bytes analysed. List the file
    #: in ``Section.inputs`` too.
    snapshot: Callable[[Path], Path] = field(default=lambda path: path)


Builder = Callable[["PlanEntry", Context], Section]


Check = Callable[["PlanEntry"], None]


@dataclass(frozen=True)
class SectionKind:
    name: str
    title: str
    fields: Mapping[str, Field]
    build: Builder
    #: Run on each entry when the plan is read, before anything runs: raises a PlanError for
    #: a set-up mistake the field kinds cannot see (e.g. an evaluator that cannot start).
    check: Check | None = None


REGISTRY: dict[str, SectionKind] = {}


def register_section(
    name: str, *, title: str, fields: Mapping[str, Field], check: Check | None = None
) -> Callable[[Builder], Builder]:
    """Register ``build`` as the section kind ``name`` accepting ``fields`` in the plan;
    ``check`` vets each entry when the plan is read."""
    if "kind" in fields:
        raise ReportError(f"section kind {name}: 'kind' is reserved")

    def decorate(build: Builder) -> Builder:
        if name in REGISTRY:
            raise ReportError(f"section kind {name!r} is registered twice")
        REGISTRY[name] = SectionKind(name, title, dict(fields), build, check)
        return build

    return decorate


def section_kinds() -> dict[str, SectionKind]:
    """Every registered section kind (importing the bundled sections first)."""
    import tablecert.report.sections  # noqa: F401  (registers the bundled kinds)

    return REGISTRY


__all__ = [
    "REGISTRY",
    "Appendix",
    "Builder",
    "Context",
    "Field",
    "FieldKind",
    "Outcome",
    "Sample",
    "Scope",
    "Section",
    "SectionKind",
    "Verdict",
    "overall",
    "register_section",
    "section_kinds",
]
