"""``tablecert check CONFIG``: a casino's game configuration against the statute."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from tablecert.cli.common import JsonOption, emit_json, stderr, stdout
from tablecert.conformance.configuration import BetReturn, bet_returns, check_configuration
from tablecert.games.common import decimal

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
            "--rules", help="The statute rule file to judge against (default: the bundled one)."
        ),
    ] = None,
) -> None:
    """Judge a submitted configuration article by article; exit 1 if anything deviates."""
    report = check_configuration(config, rules)
    bets: tuple[BetReturn, ...] = ()
    if returns:
        with stderr.status("computing the exact return of every bet (submitted and statute)"):
            bets = bet_returns(report)
    if json_out:
        emit_json({**report.as_json(), "returns": [b.as_json() for b in bets]})
    else:
        table = Table(
            title=f"{report.submission.game} configuration {config} against "
            f"{report.statute.path.name}",
            title_justify="left",
        )
        table.add_column("article", no_wrap=True)
        table.add_column("rule", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        for column in ("statute", "submitted", "note"):
            table.add_column(column, overflow="fold")
        for line in report.lines:
            style = VERDICT_STYLE[line.verdict]
            table.add_row(
                line.article,
                line.key,
                Text(line.verdict, style=style),
                str(line.as_json()["expected"]),
                str(line.as_json()["submitted"]),
                line.note,
            )
        stdout.print(table)
        for c in report.consistency:
            mark = Text("ok", style="green") if c.passed else Text("FAILS", style="bold red")
            stdout.print(Text.assemble(mark, f" {c.article} {c.name}: {c.detail}"))
        for b in bets:
            stdout.print(
                f"{b.article} {b.bet}: house edge {decimal(b.submitted * 100, 4)}% "
                f"(statute {decimal(b.statute * 100, 4)}%, difference "
                f"{decimal(b.difference * 100, 4)} points)"
            )
        verdict = "CONFORMS" if report.passed else "DEVIATES"
        stdout.print(f"verdict: {verdict} ({len(report.deviations)} deviation(s))")
    if not report.passed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
