"""Command-line values checked before any work starts: each error names the option and value."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import typer

from tablecert.errors import OutputError
from tablecert.io.outputs import check_new_file, output_folder

SEED_LIMIT = 2**64


def choice(value: str, allowed: Iterable[str], option: str) -> str:
    """One of the allowed words (exactly as written)."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise typer.BadParameter(
            f"{value[:80]!r}: expected one of {', '.join(allowed)}", param_hint=option
        )
    return value


def game(value: str, known: Sequence[str], hint: str = "GAME") -> str:
    """A game id, case-free as card text is (``Q-Poker`` is ``q-poker``); an unknown one is
    refused naming the nearest known id (``Did you mean 'q-poker'?``, as for a mistyped
    command) and every known one."""
    for name in known:
        if name.casefold() == value.casefold():
            return name
    near = difflib.get_close_matches(value.casefold(), known, n=1)
    suggestion = f" Did you mean {near[0]!r}?" if near else ""
    raise typer.BadParameter(
        f"unknown game {value[:80]!r}; known: {', '.join(known)}.{suggestion}", param_hint=hint
    )


def whole(value: int, option: str, low: int = 0, high: int | None = None) -> int:
    """A whole number from ``low`` (to ``high``)."""
    if value < low or (high is not None and value > high):
        bound = f"from {low:,} to {high:,}" if high is not None else f"of {low:,} or more"
        raise typer.BadParameter(f"{value}: expected a whole number {bound}", param_hint=option)
    return value


def seconds(value: float, option: str, longest: float = 86_400) -> float:
    """A positive number of seconds, at most ``longest`` (a day)."""
    if not (math.isfinite(value) and 0 < value <= longest):
        raise typer.BadParameter(
            f"{value!r}: expected a positive number of seconds up to {longest:,g}",
            param_hint=option,
        )
    return value


def seed(value: int, option: str = "--seed") -> int:
    """A generator seed: a whole number from 0 to 2**64 - 1."""
    if not 0 <= value < SEED_LIMIT:
        raise typer.BadParameter(
            f"{value}: expected a whole number from 0 to 2**64 - 1", param_hint=option
        )
    return value


def new_file(
    path: Path, option: str, *, replace: bool = False, create_parents: bool = False
) -> Path:
    """An output file that can be written (see ``tablecert.output.check_new_file``)."""
    try:
        return check_new_file(path, replace=replace, create_parents=create_parents, what=option)
    except OutputError as exc:
        hint = " (--force replaces it)" if "already exists" in str(exc) else ""
        raise typer.BadParameter(
            f"{exc}{hint}".removeprefix(f"{option} "), param_hint=option
        ) from None


def folder(path: Path, option: str) -> Path:
    """An output folder that exists or can be made (its parent exists); not made yet."""
    try:
        return output_folder(path, (), create=False)
    except OutputError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None
