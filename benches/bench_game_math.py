"""Complete game analyses: Q Poker (both bets) and Caribbean Stud (optimal play with the upcard).

Run: .venv/bin/python -m pytest benches/bench_game_math.py --benchmark-enable
The baselines are plain pure-Python enumerations with the test reference (one Q Poker player
hand over its 18,424 dealer hands; one Caribbean situation over its 163,185 completions);
BENCHMARKS.md scales them to the whole game to state the brute-force cost avoided.
"""

from __future__ import annotations

from pytest_benchmark.fixture import BenchmarkFixture

from tablecert.games import caribbean_stud, q_poker
from tests.reference import game_reference


def test_q_poker_complete_analysis(benchmark: BenchmarkFixture) -> None:
    result = benchmark.pedantic(q_poker.analyze, args=("q-poker.macau",), rounds=3, iterations=1)
    assert result.play.house_edge > 0
    benchmark.extra_info["hand_pairs"] = 22_100 * 18_424


def test_caribbean_complete_analysis_cold(benchmark: BenchmarkFixture) -> None:
    result = benchmark.pedantic(
        caribbean_stud.analyze,
        args=("caribbean-stud.macau",),
        kwargs={"use_cache": False},
        rounds=1,
        iterations=1,
    )
    assert result.house_edge > 0
    benchmark.extra_info["deals"] = caribbean_stud.DEALS


def test_python_reference_one_q_poker_hand(benchmark: BenchmarkFixture) -> None:
    benchmark.pedantic(
        game_reference.q_poker_counts, args=(["Qs", "6h", "4d"], True), rounds=3, iterations=1
    )
    benchmark.extra_info["hand_pairs"] = 18_424


def test_python_reference_one_caribbean_situation(benchmark: BenchmarkFixture) -> None:
    benchmark.pedantic(
        game_reference.caribbean_counts,
        args=(["As", "Kd", "7c", "5h", "2s"], "7d", True),
        rounds=1,
        iterations=1,
    )
    benchmark.extra_info["deals"] = 163_185
