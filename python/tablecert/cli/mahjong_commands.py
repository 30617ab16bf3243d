"""``tablecert mahjong score`` and ``tablecert mahjong settle``: the mahjong statute's fan and
payments; ``analyze_mahjong`` is the body of ``tablecert analyze mahjong-...`` (exact tables of
complete dealt hands).
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tablecert import mahjong
from tablecert.cli import conventions
from tablecert.cli.common import JsonOption, emit_json, stderr, stdout
from tablecert.mahjong.record import load_record

mahjong_app = typer.Typer(
    name="mahjong",
    no_args_is_help=True,
    help="Mahjong (Macau statute 135/91/M): score a win, print exact hand tables.",
)

RulesOption = Annotated[
    str | None,
    typer.Option("--rules", help="Rule file path or bundled name (default: the Macau statute)."),
]


def score(
    game: Annotated[
        str, typer.Argument(metavar="GAME", help="mahjong-traditional (甲) or mahjong-simple (乙).")
    ],
    hand: Annotated[
        str | None,
        typer.Argument(
            metavar="HAND",
            help='Concealed tiles incl. the winning tile; melds in brackets: "[E E E]" exposed, '
            '"(Rd Rd Rd Rd)" a concealed kong. E.g. "1m 2m 3m 4p 5p 6p 7s 8s 9s Gd Gd [E E E]".',
        ),
    ] = None,
    seat: Annotated[str, typer.Option(help="The winner's seat wind: E S W N.")] = "E",
    round_wind: Annotated[str, typer.Option("--round", help="The round wind: E S W N.")] = "E",
    self_drawn: Annotated[
        bool, typer.Option("--self-drawn/--discard", help="Self-drawn win or on a discard.")
    ] = False,
    robbed_kong: Annotated[bool, typer.Option(help="Won by robbing a kong.")] = False,
    kong_replacements: Annotated[
        int,
        typer.Option(
            help="Consecutive kong replacement draws ending in the win: 1 槓上花, 2 or more "
            "槓上槓; the hand must declare at least as many kongs.",
            min=0,
            max=4,
        ),
    ] = 0,
    last_tile: Annotated[bool, typer.Option(help="Won on the wall's last tile.")] = False,
    heavenly: Annotated[bool, typer.Option(help="Heavenly hand (the dealer's deal).")] = False,
    earthly: Annotated[bool, typer.Option(help="Earthly hand.")] = False,
    winning_tile: Annotated[
        str | None, typer.Option(help="The winning tile (default: the last concealed tile).")
    ] = None,
    limit: Annotated[
        str | None, typer.Option(help="Table limit, e.g. 100/200: also print the payments.")
    ] = None,
    rules: RulesOption = None,
    json_out: JsonOption = False,
    old_game: conventions.DeprecatedGameOption = None,
) -> None:
    """Score a win under Art. 6: every item with its article, the best reading, the fan."""
    if hand is None:  # the old form: score HAND [--game GAME]
        conventions.deprecated("mahjong score HAND --game GAME", "mahjong score GAME HAND")
        game, hand = old_game or "mahjong-traditional", game
    else:
        game = conventions.game_argument(game, old_game, "mahjong-traditional or mahjong-simple")
    if robbed_kong and self_drawn:
        raise typer.BadParameter("a robbed kong is not self-drawn", param_hint="--robbed-kong")
    win_by = "robbed-kong" if robbed_kong else ("self-drawn" if self_drawn else "discard")
    context = mahjong.Context(
        seat=seat.upper(),
        round_wind=round_wind.upper(),
        win_by=win_by,
        kong_replacements=kong_replacements,
        last_tile=last_tile,
        heavenly=heavenly,
        earthly=earthly,
    )
    parsed = mahjong.parse_hand(game, hand, winning_tile)
    result = mahjong.score(parsed, context, rules)
    settlement = (
        mahjong.settle_win(result, context.seat, limit, rules=rules) if limit is not None else None
    )
    if json_out:
        data = result.as_json()
        data["hand"] = parsed.text
        if settlement is not None:
            data["settlement"] = settlement.as_json()
        emit_json(data)
        return
    stdout.print(f"hand: {parsed.text}   (reading: {result.reading.text})")
    out = Table(title=f"{game}: fan (Art. 6)", title_justify="left")
    out.add_column("item")
    out.add_column("fan", justify="right")
    out.add_column("article")
    for item in result.items:
        out.add_row(item.name, str(item.fan), item.article)
    out.add_row("total", f"{result.fan} (raw {result.raw}, cap {result.cap})", result.cap_article)
    stdout.print(out)
    if settlement is not None:
        pay = Table(title=f"payments at {limit}", title_justify="left")
        pay.add_column("payer")
        pay.add_column("payee")
        pay.add_column("amount", justify="right")
        pay.add_column("article")
        for p in settlement.payments:
            pay.add_row(p.payer, p.payee, str(p.amount), p.article)
        pay.add_row("winner", "house", str(settlement.commission), settlement.commission_article)
        stdout.print(pay)


def settle(
    record: Annotated[
        Path, typer.Argument(help="A game record (JSON), see tablecert.mahjong.record.")
    ],
    rules: RulesOption = None,
    json_out: JsonOption = False,
) -> None:
    """Settle one recorded game: fan, who pays whom (Art. 7, 9, 10) and the commission (Art. 8)."""
    data, locate = load_record(record)
    settled = mahjong.settle_record(data, rules, locate=locate)
    if json_out:
        emit_json(settled.as_json())
        return
    if settled.fan is not None:
        items = ", ".join(f"{i.name} {i.fan} ({i.article})" for i in settled.fan.items)
        stdout.print(f"fan {settled.fan.fan}: {items}")
    for p in settled.settlement.payments:
        stdout.print(f"{p.payer} pays {p.payee} {p.amount} ({p.article}; {p.note})")
    s = settled.settlement
    stdout.print(f"commission {s.commission} ({s.commission_article})")
    for note in s.notes:
        stdout.print(f"note: {note}")


def analyze_mahjong(game: str, json_out: bool = False, rules: str | None = None) -> None:
    """Print the exact table of complete dealt hands of a mahjong game."""
    started = time.perf_counter()
    with stderr.status(f"enumerating every complete {game} hand"):
        analysis = mahjong.analyze(game, rules)
    stderr.print(f"enumerated in {time.perf_counter() - started:.1f} s")
    if json_out:
        emit_json(analysis.as_json())
        return
    stdout.print(
        f"{game}: {analysis.dealt_hands:,} possible {analysis.hand_size}-tile hands "
        f"from {analysis.tiles} tiles"
    )
    stdout.print(
        f"distinct complete hands (sets + pair): {analysis.distinct_standard:,}; "
        f"Thirteen Orphans: {analysis.distinct_orphans}"
    )
    heavenly = [("heavenly hand (sets + pair)", analysis.heavenly_standard)]
    if analysis.distinct_orphans:
        heavenly.append(("heavenly hand (incl. Thirteen Orphans)", analysis.heavenly_any))
    for label, p in heavenly:
        stdout.print(
            f"{label}: {p.numerator}/{p.denominator} = {float(p):.6e} (1 in {float(1 / p):,.1f})"
        )
    for title, rows in (
        ("fan items of the dealer's complete dealt hands", analysis.items),
        ("fan of the dealer's complete dealt hands", analysis.fan_totals),
    ):
        out = Table(title=title, title_justify="left")
        out.add_column("item", overflow="fold")
        out.add_column("article", overflow="fold")
        out.add_column("distinct", justify="right", overflow="fold")
        out.add_column("combinations", justify="right", overflow="fold")
        out.add_column("share of complete", justify="right", overflow="fold")
        complete = analysis.combinations_standard + analysis.combinations_orphans
        for row in rows:
            share = Fraction(row.combinations, complete)
            out.add_row(
                row.name,
                row.article,
                f"{row.distinct:,}",
                f"{row.combinations:,}",
                f"{float(share):.4e}",
            )
        stdout.print(out)


def analyze(
    game: Annotated[str, typer.Argument(help="mahjong-traditional or mahjong-simple.")],
    rules: RulesOption = None,
    json_out: JsonOption = False,
) -> None:
    """Exact counts of complete dealt hands, heavenly-hand odds and the fan distribution."""
    analyze_mahjong(game, json_out, rules)


def register(app: typer.Typer) -> None:
    mahjong_app.command("score")(score)
    mahjong_app.command("settle")(settle)
    # Deprecated: `tablecert analyze mahjong-traditional|mahjong-simple` is the one entry.
    mahjong_app.command("analyze", hidden=True, deprecated=True)(analyze)
    app.add_typer(mahjong_app)
