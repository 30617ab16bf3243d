"""Exact par sheets: every bet's return, optimal play.

``tablecert analyze q-poker|caribbean-stud|mahjong-traditional|mahjong-simple``: exact par
sheets under optimal play, and the mahjong statute's complete-hand tables; ``analyze game
FILE``: the par sheet of any stud poker game its rule file describes; ``analyze diff``: what
changes from one rule file of a game to another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from tablecert.cli import common, conventions
from tablecert.cli.common import JsonOption, emit_json, plain, stderr, stdout
from tablecert.cli.progress import cluster_progress, cluster_progress_on_use
from tablecert.cli.tables import Column, WideOption, print_table
from tablecert.cli.values import new_file
from tablecert.errors import OutputError
from tablecert.games import caribbean_stud, par_export
from tablecert.games.common import OutcomeRow, decimal, fraction_json
from tablecert.games.progressive import (
    PRIZE_HEADER,
    Progressive,
    grouped,
    long_run_text,
    prize_rows,
)
from tablecert.io.outputs import output_folder

RulesOption = Annotated[
    str | None,
    typer.Option("--rules", help="Rule file path or bundled name (default: the Macau statute)."),
]

ExportOption = Annotated[
    Path | None,
    typer.Option(
        "--export-strategy",
        help="Write the strategy files into this folder (created if its parent exists).",
    ),
]
ParExportOption = Annotated[
    Path | None,
    typer.Option(
        "--export",
        help="Write the par sheet as a spreadsheet: PATH.xlsx (Excel) or PATH.csv.",
    ),
]
#: Shorter headers of the progressive's prize table, for the compact layout (cli/tables.py).
PRIZE_SHORT = {"fixed prize": "fixed", "meter share": "share", "prize at the meter": "at meter"}

ForceOption = Annotated[
    bool, typer.Option("--force", help="Replace strategy and --export files that already exist.")
]
app = typer.Typer(
    cls=conventions.CaseFreeGroup,
    no_args_is_help=True,
    help=conventions.summary(__doc__),
)


def _percent(value: Fraction) -> str:
    return f"{decimal(value * 100, 4)}%"


def _return_table(title: str, rows: Iterable[OutcomeRow], wide: bool) -> None:
    print_table(
        [
            Column("event", wrap=True),
            "article",
            Column("pays", "right", wrap=True),
            Column("units won", "right", short="units", optional=True),
            Column("combinations", "right", short="count"),
            Column("probability", "right", short="prob.", optional=True),
            Column("return", "right"),
        ],
        (
            (
                plain(r.event),
                plain(r.article),
                r.pays,
                str(r.value),
                f"{r.count:,}",
                decimal(r.probability, 8),
                decimal(r.contribution, 8),
            )
            for r in rows
        ),
        title=title,
        wide=wide,
    )


@app.command("q-poker")
def analyze_q_poker(
    rules: RulesOption = None,
    json_out: JsonOption = False,
    export_strategy: ExportOption = None,
    force: ForceOption = False,
    export: ParExportOption = None,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
    wide: WideOption = False,
) -> None:
    """Q Poker: 多寶 (Pair Plus) and the bet against the dealer, with the optimal strategy."""
    from tablecert.games import q_poker  # here: 8 ms of import the other analyses skip

    _check_export(export_strategy, q_poker.STRATEGY_FILES, force)
    _check_par_export(export, force)
    with cluster_progress(cluster, workers, "analysing Q Poker") as (executor, _):
        result = q_poker.analyze(rules, executor=executor)
    _par_export(result.as_json, export, force)
    if export_strategy is not None:
        with _export_errors():
            path = result.export_strategy(export_strategy, force=force)
        stderr.print(f"wrote {path}")
    if json_out:
        emit_json(result.as_json())
        return
    play = result.play
    stdout.print(Text.assemble((result.title, "bold"), f" ({plain(result.rules_path)})"))
    _return_table("多寶 / Pair Plus", result.pair_plus.rows, wide)
    stdout.print(f"多寶 house edge: {_percent(result.pair_plus.house_edge)}")
    _return_table("與莊荷博彩 / Ante-Play, optimal strategy", play.rows, wide)
    stdout.print(f"strategy: {play.strategy.description}")
    stdout.print(
        f"house edge: {_percent(play.house_edge)} of the initial bet "
        f"({play.house_edge.numerator}/{play.house_edge.denominator})"
    )
    stdout.print(
        f"element of risk: {_percent(play.element_of_risk)}; "
        f"follow probability {_percent(play.follow_probability)}"
    )
    if play.house_edge_if_suit_ties_pushed is not None:
        stdout.print(
            f"showdowns decided only by suit: {play.suit_decided:,} of {play.showdowns:,} "
            f"({_percent(Fraction(play.suit_decided, play.showdowns))}); house edge if they "
            f"pushed: {_percent(play.house_edge_if_suit_ties_pushed)}"
        )


@app.command("caribbean-stud")
def analyze_caribbean(
    rules: RulesOption = None,
    json_out: JsonOption = False,
    royal: Annotated[
        int | None, typer.Option(help="Royal payout (50..100) instead of the file's.")
    ] = None,
    cap: Annotated[
        int | None, typer.Option(min=0, help="Per-round maximum payout (0 = none).")
    ] = None,
    export_strategy: ExportOption = None,
    force: ForceOption = False,
    cap_curve: Annotated[
        str | None,
        typer.Option(
            "--cap-curve", help="Comma-separated maximum payouts to evaluate, e.g. 0,50,100."
        ),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Compute afresh.")] = False,
    export: ParExportOption = None,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
    wide: WideOption = False,
) -> None:
    """Caribbean Stud: ante/raise with the dealer's upcard, options and the progressive."""
    cap_values = _cap_values(cap_curve)
    _check_export(export_strategy, caribbean_stud.STRATEGY_FILES, force)
    _check_par_export(export, force)
    # The cluster connected when the sweep needs it: the analysis's work beside the sweep
    # (the progressive, the summary's hand tables) runs while Dask is imported.
    with cluster_progress_on_use(cluster, workers, "analysing 2,598,960 x 47 situations") as (
        executor,
        reporter,
    ):
        result = caribbean_stud.analyze(
            rules,
            royal=royal,
            cap=cap,
            use_cache=not no_cache,
            progress=lambda done, total: reporter.update(done, total),
            executor=executor,
        )
    if export_strategy is not None:
        with _export_errors():
            paths = result.export_strategy(export_strategy, force=force)
        for path in paths:
            stderr.print(f"wrote {path}")
    _par_export(result.as_json, export, force)
    caps = result.cap_curve(cap_values)
    if json_out:
        data = result.as_json()
        if caps:
            data["cap_curve"] = [
                {
                    "maximum_payout": str(p.value),
                    "house_edge": fraction_json(p.house_edge),
                    "method": p.method,
                }
                for p in caps
            ]
        emit_json(data)
        return
    stdout.print(Text.assemble((result.title, "bold"), f" ({plain(result.rules_path)})"))
    _return_table("ante/raise, optimal strategy with the upcard", result.rows, wide)
    stdout.print(
        f"house edge: {_percent(result.house_edge)} of the ante; element of risk "
        f"{_percent(result.element_of_risk)}; raise probability "
        f"{_percent(result.raise_probability)}"
    )
    stdout.print(
        f"showdowns between equal ranks: {result.suit_decided:,} of "
        f"{result.showdowns:,} ("
        f"{'decided by suit' if result.suit_decides else 'pushed'})"
    )
    for line in result.strategy_summary():
        stdout.print(f"  {line}")
    ends = result.royal_curve(
        [int(result.payouts.royal_range[0]), int(result.payouts.royal_range[1])]
    )
    stdout.print(
        "royal option: "
        + ", ".join(f"{int(p.value)} to 1 -> {_percent(p.house_edge)}" for p in ends)
    )
    ante = result.payouts.ante
    for p in caps:
        stdout.print(
            f"per-round maximum {grouped(p.value)} against an ante of {grouped(ante)} (raise "
            f"wins capped at {grouped(p.value / ante)} antes): house edge "
            f"{_percent(p.house_edge)} ({p.method})"
            if p.value
            else f"no per-round maximum: house edge {_percent(p.house_edge)} ({p.method})"
        )
    _print_progressive(result.progressive)


