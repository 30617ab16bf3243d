"""Vendor evaluators run isolated, and an evaluator the lab set up wrongly is an input error.

Each test is an attack or a set-up mistake: a Python evaluator that calls ``os._exit(0)``,
prints a forged verdict or replaces tablecert's comparison; a native library that kills its
parent, forks a daemon, hangs in its constructor or writes on descriptor 1; a ``cmd:``
program that starts a grandchild in a session of its own; evaluators that cannot be started,
imported or loaded (exit 2, never a signed FAIL); signed findings with machine paths; a
benchmark of a wrong library. The hostile libraries are built from
``fixtures/evaluators/native/hostile_evaluator.c`` with the system C compiler. Commands whose
own process could be killed by the attack run as a real ``tablecert`` process.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.cli.common import run_app
from tablecert.conformance import evaluator_protocol, native_bench
from tablecert.conformance.evaluator_errors import EvaluatorError, EvaluatorStartError
from tablecert.conformance.evaluator_protocol import open_evaluator
from tablecert.conformance.isolation import Isolated, Limits, is_shared_library
from tablecert.conformance.native_crosscheck import HandTable
from tablecert.conformance.native_evaluator import NativeEvaluator, NativeSpec
from tablecert.errors import PlanError
from tablecert.report.certify import certify
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "fixtures" / "evaluators" / "native"
EVALUATORS = ROOT / "fixtures" / "evaluators"
TABLECERT = Path(sys.executable).parent / "tablecert"
REQUEST = "category As Kh Td"
HOSTILE = ("KILL_PARENT", "FORK", "HANG_AT_LOAD", "STDOUT")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample and defective libraries (the Makefile) and the hostile ones."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("hostile")
    subprocess.run(["make", "-s", "-C", str(NATIVE), f"OUT={out}"], check=True)
    for act in HOSTILE:
        subprocess.run(
            [
                "cc",
                "-O2",
                "-fPIC",
                "-std=c11",
                "-shared",
                f"-DHOSTILE_{act}",
                "-o",
                str(out / f"libhostile-{act.lower().replace('_', '-')}.so"),
                str(NATIVE / "hostile_evaluator.c"),
                str(NATIVE / "sample_evaluator.c"),
            ],
            check=True,
        )
    return out


def run_tablecert(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own (an attack that kills it shows as -9)."""
    return subprocess.run(
        [str(TABLECERT), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture
def cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str]]:
    """``tablecert ARGS`` through the real entry point (``run_app``): the exit status and the
    one ``error:`` line on stderr ("" if none)."""

    def run(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["tablecert", *args])
        with pytest.raises(SystemExit) as exited:
            run_app(app)
        err = capsys.readouterr().err
        assert "Traceback" not in err, err
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        return int(exited.value.code or 0), " ".join(errors)

    return run


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:  # a zombie is dead, awaiting its parent
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


# --- Python evaluators: another process -----------------------------------------------------


def test_os_exit_in_a_python_evaluator_is_its_failure(tmp_path: Path) -> None:
    (tmp_path / "e.py").write_text("import os\ndef f(request):\n    os._exit(0)\n")
    with pytest.raises(EvaluatorError, match=r"exited with status 0 before answering 'category"):
        list(open_evaluator(f"{tmp_path / 'e.py'}:f", 5)([REQUEST]))
    # The command goes on to its verdict: DEVIATES, exit 1 (was: tablecert itself exited 0).
    run = run_tablecert(
        "crosscheck", "mahjong", "mahjong-traditional", "--generate", "3",
        "--scorer", f"{tmp_path / 'e.py'}:f",
    )  # fmt: skip
    assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)
    assert "exited with status 0 before answering" in run.stdout
    assert "verdict: DEVIATES" in run.stdout


