"""Slow, obviously-correct per-permutation statistics, for checking the exact laws and the core."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise, permutations


def descents(p: Sequence[int]) -> int:
    return sum(1 for a, b in pairwise(p) if b < a)


def rising_sequences(rel: Sequence[int]) -> int:
    """Rising sequences of an arrangement: runs of consecutive labels read left to right."""
    where = {label: i for i, label in enumerate(rel)}
    return 1 + sum(1 for i in range(len(rel) - 1) if where[i + 1] < where[i])


def fixed_points(p: Sequence[int]) -> int:
    return sum(1 for i, x in enumerate(p) if i == x)


def successions(p: Sequence[int]) -> int:
    return sum(1 for a, b in pairwise(p) if b == a + 1)


def valleys(p: Sequence[int]) -> int:
    return sum(1 for i in range(1, len(p) - 1) if p[i - 1] > p[i] < p[i + 1])


def peaks(p: Sequence[int]) -> int:
    return sum(1 for i in range(1, len(p) - 1) if p[i - 1] < p[i] > p[i + 1])


def footrule(p: Sequence[int]) -> int:
    return sum(abs(i - x) for i, x in enumerate(p))


def serial(p: Sequence[int]) -> int:
    return sum(a * b for a, b in pairwise(p))


def lehmer(p: Sequence[int]) -> list[int]:
    return [sum(1 for later in p[i + 1 :] if later < x) for i, x in enumerate(p)]


def law(n: int, stat: Callable[[Sequence[int]], int]) -> Counter[int]:
    """The distribution of a statistic over all n! permutations."""
    return Counter(stat(p) for p in permutations(range(n)))
