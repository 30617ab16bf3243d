"""Shuffler audit of a gzip log: the streaming core (parse, check, tally, full battery) against
a pure NumPy baseline that reads the same log in chunks and computes the same tallies; and,
side by side in one run, the audit against ``gzip -dc LOG | wc -l`` and ``pigz -dc LOG | wc -l``
(when pigz is installed) on the same file (in the process and as a whole CLI process; the log
is written by ``simulate``, one gzip member per 4,096 shuffles, so the core decodes members on
several threads), and the core's read of the uncompressed log (parse, check, tally; no
battery) and the whole ``audit shuffler`` process on it against ``wc -l``, in bytes of log
text per second.

Run: .venv/bin/python -m pytest benches/bench_audit.py --benchmark-enable -s
(``TABLECERT_BENCH_DECKS=1000000`` for the one-million-shuffle figure; default 100,000;
``-k side_by_side`` for the side-by-side runs only; ``TABLECERT_BENCH_ROUNDS`` rounds of each,
interleaved, best kept: default 3; ``TABLECERT_BENCH_BEFORE=TREE``, the ``python`` folder of a
tree before a change, adds each whole process run from that tree beside this tree's, in the same
rounds).
The baseline tallies position, successor, rising sequences, fixed points, successions,
valleys, footrule, runs, Lehmer digits and serial sums; it leaves out the sequential guesser,
the digit-pair tables, dealt hands and repeated orders, so it does less work than the core.
BENCHMARKS.md reports shuffles per second of each and peak memory.
"""

from __future__ import annotations

import gzip
import itertools
import os
import resource
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tablecert import _core
from tablecert.audit import audit_shuffler
from tablecert.audit.simulate import write_log

