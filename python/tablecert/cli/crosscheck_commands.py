"""``tablecert crosscheck``: a vendor's evaluator against the statutes, exhaustively."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from tablecert.cli import conventions, values
from tablecert.cli.common import JsonOption, emit_json, plain, stderr, stdout
from tablecert.conformance import mahjong_crosscheck, poker_crosscheck
from tablecert.conformance.evaluator_protocol import open_evaluator, write_requests
from tablecert.outputs import write_text
from tablecert.poker import GAMES

crosscheck_app = typer.Typer(
    no_args_is_help=True, help="Check a vendor's evaluator against the statutes, exhaustively."
)


def _count_or_all(value: str, option: str) -> int | None:
    if value == "all":
        return None
    if value.isascii() and value.isdigit() and 0 < int(value) <= poker_crosscheck.MAX_SAMPLE:
        return int(value)
    raise typer.BadParameter(
        f"{value!r}: expected a whole number from 1 to {poker_crosscheck.MAX_SAMPLE:,} or 'all'",
        param_hint=option,
    )


@crosscheck_app.command("poker")
def poker(
    game: Annotated[str | None, typer.Argument(help="q-poker or caribbean-stud.")] = None,
    evaluator: Annotated[
        str | None,
        typer.Option(
            "--evaluator",
            help="module:function, file.py:function, cmd:COMMAND or "
            "file:ANSWERS (see README: evaluator protocol).",
        ),
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", help="Rule file (default statute).")
    ] = None,
    hands: Annotated[str, typer.Option("--hands", help="'all' or a sample size.")] = "all",
    suit_pairs: Annotated[
        str,
        typer.Option(
            "--suit-pairs",
            help="'default' (all for Q Poker, 100000 for Caribbean Stud), 'all', or a sample size.",
        ),
    ] = "default",
    other_pairs: Annotated[
        int, typer.Option("--other-pairs", help="Size of the sample of other disjoint pairs.")
    ] = 50_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every sample.")] = 0,
    show: Annotated[int, typer.Option("--show", help="Mismatches shown per check.")] = 10,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds to wait for an answer.")
    ] = 20.0,
    write: Annotated[
        Path | None,
        typer.Option(
            "--write-requests",
            help="Write the requests to FILE for a vendor to "
            "answer offline (then use --evaluator file:ANSWERS).",
        ),
    ] = None,
    json_out: JsonOption = False,
    old_game: conventions.DeprecatedGameOption = None,
) -> None:
    """Check every hand's category and the statute's head-to-head decisions."""
    game = conventions.game_argument(game, old_game, "q-poker or caribbean-stud")
    hand_count = _count_or_all(hands, "--hands")
    pairs = 0 if suit_pairs == "default" else _count_or_all(suit_pairs, "--suit-pairs")
    values.whole(other_pairs, "--other-pairs", 0, poker_crosscheck.MAX_SAMPLE)
    values.whole(show, "--show", 0)
    values.seed(seed)
    values.seconds(timeout, "--timeout")
    if game not in GAMES:
        raise typer.BadParameter(f"{game!r}: expected {' or '.join(GAMES)}", param_hint="GAME")
    if write is not None:
        values.new_file(write, "--write-requests")
    stderr.print(f"planning the {game} crosscheck ...")
    plan = poker_crosscheck.plan(
        game, rules, hands=hand_count, suit_pairs=pairs, other_pairs=other_pairs, seed=seed
    )
    if write is not None:
        count = write_requests(write, plan.requests())
        stderr.print(f"wrote {count:,} requests to {write}")
        return
    if evaluator is None:
        raise typer.BadParameter(
            "give --evaluator SPEC (or --write-requests FILE)", param_hint="--evaluator"
        )
    answerer = open_evaluator(evaluator, timeout)
    with Progress(
        *Progress.get_default_columns()[:1],
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=stderr,
        transient=True,
    ) as bar:
        task = bar.add_task("crosscheck", total=plan.total)
        report = poker_crosscheck.crosscheck(
            plan, answerer, evaluator, keep=show, progress=lambda n: bar.advance(task, n)
        )
    if json_out:
        emit_json(report.as_json())
    else:
        _print(report)
    if not report.passed:
        raise typer.Exit(1)


def _print(report: poker_crosscheck.CrosscheckReport) -> None:
    table = Table(
        title=f"{report.game} evaluator crosscheck ({report.rules_file}): {report.evaluator}",
        title_justify="left",
    )
    for column in ("check", "checked", "mismatches", "verdict", "answers/s"):
        table.add_column(column, justify="left" if column in ("check", "verdict") else "right")
    for c in report.checks:
        table.add_row(
            c.name,
            f"{c.checked:,}",
            f"{c.mismatches:,}",
            Text("conforms") if c.passed else Text("deviates", style="red"),
            f"{c.rate:,.0f}",
        )
    stdout.print(table)
    if report.complete_suit_pairs is not None:
        stdout.print(f"suit-decided pairs: the complete set ({report.complete_suit_pairs:,}).")
    for c in report.checks:
        for g in c.groups:
            stdout.print(Text.assemble(("defect", "red"), f" {c.name}: {plain(g.description)}"))
        for m in c.first:
            stdout.print(
                f"  {m.request!r}: expected {m.expected!r}, got {m.got!r} ({m.article}, {m.step})"
            )
    verdict = "CONFORMS" if report.passed else "DEVIATES"
    stdout.print(f"verdict: {verdict} to the statute ordering ({report.rules_file})")


@crosscheck_app.command("mahjong")
def mahjong(
    game: Annotated[
        str | None, typer.Argument(help="mahjong-traditional or mahjong-simple.")
    ] = None,
    scorer: Annotated[
        str | None,
        typer.Option(
            "--scorer",
            help="module:function, file.py:function, cmd:COMMAND or "
            "file:ANSWERS answering one JSON line per game record.",
        ),
    ] = None,
    corpus: Annotated[
        Path | None, typer.Option("--corpus", help="JSON Lines game records (default: generate).")
    ] = None,
    generate: Annotated[int, typer.Option("--generate", help="Records to generate.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the generated corpus.")] = 0,
    write: Annotated[
        Path | None, typer.Option("--write-corpus", help="Write the corpus to FILE and stop.")
    ] = None,
    show: Annotated[int, typer.Option("--show", help="Mismatches shown.")] = 10,
    timeout: Annotated[float, typer.Option("--timeout")] = 20.0,
    json_out: JsonOption = False,
    old_game: conventions.DeprecatedGameOption = None,
) -> None:
    """Check a vendor's mahjong scorer: fan and every seat's net result on a corpus."""
    game = conventions.game_argument(game, old_game, "mahjong-traditional or mahjong-simple")
    if game not in ("mahjong-traditional", "mahjong-simple"):
        raise typer.BadParameter(
            f"{game!r}: expected mahjong-traditional or mahjong-simple", param_hint="GAME"
        )
    values.seed(seed)
    values.seconds(timeout, "--timeout")
    values.whole(generate, "--generate", 1, mahjong_crosscheck.MAX_RECORDS)
    values.whole(show, "--show", 0)
    if write is not None:
        values.new_file(write, "--write-corpus")
    records = (
        mahjong_crosscheck.load_corpus(corpus, game)
        if corpus is not None
        else mahjong_crosscheck.generate_corpus(game, generate, seed)
    )
    if write is not None:
        write_text(
            write,
            "".join(
                json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n" for record in records
            ),
            what="--write-corpus",
        )
        stderr.print(f"wrote {len(records):,} game records to {write}")
        return
    if scorer is None:
        raise typer.BadParameter(
            "give --scorer SPEC (or --write-corpus FILE)", param_hint="--scorer"
        )
    with stderr.status(f"settling {len(records):,} records and asking the scorer"):
        report = mahjong_crosscheck.crosscheck(
            game, records, open_evaluator(scorer, timeout), scorer, keep=show
        )
    if json_out:
        emit_json(report.as_json())
    else:
        stdout.print(
            f"{game} scorer crosscheck: {scorer}: {report.records:,} records, "
            f"{report.mismatched_records:,} mismatched"
        )
        for d in report.defects:
            stdout.print(Text.assemble(("defect", "red"), f" {plain(d.description)}"))
        for m in report.first:
            stdout.print(f"  {m.field}: expected {m.expected!r}, got {m.got!r} in {m.record}")
        stdout.print(f"verdict: {'CONFORMS' if report.passed else 'DEVIATES'}")
    if not report.passed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(crosscheck_app, name="crosscheck")
