"""What a section kind is given and gives back: the contract between a plan and a section
builder, below both the registry and the plan reader.

A builder is handed a :class:`PlanEntry` (its ``[[section]]`` values, checked against the
kind's :class:`Field` s, and where each key is written) and a :class:`Context` (the
:class:`Plan`, a progress line, an executor, the snapshot of extra inputs), and returns a
:class:`Section` (exact data, verdicts, an HTML fragment, its :class:`Scope`). How to write
one is in :mod:`tablecert.report.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tablecert.errors import PlanError
from tablecert.judgement import Outcome, Verdict, overall
from tablecert.report.certificate import Certificate
from tablecert.rules import RuleFile, load_rules
from tablecert.rules.stud import is_stud

if TYPE_CHECKING:
    from tablecert.distributed import Executor

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


@dataclass(frozen=True)
class PlanEntry:
    """One ``[[section]]`` of a plan: its kind, values, and where each key is written."""

    plan_path: Path
    index: int
    kind: SectionKind
    values: Mapping[str, Any]
    line: int | None
    key_lines: Mapping[str, int]
    #: Each file's resolved path -> the text the plan gives for it (a path or a bundled name).
    given: Mapping[str, str] = field(default_factory=dict)

    def error(self, key: str | None, message: str) -> PlanError:
        line = self.key_lines.get(key, self.line) if key else self.line
        where = f"{self.plan_path}:{line}" if line else str(self.plan_path)
        what = f"section {self.index} ({self.kind.name})" + (f": {key}" if key else "")
        return PlanError(f"{where}: {what}: {message}")

    def text(self, key: str, default: str | None = None) -> str:
        value = self.values.get(key, default)
        if value is None:
            raise self.error(key, "missing")
        return str(value)

    def texts(self, key: str) -> tuple[str, ...]:
        return tuple(self.values.get(key, ()))

    def integer(self, key: str, default: int | None = None) -> int:
        value = self.values.get(key, default)
        if value is None:
            raise self.error(key, "missing")
        return int(value)

    def path(self, key: str) -> Path:
        """A ``file`` (or ``rules``) field, resolved against the plan and checked to exist."""
        return Path(self.values[key])

    def paths(self, key: str) -> tuple[Path, ...]:
        """A ``files`` field: each path resolved against the plan and checked to exist."""
        return tuple(Path(p) for p in self.values[key])

    def rules(self, key: str = "rules") -> RuleFile:
        """A ``rules`` field, loaded (errors name the rule file's own line)."""
        return load_rules(self.path(key))

    def game_rules(self, games: Iterable[str], kind: str = "") -> tuple[str, RuleFile]:
        """The ``game`` key (one of ``games``) and the ``rules`` file, checked to be that game's."""
        game = self.text("game")
        allowed = tuple(games)
        if game not in allowed:
            raise self.error(
                "game", f"{game!r} is not a {kind or 'known'} game; expected {', '.join(allowed)}"
            )
        rules = self.rules()
        if rules.game != game:
            raise self.error("rules", f"{rules.path.name} is a rule file for {rules.game}")
        return game, rules

    def stud_rules(self) -> RuleFile:
        """The ``rules`` file of a section without ``game``: the stud game it describes."""
        rules = self.rules()
        if not is_stud(rules):
            raise self.error(
                "rules",
                f"{rules.path.name} describes no stud game (without game = q-poker or "
                "caribbean-stud, the rule file names the game)",
            )
        return rules

    def files(self) -> tuple[Path, ...]:
        """Every file this entry names (its ``file``, ``files`` and ``rules`` fields)."""
        return tuple(path for _, path in self.named_files())

    def named_files(self) -> tuple[tuple[str, Path], ...]:
        """(key, path) of every file this entry names, in field order."""
        out: list[tuple[str, Path]] = []
        for key, spec in self.kind.fields.items():
            if key not in self.values:
                continue
            if spec.kind in ("file", "rules"):
                out.append((key, Path(self.values[key])))
            elif spec.kind == "files":
                out.extend((key, Path(p)) for p in self.values[key])
        return tuple(out)

    def with_files(self, moved: Mapping[str, str]) -> PlanEntry:
        """This entry with every file path in ``moved`` (resolved path -> new path) replaced:
        certify points the sections at its snapshot of the inputs."""
        values = dict(self.values)
        for key, spec in self.kind.fields.items():
            if key not in values:
                continue
            if spec.kind in ("file", "rules"):
                values[key] = moved.get(values[key], values[key])
            elif spec.kind == "files":
                values[key] = tuple(moved.get(p, p) for p in values[key])
        return replace(self, values=values)


@dataclass(frozen=True)
class Plan:
    path: Path
    sha256: str
    certificate: Certificate
    entries: tuple[PlanEntry, ...]

    @property
    def title(self) -> str:
        return self.certificate.title

    @property
    def lab(self) -> str:
        return self.certificate.lab
