"""Section ``evaluator-crosscheck``: a vendor's hand evaluator against the statute ordering.

The evaluator is a Python file and function or a program in any language run by a command,
answering tablecert's line protocol (``evaluator = ...``), or a shared library exporting the
C ABI (``library = ...``, the ``so:`` evaluators of ``tablecert crosscheck poker``). For the
first, every check of ``poker_crosscheck`` (each hand's category, adjacent rank classes,
suit-decided pairs, other pairs under the statute's ordering article; settlements of every
outcome of every bet under the pay articles) is one verdict; a library is checked
exhaustively by ``native_crosscheck`` (every hand scored, every rank-class boundary, every
suit-decided pair, random pairs), exactly as the command does. A check passes iff the
evaluator gave no wrong answer. Samples are seeded, so the same plan asks the same questions.
Throughput is a measurement of this run: it goes to the progress line, not into report.json
or the HTML, which stay byte-identical run to run (``tablecert crosscheck poker`` prints it).

The game is named as ``tablecert crosscheck poker`` names it: ``game = "q-poker"`` or
``"caribbean-stud"`` with the statute's ``rules``; or no ``game``, and the ``rules`` file is the
game (as the ``stud-par-sheet`` and ``round-audit`` sections take it). A file that describes a
stud game is crosschecked as the command crosschecks it (:mod:`tablecert.conformance.
stud_crosscheck`): the categories of hands of every size the game deals, a showdown across
every rank-class boundary a player's and a dealer's hands can meet, suit-decided showdowns
where its suits decide and seeded deals, each check one verdict under the ranking's article,
each defect named by the article of the category it concerns. It settles no bet (the line
protocol's ``settle`` requests are the dedicated games') and takes no library (the C ABI
scores the dedicated games' hands). A dedicated engine's file named without ``game`` is that
game's crosscheck, as the command runs it.

The evaluator is started when the plan is read (``check_entry``), before anything runs: one
that cannot be started, loaded or found is a plan error naming the key, never a FAIL signed
against the vendor. What the report says of it names the file as the plan does, never a path
of the machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
from collections.abc import Callable
from dataclasses import replace
from math import comb, floor
from pathlib import Path
from typing import Any, TypeVar

from tablecert.conformance import native_crosscheck, poker_crosscheck, stud_crosscheck
from tablecert.conformance.evaluator_errors import EvaluatorError, EvaluatorStartError
from tablecert.conformance.evaluator_protocol import check_evaluator, open_evaluator
from tablecert.conformance.isolation import is_shared_library
from tablecert.conformance.native_evaluator import DEFAULT_SYMBOL, NativeEvaluator, NativeSpec
from tablecert.errors import GameError, RuleFileError
from tablecert.judgement import Outcome, Verdict
from tablecert.poker import GAMES, Ordering, game_ordering
from tablecert.poker import ordering as ordering_of
from tablecert.report.entry import Context, Field, PlanEntry, Sample, Scope, Section
from tablecert.report.html import HtmlCell, badge, esc, table
from tablecert.report.registry import register_section
from tablecert.rules import RuleFile

NATIVE_RANDOM_PAIRS = 1_000_000
"""Random disjoint pairs a library's scores are checked on besides the exhaustive checks."""
_LINE_ONLY = ("hands", "suit_pairs", "settlements", "function", "command")
#: The sample sizes an entry may give, each held in memory with its expected answers.
_COUNTS = ("hands", "suit_pairs", "other_pairs", "settlements")

_NATIVE_ONLY_DEDICATED = (
    "a native evaluator is checked for q-poker or caribbean-stud only; give a line-protocol "
    "evaluator (evaluator = ...) for a game described by its rule file"
)
#: What only a dedicated engine's game takes, and why a described game's entry may not.
_DEDICATED_ONLY = {
    "library": _NATIVE_ONLY_DEDICATED,
    "symbol": _NATIVE_ONLY_DEDICATED,
    "settlements": "a game described by its rule file is crosschecked on its hands: no bet "
    "is settled",
}

#: The plan key naming a dedicated engine's game; without it the rule file names the game.
GAME = Field(
    "text",
    required=False,
    help="q-poker or caribbean-stud; leave it out for a game described by its rule file "
    "(rules names the game)",
)


