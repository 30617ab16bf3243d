"""Section ``configuration``: a casino's submitted game configuration against the statute.

Every statute value the submission sets is judged (conforms, deviates, house choice, reading,
not submitted), each with its article; the statute's self-consistency checks run on the
configuration in force; and every bet's exact house edge is computed under the submission and
under the statute. One verdict per article the submission sets values under (pass iff none
of them deviates; values left to the statute are listed, not judged) and one per consistency
check, so a deviation fails exactly the article it breaks.

The configuration is judged against its game's bundled rule file, or against the ``rules``
file the entry gives (as ``tablecert check CONFIG --rules FILE``: a lab's copy of a statute's
or a described game's file, or the file of a game the submission names by the id of the games
described by their rule files, ``stud``). A ``rules`` file of another game, or of another
variant than the bundled file the submission names, is refused by name when the plan is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablecert.conformance.configuration import (
    BetReturn,
    ConfigurationReport,
    Line,
    bet_returns,
    check_configuration,
    load_submission,
)
from tablecert.errors import RuleFileError
from tablecert.exact import decimal_text
from tablecert.judgement import Outcome, Verdict, overall
from tablecert.report.display import display
from tablecert.report.entry import Context, Field, PlanEntry, Scope, Section
from tablecert.report.html import HtmlCell, badge, esc, table, wbr
from tablecert.report.registry import register_section
from tablecert.rules import RuleFile, load_rules
from tablecert.rules.loader import bundled_rule_path
from tablecert.rules.submission import bundled_rules, statute_rules


@register_section(
    "configuration",
    title="Submitted configuration",
    fields={
        "file": Field("file", help="the submitted configuration (TOML or JSON)"),
        "rules": Field(
            "rules",
            required=False,
            help="the rule file to judge against, as check --rules (default: the bundled one "
            "of the game)",
        ),
        "returns": Field(
            "boolean", required=False, help="compute every bet's exact return (default true)"
        ),
    },
    check=lambda entry: check_entry(entry),
)
def configuration_section(entry: PlanEntry, context: Context) -> Section:
    path = entry.path("file")
    context.step(f"checking the configuration {path.name} against the statute")
    statute, bundled = _judged_against(entry, context)
    report = check_configuration(path, statute)
    bets: tuple[BetReturn, ...] = ()
    if entry.values.get("returns", True):
        context.step(f"{path.name}: the exact return of every bet (submitted and statute)")
        bets = bet_returns(report)
    return Section(
        id=f"configuration/{path.name}",
        title=f"{report.submission.game} configuration {path.name} "
        f"({report.submission.casino or 'no casino named'})",
        data=_data(report, bets),
        verdicts=_verdicts(report, f"configuration.{path.stem}"),
        html=_html(report, bets),
        inputs=bundled,
        rule_files=bundled,
        scope=_scope(report, bets),
    )


def _judged_against(entry: PlanEntry, context: Context) -> tuple[RuleFile, tuple[Path, ...]]:
    """The rule file the submission is judged against, and the bundled file it was read from
    when the entry gives none. Either is an input: the entry's ``rules`` is signed as every
    plan file is; a bundled file is read from the snapshot and listed as the section's own
    input."""
    if "rules" in entry.values:
        return entry.rules(), ()
    bundled = bundled_rule_path(bundled_rules(load_submission(entry.path("file"))))
    return load_rules(context.snapshot(bundled)), (bundled,)


def check_entry(entry: PlanEntry) -> None:
    """When the entry gives ``rules``: the submission is read against it and the file is of
    the submission's game (and variant, for a game named by its bundled file), before anything
    runs; a file of another game is refused at ``rules``, naming both."""
    if "rules" not in entry.values:
        return
    rules = entry.rules()
    try:
        statute_rules(load_submission(entry.path("file"), rules), rules)
    except RuleFileError as exc:
        raise entry.error(
            "rules", f"{rules.path.name} is not the submission's game: {exc}"
        ) from None


def _scope(report: ConfigurationReport, bets: tuple[BetReturn, ...]) -> Scope:
    judged = [line for line in report.lines if line.outcome is not Outcome.NOT_APPLICABLE]
    left = len(report.lines) - len(judged)
    return Scope(
        exhaustive=(
            f"every one of the {len(judged):,} values the submission sets, judged against "
            f"the statute ({len(report.deviations)} deviate)",
            f"{len(report.consistency)} self-consistency check(s) on the configuration in force",
            *(
                [
                    f"the exact return of every bet ({len(bets)}) under the submission and the "
                    "statute, every deal enumerated"
                ]
                if bets
                else []
            ),
        ),
        limitations=(
            f"{left:,} statute value(s) the submission leaves out are the statute's own: "
            "listed, not judged",
            "the configuration as submitted; the tables in play are not examined here",
        ),
    )


def _verdicts(report: ConfigurationReport, prefix: str) -> tuple[Verdict, ...]:
    """One verdict per article the submission sets judged values under, showing every value
    it judged; the values left to the house under an article are one house-choice row (never
    a pass); a value the statute attaches a duty to states the duty."""
    judged: dict[str, list[Line]] = {}
    choices: dict[str, list[Line]] = {}
    for line in report.lines:
        if line.judged:
            judged.setdefault(line.article, []).append(line)
        elif line.outcome is Outcome.HOUSE_CHOICE:
            choices.setdefault(line.article, []).append(line)
    out = []
    for article, lines in judged.items():
        deviating = [line for line in lines if line.outcome is Outcome.FAIL]
        duties = [line for line in lines if line.duty]
        out.append(
            Verdict(
                f"{prefix}.{article}",
                article,
                f"the submitted values under {article} conform to the statute",
                overall(line.outcome for line in lines),
                "; ".join(
                    f"{line.key}: submitted {_shown(line, 'submitted')}, statute "
                    f"{_shown(line, 'expected')}"
                    for line in deviating
                )
                or "; ".join(
                    f"{line.key} = {_shown(line, 'submitted')} ({line.verdict})" for line in lines
                ),
                values=tuple(f"{line.key} = {_shown(line, 'submitted')}" for line in lines),
                duties=tuple(f"{line.key}: {line.duty}" for line in duties),
            )
        )
    for article, lines in choices.items():
        out.append(
            Verdict(
                f"{prefix}.{article}.house-choice",
                article,
                f"the values under {article} that the statute leaves to the house (recorded, "
                "not judged)",
                Outcome.HOUSE_CHOICE,
                "; ".join(f"{line.key} = {_shown(line, 'submitted')}" for line in lines),
                values=tuple(f"{line.key} = {_shown(line, 'submitted')}" for line in lines),
            )
        )
    if report.outcome is Outcome.INCONCLUSIVE:
        out.append(
            Verdict(
                f"{prefix}.submitted",
                report.statute.require("game.id").article,
                "the submission sets values the statute judges",
                Outcome.INCONCLUSIVE,
                "nothing submitted was compared with the statute (only house choices or "
                "nothing at all): the statute's values are assumed, not examined",
            )
        )
    for c in report.consistency:
        out.append(
            Verdict(
                f"{prefix}.consistency.{c.name}",
                c.article,
                f"self-consistency: {c.name}",
                c.outcome,
                c.detail,
            )
        )
    return tuple(out)


def _shown(line: Line, which: str) -> str:
    """A line's submitted or statute value in the project's notation (no Python reprs)."""
    return display(line.as_json()[which])


def _data(report: ConfigurationReport, bets: tuple[BetReturn, ...]) -> dict[str, Any]:
    data = report.as_json()
    data["configuration"] = report.submission.path.name  # a signed subject; no local path
    data["returns"] = [b.as_json() for b in bets]
    return data


def _html(report: ConfigurationReport, bets: tuple[BetReturn, ...]) -> str:
    verdict = report.verdict
    lines = [
        (
            line.article,
            HtmlCell(f'<code class="rid">{wbr(line.key)}</code>'),
            HtmlCell(
                badge(line.outcome.value) if line.outcome is Outcome.FAIL else esc(line.verdict)
            ),
            line.as_json()["expected"],
            line.as_json()["submitted"],
            line.note,
        )
        for line in report.lines
    ]
    out = (
        f"<p>Submitted by {esc(report.submission.casino or 'an unnamed casino')}, judged "
        f"against <code>{esc(report.statute.path.name)}</code>: <strong>{verdict}</strong> "
        f"({len(report.deviations)} deviation(s)).</p>"
        + table(["article", "rule", "verdict", "statute", "submitted", "note"], lines)
        + "<h3>Self-consistency</h3>"
        + table(
            ["", "article", "check", "detail"],
            [
                (HtmlCell(badge(c.outcome.value)), c.article, c.name, c.detail)
                for c in report.consistency
            ],
        )
    )
    if bets:
        out += "<h3>Exact returns (optimal play)</h3>" + table(
            ["bet", "article", "house edge submitted", "house edge statute", "difference"],
            [
                (
                    b.bet,
                    b.article,
                    b.why_not if b.submitted is None else f"{decimal_text(b.submitted * 100, 4)}%",
                    f"{decimal_text(b.statute * 100, 4)}%",
                    "" if b.difference is None else f"{decimal_text(b.difference * 100, 4)} points",
                )
                for b in bets
            ],
            numeric=(2, 3, 4),
        )
    return out
