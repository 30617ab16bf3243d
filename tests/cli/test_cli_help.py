"""Every command's ``--help`` reads at 80 and 120 columns: no ragged hard breaks, no raw
markup, no type names where a value's name belongs.

A *ragged hard break* is a line of help text followed by a line that continues the same text
(it starts in the column where the last cell of the line above starts, and is neither a list
item ``-`` nor one of Typer's ``[default: ...]``/``[required]`` notes) whose first word
would have fitted on the first line: a greedy wrap never leaves that, so the break came from
the source, not from the width. Inside a panel (``│ ... │``) the text is
a table cell: its right edge is the panel's, less one column of padding.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.cli.conventions import reflowed

WIDTHS = (80, 120)
TYPE_NAME = re.compile(r"<(?:str|int|float|bool|path|file|dir|list\[[^>]*\]|[a-z]+ range)>")
RAW_MARKUP = re.compile(r"``|\[/?(?:bold|dim|italic|red|green|yellow|cyan|b|i|u)\]")


def _commands() -> Iterator[tuple[str, ...]]:
    """The path of every command and group under ``tablecert``, the root included."""
    root = typer.main.get_command(app)

    def walk(group: TyperGroup, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        yield path
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            if isinstance(command, TyperGroup):
                yield from walk(command, (*path, name))
            else:
                yield (*path, name)

    assert isinstance(root, TyperGroup)
    yield from walk(root, ())


COMMANDS = sorted(_commands())


def _help(path: tuple[str, ...], width: int) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.stdout


def _cell(line: str) -> tuple[str, int] | None:
    """A line's text area and the width available in it: inside a panel the part between the
    borders (less the right padding), else the line less its one-column margins."""
    if line.startswith("│") and line.rstrip().endswith("│"):
        inner = line.rstrip()[1:-1]
        return inner, len(inner) - 1
    if line[:1] in "╭╰" or not line.strip():
        return None
    return line, len(line) - 1


def _last_cell(line: str) -> int:
    """Where the last cell of a line starts: its last text after two or more spaces (cells are
    padded apart), or its first text."""
    starts = [m.start(1) for m in re.finditer(r"(?:^ *|  +)(\S)", line.rstrip())]
    return starts[-1] if starts else 0


def ragged_breaks(text: str, width: int) -> list[str]:
    """The lines of ``text`` (help rendered at ``width``) that end a ragged hard break."""
    found = []
    lines = [ln.ljust(width) for ln in text.splitlines()]
    for above, below in itertools.pairwise(lines):
        a, b = _cell(above), _cell(below)
        if a is None or b is None or len(a[0]) != len(b[0]):
            continue
        (upper, room), (lower, _) = a, b
        start = len(lower) - len(lower.lstrip())
        if not lower.strip() or start != _last_cell(upper):
            continue  # a new row, or another column: not a continuation of the text above
        word = lower.split()[0]
        if word.startswith("[") or word == "-":
            continue
        if len(upper[start:].rstrip()) + 1 + len(word) <= room - start:
            found.append(f"{above.strip()!r} / {below.strip()!r}")
    return found


def test_the_ragged_detector_sees_a_hard_break_and_not_a_wrap() -> None:
    hard = " The first line of a sentence\n that goes on here.\n".replace("\n", " " * 10 + "\n")
    assert ragged_breaks(hard, 40) == [
        f"{'The first line of a sentence'!r} / {'that goes on here.'!r}"
    ]
    wrapped = " The first line of a sentence that\n goes on here.\n"
    assert ragged_breaks(wrapped, 36) == []
    cut = "│ --x   N   Some help cut" + " " * 20 + "│\n│           here by hand." + " " * 20 + "│\n"
    assert len(ragged_breaks(cut, 47)) == 1
    new_row = cut.replace("│           here by hand.", "│ --y       Other help.  ")
    assert ragged_breaks(new_row, 47) == []


def test_every_command_is_listed() -> None:
    names = {" ".join(p) for p in COMMANDS}
    assert {"", "certify", "crosscheck poker", "audit rng", "keys export"} <= names
    assert len(names) >= 25


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "tablecert")
def test_help_wraps_cleanly_with_names_not_types(path: tuple[str, ...], width: int) -> None:
    text = _help(path, width)
    assert ragged_breaks(text, width) == [], text
    assert RAW_MARKUP.findall(text) == [], text
    assert TYPE_NAME.findall(text) == [], text


def test_reflowed_joins_a_paragraph_and_keeps_lists_and_verbatim_blocks() -> None:
    text = "One line\n  and its end.\n\nA list:\n- first\n- second\n\n\b\nkept\nas is"
    assert reflowed(text) == "One line and its end.\n\nA list:\n- first\n- second\n\nkept\nas is"


def test_an_argument_an_old_option_may_replace_is_shown_required() -> None:
    usage = _help(("crosscheck", "poker"), 120).split("Usage:")[1].splitlines()[0]
    assert usage.split() == ["tablecert", "crosscheck", "poker", "[OPTIONS]", "GAME"]


def test_evaluator_option_help_names_every_kind_of_evaluator() -> None:
    text = " ".join(_help(("crosscheck", "poker"), 200).split())
    option = text[text.index("--evaluator SPEC") : text.index("--rules")]  # its row only
    for kind in ("module:function", "file.py:function", "cmd:COMMAND", "file:ANSWERS", "so:"):
        assert kind in option


def test_simulate_shuffler_says_shuffles_is_required() -> None:
    text = _help(("simulate", "shuffler"), 200)
    line = next(ln for ln in text.splitlines() if "--shuffles" in ln)
    assert "required" in line


@pytest.mark.parametrize(
    ("path", "usage"),
    [
        (("audit", "shuffler"), "tablecert audit shuffler [OPTIONS] LOG..."),
        (("audit", "rng"), "tablecert audit rng [OPTIONS] FILE..."),
        (("analyze", "sweep"), "tablecert analyze sweep [OPTIONS] GAME RULES..."),
        (("certify",), "tablecert certify [OPTIONS] PLAN"),
        (("verify",), "tablecert verify [OPTIONS] ENVELOPE [FILE]..."),
    ],
    ids=lambda v: v if isinstance(v, str) and "OPTIONS" not in v else "",
)
def test_usage_names_the_values(path: tuple[str, ...], usage: str) -> None:
    line = _help(path, 200).split("Usage:")[1].splitlines()[0]
    assert line.strip() == usage


def test_a_repeatable_path_option_is_one_file() -> None:
    text = _help(("verify",), 200)
    line = next(ln for ln in text.splitlines() if ln.lstrip("│ ").startswith("--inputs "))
    assert line.split()[2] == "FILE"
