"""Paytable sweeps: many rule-file variants of one game, one variant per task.

A lab comparing paytables runs the same exact analysis on each variant; on a cluster every
variant is one task (the parsed rule file travels with it, so workers need no access to the
lab's files). Each task returns its par sheet as JSON data; the list is in the order given and
equal to the local run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablecert.distributed import Executor, LocalExecutor, ShardProgress
from tablecert.errors import GameError
from tablecert.games import caribbean_stud, q_poker
from tablecert.games.common import AnalysisError
from tablecert.rules import RuleFile, load_rules

SWEEP_GAMES = ("q-poker", "caribbean-stud")


def run_variant(task: tuple[str, RuleFile]) -> dict[str, Any]:
    """One variant's complete par sheet, as its JSON data."""
    game, rules = task
    if game == "q-poker":
        return q_poker.analyze(rules).as_json()
    return caribbean_stud.analyze(rules).as_json()


def sweep(
    game: str,
    variants: Sequence[str | Path | RuleFile],
    executor: Executor | None = None,
    progress: ShardProgress | None = None,
) -> list[dict[str, Any]]:
    """The par sheets of every variant of ``game`` (rule file paths, bundled names or loaded
    files), one task each on ``executor`` (default: one after another here)."""
    if game not in SWEEP_GAMES:
        raise GameError.unknown(game, SWEEP_GAMES)
    if not variants:
        raise AnalysisError("no rule files to sweep")
    tasks = []
    for v in variants:
        rules = v if isinstance(v, RuleFile) else load_rules(v)
        if rules.game != game:
            raise AnalysisError(f"{rules.path.name} is a rule file for {rules.game}, not {game}")
        tasks.append((game, rules))
    return (executor or LocalExecutor()).map(run_variant, tasks, progress)