@register_section(
    "evaluator-crosscheck",
    title="Evaluator crosscheck",
    fields={
        "game": GAME,
        "rules": Field(
            "rules",
            help="the rule file whose ordering is the reference (without game, the rule file "
            "that describes the game)",
        ),
        "evaluator": Field(
            "file", required=False, help="the vendor's evaluator (a program or a .py file)"
        ),
        "library": Field(
            "file", required=False, help="the vendor's evaluator as a shared library (C ABI)"
        ),
        "symbol": Field(
            "text", required=False, help=f"for a library: its function ({DEFAULT_SYMBOL})"
        ),
        "function": Field("text", required=False, help="for a .py evaluator: its function"),
        "command": Field(
            "text", required=False, help="program that runs the evaluator file, e.g. perl"
        ),
        "hands": Field("integer", required=False, minimum=1, help="hands sampled (default: all)"),
        "suit_pairs": Field(
            "integer",
            required=False,
            minimum=1,
            help="suit-decided pairs (default: all for Q Poker; 100,000 otherwise)",
        ),
        "other_pairs": Field(
            "integer",
            required=False,
            minimum=1,
            help=f"random pairs (default 5,000; {NATIVE_RANDOM_PAIRS:,} for a library)",
        ),
        "seed": Field("integer", required=False, minimum=0, help="seed of every sample (0)"),
        "settlements": Field(
            "integer", required=False, minimum=1, help="deals per outcome of every bet settled (20)"
        ),
    },
    check=lambda entry: check_entry(entry),
)
def evaluator_crosscheck_section(entry: PlanEntry, context: Context) -> Section:
    game, rules, described = _game(entry)
    if described is not None:
        return _described_section(entry, context, described)
    if "library" in entry.values:
        return _native_section(entry, context, game, rules)
    plan, report, path, ident = _asked(
        entry,
        context,
        game,
        lambda: poker_crosscheck.plan(
            game,
            rules,
            hands=entry.values.get("hands"),
            suit_pairs=entry.integer("suit_pairs", 0),
            other_pairs=entry.integer("other_pairs", 5_000),
            seed=entry.integer("seed", 0),
            settlements_per_outcome=entry.integer("settlements", 20),
        ),
    )
    ordering = rules.require("ranking.ordering").article
    # Settlements are judged under the pay articles (第九條, 第十條, ...), the rest the ordering.
    paid = sorted({where[2].split("(")[0] for where in plan.settlement_check()[2]})
    articles = {"settlements": ", ".join(paid) or ordering}
    return Section(
        id=f"evaluator-crosscheck/{game}/{ident}",
        title=f"{game} evaluator crosscheck: {report.evaluator} ({rules.path.name})",
        data=_data(report, path.name),
        verdicts=_verdicts(report, f"evaluator-crosscheck.{game}.{ident}", articles, ordering),
        html=_html(report),
        scope=_scope(plan, entry.integer("settlements", 20)),
    )


#: A line-protocol crosscheck's plan: a dedicated game's, or a described game's.
P = TypeVar("P", poker_crosscheck.Plan, stud_crosscheck.StudPlan)


def _asked(
    entry: PlanEntry, context: Context, game: str, planned: Callable[[], P]
) -> tuple[P, poker_crosscheck.CrosscheckReport, Path, str]:
    """Start the entry's line-protocol evaluator in its own process, plan what to ask
    (``planned``), and ask it: the plan, the report (no machine path in it), the evaluator
    file and the name the section's ids give it (the file, and its function)."""
    path = entry.path("evaluator")
    spec, label = _spec(entry, path)
    context.step(f"{game}: starting {label}")
    answerer = _opened(entry, "evaluator", lambda: open_evaluator(spec, name=label))
    context.step(f"{game}: planning the crosscheck of {label}")
    plan = planned()
    context.step(f"{game}: {plan.total:,} requests to {label}")
    report = _scrubbed(poker_crosscheck.crosscheck(plan, answerer, label, keep=5), path)
    answered = sum(c.checked for c in report.checks)
    seconds = max(sum(c.seconds for c in report.checks), 1e-9)
    context.step(f"{label}: {answered:,} answers in {seconds:.1f} s, {answered / seconds:,.0f}/s")
    ident = path.name + (f":{entry.values['function']}" if "function" in entry.values else "")
    return plan, report, path, ident


def _game(entry: PlanEntry) -> tuple[str, RuleFile, Ordering | None]:
    """The game the entry names, as ``tablecert crosscheck poker`` names it, and for a game
    described by its rule file its ordering (None for a dedicated engine's game): ``game``
    with that game's ``rules``; or no ``game``, and the ``rules`` file is the game (a
    dedicated engine's file is that engine's game)."""
    if "game" in entry.values:
        return (*entry.game_rules(GAMES, "poker"), None)
    rules = entry.stud_rules()
    try:
        order = game_ordering(rules.game, rules)
    except (GameError, RuleFileError) as exc:
        raise entry.error(
            "rules", f"{rules.path.name} describes no game whose evaluator can be checked: {exc}"
        ) from None
    return order.game, rules, order if order.stud is not None else None


