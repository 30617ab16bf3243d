"""Section ``rules-diff``: what changes from one rule file of a game to another, as
``tablecert analyze diff OLD NEW`` gives it (:func:`tablecert.games.rules_diff.diff_rules`).

Every rule value that changed, with its article, and every figure of the game's exact
analysis that changes, with its old and new value and the exact difference. A statute and
its re-issue, or a statute and a casino's variant: both files are analysed by the game's
engine (the dedicated engines of the statute games, or the generic stud engine for a game its
rule file describes), whole.

Two files of different games, or of a game with no exact analysis, are a set-up error of the
plan (refused when the plan is read, before anything runs), never a verdict. The verdicts
judge the comparison itself: every changed number is compared exactly (its difference is the
exact new - old), every changed value names its article, and the figures change exactly when
the values do (a figure changing with no value changed fails: the analyses are functions of
the rule files; a value changing no figure is inconclusive: the analysis may not read it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from tablecert.errors import RuleFileError
from tablecert.games.rules_diff import ANALYSES, FigureChange, RulesDiff, diff_rules
from tablecert.judgement import Outcome, Verdict
from tablecert.report.display import display
from tablecert.report.entry import Context, Field, PlanEntry, Scope, Section
from tablecert.report.html import esc, table
from tablecert.report.registry import register_section
from tablecert.rules import RuleFile
from tablecert.rules.stud import describe, is_stud

Analysis = Callable[[RuleFile], Mapping[str, Any]]


def _stud(rules: RuleFile) -> Mapping[str, Any]:
    from tablecert.games import stud

    return stud.analyze(rules).as_json()


def analysis_for(entry: PlanEntry, old: RuleFile, new: RuleFile) -> Analysis | None:
    """The analysis both files are compared by: ``None`` for a game ``diff_rules`` analyses
    itself, the stud engine for a game the files describe; a PlanError naming the key for
    files of two games, or of a game with no exact analysis."""
    if old.game != new.game:
        raise entry.error(
            "new",
            f"{new.path.name} is a {new.game} rule file and {old.path.name} a {old.game} one: "
            "only two rule files of one game can be compared",
        )
    if old.game in ANALYSES:
        return None
    for key, rules in (("old", old), ("new", new)):
        if not is_stud(rules):
            raise entry.error(
                key,
                f"{rules.path.name}: {rules.game} rule files have no exact analysis to compare "
                f"(games: {', '.join(ANALYSES)}, or a stud game its rule file describes)",
            )
        try:
            describe(rules)
        except RuleFileError as exc:
            raise entry.error(key, str(exc)) from None
    return _stud


def check_entry(entry: PlanEntry) -> None:
    """Both files load and are of one game with an exact analysis: refused when the plan is
    read."""
    analysis_for(entry, entry.rules("old"), entry.rules("new"))


def _exact(value: Any) -> Fraction | None:
    if isinstance(value, Mapping) and set(value) == {"exact", "decimal"}:
        return Fraction(str(value["exact"]))
    return None


def _inexact(change: FigureChange) -> bool:
    """A changed number not compared exactly: a float on either side, or an exact pair whose
    difference is missing or is not new - old."""
    if isinstance(change.old, float) or isinstance(change.new, float):
        return True
    old, new = _exact(change.old), _exact(change.new)
    if old is None or new is None:
        return (old is None) != (new is None) and change.old is not None and change.new is not None
    return change.difference != new - old


def _articles(diff: RulesDiff) -> str:
    """The articles of the changed values, in the files' order, once each."""
    seen = dict.fromkeys(v.article for v in diff.values if v.article)
    return "; ".join(seen) or "-"


def _agreement(diff: RulesDiff) -> tuple[Outcome, str]:
    """Figures and values agree: a figure changing with no value changed fails (the analysis
    is not a function of the rule files); values changing with no figure changed cannot be
    judged (the analysis may not read them, or they touch no figure)."""
    moved = [v.key for v in diff.values if {"value", "added", "removed"} & set(v.changed)]
    if not moved and not diff.figures:
        return Outcome.NOT_APPLICABLE, "no rule value and no figure changed"
    if not moved:
        return Outcome.FAIL, (
            f"{len(diff.figures):,} figure(s) changed and no rule value did: "
            f"{', '.join(f.path for f in diff.figures[:5])}"
        )
    if not diff.figures:
        return Outcome.INCONCLUSIVE, (
            f"{', '.join(moved)} changed and no figure of the analysis did: the analysis "
            "may not read the value, or the value touches no figure"
        )
    return Outcome.PASS, f"{len(moved):,} value(s) changed; {len(diff.figures):,} figure(s) changed"


