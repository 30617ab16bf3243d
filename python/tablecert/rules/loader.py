"""Read a rule file: every value is ``{ value = ..., article = "第N條" }`` and keeps its article.

Errors name the file, the dotted key and the line it is on, so a lab writing its own variant
file can find the mistake. A file holds only the tables and values the bundled files of its
game hold: an unknown key or table is an error, never silently ignored. A UTF-8 byte order
mark is accepted.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from tablecert.bundled import (
    RULES_DIR,
    STATUTES_DIR,
    BundledDataError,
    bundled_games,
    bundled_rule_file,
    is_bare_name,
)
from tablecert.errors import RuleFileError
from tablecert.io import toml_input
from tablecert.io.inputs import read_input
from tablecert.io.locate import toml_key_lines
from tablecert.notation import written
from tablecert.rules.constraints import FIELDS, KINDS
from tablecert.rules.numbers import number as as_number


@dataclass(frozen=True)
class RuleValue:
    """One rule value, the statute article it comes from, and what the statute allows in its
    place (the fields of :mod:`tablecert.rules.constraints`)."""

    value: Any
    article: str
    reading: bool = False
    note: str = ""
    house_choice: bool = False
    #: The keys of the values bounding the house's choice: (minimum, maximum).
    range: tuple[str, str] | None = None
    duty: str = ""
    kind: str | None = None
    at_least: bool = False
    one_of: bool = False
    submittable: bool = True


@dataclass(frozen=True, eq=False)
class RuleFile:
    """A parsed rule file: its raw tables, where it came from and its SHA-256."""

    path: Path
    data: Mapping[str, Any]
    sha256: str
    lines: tuple[str, ...] = field(repr=False)

    @cached_property
    def game(self) -> str:
        # Read once: a per-call API (``evaluate`` of a described game) asks it every call.
        return str(self.require("game.id").value)

    @property
    def variant(self) -> str:
        return str(self.require("game.variant").value)

    def line_of(self, dotted: str) -> int | None:
        """The 1-based line where a dotted key or table is defined, if it is in the file."""
        return toml_key_lines(self.lines).get(dotted)

    def locate(self, dotted: str) -> tuple[str, str]:
        """Where an error at a key points: ``file:line`` of the key, or for a key the file
        lacks the line of the nearest table that should hold it, with a note naming it.
        A value written as a table (``[x]`` then ``value = ...``) points at its value."""
        line = self.line_of(f"{dotted}.value") or self.line_of(dotted)
        parts = dotted.split(".")
        note = ""
        while line is None and len(parts) > 1:
            parts.pop()
            line = self.line_of(".".join(parts))
            if line is not None:
                note = f" (not in table [{'.'.join(parts)}])"
        return (f"{self.path}:{line}" if line else str(self.path)), note

    def error(self, dotted: str, message: str) -> RuleFileError:
        where, note = self.locate(dotted)
        return RuleFileError(f"{where}: {dotted}: {message}{note}")

    def get(self, dotted: str) -> RuleValue | None:
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return self._as_rule_value(dotted, node)

    def require(self, dotted: str) -> RuleValue:
        found = self.get(dotted)
        if found is None:
            raise self.error(dotted, "missing")
        return found

    def table(self, dotted: str) -> Mapping[str, Any]:
        node: Any = self.data
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                raise self.error(dotted, "missing table")
            node = node[part]
        if not isinstance(node, Mapping):
            raise self.error(dotted, f"expected a table, got {node!r}")
        return node

    def value_of(self, dotted: str, kind: type | tuple[type, ...]) -> Any:
        """The value at a key, checked to be of the given Python type(s)."""
        value = self.require(dotted).value
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise self.error(dotted, f"expected {_kind_name(kind)}, got {written(value)}")
        if not isinstance(value, kind):
            raise self.error(dotted, f"expected {_kind_name(kind)}, got {written(value)}")
        return value

    def choice(self, dotted: str, allowed: tuple[str, ...]) -> str:
        value = self.value_of(dotted, str)
        if value not in allowed:
            raise self.error(dotted, f"{written(value)} is not one of {', '.join(allowed)}")
        return str(value)

    def _as_rule_value(self, dotted: str, node: Any) -> RuleValue:
        if not isinstance(node, Mapping) or "value" not in node:
            raise self.error(dotted, 'expected { value = ..., article = "..." }')
        article = node.get("article")
        if not isinstance(article, str) or not article:
            raise self.error(dotted, 'every rule value must cite its article (article = "...")')
        unknown = set(node) - {"value", "article", *FIELDS}
        if unknown:
            raise self.error(dotted, f"unknown field(s) {', '.join(sorted(unknown))}")
        fields = {name: self._field(dotted, node, name) for name in FIELDS if name in node}
        bounds = fields.pop("range", None)
        return RuleValue(
            value=node["value"],
            article=article,
            range=None if bounds is None else (bounds[0], bounds[1]),
            **fields,
        )

    def _field(self, dotted: str, node: Mapping[str, Any], name: str) -> Any:
        """One constraint field of a rule value, checked for its type (what it qualifies is
        checked once, when the file is loaded: a submitted value in force may be anything)."""
        field, value = FIELDS[name], node[name]
        if not isinstance(value, field) or (field is str and name != "note" and not value):
            shown = "true or false" if field is bool else "text" if field is str else "a list"
            raise self.error(dotted, f"{name}: expected {shown}, got {written(value)}")
        if name == "kind" and value not in KINDS:
            raise self.error(dotted, f"kind: {written(value)} is not one of {', '.join(KINDS)}")
        bounds = node["range"] if name == "range" else ["", ""]
        if len(bounds) != 2 or not all(isinstance(k, str) for k in bounds):
            raise self.error(dotted, "range: expected [minimum key, maximum key]")
        return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def read_utf8(path: Path, error: type[Exception], what: str) -> tuple[bytes, str]:
    """A small input file's bytes (for its digest) and its text; ``error`` names the file and
    what is wrong (cannot be read, or the byte where it stops being UTF-8)."""
    try:
        raw = read_input(path)
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror}") from exc
    try:
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 at byte {exc.start}") from exc


def bundled_rule_path(name: str) -> Path:
    """The path of a bundled rule file, e.g. ``q-poker.macau``."""
    try:
        return bundled_rule_file(name)
    except BundledDataError as exc:
        raise RuleFileError(str(exc)) from None


def load_rules(source: str | os.PathLike[str]) -> RuleFile:
    """Load a rule file from a path (``str`` or ``os.PathLike``), or a bundled one by name
    (``q-poker.macau``).

    A file is parsed once per content: loading it again returns the same object. A file
    loaded before by its path is not read again while its identity and modification time are
    unchanged (``os.stat``: device, inode, size, mtime in nanoseconds and ctime), so a loop
    over ``tablecert.evaluate("my-game.toml", ...)`` costs one ``stat`` a call; an edited or
    replaced file is read and parsed afresh. A bundled file loaded by its name is part of the
    installed package and is read once per process, like the package's code.
    """
    if not isinstance(source, str) and not isinstance(source, os.PathLike):
        raise RuleFileError(f"expected a rule file path or bundled name, got {source!r}")
    key = (type(source), source)
    known = _LOADED.get(key)
    if known is not None:  # the per-call path: one stat, or none for a bundled name
        rules, identity, where = known
        if where is None:
            return rules
        try:
            st = os.stat(where)
        except OSError:
            pass
        else:
            if _identity(st) == identity:
                return rules
    bundled = is_bare_name(source)
    path = bundled_rule_path(str(source)) if bundled else Path(source)
    try:
        before = os.stat(path)
        raw = read_input(path)  # a regular file of bounded size: never a FIFO or a device
        after = os.stat(path)
    except OSError as exc:
        raise RuleFileError(f"{path}: cannot read rule file: {exc.strerror}") from exc
    rules = _parse(path, raw)
    if _identity(before) == _identity(after):  # not changed while it was read
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.clear()
        _LOADED[key] = (rules, _identity(after), None if bundled else str(path))
    return rules


_Identity = tuple[int, int, int, int, int]
_LOADED: dict[tuple[type, object], tuple[RuleFile, _Identity, str | None]] = {}
_LOADED_MAX = 256


def _identity(st: os.stat_result) -> _Identity:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@cache
def _parse(path: Path, raw: bytes) -> RuleFile:
    text, data = _toml(path, raw)
    rules = RuleFile(
        path=path,
        data=data,
        sha256=hashlib.sha256(raw).hexdigest(),
        lines=tuple(text.splitlines()),
    )
    rules.require("game.id")
    rules.require("game.variant")
    _check_known_keys(rules)
    _check_constraints(rules)
    _check_statute_text(rules)
    return rules


def _check_constraints(rules: RuleFile) -> None:
    """Every constraint qualifies a value it can: ``kind``, ``at_least`` and ``range`` a
    number, ``one_of`` a list of names; a ``range`` names two numbers of the same file, the
    minimum not above the maximum."""
    for path, is_value in _paths(rules.data).items():
        dotted = ".".join(path)
        rule = rules.require(dotted) if is_value else None
        if rule is None:
            continue
        qualified = [n for n in ("kind", "at_least", "range") if getattr(rule, n)]
        if qualified and as_number(rule.value) is None:
            raise rules.error(
                dotted, f"{qualified[0]}: qualifies a number, not {written(rule.value)}"
            )
        if rule.one_of and not (
            isinstance(rule.value, list) and all(isinstance(v, str) for v in rule.value)
        ):
            raise rules.error(dotted, "one_of: qualifies a list of names to choose from")
        if rule.range is not None:
            _check_range(rules, dotted, rule.range)


def _check_range(rules: RuleFile, dotted: str, bounds: tuple[str, str]) -> None:
    """The bounds of a range are two numbers of the file, the minimum not above the maximum."""
    low, high = (_bound(rules, dotted, key) for key in bounds)
    if low > high:
        raise rules.error(dotted, f"range: the minimum {low} is above the maximum {high}")


def _bound(rules: RuleFile, dotted: str, key: str) -> Fraction:
    with contextlib.suppress(RuleFileError):  # a table, not a value: no number either
        found = rules.get(key)
        bound = None if found is None else as_number(found.value)
        if bound is not None:
            return bound
    raise rules.error(dotted, f"range: {written(key)} is not a number of this file")


def _check_statute_text(rules: RuleFile) -> None:
    """``game.statute`` names the statute text the file transcribes: one of ours."""
    if rules.get("game.statute") is None:
        return
    name = rules.value_of("game.statute", str)
    if Path(name).name != name or not (STATUTES_DIR / name).is_file():
        known = ", ".join(sorted(p.name for p in STATUTES_DIR.glob("*.txt")))
        raise rules.error("game.statute", f"no statute text {name!r}; known: {known}")


def _toml(path: Path, raw: bytes) -> tuple[str, dict[str, Any]]:
    """A rule file's text (a UTF-8 byte order mark dropped) and its TOML tables."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError(f"{path}: not UTF-8 at byte {exc.start}") from exc
    text = text.removeprefix("\ufeff")
    try:
        return text, toml_input.loads(text, path, RuleFileError)
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(f"{path}: invalid TOML: {exc}") from exc


