"""The command line's conventions in one place (README, "Command-line conventions").

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

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperOption

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


def game_argument(game: str | None, old: str | None, choices: str) -> str:
    """The GAME argument, or the deprecated ``--game`` option that it replaced."""
    if game is not None and old is not None and game != old:
        raise typer.BadParameter(f"two games given: {game!r} and --game {old!r}")
    if game is not None:
        return game
    if old is not None:
        deprecated("--game GAME", "GAME as the first argument")
        return old
    raise typer.BadParameter(f"missing: the game ({choices})", param_hint="GAME")


def hide_flag_metavars() -> None:
    """Typer's rich help shows ``<bool>`` after flags such as ``--json`` and ``--help``, which
    take no value; show nothing instead (an explicit metavar still wins)."""
    original = TyperOption.display_type_rich
    if getattr(original, "_tablecert", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag and self.metavar is None:
            return None
        return original(self, ctx)

    display_type_rich._tablecert = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
