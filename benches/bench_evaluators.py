"""Random-access hand evaluation: the core's perfect-hash evaluator against a C yardstick.

Run: .venv/bin/python -m pytest benches/bench_evaluators.py --benchmark-enable -s
(TABLECERT_BENCH_HANDS sets the number of random hands, default 10,000,000; the issue's figure
is 30,000,000.)

Side by side in one run, on the same seeded random hands (cards in random order within each
hand), best of five (wall clock, and for one thread also the thread's CPU clock):

* ``ph_style_evaluator.c`` (benches/c/), a PH-Evaluator-style perfect-hash evaluator in C,
  rank-only (no suit tie-break), built here with ``cc -O3 -march=native`` and called once per
  batch through ctypes (no per-hand Python work);
* the core's ``KeyTable`` (statute keys, suit tie-break included) on one thread and on all;
* the previous path, ``_core.strength_keys`` (per-hand evaluation of the sorted hand).

The yardstick's tables are filled from tablecert's rank-only ordering, and the run first checks
that its scores order every hand exactly as that ordering does.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tablecert import _core
from tablecert.conformance.yardstick import RANK_ONLY, SOURCE, tables
from tablecert.hand_arrays import key_table
from tablecert.poker import ordering

HANDS = int(os.environ.get("TABLECERT_BENCH_HANDS", "10000000"))
GAMES = RANK_ONLY


def _yardstick(tmp: Path) -> ctypes.CDLL:
    library = tmp / "libph_style.so"
    subprocess.run(
        ["cc", "-O3", "-march=native", "-fPIC", "-shared", "-o", str(library), str(SOURCE)],
        check=True,
    )
    lib = ctypes.CDLL(str(library))
    lib.ph_evaluate.restype = ctypes.c_int32
    return lib


def _random_hands(size: int, n: int, seed: int = 2026) -> npt.NDArray[np.uint8]:
    rng = np.random.default_rng(seed)
    out = np.empty((n, size), dtype=np.uint8)
    for start in range(0, n, 1_000_000):
        block = min(1_000_000, n - start)
        out[start : start + block] = np.argpartition(rng.random((block, 52)), size, axis=1)[
            :, :size
        ]
    return out


def _best(
    run: Callable[[], object], repeat: int = 5, clock: Callable[[], float] = time.perf_counter
) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeat):
        started = clock()
        run()
        times.append(clock() - started)
    return min(times)


@pytest.mark.parametrize("size", [5, 3])
def test_random_access_side_by_side(size: int, tmp_path: Path, benchmark: BenchmarkFixture) -> None:
    lib = _yardstick(tmp_path)
    flush, rest = tables(size)
    lib.ph_init(
        size,
        flush.ctypes.data_as(ctypes.c_void_p),
        rest.ctypes.data_as(ctypes.c_void_p),
        ctypes.c_size_t(len(rest)),
    )
    game, standard = GAMES[size]

    def yardstick(hands: npt.NDArray[np.uint8], out: npt.NDArray[np.int32]) -> None:
        lib.ph_evaluate(
            hands.ctypes.data_as(ctypes.c_void_p),
            ctypes.c_size_t(len(hands)),
            ctypes.c_size_t(size),
            out.ctypes.data_as(ctypes.c_void_p),
        )

    # The yardstick orders every hand exactly as tablecert's rank-only ordering does.
    standard_table = key_table(game, standard)
    every = np.frombuffer(standard_table.hands(), dtype=np.uint8).reshape(-1, size)
    scores = np.empty(len(every), dtype=np.int32)
    yardstick(np.ascontiguousarray(every), scores)
    keys = np.frombuffer(standard_table.table(), dtype="<u4")
    by_key = np.argsort(keys, kind="stable")
    k, s = keys[by_key].astype(np.int64), scores[by_key].astype(np.int64)
    assert np.array_equal(np.sign(np.diff(k)), np.sign(np.diff(s)))

    hands = _random_hands(size, HANDS)
    out_c = np.empty(HANDS, dtype=np.int32)
    out_core = np.empty(HANDS, dtype=np.uint32)
    table = key_table(game)
    tie_breaks = ordering(game).tie_breaks
    raw = hands.tobytes()
    seconds = {
        "c_ph_style_rank_only_1_thread": _best(lambda: yardstick(hands, out_c)),
        "core_perfect_hash_1_thread": _best(lambda: table.keys_into(hands, out_core, False)),
        "core_perfect_hash_all_threads": _best(lambda: table.keys_into(hands, out_core, True)),
        "core_previous_path_all_threads": _best(
            lambda: _core.strength_keys(raw, size, tie_breaks), repeat=2
        ),
    }
    direct = np.frombuffer(_core.strength_keys(raw, size, tie_breaks), dtype="<u4")
    assert np.array_equal(out_core, direct)
    # One-thread contenders also on the thread's CPU clock: on a loaded machine (other work on
    # both cores) wall time measures the scheduler; the CPU clock still compares the code.
    cpu = {
        "c_ph_style_rank_only_1_thread_cpu": _best(
            lambda: yardstick(hands, out_c), clock=time.thread_time
        ),
        "core_perfect_hash_1_thread_cpu": _best(
            lambda: table.keys_into(hands, out_core, False), clock=time.thread_time
        ),
    }
    seconds.update(cpu)
    rates = {name: HANDS / s / 1e6 for name, s in seconds.items()}
    benchmark.extra_info.update({f"{name}_mhands_per_s": round(r, 1) for name, r in rates.items()})
    benchmark.extra_info["core_1_thread_over_c"] = round(
        rates["core_perfect_hash_1_thread"] / rates["c_ph_style_rank_only_1_thread"], 2
    )
    benchmark.extra_info["core_1_thread_over_c_cpu_clock"] = round(
        rates["core_perfect_hash_1_thread_cpu"] / rates["c_ph_style_rank_only_1_thread_cpu"], 2
    )
    benchmark.extra_info["core_scaling_all_threads"] = round(
        rates["core_perfect_hash_all_threads"] / rates["core_perfect_hash_1_thread"], 2
    )
    benchmark.extra_info["load_average"] = os.getloadavg()
    print(f"\n{size}-card, {HANDS:,} random hands, M hands/s:", benchmark.extra_info)
    benchmark.pedantic(table.keys_into, args=(hands, out_core, False), rounds=3, iterations=1)