def _is_value(node: Any) -> bool:
    return isinstance(node, Mapping) and "value" in node


def _paths(data: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], bool]:
    """Every table and rule value of a parsed file: key path -> is a rule value."""
    out: dict[tuple[str, ...], bool] = {}
    for key, node in data.items():
        path = (*prefix, key)
        out[path] = not isinstance(node, Mapping) or _is_value(node)
        if isinstance(node, Mapping) and not _is_value(node):
            out.update(_paths(node, path))
    return out


@cache
def _known_paths(game: str) -> dict[tuple[str, ...], bool]:
    """The tables and values the bundled rule files of ``game`` hold (the schema of a game)."""
    known: dict[tuple[str, ...], bool] = {}
    for bundled in sorted(RULES_DIR.glob("*.toml")):
        _, data = _toml(bundled, bundled.read_bytes())
        game_id = data.get("game", {}).get("id", {})
        if isinstance(game_id, Mapping) and game_id.get("value") == game:
            known.update(_paths(data))
    return known


#: The tables of a stud game's description (a file with a ``[deal]`` table) that may hold keys
#: no bundled file has (a lab's new side bet, a bonus on another category, a progressive): the
#: description (:func:`tablecert.rules.stud.describe`) reads every key in them and refuses the
#: rest.
DESCRIBED_TABLES = ("deal", "qualifier", "decision", "settlement", "side_bets", "progressive")


def _check_known_keys(rules: RuleFile) -> None:
    """Refuse keys and tables that no bundled file of the game holds: nothing reads them."""
    known = _known_paths(rules.game)
    described = "deal" in rules.data
    if not known:
        games = sorted(bundled_games())
        raise rules.error("game.id", f"unknown game {rules.game!r}; known: {', '.join(games)}")
    for path, is_value in _paths(rules.data).items():
        dotted = ".".join(path)
        if any("." in part for part in path):
            raise rules.error(dotted, "a quoted key with a dot in its name: write the tables")
        if described and path[0] in DESCRIBED_TABLES:
            continue
        if path not in known:
            siblings = sorted(k[-1] for k in known if k[:-1] == path[:-1])
            kind = "key" if is_value else "table"
            raise rules.error(
                dotted,
                f"unknown {kind} (nothing reads it); "
                + (f"known here: {', '.join(siblings)}" if siblings else "no such table"),
            )
        if is_value != known[path]:
            expected = "a value" if known[path] else "a table"
            raise rules.error(dotted, f"expected {expected} here")
        if is_value:
            rules.get(dotted)  # the { value = ..., article = "..." } form, checked