def test_a_python_evaluators_output_never_reaches_tablecerts(tmp_path: Path) -> None:
    (tmp_path / "loud.py").write_text(
        "import os, sys\n"
        f"sys.path.insert(0, {str(EVALUATORS)!r})\n"
        "from vendor_mahjong import statute\n"
        "print('verdict: CONFORMS (at import)')\n"
        "def f(request):\n"
        "    print('verdict: CONFORMS')\n"
        '    os.write(1, b\'{"verdict": "conforms"}\\n\')\n'
        "    sys.stdout.flush()\n"
        "    return statute(request)\n"
    )
    run = run_tablecert(
        "crosscheck", "mahjong", "mahjong-traditional", "--generate", "4", "--json",
        "--scorer", f"{tmp_path / 'loud.py'}:f",
    )  # fmt: skip
    assert run.returncode == 0, (run.stdout, run.stderr)
    report = json.loads(run.stdout)  # one JSON document: nothing else on stdout
    assert report["verdict"] == "conforms"
    assert "CONFORMS" not in run.stdout + run.stderr


def test_replacing_tablecerts_comparison_cannot_change_the_verdict(tmp_path: Path) -> None:
    """A wrapper of a defective evaluator that makes tablecert's comparison always agree: the
    evaluator's process has its own copy of tablecert, so it patches nothing of the judge's
    (was: CONFORMS, exit 0)."""
    (tmp_path / "cheat.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(EVALUATORS)!r})\n"
        "import tablecert.conformance.poker_crosscheck as pc\n"
        "from vendor_poker import q_poker_pushes_ties\n"
        "pc._same_answer = lambda *a, **k: True\n"
        "def f(request):\n"
        "    return q_poker_pushes_ties(request)\n"
    )
    small = ["--hands", "50", "--suit-pairs", "50", "--other-pairs", "50"]
    run = CliRunner().invoke(
        app,
        ["crosscheck", "poker", "q-poker", *small, "--evaluator", f"{tmp_path / 'cheat.py'}:f"],
    )
    assert run.exit_code == 1, run.output
    assert "evaluator answers PUSH" in run.stdout
    assert "verdict: DEVIATES" in run.stdout


def test_a_python_module_hanging_or_dying_at_import_fails_its_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It started and then hung or died: evidence against it (a failed check), not a set-up
    error; the crosscheck still reaches its verdict."""
    monkeypatch.setattr(evaluator_protocol, "IMPORT_TIMEOUT_FLOOR_S", 0.5)
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(60)\ndef f(r):\n    return r\n")
    (tmp_path / "dies.py").write_text("import os\nos._exit(3)\n")
    answer = open_evaluator(f"{tmp_path / 'slow.py'}:f", 0.5)
    with pytest.raises(EvaluatorError, match=r"hung while loading: no answer within 0\.5 s"):
        list(answer([REQUEST]))
    answer = open_evaluator(f"{tmp_path / 'dies.py'}:f", 5)
    with pytest.raises(EvaluatorError, match="exited with status 3 while loading"):
        list(answer([REQUEST]))


def test_a_python_evaluator_is_bounded_in_memory(tmp_path: Path) -> None:
    """Ten gibibytes are refused by the address-space limit (8 GiB): a failed check naming
    MemoryError (was: asked of tablecert's own process)."""
    (tmp_path / "greedy.py").write_text(
        "def f(request):\n    return str(len(bytearray(10 << 30)))\n"
    )
    with pytest.raises(EvaluatorError, match="evaluator raised MemoryError"):
        list(open_evaluator(f"{tmp_path / 'greedy.py'}:f", 30)([REQUEST]))


def test_python_evaluator_answers_batched_and_in_order(tmp_path: Path) -> None:
    (tmp_path / "echo.py").write_text("def f(request):\n    return request.upper()\n")
    requests = [f"category {i}" for i in range(5_000)]
    answers = list(open_evaluator(f"{tmp_path / 'echo.py'}:f", 5)(requests))
    assert answers == [r.upper() for r in requests]


# --- native libraries -----------------------------------------------------------------------


@needs_cc
def test_a_library_killing_its_parent_does_not_end_tablecert(libs: Path) -> None:
    run = run_tablecert(
        "crosscheck", "poker", "q-poker", "--other-pairs", "100",
        "--evaluator", f"so:{libs / 'libhostile-kill-parent.so'}:hostile_evaluate",
    )  # fmt: skip
    assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)  # was -9
    assert "killed its supervisor process" in run.stdout
    assert "verdict: DEVIATES" in run.stdout


