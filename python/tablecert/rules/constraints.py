"""The constraints a statute puts on a value, as the rule files write them beside it.

A rule value is ``{ value = ..., article = "..." }``; these optional fields say what the
statute allows a casino to submit in its place (``tablecert check``):

``house_choice = true``
    The statute leaves the value to the house: a submitted value is recorded and its effect
    on the return computed, never judged.
``range = ["minimum key", "maximum key"]``
    The house chooses within the bounds held by two other values of the same file (numbers);
    those bounds are the statute's text and cannot be submitted themselves.
``duty = "..."``
    What the statute requires of a house using the submitted value (an approval to obtain):
    an open point of the certificate whatever the verdict.
``kind = "count" | "whole" | "positive" | "amount" | "share" | "share-below-one"``
    What a number can be at all (:data:`KINDS`): a submitted value outside is judged
    ``deviates`` with the reason, since nothing can be computed under it.
``at_least = true``
    The statute's value is a minimum: a submitted value conforms when it is at least that.
``one_of = true``
    The statute's value is a list of names the house chooses one of.
``submittable = false``
    The value is the statute's own text (a description, not a setting): a submission that
    sets it is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from tablecert.rules.numbers import number, plain

#: The fields of a rule value besides ``value`` and ``article``, and the Python type each is.
FIELDS: dict[str, type] = {
    "reading": bool,
    "note": str,
    "house_choice": bool,
    "range": list,
    "duty": str,
    "kind": str,
    "at_least": bool,
    "one_of": bool,
    "submittable": bool,
}

_Bound = Callable[[Fraction], str | None]


def _whole(value: Fraction) -> str | None:
    return f"{value} is not a whole number" if value.denominator != 1 else None


def _positive(value: Fraction) -> str | None:
    return f"{value} is not positive" if value <= 0 else None


def _not_negative(value: Fraction) -> str | None:
    return f"{value} is negative" if value < 0 else None


def _at_most_one(value: Fraction) -> str | None:
    return f"{value} is a share above 1 (all of it)" if value > 1 else None


def _below_one(value: Fraction) -> str | None:
    return f"{value} is not a share of each bet (it must be below 1)" if value >= 1 else None


#: What each ``kind`` allows, checked in this order (the first failure is the reason).
KINDS: dict[str, tuple[_Bound, ...]] = {
    "count": (_whole, _positive),  # a whole number of at least 1
    "whole": (_whole, _not_negative),  # a whole number, 0 or more
    "positive": (_positive,),  # a number above 0
    "amount": (_not_negative,),  # a number, 0 or more
    "share": (_not_negative, _at_most_one),  # 0 to 1 (all of it)
    "share-below-one": (_not_negative, _below_one),  # 0 up to, not including, 1
}


def kind_problem(kind: str | None, value: Fraction) -> str | None:
    """Why ``value`` cannot be a number of this kind (None: it can, or there is no kind)."""
    for bound in KINDS.get(kind or "", ()):
        problem = bound(value)
        if problem:
            return problem
    return None


def describe(value: Any) -> str:
    """A submitted value as a reason names it: a name quoted, a list or table by its shape."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return str(plain(value))


def invalid(
    expected: Any, submitted: Any, kind: str | None = None, one_of: bool = False
) -> str | None:
    """Why a submitted value cannot be what the statute's value is (None: it can): a name
    among the statute's choices, a number for a number (of the value's kind), the same kind
    of list or table."""
    if one_of:
        if not isinstance(submitted, str):
            return (
                f"expected one name ({' or '.join(map(str, expected))}), got {describe(submitted)}"
            )
        return None
    if number(expected) is not None:
        value = number(submitted)
        if value is None:
            return f"{describe(submitted)} is not a number: nothing can be computed under it"
        return kind_problem(kind, value)
    if isinstance(expected, bool):
        return (
            None if isinstance(submitted, bool) else f"{describe(submitted)} is not true or false"
        )
    if isinstance(expected, str):
        return (
            None
            if isinstance(submitted, str)
            else f"expected a name like {expected!r}, got {describe(submitted)}"
        )
    if isinstance(expected, list):
        return _list_problem(expected, submitted)
    if isinstance(expected, Mapping):
        if not isinstance(submitted, Mapping):
            return f"expected a table like {plain(expected)}, got {describe(submitted)}"
        extra = sorted(set(submitted) - set(expected))
        if extra:
            return (
                f"unknown entr{'y' if len(extra) == 1 else 'ies'} {', '.join(extra)} (the "
                f"statute's table has {', '.join(expected)})"
            )
    return None


def _list_problem(expected: list[Any], submitted: Any) -> str | None:
    if not isinstance(submitted, list):
        return f"expected a list like {plain(expected)}, got {describe(submitted)}"
    if expected and isinstance(expected[0], list):  # rows, e.g. payment.limits
        width = len(expected[0])
        for i, row in enumerate(submitted, start=1):
            if not isinstance(row, list) or len(row) != width:
                return f"row {i} is not a list of {width} values"
            if any(number(v) is None for v in row) and all(
                number(v) is not None for v in expected[0]
            ):
                return f"row {i} has a value that is not a number"
    return None
