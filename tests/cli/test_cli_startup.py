"""Light commands start fast: they must not import the heavy libraries (SciPy, Dask,
cryptography, jsonschema, Jinja2, pydantic) that only other commands need.

Checked by what the process imported (``sys.modules`` at exit, in a fresh interpreter), not
by a timing; the start-up times themselves are in benches/bench_startup.py and BENCHMARKS.md.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.cli.app import COMMANDS
from tablecert.cli.lazy import load_module

# pydantic: Typer 0.29 converts values with pydantic adapters; tablecert.cli.coercion converts
# the plain ones (str, int, float, paths) without it, about 50 ms of every command's start-up.
HEAVY = ("scipy", "dask", "distributed", "cryptography", "jsonschema", "jinja2", "pydantic")

# Runs the real entry point with the given arguments and, at exit, prints which of the heavy
# top-level packages were imported (the command's own output goes to /dev/null).
PROBE = """
import atexit, json, os, sys
heavy = set(sys.argv[1].split(","))
real_out = os.fdopen(os.dup(1), "w")
def report():
    names = set(sys.modules)
    loaded = sorted(({m.split(".")[0] for m in names} | names) & heavy)
    real_out.write("LOADED " + json.dumps(loaded) + "\\n")
    real_out.flush()
atexit.register(report)
devnull = os.open(os.devnull, os.O_WRONLY)
os.dup2(devnull, 1)
sys.argv = ["tablecert", *sys.argv[2:]]
from tablecert.cli import main
main()
"""


def loaded_heavy(*args: str, heavy: tuple[str, ...] = HEAVY) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(heavy), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = next(x for x in proc.stdout.splitlines() if x.startswith("LOADED "))
    loaded: list[str] = json.loads(line.removeprefix("LOADED "))
    return proc.returncode, loaded


@pytest.mark.parametrize(
    "args",
    [
        ("compare", "q-poker", "9s 9h 5d", "9c 9d 5s"),
        ("hands", "caribbean-stud"),
        ("--help",),
        ("--version",),
    ],
    ids=["compare", "hands", "help", "version"],
)
def test_light_commands_import_no_heavy_library(args: tuple[str, ...]) -> None:
    code, loaded = loaded_heavy(*args)
    assert code == 0
    assert loaded == []


def test_simulate_and_audit_import_what_they_use(tmp_path: Path) -> None:
    # `simulate shuffler` checks a deck name: not the battery, SciPy or the rounds commands;
    # `audit shuffler` runs the battery with scipy.special's compiled functions alone: not
    # scipy.stats (~0.6 s), nor scipy.special's own __init__ (~0.15 s; stats.pvalues).
    watched = (
        "scipy",
        "scipy.special",
        "scipy.stats",
        "tablecert.audit.battery",
        "tablecert.audit.shuffler",
        "tablecert.audit.rng",
        "tablecert.cli.audit.rng",
        "tablecert.cli.audit.rounds",
        "tablecert.cli.simulate.rounds",
        "pydantic",
        # A card audit without --game reads no rule file and deals no mahjong wall.
        "tablecert.poker",
        "tablecert.rules",
        "tablecert.mahjong",
    )
    log = tmp_path / "fair.csv.gz"
    simulate = ("simulate", "shuffler", "--model", "fair", "--shuffles", "3000", "-o", str(log))
    assert loaded_heavy(*simulate, heavy=watched) == (0, [])
    audit = ("audit", "shuffler", str(log), "--input-order", "logged", "--batch-size", "300")
    code, loaded = loaded_heavy(*audit, heavy=watched)
    assert code == 0
    assert loaded == ["scipy", "tablecert.audit.battery", "tablecert.audit.shuffler"]


# Runs `audit shuffler` through ENTRY (`tablecert.cli`: the command line alone; or
# `tablecert.entry`: the script) and says which of the watched modules were imported when the
# core was asked to start reading, and whether the command took a read the script started.
READ_PROBE = """
import importlib, os, sys
import tablecert.audit.started as started
real_out = os.fdopen(os.dup(1), "w")
watched, entry = sys.argv[1].split(","), sys.argv[2]  # before sys.argv is the command's
def probe_start(*args, **kwargs):
    loaded = sorted(m for m in watched if m in sys.modules)
    real_out.write("STARTED " + ",".join(loaded) + "\\n")
    return start(*args, **kwargs)
def probe_take(*args, **kwargs):
    offered = started._offered
    read = take(*args, **kwargs)
    real_out.write(f"TAKEN {offered is not None and read is offered}\\n")
    real_out.flush()
    return read
