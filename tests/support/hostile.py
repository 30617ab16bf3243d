"""Hostile text for the printing paths of every command, and the checks that it stayed text.

Anything tablecert prints that came from outside (envelopes, plans, logs, rule files,
configurations, evaluator answers, file names) must reach the terminal as inert text: no
escape sequence, no text-direction override, no line of its own, no Rich markup.
Feed :data:`HOSTILE` (or :func:`hostile`) into a value a command prints, run the command with
:func:`run_cli` (the real entry point, so error lines go through it too), then
:func:`assert_inert` the output::

    run = run_cli(["verify", str(envelope), "--pubkey", str(key)], monkeypatch, capsys)
    assert run.code == 1
    assert_inert(run.out + run.err, shown=[HOSTILE])
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pytest

from tablecert.cli import app
from tablecert.cli.common import plain, run_app

#: A line an attacker would like to see on the terminal; it must never start a line.
FORGED = "FORGED: VALID"

#: Clears the screen, homes the cursor, closes any Rich markup, turns text bold, reverses the
#: text direction, and starts a new line that looks like a verdict, then hides what follows.
HOSTILE = f"\x1b[2J\x1b[H[/][bold red]x[/bold red] [/] \u202edesrever\r\n{FORGED}\x1b[8m"


def hostile(tag: str) -> str:
    """:data:`HOSTILE` with a ``tag`` so a test can tell which value it reached the output in."""
    return f"{tag}:{HOSTILE}"


def hostile_file_name(tag: str) -> str:
    """A file name (no ``/`` or NUL) carrying the same payload."""
    return hostile(tag).replace("/", "|")


_BIDI = {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C}


def _raw_controls(text: str) -> list[str]:
    return sorted(
        {
            repr(ch)
            for ch in text
            if (ord(ch) < 0x20 and ch not in "\n\t") or 0x7F <= ord(ch) < 0xA0 or ord(ch) in _BIDI
        }
    )


def assert_inert(output: str, shown: Iterable[str] = ()) -> None:
    """``output`` holds no raw control or text-direction character, no line starting with
    :data:`FORGED`, and each of ``shown`` exactly as :func:`plain` writes it (so Rich markup in
    it was printed, not interpreted or dropped)."""
    assert not _raw_controls(output), f"raw control characters {_raw_controls(output)}"
    for line in output.splitlines():
        assert not line.lstrip(" -|").startswith(FORGED), f"forged line: {line!r}"
    for text in shown:
        assert plain(text) in output, f"{plain(text)!r} is not shown as text"


@dataclass(frozen=True)
class CliRun:
    code: int
    out: str
    err: str


def run_cli(
    args: Sequence[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: Mapping[str, str] | None = None,
) -> CliRun:
    """Run ``tablecert ARGS`` in-process through the real entry point (``run_app``: handled
    errors become one ``error:`` line and exit 2), capturing stdout and stderr."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["tablecert", *args])
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    code: int | str | None = 0
    try:
        run_app(app)
    except SystemExit as exited:
        code = exited.code
    captured = capsys.readouterr()
    return CliRun(0 if code is None else int(code), captured.out, captured.err)
