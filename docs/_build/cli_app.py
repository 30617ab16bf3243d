"""The ``tablecert`` command tree as one plain Click group, for the generated CLI reference.

The real root group builds each command on first use (``tablecert.cli.lazy``), and some
sub-groups list commands that live in other modules; mkdocs-click reads ``Group.commands``
directly, so this module asks every group for its commands the way Click does when a command
runs, and stores them in order. Nothing here changes what a command does or says.
"""

from __future__ import annotations

import click
import typer.main

from tablecert.cli import app


def resolve(command: click.Command, parent: click.Context | None = None) -> click.Command:
    """``command`` with every sub-command built and stored in ``commands``, recursively."""
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=command.name, parent=parent)
        built: dict[str, click.Command] = {}
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                built[name] = resolve(sub, ctx)
        command.commands = built
    return command


command = resolve(typer.main.get_command(app))
