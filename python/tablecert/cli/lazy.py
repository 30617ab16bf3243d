"""Command modules imported when their command runs, so that light commands start fast.

``tablecert compare`` needs the poker core, not SciPy, Dask, cryptography or the report
machinery; importing every command module up front made each command pay for all of them.
The root group (:mod:`tablecert.cli.app`) knows each top-level command's module; its one-line
help in ``tablecert --help`` is read from that module's source (the command function's
docstring, or for a group the module's), so listing imports no command module and the help
has one copy. Everything else, including a command's own ``--help``, comes from the real
command, built by Typer exactly as before. Every command's help is reflowed as it is built
(:func:`tablecert.cli.conventions.reflow_help`). tests/test_cli_startup.py checks the listing
against the real commands and what each light command imports.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections.abc import Iterator, Mapping, MutableMapping
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from tablecert.cli.conventions import reflow_help, summary

#: Where a top-level command lives: its module in tablecert.cli, and the function that is the
#: command (None: the module's group, registered by its ``register``).
Entry = tuple[str, str | None]


@cache
def help_line(module: str, function: str | None) -> str:
    """The one-line help of a command, read from its module's source without importing it:
    the first paragraph of ``function``'s docstring, or of the module's for a group."""
    spec = importlib.util.find_spec(f"tablecert.cli.{module}")
    if spec is None or spec.origin is None:
        raise LookupError(f"no module tablecert.cli.{module}")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    if function is None:
        return summary(ast.get_docstring(tree))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return summary(ast.get_docstring(node))
    raise LookupError(f"tablecert.cli.{module} has no command function {function}")


class HelpTable(Mapping[str, tuple[str, str]]):
    """Top-level command -> (its module, its one-line help), the help read on first use."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self.entries = entries

    def __getitem__(self, name: str) -> tuple[str, str]:
        module, function = self.entries[name]
        return module, help_line(module, function)

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


@cache
def load_module(name: str) -> dict[str, Any]:
    """The real (Typer-built) commands that module ``name`` registers, by command name."""
    module = importlib.import_module(f"tablecert.cli.{name}")
    holder = typer.Typer()
    holder.callback()(_holder)  # a callback makes Typer build a group even for one command
    module.register(holder)
    group = reflow_help(typer.main.get_command(holder))
    assert isinstance(group, TyperGroup)
    return dict(group.commands)


def _holder() -> None:
    """Holds one module's commands while Typer builds them."""


@cache
def _subcommand(name: str, module: str, function: str, epilog: str | None = None) -> Any:
    """The Typer-built command ``name`` from ``function`` of module ``module``."""
    holder = typer.Typer()
    holder.callback()(_holder)
    command = getattr(importlib.import_module(f"tablecert.cli.{module}"), function)
    holder.command(name, epilog=epilog)(command)
    group = reflow_help(typer.main.get_command(holder))
    assert isinstance(group, TyperGroup)
    return group.commands[name]


#: A sub-group's lazy command: its module in tablecert.cli, its function, and its epilog.
Lazy = tuple[str, str] | tuple[str, str, str]


class LazySubGroup(TyperGroup):
    """A sub-group whose commands named in ``lazy`` (name -> :data:`Lazy`, set by a subclass)
    are built, importing their module, only when they run or are listed. They are listed
    right after the group's first command, in their order."""

    lazy: ClassVar[Mapping[str, Lazy]] = {}

    def list_commands(self, ctx: Any) -> list[str]:
        own = [n for n in super().list_commands(ctx) if n not in self.lazy]
        return [*own[:1], *self.lazy, *own[1:]]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            self.commands[cmd_name] = _subcommand(cmd_name, *self.lazy[cmd_name])
        return super().get_command(ctx, cmd_name)


class LazyCommands(MutableMapping[str, Any]):
    """A root group's commands: names known up front, each built on first access."""

    def __init__(self, table: Mapping[str, Entry]) -> None:
        self._table = table
        self._added: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self._added:
            return self._added[name]
        if name not in self._table:
            raise KeyError(name)
        return load_module(self._table[name][0])[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._added[name] = command

    def __delitem__(self, name: str) -> None:
        del self._added[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._table
        yield from (n for n in self._added if n not in self._table)

    def __len__(self) -> int:
        return len(set(self._table) | set(self._added))


class LazyGroup(TyperGroup):
    """A root group that imports a command's module only when that command runs; its
    ``table`` (name -> :data:`Entry`, set by a subclass) says where each command lives.

    Listing the commands (``--help``) uses each command's one-line help read from its
    module's source (:func:`help_line`) instead of importing every module."""

    table: ClassVar[Mapping[str, Entry]] = {}

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.table)
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names, without building the commands

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing and cmd_name in self.table:
            return TyperCommand(name=cmd_name, help=help_line(*self.table[cmd_name]))
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
