"""Two rule files of one game, compared: every value that changed with its article, and every
figure of the game's exact analysis that changes because of it, exactly.

A statute and its re-issue, or a statute and a casino's variant, are compared value by value
(every key that carries a ``value``, with its article and constraint fields), then both are
analysed by the game's engine and the two analyses' JSON documents compared figure by figure:
an exact number (``{"exact", "decimal"}``) that changes is given with its old and new value and
the exact difference; any other figure (a count, a strategy's text) with its old and new value.
Entries of a list are named by their ``event``, ``category`` or ``name`` where those are unique
in the list, so that a changed row of a pay table reads as that row, not as a position.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

from tablecert.errors import TableCertError
from tablecert.exact import exact_json
from tablecert.rules import RuleFile, RuleValue
from tablecert.rules.submission import rule_keys

__all__ = [
    "ANALYSES",
    "FigureChange",
    "RulesDiff",
    "RulesDiffError",
    "ValueChange",
    "diff_rules",
    "figures",
    "rule_values",
]

#: Keys of a list entry that name it, in the order tried.
ENTRY_NAMES = ("event", "category", "name", "key")
#: Figures that say where a result came from, not what it is: not compared.
PROVENANCE = frozenset({"rules", "rules_sha256", "tablecert_version", "title", "figures"})


class RulesDiffError(TableCertError, ValueError):
    """Two rule files that cannot be compared (different games): an input error."""


def _q_poker(rules: RuleFile) -> Mapping[str, Any]:
    from tablecert.games import q_poker

    return _with_side_bets(rules, q_poker.analyze(rules).as_json())


def _caribbean(rules: RuleFile) -> Mapping[str, Any]:
    from tablecert.games import caribbean_stud

    return _with_side_bets(rules, caribbean_stud.analyze(rules).as_json())


def _stud(rules: RuleFile) -> Mapping[str, Any]:
    from tablecert.games import stud

    return stud.analyze(rules).as_json()


def _with_side_bets(rules: RuleFile, figures: Mapping[str, Any]) -> Mapping[str, Any]:
    """A dedicated engine's figures, with the returns of the side bets its file describes in
    ``[side_bets]`` (which only the stud engine computes)."""
    if "side_bets" not in rules.data:
        return figures
    from tablecert.games import stud
    from tablecert.rules.stud import describe

    d = describe(rules)
    listed = set(rules.table("side_bets"))
    bets = [stud.side_bet_sheet(d, b).as_json() for b in d.side_bets if b.id in listed]
    return {**figures, "side_bets": bets}


#: The exact analysis of each game, as the JSON document ``tablecert analyze GAME --json``
#: (``analyze game FILE --json`` for a game described as data) prints.
ANALYSES: Mapping[str, Callable[[RuleFile], Mapping[str, Any]]] = {
    "q-poker": _q_poker,
    "caribbean-stud": _caribbean,
    "stud": _stud,
}


@dataclass(frozen=True)
class ValueChange:
    """One rule value that differs: absent on one side (``None``), or changed in its value,
    article or a constraint field."""

    key: str
    old: RuleValue | None
    new: RuleValue | None

    @property
    def article(self) -> str:
        """The article the value cites (the new file's, else the old file's)."""
        value = self.new or self.old
        return value.article if value is not None else ""

    @property
    def changed(self) -> tuple[str, ...]:
        """Which fields differ (``value``, ``article``, ``range``, ...); every field when the
        value is on one side only."""
        if self.old is None or self.new is None:
            return ("added",) if self.old is None else ("removed",)
        return tuple(
            f.name
            for f in fields(RuleValue)
            if getattr(self.old, f.name) != getattr(self.new, f.name)
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "article": self.article,
            "changed": list(self.changed),
            "old": _value_json(self.old),
            "new": _value_json(self.new),
        }


@dataclass(frozen=True)
class FigureChange:
    """One figure of the analysis that differs; ``difference`` (new - old) when both are
    exact numbers."""

    path: str
    old: Any
    new: Any
    difference: Fraction | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "difference": None if self.difference is None else exact_json(self.difference),
        }


@dataclass(frozen=True)
class RulesDiff:
    """What changes from one rule file of a game to another."""

    game: str
    old_rules: str
    old_sha256: str
    new_rules: str
    new_sha256: str
    values: tuple[ValueChange, ...]
    figures: tuple[FigureChange, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": "tablecert.analyze-diff/1",
            "game": self.game,
            "old": {"rules": self.old_rules, "rules_sha256": self.old_sha256},
            "new": {"rules": self.new_rules, "rules_sha256": self.new_sha256},
            "values": [v.as_json() for v in self.values],
            "figures": [f.as_json() for f in self.figures],
        }


def rule_values(rules: RuleFile) -> dict[str, RuleValue]:
    """Every rule value of a file by its dotted key, in the file's order."""
    return {key: rules.require(key) for key in rule_keys(rules.data)}


