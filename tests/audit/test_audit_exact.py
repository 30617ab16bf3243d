"""The exact null laws of the battery, against brute-force enumeration and published values."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product
from math import factorial

import pytest

from tablecert.audit import exact
from tablecert.stats import gof, holm, pool
from tests.reference import permutation_reference as ref


@pytest.mark.parametrize("n", range(1, 8))
def test_laws_match_enumeration(n: int) -> None:
    assert list(exact.eulerian(n)) == [ref.law(n, ref.descents)[k] for k in range(n)]
    assert list(exact.rencontres(n)) == [ref.law(n, ref.fixed_points)[k] for k in range(n + 1)]
    assert list(exact.successions(n)) == [ref.law(n, ref.successions)[k] for k in range(n)]
    peaks = exact.interior_peaks(n)
    assert list(peaks) == [ref.law(n, ref.valleys)[k] for k in range(len(peaks))]
    assert list(peaks) == [ref.law(n, ref.peaks)[k] for k in range(len(peaks))]
    for law in (exact.eulerian(n), exact.rencontres(n), exact.successions(n), peaks):
        assert sum(law) == factorial(n)
    assert sum(exact.stirling_cycles(n)) == factorial(n)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_moments_match_enumeration(n: int) -> None:
    perms = list(permutations(range(n)))

    def moments(values: list[int]) -> tuple[Fraction, Fraction]:
        m = Fraction(sum(values), len(values))
        return m, Fraction(sum(v * v for v in values), len(values)) - m * m

    assert exact.footrule_moments(n) == moments([ref.footrule(p) for p in perms])
    assert exact.serial_moments(tuple(range(n))) == moments([ref.serial(p) for p in perms])


@pytest.mark.parametrize(("kinds", "copies"), [(2, 2), (3, 2), (2, 3), (4, 1)])
def test_matches_moments_match_enumeration(kinds: int, copies: int) -> None:
    wall = [k for k in range(kinds) for _ in range(copies)]
    arrangements = set(permutations(wall))
    values = [sum(a == b for a, b in zip(arr, wall, strict=True)) for arr in arrangements]
    m = Fraction(sum(values), len(values))
    v = Fraction(sum(x * x for x in values), len(values)) - m * m
    assert exact.matches_moments(kinds, copies) == (m, v)


def stirling2(n: int, k: int) -> int:
    if n == k:
        return 1
    if k == 0 or k > n:
        return 0
    return k * stirling2(n - 1, k) + stirling2(n - 1, k - 1)


@pytest.mark.parametrize("kinds", [1, 2, 3, 5])
def test_coupon_law_matches_stirling_formula(kinds: int) -> None:
    """P(T = t) = k! S(t-1, k-1) / k^t: the last new symbol arrives at draw t."""
    law = exact.coupon_collector(kinds, 30)
    for t in range(1, 29):
        expected = Fraction(factorial(kinds) * stirling2(t - 1, kinds - 1), kinds**t)
        assert law[t] == pytest.approx(float(expected), abs=1e-15)
    assert sum(law) == pytest.approx(1.0)
    assert sum(t * p for t, p in enumerate(exact.coupon_collector(52, 2081))) == pytest.approx(
        52 * float(exact.harmonic(52)), rel=1e-12
    )


def test_published_values() -> None:
    # Diaconis, Fulman and Holmes (2013), Sec. 1: about 4.54 correct guesses for a uniform
    # 52-card deck with feedback (H_52).
    assert round(float(exact.harmonic(52)), 2) == 4.54
    # The guess count law is the cycle-count law: its mean is H_n.
    c = exact.stirling_cycles(52)
    assert Fraction(sum(k * x for k, x in enumerate(c)), factorial(52)) == exact.harmonic(52)
    # Bayer and Diaconis (1992): the mean number of rising sequences of a uniform deck is
    # (n + 1) / 2 = 26.5.
    e = exact.eulerian(52)
    assert Fraction(sum((k + 1) * x for k, x in enumerate(e)), factorial(52)) == Fraction(53, 2)
    assert exact.multiset_orders(4, 34) == factorial(136) // 24**34


def test_position_pearson_scaling() -> None:
    """E[Pearson] of n summed random permutation tables is N(N-1) = N/(N-1) * (N-1)^2 for any
    n: the factor the battery divides out (checked exactly for N = 4, n = 2)."""
    n_cards = 4
    perms = list(permutations(range(n_cards)))
    total = Fraction(0)
    for a, b in product(perms, repeat=2):
        e = Fraction(2, n_cards)
        table = [[0] * n_cards for _ in range(n_cards)]
        for p in (a, b):
            for pos, card in enumerate(p):
                table[card][pos] += 1
        total += sum((table[c][q] - e) ** 2 / e for c in range(n_cards) for q in range(n_cards))
    assert total / len(perms) ** 2 == n_cards * (n_cards - 1)


def test_pooling_and_gof() -> None:
    o, e = pool([1, 2, 50, 40, 3, 1], [0.02, 0.02, 0.5, 0.4, 0.04, 0.02])
    assert list(o) == [53, 40, 4]
    assert list(e) == pytest.approx([52.38, 38.8, 5.82])
    assert gof([0, 5], [1.0, 0.0]) == (float("inf"), 0, 0.0)
    assert gof([3], [1.0]) is None


def test_holm() -> None:
    # Holm (1979): reject in order while p_(i) <= alpha / (m - i + 1).
    ps = {"a": 0.001, "b": 0.004, "c": 0.03, "d": 0.2}
    assert holm(ps, 0.01) == ("a",)
    assert holm(ps, 0.05) == ("a", "b")
    assert holm({}, 0.01) == ()
