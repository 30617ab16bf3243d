"""``tablecert audit rounds``: round logs re-settled against the statute, and (``--hold``) the
observed hold against its exact expectation; or the logs of a game described by its rule file
re-settled by the description. Wiring only (logic in ``tablecert.rounds``)."""

from __future__ import annotations

from fractions import Fraction
from math import sqrt
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from tablecert import figures
from tablecert.cli import common
from tablecert.cli.common import (
    OUTCOME_STYLE,
    JsonOption,
    emit_json,
    exit_for,
    plain,
    stdout,
)
from tablecert.cli.progress import cluster_progress, progress
from tablecert.cli.round_options import (
    AnyGameOption,
    ConfigOption,
    RulesOpt,
    described_rules,
    is_dedicated,
    round_ordering,
)
from tablecert.cli.tables import Column, print_table
from tablecert.games.common import decimal
from tablecert.games.progressive import long_run_text
from tablecert.rounds.audit import RoundAudit, audit_rounds
from tablecert.rounds.hold import (
    DEFAULT_EFFECT,
    DEFAULT_POWER,
    DEFAULT_SHIFT,
    HoldParameters,
    HoldResult,
    HoldTest,
)
from tablecert.rounds.stud_audit import audit_stud_rounds
from tablecert.stats import DEFAULT_ALPHA


def _hold_level(name: str, help: str) -> Any:
    """The option ``name`` setting one level of the --hold analysis: optional, strictly
    between 0 and 1, its help starting "With --hold:"."""
    return typer.Option(name, callback=_level, help=f"With --hold: {help}")


def audit_rounds_command(
    logs: Annotated[
        list[Path],
        typer.Argument(metavar="LOG", help="Round logs (CSV or JSON Lines, plain or gzip)."),
    ],
    game: AnyGameOption,
    rules: RulesOpt = None,
    config: ConfigOption = None,
    json_out: JsonOption = False,
    hold: Annotated[
        bool,
        typer.Option(
            "--hold",
            help="Also judge the observed hold against its exact expectation given the cards "
            "and decisions, and the dealt-hand frequencies (documentation: Round audits, Hold "
            "analysis).",
        ),
    ] = False,
    hold_alpha: Annotated[
        float | None,
        _hold_level(
            "--hold-alpha", f"family-wise level of the hold tests (Holm) [{DEFAULT_ALPHA}]."
        ),
    ] = None,
    hold_power: Annotated[
        float | None, _hold_level("--hold-power", f"power required to pass [{DEFAULT_POWER}].")
    ] = None,
    hold_shift: Annotated[
        float | None,
        _hold_level(
            "--hold-shift",
            f"hold shift to detect, a fraction of the amount wagered [{float(DEFAULT_SHIFT)}].",
        ),
    ] = None,
    hold_effect: Annotated[
        float | None,
        _hold_level(
            "--hold-effect", f"Cohen's w the dealt-hand test must detect [{DEFAULT_EFFECT}]."
        ),
    ] = None,
    cluster: common.ClusterOption = None,
    workers: common.WorkersOption = None,
) -> None:
    """Re-settle every round of the logs under the statute (or --config) and name every
    difference; exit 0 pass, 1 fail, 2 unreadable input, 3 nothing audited (or, with --hold,
    too few rounds for the hold analysis' power).

    With --cluster or --workers, each log is one shard on the Dask cluster (read where it
    runs: the path must be valid on the workers), largest first, merged in file order; each
    log is then its own stream for the meter's continuity (the local answer whenever no
    table's rounds span two logs).

    A game described by its rule file (--game FILE) is audited by its description: its own
    log columns (the deal's cards, its decisions, each bet by id), every bet re-settled."""
    if not is_dedicated(game):
        _hold_parameters(hold, hold_alpha, hold_power, hold_shift, hold_effect)
        local = "is audited locally, one log after another"
        refused = (
            ("--config", config is not None, "is settled by the values written in that file"),
            (
                "--hold",
                hold,
                "has no hold analysis yet (it needs every round's dealer completions, computed "
                "for those two games only): audit its settlement without --hold",
            ),
            ("--cluster", cluster is not None, local),
            ("--workers", workers is not None, local),
        )
        described = described_rules(game, rules, refused)
        with progress(f"auditing {len(logs):,} round log(s)", unit="rounds") as reporter:
            result = audit_stud_rounds(logs, described, progress=reporter.advance)
        if json_out:
            emit_json(result.as_json())
        else:
            print_round_audit(result)
        raise exit_for(result.outcome)
    order = round_ordering(game, rules, config)
    sharded = cluster is not None or workers is not None
    title = f"auditing {len(logs):,} round log(s)" + (", one shard each" if sharded else "")
    unit = "logs" if sharded else "rounds"
    with cluster_progress(cluster, workers, title, unit=unit) as (executor, reporter):
        result = audit_rounds(
            logs,
            order,
            progress=None if sharded else reporter.advance,
            hold=_hold_parameters(hold, hold_alpha, hold_power, hold_shift, hold_effect),
            executor=executor,
            shard_progress=lambda done, total: reporter.update(done, total),
        )
    if json_out:
        emit_json(result.as_json())
    else:
        print_round_audit(result)
    raise exit_for(result.outcome)