DECKS = int(os.environ.get("TABLECERT_BENCH_DECKS", "100000"))
ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "3"))
GAME = {"input_order": "logged", "game": "caribbean-stud", "seats": 6}
CHUNK_LINES = 20_000
N = 52


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fair log (``TABLECERT_BENCH_LOG``: one already written by ``tablecert simulate
    shuffler --model fair --shuffles DECKS``, to save writing it again)."""
    given = os.environ.get("TABLECERT_BENCH_LOG")
    if given:
        return Path(given)
    path = tmp_path_factory.mktemp("audit") / "fair.csv.gz"
    return write_log(path, "fair", DECKS, seed=42)


def numpy_baseline(path: Path) -> dict[str, Any]:
    """The tallies with NumPy, one chunk of lines at a time (bounded memory)."""
    code = {_core.card_code(c): c for c in range(N)}
    ar = np.arange(N)
    t: dict[str, Any] = {
        "position": np.zeros(N * N, np.int64),
        "successor": np.zeros(N * N, np.int64),
        "lehmer": np.zeros((N, N), np.int64),
        "serial": 0,
        "bad": 0,
    }
    for name in ("rising", "fixed", "successions", "valleys", "runs"):
        t[name] = np.zeros(N + 1, np.int64)
    t["footrule"] = np.zeros(N * N // 2 + 1, np.int64)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        next(f)
        while True:
            lines = list(itertools.islice(f, CHUNK_LINES))
            if not lines:
                break
            fields = [line.rstrip("\n").split(",") for line in lines]
            out = np.array([[code[c] for c in r[3].split()] for r in fields], np.int64)
            inp = np.array([[code[c] for c in r[4].split()] for r in fields], np.int64)
            complete = (np.sort(out, axis=1) == ar).all(axis=1)
            t["bad"] += int((~complete).sum())
            out, inp = out[complete], inp[complete]
            t["position"] += np.bincount((out * N + ar).ravel(), minlength=N * N)
            t["successor"] += np.bincount((out[:, :-1] * N + out[:, 1:]).ravel(), minlength=N * N)
            rel = np.take_along_axis(np.argsort(inp, axis=1), out, axis=1)
            pos = np.argsort(rel, axis=1)
            t["rising"] += np.bincount(1 + (pos[:, 1:] < pos[:, :-1]).sum(1), minlength=N + 1)
            t["fixed"] += np.bincount((rel == ar).sum(1), minlength=N + 1)
            t["successions"] += np.bincount((rel[:, 1:] == rel[:, :-1] + 1).sum(1), minlength=N + 1)
            mid = rel[:, 1:-1]
            t["valleys"] += np.bincount(
                ((rel[:, :-2] > mid) & (mid < rel[:, 2:])).sum(1), minlength=N + 1
            )
            t["footrule"] += np.bincount(np.abs(rel - ar).sum(1), minlength=len(t["footrule"]))
            t["runs"] += np.bincount(1 + (out[:, 1:] < out[:, :-1]).sum(1), minlength=N + 1)
            for i in range(N - 1):
                digit = (out[:, i + 1 :] < out[:, i : i + 1]).sum(1)
                t["lehmer"][i] += np.bincount(digit, minlength=N)
            t["lehmer"][N - 1, 0] += len(out)
            t["serial"] += int((out[:, :-1] * out[:, 1:]).sum())
    return t


def _mean_seconds(benchmark: BenchmarkFixture) -> float:
    stats = benchmark.stats
    assert stats is not None
    return float(stats.stats.mean)


def test_core_full_audit(benchmark: BenchmarkFixture, log: Path) -> None:
    result = benchmark.pedantic(
        audit_shuffler,
        args=([log],),
        kwargs={"input_order": "logged", "game": "caribbean-stud", "seats": 6},
        rounds=1,
        iterations=1,
    )
    assert result.integrity.records == DECKS
    benchmark.extra_info["shuffles"] = DECKS
    benchmark.extra_info["shuffles_per_second"] = DECKS / _mean_seconds(benchmark)
    benchmark.extra_info["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_numpy_baseline_tallies(benchmark: BenchmarkFixture, log: Path) -> None:
    t = benchmark.pedantic(numpy_baseline, args=(log,), rounds=1, iterations=1)
    assert t["bad"] == 0
    assert int(t["position"].sum()) == DECKS * N
    core = audit_shuffler([log], input_order="logged", batch_size=0).tally
    assert np.array_equal(core.tables["rising"], t["rising"])
    assert np.array_equal(core.tables["lehmer"], t["lehmer"])
    assert core.serial_sum == t["serial"]
    benchmark.extra_info["shuffles"] = DECKS
    benchmark.extra_info["shuffles_per_second"] = DECKS / _mean_seconds(benchmark)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _side_by_side(runs: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Best wall time of each run over ``ROUNDS`` rounds, the runs interleaved."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(ROUNDS):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def _shell(command: str) -> Callable[[], object]:
    return lambda: subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL)


def _pigz(log: Path) -> dict[str, Callable[[], object]]:
    """``pigz -dc LOG | wc -l`` when pigz is installed (pigz inflates on one thread, with
    reading, writing and the check on others), else nothing."""
    if shutil.which("pigz") is None:
        print("\n  (pigz not installed: its row is left out)")
        return {}
    return {"pigz -dc LOG | wc -l": _shell(f"pigz -dc {shlex.quote(str(log))} | wc -l")}


BEFORE = os.environ.get("TABLECERT_BENCH_BEFORE")


def _whole_audit(name: str, log: Path, *extra: str) -> dict[str, Callable[[], object]]:
    """``tablecert audit shuffler LOG --json --input-order logged`` as a whole process, and
    the same from the ``TABLECERT_BENCH_BEFORE`` tree (first on its ``PYTHONPATH``) when one
    is given."""
    cli = [sys.executable, "-m", "tablecert", "audit", "shuffler", str(log), "--json"]
    cli += ["--input-order", "logged", *extra]
    runs = {name: _process(cli)}
    if BEFORE is not None:
        runs[f"{name}, before"] = _process(cli, {**os.environ, "PYTHONPATH": BEFORE})
    return runs


def _process(cli: list[str], env: dict[str, str] | None = None) -> Callable[[], object]:
    return lambda: subprocess.run(cli, check=False, stdout=subprocess.DEVNULL, env=env)


def test_side_by_side_gzip_audit(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole audit (read in the core, full battery) against ``gzip -dc LOG | wc -l``."""
    q = shlex.quote(str(log))
    records: list[int] = []

    def audit() -> None:
        records.append(audit_shuffler([log], **GAME).integrity.records)  # type: ignore[arg-type]

    before = _load()
    best = _side_by_side(
        {
            "gzip -dc LOG | wc -l": _shell(f"gzip -dc {q} | wc -l"),
            **_pigz(log),
            "audit_shuffler (in process)": audit,
            **_whole_audit(
                "tablecert audit shuffler (whole process)",
                log,
                *("--game", "caribbean-stud", "--seats", "6"),
            ),
            **_whole_audit("same, tallies only (whole process)", log),
        }
    )
    assert set(records) == {DECKS}
    yard = best["gzip -dc LOG | wc -l"]
    with capsys.disabled():
        size = log.stat().st_size
        print(f"\n{DECKS:,} shuffles, {size:,} bytes gzip; load {before} -> {_load()}")
        for name, seconds in best.items():
            print(f"  {name:52s} {seconds:7.3f} s  {seconds / yard:5.2f}x the yardstick")


def test_side_by_side_plain_read(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The core's read of the uncompressed log (parse, check, tally) against ``wc -l``."""
    plain = tmp_path / "fair.csv"
    with gzip.open(log) as src, plain.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    size = plain.stat().st_size
    q = shlex.quote(str(plain))

    def read(**game: object) -> Callable[[], object]:
        def run() -> None:
            core = _core.ShuffleAudit("cards52", "logged", batch_size=10_000, **game)  # type: ignore[arg-type]
            core.read_file(str(plain))
            assert core.records == DECKS

        return run

    ties = _core.TieBreaks(True)
    before = _load()
    best = _side_by_side(
        {
            "wc -l LOG": _shell(f"wc -l {q}"),
            "core read, tallies": read(),
            "core read, tallies + Caribbean dealt hands": read(
                hand_size=5, hands=7, tie_breaks=ties
            ),
            **_whole_audit("tablecert audit shuffler (whole process)", plain),
        }
    )
    yard = best["wc -l LOG"]
    threads = os.environ.get("RAYON_NUM_THREADS", str(os.cpu_count()))
    with capsys.disabled():
        print(
            f"\n{DECKS:,} shuffles, {size:,} bytes of text, {threads} threads; "
            f"load {before} -> {_load()}"
        )
        for name, seconds in best.items():
            print(
                f"  {name:52s} {seconds:7.3f} s  {size / seconds / 1e9:5.2f} GB/s  "
                f"{seconds / yard:5.2f}x the yardstick"
            )
