"""Simulated device logs.

``tablecert simulate shuffler`` and ``simulate rounds``, one module each; ``simulate rounds``
is built, importing the round-log machinery, only when it runs or is listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import typer

from tablecert.cli import conventions
from tablecert.cli.lazy import Lazy, LazySubGroup
from tablecert.cli.simulate import shuffler


class SimulateGroup(LazySubGroup):
    """``tablecert simulate``, with ``simulate rounds`` imported when it runs."""

    lazy: ClassVar[Mapping[str, Lazy]] = {"rounds": ("simulate.rounds", "simulate_rounds_command")}


simulate_app = typer.Typer(
    cls=SimulateGroup, no_args_is_help=True, help=conventions.summary(__doc__)
)
simulate_app.command("shuffler")(shuffler.shuffler)


def register(app: typer.Typer) -> None:
    app.add_typer(simulate_app, name="simulate")
