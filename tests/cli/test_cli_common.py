"""The shared CLI machinery: one exit-code scheme, untrusted text shown as text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from tablecert.cli.common import ExitCode, exit_for, plain, run_app, stdout
from tablecert.errors import AuditError


def _app(action: object) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def run() -> None:
        if isinstance(action, BaseException):
            raise action

    @app.command()
    def other() -> None:  # a second command, so that `run` is a subcommand
        pass

    return app


def _run(app: typer.Typer, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "argv", ["tablecert", "run"])
    with pytest.raises(SystemExit) as exited:
        run_app(app)
    code = exited.value.code
    return 0 if code is None else int(code)


def test_exit_codes_are_the_documented_scheme() -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 4]
    for word, code in [
        ("pass", 0),
        ("CONFORMS", 0),
        ("valid", 0),
        ("fail", 1),
        ("Deviates", 1),
        ("invalid", 1),
        ("inconclusive", 3),
    ]:
        assert exit_for(word).exit_code == code
    with pytest.raises(ValueError, match="not a verdict word"):
        exit_for("skipped")


def test_handled_error_is_one_line_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _run(_app(AuditError("log.csv:3: bad [submission] \x1b[2J")), monkeypatch)
    err = capsys.readouterr().err
    assert code == 2
    assert err == "error: log.csv:3: bad [submission] \\x1b[2J\n"


def test_unexpected_exception_is_an_internal_error_exit_4(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _run(_app(ZeroDivisionError("Fraction(0, 0)")), monkeypatch)
    err = capsys.readouterr().err
    assert code == 4
    assert err.startswith("internal error: ZeroDivisionError: Fraction(0, 0)")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_broken_pipe_is_not_a_verdict() -> None:
    # `tablecert ... | head -c 1`: the reader goes away mid-output; the status is 2, never 0/1.
    script = """
import typer
from tablecert.cli.common import run_app, stdout
app = typer.Typer()
@app.command()
def run() -> None:
    for i in range(200_000):
        stdout.print(f"line {i}")
@app.command()
def other() -> None:
    pass
import sys
sys.argv = ["tablecert", "run"]
run_app(app)
"""
    proc = subprocess.run(
        ["/bin/bash", "-c", 'python -c "$0" | head -c 1 >/dev/null; echo ${PIPESTATUS[0]}', script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
    )
    assert proc.stdout.strip() == "2"
    assert proc.stderr == ""


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text", "plain text"),
        ("\x1b[2J\x1b[HVALID", "\\x1b[2J\\x1b[HVALID"),
        ("a\nVALID: 1 signature(s)", "a\\nVALID: 1 signature(s)"),
        ("tab\there", "tab\\there"),
        ("back\\slash", "back\\\\slash"),
        ("rtl \u202eevil", "rtl \\u202eevil"),
        ("c1 \x9b31m", "c1 \\x9b31m"),
        ("第九條(七)(3) [/] [bold]x[/]", "第九條(七)(3) [/] [bold]x[/]"),
    ],
)
def test_plain_shows_untrusted_text_literally(raw: str, shown: str) -> None:
    assert plain(raw) == shown


def test_consoles_never_interpret_markup_or_control_characters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stdout.print("title Plan [draft] [/] [bold]x[/] \x1b[2J end")
    out = capsys.readouterr().out
    assert out == "title Plan [draft] [/] [bold]x[/] \\x1b[2J end\n"