@needs_cc
def test_a_forked_daemon_dies_with_the_library(libs: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    lib = NativeSpec.parse(f"so:{libs / 'libhostile-fork.so'}:hostile_evaluate")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TABLECERT_HOSTILE_PIDFILE", str(pidfile))
        with NativeEvaluator(lib, 10) as evaluator:
            evaluator.scores(HandTable("q-poker").hands[:100])
            daemon = int(pidfile.read_text())
            assert not gone(daemon)
    assert gone(daemon)  # was: alive, a child of init, after tablecert had finished


@needs_cc
def test_a_library_hanging_while_loading_is_named_so_promptly(libs: Path) -> None:
    """It says it hung while loading, with the real wait (was: after 61 s, "no answer within
    1.0 s")."""
    lib = NativeSpec.parse(f"so:{libs / 'libhostile-hang-at-load.so'}:hostile_evaluate")
    with pytest.raises(EvaluatorError) as caught:
        NativeEvaluator(lib, 1.0)
    message = str(caught.value)
    assert re.search(r"hung while loading: .* within 1 s \(waited \d+\.\d s\)", message), message


@needs_cc
def test_a_library_writing_on_stdout_breaks_neither_protocol_nor_output(libs: Path) -> None:
    run = run_tablecert(
        "crosscheck", "poker", "q-poker", "--other-pairs", "100", "--json",
        "--evaluator", f"so:{libs / 'libhostile-stdout.so'}:hostile_evaluate",
    )  # fmt: skip
    assert run.returncode == 0, (run.stdout, run.stderr)
    assert json.loads(run.stdout)["verdict"] == "conforms"
    assert "written by the library" not in run.stdout


# --- cmd: programs ----------------------------------------------------------------------------


def test_a_commands_grandchild_in_its_own_session_dies_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    script = tmp_path / "spawns.py"
    script.write_text(
        "import subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "for line in sys.stdin:\n"
        "    print('high card', flush=True)\n"
    )
    answers = list(open_evaluator(f"cmd:{sys.executable} {script}", 10)([REQUEST] * 3))
    assert answers == ["high card"] * 3
    assert gone(int(pidfile.read_text()))


def test_an_evaluator_dies_with_tablecert_killed(tmp_path: Path) -> None:
    """tablecert killed with SIGKILL runs no clean-up: the supervisor sees its control pipe
    close and kills the evaluator (was: left running, re-parented to init)."""
    pidfile = tmp_path / "evaluator.pid"
    script = tmp_path / "sleeper.py"
    script.write_text(f"import os, time\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
                      "time.sleep(600)\n")  # fmt: skip
    command = [
        str(TABLECERT), "crosscheck", "mahjong", "mahjong-simple", "--generate", "2",
        "--timeout", "600", "--scorer", f"cmd:{sys.executable} {script}",
    ]  # fmt: skip
    tablecert = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(3000):  # until the evaluator runs (bounded: 30 s)
            if pidfile.exists() and pidfile.read_text():
                break
            time.sleep(0.01)
        evaluator = int(pidfile.read_text())
    finally:
        tablecert.kill()
        tablecert.wait()
    for _ in range(1000):  # until the supervisor has killed it (bounded: 10 s)
        if gone(evaluator):
            break
        time.sleep(0.01)
    assert gone(evaluator)


def test_resource_limits_apply_to_the_vendors_process() -> None:
    probe = (
        "import resource\n"
        "for r in ('RLIMIT_AS', 'RLIMIT_CPU', 'RLIMIT_NOFILE', 'RLIMIT_CORE'):\n"
        "    print(resource.getrlimit(getattr(resource, r))[0])\n"
    )
    limits = Limits(memory_bytes=3 << 30, cpu_seconds=77, open_files=64)
    with Isolated([sys.executable, "-c", probe], "probe", limits) as proc:
        proc.close_input()
        output = b""
        while chunk := os.read(proc.stdout_fd, 4096):
            output += chunk
        ending = proc.ending(10)
    assert output.split() == [str(3 << 30).encode(), b"77", b"64", b"0"]
    assert ending is not None
    assert ending.code == 0


def test_the_signing_passphrase_is_withheld_from_vendor_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TABLECERT_KEY_PASSPHRASE", "s3cret")
    monkeypatch.setenv("SOME_OTHER_SETTING", "kept")
    probe = (
        "import os\nprint(sorted(k for k in os.environ if k.startswith(('TABLECERT_K', 'SOME_'))))"
    )
    with Isolated([sys.executable, "-c", probe], "probe") as proc:
        proc.close_input()
        output = b""
        while chunk := os.read(proc.stdout_fd, 4096):
            output += chunk
    assert output.decode().strip() == "['SOME_OTHER_SETTING']"


def test_cpu_time_beyond_the_limit_is_named() -> None:
    burn = "while True:\n    pass\n"
    with Isolated([sys.executable, "-c", burn], "burner", Limits(cpu_seconds=1)) as proc:
        ending = proc.ending(30)
    assert ending is not None
    assert ending.describe(Limits(cpu_seconds=1)) == (
        "was stopped at its CPU time limit of 1 s (SIGXCPU)"
    )


# --- set-up errors are input errors, found before anything runs ------------------------------


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("cmd:/nonexistent/evaluator", "cannot start: No such file or directory"),
        ("cmd:no-such-program-anywhere", "no program 'no-such-program-anywhere' on PATH"),
        ("/nonexistent/e.py:f", "no Python file /nonexistent/e.py"),
        ("no_such_module_anywhere:f", "cannot import: ModuleNotFoundError"),
    ],
)
def test_an_evaluator_that_cannot_start_is_an_input_error(
    cli: Callable[..., tuple[int, str]], spec: str, needle: str
) -> None:
    with pytest.raises(EvaluatorStartError, match=re.escape(needle)):
        open_evaluator(spec)
    for command in (["poker", "q-poker", "--evaluator"], ["mahjong", "mahjong-simple", "--scorer"]):
        code, error = cli("crosscheck", *command, spec)
        assert code == 2, error
        assert needle in error