def _verdicts(prefix: str, diff: RulesDiff) -> tuple[Verdict, ...]:
    article = _articles(diff)
    inexact = [f.path for f in diff.figures if _inexact(f)]
    unnamed = [v.key for v in diff.values if not v.article]
    numbers = sum(_exact(f.old) is not None and _exact(f.new) is not None for f in diff.figures)
    agreement, agreement_detail = _agreement(diff)
    return (
        Verdict(
            f"{prefix}.exact",
            article,
            "every changed figure that is a number is compared exactly: old, new and the "
            "exact difference new - old",
            Outcome.FAIL if inexact else Outcome.PASS if diff.figures else Outcome.NOT_APPLICABLE,
            f"{numbers:,} exact number(s) among {len(diff.figures):,} changed figure(s)"
            + (f"; not exact: {', '.join(inexact)}" if inexact else ""),
        ),
        Verdict(
            f"{prefix}.articles",
            article,
            "every changed rule value names the article it comes from",
            Outcome.FAIL if unnamed else Outcome.PASS if diff.values else Outcome.NOT_APPLICABLE,
            f"{len(diff.values):,} changed value(s)"
            + (f"; without an article: {', '.join(unnamed)}" if unnamed else ""),
        ),
        Verdict(
            f"{prefix}.figures-follow-values",
            article,
            "the analysis's figures change exactly when the rule values do",
            agreement,
            agreement_detail,
        ),
    )


def _figure_text(value: Any) -> str:
    exact = _exact(value)
    if exact is not None:
        return f"{value['decimal']} ({exact})"
    return display(value)


def _html(diff: RulesDiff) -> str:
    values = table(
        ["key", "article", "changed", "old", "new"],
        [
            (
                v.key,
                v.article,
                ", ".join(v.changed),
                "-" if v.old is None else display(v.old.value),
                "-" if v.new is None else display(v.new.value),
            )
            for v in diff.values
        ],
    )
    figures = table(
        ["figure", "old", "new", "difference (new - old)"],
        [
            (
                f.path,
                _figure_text(f.old),
                _figure_text(f.new),
                "-" if f.difference is None else str(f.difference),
            )
            for f in diff.figures
        ],
        numeric=(1, 2, 3),
    )
    return (
        f"<p><code>{esc(diff.old_rules)}</code> (SHA-256 <code>{esc(diff.old_sha256)}</code>) "
        f"against <code>{esc(diff.new_rules)}</code> (SHA-256 "
        f"<code>{esc(diff.new_sha256)}</code>), game <code>{esc(diff.game)}</code>: "
        f"{len(diff.values):,} rule value(s) and {len(diff.figures):,} figure(s) of the exact "
        "analysis differ.</p>"
        + "<h3>Rule values that changed</h3>"
        + values
        + "<h3>Figures that change</h3>"
        + figures
    )


@register_section(
    "rules-diff",
    title="What changes between two rule files of a game",
    fields={
        "old": Field("rules", help="the first rule file (path or bundled name)"),
        "new": Field("rules", help="the second rule file, of the same game"),
    },
    check=check_entry,
)
def rules_diff_section(entry: PlanEntry, context: Context) -> Section:
    old, new = entry.rules("old"), entry.rules("new")
    analyse = analysis_for(entry, old, new)
    context.step(f"{old.path.name} -> {new.path.name}: both analysed exactly, then compared")
    diff = diff_rules(old, new, analyse)
    prefix = f"rules-diff.{old.path.stem}.{new.path.stem}"
    return Section(
        id=f"rules-diff/{old.path.stem}/{new.path.stem}",
        title=f"{old.path.name} -> {new.path.name}: what changes",
        data=diff.as_json(),
        verdicts=_verdicts(prefix, diff),
        html=_html(diff),
        scope=Scope(
            exhaustive=(
                "every value of both rule files, compared with its article and constraints",
                "every figure of both files' exact analyses (every deal enumerated), compared",
            ),
            power=("exact values: no sampling error",),
            limitations=(
                "the diff states what changes; whether a change is allowed is judged by the "
                "statute's own sections (configuration, par sheet), not here",
            ),
        ),
    )


__all__ = ["analysis_for", "check_entry", "rules_diff_section"]
