"""Section ``evaluator-crosscheck``: a vendor's hand evaluator against the statute ordering.

The evaluator (a Python file and function, or a program in any language run by a command)
answers tablecert's line protocol; every check of ``poker_crosscheck`` (each hand's category,
adjacent rank classes, suit-decided pairs, other pairs under the statute's ordering article;
settlements of every outcome of every bet under the pay articles) is one verdict, pass iff the
evaluator gave no wrong answer. Samples are seeded, so the
same plan asks the same questions. Throughput is a measurement of this run: it goes to the
progress line, not into report.json or the HTML, which stay byte-identical run to run
(``tablecert crosscheck poker`` prints it).
"""

from __future__ import annotations

import shlex
from math import comb, floor
from pathlib import Path
from typing import Any

from tablecert.conformance import poker_crosscheck
from tablecert.conformance.evaluator_protocol import open_evaluator
from tablecert.poker import GAMES
from tablecert.report.html import Markup, badge, esc, table
from tablecert.report.plan import PlanEntry
from tablecert.report.registry import (
    Context,
    Field,
    Outcome,
    Sample,
    Scope,
    Section,
    Verdict,
    register_section,
)

OUTCOME: dict[str, Outcome] = {
    "conforms": "pass",
    "deviates": "fail",
    "inconclusive": "inconclusive",
}


@register_section(
    "evaluator-crosscheck",
    title="Evaluator crosscheck",
    fields={
        "game": Field("text", help="q-poker or caribbean-stud"),
        "rules": Field("rules", help="the rule file whose ordering is the reference"),
        "evaluator": Field("file", help="the vendor's evaluator (a program or a .py file)"),
        "function": Field("text", required=False, help="for a .py evaluator: its function"),
        "command": Field(
            "text", required=False, help="program that runs the evaluator file, e.g. perl"
        ),
        "hands": Field("integer", required=False, minimum=1, help="hands sampled (default: all)"),
        "suit_pairs": Field(
            "integer",
            required=False,
            minimum=1,
            help="suit-decided pairs (default: all for Q Poker)",
        ),
        "other_pairs": Field(
            "integer", required=False, minimum=1, help="random pairs (default 5,000)"
        ),
        "seed": Field("integer", required=False, minimum=0, help="seed of every sample (0)"),
        "settlements": Field(
            "integer", required=False, minimum=1, help="deals per outcome of every bet settled (20)"
        ),
    },
)
def evaluator_crosscheck_section(entry: PlanEntry, context: Context) -> Section:
    game, rules = entry.game_rules(GAMES, "poker")
    path = entry.path("evaluator")
    spec, label = _spec(entry, path)
    hands = entry.values.get("hands")
    context.step(f"{game}: planning the crosscheck of {path.name}")
    plan = poker_crosscheck.plan(
        game,
        rules,
        hands=hands,
        suit_pairs=entry.integer("suit_pairs", 0),
        other_pairs=entry.integer("other_pairs", 5_000),
        seed=entry.integer("seed", 0),
        settlements_per_outcome=entry.integer("settlements", 20),
    )
    context.step(f"{game}: {plan.total:,} requests to {path.name}")
    report = poker_crosscheck.crosscheck(plan, open_evaluator(spec), label, keep=5)
    answered = sum(c.checked for c in report.checks)
    seconds = max(sum(c.seconds for c in report.checks), 1e-9)
    context.step(f"{label}: {answered:,} answers in {seconds:.1f} s, {answered / seconds:,.0f}/s")
    ordering = rules.require("ranking.ordering").article
    # Settlements are judged under the pay articles (第九條, 第十條, ...), the rest the ordering.
    paid = sorted({where[2].split("(")[0] for where in plan.settlement_check()[2]})
    articles = {"settlements": ", ".join(paid) or ordering}
    ident = path.name + (f":{entry.values['function']}" if "function" in entry.values else "")
    prefix = f"evaluator-crosscheck.{game}.{ident}"
    verdicts = tuple(
        Verdict(
            f"{prefix}.{c.name.replace(' ', '-')}",
            articles.get(c.name, ordering),
            f"the evaluator answers every {c.name} request as the statute does",
            OUTCOME[c.verdict],
            f"{c.mismatches:,} wrong of {c.checked:,}"
            + (f"; the evaluator failed: {c.error}" if c.error else "")
            + (": nothing was asked, nothing examined" if not c.checked and not c.error else "")
            + "".join(f"; {g.description}" for g in c.groups),
        )
        for c in report.checks
    )
    return Section(
        id=f"evaluator-crosscheck/{game}/{ident}",
        title=f"{game} evaluator crosscheck: {label} ({rules.path.name})",
        data=_data(report, path.name),
        verdicts=verdicts,
        html=_html(report),
        scope=_scope(plan, entry.integer("settlements", 20)),
    )


