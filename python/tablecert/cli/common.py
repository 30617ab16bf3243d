"""What every command shares: consoles, JSON output, untrusted text, verdicts and exit codes.

One exit-code scheme for every command (README, "Exit codes"):

    0  pass / conforms / valid
    1  fail / deviates / invalid
    2  usage or input error: nothing was judged (missing or unreadable file, bad value, bad plan)
    3  inconclusive: not enough evidence to judge either way, or nothing submitted
    4  internal error: a bug in tablecert, reported in one line, never mistaken for a verdict

Text that comes from outside (logs, plans, rule files, configurations, envelopes, evaluator
answers) is data: the consoles never interpret Rich markup, and :func:`plain` shows control
characters as escapes so that nothing read from a file can move the cursor, clear the screen or
forge a line of output.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import Progress, ProgressColumn
from rich.text import Text

# Typer's own copy of click: its usage errors are reported in one line by run_app.
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

from tablecert.distributed import DaskExecutor, executor_for
from tablecert.errors import CardError, NistError, RulesError, TableCertError, TileError


class ExitCode(IntEnum):
    """The exit status of every command."""

    PASS = 0
    FAIL = 1
    USAGE = 2
    INCONCLUSIVE = 3
    INTERNAL = 4


#: Verdict words of every judging command (lower case in JSON) and the status each exits with.
VERDICT_EXIT: dict[str, ExitCode] = {
    "pass": ExitCode.PASS,
    "conforms": ExitCode.PASS,
    "valid": ExitCode.PASS,
    "fail": ExitCode.FAIL,
    "deviates": ExitCode.FAIL,
    "invalid": ExitCode.FAIL,
    "inconclusive": ExitCode.INCONCLUSIVE,
}

#: The help text's closing paragraph for judging commands.
EXIT_HELP = (
    "Exit status: 0 pass/conforms/valid, 1 fail/deviates/invalid, 2 usage or input error, "
    "3 inconclusive, 4 internal error."
)


def probability(ctx: typer.Context, param: typer.CallbackParam, value: float) -> float:
    """A significance level or confidence option: strictly between 0 and 1 (NaN is not)."""
    del ctx
    if not 0 < value < 1:
        name = param.opts[0] if param.opts else param.name
        raise typer.BadParameter(f"{value}: must be strictly between 0 and 1", param_hint=name)
    return value


def exit_for(verdict: str) -> typer.Exit:
    """The exit (to raise) for a verdict word, in any case: ``raise exit_for(result.verdict)``."""
    try:
        return typer.Exit(int(VERDICT_EXIT[verdict.lower()]))
    except KeyError:
        raise ValueError(f"not a verdict word: {verdict!r}") from None


# C0 controls, DEL, C1 controls, and the Unicode format characters that reorder or hide text
# (bidirectional overrides and isolates, zero-width joiners, BOM, line/paragraph separators).
_SHOWN_AS_ESCAPES = {
    **dict.fromkeys(range(32)),
    0x7F: None,
    **dict.fromkeys(range(128, 160)),
    **dict.fromkeys((8203, 8204, 8205, 8206, 8207, 8232, 8233, 65279)),
    **dict.fromkeys(range(8234, 8239)),
    **dict.fromkeys(range(8294, 8298)),
}
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def plain(value: object) -> str:
    """``value`` as text that a terminal shows literally: backslashes doubled, newlines, tabs,
    escape sequences and other control or text-direction characters written as ``\\n``,
    ``\\x1b``, ``\\u202e``. Use it for every string read from outside before printing it."""
    text = value if isinstance(value, str) else str(value)
    if not any(ord(ch) in _SHOWN_AS_ESCAPES or ch == "\\" for ch in text):
        return text
    out = []
    for ch in text:
        if ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif ord(ch) in _SHOWN_AS_ESCAPES:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def _controls_escaped(text: str) -> str:
    """Control and text-direction characters other than newline and tab as escapes."""
    if not any(ord(ch) in _SHOWN_AS_ESCAPES and ch not in "\n\t" for ch in text):
        return text
    return "".join(
        ch
        if ch in "\n\t" or ord(ch) not in _SHOWN_AS_ESCAPES
        else (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        for ch in text
    )


class _SafeConsole(Console):
    """A console that never interprets markup in strings and shows control characters other than
    newline and tab as escapes (a second line of defence behind :func:`plain`)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(_controls_escaped(text), **kwargs)

    def on_broken_pipe(self) -> None:
        _exit_after_broken_pipe()


def _interactive(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# Data on stdout, status on stderr. Markup is off: strings print as they are. Off a terminal,
# lines are never hard-wrapped (soft_wrap), so grep and pipes see whole lines.
stdout = _SafeConsole(highlight=False, markup=False, soft_wrap=True)
stderr = _SafeConsole(
    stderr=True, highlight=False, markup=False, soft_wrap=not _interactive(sys.stderr)
)

JsonOption = Annotated[bool, typer.Option("--json", help="Write machine-readable JSON to stdout.")]

ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="ADDRESS",
        help="Run the heavy work as shards on this Dask scheduler (tcp://host:8786).",
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="Run the heavy work as shards on a local Dask cluster of N worker processes.",
    ),
]


