"""Mahjong (Macau statute 135/91/M): score a win, settle a record, replay a hand.

``tablecert mahjong score``, ``settle`` and ``replay``: the mahjong statute's fan and
payments, and whole hands of play checked event by event; ``analyze_mahjong`` is the body of
``tablecert analyze mahjong-...`` (exact tables of complete dealt hands).
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from tablecert import mahjong
from tablecert.cli import conventions
from tablecert.cli.common import EXIT_HELP, JsonOption, emit_json, exit_for, plain, stderr, stdout
from tablecert.cli.progress import progress
from tablecert.cli.tables import Column, print_table
from tablecert.judgement import Outcome
from tablecert.mahjong.hands import GAMES as MAHJONG_GAMES
from tablecert.mahjong.record import Locate, load_record
from tablecert.mahjong.replay import Replay
from tablecert.mahjong.replay import replay as replay_game
from tablecert.mahjong.session import SessionReplay, is_session, replay_session

mahjong_app = typer.Typer(
    name="mahjong",
    no_args_is_help=True,
    help=conventions.summary(__doc__),
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
        game = conventions.game_argument(game, old_game, MAHJONG_GAMES)
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
    print_table(
        ["item", Column("fan", "right"), "article"],
        [
            *((plain(item.name), str(item.fan), plain(item.article)) for item in result.items),
            (
                "total",
                f"{result.fan} (raw {result.raw}, cap {result.cap})",
                plain(result.cap_article),
            ),
        ],
        title=f"{game}: fan (Art. 6)",
    )
    if settlement is not None:
        print_table(
            ["payer", "payee", Column("amount", "right"), "article"],
            [
                *((p.payer, p.payee, str(p.amount), plain(p.article)) for p in settlement.payments),
                (
                    "winner",
                    "house",
                    str(settlement.commission),
                    plain(settlement.commission_article),
                ),
            ],
            title=f"payments at {plain(limit)}",
        )


def settle(
    record: Annotated[
        Path, typer.Argument(help="A settlement record (JSON), see tablecert.mahjong.record.")
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
    _print_settled(settled.fan, settled.settlement)


def _print_settled(fan: mahjong.FanResult | None, settlement: mahjong.Settlement) -> None:
    if fan is not None:
        items = ", ".join(f"{i.name} {i.fan} ({i.article})" for i in fan.items)
        stdout.print(f"fan {fan.fan}: {plain(items)}")
    for p in settlement.payments:
        stdout.print(f"{p.payer} pays {p.payee} {p.amount} ({plain(p.article)}; {plain(p.note)})")
    stdout.print(f"commission {settlement.commission} ({plain(settlement.commission_article)})")
    for note in settlement.notes:
        stdout.print(f"note: {plain(note)}")


def replay(
    record: Annotated[
        Path,
        typer.Argument(
            help="A game record (JSON): the wall and dice or the deal, then every event of the "
            "hand; see tablecert.mahjong.replay."
        ),
    ],
    rules: RulesOption = None,
    json_out: JsonOption = False,
) -> None:
    """Replay a whole hand event by event under the statute (turns, calls and their priority,
    kongs and replacements, Art. 9 and 10), then settle it; or a session of hands, checking
    who deals each one and in which round (Art. 3). Invalid: a violation, named with its
    event and article.
    """
    data, locate = load_record(record)
    if is_session(data):
        _replay_session(data, rules, locate, json_out)
        return
    played = replay_game(data, rules, locate=locate)
    verdict = _headline(played.valid, played, f"{played.events} events of {played.game}", json_out)
    for v in played.violations:
        stdout.print(f"violation: {plain(v.text)}")
    if played.valid:
        who = f" {played.winner}" if played.winner else ""
        stdout.print(f"outcome: {played.outcome}{who}")
        if played.settlement is not None:
            _print_settled(played.fan, played.settlement)
    raise exit_for(verdict)


def _headline(valid: bool, played: Replay | SessionReplay, what: str, json_out: bool) -> Outcome:
    """The outcome (valid or invalid play); with --json the whole result is written and the
    command exits."""
    outcome = Outcome.of(not valid)
    if json_out:
        emit_json(played.as_json())
        raise exit_for(outcome)
    stdout.print(
        Text(f"{outcome.word('validity').upper()}: ", style="bold green" if valid else "bold red")
        + Text(f"{what} replayed")
    )
    return outcome


def _replay_session(data: object, rules: str | None, locate: Locate, json_out: bool) -> None:
    """A session of hands: each hand replayed, then the deal and the rounds (Art. 3)."""
    played = replay_session(data, rules, locate=locate)
    verdict = _headline(
        played.valid, played, f"{len(played.hands)} hands of {played.game}", json_out
    )
    pairs = zip(played.dealers, played.hands, strict=True)
    for number, (dealer, hand) in enumerate(pairs, start=1):
        who = f" {hand.winner}" if hand.winner else ""
        stdout.print(f"hand {number}: dealer {plain(dealer)}, {hand.outcome or 'invalid'}{who}")
    for number, v in played.violations:
        stdout.print(f"violation: hand {number}, {plain(v.text)}")
    raise exit_for(verdict)


def analyze_mahjong(game: str, json_out: bool = False, rules: str | None = None) -> None:
    """Print the exact table of complete dealt hands of a mahjong game."""
    started = time.perf_counter()
    with progress(f"enumerating every complete {game} hand"):
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
        complete = analysis.combinations_standard + analysis.combinations_orphans
        print_table(
            [
                "item",
                "article",
                Column("distinct", "right"),
                Column("combinations", "right"),
                Column("share of complete", "right"),
            ],
            (
                (
                    plain(row.name),
                    plain(row.article),
                    f"{row.distinct:,}",
                    f"{row.combinations:,}",
                    f"{float(Fraction(row.combinations, complete)):.4e}",
                )
                for row in rows
            ),
            title=title,
        )


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
    mahjong_app.command("replay", epilog=EXIT_HELP)(replay)
    # Deprecated: `tablecert analyze mahjong-traditional|mahjong-simple` is the one entry.
    mahjong_app.command("analyze", hidden=True, deprecated=True)(analyze)
    app.add_typer(mahjong_app)
