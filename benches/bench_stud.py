"""The generic stud engine beside the dedicated engines it replaces, and at scale.

Run: .venv/bin/python -m pytest benches/bench_stud.py --benchmark-enable -s
Each row is a whole process (``python -c`` of the core call, nothing cached across runs),
today's engine and the generic one interleaved, the minimum of ROUNDS kept, wall-clock and
user + system CPU (``os.wait4``); BENCHMARKS.md reports the ratio of each pair measured in the
same run (the machine is shared: compare ratios, not seconds). The figures of each pair are
equal (tests/games/test_stud_engine.py, test_stud_sheet.py); here only the time is measured.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "3"))

_CARIBBEAN_PAY = "[w + 2 for w in [2, 2, 4, 6, 8, 10, 14, 40, 100, 200]]"
_FIVE = (
    '["royal-flush", "straight-flush", "four-of-a-kind", "full-house", "flush", "straight",'
    ' "three-of-a-kind", "two-pair", "one-pair", "high-card"]'
)
_THREE = '["straight-flush", "three-of-a-kind", "straight", "flush", "pair", "high-card"]'
_FOUR = (
    '["four-of-a-kind", "straight-flush", "three-of-a-kind", "flush", "straight", "two-pair",'
    ' "pair", "high-card"]'
)

#: (today, generic) core calls with the same figures, per game and ordering.
PAIRS = {
    f"caribbean stud ({name})": (
        "from tablecert import _core\nfrom tablecert._core import _testing\n"
        f"tb = _core.TieBreaks({suits})\n"
        f"p = _testing.CaribbeanPayouts(-2, 2, {_CARIBBEAN_PAY}, 0, -6, 4)\n"
        "_testing.caribbean_analyze(tb, [12, 11], p)\n",
        "from tablecert import _core\n"
        f"tb = _core.TieBreaks({suits})\n"
        f"r = _core.StudRanking(5, {_FIVE}, tb)\n"
        "g = _core.StudGame(r, list(range(52)), 5, 5, 1, ('high-card', [12, 11]))\n"
        f"win = {_CARIBBEAN_PAY}\n"
        "floor = [[[-2] * 10] * 4, [[2] * 10, [4] * 10, [0] * 10, [-6] * 10]]\n"
        "_core.stud_analyze(g, [[[-2] * 10] * 4, [[2] * 10, win, [0] * 10, [-6] * 10]],"
        " masks=True, floor=floor)\n",
    )
    for name, suits in (("statute", True), ("standard", False))
} | {
    f"q poker ({name})": (
        "from tablecert import _core\nfrom tablecert._core import _testing\n"
        f"_testing.q_poker_hand_counts(_core.TieBreaks({suits}), [10])\n",
        "from tablecert import _core\n"
        f"r = _core.StudRanking(3, {_THREE}, _core.TieBreaks({suits}))\n"
        "g = _core.StudGame(r, list(range(52)), 3, 3, 0, ('high-card', [10]))\n"
        "_core.stud_analyze(g, [[[0] * 6] * 4], counts=True)\n",
    )
    for name, suits in (("statute", True), ("standard", False))
}

#: The scale test: Four Card Poker's exact analysis (5 against 6 cards, one up, 3 raises).
FOUR_CARD_POKER = (
    "from tablecert import _core\n"
    f"r = _core.StudRanking(4, {_FOUR}, _core.TieBreaks(False))\n"
    "g = _core.StudGame(r, list(range(52)), 5, 6, 1, None)\n"
    "fold = [[-1] * 8] * 4\n"
    "raises = [[[m + 1] * 8, [m + 1] * 8, [m + 1] * 8, [-m - 1] * 8] for m in (1, 2, 3)]\n"
    "_core.stud_analyze(g, [fold, *raises])\n"
)


def _run(code: str) -> tuple[float, float]:
    """One whole process: its wall-clock seconds and its user + system CPU seconds."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code])
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, f"exit {process.returncode}"
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def _seconds(code: str) -> float:
    return _run(code)[0]


@pytest.mark.parametrize("row", sorted(PAIRS))
def test_generic_engine_beside_todays(benchmark: BenchmarkFixture, row: str) -> None:
    today, generic = PAIRS[row]
    times: dict[str, list[tuple[float, float]]] = {"today": [], "generic": []}

    def both() -> None:
        times["today"].append(_run(today))
        times["generic"].append(_run(generic))

    benchmark.pedantic(both, rounds=ROUNDS, iterations=1)
    wall = {k: min(w for w, _ in v) for k, v in times.items()}
    cpu = {k: min(c for _, c in v) for k, v in times.items()}
    benchmark.extra_info.update(
        today_s=round(wall["today"], 3),
        generic_s=round(wall["generic"], 3),
        ratio=round(wall["generic"] / wall["today"], 3),
        cpu_ratio=round(cpu["generic"] / cpu["today"], 3),
        load=os.getloadavg()[0],
    )
    print(
        f"\n{row}: today {wall['today']:.3f} s, generic {wall['generic']:.3f} s, "
        f"ratio {wall['generic'] / wall['today']:.2f} (CPU {cpu['today']:.3f} / "
        f"{cpu['generic']:.3f} s = {cpu['generic'] / cpu['today']:.2f})"
    )


def test_four_card_poker_whole_analysis(benchmark: BenchmarkFixture) -> None:
    seconds: list[float] = []
    benchmark.pedantic(lambda: seconds.append(_seconds(FOUR_CARD_POKER)), rounds=1, iterations=1)
    benchmark.extra_info.update(seconds=round(min(seconds), 2), load=os.getloadavg()[0])
    print(f"\nfour card poker: {min(seconds):.2f} s")
