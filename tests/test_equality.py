"""Result objects compare by contents: arrays by shape and values (NaN equal to NaN), nested
dataclasses field by field; and comparing results that hold no array needs no NumPy."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tablecert.equality import ContentEq, same
from tests.support.imports_probe import modules_imported


@dataclass(frozen=True, eq=False)
class _Result(ContentEq):
    counts: np.ndarray
    share: float
    inner: tuple[int, ...] = field(default=())


def test_arrays_compare_by_contents() -> None:
    a = _Result(np.array([1.0, np.nan]), float("nan"), (1, 2))
    assert a == _Result(np.array([1.0, np.nan]), float("nan"), (1, 2))
    assert a != _Result(np.array([1.0, 2.0]), float("nan"), (1, 2))
    assert a != _Result(np.array([[1.0, np.nan]]), float("nan"), (1, 2))  # shape
    assert not same(np.array([1, 2]), [1, 2])  # an array is never a list
    assert not same([1, 2], np.array([1, 2]))
    assert hash(a) == hash(_Result(np.array([0.0]), 0.0))


def test_comparing_without_arrays_imports_no_numpy() -> None:
    probe = (
        "from tablecert.equality import same\n"
        "assert same({'a': [1.0, float('nan')]}, {'a': [1.0, float('nan')]})\n"
        "assert not same((1,), [1])"
    )
    assert modules_imported(probe, ["numpy"]) == []
    assert modules_imported("import numpy", ["numpy"]) == ["numpy"]  # the probe sees imports