def _described_section(entry: PlanEntry, context: Context, order: Ordering) -> Section:
    """The crosscheck of a game described by its rule file: ``crosscheck poker``'s for it."""
    game, rules = order.game, order.rules
    plan, report, path, ident = _asked(
        entry,
        context,
        game,
        lambda: stud_crosscheck.plan(
            order,
            hands=entry.values.get("hands"),
            suit_pairs=entry.values.get("suit_pairs"),
            other_pairs=entry.integer("other_pairs", 5_000),
            seed=entry.integer("seed", 0),
        ),
    )
    ordering = rules.require("ranking.ordering").article
    return Section(
        id=f"evaluator-crosscheck/{game}/{ident}",
        title=f"{game} evaluator crosscheck (described by its rule file): {report.evaluator} "
        f"({rules.path.name})",
        data=_data(report, path.name),
        verdicts=_verdicts(
            report,
            f"evaluator-crosscheck.{game}.{ident}",
            {},
            ordering,
            "the ranking its rule file describes",
        ),
        html=_html(report) + _notes_html(report),
        scope=_stud_scope(plan),
    )


def _native_section(entry: PlanEntry, context: Context, game: str, rules: RuleFile) -> Section:
    """A shared library, checked exhaustively through the C ABI."""
    path = entry.path("library")
    spec, label = _native_spec(entry, path)
    pairs = entry.integer("other_pairs", NATIVE_RANDOM_PAIRS)
    seed = entry.integer("seed", 0)
    context.step(f"{game}: scoring every hand with {label}")
    report = _opened(
        entry,
        "library",
        lambda: native_crosscheck.crosscheck_native(
            game, spec, rules.path, random_pairs=pairs, seed=seed, keep=5, name=label
        ),
    )
    report = _scrubbed(report, path)
    ordering = rules.require("ranking.ordering").article
    ident = label
    k = ordering_of(game, rules.path).hand_size
    hands = comb(52, k)
    exhaustive = (
        (
            f"the score of every one of the C(52, {k}) = {hands:,} hands",
            "every boundary between neighbouring rank classes whose hands can meet",
            f"every one of the {report.complete_suit_pairs:,} pairs decided only by suit",
        )
        if report.complete_suit_pairs is not None
        else ()
    )
    sampled = (Sample("random disjoint pairs of hands", pairs, None, seed),)
    return Section(
        id=f"evaluator-crosscheck/{game}/{ident}",
        title=f"{game} evaluator crosscheck: {label} ({rules.path.name})",
        data=_data(report, path.name),
        verdicts=_verdicts(report, f"evaluator-crosscheck.{game}.{ident}", {}, ordering),
        html=_html(report),
        scope=Scope(
            exhaustive=exhaustive,
            sampled=sampled,
            power=(
                f"random disjoint pairs of hands: a defect in at least 1 in "
                f"{detectable_share(pairs):,} of them is found with probability 99% or more",
            ),
            limitations=(
                "settlements are not checked: the C ABI scores hands, it does not settle bets",
                "a sampled check that finds no defect bounds, not excludes, rarer defects",
            ),
        ),
    )


def _verdicts(
    report: poker_crosscheck.CrosscheckReport,
    prefix: str,
    articles: dict[str, str],
    ordering: str,
    reference: str = "the statute",
) -> tuple[Verdict, ...]:
    """One verdict per check, under its article (``articles``, else the ordering's); each
    says the evaluator answers as ``reference`` does (the statute, or a described game's
    rule file)."""
    return tuple(
        Verdict(
            f"{prefix}.{c.name.replace(' ', '-')}",
            articles.get(c.name, ordering),
            f"the evaluator answers every {c.name} request as {reference} does",
            Outcome.parse(c.verdict),
            f"{c.mismatches:,} wrong of {c.checked:,}"
            + (f"; the evaluator failed: {c.error}" if c.error else "")
            + (": nothing was asked, nothing examined" if not c.checked and not c.error else "")
            + "".join(f"; {g.description}" for g in c.groups),
        )
        for c in report.checks
    )


