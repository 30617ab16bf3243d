"""Section ``round-audit``: what happened at the table, from its round logs (``tablecert audit
rounds``): every deal checked as one deck, every spot re-settled under the rule file (or a
submitted configuration), the bets against the decisions, the progressive meter's accounting
(Caribbean Stud) and, when asked for, the observed hold against its exact expectation.

The game is named as ``audit rounds --game`` names it: ``game = "q-poker"`` or
``"caribbean-stud"`` (their round-log format) with the statute's ``rules``; or no ``game``,
and the ``rules`` file is the game, described by its file (as the ``stud-par-sheet`` section
takes it): its logs re-settled by the description (:mod:`tablecert.rounds.stud_audit`), each
check under the article of the description's value that decides it.

One verdict per kind of check, each under its article: any difference is ``fail``; a log with
no rounds (or a hold analysis without the power to fail) is ``inconclusive``, never a pass.
``data`` is what ``tablecert audit rounds --json`` writes (one dialect), the logs named by
their base names (the signed subjects).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tablecert.errors import RuleFileError
from tablecert.games.common import decimal
from tablecert.games.stud_settle import StudSettlement, stud_settlement
from tablecert.judgement import Verdict
from tablecert.poker import GAMES, ordering
from tablecert.report.display import named
from tablecert.report.entry import Context, Field, PlanEntry, Sample, Scope, Section
from tablecert.report.html import esc, table
from tablecert.report.registry import register_section
from tablecert.rounds.audit import RoundAudit, audit_rounds
from tablecert.rounds.hold import HoldParameters
from tablecert.rounds.stud_audit import audit_stud_rounds, log_spec
from tablecert.rules import RuleFile
from tablecert.rules.submission import in_force

FINDINGS_SHOWN = 20

#: Each kind of check: the rule key whose article it is judged under, and what it requires.
CHECKS: dict[str, tuple[dict[str, str], str]] = {
    "deck": (
        {"q-poker": "game.hand_size", "caribbean-stud": "game.hand_size"},
        "every round is dealt from one deck with the statute's card counts",
    ),
    "bet": (
        {"q-poker": "play.initial_bet", "caribbean-stud": "play.raise_multiple"},
        "every seat's bets match its decision",
    ),
    "settlement": (
        {"q-poker": "play.dealer_qualifier", "caribbean-stud": "play.dealer_qualifier"},
        "every spot is paid or taken as the rule file settles it (void rounds refunded, Art. 11)",
    ),
    "meter": (
        {"caribbean-stud": "progressive.contribution"},
        "the progressive meter is accounted for round by round (contributions, prizes, "
        "restarts from the seed)",
    ),
}


#: What each kind of check requires in a game described by its rule file (and its meter's,
#: CHECKS', where the file has a progressive).
DESCRIBED_CHECKS: dict[str, str] = {
    "deck": "every round is dealt from one deck with the description's card counts",
    "bet": "every seat's bets match its decision (the raise the decision's multiple of the ante)",
    "settlement": "every bet is paid or taken as the rule file's description settles it (void "
    "rounds refunded)",
}


#: An article's trailing points, written onto it: the "(四)(2)" of 第九條(四)(2), not the
#: "(Live! Casino Philadelphia)" of a pay table's name.
_POINTS = re.compile(r"(?<=\S)(\([^()\s]*\))+$")


def _whole(article: str) -> str:
    """An article without its points (第九條(四) -> 第九條; "Rules: settlement" whole)."""
    return _POINTS.sub("", article)


def _article(rules: RuleFile, key: str) -> str:
    """The article of a statute's rule key, as a whole article (第九條(四) -> 第九條)."""
    return rules.require(key).article.split("(")[0]


def check_verdicts(result: RoundAudit, rules: RuleFile, prefix: str) -> tuple[Verdict, ...]:
    """One verdict per kind of check the game (a dedicated engine's) has."""
    articles = {
        kind: (_article(rules, keys[result.game]), requirement)
        for kind, (keys, requirement) in CHECKS.items()
        if result.game in keys
    }
    return _verdicts(result, articles, articles["settlement"][0], prefix)


