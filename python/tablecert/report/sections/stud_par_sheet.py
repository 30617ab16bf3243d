"""Section ``stud-par-sheet``: the exact par sheet of any stud poker game its rule file describes.

The game is the rule file's description (:func:`tablecert.rules.stud.describe`), computed by
the generic stud engine (:func:`tablecert.games.stud.analyze`): the return table of the bet
against the dealer (each line with its article), the house edge and element of risk under the
optimal strategy, how often each decision is taken, the strategy by the player's category, and
every side bet's return table, and the progressive's pay table at the file's meter with its
long-run return (reported, not judged: the meter is the house's). The verdicts are the
par-sheet section's, per return table: the
outcomes cover every deal exactly once, where the number of deals is the closed form of the
deal the file describes (not the engine's own count), and the lines' returns sum exactly to
the analysis's expected value; and the strategy decides every situation exactly once.

With a cluster (``certify --cluster``) the analysis runs there as shards, the same figures
bit for bit. With ``export = "xlsx"`` (or ``"csv"``) the par sheet is also written beside the
report as ``par-RULES.xlsx`` (the rule file's name without ``.toml``) by the par sheets' one
writer (:mod:`tablecert.games.par_export`), and with ``strategy = true`` the strategy by hand
class as ``strategy-RULES.csv`` (:mod:`tablecert.games.stud_strategy`); both are signed with
the report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tablecert.errors import RuleFileError
from tablecert.games import par_export, stud
from tablecert.games.common import OutcomeRow
from tablecert.games.progressive import HANDS, Progressive, long_run_text
from tablecert.judgement import Outcome, Verdict
from tablecert.report.entry import Context, Field, PlanEntry, Scope, Section
from tablecert.report.html import esc, table
from tablecert.report.registry import register_section
from tablecert.report.sections.par_sheet import (
    percent,
    progressive_html,
    return_table_html,
    table_verdicts,
)
from tablecert.rules import RuleFile
from tablecert.rules.stud import Deal, StudDescription, describe

#: Trailing points of an article: "(七)(4)".
_POINTS = re.compile(r"(\([^()]*\))+$")

#: The card count of the deck every described game is dealt from.
DECK = 52
#: The formats a par sheet may be exported in.
EXPORT_FORMATS = ("xlsx", "csv")


def export_name(rules: RuleFile, export: str) -> str:
    """The exported par sheet's file name: ``par-`` and the rule file's name."""
    return f"par-{rules.path.stem}.{export}"


def strategy_name(rules: RuleFile) -> str:
    """The exported strategy's file name: ``strategy-`` and the rule file's name."""
    return f"strategy-{rules.path.stem}.csv"


#: The names ``export_name`` and ``strategy_name`` give, whatever the rule file (a lab's own
#: included): what a previous certificate's folder may hold beside its report.
EXPORT_FILE = re.compile(rf"par-[^/\\]+\.({'|'.join(EXPORT_FORMATS)})|strategy-[^/\\]+\.csv")


def deals(deal: Deal) -> tuple[int, int]:
    """(situations, dealer completions per situation) of a deal from one 52-card deck, in
    closed form: the player's hands (times the upcards the player may see) and the dealer's
    hidden cards from what is left."""
    player, dealer, up = deal.player_cards.value, deal.dealer_cards.value, deal.upcards.value
    situations = math.comb(DECK, player) * math.comb(DECK - player, up)
    return situations, math.comb(DECK - player - up, dealer - up)


def _rebased(rows: Sequence[OutcomeRow], total: int) -> tuple[OutcomeRow, ...]:
    """The lines over ``total`` deals (the closed form), so that a count the engine got wrong
    shows as probabilities that do not sum to 1."""
    return tuple(OutcomeRow(r.event, r.article, r.value, r.count, total, r.pay) for r in rows)


def _bet_article(article: str) -> str:
    """A bet's article without its points: 第九條 of 第九條(七)(4); "Rules: side bet" whole."""
    return _POINTS.sub("", article).strip()


