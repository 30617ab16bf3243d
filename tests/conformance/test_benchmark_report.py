"""`crosscheck poker --benchmark` as a benchmarker reads it: M hands/s beside ns per hand, the
public PH-style yardstick in the same table, the machine and the method, ratios that cannot be
read backwards, and JSON in the project's dialect under its own schema. Structure, counts and
wording only: no assertion depends on a measured speed."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablecert.cli.common import dialect_header
from tablecert.conformance import native_bench, yardstick
from tablecert.conformance.native_evaluator import NativeEvaluator, NativeSpec
from tablecert.hand_arrays import key_table
from tests.support.hostile import CliRun, run_cli

NATIVE = Path(__file__).parents[2] / "fixtures" / "evaluators" / "native"
CONTENDERS = ("vendor", "yardstick", "core, 1 thread", "core, all threads")
RATIO = re.compile(
    r"the vendor's evaluator took (\d+\.\d\d)x (the yardstick|the core \(1 thread\))'s time "
    r"per hand \((\d+\.\d\d)x its speed\)"
)


def _one_ratio_rounded_twice(time_ratio: float, speed: float) -> bool:
    """Whether one true ratio r prints as both figures, each rounded to two decimals.

    A product test fails for honest small ratios (1/5.42 = 0.1845 prints as 0.18),
    so the check is that r's interval from the time figure meets 1/r's from the speed.
    """
    half = 0.005 + 1e-9
    low, high = time_ratio - half, time_ratio + half
    return low <= 1 / (speed - half) and 1 / (speed + half) <= high


def test_the_ratio_check_accepts_rounding_and_refuses_a_mismatch() -> None:
    assert _one_ratio_rounded_twice(0.18, 5.42)  # CI's 1/5.42 = 0.1845
    assert _one_ratio_rounded_twice(2.50, 0.40)
    assert not _one_ratio_rounded_twice(0.20, 5.42)
    assert not _one_ratio_rounded_twice(1.00, 0.90)


needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("native")
    subprocess.run(
        ["make", "-s", "-C", str(NATIVE), f"OUT={out}", f"{out}/libsample.so"], check=True
    )
    return out / "libsample.so"


def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's workloads made small (the command's own are 10^7 random hands)."""
    small = functools.partial(native_bench.benchmark, random_hands=20_000, pairs=5_000)
    monkeypatch.setattr(native_bench, "benchmark", small)


def _bench(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *extra: str
) -> CliRun:
    _small(monkeypatch)
    args = ["crosscheck", "poker", "q-poker", "--evaluator", f"so:{sample}", "--benchmark"]
    return run_cli([*args, "--repeat", "2", *extra], monkeypatch, capsys)


@needs_cc
@pytest.mark.parametrize("size", [3, 5])
def test_the_yardstick_orders_every_hand_as_the_rank_only_ordering(
    size: int, tmp_path: Path
) -> None:
    built = yardstick.build(size, tmp_path)
    assert isinstance(built, yardstick.Yardstick), built
    game, standard = yardstick.RANK_ONLY[size]
    table = key_table(game, standard)
    every = np.frombuffer(table.hands(), dtype=np.uint8).reshape(-1, size)
    with NativeEvaluator(NativeSpec.parse(built.spec)) as evaluator:
        scores = evaluator.scores(np.ascontiguousarray(every))
    keys = np.frombuffer(table.table(), dtype="<u4")
    order = np.argsort(keys, kind="stable")
    k, s = keys[order].astype(np.int64), scores[order].astype(np.int64)
    assert np.array_equal(np.sign(np.diff(k)), np.sign(np.diff(s)))


