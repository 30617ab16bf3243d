"""Canonical JSON: one byte sequence per value, so a report can be hashed, signed and compared.

The compact form is the JSON Canonicalization Scheme (RFC 8785, JCS): keys sorted by their
UTF-16 code units, UTF-8, no insignificant whitespace, strings escaped as ECMAScript does. It is
also I-JSON (RFC 7493): integers beyond 2^53 - 1 in magnitude, which JavaScript and jq readers
silently round and JCS refuses, are written as decimal strings. Floats are refused everywhere:
exact values travel as ``Fraction`` (written ``"n/d"``), ``Decimal`` (written as its string) or
integers, so nothing is rounded on the way to the signature. Tuples become arrays; dataclasses
and other objects must be converted first.
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
        return exact_int(value)
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


#: The largest integer every JSON reader holds exactly (RFC 7493 section 2.2).
MAX_EXACT_INT = 2**53 - 1


def exact_int(value: int) -> int | str:
    """An integer as I-JSON allows it: itself within +-(2^53 - 1), else its decimal string."""
    return int(value) if -MAX_EXACT_INT <= value <= MAX_EXACT_INT else str(int(value))


def i_json(value: Any) -> Any:
    """JSON data (as ``json.loads`` gives it, floats allowed) with every integer beyond
    2^53 - 1 in magnitude written as a string: the I-JSON form of every ``--json`` output."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return exact_int(value)
    if isinstance(value, Mapping):
        return {k: i_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [i_json(v) for v in value]
    return value


def jcs_order(value: Any) -> Any:
    """Objects with their keys in JCS order (UTF-16 code units, RFC 8785 section 3.2.3)."""
    if isinstance(value, dict):
        return {k: jcs_order(value[k]) for k in sorted(value, key=lambda k: k.encode("utf-16-be"))}
    if isinstance(value, list):
        return [jcs_order(v) for v in value]
    return value


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


def measured(value: float | None) -> str | None:
    """A float measured elsewhere (a p-value, a statistic, a level) as every JSON of tablecert
    writes it, the CLI's and report.json's alike: the decimal string of
    :func:`float_decimal` (six significant digits), None staying null."""
    exact = float_decimal(value)
    return None if exact is None else str(exact)


#: Decimal places of the ``decimal`` member of an exact value (:func:`exact_json`).
EXACT_JSON_PLACES = 12


def exact_json(value: Fraction) -> dict[str, str]:
    """An exact value (a probability, a house edge, a return) as every JSON of tablecert writes
    it: ``{"exact": "n/d", "decimal": "0.000001539077"}`` (12 places, half-even; for people)."""
    return {"exact": fraction_text(value), "decimal": decimal_text(value, EXACT_JSON_PLACES)}


def canonical_bytes(value: Any) -> bytes:
    """The compact canonical form (RFC 8785): what is signed and hashed."""
    return json.dumps(
        jcs_order(plain(value)), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")
