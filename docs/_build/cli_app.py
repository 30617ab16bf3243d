"""The ``tablecert`` command tree with every command built, for the generated CLI reference.

The real root group builds each command on first use (``tablecert.cli.lazy``), and some
sub-groups list commands that live in other modules; mkdocs-click reads a group's
``commands`` directly, so this module asks every group for its commands the way the command
line does when a command runs, and stores them in order. Typer's groups are not
``click.Group`` instances (Typer carries its own Click), so a group is anything with
``list_commands``. Nothing here changes what a command does or says.
"""

from __future__ import annotations

from typing import Any

import typer.main

from tablecert.cli import app


def resolve(command: Any, parent: Any = None) -> Any:
    """``command`` with every sub-command built and stored in ``commands``, recursively."""
    if hasattr(command, "list_commands"):
        ctx = command.context_class(command, info_name=command.name, parent=parent)
        built: dict[str, Any] = {}
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                built[name] = resolve(sub, ctx)
        command.commands = built
    return command


command = resolve(typer.main.get_command(app))
