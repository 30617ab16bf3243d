"""Section ``mahjong-tables``: exact tables of a mahjong game's complete dealt hands.

Every complete hand the dealer can be dealt, counted out of all C(136, 14) (resp. C(112, 5))
deals, with the heavenly-hand probability and the fan items and totals of Art. 6. Verdicts:
the fan totals cover every complete dealt hand exactly once, and no total exceeds the
statute's cap.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tablecert import mahjong
from tablecert.exact import decimal_text
from tablecert.judgement import Outcome, Verdict
from tablecert.mahjong.analysis import MahjongAnalysis, PatternRow
from tablecert.mahjong.fan import FanRules, rules_for
from tablecert.report.display import grouped
from tablecert.report.entry import Context, Field, PlanEntry, Scope, Section
from tablecert.report.html import esc, table
from tablecert.report.registry import register_section
from tablecert.report.sections.fields import RULE_FILE


@register_section(
    "mahjong-tables",
    title="Mahjong hand tables",
    fields={
        "game": Field("text", help="mahjong-traditional or mahjong-simple"),
        "rules": RULE_FILE,
    },
)
def mahjong_tables_section(entry: PlanEntry, context: Context) -> Section:
    game, rules = entry.game_rules(mahjong.GAMES, "mahjong")
    context.step(f"{game}: enumerating every complete dealt hand")
    analysis = mahjong.analyze(game, rules_for(game, rules))
    fan_rules = FanRules.of(rules)
    prefix = f"mahjong-tables.{rules.path.stem}"
    complete = analysis.combinations_standard + analysis.combinations_orphans
    covered = sum(r.combinations for r in analysis.fan_totals)
    over = [r.name for r in analysis.fan_totals if _fan(r) > fan_rules.cap]
    verdicts = (
        Verdict(
            f"{prefix}.fan-totals",
            fan_rules.cap_article,
            "every complete dealt hand has exactly one fan total (its best reading)",
            Outcome.of(covered != complete),
            f"fan totals cover {covered:,} of {complete:,} complete dealt hands",
        ),
        Verdict(
            f"{prefix}.cap",
            fan_rules.cap_article,
            f"no complete dealt hand scores above the cap of {fan_rules.cap} fan",
            Outcome.of(bool(over)),
            ", ".join(over) or f"highest total {max(_fan(r) for r in analysis.fan_totals)} fan",
        ),
    )
    return Section(
        id=f"mahjong-tables/{game}/{rules.path.stem}",
        title=f"{game}: complete dealt hands ({rules.path.name})",
        data=_data(analysis, complete, fan_rules),
        verdicts=verdicts,
        html=_html(analysis, complete),
        scope=Scope(
            exhaustive=(
                f"every one of the {analysis.dealt_hands:,} possible {analysis.hand_size}-tile "
                f"dealt hands from {analysis.tiles} tiles, counted exactly (complete hands and "
                "their fan items and totals)",
            ),
            power=("exact counts: no sampling error",),
            limitations=(
                f"the dealer's complete dealt hands only (seat {analysis.context.seat}, round "
                f"wind {analysis.context.round_wind}); play after the deal is not examined",
            ),
        ),
    )


def _fan(row: PatternRow) -> int:
    return int(row.name.split()[0])


def _data(a: MahjongAnalysis, complete: int, fan_rules: FanRules) -> dict[str, Any]:
    """What ``tablecert analyze mahjong-* --json`` writes (one dialect), with the count of
    complete dealt hands and the fan cap."""
    return {**a.as_json(), "complete_dealt_hands": complete, "fan_cap": fan_rules.cap}


def _html(a: MahjongAnalysis, complete: int) -> str:
    def rows(rs: tuple[PatternRow, ...]) -> list[tuple[str, ...]]:
        return [
            (
                r.name,
                r.article,
                f"{r.distinct:,}",
                f"{r.combinations:,}",
                decimal_text(Fraction(r.combinations, complete), 6),
            )
            for r in rs
        ]

    headers = ["", "article", "distinct hands", "combinations", "share of complete"]
    heavenly = a.heavenly_any
    return (
        f"<p>{a.dealt_hands:,} possible {a.hand_size}-tile hands from {a.tiles} tiles; "
        f"{complete:,} of them complete ({a.distinct_standard:,} distinct sets-and-pair hands, "
        f"{a.distinct_orphans} Thirteen Orphans). Heavenly hand: {heavenly} "
        f"(1 in {esc(grouped(decimal_text(1 / heavenly, 1)))}).</p>"
        + "<h3>Fan items of the dealer's complete dealt hands</h3>"
        + table(headers, rows(a.items), numeric=(2, 3, 4))
        + "<h3>Fan totals</h3>"
        + table(headers, rows(a.fan_totals), numeric=(2, 3, 4))
    )
