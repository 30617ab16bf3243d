"""A casino's submitted game configuration judged against the statute, article by article.

A configuration is written in the rule files' own terms, read strictly by
:mod:`tablecert.rules.submission` (its module text shows the format): the statute rule file's
tables and keys with plain values, plus a ``[submission]`` table naming the game. A game with
no statute, described by its rule file alone, is judged the same way against that file: its
constraints are the ones its file writes beside each value.

Every statute value gives one line: ``conforms``, ``deviates`` (expected and submitted; also
every value outside the statute's range or outside what the value can be, such as a
fractional seat count or a share of 1 or more, with the reason), ``house choice`` (the statute
leaves it to the house: shown, and its effect on the return computed), ``reading`` (a point
the statute leaves open; a different value is a different reading, not a deviation), or
``not submitted`` (the statute's value applies). A submission that sets no value the statute
judges is ``inconclusive``.

What the statute allows in place of each value is written beside it in the rule file
(``house_choice``, ``range`` and ``duty``, ``kind``, ``at_least``, ``one_of``:
:mod:`tablecert.rules.constraints`); this module only judges. Reading the submission (a
``ConfigurationError`` naming the file, line and key) is the submission module's, the
self-consistency checks :mod:`tablecert.conformance.consistency`'s, the bets' exact
returns :mod:`tablecert.games.returns`'s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tablecert.conformance.consistency import Consistency, safe_consistency
from tablecert.games import returns
from tablecert.games.returns import BetReturn
from tablecert.judgement import Domain, Judged, Outcome
from tablecert.rules import RuleFile, RuleValue
from tablecert.rules.constraints import invalid
from tablecert.rules.numbers import normalise, number, plain
from tablecert.rules.submission import (
    STATUTE_RULES,
    ConfigurationError,
    EffectiveRules,
    Submission,
    in_force,
    load_submission,
    submittable_keys,
)

__all__ = [
    "STATUTE_RULES",
    "BetReturn",
    "ConfigurationError",
    "ConfigurationReport",
    "Line",
    "authority",
    "bet_returns",
    "check_configuration",
    "judge",
    "load_submission",
]


@dataclass(frozen=True)
class Line:
    """The judgement of one statute value: conforms or deviates when the submission sets it;
    a house choice (recorded, never a pass) where the statute leaves it to the house; not
    applicable where the submission leaves the statute's value in force. ``reading``: the
    value is a point the statute leaves open, so a different value is another reading."""

    key: str
    article: str
    outcome: Outcome
    expected: Any
    submitted: Any
    note: str = ""
    reading: bool = False
    #: A duty the statute attaches to the submitted value (e.g. an approval to obtain): an
    #: open point of the certificate, whatever the verdict.
    duty: str = ""

    @property
    def verdict(self) -> str:
        """The line's label: conforms, deviates, house choice, reading or not submitted."""
        if self.outcome is Outcome.HOUSE_CHOICE:
            return "house choice"
        if self.outcome is Outcome.NOT_APPLICABLE:
            return "not submitted"
        if self.reading:
            return "reading"
        return self.outcome.word("conformance")

    @property
    def judged(self) -> bool:
        """Whether the submitted value was compared with the statute."""
        return self.outcome.judged

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "article": self.article,
            "verdict": self.verdict,
            "expected": _plain(self.expected),
            "submitted": _plain(self.submitted),
            "note": self.note,
        } | ({"duty": self.duty} if self.duty else {})


@dataclass(frozen=True)
class ConfigurationReport(Judged):
    domain: ClassVar[Domain] = "conformance"
    submission: Submission
    statute: RuleFile
    lines: tuple[Line, ...]
    consistency: tuple[Consistency, ...]
    effective_rules: EffectiveRules

    @property
    def deviations(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if line.outcome is Outcome.FAIL)

    @property
    def judged(self) -> tuple[Line, ...]:
        """The submitted values compared with the statute (house choices are not)."""
        return tuple(line for line in self.lines if line.judged)

    @property
    def duties(self) -> tuple[Line, ...]:
        """The submitted values to which the statute attaches a duty (open points)."""
        return tuple(line for line in self.lines if line.duty)

    @property
    def outcome(self) -> Outcome:
        """Fail if any value deviates or a consistency check fails; inconclusive if the
        submission sets no value the statute judges; else pass."""
        failed = bool(self.deviations) or not all(c.passed for c in self.consistency)
        return Outcome.of(failed, judged=bool(self.judged))

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.submission.game,
            "casino": self.submission.casino,
            "configuration": str(self.submission.path),
            "configuration_sha256": self.submission.sha256,
            "statute_rules": self.statute.path.name,
            "statute_rules_sha256": self.statute.sha256,
            "verdict": self.verdict,
            "judged": len(self.judged),
            "lines": [line.as_json() for line in self.lines],
            "consistency": [
                {"check": c.name, "article": c.article, "passed": c.passed, "detail": c.detail}
                for c in self.consistency
            ],
        }


