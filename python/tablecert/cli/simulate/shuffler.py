"""``tablecert simulate shuffler``: the log of a simulated shuffling machine, fair or faulty."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tablecert.audit.decks import DECK_SIZES
from tablecert.audit.simulate import GZIP_LEVEL, check_device, check_model, write_log
from tablecert.cli import conventions, values
from tablecert.cli.common import stderr
from tablecert.cli.progress import progress
from tablecert.errors import AuditError, RulesError


def shuffler(
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help="fair, riffle:K, shelf:M, overhand:K, modulo:BITS, off-by-one, "
            "short-period:P, stuck:PER_MILLE.",
        ),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Log file (.jsonl: JSON Lines; .gz: gzip).")
    ],
    shuffles: Annotated[
        int | None,
        typer.Option("--shuffles", min=1, help="Number of shuffles (decks or walls); required."),
    ] = None,
    deck: Annotated[str, typer.Option("--deck", help="cards52, mahjong136, mahjong112.")] = (
        "cards52"
    ),
    seed: Annotated[int, typer.Option("--seed", help="Generator seed (0 to 2**64 - 1).")] = 0,
    device: Annotated[str, typer.Option("--device", help="Device id in the log.")] = "SIM-1",
    force: Annotated[
        bool, typer.Option("--force", help="Replace the output file if it exists.")
    ] = False,
    gzip_level: Annotated[
        int,
        typer.Option(
            "--gzip-level",
            min=0,
            max=9,
            help="Compression of a .gz log, 0 to 9: 1 (the default) writes faster than the "
            "audit reads; 2 is about 22% smaller and about as fast as the audit.",
        ),
    ] = GZIP_LEVEL,
    old_decks: Annotated[int | None, typer.Option("--decks", min=1, hidden=True)] = None,
) -> None:
    """Write a shuffler log in the documented CSV or JSON Lines format (atomically)."""
    if shuffles is None and old_decks is not None:
        conventions.deprecated("--decks", "--shuffles")
        shuffles = old_decks
    if shuffles is None:
        raise typer.BadParameter("missing: how many shuffles to simulate", param_hint="--shuffles")
    decks = shuffles
    values.seed(seed)
    values.choice(deck, DECK_SIZES, "--deck")
    try:
        check_device(device)
    except AuditError as exc:
        raise typer.BadParameter(str(exc), param_hint="--device") from None
    values.new_file(output, "--output", replace=force)
    try:
        check_model(model, deck, seed)
    except RulesError as exc:
        raise typer.BadParameter(str(exc), param_hint="--model") from None
    with progress("simulating", unit="shuffles") as reporter:
        reporter.update(0, decks)
        write_log(
            output,
            model,
            decks,
            deck=deck,
            seed=seed,
            device=device,
            progress=reporter.advance,
            replace=force,
            gzip_level=gzip_level,
        )
    stderr.print(f"wrote {decks:,} shuffles ({model}) to {output}", markup=False)
