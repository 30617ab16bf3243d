"""Canonical JSON: one byte sequence per value, so a report can be hashed, signed and compared.

The compact form is the JSON Canonicalization Scheme (RFC 8785, JCS): keys sorted by their
UTF-16 code units, UTF-8, no insignificant whitespace, strings escaped as ECMAScript does. It is
also I-JSON (RFC 7493): integers beyond 2^53 - 1 in magnitude, which JavaScript and jq readers
silently round and JCS refuses, are written as decimal strings. Floats are refused everywhere:
exact values travel as ``Fraction`` (written ``"n/d"``), ``Decimal`` (written as its string) or
integers, so nothing is rounded on the way to the signature. Tuples become arrays; dataclasses
and other objects must be converted first. How each number is written is the number dialect of
:mod:`tablecert.exact`; this module only puts the bytes in their one order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from tablecert.errors import ReportError
from tablecert.exact import exact_int, fraction_text


def json_data(value: Any, where: str = "$") -> Any:
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
            out[key] = json_data(item, f"{where}.{key}")
        return out
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [json_data(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise ReportError(f"{where}: {type(value).__name__} is not JSON report data")


def jcs_order(value: Any) -> Any:
    """Objects with their keys in JCS order (UTF-16 code units, RFC 8785 section 3.2.3)."""
    if isinstance(value, dict):
        return {k: jcs_order(value[k]) for k in sorted(value, key=lambda k: k.encode("utf-16-be"))}
    if isinstance(value, list):
        return [jcs_order(v) for v in value]
    return value


def canonical_bytes(value: Any) -> bytes:
    """The compact canonical form (RFC 8785): what is signed and hashed."""
    return json.dumps(
        jcs_order(json_data(value)), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")