def _plain(value: Any) -> Any:
    return None if isinstance(value, _Missing) else plain(value)


def check_configuration(
    path: str | Path, statute_rules: str | Path | RuleFile | None = None
) -> ConfigurationReport:
    """Judge a submitted configuration against its game's statute rule file (the bundled one,
    or ``statute_rules``: a lab's copy of it)."""
    effective = in_force(load_submission(path, statute_rules), statute_rules)
    submission, statute = effective.submission, effective.statute
    lines = [
        judge(key, statute, submission.values.get(key, _MISSING))
        for key in submittable_keys(statute)
    ]
    return ConfigurationReport(
        submission, statute, tuple(lines), tuple(safe_consistency(effective)), effective
    )


def bet_returns(report: ConfigurationReport, progress: Any = None) -> tuple[BetReturn, ...]:
    """Every bet's exact house edge under the judged configuration and under the statute."""
    return returns.bet_returns(report.effective_rules, progress)


class _Missing:
    def __repr__(self) -> str:
        return "(not submitted)"


_MISSING: Any = _Missing()


def authority(rules: RuleFile) -> str:
    """What a game's rule file states: a statute's values, or for a game described by its
    file alone (no statute) the game's published rules."""
    return "the statute" if rules.game in STATUTE_RULES else "the rule file"


def judge(key: str, statute: RuleFile, submitted: Any = _MISSING) -> Line:
    """The line of one statute value: the submitted value (or none) against what the statute
    allows in its place."""
    rule = statute.require(key)
    expected, article = rule.value, rule.article
    problem = (
        None
        if submitted is _MISSING
        else invalid(expected, submitted, kind=rule.kind, one_of=rule.one_of)
    )
    if rule.range is not None:
        return _judge_range(key, rule, statute, submitted, problem)
    if problem:
        shown = f">= {expected}" if rule.at_least else expected
        return Line(key, article, Outcome.FAIL, shown, submitted, problem)
    if submitted is not _MISSING and rule.at_least:
        ok = normalise(submitted) >= normalise(expected)
        return _with_duty(rule, Line(key, article, Outcome.of(not ok), f">= {expected}", submitted))
    if submitted is not _MISSING and rule.one_of:
        ok = submitted in expected
        shown = " or ".join(map(str, expected))
        return _with_duty(rule, Line(key, article, Outcome.of(not ok), shown, submitted))
    if rule.house_choice:
        note = f"{authority(statute)} leaves this to the house"
        line = Line(key, article, Outcome.HOUSE_CHOICE, expected, submitted, note)
        return line if submitted is _MISSING else _with_duty(rule, line)
    if submitted is _MISSING:
        note = f"{authority(statute)}'s value applies"
        return Line(key, article, Outcome.NOT_APPLICABLE, expected, submitted, note)
    same = normalise(submitted) == normalise(expected)
    if rule.reading:
        note = f"a point {authority(statute)} leaves open" + (
            "" if same else ": a different reading"
        )
        line = Line(key, article, Outcome.PASS, expected, submitted, note, reading=True)
        return _with_duty(rule, line)
    return _with_duty(rule, Line(key, article, Outcome.of(not same), expected, submitted))


def _judge_range(
    key: str, rule: RuleValue, statute: RuleFile, submitted: Any, problem: str | None
) -> Line:
    """A value the house chooses within the statute's range; the statute's duty is the note
    of a conforming choice and part of the reason of one outside."""
    assert rule.range is not None
    article, duty = rule.article, rule.duty
    low = normalise(statute.require(rule.range[0]).value)
    high = normalise(statute.require(rule.range[1]).value)
    shown = f"{low}..{high}"
    if submitted is _MISSING:
        note = f"{authority(statute)}'s range is {shown}; the rule file's default applies"
        return Line(key, article, Outcome.NOT_APPLICABLE, rule.value, submitted, note)
    if problem:
        return Line(key, article, Outcome.FAIL, shown, submitted, problem)
    value = number(submitted)
    assert value is not None
    if low <= value <= high:
        return Line(key, article, Outcome.PASS, shown, submitted, duty, duty=duty)
    above = value > high
    bound = f"{authority(statute)}'s {'maximum' if above else 'minimum'} {high if above else low}"
    note = f"{value} is {'above' if above else 'below'} {bound}" + (f"; {duty}" if duty else "")
    return Line(key, article, Outcome.FAIL, shown, submitted, note)


def _with_duty(rule: RuleValue, line: Line) -> Line:
    """A submitted value that does not deviate carries the duty the statute attaches to it."""
    if not rule.duty or line.outcome is Outcome.FAIL:
        return line
    return dataclasses.replace(line, duty=rule.duty)
