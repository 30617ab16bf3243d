"""Command modules imported when their command runs, so that light commands start fast.

``tablecert compare`` needs the poker core, not SciPy, Dask, cryptography or the report
machinery; importing every command module up front made each command pay for all of them.
The root group knows each top-level command's module and its one-line help (for
``tablecert --help``, which lists them without importing any); everything else, including a
command's own ``--help``, comes from the real command, built by Typer exactly as before.
Every command's help is reflowed as it is built (tablecert.cli.conventions.reflow_help), so
the one-line help here is one line. tests/test_cli_startup.py checks the listing against the
real commands and what each light command imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from functools import cache
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from tablecert.cli.conventions import reflow_help

# Top-level command -> (module in tablecert.cli that registers it, its help in the listing).
COMMANDS: dict[str, tuple[str, str]] = {
    "hands": (
        "poker_commands",
        "Print the exact hand-category table of a poker game: count, probability, 1 in N.",
    ),
    "compare": (
        "poker_commands",
        "Say which of two hands wins under the statute, and which rule and article decided.",
    ),
    "certify": (
        "report_commands",
        "Run a certification plan; write report.json, the signed envelope and report.html "
        "(and report.pdf with --pdf, a signed subject too).",
    ),
    "sign": (
        "report_commands",
        "Add a signature (e.g. the reviewer's) to a signed certification envelope.",
    ),
    "verify": (
        "report_commands",
        "Check the signatures (at least --threshold distinct given keys), the statement and, "
        "for the given files, their digests. Signatures by keys not given are listed, not "
        "checked.",
    ),
    "check": ("check_commands", "Judge a submitted configuration article by article."),
    "keys": ("report_commands", "Manage the lab's Ed25519 signing keys."),
    "crosscheck": (
        "crosscheck_commands",
        "Check a vendor's evaluator against the statutes, exhaustively.",
    ),
    "analyze": ("analyze_commands", "Exact par sheets: every bet's return, optimal play."),
    "mahjong": (
        "mahjong_commands",
        "Mahjong (Macau statute 135/91/M): score a win, settle a record, replay a hand.",
    ),
    "audit": (
        "audit_commands",
        "Randomness audits of shuffling machines and automatic tables from their logs.",
    ),
    "simulate": ("simulate_commands", "Simulated device logs."),
}


@cache
def load_module(name: str) -> dict[str, Any]:
    """The real (Typer-built) commands that module ``name`` registers, by command name."""
    module = importlib.import_module(f"tablecert.cli.{name}")
    if name == "audit_commands":  # `audit rng` lives in its own module, under `audit`
        rng = importlib.import_module("tablecert.cli.rng_commands")
        rng.register(module.audit_app)
    holder = typer.Typer()
    holder.callback()(_holder)  # a callback makes Typer build a group even for one command
    module.register(holder)
    group = reflow_help(typer.main.get_command(holder))
    assert isinstance(group, TyperGroup)
    return dict(group.commands)


def _holder() -> None:
    """Holds one module's commands while Typer builds them."""


# Sub-group -> its commands that live in a module only they need -> (module, function).
# `audit shuffler` and `simulate shuffler` need neither the round-log machinery nor the
# battery it imports (tablecert.cli.rounds_commands: NumPy, the games, the hold analysis).
SUBCOMMANDS: dict[str, dict[str, tuple[str, str]]] = {
    "audit": {"rounds": ("rounds_commands", "audit_rounds_command")},
    "simulate": {"rounds": ("rounds_commands", "simulate_rounds_command")},
}


@cache
def _subcommand(name: str, module: str, function: str) -> Any:
    """The Typer-built command ``name`` from ``function`` of module ``module``."""
    holder = typer.Typer()
    holder.callback()(_holder)
    holder.command(name)(getattr(importlib.import_module(f"tablecert.cli.{module}"), function))
    group = reflow_help(typer.main.get_command(holder))
    assert isinstance(group, TyperGroup)
    return group.commands[name]


class LazySubGroup(TyperGroup):
    """A sub-group (``typer.Typer(cls=LazySubGroup)``) whose commands named in SUBCOMMANDS
    are built, importing their module, only when they run or are listed. They are listed
    right after the group's first command, where they used to be registered."""

    def _lazy(self) -> dict[str, tuple[str, str]]:
        return SUBCOMMANDS.get(self.name or "", {})

    def list_commands(self, ctx: Any) -> list[str]:
        lazy = self._lazy()
        own = [n for n in super().list_commands(ctx) if n not in lazy]
        return [*own[:1], *lazy, *own[1:]]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        lazy = self._lazy()
        if cmd_name in lazy and cmd_name not in self.commands:
            self.commands[cmd_name] = _subcommand(cmd_name, *lazy[cmd_name])
        return super().get_command(ctx, cmd_name)


class LazyCommands(MutableMapping[str, Any]):
    """The root group's commands: names known up front, each built on first access."""

    def __init__(self) -> None:
        self._added: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self._added:
            return self._added[name]
        if name not in COMMANDS:
            raise KeyError(name)
        return load_module(COMMANDS[name][0])[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._added[name] = command

    def __delitem__(self, name: str) -> None:
        del self._added[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (n for n in self._added if n not in COMMANDS)

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self._added))


class LazyGroup(TyperGroup):
    """The ``tablecert`` group: imports a command's module only when that command runs.

    Listing the commands (``tablecert --help``) uses the one-line help above instead of
    importing every module."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands()
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names, without building the commands

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing and cmd_name in COMMANDS:
            return TyperCommand(name=cmd_name, help=COMMANDS[cmd_name][1])
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
