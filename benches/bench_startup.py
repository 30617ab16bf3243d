"""Start-up of the light commands, whole processes, side by side with the yardstick
``python -c "import numpy"`` (the least any tablecert command can cost: it needs NumPy).
The light commands include those whose work on a small input is far under a second: `audit
rng` (one 10^5-bit sequence, one test), `audit shuffler` and `audit rounds` (the small logs
in fixtures/), `check` (a fixture configuration) and `verify` (an envelope of one file).

Run: .venv/bin/python -m pytest benches/bench_startup.py --benchmark-enable
Each round starts a fresh interpreter; BENCHMARKS.md reports the minimum and the ratio to the
yardstick measured in the same run (the machine is shared: compare ratios, not seconds).
Before and after in the same run: point TABLECERT_STARTUP_BEFORE at the ``python/`` folder of
an older checkout with its core built in place (BENCHMARKS.md, "Start-up of light commands",
says how); every command then also runs from there (first on PYTHONPATH), interleaved.
What the light commands must not import is a normal test (tests/cli/test_cli_startup.py).

Bytecode: every process reads and writes its compiled modules in one folder of this run
(PYTHONPYCACHEPREFIX), written by the warm-up round, as an installed package's are written at
install; a caller's PYTHONDONTWRITEBYTECODE would otherwise make every round compile every
tablecert module from source again (a source checkout has no __pycache__ of its own until
something writes it). TABLECERT_STARTUP_COMPILE=1 measures that instead: no bytecode written
or read from the run's folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

ENTRY = "from tablecert.entry import main; main()"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WORK = Path(tempfile.gettempdir()) / f"tablecert-bench-startup-{os.getpid()}"
PYCACHE = WORK.with_name(WORK.name + "-pycache")
COMPILE = os.environ.get("TABLECERT_STARTUP_COMPILE") == "1"

RUNS = {
    "yardstick: python -c 'import numpy'": ["-c", "import numpy"],
    "tablecert --version": ["-c", ENTRY, "--version"],
    "tablecert --help": ["-c", ENTRY, "--help"],
    "tablecert compare": ["-c", ENTRY, "compare", "q-poker", "9s 9h 5d", "9c 9d 5s"],
    "tablecert hands": ["-c", ENTRY, "hands", "caribbean-stud"],
    "tablecert audit rng": [
        *("-c", ENTRY, "audit", "rng", str(FIXTURES / "nist" / "e.bin")),
        *("-N", "1", "-n", "100000", "-t", "Frequency"),
    ],
    "tablecert audit shuffler": [
        *("-c", ENTRY, "audit", "shuffler", str(FIXTURES / "logs" / "shuffler-sample.csv")),
    ],
    "tablecert audit rounds": [
        *("-c", ENTRY, "audit", "rounds", "--game", "q-poker"),
        str(FIXTURES / "rounds" / "q-poker-clean.csv"),
    ],
    "tablecert check": [
        *("-c", ENTRY, "check", str(FIXTURES / "configs" / "q-poker.casino-b.toml")),
    ],
    "tablecert verify": [
        *("-c", ENTRY, "verify", str(WORK / "env.json"), str(WORK / "log.csv")),
        *("--pubkey", str(WORK / "k.pub")),
    ],
}
# Exit statuses of the fixtures' verdicts (the sample shuffle log is too small to judge, the
# configuration deviates): anything else means the command did not run as meant.
EXPECTED = {"tablecert audit shuffler": 3, "tablecert check": 1}
BEFORE = os.environ.get("TABLECERT_STARTUP_BEFORE", "")
TREES = {"after": ""} | ({"before": BEFORE} if BEFORE else {})


@pytest.fixture(scope="module", autouse=True)
def signed_envelope() -> Iterator[None]:
    """The envelope `verify` checks: one file, signed by a fresh key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tablecert.report.signing import public_pem
    from tests.support import envelopes

    WORK.mkdir()
    key = Ed25519PrivateKey.generate()
    subjects = envelopes.files(WORK, {"log.csv": b"x\n"})
    (WORK / "env.json").write_bytes(envelopes.certification(subjects, key).to_bytes())
    (WORK / "k.pub").write_bytes(public_pem(key.public_key()))
    yield
    for path in WORK.iterdir():
        path.unlink()
    WORK.rmdir()
    shutil.rmtree(PYCACHE, ignore_errors=True)


def environment() -> dict[str, str]:
    env = dict(os.environ)
    if COMPILE:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def run(args: list[str], tree: str, expected: int = 0) -> None:
    env = environment()
    if tree:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    code = subprocess.run(
        [sys.executable, *args],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    ).returncode
    assert code == expected, (args, code)


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
    benchmark.extra_info["bytecode"] = "compiled each run" if COMPILE else "cached"
    args = (RUNS[name], TREES[tree], EXPECTED.get(name, 0))
    benchmark.pedantic(run, args=args, rounds=10, warmup_rounds=1)
