"""Read a rule file: every value is ``{ value = ..., article = "第N條" }`` and keeps its article.

Errors name the file, the dotted key and the line it is on, so a lab writing its own variant
file can find the mistake.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tablecert.bundled import BundledDataError, bundled_rule_file
from tablecert.errors import RuleFileError


@dataclass(frozen=True)
class RuleValue:
    """One rule value and the statute article it comes from."""

    value: Any
    article: str
    reading: bool = False
    note: str = ""


@dataclass(frozen=True, eq=False)
class RuleFile:
    """A parsed rule file: its raw tables, where it came from and its SHA-256."""

    path: Path
    data: Mapping[str, Any]
    sha256: str
    lines: tuple[str, ...] = field(repr=False)

    @property
    def game(self) -> str:
        return str(self.require("game.id").value)

    @property
    def variant(self) -> str:
        return str(self.require("game.variant").value)

    def line_of(self, dotted: str) -> int | None:
        """The 1-based line where a dotted key is defined (by its table headers), if found."""
        table = ""
        for number, line in enumerate(self.lines, start=1):
            header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]", line)
            if header:
                table = header.group(1).replace('"', "")
                if table == dotted:
                    return number
                continue
            key = re.match(r'^\s*"?([\w-]+)"?\s*=', line)
            if key and (f"{table}.{key.group(1)}" if table else key.group(1)) == dotted:
                return number
        last = dotted.split(".")[-1]
        pattern = re.compile(rf"^\s*\"?{re.escape(last)}\"?\s*=|^\s*\[.*\b{re.escape(last)}\]")
        for number, line in enumerate(self.lines, start=1):
            if pattern.search(line):
                return number
        return None

    def error(self, dotted: str, message: str) -> RuleFileError:
        line = self.line_of(dotted)
        where = f"{self.path}:{line}" if line else str(self.path)
        return RuleFileError(f"{where}: {dotted}: {message}")

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
            raise self.error(dotted, f"expected {_kind_name(kind)}, got {value!r}")
        if not isinstance(value, kind):
            raise self.error(dotted, f"expected {_kind_name(kind)}, got {value!r}")
        return value

    def choice(self, dotted: str, allowed: tuple[str, ...]) -> str:
        value = self.value_of(dotted, str)
        if value not in allowed:
            raise self.error(dotted, f"{value!r} is not one of {', '.join(allowed)}")
        return str(value)

    def _as_rule_value(self, dotted: str, node: Any) -> RuleValue:
        if not isinstance(node, Mapping) or "value" not in node:
            raise self.error(dotted, 'expected { value = ..., article = "..." }')
        article = node.get("article")
        if not isinstance(article, str) or not article:
            raise self.error(dotted, 'every rule value must cite its article (article = "...")')
        unknown = set(node) - {"value", "article", "reading", "note"}
        if unknown:
            raise self.error(dotted, f"unknown field(s) {', '.join(sorted(unknown))}")
        return RuleValue(
            value=node["value"],
            article=article,
            reading=bool(node.get("reading", False)),
            note=str(node.get("note", "")),
        )


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def read_utf8(path: Path, error: type[Exception], what: str) -> tuple[bytes, str]:
    """A small input file's bytes (for its digest) and its text; ``error`` names the file and
    what is wrong (cannot be read, or the byte where it stops being UTF-8)."""
    try:
        raw = path.read_bytes()
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

    A file is parsed once per content: loading it again returns the same object.
    """
    if not isinstance(source, str | os.PathLike):
        raise RuleFileError(f"expected a rule file path or bundled name, got {source!r}")
    path = Path(source)
    if not path.exists() and path.suffix != ".toml" and len(path.parts) == 1:
        path = bundled_rule_path(str(source))
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RuleFileError(f"{path}: cannot read rule file: {exc.strerror}") from exc
    return _parse(path, raw)


@cache
def _parse(path: Path, raw: bytes) -> RuleFile:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError(f"{path}: not UTF-8 at byte {exc.start}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(f"{path}: invalid TOML: {exc}") from exc
    rules = RuleFile(
        path=path,
        data=data,
        sha256=hashlib.sha256(raw).hexdigest(),
        lines=tuple(text.splitlines()),
    )
    rules.require("game.id")
    rules.require("game.variant")
    return rules