def _print_progressive(prog: Progressive) -> None:
    """The progressive's pay table at the rule file's meter, its return there, the
    break-even meter, the return with royals shared, and the long run (a player advantage
    in bold red)."""
    print_table(
        [
            Column(PRIZE_HEADER[0], wrap=True),
            PRIZE_HEADER[1],
            *(Column(h, "right", short=PRIZE_SHORT.get(h)) for h in PRIZE_HEADER[2:]),
        ],
        (tuple(plain(c) for c in row) for row in prize_rows(prog)),
        title=f"progressive ({plain(prog.article)}): prizes per unit bet {grouped(prog.bet)}, "
        f"meter {grouped(prog.meter)}",
    )
    stdout.print(
        f"progressive: return {_percent(prog.return_at(prog.meter))} at meter "
        f"{grouped(prog.meter)}; break-even meter {grouped(prog.break_even_meter)}; "
        f"with {prog.players} players sharing royals "
        f"{_percent(prog.return_with_sharing())}"
    )
    long_run = long_run_text(prog)
    stdout.print(
        Text.assemble(
            "progressive over the meter's cycles: ",
            (long_run, "bold red" if long_run.startswith("PLAYER ADVANTAGE") else ""),
        )
    )


def _cap_values(spec: str | None, option: str = "--cap-curve") -> list[Fraction]:
    """The --cap-curve maxima: exact numbers >= 0 (0 = no maximum), as --cap takes."""
    if not spec:
        return []
    values = []
    for text in spec.split(","):
        if not text.strip():
            continue
        try:
            value = Fraction(text.strip())
        except (ValueError, ZeroDivisionError):
            raise common.fail(f"{option} {spec!r}: {text.strip()!r} is not a number") from None
        if value < 0:
            raise common.fail(
                f"{option} {spec!r}: {text.strip()} is negative (a maximum payout is >= 0, "
                "0 = none)"
            )
        values.append(value)
    return values


