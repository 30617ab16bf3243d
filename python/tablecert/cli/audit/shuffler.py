"""``tablecert audit shuffler``: a shuffling machine's captured logs through the deck checks
and the battery.

The command checks its options and starts the core reading the logs before it imports the
audit (NumPy, the battery, SciPy's special functions: about 0.1 s), which then takes over what
was read (``tablecert.audit.started``); hence the imports inside ``shuffler``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from tablecert import figures
from tablecert.audit.decks import DECK_SIZES
from tablecert.audit.options import (
    DEALINGS,
    DEFAULT_BATCH,
    DEFAULT_DECK,
    DEFAULT_INPUT_ORDER,
    DEFAULT_WALL_STATISTIC,
    INPUT_ORDERS,
    STATISTICS,
    keeps_orders,
)
from tablecert.cli import common, values
from tablecert.cli.common import (
    OUTCOME_STYLE,
    JsonOption,
    emit_json,
    exit_for,
    plain,
    probability,
    stdout,
)
from tablecert.cli.tables import Column, print_table
from tablecert.io.outputs import output_folder, write_text
from tablecert.io.pathlike import distinct_paths

if TYPE_CHECKING:
    from tablecert.audit.shuffler import ShufflerAudit

SHOWN_BAD = 20


def print_audit(result: ShufflerAudit) -> None:
    """The per-test table and the integrity summary, for people."""
    i = result.integrity
    stdout.print(
        f"{result.deck}: {i.records:,} complete shuffles from {len(i.files)} file(s); "
        f"{result.input_order_text}"
    )
    stdout.print(
        f"lines read: {i.lines:,} = {i.header_lines:,} header + {i.records:,} complete "
        f"+ {i.bad_count:,} bad + {i.blank_lines:,} blank (empty or whitespace only)"
    )
    if i.bad_count:
        stdout.print(Text(f"integrity: {i.bad_count:,} bad records", style="bold red"))
        for f, line, reason in i.bad_records[:SHOWN_BAD]:
            stdout.print(f"  {plain(f)}:{line}: {plain(reason)}")
        if i.bad_count > SHOWN_BAD:
            listed = len(i.bad_records)
            stdout.print(
                f"  ... and {i.bad_count - SHOWN_BAD:,} more: --json lists the first "
                f"{listed:,} of the {i.bad_count:,} with their reasons"
            )
    else:
        stdout.print("integrity: every record is one complete deck")
    if i.events:
        stdout.print("device events: " + ", ".join(f"{plain(k)} x{v}" for k, v in i.events))
    print_table(
        [
            "test",
            Column("statistic", "right"),
            Column("df", "right"),
            Column("p-value", "right"),
            "verdict",
            Column("effect", "right"),
        ],
        (
            (
                t.key,
                figures.measured(t.statistic),
                "" if t.df is None else str(t.df),
                figures.p_value(t.p_value),
                Text(t.verdict, style=OUTCOME_STYLE[t.outcome]),
                figures.measured(t.effect, 3),
            )
            for t in result.battery.tests
        ),
        title=f"battery (each test at {1 - result.battery.tests[0].level:.0%})",
    )
    from tablecert.stats import EFFECT_MEANING

    stdout.print(f"  effect: {EFFECT_MEANING}")
    for t in result.battery.tests:
        effect = f" (effect: {plain(t.effect_name)})" if t.effect_name else ""
        stdout.print(f"  {t.key}: {plain(t.name)}: {plain(t.detail)}{effect}")
    rejected = ", ".join(result.battery.rejected) or "none"
    stdout.print(f"Holm family-wise at alpha {result.battery.alpha}: rejected {rejected}")
    stdout.print(f"power: {result.power}")
    stdout.print(Text.assemble("verdict: ", (result.reason, "bold")))


def shuffler(
    logs: Annotated[
        list[Path], typer.Argument(metavar="LOG", help="Log files: CSV/TSV or JSON Lines, .gz ok.")
    ],
    deck: Annotated[
        str,
        typer.Option("--deck", help="cards52, mahjong136 or mahjong112."),
    ] = DEFAULT_DECK,
    input_order: Annotated[
        str,
        typer.Option(
            "--input-order",
            help="What each output is judged against: auto (its logged input when the record "
            "has one, else the device's previous output), logged, previous or none. logged "
            "on logs without inputs, or previous on logs with an input in every record, is "
            "refused (exit 2).",
        ),
    ] = DEFAULT_INPUT_ORDER,
    game: Annotated[
        str | None,
        typer.Option("--game", help="q-poker or caribbean-stud: test the dealt hands."),
    ] = None,
    seats: Annotated[int, typer.Option("--seats", help="Player seats (plus the dealer).")] = 6,
    dealing: Annotated[
        str,
        typer.Option(
            "--dealing",
            help="packets (hand by hand) or round-robin.",
        ),
    ] = "packets",
    wall_statistic: Annotated[
        str,
        typer.Option(
            "--wall-statistic",
            help="Mahjong walls: deal each as Art. 3 does and test each hand's tile types, "
            "pairs or honours against the exact law (none: skip).",
        ),
    ] = DEFAULT_WALL_STATISTIC,
    batch_size: Annotated[
        int,
        typer.Option("--batch-size", help="Shuffles per batch for the second level."),
    ] = DEFAULT_BATCH,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha",
            callback=probability,
            help="Family-wise error rate of the battery (Holm), 0 < alpha < 1.",
        ),
    ] = 0.01,
    confidence: Annotated[
        float,
        typer.Option(
            "--confidence",
            callback=probability,
            help="Confidence of each single test, 0 < confidence < 1.",
        ),
    ] = 0.99,
    svg_dir: Annotated[
        Path | None, typer.Option("--svg-dir", help="Also write the plots as SVG files here.")
    ] = None,
    json_out: JsonOption = False,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
) -> None:
    """Certify a shuffler from its logs: deck integrity and the randomness battery.

    Verdict: FAIL on any bad record (integrity) or any test Holm rejects (randomness), at any
    number of shuffles; INCONCLUSIVE only when nothing was rejected and the log is too small
    for the position test (260 decks of cards); else PASS.

    With --cluster or --workers, each log file is one shard on the Dask cluster (read where
    it runs: the path must be valid on the workers) and is audited as its own stream.

    Exit status: 0 pass, 1 fail, 2 usage or input error (an unreadable log, a bad option),
    3 inconclusive, 4 internal error."""
    values.choice(deck, DECK_SIZES, "--deck")
    values.choice(input_order, INPUT_ORDERS, "--input-order")
    if game is not None:
        from tablecert.poker import DEDICATED_ENGINES  # the rule files: only with a game

        game = values.game(game, tuple(DEDICATED_ENGINES), "--game")
    values.choice(dealing, DEALINGS, "--dealing")
    values.choice(wall_statistic, (*STATISTICS, "none"), "--wall-statistic")
    values.whole(seats, "--seats", 1)
    values.whole(batch_size, "--batch-size", 1, 2**63 - 1)
    if svg_dir is not None:
        values.folder(svg_dir, "--svg-dir")
    sharded = cluster is not None or workers is not None
    started = None
    if not sharded and game is None:
        from tablecert.audit.started import start_reading

        started = start_reading(
            distinct_paths(logs, "log file"),
            deck,
            input_order,
            batch_size,
            keep_orders=keeps_orders(deck, wall_statistic),
        )
    from tablecert.audit.shuffler import audit_shuffler
    from tablecert.cli.progress import cluster_progress
    from tablecert.stats import pvalues

    pvalues.special_functions()  # light, while this is the only Python thread (see there)
    title = f"auditing {len(logs)} log files, one shard each" if sharded else "reading"
    unit = "logs" if sharded else "bytes"
    with cluster_progress(cluster, workers, title, unit=unit) as (executor, reporter):

        def on_file(path: Path) -> None:
            reporter.begin(f"reading {path.name}")

        def progress(done: int, size: int) -> None:
            reporter.update(done, size or None)

        result = audit_shuffler(
            logs,
            deck,
            input_order=input_order,
            game=game,
            seats=seats,
            dealing=dealing,
            wall_statistic=None if wall_statistic == "none" else wall_statistic,
            batch_size=batch_size,
            alpha=alpha,
            confidence=confidence,
            progress=progress,
            on_file=on_file,
            executor=executor,
            started=started,
        )
    _write_audit(result, svg_dir, json_out)


def _write_audit(result: ShufflerAudit, svg_dir: Path | None, json_out: bool) -> None:
    if svg_dir is not None:
        plots = result.svg_plots()
        output_folder(svg_dir, [f"{name}.svg" for name in plots], force=True)
        for name, svg in plots.items():
            write_text(svg_dir / f"{name}.svg", svg, what="--svg-dir")
    if json_out:
        data = result.as_json()
        data["plots_svg"] = result.svg_plots()
        emit_json(data)
    else:
        print_audit(result)
    raise exit_for(result.outcome)
