"""The options the round commands share (``audit rounds``, ``simulate rounds``): the game,
its rule file, and a submitted configuration to settle under."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from tablecert import poker
from tablecert.bundled import is_bare_name
from tablecert.cli import values
from tablecert.cli.common import (
    plain,
)
from tablecert.poker import DEDICATED_ENGINES, Ordering, ordering
from tablecert.rules import RuleFile
from tablecert.rules.submission import in_force

GameOption = Annotated[str, typer.Option("--game", help="q-poker or caribbean-stud.")]
#: ``--game`` of the round commands that take a game described by its rule file too.
AnyGameOption = Annotated[
    str,
    typer.Option(
        "--game",
        help="q-poker or caribbean-stud (their round-log format), or the rule file (path or "
        "bundled name) of a game described by its file: its logs, settled by the description.",
    ),
]
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


def is_dedicated(game: str) -> bool:
    """Whether GAME is the id of a game with an engine of its own (case-free)."""
    return game.casefold() in DEDICATED_ENGINES


def described_rules(
    game: str, rules: str | None, refused: Sequence[tuple[str, bool, str]]
) -> RuleFile:
    """The rule file of a game named by its file (a path, a bundled name, or the described
    games' id with --rules); each option of ``refused`` (flag, given, why) that was given
    (only the dedicated games' command has it) is a usage error naming it and its reason."""
    for flag, given, why in refused:
        if given:
            raise typer.BadParameter(
                f"is for q-poker and caribbean-stud logs: a game described by its rule file {why}",
                param_hint=flag,
            )
    if is_bare_name(game):
        ids = poker.described_games() if rules is not None else ()
        game = values.game(game, (*poker.game_names(), *ids), "--game")
    return poker.game_ordering(game, rules).rules
