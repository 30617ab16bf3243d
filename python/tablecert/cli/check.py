"""``tablecert check CONFIG``: a casino's game configuration against the statute (or, for a
game described by its rule file alone, against that file)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from tablecert.cli.common import JsonOption, emit_json, exit_for, plain, stdout
from tablecert.cli.progress import progress
from tablecert.cli.tables import Column, print_table
from tablecert.conformance.configuration import (
    BetReturn,
    ConfigurationReport,
    authority,
    bet_returns,
    check_configuration,
)
from tablecert.games.common import decimal
from tablecert.judgement import Outcome

VERDICT_STYLE = {
    "conforms": "green",
    "deviates": "bold red",
    "house choice": "cyan",
    "reading": "yellow",
    "not submitted": "dim",
}


def check(
    config: Annotated[Path, typer.Argument(help="The submitted configuration (TOML or JSON).")],
    returns: Annotated[
        bool, typer.Option("--returns/--no-returns", help="Compute every bet's exact return.")
    ] = True,
    json_out: JsonOption = False,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help="The rule file to judge against (default: the bundled one of the game).",
        ),
    ] = None,
) -> None:
    """Judge a submitted configuration article by article: of a statute's game, or of any
    game described by its rule file (named by its bundled file, or the id "stud" with the
    file given by --rules).

    Exit status: 0 conforms; 1 deviates (a value deviates, is outside the statute's range or
    is not a value the setting can have, or a consistency check fails); 2 usage or input
    error (the configuration cannot be read: nothing judged); 3 inconclusive (it sets no value
    the statute judges); 4 internal error.
    """
    report = check_configuration(config, rules)
    bets: tuple[BetReturn, ...] = ()
    if returns:
        with progress("computing the exact return of every bet (submitted and statute)"):
            bets = bet_returns(report)
    if json_out:
        emit_json({**report.as_json(), "returns": [b.as_json() for b in bets]})
    else:
        _print_report(report, bets, config)
    raise exit_for(report.outcome)


#: The order of the groups of ``check``'s text: what needs action first.
GROUPS = ("deviates", "reading", "house choice", "conforms", "not submitted")


def _print_report(report: ConfigurationReport, bets: tuple[BetReturn, ...], config: Path) -> None:
    """The report for people: a table per verdict, deviations first, a row's note under its
    table; each value as a reader writes it (``spades, hearts``, not ``['spades', 'hearts']``,
    ``-`` for none)."""
    from tablecert.report.display import display

    source = authority(report.statute).removeprefix("the ")  # "statute", or "rule file"
    stdout.print(
        Text(
            f"{report.submission.game} configuration {plain(config)} against "
            f"{plain(report.statute.path.name)}",
            style="bold",
        )
    )
    for verdict in sorted({ln.verdict for ln in report.lines}, key=_group_order):
        lines = [ln for ln in report.lines if ln.verdict == verdict]
        rows = [
            [
                plain(ln.article),
                plain(ln.key),
                plain(display(ln.as_json()["expected"])),
                "" if verdict == "not submitted" else plain(display(ln.as_json()["submitted"])),
            ]
            for ln in lines
        ]
        columns = [
            Column("article"),
            Column("rule"),
            Column(source, wrap=True),
            Column("submitted", wrap=True),
        ]
        if not any(row[3] for row in rows):
            columns, rows = columns[:3], [row[:3] for row in rows]
        notes = {ln.note for ln in lines}
        shared = notes.pop() if len(notes) == 1 else ""  # said once, in the group's title
        stdout.print()
        title = f"{verdict} ({len(lines)})" + (f": {plain(shared)}" if shared else "")
        stdout.print(Text(title, style=VERDICT_STYLE[verdict]))
        print_table(columns, rows)
        for ln in lines:  # notes under the table, whole, not squeezed into a column
            if ln.note and not shared:
                stdout.print(f"  {plain(ln.key)}: {plain(ln.note)}")
    stdout.print()
    for c in report.consistency:
        mark = Text("ok", style="green") if c.passed else Text("FAILS", style="bold red")
        stdout.print(Text.assemble(mark, f" {c.article} {c.name}: {plain(c.detail)}"))
    for b in bets:
        if b.submitted is None or b.difference is None:
            stdout.print(Text(f"{b.article} {b.bet}: house edge {plain(b.why_not)}"))
            continue
        stdout.print(
            Text(
                f"{b.article} {b.bet}: house edge {decimal(b.submitted * 100, 4)}% "
                f"({source} {decimal(b.statute * 100, 4)}%, difference "
                f"{decimal(b.difference * 100, 4)} points)"
            )
        )
    if report.outcome is Outcome.INCONCLUSIVE:
        stdout.print(
            f"verdict: INCONCLUSIVE (the submission sets no value {authority(report.statute)} "
            "judges: nothing was examined)"
        )
    else:
        stdout.print(
            f"verdict: {report.verdict.upper()} ({len(report.deviations)} deviation(s), "
            f"{len(report.judged)} value(s) judged)"
        )


def _group_order(verdict: str) -> int:
    return GROUPS.index(verdict) if verdict in GROUPS else len(GROUPS)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
