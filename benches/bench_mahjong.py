"""Exhaustive enumeration of complete mahjong hands: the core against pure Python.

Run: .venv/bin/python -m pytest benches/bench_mahjong.py --benchmark-enable
The issue's target: the full traditional-game enumeration (11,498,658 hands, each with all of
its readings) with fan classification under 5 s. The pure-Python baseline is the test
reference's brute force over every 5-tile multiset of the simple game (the same work the core
does for that game), since the traditional game is out of its reach.
"""

from __future__ import annotations

from pytest_benchmark.fixture import BenchmarkFixture

from tablecert import _core, mahjong
from tests.reference import mahjong_reference as ref


def test_core_traditional_enumeration(benchmark: BenchmarkFixture) -> None:
    result = benchmark.pedantic(
        _core.enumerate_complete_hands, args=("traditional",), rounds=3, iterations=1
    )
    assert result[0] == 11_498_658
    benchmark.extra_info["hands"] = result[0]


def test_traditional_analysis_with_fan(benchmark: BenchmarkFixture) -> None:
    analysis = benchmark.pedantic(
        mahjong.analyze, args=("mahjong-traditional",), rounds=3, iterations=1
    )
    assert analysis.distinct_standard == 11_498_658
    benchmark.extra_info["hands"] = analysis.distinct_standard + analysis.distinct_orphans


def test_core_simple_enumeration(benchmark: BenchmarkFixture) -> None:
    result = benchmark(_core.enumerate_complete_hands, "simple")
    assert result[:2] == (1_344, 223_776)


def test_python_reference_simple(benchmark: BenchmarkFixture) -> None:
    result = benchmark.pedantic(ref.count_complete_simple, rounds=1, iterations=1)
    assert result == (1_344, 223_776)