def described_check_verdicts(
    result: RoundAudit, st: StudSettlement, prefix: str
) -> tuple[Verdict, ...]:
    """One verdict per kind of check of a game described by its rule file, each under the
    article of the description's value that governs it: the deal's (one deck, its card
    counts), the raise's (bets match decisions), the settlement's (the bet against the
    dealer's loss, the article every settlement line of the description sits under)."""
    d = st.description
    governing = {
        "deck": d.deal.dealer_cards.article,
        "bet": d.raises[0].article,
        "settlement": d.settlement.loss.ante.article,
    }
    articles = {kind: (_whole(governing[kind]), req) for kind, req in DESCRIBED_CHECKS.items()}
    if st.progressive is not None:  # its meter, checked as in the dedicated game
        contribution = st.progressive.articles_of("progressive.contribution")
        articles["meter"] = (_whole(contribution), CHECKS["meter"][1])
    return _verdicts(result, articles, articles["settlement"][0], prefix)


def _verdicts(
    result: RoundAudit,
    articles: dict[str, tuple[str, str]],
    hold_article: str,
    prefix: str,
) -> tuple[Verdict, ...]:
    """The verdicts of the checks ``articles`` names (kind: article, requirement), and the
    hold's where it was asked for."""
    out = []
    for kind, (article, requirement) in articles.items():
        found = result.counts.get(kind, 0)
        # what the meter's accounting could not examine, under the check it belongs to
        meter = result.meter.not_examined if result.progressive is not None else {}
        unexamined = [meter[kind]] if kind in meter else []
        detail = f"{result.rounds:,} rounds, {result.seats:,} seats; {found:,} {kind} findings"
        out.append(
            Verdict(
                f"{prefix}.{kind}",
                article,
                requirement,
                result.check_outcome(kind),
                "; ".join([detail, *unexamined]),
            )
        )
    if result.hold is not None:
        hold = result.hold
        out.append(
            Verdict(
                f"{prefix}.hold",
                hold_article,
                "the observed hold agrees with its exact expectation given the cards and the "
                "decisions, and the dealt hands follow the exact category law",
                hold.outcome,
                "; ".join(hold.reasons) or "no deviation found with the required power",
            )
        )
    return tuple(out)


def tables_text(result: RoundAudit) -> str:
    """The tables a round audit's logs came from, as its title names them."""
    return named("table", sorted(result.tables), "no table")


def section_data(result: RoundAudit) -> dict[str, Any]:
    """``audit rounds --json`` with the logs named by base name (the signed subjects)."""
    data = result.as_json()
    data["files"] = [Path(f).name for f in result.files]
    for finding in data["findings"]:
        finding["file"] = Path(finding["file"]).name
    data["rules_file"] = Path(result.rules_file).name
    return data


#: The plan key naming a dedicated engine's game; without it the rule file names the game.
GAME = Field(
    "text",
    required=False,
    help="q-poker or caribbean-stud (their round-log format); leave it out for a game "
    "described by its rule file (rules names the game)",
)


def _described(entry: PlanEntry) -> StudSettlement:
    """The settlement of the game the entry's rule file describes (no ``game`` key), with the
    options only the dedicated games' audit has refused, naming the key."""
    for key in ("config", "hold"):
        if key in entry.values and (key != "hold" or entry.values[key]):
            raise entry.error(
                key,
                "is for q-poker and caribbean-stud logs: a game described by its rule file is "
                "audited by its description",
            )
    rules = entry.stud_rules()
    try:
        st = stud_settlement(rules)
        log_spec(st)
    except RuleFileError as exc:
        raise entry.error(
            "rules", f"{rules.path.name} describes no game whose rounds can be audited: {exc}"
        ) from None
    return st


def check_entry(entry: PlanEntry) -> None:
    """A described game's entry is vetted when the plan is read (a rule file that describes
    no auditable game, an option it cannot take); a dedicated game's when it runs."""
    if "game" not in entry.values:
        _described(entry)


@register_section(
    "round-audit",
    title="Round audit",
    fields={
        "logs": Field("files", help="the table's round logs (CSV or JSON Lines, .gz ok)"),
        "rules": Field(
            "rules",
            help="the game's rule file (the statute; or, without game, the rule file that "
            "describes the game)",
        ),
        "game": GAME,
        "config": Field(
            "file", required=False, help="a submitted configuration: settle under its values"
        ),
        "hold": Field(
            "boolean",
            required=False,
            help="also judge the observed hold and the dealt hands (default false)",
        ),
    },
    check=check_entry,
)
def round_audit_section(entry: PlanEntry, context: Context) -> Section:
    if "game" not in entry.values:
        return _described_section(entry, context)
    game, rules = entry.game_rules(GAMES, "poker")
    settled_under = rules
    if "config" in entry.values:
        settled_under = in_force(entry.path("config"), str(rules.path))
        if settled_under.submission.game != game:
            raise entry.error("config", f"a {settled_under.submission.game} configuration")
    logs = entry.paths("logs")
    hold = bool(entry.values.get("hold", False))
    context.step(f"auditing {len(logs)} round log(s)")
    result = audit_rounds(
        logs,
        ordering(game, settled_under),
        hold=HoldParameters() if hold else None,
        executor=context.executor,
    )
    names = "+".join(p.name for p in logs)
    prefix = f"round-audit.{game}.{names}"
    return Section(
        id=f"round-audit/{game}/{names}",
        title=f"Round audit: {game}, {result.rounds:,} rounds from {tables_text(result)} ({names})",
        data=section_data(result),
        verdicts=check_verdicts(result, rules, prefix),
        html=_html(result),
        scope=_scope(result, names, hold),
    )