start, started._start = started._start, probe_start
take, started.start_reading = started.start_reading, probe_take
devnull = os.open(os.devnull, os.O_WRONLY)
os.dup2(devnull, 1)
sys.argv = ["tablecert", *sys.argv[3:]]
importlib.import_module(entry).main()
"""


def read_probe(watched: tuple[str, ...], entry: str, *args: str) -> tuple[int, list[str]]:
    """The exit status of ``tablecert ARGS`` run through ``entry``, and READ_PROBE's lines."""
    proc = subprocess.run(
        [sys.executable, "-c", READ_PROBE, ",".join(watched), entry, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout.splitlines()


def test_audit_shuffler_reads_before_the_battery_is_imported(tmp_path: Path) -> None:
    # The core starts reading before NumPy, the battery and SciPy are imported (about 0.1 s
    # of the command's start-up, then spent while the log is read; tablecert.audit.started).
    log = tmp_path / "fair.csv"
    simulate = ("simulate", "shuffler", "--model", "fair", "--shuffles", "500", "-o", str(log))
    assert loaded_heavy(*simulate) == (0, [])
    heavy = ("numpy", "scipy", "tablecert.audit.battery", "tablecert.audit.shuffler")
    audit = ("audit", "shuffler", str(log))
    assert read_probe(heavy, "tablecert.cli", *audit) == (0, ["STARTED ", "TAKEN False"])
    # Not with --game: the game's rule file decides what the core deals.
    code, lines = read_probe(("numpy",), "tablecert.cli", *audit, "--game", "q-poker")
    assert code in (0, 1, 3)
    assert lines == []


@pytest.mark.parametrize(
    ("options", "early"),
    [
        ((), True),
        (("--json", "--batch-size=100", "--input-order", "logged"), True),
        (("--svg-dir", "PLOTS"), False),
        (("--batch-size", "100", "--alpha", "0.5"), True),
    ],
)
def test_the_script_reads_a_shuffler_log_before_the_command_line(
    tmp_path: Path, options: tuple[str, ...], early: bool
) -> None:
    # The script starts the core reading before Typer, Rich and the command line are imported
    # (0.1-0.2 s of one core), and the command takes that read (tablecert.audit.started); an
    # option it does not know leaves the read to the command.
    log = tmp_path / "fair.csv"
    simulate = ("simulate", "shuffler", "--model", "fair", "--shuffles", "500", "-o", str(log))
    assert loaded_heavy(*simulate) == (0, [])
    heavy = ("numpy", "typer", "rich", "tablecert.cli")
    options = tuple(str(tmp_path / "plots") if o == "PLOTS" else o for o in options)
    code, lines = read_probe(heavy, "tablecert.entry", "audit", "shuffler", str(log), *options)
    assert code == 0
    if early:
        assert lines == ["STARTED ", "TAKEN True"]
    else:
        assert lines == ["STARTED rich,tablecert.cli,typer", "TAKEN False"]


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_audit_rng_imports_no_scipy() -> None:
    # The NIST decision's binomial tails come from tablecert.stats.pvalues (scipy.special's
    # Boost CDF, what scipy.stats.binom returns), not from scipy.stats (about 0.5 s); with one
    # sequence the only tail is 1 - alpha, computed without SciPy at all.
    # Nor the other audits' machinery (the shuffler battery, the round logs), nor the poker
    # API and the rule files that `import tablecert` loaded before it was imported on first
    # use (tablecert/__init__.py), nor pydantic (tablecert.cli.coercion).
    watched = (
        "scipy",
        "dask",
        "cryptography",
        "jsonschema",
        "jinja2",
        "pydantic",
        "tablecert.audit.battery",
        "tablecert.cli.audit.shuffler",
        "tablecert.cli.audit.rounds",
        "tablecert.rounds",
        "tablecert.poker",
        "tablecert.rules",
    )
    rng = ("audit", "rng", str(FIXTURES / "nist" / "e.bin"), "-N", "1", "-n", "100000")
    assert loaded_heavy(*rng, "-t", "Frequency", heavy=watched) == (0, [])
    # Several sequences need the binomial tails: scipy.special's compiled functions only, not
    # its __init__ (stats.pvalues.special_functions).
    several = ("audit", "rng", str(FIXTURES / "nist" / "e.bin"), "-N", "10", "-n", "100000")
    scipy_parts = ("scipy", "scipy.special", "scipy.special._ufuncs", "scipy.stats")
    code, loaded = loaded_heavy(*several, "-t", "Frequency", heavy=scipy_parts)
    assert code in (0, 1)
    assert loaded == ["scipy", "scipy.special._ufuncs"]


@pytest.mark.parametrize(
    ("args", "code", "heavy"),
    [
        # check's text formats values with report.display, a leaf: not the HTML renderer; its
        # strategy's distinct hands are found without np.unique, which imports numpy.ma.
        (
            ("check", "configs/q-poker.casino-b.toml"),
            1,
            (*HEAVY, "tablecert.report.html", "numpy.ma"),
        ),
        (
            ("audit", "rounds", "--game", "q-poker", "rounds/q-poker-clean.csv"),
            0,
            (*HEAVY, "tablecert.audit.battery", "tablecert.audit.rng", "tablecert.cli.audit.rng"),
        ),
    ],
    ids=["check", "audit-rounds"],
)
def test_check_and_audit_rounds_import_no_heavy_library(
    args: tuple[str, ...], code: int, heavy: tuple[str, ...]
) -> None:
    argv = [str(FIXTURES / a) if a.endswith((".toml", ".csv")) else a for a in args]
    assert loaded_heavy(*argv, heavy=heavy) == (code, [])


def test_verify_imports_no_certification_machinery(tmp_path: Path) -> None:
    # `verify` needs cryptography (the signatures) and jsonschema (the statement), not the
    # report sections, Jinja2, SciPy or the PDF printer that `certify` imports, nor the
    # poker API (`import tablecert` imports it on first use).
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tablecert.report.signing import public_pem
    from tests.support import envelopes

    key = Ed25519PrivateKey.generate()
    subjects = envelopes.files(tmp_path, {"log.csv": b"x\n"})
    envelope = tmp_path / "env.json"
    envelope.write_bytes(envelopes.certification(subjects, key).to_bytes())
    pub = tmp_path / "k.pub"
    pub.write_bytes(public_pem(key.public_key()))
    watched = (*HEAVY, "tablecert.report.certify", "tablecert.report.sections", "tablecert.poker")
    args = ("verify", str(envelope), str(tmp_path / "log.csv"), "--pubkey", str(pub))
    code, loaded = loaded_heavy(*args, heavy=watched)
    assert code == 0
    assert loaded == ["cryptography", "jsonschema"]


def test_probe_sees_a_heavy_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The probe itself can fail: generating a key does import cryptography.
    monkeypatch.setenv("TABLECERT_KEY_PASSPHRASE", "probe")
    code, loaded = loaded_heavy("keys", "generate", "-o", str(tmp_path / "lab"))
    assert code == 0
    assert "cryptography" in loaded


def test_listing_matches_the_real_commands() -> None:
    # `tablecert --help` lists the commands from tablecert.cli.app without importing them;
    # every module's real commands are exactly those names, with that first paragraph of help.
    real: dict[str, Any] = {}
    for module in dict.fromkeys(m for m, _ in COMMANDS.values()):
        for name, command in load_module(module).items():
            assert COMMANDS[name][0] == module, name
            real[name] = command
    assert sorted(real) == sorted(COMMANDS)
    for name, command in real.items():
        text = inspect.cleandoc(command.short_help or command.help or "")
        assert text.split("\n\n")[0] == COMMANDS[name][1], name


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["no-such-command"])
    assert result.exit_code == 2
    assert "No such command" in result.output


# A command's process once NumPy and SciPy's statistics are imported, as the heavy commands
# import them: OpenBLAS's setting and how many threads the process has (each OpenBLAS, NumPy's
# and SciPy's, starts a thread per core at import that spins waiting for work).
BLAS_PROBE = """
import json, os, sys
from tablecert.cli.lazy import load_module
load_module(sys.argv[1])
import numpy, scipy.stats
threads = len(os.listdir("/proc/self/task"))
print(json.dumps([os.environ.get("OPENBLAS_NUM_THREADS"), threads]))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
@pytest.mark.parametrize("module", ["analyze", "audit", "check", "certify"])
@pytest.mark.parametrize(("given", "want"), [(None, "1"), ("2", "2")])
def test_every_command_runs_numpy_and_scipy_with_one_blas_thread(
    module: str, given: str | None, want: str
) -> None:
    """OpenBLAS on one thread in every command's process, unless the user's environment sets
    it: the threads spun 0.13 s of CPU of an ``audit shuffler`` run, beside its reading
    threads on 2 cores (BENCHMARKS.md)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, module],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    setting, threads = json.loads(out.stdout)
    assert setting == want
    if given is None:
        assert threads == 1
