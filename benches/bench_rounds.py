"""Round audit (``tablecert audit rounds``) side by side with merely reading the same file.

Run: TABLECERT_BENCH_ROUNDS=1000000 .venv/bin/python -m pytest benches/bench_rounds.py
--benchmark-enable. The log is a clean Q Poker gzip CSV: 10,000 simulated rounds (1-7 seats)
repeated under distinct table ids up to the wanted size. Yardsticks measured in the same run:
``gzip -dc FILE | wc -l`` (decompressing and counting lines, no parsing), Python's gzip with
line splitting, and Python's csv module over every row. The strict reading is the core's
(``_core.RoundReader``); the load average is printed before and after. With
TABLECERT_BENCH_BEFORE=1 the Python reader it replaced (tests/rounds/reference_log.py) reads
the same file too: before and after in one run. The machine is shared: compare ratios, not
seconds (BENCHMARKS.md).

``-k whole_process -s``: whole processes side by side in one run, interleaved, best of
``TABLECERT_BENCH_REPEAT`` (default 3): ``tablecert audit rounds LOG --game q-poker --json``
against ``gzip -dc LOG | wc -l`` (and ``pigz -dc``, when installed), each with its least CPU
seconds and its peak resident memory; run it at three sizes (10^5, 4 x 10^5 and 10^6 rounds:
from 4 x 10^5 on the pipeline of chunks is full) to see what grows with the log: the 16 bytes
of each round id.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benches.bench_audit import _load
from tablecert.poker import ordering
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.log import read_rounds
from tablecert.rounds.simulate import write_rounds

ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "100000"))
#: Also time the Python reader the core's replaced, on the same file (minutes at 10^6 rounds).
BEFORE = os.environ.get("TABLECERT_BENCH_BEFORE") == "1"
BLOCK = 10_000


pytestmark = pytest.mark.usefixtures("load_printed")


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rounds")
    block = folder / "block.csv"
    write_rounds(block, ordering("q-poker"), BLOCK, seed=3)
    header, *rows = block.read_text(encoding="utf-8").splitlines()
    out = io.StringIO()
    out.write(header + "\n")
    for copy in range(ROUNDS // BLOCK):
        prefix = f"T{copy + 1},"
        out.write("\n".join(prefix + row.split(",", 1)[1] for row in rows) + "\n")
    path = folder / "rounds.csv.gz"
    path.write_bytes(gzip.compress(out.getvalue().encode(), compresslevel=1))
    return path


def _gzip_wc(path: Path) -> int:
    done = subprocess.run(
        f"gzip -dc '{path}' | wc -l", shell=True, check=True, capture_output=True, text=True
    )
    return int(done.stdout)


def _lines(path: Path) -> int:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return sum(1 for _ in f)


def _csv_rows(path: Path) -> int:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        return sum(1 for _ in csv.reader(f))


def _read(path: Path) -> int:
    return sum(len(c) for c in read_rounds(path, "q-poker"))


def _reference(path: Path) -> int:
    """The Python reader the core's replaced (kept as the tests' reference): before/after."""
    from tests.rounds.reference_log import reference_rounds

    return sum(len(c) for c in reference_rounds(path, "q-poker"))


def _audit(path: Path) -> int:
    result = audit_rounds([path], ordering("q-poker"))
    assert result.verdict == "pass"
    return result.rounds


@pytest.mark.parametrize(
    "name",
    [
        "yardstick: gzip -dc | wc -l",
        "yardstick: gzip lines",
        "yardstick: csv.reader rows",
        "read_rounds (strict)",
        "audit rounds",
        *(["before: the Python reader"] if BEFORE else []),
    ],
)
def test_round_audit(benchmark: BenchmarkFixture, log: Path, name: str) -> None:
    run = {
        "yardstick: gzip -dc | wc -l": _gzip_wc,
        "yardstick: gzip lines": _lines,
        "yardstick: csv.reader rows": _csv_rows,
        "read_rounds (strict)": _read,
        "audit rounds": _audit,
        "before: the Python reader": _reference,
    }[name]
    benchmark.pedantic(run, args=(log,), rounds=1, warmup_rounds=0)


REPEAT = int(os.environ.get("TABLECERT_BENCH_REPEAT", "3"))


def _timed(command: list[str], tmp: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user and system, every thread and child) and peak resident
    kilobytes of one whole process, measured by GNU time (a child of this process would count
    the pages it shared with it before its exec). The CPU seconds vary less than the wall
    ones on a machine shared with other work."""
    report = tmp / "rss"
    start = time.perf_counter()
    subprocess.run(
        ["/usr/bin/time", "-f", "%U %S %M", "-o", str(report), *command],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    user, system, rss = report.read_text().split()[-3:]
    return seconds, float(user) + float(system), int(rss)


def test_whole_process_side_by_side(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``audit rounds`` as a whole process against ``gzip -dc | wc -l`` on the same file."""
    q = shlex.quote(str(log))
    runs = {
        "gzip -dc LOG | wc -l": ["sh", "-c", f"gzip -dc {q} | wc -l"],
        "tablecert audit rounds (whole process)": [
            sys.executable,
            "-m",
            "tablecert",
            "audit",
            "rounds",
            str(log),
            "--game",
            "q-poker",
            "--json",
        ],
    }
    if shutil.which("pigz") is not None:
        runs["pigz -dc LOG | wc -l"] = ["sh", "-c", f"pigz -dc {q} | wc -l"]
    best = dict.fromkeys(runs, (float("inf"), float("inf"), 0))
    before = _load()
    for _ in range(REPEAT):
        for name, command in runs.items():
            seconds, cpu, rss = _timed(command, tmp_path)
            least, least_cpu, most = best[name]
            best[name] = (min(least, seconds), min(least_cpu, cpu), max(most, rss))
    yard, yard_cpu, _ = best["gzip -dc LOG | wc -l"]
    with capsys.disabled():
        print(f"\n{ROUNDS:,} rounds, {log.stat().st_size:,} bytes gzip; load {before} -> {_load()}")
        for name, (seconds, cpu, rss) in best.items():
            print(
                f"  {name:42s} {seconds:7.3f} s  {seconds / yard:5.2f}x the yardstick  "
                f"CPU {cpu:6.2f} s ({cpu / yard_cpu:4.2f}x)  peak {rss / 1024:7.1f} MB"
            )
