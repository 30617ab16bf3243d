"""Where each key of a JSON or TOML text is written: one locator per format.

Errors about a file from outside name the line of the key they are about; every reader asks
here, so a key is found on the same line whichever reader reports it. Both locators read the
text itself (the parsers keep no positions) and only ever point at a line: what a key means
is the parser's business.

- :func:`json_keys`: every key of a JSON text, as (path of keys, line), in file order;
- :func:`toml_keys`: every table header and key of a TOML text, the same way;
- :func:`toml_key_lines`: the first line of every dotted key and table of a TOML text;
- :func:`toml_blocks`: each table as written (the n-th of an array of tables too) and its keys;
- :func:`bracket_depth`: how far a text opens or closes arrays and objects, strings skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

KeyPath = tuple[str, ...]

_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def json_keys(text: str) -> list[tuple[KeyPath, int]]:
    """Every key a JSON text defines as (its path of keys from the top, 1-based line), in file
    order, each time it is written. An array adds nothing to the path (its elements' keys
    carry the array's key). The text need not be valid JSON: a malformed text yields the
    keys up to where it stops making sense."""
    out: list[tuple[KeyPath, int]] = []
    stack: list[tuple[bool, KeyPath]] = []  # (is object, path)
    key: str | None = None
    last: tuple[str, int] | None = None
    line, pos = 1, 0
    for match in _JSON_TOKEN.finditer(text):
        line += text.count("\n", pos, match.start())
        pos = match.start()
        token = match.group()
        if token in "{[":
            path = stack[-1][1] if stack else ()
            if stack and stack[-1][0] and key is not None:
                path = (*path, key)
            stack.append((token == "{", path))
            key = None
        elif token in "}]":
            if stack:
                stack.pop()
            key = None
        elif token == ":" and last is not None and stack and stack[-1][0]:
            key = last[0]
            out.append(((*stack[-1][1], key), last[1]))
        elif token == ",":
            key = None
        if token.startswith('"'):
            try:
                last = (str(json.loads(token)), line)
            except ValueError:
                last = (token, line)
        else:
            last = None
    return out


def json_key_line(text: str, key: str, first_line: int = 1, occurrence: int = 0) -> int | None:
    """The line of the ``occurrence``-th (from 0) key named ``key`` at any depth of a JSON
    text that starts at line ``first_line``; None when it is not written that often."""
    lines = [line for path, line in json_keys(text) if path[-1] == key]
    return first_line + lines[occurrence] - 1 if len(lines) > occurrence else None


_BARE_KEY = r"[A-Za-z0-9_-]+"
_KEY_PART = rf'(?:{_BARE_KEY}|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = re.compile(rf"\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*")
_HEADER = re.compile(rf"\s*\[\[?{_DOTTED.pattern}\]\]?")


def _split_key(text: str) -> list[str]:
    parts = re.findall(_KEY_PART, text)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


def toml_keys(lines: tuple[str, ...]) -> Iterator[tuple[list[str], int]]:
    """Every table header and key of a TOML text as (dotted parts, 1-based line), in file
    order, each time it is written (a key written twice appears twice). Lines inside a
    multi-line array, inline table or string are skipped."""
    for parts, number, _header in _toml_lines(lines):
        yield parts, number


def _toml_lines(lines: tuple[str, ...]) -> Iterator[tuple[list[str], int, bool]]:
    """:func:`toml_keys`, each with whether it is a table header."""
    table: list[str] = []
    depth = 0
    in_string = False
    for number, line in enumerate(lines, start=1):
        if in_string:
            in_string = line.count('"""') % 2 == 0
            continue
        if depth == 0:
            header = _HEADER.match(line)
            assignment = _DOTTED.match(line)
            if header:
                table = _split_key(header.group(1))
                yield table, number, True
                continue
            if assignment and line[assignment.end() : assignment.end() + 1] == "=":
                yield table + _split_key(assignment.group(1)), number, False
        depth += bracket_depth(line, toml=True)[0]
        in_string = line.count('"""') % 2 == 1


@cache
def toml_key_lines(lines: tuple[str, ...]) -> dict[str, int]:
    """The line of every table header and key in a TOML text: dotted path -> 1-based line.

    A table known only through its sub-tables or dotted keys gets the line of the first one.
    Lines inside a multi-line array or string are skipped.
    """
    found: dict[str, int] = {}
    for parts, number in toml_keys(lines):
        for i in range(1, len(parts) + 1):
            found.setdefault(".".join(parts[:i]), number)
    return found


@dataclass(frozen=True)
class TomlBlock:
    """One table of a TOML text as written: its header's dotted parts (``()`` for the keys
    before the first header), the header's line (0 for those), and the first line of each key
    written directly under it (a dotted key ``a.b = ...`` under its first part ``a``). The
    n-th ``[[t]]`` of an array of tables is the n-th block named ``t``."""

    table: KeyPath
    line: int
    keys: dict[str, int]


def toml_blocks(lines: tuple[str, ...]) -> list[TomlBlock]:
    """Every table header of a TOML text and the keys under it, in file order."""
    blocks = [TomlBlock((), 0, {})]
    for parts, number, header in _toml_lines(lines):
        if header:
            blocks.append(TomlBlock(tuple(parts), number, {}))
        else:
            block = blocks[-1]
            blocks[-1].keys.setdefault(parts[len(block.table)], number)
    return blocks


def bracket_depth(text: str, *, toml: bool = False) -> tuple[int, int]:
    """(net, deepest): how far ``text`` opens (+) or closes (-) arrays and objects, and the
    deepest it reaches, strings skipped: JSON strings (``"..."`` with backslash escapes), and
    with ``toml`` also literal strings (``'...'``, no escapes) and comments (``#`` to the end
    of the line)."""
    depth = deepest = 0
    quote = ""
    escaped = comment = False
    for char in text:
        if comment:
            comment = char != "\n"
        elif quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char == '"' or (toml and char == "'"):
            quote = char
        elif toml and char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return depth, deepest
