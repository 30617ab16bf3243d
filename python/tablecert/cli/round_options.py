"""The options the round commands share (``audit rounds``, ``simulate rounds``): the game,
its rule file, and a submitted configuration to settle under."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tablecert.cli import values
from tablecert.cli.common import (
    plain,
)
from tablecert.poker import DEDICATED_ENGINES, Ordering, ordering
from tablecert.rules.submission import in_force

GameOption = Annotated[str, typer.Option("--game", help="q-poker or caribbean-stud.")]
RulesOpt = Annotated[
    str | None,
    typer.Option("--rules", help="Rule file path or bundled name (default: the Macau statute)."),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="A submitted configuration: settle under its values instead."),
]


def round_ordering(game: str, rules: str | None, config: Path | None) -> Ordering:
    """The ordering rounds are settled under: the game's rule file, or with ``--config`` the
    statute with a submitted configuration's values in force (of the same game)."""
    game = values.game(game, tuple(DEDICATED_ENGINES), "--game")
    if config is not None:
        in_force_rules = in_force(config, rules)
        if in_force_rules.submission.game != game:
            raise typer.BadParameter(
                f"{plain(str(config))} is a {in_force_rules.submission.game} configuration",
                param_hint="--config",
            )
        return ordering(game, in_force_rules)
    return ordering(game, rules)
