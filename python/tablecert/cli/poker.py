"""``tablecert hands`` and ``tablecert compare``: the poker orderings, of a game with its
own engine (by its id) or of any stud game its rule file describes (by the file)."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

import typer

from tablecert import poker
from tablecert.bundled import is_bare_name
from tablecert.cli import values
from tablecert.cli.common import JsonOption, emit_json, plain, stdout
from tablecert.cli.tables import Column, WideOption, print_table
from tablecert.hand_tables import category_table

GameArg = Annotated[
    str,
    typer.Argument(
        help=f"The game: {', '.join(poker.game_names())}, or a poker rule file's path. "
        "A stud game's file ranks hands of its dealt sizes by their best cards."
    ),
]
RulesOption = Annotated[
    str | None,
    typer.Option(
        "--rules",
        help="Rule file path or bundled name for a game id (default: the Macau statute).",
    ),
]


def game_name(value: str, rules: str | None) -> str:
    """GAME as given: a name the bundled files give (case-free), or a rule file's path; with
    ``--rules``, also the id of the games described by their files."""
    if not is_bare_name(value):
        return value
    ids = poker.described_games() if rules is not None else ()
    return values.game(value, (*poker.game_names(), *ids))


def hands(
    game: GameArg,
    rules: RulesOption = None,
    bet: Annotated[
        str | None,
        typer.Option(
            "--bet",
            metavar="ID",
            help="A side bet's id in the rule file: the table of the bet's hands, in its own "
            "categories (a bet on the player's and the dealer's cards counts those together).",
        ),
    ] = None,
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Print the exact hand-category table of a poker game: count, probability, 1 in N."""
    game = game_name(game, rules)
    table = category_table(game, rules, bet)
    order = (
        poker.game_ordering(game, rules) if bet is None else poker.bet_ordering(game, bet, rules)
    )
    stud = order.stud
    if json_out:
        dealt = {} if stud is None else {"cards": stud.table_cards, "uses": order.hand_size}
        emit_json(table.as_json() | dealt | ({} if bet is None else {"bet": bet}))
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
        title=f"{plain(table.title)}: all {table.total:,} hands"
        + (
            ""
            if stud is None
            else f" of {stud.table_cards} cards, each by its best {order.hand_size}"
        ),
        wide=wide,
    )


def compare(
    game: GameArg,
    hand_a: Annotated[str, typer.Argument(help='First hand, e.g. "As Kh Td".')],
    hand_b: Annotated[str, typer.Argument(help='Second hand, e.g. "Ad Kc Tc".')],
    rules: RulesOption = None,
    json_out: JsonOption = False,
) -> None:
    """Say which of two hands wins under the game's rules, and which rule and article
    decided."""
    game = game_name(game, rules)
    decision = poker.decide(game, hand_a, hand_b, rules)
    order = poker.game_ordering(game, rules)
    if json_out:
        data: dict[str, Any] = {
            "game": decision.a.game,
            "rules": order.rules.path.name,
            "a": _hand_json(order, decision.a),
            "b": _hand_json(order, decision.b),
            "winner": decision.winner,
            "outcome": decision.outcome,
            "step": decision.step,
            "article": decision.article,
            "explanation": decision.explanation,
        }
        if order.stud is not None:
            data["ties"] = {"to": decision.ties, "article": decision.ties_article}
        emit_json(data)
        return
    verdict = {
        "a": f"A wins: {_hand_text(order, decision.a)}",
        "b": f"B wins: {_hand_text(order, decision.b)}",
        "push": "push",
        "tie": f"tie: the {decision.ties} takes it",
    }[decision.winner]
    stdout.print(f"A: {_hand_text(order, decision.a)}")
    stdout.print(f"B: {_hand_text(order, decision.b)}")
    stdout.print(f"{verdict}")
    stdout.print(f"why: {decision.explanation}")


def _hand_json(order: poker.Ordering, hand: poker.Evaluation) -> dict[str, Any]:
    data: dict[str, Any] = {"hand": hand.codes, "category": hand.category, "key": hand.key}
    if order.stud is not None:
        data["best"] = poker.format_hand(poker.best_cards(order, hand.cards))
    return data


def _hand_text(order: poker.Ordering, hand: poker.Evaluation) -> str:
    """The hand's category and cards; of more cards than make a hand, which ones do."""
    best = poker.best_cards(order, hand.cards)
    if len(best) == len(hand.cards):
        return hand.name
    return f"{hand.name}, best {len(best)}: {poker.format_hand(best)}"


def register(app: typer.Typer) -> None:
    app.command("hands")(hands)
    app.command("compare")(compare)