def _check_par_export(path: Path | None, force: bool) -> None:
    """Refuse an --export target before the analysis runs: its format, its folder, and a file
    already there (replaced only with --force; a link or device never)."""
    if path is None:
        return
    if path.suffix.lower() not in par_export.FORMATS:
        raise common.fail(f"--export {plain(path)}: give a .xlsx or .csv file name")
    new_file(path, "--export", replace=force)


def _par_export(sheet: Callable[[], dict[str, Any]], path: Path | None, force: bool) -> None:
    """Write the par sheet ``sheet()`` to ``path``; without ``--export``, ``sheet`` is not
    called (its strategy summary and royal curve cost 0.1 s a call)."""
    if path is not None:
        par_export.write_par_sheet(sheet(), path, replace=force)
        stderr.print(f"wrote {plain(path)}")


def _check_export(folder: Path | None, names: tuple[str, ...], force: bool) -> None:
    """Refuse an --export-strategy target before the analysis runs, not after."""
    if folder is not None:
        with _export_errors():
            output_folder(folder, names, force=force, create=False)


@contextmanager
def _export_errors() -> Iterator[None]:
    try:
        yield
    except OutputError as exc:
        raise common.fail(f"--export-strategy: {exc}") from None


@app.command("sweep")
def analyze_sweep(
    game: Annotated[str, typer.Argument(help="q-poker or caribbean-stud.")],
    variants: Annotated[
        list[str],
        typer.Argument(
            metavar="RULES", help="Rule files (paths or bundled names), one variant each."
        ),
    ],
    json_out: JsonOption = False,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
) -> None:
    """Paytable sweep: the par sheet of every variant, one task each (--cluster/--workers)."""
    from tablecert.games.sweep import sweep  # here: it imports Q Poker's analysis

    with cluster_progress(cluster, workers, "variants") as (executor, reporter):
        reporter.update(0, len(variants))
        sheets = sweep(game, variants, executor, lambda done, total: reporter.update(done, total))
    if json_out:
        emit_json({"game": game, "variants": sheets})
        return
    for sheet in sheets:
        edge = Fraction(
            sheet["play"]["house_edge"]["exact"]
            if game == "q-poker"
            else sheet["house_edge"]["exact"]
        )
        stdout.print(
            f"{sheet['rules']}: house edge {_percent(edge)} ({edge.numerator}/{edge.denominator})"
        )