def test_a_script_that_is_not_executable_is_an_input_error(
    cli: Callable[..., tuple[int, str]], tmp_path: Path
) -> None:
    script = tmp_path / "eval.pl"
    shutil.copy(EVALUATORS / "q_poker_statute.pl", script)
    script.chmod(0o644)
    code, error = cli("crosscheck", "poker", "q-poker", "--evaluator", f"cmd:{script}")
    assert code == 2, error  # was: exit 1, "cannot start: Permission denied" as a DEVIATES
    assert "eval.pl': cannot start: Permission denied" in error


@needs_cc
def test_a_library_given_as_a_program_is_an_input_error(
    cli: Callable[..., tuple[int, str]], libs: Path
) -> None:
    assert is_shared_library(libs / "libsample.so")
    assert not is_shared_library(Path(sys.executable).resolve())
    code, error = cli(
        "crosscheck", "poker", "q-poker", "--evaluator", f"cmd:{libs / 'libsample.so'}"
    )
    assert code == 2, error  # was: exit 1, "exited with status -11"
    assert "libsample.so is a shared library, not a program: give it as so:" in error


@needs_cc
def test_a_library_that_cannot_be_loaded_is_an_input_error(
    cli: Callable[..., tuple[int, str]], libs: Path, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not an ELF file")
    for spec in (f"so:{libs / 'libsample.so'}:no_such_symbol", f"so:{junk}"):
        with pytest.raises(EvaluatorStartError, match="cannot load"):
            NativeEvaluator(NativeSpec.parse(spec))
        code, error = cli("crosscheck", "poker", "q-poker", "--evaluator", spec)
        assert code == 2, error  # was: exit 1, a DEVIATES verdict
        assert "cannot load" in error


# --- plans ------------------------------------------------------------------------------------

CERTIFICATION = """[certification]
title = "Evaluator plan"
lab = "tablecert tests"
report_id = "TC-EVAL-001"
revision = 1
issue_date = 2026-11-30
applicant = "Casino C (example)"
manufacturer = "Example Vendor (fictitious)"
standards = ["Macau Administrative Regulation 89/2004"]

[certification.signatory]
name = "T. Tester"
role = "Test Engineer"

[[section]]
kind = "evaluator-crosscheck"
game = "q-poker"
rules = "q-poker.macau"
"""


def plan_file(folder: Path, body: str) -> Path:
    return write_plan(folder, CERTIFICATION + body)


def run_certify(plan: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run_tablecert("certify", str(plan), "-o", str(out))


@needs_cc
def test_a_plan_naming_a_library_as_a_program_is_a_plan_error(libs: Path, tmp_path: Path) -> None:
    shutil.copy(libs / "libsample.so", tmp_path / "libsample.so")
    plan = plan_file(tmp_path, 'evaluator = "libsample.so"\n')
    with pytest.raises(PlanError, match=r'libsample.so is a shared library.*library = "libsample'):
        certify(plan, Ed25519PrivateKey.generate(), tmp_path / "out", ephemeral=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["libsample.so", "plan.toml"]


def test_a_plan_dropping_the_interpreter_is_a_plan_error(tmp_path: Path) -> None:
    script = tmp_path / "q_poker_statute.pl"
    shutil.copy(EVALUATORS / "q_poker_statute.pl", script)
    script.chmod(0o644)
    plan = plan_file(tmp_path, 'evaluator = "q_poker_statute.pl"\nother_pairs = 10\n')
    with pytest.raises(PlanError, match=r'evaluator: q_poker_statute.pl is not executable.*"perl"'):
        certify(plan, Ed25519PrivateKey.generate(), tmp_path / "out", ephemeral=True)
    missing = plan_file(
        tmp_path, 'evaluator = "q_poker_statute.pl"\ncommand = "no-such-perl"\nother_pairs = 10\n'
    )
    with pytest.raises(PlanError, match="command: no program 'no-such-perl' on PATH"):
        certify(missing, Ed25519PrivateKey.generate(), tmp_path / "out", ephemeral=True)
    assert not (tmp_path / "out").exists()


def test_a_plan_python_evaluator_that_cannot_import_is_a_plan_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(
        "import no_such_module_anywhere\ndef f(r):\n    return ''\n"
    )
    plan = plan_file(tmp_path, 'evaluator = "broken.py"\nfunction = "f"\nother_pairs = 10\n')
    run = run_certify(plan, tmp_path / "out")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "evaluator: evaluator 'broken.py:f': cannot import: ModuleNotFoundError" in run.stderr
    assert not (tmp_path / "out").exists()


@needs_cc
def test_a_plan_certifies_a_native_library_exhaustively(libs: Path, tmp_path: Path) -> None:
    for name in ("libsample.so", "libdefect-no-suit.so", "libdefect-crash.so"):
        shutil.copy(libs / name, tmp_path / name)
    good = plan_file(tmp_path, 'library = "libsample.so"\nother_pairs = 1000\n')
    run = run_certify(good, tmp_path / "good")
    assert run.returncode == 0, (run.stdout, run.stderr)
    text = (tmp_path / "good" / "report.json").read_text(encoding="utf-8")
    report = json.loads(text)
    (section,) = [s for s in report["sections"] if s["id"].startswith("evaluator-crosscheck/")]
    assert section["id"] == "evaluator-crosscheck/q-poker/libsample.so"
    assert [c["checked"] for c in section["data"]["checks"]][1:] == [225_264, 1000]
    assert section["data"]["complete_suit_pairs"] == 225_264
    assert str(tmp_path) not in text
    bad = plan_file(tmp_path, 'library = "libdefect-no-suit.so"\nother_pairs = 1000\n')
    run = run_certify(bad, tmp_path / "bad")
    assert run.returncode == 1, (run.stdout, run.stderr)
    text = (tmp_path / "bad" / "report.json").read_text(encoding="utf-8")
    assert "answers PUSH in 5,616 of 5,616" in text
    crash = plan_file(tmp_path, 'library = "libdefect-crash.so"\nother_pairs = 1000\n')
    run = run_certify(crash, tmp_path / "crash")
    assert run.returncode == 1, (run.stdout, run.stderr)
    text = (tmp_path / "crash" / "report.json").read_text(encoding="utf-8")
    assert "libdefect-crash.so crashed (SIGSEGV) while scoring hands" in text
    assert str(tmp_path) not in text
    assert ".cert." not in text


def test_signed_findings_name_the_evaluator_file_not_its_snapshot_path(tmp_path: Path) -> None:
    """The evaluator's last words quote its own path (certify's copy of it): the signed
    finding names the file as the plan does."""
    (tmp_path / "dies.script").write_text(
        "import sys\nsys.stdin.readline()\nsys.exit(f'{sys.argv[0]}: cannot go on')\n"
    )
    plan = plan_file(
        tmp_path,
        f'evaluator = "dies.script"\ncommand = "{sys.executable}"\nhands = 5\nsuit_pairs = 5\n'
        "other_pairs = 5\nsettlements = 1\n",
    )
    run = run_certify(plan, tmp_path / "out")
    assert run.returncode == 1, (run.stdout, run.stderr)
    text = (tmp_path / "out" / "report.json").read_text(encoding="utf-8")
    assert "exited with status 1 before answering" in text
    assert "stderr: dies.script: cannot go on" in text
    assert str(tmp_path) not in text
    assert "scratch" not in text


# --- benchmark mode -------------------------------------------------------------------------


@needs_cc
def test_a_benchmark_counts_wrong_answers_and_deviates(
    libs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = functools.partial(native_bench.benchmark, random_hands=20_000, pairs=5_000)
    bench = small("q-poker", f"so:{libs / 'libdefect-no-suit.so'}", repeat=1)
    assert bench.verdict == "deviates"
    wrong = {c.name: (c.mismatches, c.checked) for c in bench.agreement.checks}
    # Every suit-decided pair pushes: all 225,264 of the complete set, all 5,000 timed pairs.
    assert wrong["suit-decided pairs (complete)"] == (225_264, 225_264)
    assert wrong["timed answers: the suit-decided pairs"] == (5_000, 5_000)
    good = small("q-poker", f"so:{libs / 'libsample.so'}", repeat=1)
    assert good.verdict == "conforms"
    assert all(c.mismatches == 0 and c.checked > 0 for c in good.agreement.checks)
    monkeypatch.setattr(native_bench, "benchmark", small)
    run = CliRunner().invoke(
        app,
        [
            "crosscheck", "poker", "q-poker", "--benchmark", "--repeat", "1",
            "--evaluator", f"so:{libs / 'libdefect-no-suit.so'}",
        ],
    )  # fmt: skip
    assert run.exit_code == 1, run.output  # was: 0, timings only
    assert "suit-decided pairs (complete): 225,264 of 225,264 disagree" in run.stdout
    assert "timed answers: DEVIATES" in run.stdout
