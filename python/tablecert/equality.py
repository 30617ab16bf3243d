"""Result objects compare equal when their contents are equal.

Frozen results hold NumPy arrays (tallies, p-values) and nested results; the ``==`` dataclasses
generate fails on arrays (``The truth value of an array ... is ambiguous``) and ``eq=False``
compares identity. :class:`ContentEq` compares field by field: arrays by shape and values, floats
with NaN equal to NaN, containers and nested dataclasses recursively.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any


def same(a: Any, b: Any) -> bool:
    """Whether two result values have equal contents."""
    if a is b:
        return True
    # A value can only be an array once NumPy is imported: commands whose results hold none
    # (``check``) need not import it for this.
    np = sys.modules.get("numpy")
    if np is not None and (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
        )
    if is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if f.compare
        )
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


class ContentEq:
    """Mixin for ``@dataclass(frozen=True, eq=False)`` results: ``==`` by contents. Instances
    stay hashable (by type only: equal contents, equal hash), e.g. as cache keys."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return same_fields(self, other)

    def __hash__(self) -> int:
        return hash(type(self).__qualname__)


def same_fields(a: Any, b: Any) -> bool:
    return all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if f.compare)