@app.command("diff")
def analyze_diff(
    old: Annotated[str, typer.Argument(help="The first rule file (path or bundled name).")],
    new: Annotated[str, typer.Argument(help="The second rule file of the same game.")],
    json_out: JsonOption = False,
    wide: WideOption = False,
) -> None:
    """Two rule files of one game: every changed value with its article, every figure that
    changes, exactly."""
    from tablecert.games.rules_diff import diff_rules
    from tablecert.rules import load_rules

    result = diff_rules(load_rules(old), load_rules(new))
    if json_out:
        emit_json(result.as_json())
        return
    stdout.print(
        Text.assemble(
            (result.game, "bold"),
            f": {plain(result.old_rules)} -> {plain(result.new_rules)}: ",
            f"{len(result.values)} rule value(s) and {len(result.figures)} figure(s) of the "
            "analysis differ",
        )
    )
    print_table(
        [Column("key"), Column("article"), Column("old", wrap=True), Column("new", wrap=True)],
        [
            [
                plain(v.key),
                plain(v.article),
                plain(_rule_text(v.old, v.changed)),
                plain(_rule_text(v.new, v.changed)),
            ]
            for v in result.values
            if v.changed != ("note",)
        ],
        title="rule values",
        wide=wide,
    )
    notes = sum(v.changed == ("note",) for v in result.values)
    if notes:
        stdout.print(f"and {notes} value(s) whose note alone differs (--json lists them)")
    print_table(
        [
            Column("figure", wrap=True),
            Column("old", justify="right", wrap=True),
            Column("new", justify="right", wrap=True),
            Column("difference", justify="right", optional=True),
        ],
        [
            [
                plain(f.path),
                plain(_figure_text(f.old)),
                plain(_figure_text(f.new)),
                "" if f.difference is None else _fraction_text(f.difference),
            ]
            for f in result.figures
        ],
        title="figures",
        wide=wide,
    )


def _rule_text(value: Any, changed: tuple[str, ...]) -> str:
    """A rule value as the table shows it: its value, and any other field that changed."""
    from tablecert.report.display import display

    if value is None:
        return "-"
    text = display(value.value)
    others = [f for f in changed if f not in ("value", "note", "added", "removed")]
    return text + "".join(f"; {f}: {display(getattr(value, f))}" for f in others)


def _figure_text(value: Any) -> str:
    from tablecert.report.display import display

    if isinstance(value, dict) and set(value) == {"exact", "decimal"}:
        return f"{value['decimal']} ({value['exact']})"
    return display(value)


def _fraction_text(value: Fraction) -> str:
    return f"{decimal(value)} ({value.numerator}/{value.denominator})"


