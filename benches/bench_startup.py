"""Start-up of the light commands, whole processes, side by side with the yardstick
``python -c "import numpy"`` (the least any tablecert command can cost: it needs NumPy).

Run: .venv/bin/python -m pytest benches/bench_startup.py --benchmark-enable
Each round starts a fresh interpreter; BENCHMARKS.md reports the minimum and the ratio to the
yardstick measured in the same run (the machine is shared: compare ratios, not seconds).
Before and after in the same run: point TABLECERT_STARTUP_BEFORE at the ``python/`` folder of
an older checkout with its core built in place (BENCHMARKS.md, "Start-up of light commands",
says how); every command then also runs from there (first on PYTHONPATH), interleaved.
What the light commands must not import is a normal test (tests/test_cli_startup.py).
"""

from __future__ import annotations

import os
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
BEFORE = os.environ.get("TABLECERT_STARTUP_BEFORE", "")
TREES = {"after": ""} | ({"before": BEFORE} if BEFORE else {})


def run(args: list[str], tree: str) -> None:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    subprocess.run(
        [sys.executable, *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


@pytest.mark.parametrize("tree", list(TREES))
@pytest.mark.parametrize("name", list(RUNS))
def test_startup(benchmark: BenchmarkFixture, name: str, tree: str) -> None:
    if tree == "before" and name.startswith("yardstick"):
        pytest.skip("the yardstick does not import tablecert")
    if tree == "before":
        # The older tree is really the one imported.
        code = "import tablecert; print(tablecert.__file__)"
        env = dict(os.environ, PYTHONPATH=TREES[tree])
        found = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
        ).stdout
        assert found.startswith(TREES[tree]), found
    benchmark.extra_info["load_average"] = os.getloadavg()
    benchmark.pedantic(run, args=(RUNS[name], TREES[tree]), rounds=10, warmup_rounds=1)
