"""Running ``tablecert`` in-process exactly as the installed script does (through ``run_app``,
so handled errors get their exit status and one-line message), with stdout and stderr apart."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from typer.testing import CliRunner

from tablecert.cli import main


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
