"""Judgement: the one place where evidence becomes pass, fail or inconclusive.

Every check in tablecert returns an :class:`Outcome` (or a :class:`Verdict`, an outcome with
the requirement and article it judged); commands only map it to an exit status
(:data:`EXIT_STATUS`) and show it in their domain's words (:meth:`Outcome.word`); report
sections only lay it out. No other module spells a verdict word.

The principle every check follows: only evidence that could have gone the other way counts.
A comparison between hands that can never meet, a sample asked twice, a value the statute
leaves to the house, or a set-up error of the lab's is not evidence for or against what is
judged: the first three are not counted, the last is an input error (exit 2), never a fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal

Domain = Literal["test", "conformance", "validity"]
"""How a command words its verdict: a test passes or fails; a configuration, an evaluator or a
scorer conforms or deviates; a signature, an envelope or a record of play is valid or invalid."""

DOMAINS: tuple[Domain, ...] = ("test", "conformance", "validity")


class Outcome(StrEnum):
    """What one check concluded. ``NOT_APPLICABLE`` and ``HOUSE_CHOICE`` judge nothing: the
    check had no evidence that could have gone the other way (nothing of the kind to examine),
    or the statute leaves the value to the house (recorded, never a pass)."""

    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    NOT_APPLICABLE = "not-applicable"
    HOUSE_CHOICE = "house-choice"

    @property
    def judged(self) -> bool:
        """Whether this outcome says something for or against what was checked."""
        return self in JUDGED

    def word(self, domain: Domain = "test") -> str:
        """The outcome in ``domain``'s words: ``Outcome.PASS.word("conformance")`` is
        ``"conforms"``."""
        return WORDS[domain].get(self, self.value)

    @classmethod
    def of(cls, failed: bool, *, judged: bool = True) -> Outcome:
        """``FAIL`` if ``failed``; otherwise ``PASS`` when anything was judged, else
        ``INCONCLUSIVE`` (a check that examined nothing cannot pass)."""
        if failed:
            return cls.FAIL
        return cls.PASS if judged else cls.INCONCLUSIVE

    @classmethod
    def parse(cls, word: str) -> Outcome:
        """The outcome a verdict word of any domain stands for (in any case)."""
        try:
            return _BY_WORD[word.lower()]
        except KeyError:
            raise ValueError(f"not a verdict word: {word!r}") from None


VERDICTS: tuple[Outcome, ...] = (Outcome.PASS, Outcome.FAIL, Outcome.INCONCLUSIVE)
"""The outcomes a judgement can end in, in report order; they count towards an overall verdict."""
JUDGED = frozenset(VERDICTS)

WORDS: Mapping[Domain, Mapping[Outcome, str]] = {
    "test": {Outcome.NOT_APPLICABLE: "skipped"},
    "conformance": {Outcome.PASS: "conforms", Outcome.FAIL: "deviates"},
    "validity": {Outcome.PASS: "valid", Outcome.FAIL: "invalid"},
}

_BY_WORD: dict[str, Outcome] = {o.value: o for o in Outcome} | {
    word: outcome for words in WORDS.values() for outcome, word in words.items()
}

EXIT_STATUS: Mapping[Outcome, int] = {
    Outcome.PASS: 0,
    Outcome.FAIL: 1,
    Outcome.INCONCLUSIVE: 3,
}
"""The exit status of a judging command for its overall outcome (2 is a usage or input error,
nothing judged; 4 an internal error: neither is an outcome)."""

EXIT_MEANINGS: Mapping[int, str] = {
    0: "pass",
    1: "fail",
    2: "usage or input error: nothing was judged",
    3: "inconclusive: not enough evidence to judge either way, or nothing submitted",
    4: "internal error: a bug in tablecert, reported in one line, never a verdict",
}


def verdict_words(outcome: Outcome) -> tuple[str, ...]:
    """Every word that says ``outcome``, the test domain's first (for help texts and docs)."""
    words = [outcome.word(domain) for domain in DOMAINS]
    return tuple(dict.fromkeys(words))


def overall(outcomes: Iterable[Outcome | str]) -> Outcome:
    """Fail if any check failed, inconclusive if any was (or if nothing was judged), pass only
    if every judged check passed. Not-applicable checks and house choices are not counted."""
    seen = {Outcome.parse(o) if not isinstance(o, Outcome) else o for o in outcomes}
    seen &= JUDGED
    if Outcome.FAIL in seen:
        return Outcome.FAIL
    if Outcome.INCONCLUSIVE in seen or not seen:
        return Outcome.INCONCLUSIVE
    return Outcome.PASS


class Judged:
    """A result judged by one ``outcome`` (a property of the result): its word in the result's
    ``domain`` (``verdict``) and whether it passed, alike for every result class."""

    __slots__ = ()
    domain: ClassVar[Domain] = "test"

    @property
    def outcome(self) -> Outcome:
        raise NotImplementedError

    @property
    def verdict(self) -> str:
        return self.outcome.word(self.domain)

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS


class JudgementError(ValueError):
    """A verdict was built without what every verdict must carry (a bug in a check)."""


@dataclass(frozen=True)
class Verdict:
    """One requirement judged: what was required, under which article, and what was found.

    ``values`` are the values the check judged, in the project's notation (shown beside the
    verdict, so that no row says only "conforms"); ``detail`` is the evidence in words;
    ``duties`` are what the statute requires of the house because of a judged value (an
    approval to obtain, a notice to give): open points of the certificate whatever the
    outcome."""

    requirement: str
    article: str
    statement: str
    outcome: Outcome
    detail: str
    values: tuple[str, ...] = ()
    duties: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome):
            try:
                object.__setattr__(self, "outcome", Outcome.parse(self.outcome))
            except ValueError:
                raise JudgementError(
                    f"verdict {self.requirement}: unknown outcome {self.outcome!r}"
                ) from None
        if not self.article:
            raise JudgementError(f"verdict {self.requirement}: every verdict cites its article")

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "requirement": self.requirement,
            "article": self.article,
            "statement": self.statement,
            "verdict": self.outcome.value,
            "detail": self.detail,
        }
        if self.values:
            out["values"] = list(self.values)
        if self.duties:
            out["duties"] = list(self.duties)
        return out
