"""How a value reads in a report and on a terminal: no Python reprs, numerals grouped,
names listed after their noun.

A leaf (no Jinja2, no report machinery), so that a command printing a value (``check``)
does not import the HTML renderer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["display", "grouped", "named"]


def display(value: Any) -> str:
    """A value as a reader writes it: no Python reprs (None, lists, dicts, True)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(display(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {display(v)}" for k, v in value.items()) or "none"
    if isinstance(value, Fraction):
        return str(value)
    return str(value)


def grouped(number: str) -> str:
    """A decimal numeral with thousands separators in its integer part (1234567.5 ->
    1,234,567.5)."""
    sign, digits = ("-", number[1:]) if number.startswith("-") else ("", number)
    whole, dot, frac = digits.partition(".")
    if not whole.isdigit():
        return number
    return f"{sign}{int(whole):,}{dot}{frac}"


def named(noun: str, names: Sequence[str], none: str, most: int = 5) -> str:
    """``"devices SM-1, SM-2"``: ``names`` after their noun (plural from two), the first
    ``most`` and how many more; ``none`` when there are none."""
    if not names:
        return none
    shown = ", ".join(names[:most])
    if len(names) > most:
        shown += f" and {len(names) - most:,} more"
    return f"{noun}{'s' if len(names) > 1 else ''} {shown}"