def _description(entry: PlanEntry, rules: RuleFile) -> StudDescription:
    try:
        return describe(rules)
    except RuleFileError as exc:
        raise entry.error(
            "rules", f"{rules.path.name} describes no game the stud engine computes: {exc}"
        ) from None


def _export(entry: PlanEntry) -> str | None:
    export = entry.values.get("export")
    if export is not None and export not in EXPORT_FORMATS:
        raise entry.error("export", f"{export!r}: expected xlsx or csv")
    return None if export is None else str(export)


def check_entry(entry: PlanEntry) -> None:
    """The rule file describes a computable stud game, and the export is a format: refused
    when the plan is read."""
    _export(entry)
    _description(entry, entry.rules())


def _strategy_verdict(
    prefix: str, article: str, analysis: stud.StudAnalysis, situations: int
) -> Verdict:
    decided = sum(d.situations for d in analysis.decisions)
    by_category = sum(sum(s.situations) for s in analysis.strategy)
    return Verdict(
        f"{prefix}.strategy.exhaustive",
        article,
        f"the optimal strategy decides every one of the {situations:,} situations exactly once",
        Outcome.of(not (decided == by_category == situations)),
        f"{decided:,} situations decided ({by_category:,} by category) of {situations:,}",
    )


def _summary_html(analysis: stud.StudAnalysis) -> str:
    edge = analysis.house_edge
    return table(
        ["", ""],
        [
            ("house edge (per ante)", f"{percent(edge)} = {edge}"),
            ("element of risk", percent(analysis.element_of_risk)),
            ("average wager (per ante)", str(analysis.average_wager)),
            *((f"decision: {d.decision}", percent(d.probability)) for d in analysis.decisions),
            *(
                (f"{b.name}: house edge", f"{percent(b.house_edge)} = {b.house_edge}")
                for b in analysis.side_bets
            ),
            *_cap_rows(analysis.cap),
            *_progressive_rows(analysis.progressive),
        ],
    )


def _progressive_rows(prog: Progressive | None) -> list[tuple[str, str]]:
    """The progressive's return at the file's meter and over the meter's cycles."""
    if prog is None:
        return []
    return [
        ("progressive return at the meter", percent(prog.return_at(prog.meter))),
        ("progressive over the meter's cycles", long_run_text(prog)),
    ]


def _cap_rows(cap: stud.CapTerms | None) -> list[tuple[str, str]]:
    """The per-round maximum payout the figures were computed under, with its article."""
    if cap is None:
        return []
    return [
        (
            f"per-round maximum payout ({cap.article})",
            f"{cap.maximum_payout} against an ante of {cap.ante} "
            f"({cap.maximum_payout / cap.ante} antes): {', '.join(cap.bets)} on "
            f"{', '.join(cap.categories)}",
        )
    ]


def _strategy_html(analysis: stud.StudAnalysis) -> str:
    names = [d.decision for d in analysis.decisions]
    return table(
        ["player category", *names, "indifferent"],
        [
            (s.category, *(f"{k:,}" for k in s.situations), f"{s.indifferent:,}")
            for s in analysis.strategy
        ],
        numeric=tuple(range(1, len(names) + 2)),
    ) + (
        "<p>Situations (player hands, times the upcard where one is dealt face up) by the "
        "decision of the optimal strategy; indifferent: where another decision has exactly "
        "the same value (the lower decision is taken).</p>"
    )


def _data(analysis: stud.StudAnalysis) -> dict[str, Any]:
    """The analysis's JSON without the rule file's local name (it is a signed subject)."""
    return {k: v for k, v in analysis.as_json().items() if k != "rules"}


