"""``tablecert hands`` and ``tablecert compare``: the statutes' poker orderings."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated

import typer

from tablecert import poker
from tablecert.cli import values
from tablecert.cli.common import JsonOption, emit_json, plain, stdout
from tablecert.cli.tables import Column, WideOption, print_table
from tablecert.hand_tables import category_table

GameArg = Annotated[str, typer.Argument(help="q-poker or caribbean-stud.")]
RulesOption = Annotated[
    str | None,
    typer.Option("--rules", help="Rule file path or bundled name (default: the Macau statute)."),
]


def hands(
    game: GameArg, rules: RulesOption = None, json_out: JsonOption = False, wide: WideOption = False
) -> None:
    """Print the exact hand-category table of a poker game: count, probability, 1 in N."""
    game = values.game(game, tuple(poker.GAMES))
    table = category_table(game, rules)
    if json_out:
        emit_json(table.as_json())
        return
    rows = []
    for row in table.rows:
        p = Fraction(row.count, table.total)
        rows.append(
            (
                plain(row.category),
                plain(row.article),
                f"{row.count:,}",
                f"{p.numerator}/{p.denominator}",
                f"{float(p):.10f}",
                f"{float(1 / p):,.2f}",
            )
        )
    rows.append(("total", "", f"{table.total:,}", "1", "1.0000000000", "1.00"))
    print_table(
        [
            Column("category", wrap=True),
            "article",
            Column("count", "right"),
            Column("probability (exact)", "right", short="exact"),
            Column("probability", "right", short="p", optional=True),
            Column("1 in", "right"),
        ],
        rows,
        title=f"{plain(table.title)}: all {table.total:,} hands",
        wide=wide,
    )


def compare(
    game: GameArg,
    hand_a: Annotated[str, typer.Argument(help='First hand, e.g. "As Kh Td".')],
    hand_b: Annotated[str, typer.Argument(help='Second hand, e.g. "Ad Kc Tc".')],
    rules: RulesOption = None,
    json_out: JsonOption = False,
) -> None:
    """Say which of two hands wins under the statute, and which rule and article decided."""
    game = values.game(game, tuple(poker.GAMES))
    decision = poker.decide(game, hand_a, hand_b, rules)
    if json_out:
        emit_json(
            {
                "game": game,
                "rules": poker.ordering(game, rules).rules.path.name,
                "a": {
                    "hand": decision.a.codes,
                    "category": decision.a.category,
                    "key": decision.a.key,
                },
                "b": {
                    "hand": decision.b.codes,
                    "category": decision.b.category,
                    "key": decision.b.key,
                },
                "winner": decision.winner,
                "outcome": decision.outcome,
                "step": decision.step,
                "article": decision.article,
                "explanation": decision.explanation,
            }
        )
        return
    verdict = {
        "a": f"A wins: {decision.a.name}",
        "b": f"B wins: {decision.b.name}",
        "push": "push",
    }[decision.winner]
    stdout.print(f"A: {decision.a.name}")
    stdout.print(f"B: {decision.b.name}")
    stdout.print(f"{verdict}")
    stdout.print(f"why: {decision.explanation}")


def register(app: typer.Typer) -> None:
    app.command("hands")(hands)
    app.command("compare")(compare)
