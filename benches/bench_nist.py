"""The NIST SP 800-22 battery: the Rust core against the plain-Python transcription.

Run: .venv/bin/python -m pytest benches/bench_nist.py --benchmark-enable
Side by side on the same input (one sequence of 100,000 bits, every test that applies at that
length: all but Universal), then a full-size run, 1,000 sequences of 10^6 bits through all
fifteen tests (set NIST_FULL=1; it needs 125 MB of os.urandom output and a few minutes).
The spectral test's two transforms side by side on 10^6-bit sequences:
.venv/bin/python -m pytest benches/bench_nist.py --benchmark-enable -k transforms -s
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Literal

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tablecert._core import _testing
from tablecert.audit.rng import run_nist
from tablecert.audit.rng_decision import decide
from tests.reference import nist_reference as ref

N = 100_000
DATA = np.random.default_rng(2026).integers(0, 256, N // 8, dtype=np.uint8).tobytes()
BITS = np.unpackbits(np.frombuffer(DATA, dtype=np.uint8)).tolist()


def _python_battery() -> int:
    e = BITS
    values = [
        *ref.frequency(e),
        *ref.block_frequency(e),
        *ref.cumulative_sums(e),
        *ref.runs(e),
        *ref.longest_run(e),
        *ref.rank(e),
        *ref.dft(e),
        *ref.non_overlapping(e),
        *ref.overlapping(e),
        *ref.approximate_entropy(e),
        *ref.random_excursions(e),
        *ref.random_excursions_variant(e),
        *ref.serial(e),
        *ref.linear_complexity(e),
    ]
    return len(values)


def test_core_battery_100k(benchmark: BenchmarkFixture) -> None:
    report = benchmark(run_nist, DATA, bits=N, sequences=1)
    assert len(report.columns) == 187
    benchmark.extra_info["bits"] = N


def test_python_reference_battery_100k(benchmark: BenchmarkFixture) -> None:
    count = benchmark.pedantic(_python_battery, rounds=1, iterations=1)
    assert count == 187
    benchmark.extra_info["bits"] = N


@pytest.mark.skipif(not os.environ.get("NIST_FULL"), reason="set NIST_FULL=1 for the full run")
def test_core_full_1000_sequences_of_a_million_bits(benchmark: BenchmarkFixture) -> None:
    data = os.urandom(1000 * 125_000)
    cpu = time.process_time()
    report = benchmark.pedantic(
        run_nist, args=(data,), kwargs={"bits": 1_000_000, "sequences": 1000}, rounds=1
    )
    benchmark.extra_info["process_cpu_s"] = time.process_time() - cpu
    assert len(report.columns) == 188
    benchmark.extra_info["failed_columns"] = len(report.failures)


def _battery_and_verdict(data: bytes) -> str:
    report = run_nist(data, bits=1_000_000, sequences=100)
    return decide(report).verdict


def test_core_and_verdict_100_sequences_of_a_million_bits(benchmark: BenchmarkFixture) -> None:
    """The issue-12 yardstick: 100 x 10^6 bits (a SHA-256 counter stream, as the NIST
    reference) through all fifteen tests and the family-wise verdict (which adds the probe of
    an all-zero and an alternating sequence); process CPU in extra_info."""
    data = b"".join(
        hashlib.sha256(b"bench" + i.to_bytes(8, "big")).digest() for i in range(390_625)
    )
    cpu = time.process_time()
    verdict = benchmark.pedantic(_battery_and_verdict, args=(data,), rounds=1, iterations=1)
    benchmark.extra_info["process_cpu_s"] = time.process_time() - cpu
    assert verdict == "pass"


FFT_SEQUENCES = 20


def _measure(data: bytes, fft: Literal["hand", "crate", "test"]) -> tuple[float, float, list[int]]:
    """(wall s, process CPU s, N1 per sequence) of the spectral test's peak counts."""
    wall, cpu = time.perf_counter(), time.process_time()
    counts = _testing.dft_peak_counts(data, 1_000_000, FFT_SEQUENCES, fft)
    return time.perf_counter() - wall, time.process_time() - cpu, [c for c, _ in counts]


def test_spectral_transforms_hand_against_crate(benchmark: BenchmarkFixture) -> None:
    """The hand-written mixed-radix FFT against realfft/rustfft on the same 20 sequences of
    10^6 bits (N1 of each: unpack, ±1, transform, count), alternating over 7 rounds; best wall
    (both threads) and best process CPU per sequence, and the ratio. "test" is the battery's
    path: the crate's transform with the margin check, the hand one where a magnitude is near T."""
    data = np.random.default_rng(16).integers(0, 256, FFT_SEQUENCES * 125_000, np.uint8).tobytes()
    load_before = os.getloadavg()
    best: dict[str, list[float]] = {}
    counts: dict[str, list[int]] = {}
    kinds: tuple[Literal["hand", "crate", "test"], ...] = ("hand", "crate", "test")
    for _ in range(7):
        for fft in kinds:
            wall, cpu, counts[fft] = _measure(data, fft)
            old = best.get(fft, [float("inf"), float("inf")])
            best[fft] = [min(old[0], wall), min(old[1], cpu)]
    load_after = os.getloadavg()
    assert counts["hand"] == counts["crate"] == counts["test"]
    for fft in kinds:
        wall, cpu = best[fft]
        benchmark.extra_info[f"{fft}_sequences_per_s_wall"] = round(FFT_SEQUENCES / wall, 1)
        benchmark.extra_info[f"{fft}_ms_cpu_per_sequence"] = round(cpu / FFT_SEQUENCES * 1e3, 2)
    benchmark.extra_info["hand_over_crate_wall"] = round(best["hand"][0] / best["crate"][0], 2)
    benchmark.extra_info["hand_over_crate_cpu"] = round(best["hand"][1] / best["crate"][1], 2)
    benchmark.extra_info["hand_over_test_path_cpu"] = round(best["hand"][1] / best["test"][1], 2)
    benchmark.extra_info["load_average_before"] = load_before
    benchmark.extra_info["load_average_after"] = load_after
    print("\nspectral test, 20 x 10^6 bits:", benchmark.extra_info)
    benchmark.pedantic(_measure, args=(data, "test"), rounds=1, iterations=1)
