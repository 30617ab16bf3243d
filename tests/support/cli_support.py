"""Running ``tablecert`` in-process exactly as the installed script does (through ``run_app``,
so handled errors get their exit status and one-line message), with stdout and stderr apart;
or in a child process (``python -m tablecert``), for what only a real process shows."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from tablecert.cli import main
from tests.support.plan_support import write_plan


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


def tablecert(args: Sequence[str], env: Mapping[str, str] | None = None, stdin: str = "") -> Run:
    """``tablecert ARGS`` in this process: exit status, stdout and stderr."""
    runner = CliRunner()
    saved = sys.argv
    code: int | str | None = 0
    with runner.isolation(input=stdin, env=dict(env or {})) as (out, err, _):
        sys.argv = ["tablecert", *args]
        try:
            main()
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.argv = saved
        stdout = out.getvalue().decode("utf-8", "replace")
        stderr = err.getvalue().decode("utf-8", "replace")
    if code is None:
        code = 0
    if isinstance(code, str):
        stderr += code + "\n"
        code = 1
    return Run(code, stdout, stderr)


def tablecert_process(
    args: Sequence[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m tablecert ARGS`` in a child process, its output as text: the interpreter's
    start, the module's entry point and the bytes a shell would see, none of it shared with
    the test's process. ``env`` replaces the environment when given."""
    return subprocess.run(
        [sys.executable, "-m", "tablecert", *args],
        capture_output=True,
        text=True,
        check=False,
        env=None if env is None else dict(env),
    )


def certify_small_plan(folder: Path) -> Path:
    """A one-section plan (Q Poker's hand categories) in ``folder``, certified unsigned into
    ``folder/report``; the plan's path."""
    plan = write_plan(
        folder,
        '[certification]\ntitle = "guard"\nlab = "guard"\n\n[[section]]\n'
        'kind = "hand-categories"\ngame = "q-poker"\nrules = "q-poker.macau"\n',
    )
    run = tablecert(["certify", str(plan), "-o", str(folder / "report")])
    assert run.code == 0, run.stderr
    return plan
