"""Canonical JSON: sorted, UTF-8, exact, and no floats anywhere."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablecert.errors import ReportError
from tablecert.exact import decimal_text
from tablecert.report.canonical import canonical_bytes
from tablecert.report.canonical import json_data as plain


def test_sorted_utf8_compact() -> None:
    data = {"b": [1, (2, 3)], "a": "第八條", "c": {"z": None, "y": True}}
    assert canonical_bytes(data) == (
        '{"a":"第八條","b":[1,[2,3]],"c":{"y":true,"z":null}}'.encode()
    )


def test_exact_values() -> None:
    assert canonical_bytes({"p": Fraction(4, 2598960), "d": Decimal("0.10")}) == (
        b'{"d":"0.10","p":"1/649740"}'
    )
    assert plain(Fraction(3)) == "3/1"


@pytest.mark.parametrize(
    "bad",
    [1.5, {"x": [0.0]}, {"deep": {"er": (1, float("nan"))}}, Decimal("Infinity"), {1: "a"}, b"x"],
)
def test_refuses_inexact_or_non_json(bad: object) -> None:
    with pytest.raises(ReportError):
        canonical_bytes(bad)


def test_float_error_names_where() -> None:
    with pytest.raises(ReportError, match=r"\$\.sections\[1\]\.p: float 0\.5"):
        canonical_bytes({"sections": [{}, {"p": 0.5}]})


def test_decimal_text_rounds_exactly() -> None:
    assert decimal_text(Fraction(4, 2598960), 12) == "0.000001539077"
    assert decimal_text(Fraction(1, 8), 2) == "0.12"  # half to even
    assert decimal_text(Fraction(3, 8), 2) == "0.38"
    assert decimal_text(Fraction(-1, 3), 3) == "-0.333"
    assert decimal_text(Fraction(649740), 0) == "649740"


@given(st.fractions(), st.integers(min_value=0, max_value=30))
def test_decimal_text_within_half_unit(value: Fraction, places: int) -> None:
    text = decimal_text(value, places)
    assert abs(Fraction(text) - value) <= Fraction(1, 2 * 10**places)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_json)
def test_canonical_form_is_a_fixed_point(value: object) -> None:
    once = canonical_bytes(value)
    assert canonical_bytes(json.loads(once)) == once
