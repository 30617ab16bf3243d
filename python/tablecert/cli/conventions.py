"""The command line's conventions in one place (docs/cli/conventions.md).

- The game a command is about is its first argument (``hands GAME``, ``analyze GAME``,
  ``crosscheck poker GAME``); ``--game`` is only a qualifier of another subject
  (``audit shuffler LOG... --game q-poker`` tests the hands dealt from the logged decks).
- The path a command writes is ``-o/--output``.
- A plural option counts (``--shuffles``, ``--sequences``, ``--seats``); a singular one names a
  kind (``--deck cards52``).
- ``--alpha`` is always a family-wise error rate; ``--confidence`` is the level of each test.
- Old spellings (``--out``, ``--decks``, ``--game`` where the game became the first argument)
  still work, hidden from the help, with a one-line deprecation note on stderr.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from tablecert.cli import values
from tablecert.cli.common import stderr

DeprecatedOutputOption = Annotated[Path | None, typer.Option("--out", hidden=True)]
DeprecatedGameOption = Annotated[str | None, typer.Option("--game", "-g", hidden=True)]


def deprecated(old: str, new: str) -> None:
    """Say on stderr that an old spelling was used, and what replaces it."""
    stderr.print(f"note: {old} is deprecated; use {new}", markup=False, highlight=False)


def required_output(output: Path | None, old: Path | None) -> Path:
    """``-o/--output`` (required), or the deprecated ``--out``."""
    if output is not None:
        return output
    if old is not None:
        deprecated("--out", "-o/--output")
        return old
    raise typer.BadParameter("missing: the path to write", param_hint="'-o' / '--output'")


def game_argument(game: str | None, old: str | None, known: Sequence[str]) -> str:
    """The GAME argument (one of ``known``, case-free), or the deprecated ``--game`` option
    that it replaced."""
    if game is not None and old is not None and game != old:
        raise typer.BadParameter(f"two games given: {game!r} and --game {old!r}")
    if game is not None:
        return values.game(game, known)
    if old is not None:
        deprecated("--game GAME", "GAME as the first argument")
        return values.game(old, known, "--game")
    raise typer.BadParameter(f"missing: the game ({' or '.join(known)})", param_hint="GAME")


class CaseFreeGroup(TyperGroup):
    """A group whose command names are case-free (``analyze Q-Poker``), as game ids are."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        return found if found is not None else super().get_command(ctx, cmd_name.lower())


def reflowed(text: str | None) -> str | None:
    """A help text with the line breaks of its source undone: each paragraph becomes one line,
    which the help renderer wraps to the terminal's width (Typer keeps single line breaks,
    so a hard-wrapped docstring comes out ragged at any other width). A paragraph starting
    with ``\\b`` is kept as written (without the marker), and so is a line starting a list
    item (``- ``)."""
    if not text:
        return text
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b"):
            paragraphs.append(paragraph.removeprefix("\b").lstrip("\n"))
            continue
        lines = [line.strip() for line in paragraph.splitlines()]
        joined = lines[0] if lines else ""
        for line in lines[1:]:
            joined += ("\n" if line.startswith("- ") else " ") + line
        paragraphs.append(joined)
    return "\n\n".join(paragraphs)


def summary(doc: str | None) -> str:
    """The first paragraph of a help text or docstring as one line: a command's help in
    ``tablecert --help``, and a group's help taken from its module's docstring."""
    return (reflowed(doc) or "").split("\n\n")[0]


def reflow_help(command: Any) -> Any:
    """``command`` (and, for a group, every command under it that is already built) with its
    help and its parameters' help reflowed (:func:`reflowed`); returned for chaining."""
    command.help = reflowed(command.help)
    command.short_help = reflowed(command.short_help)
    for param in getattr(command, "params", ()):
        if getattr(param, "help", None):
            param.help = reflowed(param.help)
    for sub in getattr(command, "commands", {}).values():
        reflow_help(sub)
    return command


def _value_name(param: TyperOption) -> str:
    """What an option's value is called in the help when no metavar is given: FILE, DIR or
    PATH for a path, N for an integer, NUMBER for a float, else the option's own name."""
    desc = param.type_descriptor
    kind = param.bare_type().removeprefix("list[").removesuffix("]")
    if desc.is_path or desc.is_file or kind == "Path":
        return {"file": "FILE", "dir": "DIR", "directory": "DIR"}.get(desc.path_type, "PATH")
    if kind == "int":
        return "N"
    if kind == "float":
        return "NUMBER"
    return (param.name or "value").upper()


def help_conventions() -> None:
    """Names, not type names, in every command's help: an option's value is its metavar, or
    FILE, DIR, N, NUMBER or the option's name (never ``<str>``, ``<list[Path]>``); a flag shows
    none; a choice lists its values. An argument is shown by its metavar or its name in
    capitals (``GAME``, ``LOG...``), in the usage line without brackets when it has an
    explicit metavar (an argument that an old option may replace is still required)."""
    if getattr(TyperOption.display_type_rich, "_tablecert", False):
        return

    def option_type(self: TyperOption, ctx: Any) -> str | None:
        if self.metavar is not None:
            return str(self.metavar)
        if self.is_flag:
            return None
        desc = self.type_descriptor
        if desc.is_choice and desc.choices is not None:
            name = "|".join(str(getattr(c, "value", c)) for c in desc.choices)
        else:
            name = _value_name(self)
        return name + ("..." if self.nargs != 1 else "")  # a repeatable option is one value

    def argument_type(self: TyperArgument, ctx: Any) -> str | None:
        del ctx
        return None  # the name column already names the value

    def argument_name(self: TyperArgument) -> str:
        return str(self.metavar) if self.metavar is not None else (self.name or "").upper()

    def usage_name(self: TyperArgument) -> str:
        name = argument_name(self)
        if not self.required and self.metavar is None:
            name = f"[{name}]"
        return name + ("..." if self.nargs != 1 and not name.endswith("...") else "")

    option_type._tablecert = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = option_type  # type: ignore[method-assign]
    TyperArgument.display_type_rich = argument_type  # type: ignore[method-assign,assignment]
    TyperArgument.display_name_raw = property(argument_name)  # type: ignore[assignment,method-assign]
    TyperArgument._usage_display_name = usage_name  # type: ignore[method-assign]