@app.command("game")
def analyze_game(
    rules: Annotated[str, typer.Argument(help="Rule file path or bundled name of a stud game.")],
    json_out: JsonOption = False,
    cap: Annotated[
        str | None,
        typer.Option(
            "--cap",
            metavar="AMOUNT",
            help="Per-round maximum payout instead of the file's (its currency units; 0 = none).",
        ),
    ] = None,
    cap_curve: Annotated[
        str | None,
        typer.Option(
            "--cap-curve",
            metavar="AMOUNTS",
            help="Comma-separated maximum payouts to evaluate, e.g. 0,50,100.",
        ),
    ] = None,
    export: Annotated[
        Path | None,
        typer.Option(
            "--export",
            metavar="DIR",
            help="Write par-sheet.xlsx, par-sheet.csv and strategy.csv into this folder "
            "(created if its parent exists).",
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace --export files that already exist.")
    ] = False,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
    wide: WideOption = False,
) -> None:
    """Any stud poker game its rule file describes: the par sheet under optimal play."""
    from tablecert.games import stud

    maximum = _cap_value(cap)
    maxima = _cap_values(cap_curve)
    if export is not None:
        try:
            par_export.check_folder(export, replace=force)
        except par_export.ExportError as exc:
            raise common.fail(f"--export: {exc}") from None
    with cluster_progress(cluster, workers, "analysing every situation") as (executor, report):
        result = stud.analyze(
            rules,
            progress=lambda done, total: report.update(done, total),
            executor=executor,
            cap=maximum,
            strategy=export is not None,
            cap_curve=maxima,
        )
    if export is not None and result.strategy_table is not None:
        paths = par_export.export_folder(
            result.as_json(), result.strategy_table.cells(), export, replace=force
        )
        for path in paths:
            stderr.print(f"wrote {plain(path)}")
    if json_out:
        emit_json(result.as_json())
        return
    stdout.print(Text.assemble((result.title, "bold"), f" ({plain(result.rules_path)})"))
    names = [d.decision for d in result.decisions]
    print_table(
        [Column("category", wrap=True), *(Column(n, "right") for n in names)],
        ((plain(s.category), *(f"{k:,}" for k in s.situations)) for s in result.strategy),
        title="optimal decisions: situations by the player's category",
        wide=wide,
    )
    _return_table("the bet against the dealer, optimal strategy", result.rows, wide)
    edge = result.house_edge
    stdout.print(
        f"house edge: {_percent(edge)} of the ante ({edge.numerator}/{edge.denominator}); "
        f"element of risk: {_percent(result.element_of_risk)}"
    )
    stdout.print(
        "decisions: "
        + ", ".join(f"{d.decision} {_percent(d.probability)}" for d in result.decisions)
    )
    for point in result.cap_curve:
        stdout.print(
            (
                f"per-round maximum {grouped(point.maximum_payout)}"
                if point.maximum_payout
                else "no per-round maximum"
            )
            + f": house edge {_percent(point.house_edge)}, element of risk "
            f"{_percent(point.element_of_risk)} ({point.method})"
        )
    for bet in result.side_bets:
        _return_table(f"{bet.name} ({bet.article})", bet.rows, wide)
        stdout.print(f"{plain(bet.name)} house edge: {_percent(bet.house_edge)}")
    if result.progressive is not None:
        _print_progressive(result.progressive)


def _cap_value(text: str | None) -> Fraction | None:
    """The --cap maximum: an exact number >= 0 (0 = no maximum)."""
    if text is None:
        return None
    values = _cap_values(text, option="--cap")
    if len(values) != 1:
        raise common.fail(f"--cap {text!r}: give one maximum payout (0 = none)")
    return values[0]


# The mahjong commands import their package when they run: 50-65 ms that no other analysis
# (a --cluster client's start included) needs.
@app.command("mahjong-traditional")
def analyze_mahjong_traditional(rules: RulesOption = None, json_out: JsonOption = False) -> None:
    """Complete-hand, heavenly-hand and fan tables of traditional mahjong (甲, 136 tiles)."""
    from tablecert.cli.mahjong import analyze_mahjong

    analyze_mahjong("mahjong-traditional", json_out, rules)


@app.command("mahjong-simple")
def analyze_mahjong_simple(rules: RulesOption = None, json_out: JsonOption = False) -> None:
    """Complete-hand and heavenly-hand tables of simple mahjong (乙, 112 tiles)."""
    from tablecert.cli.mahjong import analyze_mahjong

    analyze_mahjong("mahjong-simple", json_out, rules)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="analyze")