def detectable_share(n: int, confidence: float = 0.99) -> int:
    """The N of "1 in N": a defect in at least that share of a population is found, with
    ``confidence``, by ``n`` uniform random draws from it (1 - (1 - 1/N)^n >= confidence)."""
    if n <= 0:
        return 0
    share: float = 1 - (1 - confidence) ** (1 / n)
    return max(1, floor(1 / share))


def _scope(p: poker_crosscheck.Plan, per_outcome: int) -> Scope:
    k = p.tables.order.hand_size
    hands = comb(52, k)
    exhaustive = []
    sampled = []
    if len(p.categories) == hands:
        exhaustive.append(f"the category of every one of the C(52, {k}) = {hands:,} hands")
    else:
        sampled.append(Sample("hands asked for their category", len(p.categories), hands, p.seed))
    sampled.append(
        Sample(
            "pairs across rank classes (one per class, with the next class up it can meet)",
            len(p.adjacent_pairs),
            None,
            p.seed,
        )
    )
    if p.suit_pairs_complete:
        exhaustive.append(f"every one of the {len(p.suit_pairs):,} pairs decided only by suit")
    for s in () if p.suit_pairs_complete else p.suit_strata:
        if s.complete:
            exhaustive.append(f"every one of the {s.population:,} {s.category} pairs decided by suit")
        else:
            what = f"{s.category} pairs decided only by suit (distinct, without replacement)"
            sampled.append(Sample(what, s.asked, s.population, p.seed))
    sampled.append(Sample("other pairs of hands", len(p.other_pairs), None, p.seed))
    sampled.append(
        Sample(
            f"settlements ({per_outcome} deals per outcome of every bet)",
            len(p.settlements),
            None,
            p.seed,
        )
    )
    power = tuple(
        f"{s.what}: a defect in at least 1 in {detectable_share(s.size):,} of them is found "
        "with probability 99% or more"
        for s in sampled
        if s.size
    )
    return Scope(
        exhaustive=tuple(exhaustive),
        sampled=tuple(sampled),
        power=power,
        limitations=("a sampled check that finds no defect bounds, not excludes, rarer defects",),
    )


def _spec(entry: PlanEntry, path: Path) -> tuple[str, str]:
    """The evaluator spec to open and the label the report names it by (no local paths)."""
    function = entry.values.get("function")
    command = entry.values.get("command")
    if path.suffix == ".py":
        if function is None:
            raise entry.error("function", "a .py evaluator needs the function to call")
        return f"{path}:{function}", f"{path.name}:{function}"
    if function is not None:
        raise entry.error("function", "only a .py evaluator has a function; use command")
    if command is None:
        return f"cmd:{shlex.quote(str(path))}", path.name
    return f"cmd:{command} {shlex.quote(str(path))}", f"{command} {path.name}"


def _data(report: poker_crosscheck.CrosscheckReport, evaluator: str) -> dict[str, Any]:
    data = report.as_json()
    data["evaluator_file"] = evaluator
    for check in data["checks"]:
        del check["requests_per_second"]  # a measurement of this run, not certified data
    return data


def _html(report: poker_crosscheck.CrosscheckReport) -> str:
    rows = [
        (
            Markup(badge(OUTCOME[c.verdict])),
            c.name,
            f"{c.checked:,}",
            f"{c.mismatches:,}",
        )
        for c in report.checks
    ]
    defects = [
        f"<li>{esc(c.name)}: {esc(g.description)}</li>" for c in report.checks for g in c.groups
    ]
    complete = (
        f"<p>Suit-decided pairs: the complete set ({report.complete_suit_pairs:,}).</p>"
        if report.complete_suit_pairs is not None
        else ""
    )
    return (
        f"<p>Evaluator <code>{esc(report.evaluator)}</code> against the ordering of "
        f"<code>{esc(report.rules_file)}</code>; samples seeded with {report.seed}.</p>"
        + table(["", "check", "requests", "wrong"], rows, (2, 3))
        + complete
        + (f"<h3>Defects</h3><ul>{''.join(defects)}</ul>" if defects else "")
    )
