"""JSON from outside, read strictly: duplicate keys, NaN and Infinity, huge or deep values are
errors naming the source and line, never silently accepted or a traceback."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tablecert.io.locate import bracket_depth, json_key_line

MAX_DEPTH = 32
MAX_INT_DIGITS = 30


class StrictJsonError(ValueError):
    """Text that is not strict JSON; the message names the source and line."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise StrictJsonError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise StrictJsonError(f"number {text[:40]}... has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` (``\\ud800`` escapes decode to one): not text,
    and I-JSON (RFC 7493) forbids it."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text[exc.start]
    return None


def _depth(value: Any) -> int:
    """How deeply ``value`` nests; a lone surrogate in any key or string is an error."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        strings = [node] if isinstance(node, str) else list(node) if isinstance(node, dict) else []
        for text in strings:
            bad = _lone_surrogate(text)
            if bad is not None:
                raise StrictJsonError(
                    f"a string holds a lone surrogate (U+{ord(bad):04X}), which is not a character"
                )
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return deepest


def loads(
    text: str, source: str, first_line: int = 1, parse_float: Callable[[str], Any] = float
) -> Any:
    """Parse ``text`` (from ``source``, starting at line ``first_line``) strictly;
    ``parse_float=decimal.Decimal`` keeps decimals exactly as written."""
    text = text.removeprefix("\ufeff")  # a byte order mark is no part of the JSON text
    opened = max(text.count("["), text.count("{"))
    if opened > 10 * MAX_DEPTH and bracket_depth(text)[1] > MAX_DEPTH:
        raise StrictJsonError(f"{source}:{first_line}: nested deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_int=_int,
            parse_float=parse_float,
        )
    except json.JSONDecodeError as exc:
        line = first_line + exc.lineno - 1
        raise StrictJsonError(f"{source}:{line}: invalid JSON: {exc.msg}") from exc
    except StrictJsonError as exc:
        line = _line_of_problem(text, str(exc), first_line)
        raise StrictJsonError(f"{source}:{line}: {exc}") from exc
    except RecursionError as exc:
        raise StrictJsonError(f"{source}:{first_line}: nested too deeply") from exc
    try:
        depth = _depth(value)
    except StrictJsonError as exc:
        line = _line_of_problem(text, str(exc), first_line)
        raise StrictJsonError(f"{source}:{line}: {exc}") from exc
    if depth > MAX_DEPTH:
        raise StrictJsonError(f"{source}:{first_line}: nested deeper than {MAX_DEPTH} levels")
    return value


def _line_of_problem(text: str, message: str, first_line: int) -> int:
    """The line of a duplicate key (its second occurrence) or of a bad constant."""
    key = re.match(r"duplicate key '(.*)'$", message)
    if key:
        second = json_key_line(text, key.group(1), first_line, occurrence=1)
        found = second if second is not None else json_key_line(text, key.group(1), first_line)
        if found is not None:
            return found
    surrogate = re.search(r"lone surrogate \(U\+([0-9A-F]{4})", message)
    if surrogate:
        escape = re.compile(rf"\\u{surrogate.group(1)}", re.IGNORECASE)
        for i, line in enumerate(text.splitlines()):
            if escape.search(line):
                return first_line + i
    digits = re.match(r"number (\d+)\.\.\. has more than", message)
    if digits:
        for i, line in enumerate(text.splitlines()):
            if digits.group(1) in line:
                return first_line + i
    for word in ("NaN", "-Infinity", "Infinity"):
        if message.startswith(word):
            for i, line in enumerate(text.splitlines()):
                if word in line:
                    return first_line + i
    return first_line


def line_of_key(text: str, key: str, first_line: int = 1) -> int:
    """The line where the key ``key`` is first written in a JSON text, at any depth
    (``first_line`` if it is not)."""
    found = json_key_line(text, key, first_line)
    return first_line if found is None else found