def _scrubbed(
    report: poker_crosscheck.CrosscheckReport, path: Path
) -> poker_crosscheck.CrosscheckReport:
    """``report`` with the evaluator file's path on this machine (certify's snapshot copy)
    replaced by its name in every failure (which may quote the evaluator's error output): a
    signed finding names no machine path."""

    def scrub(text: str) -> str:
        for where in sorted({str(path.resolve()), str(path)}, key=len, reverse=True):
            text = text.replace(where, path.name)
        for folder in sorted({str(path.resolve().parent), str(path.parent)}, key=len, reverse=True):
            text = text.replace(folder + os.sep, "")
        return text

    checks = tuple(replace(c, error=scrub(c.error)) for c in report.checks)
    return replace(report, checks=checks)


def _opened(entry: PlanEntry, key: str, start: Any) -> Any:
    """``start()``, with an evaluator that cannot start reported as a plan error at ``key``."""
    try:
        return start()
    except EvaluatorStartError as exc:
        raise entry.error(key, str(exc)) from None


def check_entry(entry: PlanEntry) -> None:
    """Before anything runs: the entry names a game (a described game's file is read, and
    what its crosscheck does not take is refused), sample sizes a run can hold, and one
    evaluator that can be started (a program that can be executed, a Python function that
    can be imported, a library that loads)."""
    for key in _COUNTS:
        count = entry.values.get(key)
        if count is not None and count > poker_crosscheck.MAX_SAMPLE:
            raise entry.error(
                key,
                f"{count:,}: a sample holds at most {poker_crosscheck.MAX_SAMPLE:,} requests "
                "(each is kept in memory with its expected answer; use several seeds for more)",
            )
    described = None if "game" in entry.values else _game(entry)[2]
    if described is not None:
        for key, why in _DEDICATED_ONLY.items():
            if key in entry.values:
                raise entry.error(key, why)
        if "suit_pairs" in entry.values and not described.suit_decides:
            ordering = described.rules.require("ranking.ordering").value
            raise entry.error(
                "suit_pairs",
                f"{described.rules.path.name} ranks hands {ordering}: suits never decide a "
                "showdown, so none is asked",
            )
    given = [key for key in ("evaluator", "library") if key in entry.values]
    if len(given) != 1:
        raise entry.error(
            None,
            "give evaluator = (a program or a .py file) or library = (a shared library, the "
            "so: C ABI), one of them",
        )
    if given == ["library"]:
        for key in _LINE_ONLY:
            if key in entry.values:
                raise entry.error(
                    key, "does not apply to a library: its checks are exhaustive, scores only"
                )
        path = entry.path("library")
        spec, label = _native_spec(entry, path)
        native = _opened(entry, "library", lambda: NativeSpec.parse(spec))
        _opened(entry, "library", lambda: _loads(native, label))
        return
    if "symbol" in entry.values:
        raise entry.error("symbol", "only a library has a symbol")
    path = entry.path("evaluator")
    spec, label = _spec(entry, path)
    if path.suffix != ".py" and "command" not in entry.values:
        if is_shared_library(path):
            raise entry.error(
                "evaluator",
                f"{path.name} is a shared library, not a program: give it as "
                f"library = {json.dumps(entry.given.get(str(path), path.name))} (a so: native "
                "evaluator)",
            )
        if not os.access(path, os.X_OK):
            raise entry.error(
                "evaluator",
                f"{path.name} is not executable: give the program that runs it, e.g. "
                'command = "perl"',
            )
    if "command" in entry.values:
        words = _command_words(entry)
        if shutil.which(words[0]) is None:
            raise entry.error("command", f"no program {words[0]!r} on PATH")
    _opened(entry, "evaluator", lambda: check_evaluator(spec, name=label))


def _loads(native: NativeSpec, label: str) -> None:
    """Load the library and stop its worker; one that crashes or hangs while loading is left
    to the section, which records it as the failed check it is (only ``EvaluatorStartError``,
    a library that cannot load, is the lab's set-up)."""
    with contextlib.suppress(EvaluatorError):
        NativeEvaluator(native, name=label).close()


