"""``tablecert simulate rounds``: a seeded round log with planted errors, or a clean one of a
game described by its rule file; wiring only (logic in ``tablecert.rounds.simulate`` and
``tablecert.rounds.stud_simulate``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from tablecert.cli import values
from tablecert.cli.common import (
    plain,
    stderr,
)
from tablecert.cli.progress import progress
from tablecert.cli.round_options import (
    AnyGameOption,
    ConfigOption,
    RulesOpt,
    described_rules,
    is_dedicated,
    round_ordering,
)
from tablecert.rounds.simulate import MULTI_SHARE, write_rounds
from tablecert.rounds.stud_simulate import write_stud_rounds

#: The largest log simulate rounds makes (one table's; larger logs are several tables').
MAX_SIMULATED_ROUNDS = 1_000_000


def simulate_rounds_command(
    game: AnyGameOption,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Log file (.jsonl: JSON Lines; .gz: gzip).")
    ],
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="Number of rounds (1 to 1,000,000).")
    ],
    seed: Annotated[int, typer.Option("--seed", help="Generator seed (0 to 2**64 - 1).")] = 0,
    error_share: Annotated[
        float,
        typer.Option(
            "--error-share", min=0.0, max=0.1, help="Share of rounds planted with each error kind."
        ),
    ] = 0.0,
    kinds: Annotated[
        str | None,
        typer.Option("--kinds", help="Comma-separated planted kinds (default: all of the game's)."),
    ] = None,
    rules: RulesOpt = None,
    config: ConfigOption = None,
    multi_share: Annotated[
        float,
        typer.Option(
            "--multi-share",
            min=0.0,
            max=0.5,
            help="Caribbean Stud: share of clean rounds dealt with several meter winners "
            "(straight flushes and royals together).",
        ),
    ] = MULTI_SHARE,
) -> None:
    """Write a seeded round log (optimal play, statute settlement, planted errors) and the
    list of planted rounds to OUTPUT.planted.json (at most 1,000,000 rounds, written
    atomically; larger logs are seeded logs of several tables).

    A game described by its rule file (--game FILE): a clean log of random play, every bet
    settled by the description, in its own columns, streamed; where the file has a
    progressive, each seat bets it at random and the table's meter runs on by the file's
    terms; no planted errors (and no OUTPUT.planted.json)."""
    values.whole(rounds, "--rounds", 1, MAX_SIMULATED_ROUNDS)
    values.seed(seed)
    for flag, share, top in (
        ("--error-share", error_share, 0.1),
        ("--multi-share", multi_share, 0.5),
    ):
        if not (math.isfinite(share) and 0 <= share <= top):
            raise typer.BadParameter(
                f"{share!r}: expected a share from 0 to {top}", param_hint=flag
            )
    values.new_file(output, "--output")
    if not is_dedicated(game):
        clean = "is simulated clean, settled by its description (no planted errors)"
        refused = (
            ("--config", config is not None, "is settled by the values written in that file"),
            ("--error-share", error_share != 0, clean),
            ("--kinds", kinds is not None, clean),
            ("--multi-share", multi_share != MULTI_SHARE, clean),
        )
        described = described_rules(game, rules, refused)
        with progress("simulating", unit="rounds") as reporter:
            reporter.update(0, rounds)
            write_stud_rounds(output, described, rounds, seed=seed, progress=reporter.advance)
        stderr.print(f"wrote {rounds:,} rounds of {described.path.stem} to {plain(str(output))}")
        return
    values.new_file(output.with_name(output.name + ".planted.json"), "--output")
    order = round_ordering(game, rules, config)
    chosen = None if kinds is None else tuple(k.strip() for k in kinds.split(",") if k.strip())
    with progress("simulating", unit="rounds") as reporter:
        reporter.update(0, rounds)
        side = write_rounds(
            output,
            order,
            rounds,
            seed=seed,
            share=error_share,
            kinds=chosen,
            multi_share=multi_share,
            progress=reporter.advance,
        )
    stderr.print(
        f"wrote {rounds:,} rounds to {plain(str(output))}; planted errors in {plain(str(side))}"
    )
