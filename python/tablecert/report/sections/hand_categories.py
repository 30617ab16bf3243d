"""Section ``hand-categories``: the exact category table of a poker game under a rule file.

Three verdicts on the statute's hand ordering (Art. 8 of each poker statute): every hand of
C(52, k) falls in exactly one category; each category the statute ranks higher is strictly
rarer; and the enumerated counts equal closed-form combinatorial counts computed here
independently of the core.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from tablecert.exact import decimal_text
from tablecert.hand_tables import CategoryTable, category_table
from tablecert.judgement import Outcome, Verdict
from tablecert.poker import GAMES
from tablecert.report.display import grouped
from tablecert.report.entry import Context, PlanEntry, Scope, Section
from tablecert.report.html import bar_chart, table
from tablecert.report.registry import register_section
from tablecert.report.sections.fields import POKER_GAME, RULE_FILE


def closed_form_counts(hand_size: int) -> dict[str, int]:
    """Category counts by counting formulas (ranks x suits), independent of any enumeration."""
    if hand_size == 3:
        rank_sets = comb(13, 3) - 12  # three distinct ranks, not one of the 12 straights
        return {
            "straight flush": 12 * 4,
            "three of a kind": 13 * comb(4, 3),
            "straight": 12 * (4**3 - 4),
            "flush": rank_sets * 4,
            "pair": 13 * comb(4, 2) * 12 * 4,
            "high card": rank_sets * (4**3 - 4),
        }
    rank_sets = comb(13, 5) - 10  # five distinct ranks, not one of the 10 straights
    return {
        "royal flush": 4,
        "straight flush": 9 * 4,
        "four of a kind": 13 * 12 * 4,
        "full house": 13 * comb(4, 3) * 12 * comb(4, 2),
        "flush": rank_sets * 4,
        "straight": 10 * (4**5 - 4),
        "three of a kind": 13 * comb(4, 3) * comb(12, 2) * 4**2,
        "two pair": comb(13, 2) * comb(4, 2) ** 2 * 11 * 4,
        "one pair": 13 * comb(4, 2) * comb(12, 3) * 4**3,
        "high card": rank_sets * (4**5 - 4),
    }


@register_section(
    "hand-categories",
    title="Hand categories",
    fields={
        "game": POKER_GAME,
        "rules": RULE_FILE,
    },
)
def hand_categories_section(entry: PlanEntry, context: Context) -> Section:
    game, rules = entry.game_rules(GAMES, "poker")
    context.step(f"{game}: enumerating all C(52, {GAMES[game]}) hands")
    tab = category_table(game, rules)
    article = rules.require("ranking.ordering").article
    return Section(
        id=f"hand-categories/{game}/{rules.path.stem}",
        title=f"{tab.title}: hand categories ({rules.path.name})",
        data=_data(tab, rules.variant),
        verdicts=_verdicts(tab, f"hand-categories.{rules.path.stem}", article),
        html=_html(tab, article),
        scope=Scope(
            exhaustive=(
                f"every one of the C(52, {GAMES[game]}) = {tab.total:,} hands, enumerated and "
                "placed in the statute's categories",
            ),
            power=("exact counts: no sampling error",),
            reads=("ranking.",),
        ),
    )


def _data(tab: CategoryTable, variant: str) -> dict[str, object]:
    """What ``tablecert hands --json`` writes (one dialect), with the rule file's variant."""
    return {**tab.as_json(), "variant": variant}


def _verdicts(tab: CategoryTable, prefix: str, article: str) -> tuple[Verdict, ...]:
    k = GAMES[tab.game]
    counts = [r.count for r in tab.rows]  # best category first
    total = sum(counts)
    complete = Verdict(
        f"{prefix}.complete",
        article,
        f"every one of the C(52, {k}) = {comb(52, k):,} hands falls in exactly one category",
        Outcome.of(not (total == comb(52, k) == tab.total)),
        f"the categories hold {total:,} hands",
    )
    inversions = [
        f"{hi.category} ({hi.count:,}) is not rarer than {lo.category} ({lo.count:,})"
        for hi, lo in zip(tab.rows, tab.rows[1:], strict=False)
        if hi.count >= lo.count
    ]
    rarity = Verdict(
        f"{prefix}.rarity",
        article,
        "each category the statute ranks higher is strictly rarer than the one below it",
        Outcome.of(bool(inversions)),
        "; ".join(inversions) or " < ".join(f"{r.category} {r.count:,}" for r in tab.rows),
    )
    expected = closed_form_counts(k)
    differ = [
        f"{r.category}: enumerated {r.count:,}, closed form {expected.get(r.category, 0):,}"
        for r in tab.rows
        if expected.get(r.category) != r.count
    ]
    closed = Verdict(
        f"{prefix}.closed-form",
        article,
        "the enumerated count of every category equals its closed-form combinatorial count",
        Outcome.of(bool(differ or len(expected) != len(tab.rows))),
        "; ".join(differ) or f"all {len(tab.rows)} categories agree",
    )
    return (complete, rarity, closed)


def _html(tab: CategoryTable, article: str) -> str:
    rows = [
        (
            r.category,
            r.article,
            f"{r.count:,}",
            f"{r.count}/{tab.total}",
            decimal_text(Fraction(r.count, tab.total), 10),
            grouped(decimal_text(Fraction(tab.total, r.count), 2)) if r.count else "-",
        )
        for r in tab.rows
    ]
    rows.append(("total", article, f"{tab.total:,}", "1", "1.0000000000", "1.00"))
    return (
        f"<p>All {tab.total:,} hands enumerated exactly; categories in the statute's order "
        f"({article}), best first. Rule file SHA-256 <code>{tab.rules_sha256}</code>.</p>"
        + table(
            ["category", "article", "count", "probability (exact)", "probability", "1 in"],
            rows,
            numeric=(2, 3, 4, 5),
        )
        + bar_chart(
            "Hands per category (log scale)",
            [r.category for r in tab.rows],
            [r.count for r in tab.rows],
        )
    )
