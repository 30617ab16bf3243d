"""Exact null distributions of the per-shuffle statistics of a uniformly random permutation.

All counts are integers (numbers of permutations of n items); divide by n! for probabilities.
Each is checked against brute-force enumeration for small n in the tests.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb, factorial


@cache
def eulerian(n: int) -> tuple[int, ...]:
    """Permutations of n with k descents, k = 0..n-1 (rising sequences and runs are k + 1)."""
    row = [1]
    for m in range(2, n + 1):
        new = [0] * m
        for k in range(m):
            if k < m - 1:
                new[k] += (k + 1) * row[k]
            if k > 0:
                new[k] += (m - k) * row[k - 1]
        row = new
    return tuple(row)


@cache
def derangements(n: int) -> int:
    """Permutations of n without fixed points."""
    d = [1, 0]
    for m in range(2, n + 1):
        d.append((m - 1) * (d[m - 1] + d[m - 2]))
    return d[n]


@cache
def rencontres(n: int) -> tuple[int, ...]:
    """Permutations of n with exactly k fixed points, k = 0..n."""
    return tuple(comb(n, k) * derangements(n - k) for k in range(n + 1))


@cache
def successions(n: int) -> tuple[int, ...]:
    """Permutations of n with exactly k successions (i immediately followed by i + 1),
    k = 0..n-1: C(n-1, k) times the succession-free permutations of n - k, which number
    D(m) + D(m-1) (Kaplansky)."""

    def free(m: int) -> int:
        return 1 if m == 1 else derangements(m) + derangements(m - 1)

    return tuple(comb(n - 1, k) * free(n - k) for k in range(n))


@cache
def interior_peaks(n: int) -> tuple[int, ...]:
    """Permutations of n with k interior peaks (equally, by complement, k interior valleys).

    Inserting the largest element m + 1 into a permutation of m with k peaks: at one of the
    2k + 2 ends-of-peaks or ends of the word it keeps k peaks, anywhere else it adds one.
    """
    row = [1]
    for m in range(1, n):
        new = [0] * (len(row) + 1)
        for k, c in enumerate(row):
            new[k] += (2 * k + 2) * c
            new[k + 1] += (m - 1 - 2 * k) * c
        row = new
    while len(row) > 1 and row[-1] == 0:
        row.pop()
    return tuple(row)


@cache
def stirling_cycles(n: int) -> tuple[int, ...]:
    """Unsigned Stirling numbers of the first kind c(n, k), k = 0..n: the law of a sum of
    independent Bernoulli(1/j), j = 1..n, times n! (correct guesses with feedback)."""
    row = [1]
    for m in range(n):
        new = [0] * (len(row) + 1)
        for k, c in enumerate(row):
            new[k] += m * c
            new[k + 1] += c
        row = new
    return tuple(row)


@cache
def harmonic(n: int) -> Fraction:
    """H_n: the expected correct guesses with feedback for a uniform deck of n (4.538 for 52)."""
    return sum((Fraction(1, j) for j in range(1, n + 1)), Fraction(0))


def footrule_moments(n: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of Spearman's footrule sum |pi(i) - i| (Diaconis and Graham 1977)."""
    return Fraction(n * n - 1, 3), Fraction((n + 1) * (2 * n * n + 7), 45)


def serial_moments(values: tuple[int, ...]) -> tuple[Fraction, Fraction]:
    """Mean and variance of T = sum_p x(p) x(p+1) over the n - 1 adjacent pairs of a uniform
    random arrangement of ``values`` (distinct-index sums from power sums)."""
    n = len(values)
    s1, s2, s3, s4 = (sum(v**k for v in values) for k in (1, 2, 3, 4))
    d2 = s1 * s1 - s2
    q22 = s2 * s2 - s4
    q211 = (s1 * s1 - s2) * s2 - 2 * s1 * s3 + 2 * s4
    q1111 = s1**4 - 6 * s1 * s1 * s2 + 3 * s2 * s2 + 8 * s1 * s3 - 6 * s4
    m = n - 1
    mu = Fraction(d2, n * (n - 1))
    e_sq = Fraction(q22, n * (n - 1))
    e_adj = Fraction(q211, n * (n - 1) * (n - 2))
    e_dis = Fraction(q1111, n * (n - 1) * (n - 2) * (n - 3)) if n >= 4 else Fraction(0)
    second = m * e_sq + 2 * (m - 1) * e_adj + (m - 1) * (m - 2) * e_dis
    return m * mu, second - (m * mu) ** 2


def matches_moments(kinds: int, copies: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of the positions where a uniform arrangement of ``copies`` of each of
    ``kinds`` symbols holds the same symbol as a fixed arrangement of the same multiset."""
    size = kinds * copies
    mean = Fraction(kinds * copies * copies, size)
    same = kinds * copies * (copies - 1)  # ordered position pairs holding one symbol
    pairs = size * (size - 1)
    both = Fraction(same * copies * (copies - 1) + (pairs - same) * copies * copies, pairs)
    return mean, both + mean - mean * mean


def coupon_collector(kinds: int, length: int) -> list[float]:
    """P(T = t) for t = 0..length-2 and P(T >= length-1) in the last entry, where T is the
    number of uniform draws from ``kinds`` equally likely symbols until all have appeared
    (forward recursion on the number seen; all terms positive, so floating point is exact to
    rounding)."""
    law = [0.0] * length
    seen = [0.0] * (kinds + 1)
    seen[0] = 1.0
    for t in range(1, length - 1):
        new = [0.0] * (kinds + 1)
        for j in range(kinds):
            if seen[j]:
                new[j] += seen[j] * j / kinds
                new[j + 1] += seen[j] * (kinds - j) / kinds
        law[t] = new[kinds]
        new[kinds] = 0.0
        seen = new
    law[-1] = max(0.0, 1.0 - sum(law))
    return law


def multiset_orders(copies: int, symbols: int) -> int:
    """Distinct orders of a deck holding ``copies`` of each of ``symbols`` symbols."""
    n = copies * symbols
    return int(factorial(n) // factorial(copies) ** symbols)
