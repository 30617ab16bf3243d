"""The battery's results are the recorded ones to the bit: every field of every CheckResult
(floats by ``repr``), the rejections and the second level, on every case of
``tests/support/battery_golden.py`` (fixture recorded from the battery before its per-batch
constants were cached)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tablecert.audit.battery import _Runs, _smallest
from tablecert.stats import pvalues
from tests.support.battery_golden import CASES, GOLDEN, Case, pool_results, run_case

RECORDED: dict[str, Any] = json.loads(GOLDEN.read_text())


def test_the_fixture_covers_every_case() -> None:
    assert list(RECORDED) == ["pool", *(case.name for case in CASES)]


def test_pooling_is_bit_identical() -> None:
    """Pooled cells, their expected counts (every float) and the goodness of fit."""
    got, want = pool_results(), RECORDED["pool"]
    assert len(got) == len(want) == 303
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g == w, f"input {i}"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_battery_results_are_bit_identical(case: Case) -> None:
    got, want = run_case(case), RECORDED[case.name]
    assert len(got["batches"]) == len(want["batches"])
    for i, (g, w) in enumerate(zip(got["batches"], want["batches"], strict=True)):
        assert g == w, f"batch {i}"
    assert got["whole"] == want["whole"]
    assert got["second_level"] == want["second_level"]


def test_runs_sum_each_run_as_np_sum_does() -> None:
    """One reduceat over runs laid out after zeros gives each run's own np.sum, bit for bit,
    for every run length (pairwise summation changes shape at 8 and 128 values)."""
    rng = np.random.default_rng(5)
    lengths = [*range(1, 300), 1377, 2652, 4000]
    flat = rng.integers(0, 400, size=sum(lengths) + 7).astype(np.int64)
    runs, first = [], 7
    for length in lengths:
        runs.append((first, length, float(rng.uniform(1, 300))))
        first += length
    got = _Runs.of(runs).pearson(flat)
    want = [float(np.sum((flat[f : f + m] - e) ** 2) / e) for f, m, e in runs]
    assert got.tolist() == want


def test_smallest_is_the_stable_argsort_ties_in_index_order() -> None:
    rng = np.random.default_rng(6)
    for trial in range(400):
        shape = (52, 52) if trial % 2 else (int(rng.integers(1, 40)),)
        values = -np.abs(rng.integers(-30, 30, size=shape) / 7.0)  # many ties
        if trial % 3 == 0:
            values = rng.standard_normal(shape)  # none
        if trial % 5 == 0:
            values.reshape(-1)[rng.integers(0, values.size)] = np.nan
        if trial % 7 == 0:
            values.reshape(-1)[: values.size // 2] = 0.0
            values.reshape(-1)[0] = -0.0
        if trial % 11 == 0:
            values.reshape(-1)[rng.integers(0, values.size, size=3)] = np.inf
            values.reshape(-1)[: values.size // 3] = np.inf
        k = int(rng.integers(1, 5))
        want = np.argsort(values, axis=None, kind="stable")[:k]
        assert _smallest(values, k).tolist() == want.tolist()


def test_distinct_values_is_np_unique() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        size = int(rng.integers(0, 3000))
        spread = 10 ** int(rng.integers(0, 9))
        ints = rng.integers(0, spread, size=size).astype(np.int64) + int(rng.integers(0, 99))
        values = ints.astype(np.float64).reshape(-1, 1) if size % 2 else ints
        distinct, inverse = pvalues.distinct_values(values)
        want, want_inverse = np.unique(values, return_inverse=True)
        assert distinct.dtype == want.dtype
        assert distinct.tolist() == want.tolist()
        assert inverse.tolist() == want_inverse.reshape(-1).tolist()
