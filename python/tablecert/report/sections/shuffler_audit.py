"""Section ``shuffler-audit``: a shuffling machine (or automatic mahjong table) from its logs.

Two verdicts under the rule file's equipment article (a shuffling machine, resp. the tile
set): every logged deck or wall is complete (integrity), and the randomness battery (Holm
family-wise) does not reject uniformity; too few shuffles is ``inconclusive``, never a pass.
Test statistics and p-values are floats computed from the logs; the report carries them as
decimals of six significant digits, so identical logs give identical data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablecert import figures
from tablecert.audit.decks import DECK_SIZES
from tablecert.audit.shuffler import (
    DEFAULT_BATCH,
    InputOrderError,
    ShufflerAudit,
    audit_shuffler,
)
from tablecert.errors import RuleFileError
from tablecert.exact import float_decimal
from tablecert.judgement import Outcome, Verdict
from tablecert.report.display import named
from tablecert.report.entry import Context, Field, PlanEntry, Sample, Scope, Section
from tablecert.report.html import HtmlCell, badge, esc, table
from tablecert.report.registry import register_section
from tablecert.report.sections.fields import EQUIPMENT_RULES
from tablecert.rules import RuleFile
from tablecert.stats import EFFECT_MEANING

#: Where a rule file states the audited equipment: the shuffling machine, or the tile set.
EQUIPMENT_KEYS = ("table.dealing", "game.tile_set")


def equipment_article(rules: RuleFile) -> str:
    """The article of the rule file that admits the device (or defines the tiles)."""
    for key in EQUIPMENT_KEYS:
        try:
            return rules.require(key).article
        except RuleFileError:
            continue
    raise rules.error(EQUIPMENT_KEYS[0], "the rule file names no dealing equipment")


@register_section(
    "shuffler-audit",
    title="Shuffler audit",
    fields={
        "logs": Field("files", help="the device's logs (CSV/TSV or JSON Lines, .gz ok)"),
        "rules": EQUIPMENT_RULES,
        "deck": Field("text", required=False, help="cards52 (default), mahjong136, mahjong112"),
        "input_order": Field(
            "text", required=False, help="auto (default), logged, previous or none"
        ),
        "game": Field("text", required=False, help="q-poker or caribbean-stud: dealt hands"),
        "seats": Field(
            "integer", required=False, minimum=1, help="player seats for the dealt hands (6)"
        ),
        "batch_size": Field(
            "integer", required=False, minimum=1, help=f"shuffles per batch ({DEFAULT_BATCH:,})"
        ),
    },
)
def shuffler_audit_section(entry: PlanEntry, context: Context) -> Section:
    logs = entry.paths("logs")
    deck = entry.text("deck", "cards52")
    if deck not in DECK_SIZES:
        raise entry.error("deck", f"{deck!r}: expected one of {', '.join(DECK_SIZES)}")
    rules = entry.rules()
    game = entry.values.get("game")
    if game is not None and rules.game != game:
        raise entry.error("rules", f"{rules.path.name} is a rule file for {rules.game}")
    context.step(f"auditing {len(logs)} {deck} log(s)")
    try:
        result = audit_shuffler(
            logs,
            deck,
            input_order=entry.text("input_order", "auto"),
            game=game,
            seats=entry.integer("seats", 6),
            rules=rules if game is not None else None,
            batch_size=entry.integer("batch_size", DEFAULT_BATCH),
        )
    except InputOrderError as exc:
        raise entry.error("input_order", str(exc)) from None
    article = equipment_article(rules)
    names = "+".join(p.name for p in logs)
    prefix = f"shuffler-audit.{deck}.{names}"
    i = result.integrity
    devices = devices_text(i.devices)
    verdicts = (
        Verdict(
            f"{prefix}.integrity",
            article,
            f"every logged {deck} shuffle is one complete deck",
            result.integrity_outcome,
            integrity_finding(result, devices),
        ),
        Verdict(
            f"{prefix}.randomness",
            article,
            "the randomness battery does not reject uniform, independent shuffles "
            f"(Holm, family-wise alpha {result.battery.alpha})",
            result.randomness_outcome,
            randomness_finding(result, devices),
        ),
    )
    return Section(
        id=f"shuffler-audit/{deck}/{names}",
        title=f"Shuffler audit: {deck}, {i.records:,} shuffles from {devices} ({names})",
        data=_data(result, [p.name for p in logs]),
        verdicts=verdicts,
        html=_html(result),
        scope=Scope(
            exhaustive=(
                f"every one of the {i.records:,} logged records checked for a complete {deck} "
                "(integrity)",
                f"the randomness battery on all {result.tally.shuffles:,} logged shuffles "
                f"({result.input_order_text})",
            ),
            sampled=(
                Sample(
                    f"the device's shuffles: the ones in the logs ({names})",
                    result.tally.shuffles,
                ),
            ),
            power=(result.power,),
            reads=EQUIPMENT_KEYS + (("ranking.",) if game is not None else ()),
            limitations=(
                "the logs are taken as the device's output; that they are complete and "
                "unaltered is the lab's custody, not the battery's",
                *(
                    f"skipped: {t.name} ({t.detail})"
                    for t in result.battery.tests
                    if t.outcome is Outcome.NOT_APPLICABLE
                ),
            ),
        ),
    )


def devices_text(devices: tuple[str, ...]) -> str:
    """The devices a log came from, as a finding names them."""
    return named("device", devices, "no device id logged")


def integrity_finding(result: ShufflerAudit, devices: str) -> str:
    """The integrity evidence: on a failure the first bad records lead, with the devices."""
    i = result.integrity
    counts = f"{i.records:,} records, {i.bad_count:,} bad; {devices}"
    if not i.bad_count:
        return counts
    first = "; ".join(f"{Path(f).name}:{line}: {why}" for f, line, why in i.bad_records[:3])
    return f"{first}{' ...' if i.bad_count > 3 else ''} ({counts})"


def randomness_finding(result: ShufflerAudit, devices: str) -> str:
    """The randomness evidence: on a failure every rejected test's measured departure from
    its null law leads (statistic, what was expected, p-value), then the devices and power."""
    shuffles = result.tally.shuffles
    power = result.power
    tests = {t.key: t for t in result.battery.tests}
    rejected = [tests[k] for k in result.battery.rejected if k in tests]
    departures = "; ".join(
        f"{t.name}: {t.detail}, p = {float_decimal(t.p_value)}" for t in rejected
    )
    context = f"{shuffles:,} shuffles from {devices}"
    if departures:
        return f"rejected {departures} ({context}); {power}"
    return f"{context}; rejected: none; {power}"


def _data(result: ShufflerAudit, files: list[str]) -> dict[str, Any]:
    """What ``tablecert audit shuffler --json`` writes (one dialect, with the power of the
    battery at this sample size), the logs named as the signed subjects."""
    data = result.as_json()
    integrity = data["integrity"]
    integrity["files"] = files  # signed subjects, by name
    bad = integrity["bad_records"]
    for record, name in zip(bad, [f for f, _, _ in result.integrity.bad_records], strict=True):
        record["file"] = name.rsplit("/", 1)[-1]
    return data


_CAPTIONS = {
    "position_residuals": "Each cell: how often the symbol (row) was at the position "
    "(column), as (observed - expected) / standard deviation under a uniform shuffle. A fair "
    "device gives a speckle with no rows, columns or diagonals; the position test judges it.",
    "rising_sequences": "Bars: the share of shuffles with each number of rising sequences "
    "relative to the input order; dots: the exact share for a uniform shuffle. A riffle that "
    "is not mixed enough piles up at few rising sequences.",
}


def _html(result: ShufflerAudit) -> str:
    i = result.integrity
    bad = "".join(
        f"<li>{esc(f.rsplit('/', 1)[-1])}:{line}: {esc(reason)}</li>"
        for f, line, reason in i.bad_records[:20]
    )
    rows = [
        (
            HtmlCell(badge(t.verdict)),
            t.key,
            figures.measured(t.statistic),
            "" if t.df is None else t.df,
            figures.p_value(t.p_value),
            figures.measured(t.effect),
            f"{t.name}: {t.detail}" + (f" (effect: {t.effect_name})" if t.effect_name else ""),
        )
        for t in result.battery.tests
    ]
    plots = "".join(
        f"<figure>{svg}<figcaption>{esc(_CAPTIONS.get(name, ''))}</figcaption></figure>"
        for name, svg in result.svg_plots().items()
    )
    return (
        f"<p>{i.records:,} records from {len(i.files)} log(s); "
        f"{esc(result.input_order_text)}; "
        f"{i.bad_count:,} bad records. Verdict: <strong>{esc(result.reason)}</strong>.</p>"
        + (f"<ul>{bad}</ul>" if bad else "")
        + '<div class="battery">'
        + table(["", "test", "statistic", "df", "p-value", "effect", "detail"], rows, (2, 3, 4, 5))
        + "</div>"
        + f"<p>Effect: {esc(EFFECT_MEANING)}.</p>"
        + f"<p>Holm family-wise at alpha {result.battery.alpha}: rejected "
        f"{esc(', '.join(result.battery.rejected) or 'none')}.</p>" + plots
    )