def _command_words(entry: PlanEntry) -> list[str]:
    try:
        words = shlex.split(entry.text("command"))
    except ValueError as exc:
        raise entry.error("command", f"cannot split it: {exc}") from None
    if not words:
        raise entry.error("command", "is empty")
    return words


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
    # One pair for every class with the next class up it can meet: every boundary is asked
    # (not a random draw, so no "1 in N" power is claimed for it).
    exhaustive.append(
        f"{len(p.adjacent_pairs):,} pairs across rank classes, one for every class with the "
        "next class up that it can meet"
    )
    if p.suit_pairs_complete:
        exhaustive.append(f"every one of the {len(p.suit_pairs):,} pairs decided only by suit")
    for s in () if p.suit_pairs_complete else p.suit_strata:
        if s.complete:
            exhaustive.append(
                f"every one of the {s.population:,} {s.category} pairs decided by suit"
            )
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
    return _sampled_scope(exhaustive, sampled, ())


def _stud_scope(p: stud_crosscheck.StudPlan) -> Scope:
    """What the crosscheck of a described game asked: each hand size whole or sampled, every
    boundary the deal's hands were found to meet, the sampled showdowns."""
    exhaustive = []
    sampled = []
    for hands in p.category_hands:
        size = hands.shape[1]
        population = comb(52, size)
        if len(hands) == population:
            exhaustive.append(
                f"the category of every one of the C(52, {size}) = {population:,} {size}-card hands"
            )
        else:
            what = f"{size}-card hands asked for their category"
            sampled.append(Sample(what, len(hands), population, p.seed))
    exhaustive.append(
        f"{len(p.boundary_pairs):,} showdowns across rank classes, one for every class with the "
        "next class up that a player's and a dealer's hands were found to meet"
    )
    if p.order.suit_decides:
        what = "showdowns decided only by suit (distinct, spread over the categories)"
        sampled.append(Sample(what, len(p.suit_pairs), None, p.seed))
    sampled.append(Sample("seeded deals from one deck", len(p.other_pairs), None, p.seed))
    limitations = (
        "settlements are not checked: the crosscheck of a game described by its rule file "
        "asks for categories and showdowns",
        "a side dealt more cards than make a hand is represented by one dealt hand found, "
        f"by seeded tries, for each hand of its best cards: {p.passed_over:,} classes were "
        "not found to meet the class just above them and are paired with the next class up",
    )
    return _sampled_scope(exhaustive, sampled, limitations)


def _sampled_scope(
    exhaustive: list[str], sampled: list[Sample], limitations: tuple[str, ...]
) -> Scope:
    """A crosscheck's scope: what it asked whole and by sample, each sample's power, and its
    limitations (a sample's last)."""
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
        limitations=(
            *limitations,
            "a sampled check that finds no defect bounds, not excludes, rarer defects",
        ),
    )


def _spec(entry: PlanEntry, path: Path) -> tuple[str, str]:
    """The evaluator spec to open and the label the report names it by (no local paths)."""
    function = entry.values.get("function")
    command = entry.values.get("command")
    if path.suffix == ".py":
        if function is None:
            raise entry.error("function", "a .py evaluator needs the function to call")
        if command is not None:
            raise entry.error("command", "a .py evaluator runs in tablecert's worker; no command")
        return f"{path}:{function}", f"{path.name}:{function}"
    if function is not None:
        raise entry.error("function", "only a .py evaluator has a function; use command")
    if command is None:
        return f"cmd:{shlex.quote(str(path))}", path.name
    return f"cmd:{command} {shlex.quote(str(path))}", f"{command} {path.name}"


def _native_spec(entry: PlanEntry, path: Path) -> tuple[str, str]:
    """The ``so:`` spec of a library entry and its label (the file's name, and the symbol
    when it is not the default)."""
    symbol = entry.values.get("symbol", DEFAULT_SYMBOL)
    if not symbol.isidentifier():
        raise entry.error("symbol", f"{symbol!r} is not a C identifier")
    label = path.name if symbol == DEFAULT_SYMBOL else f"{path.name}:{symbol}"
    return f"so:{path}:{symbol}", label


def _data(report: poker_crosscheck.CrosscheckReport, evaluator: str) -> dict[str, Any]:
    data = report.as_json()
    data["evaluator_file"] = evaluator
    for check in data["checks"]:
        del check["requests_per_second"]  # a measurement of this run, not certified data
    return data


def _notes_html(report: poker_crosscheck.CrosscheckReport) -> str:
    """What each check asked and left out, as its notes say."""
    notes = [f"<li>{esc(c.name)}: {esc(n)}</li>" for c in report.checks for n in c.notes]
    return f"<h3>What was asked</h3><ul>{''.join(notes)}</ul>" if notes else ""


def _html(report: poker_crosscheck.CrosscheckReport) -> str:
    rows = [
        (
            HtmlCell(badge(Outcome.parse(c.verdict))),
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