def print_round_audit(result: RoundAudit) -> None:
    stdout.print(
        f"{result.game}: {result.rounds:,} rounds ({result.void_rounds:,} void), "
        f"{result.seats:,} seats from {len(result.files)} file(s), rules {plain(result.rules_file)}"
    )
    print_table(
        [
            "article / spot",
            Column("spots", "right"),
            Column("paid", "right"),
            Column("due", "right"),
            Column("differences", "right"),
        ],
        [
            [plain(a), f"{t.spots:,}", decimal(t.paid, 2), decimal(t.due, 2), f"{t.differences:,}"]
            for a, t in sorted(result.by_article.items())
        ],
    )
    for kind, n in sorted(result.counts.items()):
        stdout.print(f"{kind}: {n:,}")
    if result.progressive is not None:
        stdout.print(result.meter.text)
        stdout.print(
            f"progressive over the meter's cycles: {plain(long_run_text(result.progressive))}"
        )
    if result.hold is not None:
        print_hold(result.hold)
    for f in result.findings[:50]:
        stdout.print("  " + plain(f.text))
    if len(result.findings) > 50:
        stdout.print(
            f"  ... {sum(result.counts.values()) - 50:,} more (--json lists the first 1000)"
        )
    for reason in result.not_examined:
        stdout.print(f"not examined: {reason}")
    stdout.print(Text(f"verdict: {result.verdict}", style=OUTCOME_STYLE[result.outcome]))


def _level(ctx: typer.Context, param: typer.CallbackParam, value: float | None) -> float | None:
    """An optional level strictly between 0 and 1 (NaN refused)."""
    return None if value is None else common.probability(ctx, param, value)


def _hold_parameters(
    hold: bool,
    alpha: float | None,
    power: float | None,
    shift: float | None,
    effect: float | None,
) -> HoldParameters | None:
    """The hold analysis' parameters: the defaults where an option is not given; an option
    given without --hold is a usage error (it would change nothing)."""
    if not hold:
        options = ("--hold-alpha", "--hold-power", "--hold-shift", "--hold-effect")
        for option, value in zip(options, (alpha, power, shift, effect), strict=True):
            if value is not None:
                raise typer.BadParameter(
                    "needs --hold (without it no hold analysis runs)", param_hint=option
                )
        return None
    return HoldParameters(
        alpha=DEFAULT_ALPHA if alpha is None else alpha,
        power=DEFAULT_POWER if power is None else power,
        # the decimal as written (0.01 is 1/100, not the binary float nearest to it)
        shift=DEFAULT_SHIFT if shift is None else Fraction(repr(shift)),
        effect=DEFAULT_EFFECT if effect is None else effect,
    )


def _p(value: float | None) -> str:
    return "-" if value is None else figures.measured(value, 3)


def print_hold(h: HoldResult) -> None:
    """The hold analysis block of ``audit rounds --hold``."""
    stdout.print(
        f"hold analysis: {h.rounds:,} rounds, {h.seats:,} seats analysed "
        f"({h.rounds_skipped:,} rounds, {h.seats_skipped:,} seats not: void, not one deck, or "
        "bets not matching the decision); the progressive bet is not part of it"
    )
    print_table(
        [
            "spot",
            Column("wagered", "right"),
            Column("players' net", "right"),
            Column("expected (decisions)", "right"),
            Column("expected (optimal)", "right"),
        ],
        [
            [
                s.spot,
                decimal(s.wagered, 2),
                decimal(s.observed_net, 2),
                decimal(s.expected_net, 2),
                decimal(s.optimal_net, 2),
            ]
            for s in h.spots
        ],
    )

    def line(t: HoldTest) -> str:
        sd = decimal(Fraction(sqrt(t.variance)), 2) if t.variance else "0"
        return (
            f"{t.rule}: expected hold {decimal(t.expected, 2)} +- {sd} (1 sd), observed "
            f"{decimal(t.observed, 2)}, z = {_p(t.z)}, p = {figures.p_value(t.p_value)} (normal; "
            f"Berry-Esseen bound {_p(t.berry_esseen)}), power {_p(t.power)}"
        )

    stdout.print("  " + line(h.given_decisions))
    stdout.print("  " + line(h.optimal) + " (descriptive)")
    stdout.print(
        f"  hold from the players' decisions: {decimal(h.decision_hold, 2)} "
        f"({h.decisions_off_optimal:,} decisions differ from optimal)"
    )
    d = h.dealt
    powers = ", ".join(f"{k} {_p(v)}" for k, v in d.power.items())
    stdout.print(f"  dealt hands: p = {figures.p_value(d.check.p_value)}; {plain(d.check.detail)}")
    stdout.print(f"  power at w = {d.effect}: {powers}")
    stdout.print(Text(f"  hold verdict: {h.verdict}", style=OUTCOME_STYLE[h.outcome]))
    for reason in h.reasons:
        stdout.print(f"    {reason}")
