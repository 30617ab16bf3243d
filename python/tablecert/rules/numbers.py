"""Rule and submitted values as exact numbers.

A value is a number when it is an integer, a decimal as written (read as ``Decimal``, never a
float) or a ``"p/q"`` string; everything the rules layer compares or computes with goes
through :func:`number`, so ``1.5``, ``"3/2"`` and ``"6/4"`` are one value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

#: A fraction as the rule files write it: ``"-1/2"``, ``"3"`` (spaces allowed).
FRACTION = re.compile(r"\s*([-+]?\d+)(?:\s*/\s*(\d+))?\s*")


def number(value: Any) -> Fraction | None:
    """A submitted or statute value as an exact fraction (an integer, a decimal as written, a
    ``"3/2"`` string), or None if it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if isinstance(value, str):
        match = FRACTION.fullmatch(value)
        if match and int(match.group(2) or 1) != 0:
            return Fraction(int(match.group(1)), int(match.group(2) or 1))
    return None


def _map_numbers(value: Any, convert: Callable[[Fraction], Any]) -> Any:
    """``value`` with every number in it (nested in lists and tables too) converted."""
    found = number(value)
    if found is not None:
        return convert(found)
    if isinstance(value, list):
        return [_map_numbers(v, convert) for v in value]
    if isinstance(value, Mapping):
        return {k: _map_numbers(v, convert) for k, v in value.items()}
    return value


def normalise(value: Any) -> Any:
    """Numbers compare as exact fractions, lists and tables element by element."""
    return _map_numbers(value, lambda f: f)


def canonical(value: Any) -> Any:
    """A submitted value in the rule files' own form: numbers as int or ``"p/q"``."""
    return _map_numbers(value, lambda f: int(f) if f.denominator == 1 else str(f))


def plain(value: Any) -> Any:
    """A value as JSON can hold it: fractions and decimals as their text."""
    if isinstance(value, Fraction | Decimal):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