def _value_json(value: RuleValue | None) -> dict[str, Any] | None:
    if value is None:
        return None
    data = {f.name: getattr(value, f.name) for f in fields(RuleValue)}
    data["range"] = None if value.range is None else list(value.range)
    return data


def figures(document: Mapping[str, Any]) -> dict[str, Any]:
    """Every figure of an analysis document by its path (``play.rows[fold].return``), an
    exact number kept whole as one figure; provenance fields left out."""
    return dict(_leaves(document, ""))


def _leaves(node: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(node, Mapping):
        if set(node) == {"exact", "decimal"}:
            yield path, dict(node)
            return
        for name, child in node.items():
            if not path and name in PROVENANCE:
                continue
            yield from _leaves(child, f"{path}.{name}" if path else str(name))
        return
    if isinstance(node, list):
        named = _entry_names(node)
        for i, child in enumerate(node):
            if named is None:
                yield from _leaves(child, f"{path}[{i}]")
                continue
            key, names = named
            rest = {k: v for k, v in child.items() if k != key}  # the name is in the path
            yield from _leaves(rest, f"{path}[{names[i]}]")
        return
    yield path, node


def _entry_names(entries: list[Any]) -> tuple[str, list[str]] | None:
    """The first naming key every entry of a list has, all distinct, and the names."""
    if not entries or not all(isinstance(e, Mapping) for e in entries):
        return None
    for key in ENTRY_NAMES:
        names = [e.get(key) for e in entries]
        if all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names):
            return key, [str(n) for n in names]
    return None


def _exact(value: Any) -> Fraction | None:
    if isinstance(value, Mapping) and set(value) == {"exact", "decimal"}:
        return Fraction(str(value["exact"]))
    return None


def diff_rules(
    old: RuleFile,
    new: RuleFile,
    analyse: Callable[[RuleFile], Mapping[str, Any]] | None = None,
) -> RulesDiff:
    """Compare two rule files of one game; ``analyse`` (default: the game's engine) gives a
    file's analysis document."""
    if old.game != new.game:
        raise RulesDiffError(
            f"{old.path.name} is a {old.game} rule file and {new.path.name} a {new.game} one: "
            "only two rule files of one game can be compared"
        )
    if analyse is None:
        known = ANALYSES.get(old.game)
        if known is None:
            raise RulesDiffError(
                f"{old.game} rule files are not compared (games with a par sheet: "
                f"{', '.join(ANALYSES)})"
            )
        analyse = known
    before, after = rule_values(old), rule_values(new)
    values = tuple(
        ValueChange(key, before.get(key), after.get(key))
        for key in [*before, *(k for k in after if k not in before)]
        if before.get(key) != after.get(key)
    )
    old_figures, new_figures = figures(analyse(old)), figures(analyse(new))
    changes = []
    for path in [*old_figures, *(p for p in new_figures if p not in old_figures)]:
        a, b = old_figures.get(path), new_figures.get(path)
        if a == b:
            continue
        ea, eb = _exact(a), _exact(b)
        changes.append(FigureChange(path, a, b, None if ea is None or eb is None else eb - ea))
    return RulesDiff(
        game=old.game,
        old_rules=old.path.name,
        old_sha256=old.sha256,
        new_rules=new.path.name,
        new_sha256=new.sha256,
        values=values,
        figures=tuple(changes),
    )
