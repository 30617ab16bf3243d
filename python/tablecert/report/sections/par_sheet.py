"""Section ``par-sheet``: the exact par sheet of a poker game under a rule file.

Every bet's return table (each line with its article), the house edge and element of risk
under the optimal strategy, and the strategy itself. Verdicts per return table: its outcomes
are exhaustive (the counts add up to every deal, so the probabilities sum to exactly 1), and
its lines' returns sum exactly to the stated expected value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from tablecert.exact import decimal_text
from tablecert.games import caribbean_stud, par_export, q_poker
from tablecert.games.common import AnalysisError, OutcomeRow, decimal
from tablecert.games.progressive import (
    PRIZE_HEADER,
    LongRun,
    Progressive,
    grouped,
    long_run_text,
    prize_rows,
)
from tablecert.judgement import Outcome, Verdict
from tablecert.poker import GAMES
from tablecert.report.entry import Appendix, Context, Field, PlanEntry, Scope, Section
from tablecert.report.html import esc, table
from tablecert.report.registry import register_section
from tablecert.report.sections.fields import POKER_GAME, RULE_FILE
from tablecert.rules import RuleFile


def return_table_html(title: str, rows: Sequence[OutcomeRow]) -> str:
    """One return table: event, article, pays ("n to 1"), units won per unit staked,
    combinations, probability, return."""
    total = sum(r.count for r in rows)
    ev = sum((r.contribution for r in rows), Fraction(0))
    body = [
        (
            r.event,
            r.article,
            r.pays,
            str(r.value),
            f"{r.count:,}",
            decimal_text(r.probability, 10),
            decimal_text(r.contribution, 10),
        )
        for r in rows
    ]
    body.append(("total", "", "", "", f"{total:,}", "1.0000000000", decimal_text(ev, 10)))
    return f"<h3>{esc(title)}</h3>" + table(
        ["event", "article", "pays", "units won", "combinations", "probability", "return"],
        body,
        numeric=(3, 4, 5, 6),
    )


def table_verdicts(
    prefix: str,
    bet: str,
    rows: Sequence[OutcomeRow],
    expected_value: Fraction,
    article: str | None = None,
) -> tuple[Verdict, ...]:
    """Exhaustive outcomes (probabilities sum to 1) and returns summing to the stated value,
    under ``article`` (default: the first line's, e.g. 第十條 of 第十條(一))."""
    if article is None:
        article = rows[0].article.split("(")[0]
    total = rows[0].total
    counted = sum(r.count for r in rows)
    probability = sum((r.probability for r in rows), Fraction(0))
    summed = sum((r.contribution for r in rows), Fraction(0))
    return (
        Verdict(
            f"{prefix}.{bet}.exhaustive",
            article,
            f"{bet}: the outcomes cover every one of the {total:,} deals exactly once "
            "(probabilities sum to 1)",
            Outcome.of(not (counted == total and probability == 1)),
            f"{counted:,} of {total:,} deals; probabilities sum to {probability}",
        ),
        Verdict(
            f"{prefix}.{bet}.returns",
            article,
            f"{bet}: the lines' returns sum exactly to the expected value",
            Outcome.of(summed != expected_value),
            f"sum of returns {summed} = {decimal_text(summed, 10)}; "
            f"expected value {expected_value}",
        ),
    )


def percent(value: Fraction) -> str:
    """A fraction as a percentage to four places."""
    return f"{decimal_text(value * 100, 4)}%"


def _q_poker(rules: RuleFile, context: Context) -> Section:
    context.step("q-poker: par sheet (every player hand against every dealer hand)")
    result = q_poker.analyze(rules)
    prefix = f"par-sheet.{rules.path.stem}"
    pp, play = result.pair_plus, result.play
    verdicts = table_verdicts(prefix, "pair-plus", pp.rows, pp.expected_value) + table_verdicts(
        prefix, "ante-play", play.rows, play.expected_value
    )
    html = (
        f"<p>{esc(result.title)} under <code>{esc(rules.path.name)}</code> "
        f"(SHA-256 <code>{esc(rules.sha256)}</code>), every deal enumerated exactly.</p>"
        + table(
            ["bet", "house edge", "exact", "element of risk"],
            [
                ("多寶 / Pair Plus", percent(pp.house_edge), str(pp.house_edge), "-"),
                (
                    "與莊荷博彩 / Ante-Play",
                    percent(play.house_edge),
                    str(play.house_edge),
                    percent(play.element_of_risk),
                ),
            ],
            numeric=(1, 3),
        )
        + f"<p>Optimal strategy: {esc(play.strategy.description)} (follow probability "
        f"{percent(play.follow_probability)}).</p>"
        + return_table_html("多寶 / Pair Plus", pp.rows)
        + return_table_html("與莊荷博彩 / Ante-Play, optimal strategy", play.rows)
    )
    deals = play.rows[0].total
    return Section(
        id=f"par-sheet/q-poker/{rules.path.stem}",
        title=f"{result.title}: par sheet ({rules.path.name})",
        data=_exact(result.as_json()),
        verdicts=verdicts,
        html=html,
        scope=Scope(
            exhaustive=(
                f"多寶 / Pair Plus: all {pp.rows[0].total:,} three-card hands",
                f"與莊荷博彩 / Ante-Play: all {deals:,} deals (every player hand against every "
                "dealer hand from the other 49 cards), each decided by the optimal strategy",
            ),
            power=("exact values: no sampling error",),
            limitations=(
                "returns assume the optimal strategy; a player who plays otherwise faces a "
                "higher house edge (the element of risk is per unit staked under that strategy)",
            ),
        ),
    )


#: Where a long analysis's figures came from, as the report states it.
FIGURES = {
    "computed": "figures computed in this run",
    "cache": "figures read from a cache entry proven (HMAC-SHA256 under this installation's "
    "cache key) to be this tablecert build's own computation for this rule file and these "
    "payouts",
}


def _caribbean(rules: RuleFile, context: Context) -> Section:
    context.step("caribbean-stud: par sheet (2,598,960 hands x 47 upcards; cached after)")
    result = caribbean_stud.analyze(rules)
    prefix = f"par-sheet.{rules.path.stem}"
    verdicts = table_verdicts(prefix, "ante-raise", result.rows, result.expected_value)
    prog = result.progressive
    html = (
        f"<p>{esc(result.title)} under <code>{esc(rules.path.name)}</code> "
        f"(SHA-256 <code>{esc(rules.sha256)}</code>), all 19,933,230,517,200 deals.</p>"
        + table(
            ["", ""],
            [
                ("house edge (per ante)", f"{percent(result.house_edge)} = {result.house_edge}"),
                ("element of risk", percent(result.element_of_risk)),
                ("raise probability", percent(result.raise_probability)),
                (
                    "progressive return at the meter",
                    percent(prog.return_at(prog.meter)),
                ),
                ("progressive over the meter's cycles", long_run_text(prog)),
            ],
        )
        + progressive_html(prog)
        + "<h3>Optimal strategy (the table by category is in the appendix)</h3><ul>"
        + "".join(f"<li>{esc(line)}</li>" for line in result.strategy_summary())
        + "</ul>"
        + return_table_html("Ante/raise, optimal strategy with the upcard", result.rows)
    )
    return Section(
        id=f"par-sheet/caribbean-stud/{rules.path.stem}",
        title=f"{result.title}: par sheet ({rules.path.name})",
        data=_exact(result.as_json()) | {"figures": result.figures},
        verdicts=verdicts,
        html=html,
        scope=Scope(
            exhaustive=(
                f"all {result.rows[0].total:,} deals (2,598,960 player hands x 47 upcards x "
                "163,185 dealer completions), each decided by the optimal strategy",
                FIGURES[result.figures],
            ),
            power=("exact values: no sampling error",),
            limitations=(
                "returns assume the optimal strategy with the dealer's upcard; the progressive "
                "is reported at the meter of the rule file, not judged",
            ),
        ),
        appendix=Appendix(
            f"{result.title}: optimal strategy by player category",
            strategy_table_html(result),
        ),
    )


def progressive_html(prog: Progressive) -> str:
    """The progressive's pay table (Art. 10) at the rule file's meter, and a player advantage
    in the long run stated in words, not left to a sign."""
    try:
        run: LongRun | None = prog.long_run()
    except AnalysisError:
        run = None  # the par sheet's line says why
    flag = ""
    if run is not None and run.player_advantage:
        flag = (
            "<p><strong>Player advantage:</strong> in the long run the progressive's prizes "
            f"pay {decimal(run.prizes_per_bet / run.bet, 4)} per unit bet (return "
            f"+{decimal(100 * run.return_per_bet, 4)}% per bet with {run.players} players "
            "betting every round): the house loses on this bet.</p>"
        )
    return (
        f"<h3>Progressive ({esc(prog.article)}): prizes per unit bet {esc(grouped(prog.bet))} "
        f"at the meter {esc(grouped(prog.meter))}</h3>"
        + table(list(PRIZE_HEADER), prize_rows(prog), numeric=(2, 3, 4, 5, 6))
        + flag
    )


def strategy_table_html(result: caribbean_stud.CaribbeanAnalysis) -> str:
    """The optimal decisions and their outcomes, category by category (every situation)."""
    return table(
        [
            "player category",
            "situations",
            "raised",
            "indifferent",
            "decision",
            "dealer does not qualify",
            "won",
            "tied",
            "lost",
        ],
        [
            (
                c.category,
                f"{c.situations:,}",
                f"{c.raised:,}",
                f"{c.indifferent:,}",
                c.decision,
                f"{c.not_qualifying:,}",
                f"{c.won:,}",
                f"{c.tied:,}",
                f"{c.lost:,}",
            )
            for c in reversed(result.categories)
        ],
        numeric=(1, 2, 3, 5, 6, 7, 8),
    ) + (
        "<p>Situations are player hands x upcards; the outcome counts are deals (dealer "
        "completions) under the optimal decision.</p>"
    )


def _exact(data: dict[str, Any]) -> dict[str, Any]:
    """The analysis's JSON without the rule file's local name (it is a signed subject)."""
    return {k: v for k, v in data.items() if k != "rules"}


#: The par-sheet files a certification may hold: one per game and format.
EXPORT_NAMES = tuple(f"par-{game}.{ext}" for game in GAMES for ext in ("xlsx", "csv"))


@register_section(
    "par-sheet",
    title="Par sheet",
    fields={
        "game": POKER_GAME,
        "rules": RULE_FILE,
        "export": Field(
            "text",
            required=False,
            help="xlsx or csv: also write the par sheet as par-GAME.xlsx (signed with the report)",
        ),
    },
)
def par_sheet_section(entry: PlanEntry, context: Context) -> Section:
    game, rules = entry.game_rules(GAMES, "poker")
    export = entry.values.get("export")
    if export is not None and export not in ("xlsx", "csv"):
        raise entry.error("export", f"{export!r}: expected xlsx or csv")
    section = _q_poker(rules, context) if game == "q-poker" else _caribbean(rules, context)
    if export is None:
        return section
    context.step(f"{game}: par sheet as par-{game}.{export}")
    tables = par_export.sheets({**section.data, "rules": rules.path.name})
    content = par_export.xlsx_bytes(tables) if export == "xlsx" else par_export.csv_bytes(tables)
    return replace(section, exports=((f"par-{game}.{export}", content),))
