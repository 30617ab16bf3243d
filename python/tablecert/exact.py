"""Exact numbers as every JSON of tablecert writes them: the number dialect.

Exact values travel as ``Fraction`` (written ``"n/d"``), ``Decimal`` (written as its string) or
integers, so nothing is rounded between the computation and the signature; floats measured
elsewhere (p-values, statistics) are written as decimal strings of six significant digits.
Integers beyond 2^53 - 1 in magnitude, which JavaScript and jq readers silently round, are
written as decimal strings (I-JSON, RFC 7493). This module is a leaf: the audit, game and
rounds layers write their JSON with it without depending on the report package, which keeps
only the canonical bytes (:mod:`tablecert.report.canonical`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from tablecert.errors import ReportError

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
