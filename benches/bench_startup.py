"""Start-up of the light commands, whole processes, side by side with the yardstick
``python -c "import numpy"`` (the least any tablecert command can cost: it needs NumPy).

Run: .venv/bin/python -m pytest benches/bench_startup.py --benchmark-enable
Each round starts a fresh interpreter; BENCHMARKS.md reports the minimum and the ratio to the
yardstick measured in the same run (the machine is shared: compare ratios, not seconds).
What the light commands must not import is a normal test (tests/test_cli_startup.py).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

ENTRY = "from tablecert.cli import main; main()"

RUNS = {
    "yardstick: python -c 'import numpy'": ["-c", "import numpy"],
    "tablecert --version": ["-c", ENTRY, "--version"],
    "tablecert --help": ["-c", ENTRY, "--help"],
    "tablecert compare": ["-c", ENTRY, "compare", "q-poker", "9s 9h 5d", "9c 9d 5s"],
    "tablecert hands": ["-c", ENTRY, "hands", "caribbean-stud"],
}


def run(args: list[str]) -> None:
    subprocess.run(
        [sys.executable, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@pytest.mark.parametrize("name", list(RUNS))
def test_startup(benchmark: BenchmarkFixture, name: str) -> None:
    benchmark.pedantic(run, args=(RUNS[name],), rounds=10, warmup_rounds=1)
