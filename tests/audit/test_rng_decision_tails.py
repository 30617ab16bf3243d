"""The NIST decision's proportion tails equal scipy.stats.binom.cdf bit for bit: they are
computed with tablecert.stats.pvalues (scipy.special alone) so `audit rng` starts without
scipy.stats."""

from __future__ import annotations

import pytest
from scipy import stats

from tablecert.audit import rng as nist
from tablecert.audit.rng_decision import proportion_tail


def column(passed: int, sample_size: int) -> nist.ColumnResult:
    return nist.ColumnResult("Frequency", "", (0,) * 10, sample_size, passed, (0.0, 1.0), None)


@pytest.mark.parametrize("alpha", [0.01, 0.001, 0.05, 0.2])
@pytest.mark.parametrize("sample_size", [1, 2, 10, 55, 100, 1000, 10_000])
def test_proportion_tail_is_scipy_binom_cdf(sample_size: int, alpha: float) -> None:
    for passed in sorted({0, 1, sample_size // 2, sample_size - 3, sample_size - 1, sample_size}):
        if passed < 0:
            continue
        got = proportion_tail(column(passed, sample_size), alpha)
        want = float(stats.binom.cdf(passed, sample_size, 1 - alpha))
        assert got == want, (passed, sample_size, alpha)
        assert type(got) is float


def test_proportion_tail_of_an_empty_column_is_none() -> None:
    assert proportion_tail(column(0, 0), 0.01) is None
