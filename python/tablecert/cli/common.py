"""What every command shares: consoles, JSON output, untrusted text, verdicts and exit codes.

One exit-code scheme for every command (docs/methodology/verdicts.md):

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

import contextlib
import io
import json
import os
import sys
from enum import IntEnum
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text

# Typer's own copy of click: its usage errors are reported in one line by run_app.
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

from tablecert.errors import CoreArgumentError, TableCertError
from tablecert.judgement import EXIT_STATUS, Outcome, verdict_words
from tablecert.visible_text import controls_escaped
from tablecert.visible_text import plain as plain  # every command prints outside text with it


class ExitCode(IntEnum):
    """The exit status of every command."""

    PASS = 0
    FAIL = 1
    USAGE = 2
    INCONCLUSIVE = 3
    INTERNAL = 4


#: How every command styles an outcome it prints (the words are the judgement layer's).
OUTCOME_STYLE: dict[Outcome, str] = {
    Outcome.PASS: "green",
    Outcome.FAIL: "bold red",
    Outcome.INCONCLUSIVE: "yellow",
    Outcome.HOUSE_CHOICE: "cyan",
    Outcome.NOT_APPLICABLE: "dim",
}

#: The help text's closing paragraph for judging commands (from the judgement layer's words).
EXIT_HELP = (
    "Exit status: "
    + ", ".join(
        f"{EXIT_STATUS[o]} {'/'.join(verdict_words(o))}" for o in (Outcome.PASS, Outcome.FAIL)
    )
    + ", 2 usage or input error, "
    + f"{EXIT_STATUS[Outcome.INCONCLUSIVE]} {Outcome.INCONCLUSIVE.word()}, 4 internal error."
)


def probability(ctx: typer.Context, param: typer.CallbackParam, value: float) -> float:
    """A significance level or confidence option: strictly between 0 and 1 (NaN is not)."""
    del ctx
    if not 0 < value < 1:
        name = param.opts[0] if param.opts else param.name
        raise typer.BadParameter(f"{value}: must be strictly between 0 and 1", param_hint=name)
    return value


def exit_for(verdict: Outcome | str) -> typer.Exit:
    """The exit (to raise) for an outcome, or a verdict word of any domain in any case:
    ``raise exit_for(result.outcome)``. Only pass, fail and inconclusive end a command."""
    outcome = verdict if isinstance(verdict, Outcome) else Outcome.parse(verdict)
    if outcome not in EXIT_STATUS:
        raise ValueError(f"not a verdict word: {verdict!r} (nothing was judged)")
    return typer.Exit(EXIT_STATUS[outcome])


class _SafeConsole(Console):
    """A console that never interprets markup in strings and shows control characters other than
    newline and tab as escapes (a second line of defence behind :func:`plain`)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(controls_escaped(text), **kwargs)

    def on_broken_pipe(self) -> None:
        _exit_after_broken_pipe()


def _interactive(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _sizes_that_print() -> dict[str, str]:
    """The environment without a ``COLUMNS`` or ``LINES`` that is not a positive number (a
    console 0 columns wide prints nothing at all): the terminal's own size is used instead."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "LINES") or (v.isdigit() and int(v) > 0)
    }


# Data on stdout, status on stderr. Markup is off: strings print as they are. Off a terminal,
# lines are never hard-wrapped (soft_wrap), so grep and pipes see whole lines.
stdout = _SafeConsole(highlight=False, markup=False, soft_wrap=True, _environ=_sizes_that_print())
stderr = _SafeConsole(
    stderr=True,
    highlight=False,
    markup=False,
    soft_wrap=not _interactive(sys.stderr),
    _environ=_sizes_that_print(),
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


def emit_json(data: Any, *, dialect: bool = True) -> None:
    """Write a command's JSON to stdout in tablecert's one dialect (docs/formats/json.md):
    ``schema`` (``tablecert.<command>/<version>``) and ``tablecert_version``, sorted keys,
    UTF-8, I-JSON (integers beyond 2^53 as strings). ``dialect=False`` writes a foreign
    format (e.g. a securesystemslib key) as it is defined, without the header."""
    from tablecert.exact import i_json

    if not dialect:
        pass
    elif isinstance(data, dict):
        data = {**dialect_header(), **data}
    else:
        data = {**dialect_header(), "items": data}
    sys.stdout.write(json.dumps(i_json(data), ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    sys.stdout.flush()  # whole before anything after it (an error line, the exit)


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
    """Print ``error: <message>`` on stderr in one line, every control or text-direction
    character in it shown as an escape. Backslashes stay as they are: a message quotes an
    outside value already escaped (``'\\x1b[2J'``), and doubling them would escape it twice."""
    stderr.print(Text.assemble(("error:", "bold red"), " ", plain(message, backslashes=False)))


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


def _streams_that_deliver() -> None:
    """Standard output and error able to carry every answer: text a stream's encoding cannot
    hold (Chinese articles under ``PYTHONIOENCODING=ascii``) is written as ``\\uXXXX``
    escapes, which in JSON are the same string; and a closed standard output is an input
    error before anything runs (an answer would be lost, and its exit status would lie)."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if isinstance(stream, io.TextIOWrapper) and encoding != "utf8":
            with contextlib.suppress(ValueError):
                stream.reconfigure(errors="backslashreplace")
    closed = sys.stdout is None
    with contextlib.suppress(AttributeError, ValueError):  # an in-memory stream has no fd
        fd = sys.stdout.fileno() if sys.stdout is not None else -1
        try:
            os.fstat(fd)
        except OSError:
            closed = True
    if closed:
        if sys.stderr is not None:
            error_line("standard output is closed: the answer could not be delivered")
        sys.exit(int(ExitCode.USAGE))


def run_app(app: typer.Typer) -> None:
    """Run the app under the exit-code scheme: handled errors (bad cards, bad rule files, bad
    logs, ...) print one line and exit 2; anything unexpected is an internal error, one line,
    exit 4; a broken pipe exits 2 silently."""
    _streams_that_deliver()
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
    except TableCertError as exc:
        if isinstance(exc, CoreArgumentError):  # tablecert's own call to the core: a bug
            _internal_error(exc)
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
        _internal_error(exc)
    sys.exit(code if isinstance(code, int) else 0)


def _internal_error(exc: Exception) -> NoReturn:
    """Report a bug in one line (its class and message, no traceback) and exit 4."""
    stderr.print(
        Text.assemble(
            ("internal error:", "bold red"),
            " ",
            plain(f"{type(exc).__name__}: {exc}"),
            " (a bug in tablecert; please report it with the command that caused it)",
        )
    )
    sys.exit(int(ExitCode.INTERNAL))
