"""Exhaustive statute evaluation of every 3- and 5-card hand: the core against pure Python.

Run: .venv/bin/python -m pytest benches/bench_hand_enumeration.py --benchmark-enable
The pure-Python baseline evaluates a fixed sample (every 50th 5-card hand) with the test
reference; BENCHMARKS.md reports hands per second of each and their ratio.
"""

from __future__ import annotations

import itertools

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tablecert import _core
from tablecert.poker import ordering
from tests.reference import poker_reference as ref

STATUTE_5 = ordering("caribbean-stud").tie_breaks
STATUTE_3 = ordering("q-poker").tie_breaks


def test_core_all_five_card_keys(benchmark: BenchmarkFixture) -> None:
    keys = benchmark(_core.all_strength_keys, 5, STATUTE_5)
    assert len(keys) == 4 * 2_598_960
    benchmark.extra_info["hands"] = 2_598_960


def test_core_all_three_card_keys(benchmark: BenchmarkFixture) -> None:
    keys = benchmark(_core.all_strength_keys, 3, STATUTE_3)
    assert len(keys) == 4 * 22_100
    benchmark.extra_info["hands"] = 22_100


def _python_sample(step: int) -> int:
    n = 0
    for i, hand in enumerate(itertools.combinations(ref.DECK, 5)):
        if i % step == 0:
            ref.caribbean_strength(list(hand))
            n += 1
    return n


@pytest.mark.parametrize("step", [50])
def test_python_reference_five_card_sample(benchmark: BenchmarkFixture, step: int) -> None:
    n = benchmark.pedantic(_python_sample, args=(step,), rounds=1, iterations=1)
    benchmark.extra_info["hands"] = n


def test_python_reference_all_three_card(benchmark: BenchmarkFixture) -> None:
    def run() -> int:
        for hand in itertools.combinations(ref.DECK, 3):
            ref.q_poker_strength(list(hand))
        return 22_100

    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["hands"] = 22_100