@needs_cc
def test_benchmark_text_shows_rates_yardstick_machine_and_method(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _bench(sample, monkeypatch, capsys)
    assert run.code == 0, run.err
    out = run.out
    titles = [
        "all hands, colex order: 22,100 hands per call",
        "20,000 random hands (seed 0): 20,000 hands per call",
        "5,000 suit-decided pairs (both hands): 10,000 hands per call",
    ]
    for title in titles:
        assert title in out
    assert out.count("┃ M hands/s ┃") == 3
    assert out.count("ns/hand min / median / max") == 3
    for who in CONTENDERS:
        assert (
            len(re.findall(rf"│ {re.escape(who)} +│ +[\d.]+ / [\d.]+ / [\d.]+ │ +[\d.]+ │", out))
            == 3
        )
    assert f"machine: {native_bench.cpu_model()}, " in out
    assert "hardware threads ('all threads' uses " in out
    assert "method: 2 timed runs per evaluator and workload after one warm-up" in out
    assert (
        "yardstick: PH-style C yardstick (rank-only), built here: cc -O3 -march=native -fPIC "
        "-shared benches/c/ph_style_evaluator.c and its generated tables"
    ) in out
    ratios = RATIO.findall(out)
    assert [who for _, who, _ in ratios] == ["the yardstick", "the core (1 thread)"] * 3
    for time_ratio, _, speed in ratios:  # one ratio, said both ways
        assert _one_ratio_rounded_twice(float(time_ratio), float(speed)), (time_ratio, speed)
    assert "ratio:" not in out
    assert out.rstrip().endswith(
        "timed answers: CONFORMS (judged against the statute ordering, q-poker.macau.toml)"
    )


@needs_cc
def test_benchmark_json_follows_the_dialect_under_its_own_schema(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _bench(sample, monkeypatch, capsys, "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out, parse_float=lambda token: pytest.fail(f"a float: {token}"))
    assert data["schema"] == "tablecert.crosscheck-poker-benchmark/1"
    assert data["schema"] != dialect_header("crosscheck poker")["schema"]
    assert data["cpu"] == native_bench.cpu_model()
    assert isinstance(data["threads"], int)
    assert data["repeat"] == 2
    assert data["yardstick"]["ran"] is True
    assert len(data["load_average"]) == 3
    assert all(isinstance(x, str) for x in data["load_average"])
    assert [w["hands"] for w in data["workloads"]] == [22_100, 20_000, 10_000]
    for w in data["workloads"]:
        for who in ("vendor", "yardstick", "core_one_thread", "core_all_threads"):
            timing: dict[str, Any] = w[who]
            assert set(timing) == {
                "min_ns_per_hand",
                "median_ns_per_hand",
                "max_ns_per_hand",
                "median_million_hands_per_s",
            }
            low, mid, high = (float(timing[f"{k}_ns_per_hand"]) for k in ("min", "median", "max"))
            assert 0 < low <= mid <= high
        assert isinstance(w["vendor_time_over_yardstick"], str)


@needs_cc
def test_without_a_compiler_the_yardstick_is_said_not_run(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(yardstick, "COMPILER", "no-such-cc")
    run = _bench(sample, monkeypatch, capsys)
    assert run.code == 0, run.err
    assert (
        "yardstick: PH-style C yardstick (rank-only), not run: no C compiler (no-such-cc) on PATH"
        in run.out
    )
    assert "│ yardstick " not in run.out
    assert "the yardstick's time" not in run.out
    data = json.loads(_bench(sample, monkeypatch, capsys, "--json").out)
    assert data["yardstick"]["ran"] is False
    assert data["workloads"][0]["yardstick"] is None


def test_ratios_are_worded_both_ways_and_all_threads_slower_is_flagged() -> None:
    vendor = native_bench.Timing(0.5, 0.71, 0.9)
    other = native_bench.Timing(0.9, 1.0, 1.1)
    assert native_bench.time_ratio("the vendor's evaluator", vendor, "the yardstick", other) == (
        "the vendor's evaluator took 0.71x the yardstick's time per hand (1.41x its speed)"
    )
    assert native_bench.Timing(1.0, 2.0, 4.0).million_hands_per_s == 500.0
    slower = native_bench.Workload("w", 10, vendor, other, native_bench.Timing(1, 1.5, 2))
    faster = native_bench.Workload("w", 10, vendor, other, native_bench.Timing(0.1, 0.5, 1))
    assert (slower.all_threads_slower, faster.all_threads_slower) == (True, False)
