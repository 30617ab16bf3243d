"""Canonical JSON: one byte sequence per value, so a report can be hashed, signed and compared.

Keys sorted, UTF-8 (no ``\\u`` escapes), no insignificant whitespace in the compact form.
Floats are refused everywhere: exact values travel as ``Fraction`` (written ``"n/d"``),
``Decimal`` (written as its string) or integers, so nothing is rounded on the way to the
signature. Tuples become arrays; dataclasses and other objects must be converted first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from tablecert.errors import ReportError


def plain(value: Any, where: str = "$") -> Any:
    """``value`` as plain JSON types (dict, list, str, int, bool, None); floats are an error."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        raise ReportError(
            f"{where}: float {value!r} in report data; use Fraction, Decimal or an integer"
        )
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ReportError(f"{where}: non-finite Decimal {value} in report data")
        return str(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ReportError(f"{where}: object key {key!r} is not a string")
            out[key] = plain(item, f"{where}.{key}")
        return out
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise ReportError(f"{where}: {type(value).__name__} is not JSON report data")


def fraction_text(value: Fraction) -> str:
    """An exact fraction as ``"n/d"`` (``"3/1"`` for integers, so the type never changes)."""
    return f"{value.numerator}/{value.denominator}"


def decimal_text(value: Fraction, places: int) -> str:
    """``value`` rounded half-even to ``places`` decimals, by integer arithmetic (display)."""
    scaled = value * 10**places
    whole = round(scaled)  # Fraction rounds half to even, exactly
    sign = "-" if whole < 0 else ""
    digits = str(abs(whole)).rjust(places + 1, "0")
    if places == 0:
        return f"{sign}{digits}"
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def float_decimal(value: float | None, digits: int = 6) -> Decimal | None:
    """A float measured elsewhere (a p-value, a statistic) as a Decimal of ``digits``
    significant digits, so report data stays exact text; None stays None."""
    if value is None:
        return None
    if not math.isfinite(value):
        raise ReportError(f"non-finite value {value!r} in report data")
    return Decimal(format(value, f".{digits - 1}e")).normalize() if value else Decimal(0)


def canonical_bytes(value: Any) -> bytes:
    """The compact canonical form: what is signed and hashed."""
    return json.dumps(
        plain(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def canonical_pretty(value: Any) -> bytes:
    """The same data, sorted and exact, indented for people; ends with a newline."""
    text = json.dumps(plain(value), ensure_ascii=False, sort_keys=True, indent=2, allow_nan=False)
    return (text + "\n").encode("utf-8")