@contextmanager
def cluster_progress(
    cluster: str | None, workers: int | None, *columns: ProgressColumn | str
) -> Iterator[tuple[DaskExecutor | None, Progress]]:
    """The executor --cluster / --workers ask for (``None``: run locally), said on stderr,
    and a transient progress bar on stderr."""
    with (
        executor_for(cluster, workers) as executor,
        Progress(*columns, console=stderr, transient=True) as bar,
    ):
        if executor is not None:
            stderr.print(f"running on {executor.description}")
        yield executor, bar


def emit_json(data: Any, *, dialect: bool = True) -> None:
    """Write a command's JSON to stdout in tablecert's one dialect (README, "JSON output"):
    ``schema`` (``tablecert.<command>/<version>``) and ``tablecert_version``, sorted keys,
    UTF-8, I-JSON (integers beyond 2^53 as strings). ``dialect=False`` writes a foreign
    format (e.g. a securesystemslib key) as it is defined, without the header."""
    from tablecert.report.canonical import i_json

    if not dialect:
        pass
    elif isinstance(data, dict):
        data = {**dialect_header(), **data}
    else:
        data = {**dialect_header(), "items": data}
    sys.stdout.write(json.dumps(i_json(data), ensure_ascii=False, sort_keys=True, indent=2) + "\n")


#: The version of every command's JSON schema; bump it when a field changes meaning or goes.
JSON_SCHEMA_VERSION = 1


def dialect_header(command: str | None = None) -> dict[str, str]:
    """``schema`` and ``tablecert_version`` for the JSON of ``command`` (default: the command
    being run, e.g. ``audit shuffler`` -> ``tablecert.audit-shuffler/1``)."""
    import tablecert

    if command is None:
        command = _current_command()
    name = "-".join(command.split()) or "tablecert"
    return {
        "schema": f"tablecert.{name}/{JSON_SCHEMA_VERSION}",
        "tablecert_version": tablecert.__version__,
    }


def _current_command() -> str:
    """The running command's path below ``tablecert`` (``audit shuffler``), or ``""``."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - another Typer layout; the test names the commands
        return ""
    names = []
    ctx = get_current_context(silent=True)
    while ctx is not None and ctx.parent is not None:  # the root's name is the program's
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names))


def error_line(message: object) -> None:
    """Print ``error: <message>`` on stderr, the message shown as plain text."""
    stderr.print(Text.assemble(("error:", "bold red"), " ", plain(message)))


def fail(message: str) -> typer.Exit:
    """Print a usage or input error on stderr; raise the returned exception to exit 2."""
    error_line(message)
    return typer.Exit(int(ExitCode.USAGE))


def _exit_after_broken_pipe() -> NoReturn:
    # The reader went away: nothing more can be delivered, and that is no verdict. Point stdout
    # at /dev/null so the interpreter's final flush does not fail again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(int(ExitCode.USAGE))


def run_app(app: typer.Typer) -> None:
    """Run the app under the exit-code scheme: handled errors (bad cards, bad rule files, bad
    logs, ...) print one line and exit 2; anything unexpected is an internal error, one line,
    exit 4; a broken pipe exits 2 silently."""
    try:
        code = app(standalone_mode=False)
    except NoArgsIsHelpError:  # the help was shown; nothing was asked
        sys.exit(int(ExitCode.USAGE))
    except UsageError as exc:  # a bad option or argument: one line, like every other error
        where = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        error_line(f"{exc.format_message()}{where}")
        sys.exit(int(ExitCode.USAGE))
    except ClickException as exc:  # e.g. a file option that cannot be opened
        error_line(exc.format_message())
        sys.exit(int(ExitCode.USAGE))
    except typer.Abort:
        stderr.print("aborted")
        sys.exit(130)
    except (CardError, RulesError, TableCertError, TileError, NistError) as exc:
        error_line(exc)
        sys.exit(int(ExitCode.USAGE))
    except BrokenPipeError:
        _exit_after_broken_pipe()
    except OSError as exc:  # a path the system refuses (too long, no permission, ...): input
        where = f"{exc.filename}: " if exc.filename is not None else ""
        error_line(f"{where}{exc.strerror or exc}")
        sys.exit(int(ExitCode.USAGE))
    except KeyboardInterrupt:
        stderr.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # a bug: never a traceback, never a verdict
        stderr.print(
            Text.assemble(
                ("internal error:", "bold red"),
                " ",
                plain(f"{type(exc).__name__}: {exc}"),
                " (a bug in tablecert; please report it with the command that caused it)",
            )
        )
        sys.exit(int(ExitCode.INTERNAL))
    sys.exit(code if isinstance(code, int) else 0)