def _described_section(entry: PlanEntry, context: Context) -> Section:
    """The round audit of a game described by its rule file: its logs re-settled by the
    description, locally (the described games' audit is not sharded)."""
    st = _described(entry)
    logs = entry.paths("logs")
    context.step(f"{st.rules.path.name}: auditing {len(logs)} round log(s) by the description")
    result = audit_stud_rounds(logs, st.rules)
    names = "+".join(p.name for p in logs)
    game = st.rules.path.stem
    return Section(
        id=f"round-audit/{game}/{names}",
        title=f"Round audit: {game} (described by its rule file), {result.rounds:,} rounds "
        f"from {tables_text(result)} ({names})",
        data=section_data(result),
        verdicts=described_check_verdicts(result, st, f"round-audit.{game}.{names}"),
        html=_html(result),
        scope=_scope(result, names, hold=False, described=True),
    )


def _scope(result: RoundAudit, names: str, hold: bool, described: bool = False) -> Scope:
    limitations = [
        "the logs are taken as the table's record: that they are complete and unaltered is "
        "the lab's custody, not the audit's",
        "a void round (void, misdeal, shuffler failure) is checked for refunded bets only; its "
        "cards are not judged",
        "with a cluster, each log is its own stream: the meter's continuity is checked within "
        "a log (the local answer whenever no table's rounds span two logs)",
    ]
    if described:
        limitations.append(
            "a game described by its rule file: the observed hold is not judged against its "
            "expectation (the hold analysis is the dedicated games')"
        )
    elif not hold:
        limitations.append(
            "the hold analysis was not asked for (plan key hold = true): the observed hold is "
            "not judged against its expectation"
        )
    power = () if result.hold is None else tuple(result.hold.reasons)
    return Scope(
        exhaustive=(
            f"every one of the {result.rounds:,} logged rounds: the deal checked as one deck, "
            f"every spot of its {result.seats:,} seats re-settled",
        ),
        sampled=(Sample(f"the table's rounds: the ones in the logs ({names})", result.rounds),),
        power=power,
        limitations=tuple(limitations),
    )


def _html(result: RoundAudit) -> str:
    rows = [
        (a, f"{t.spots:,}", decimal(t.paid, 2), decimal(t.due, 2), f"{t.differences:,}")
        for a, t in sorted(result.by_article.items())
    ]
    counts = ", ".join(f"{kind}: {n:,}" for kind, n in sorted(result.counts.items())) or "none"
    shown = "".join(f"<li>{esc(f.text)}</li>" for f in result.findings[:FINDINGS_SHOWN])
    more = sum(result.counts.values()) - min(len(result.findings), FINDINGS_SHOWN)
    meter = f"<p>{esc(result.meter.text)}</p>" if result.progressive is not None else ""
    hold = ""
    if result.hold is not None:
        hold = (
            f"<p>Hold analysis: <strong>{esc(result.hold.verdict)}</strong>"
            + (f" ({esc('; '.join(result.hold.reasons))})" if result.hold.reasons else "")
            + ".</p>"
        )
    return (
        f"<p>{result.rounds:,} rounds ({result.void_rounds:,} void), {result.seats:,} seats "
        f"from {len(result.files)} log(s). Findings by kind: {esc(counts)}. Verdict: "
        f"<strong>{esc(result.verdict)}</strong>.</p>"
        + table(["article / spot", "spots", "paid", "due", "differences"], rows, (1, 2, 3, 4))
        + meter
        + hold
        + (f"<ul>{shown}</ul>" if shown else "")
        + (
            f"<p>... and {more:,} more findings (report.json lists the first 1000).</p>"
            if more > 0
            else ""
        )
    )