@register_section(
    "stud-par-sheet",
    title="Par sheet of a described stud game",
    fields={
        "rules": Field(
            "rules",
            help="a rule file describing a stud poker game (path or bundled name)",
        ),
        "export": Field(
            "text",
            required=False,
            help="xlsx or csv: also write the par sheet as par-RULES.xlsx (signed with the report)",
        ),
        "strategy": Field(
            "boolean",
            required=False,
            help="also write the strategy by hand class as strategy-RULES.csv (signed with the "
            "report; default false)",
        ),
    },
    check=check_entry,
)
def stud_par_sheet_section(entry: PlanEntry, context: Context) -> Section:
    export = _export(entry)
    strategy = bool(entry.values.get("strategy", False))
    rules = entry.rules()
    section, analysis = _par_sheet(entry, rules, context, strategy)
    exports = []
    if export is not None:
        name = export_name(rules, export)
        context.step(f"{rules.path.name}: par sheet as {name}")
        tables = par_export.sheets({**section.data, "rules": rules.path.name})
        content = (
            par_export.xlsx_bytes(tables) if export == "xlsx" else par_export.csv_bytes(tables)
        )
        exports.append((name, content))
    if analysis.strategy_table is not None:
        cells = analysis.strategy_table.cells()
        exports.append((strategy_name(rules), par_export.table_csv_bytes(cells)))
    return replace(section, exports=tuple(exports))


def _par_sheet(
    entry: PlanEntry, rules: RuleFile, context: Context, strategy: bool
) -> tuple[Section, stud.StudAnalysis]:
    description = _description(entry, rules)
    situations, completions = deals(description.deal)
    context.step(
        f"{rules.path.name}: par sheet ({situations:,} situations x {completions:,} dealer "
        "completions)"
    )
    analysis = stud.analyze(rules, executor=context.executor, strategy=strategy)
    prefix = f"stud-par-sheet.{rules.path.stem}"
    rows = _rebased(analysis.rows, situations * completions)
    play_article = _bet_article(rows[0].article)
    verdicts = [
        *table_verdicts(prefix, "play", rows, analysis.expected_value, play_article),
        _strategy_verdict(prefix, play_article, analysis, situations),
    ]
    side_html = []
    side_scope = []
    for sheet, bet in zip(analysis.side_bets, description.side_bets, strict=True):
        cards = bet.card_count(description.deal)
        hands = math.comb(DECK, cards)
        bet_rows = _rebased(sheet.rows, hands)
        verdicts += table_verdicts(
            prefix, sheet.id, bet_rows, sheet.expected_value, _bet_article(sheet.article)
        )
        side_html.append(return_table_html(f"{sheet.name} ({sheet.article})", bet_rows))
        side_scope.append(f"{sheet.name}: all {hands:,} hands of {cards} cards")
    prog = analysis.progressive
    if prog is not None:
        side_scope.append(f"the progressive: all {HANDS:,} hands of the player's five cards")
    html = (
        f"<p>{esc(analysis.title)} under <code>{esc(rules.path.name)}</code> "
        f"(SHA-256 <code>{esc(rules.sha256)}</code>), game described by the file "
        f"(<code>{esc(rules.game)}</code>), every deal enumerated exactly.</p>"
        + _summary_html(analysis)
        + "<h3>Optimal strategy by the player's category</h3>"
        + _strategy_html(analysis)
        + return_table_html("The bet against the dealer, optimal strategy", rows)
        + "".join(side_html)
        + ("" if prog is None else progressive_html(prog))
    )
    section = Section(
        id=f"stud-par-sheet/{rules.path.stem}",
        title=f"{analysis.title}: par sheet ({rules.path.name})",
        data=_data(analysis),
        verdicts=tuple(verdicts),
        html=html,
        scope=Scope(
            exhaustive=(
                f"the bet against the dealer: all {situations * completions:,} deals "
                f"({situations:,} situations x {completions:,} dealer completions), each "
                "decided by the optimal strategy",
                *side_scope,
            ),
            power=("exact values: no sampling error",),
            limitations=(
                "returns assume the optimal strategy; a player who plays otherwise faces a "
                "higher house edge (the element of risk is per unit wagered under it)",
                *(
                    ()
                    if prog is None
                    else ("the progressive is reported at the meter of the rule file, not judged",)
                ),
            ),
        ),
    )
    return section, analysis


__all__ = [
    "DECK",
    "EXPORT_FILE",
    "EXPORT_FORMATS",
    "check_entry",
    "deals",
    "export_name",
    "strategy_name",
    "stud_par_sheet_section",
]
