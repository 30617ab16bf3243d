"""A casino's submitted game configuration judged against the statute, article by article.

A configuration is written in the rule files' own terms: the same tables and keys as the
game's statute rule file (``fixtures/rules/<game>.macau.toml``), with plain values instead of
``{ value, article }`` tables, plus a ``[submission]`` table naming the game:

    [submission]
    game = "caribbean-stud"
    casino = "Example Casino"

    [play.raise_pays]
    royal-flush = 80          # the house's option, 50..100 (第九条(五)(9), 第十三条)

    [play.cap]
    maximum_payout = 50000

Every statute value gives one line: ``conforms``, ``deviates`` (expected and submitted),
``house choice`` (the statute leaves it to the house: shown, and its effect on the return
computed), ``reading`` (a point the statute leaves open; a different value is a different
reading, not a deviation), or ``not submitted`` (the statute's value applies). A key the rule
file does not have, a wrong type, a non-numeric payout or a duplicated key is a
``ConfigurationError`` naming the file, line and key: never a pass.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablecert import strict_json
from tablecert.errors import TableCertError
from tablecert.rules import RuleFile, load_rules
from tablecert.rules.loader import read_utf8

STATUTE_RULES = {
    "q-poker": "q-poker.macau",
    "caribbean-stud": "caribbean-stud.macau",
    "mahjong-traditional": "mahjong-traditional.macau",
    "mahjong-simple": "mahjong-simple.macau",
}

# Values the statute leaves to the house (dotted-key prefixes), and why.
HOUSE_CHOICES: dict[str, tuple[str, ...]] = {
    "caribbean-stud": (
        "play.cap.maximum_payout",
        "play.cap.ante",
        "progressive.bet",
        "progressive.meter",
        "progressive.seed",
        "progressive.contribution",
        "progressive.fixed.",
    ),
    "q-poker": (),
    "mahjong-traditional": ("payment.stake",),
    "mahjong-simple": ("payment.stake",),
}
# Values judged against a range the statute gives: key -> (minimum key, maximum key, duty).
RANGES: dict[str, dict[str, tuple[str, str, str]]] = {
    "caribbean-stud": {
        "play.raise_pays.royal-flush": (
            "play.royal_option.minimum",
            "play.royal_option.maximum",
            "第十三条: a house using this option must obtain the DICJ's approval, applying three "
            "working days before the planned date",
        ),
    },
}
# Values the submission must reach or choose among: key -> kind.
AT_LEAST: dict[str, tuple[str, ...]] = {"q-poker": ("table.seats",)}
ONE_OF: tuple[str, ...] = ("table.dealing",)
# Tables that are identification or explanation, not constraints.
NOT_CONSTRAINTS = (
    "game.id",
    "game.variant",
    "game.title",
    "game.statute",
    "ranking.categories.",
    "play.royal_option.",
)


class ConfigurationError(TableCertError):
    """A submitted configuration is malformed; names the file, line and key."""


@dataclass(frozen=True)
class Line:
    """The verdict on one statute value."""

    key: str
    article: str
    verdict: str  # conforms | deviates | house choice | reading | not submitted
    expected: Any
    submitted: Any
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "article": self.article,
            "verdict": self.verdict,
            "expected": _plain(self.expected),
            "submitted": _plain(self.submitted),
            "note": self.note,
        }


@dataclass(frozen=True)
class Consistency:
    """A statute self-consistency check on the configuration in force."""

    name: str
    article: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class Submission:
    path: Path
    game: str
    values: dict[str, Any]  # dotted key -> submitted value
    lines: tuple[str, ...]
    sha256: str
    casino: str

    def line_of(self, dotted: str) -> int | None:
        probe = RuleFile(path=self.path, data={}, sha256=self.sha256, lines=self.lines)
        return probe.line_of(dotted)

    def error(self, dotted: str, message: str) -> ConfigurationError:
        line = self.line_of(dotted)
        where = f"{self.path}:{line}" if line else str(self.path)
        return ConfigurationError(f"{where}: {dotted}: {message}")


@dataclass(frozen=True, eq=False)
class EffectiveRules(RuleFile):
    """The statute's rule file with the submitted values in force. An error at a key points
    at the file the value came from: the submission's line, or the statute rule file's."""

    submission: Submission | None = None
    statute: RuleFile | None = None

    def locate(self, dotted: str) -> tuple[str, str]:
        if self.submission is not None and dotted in self.submission.values:
            line = self.submission.line_of(dotted)
            return (f"{self.submission.path}:{line}" if line else str(self.submission.path)), ""
        if self.statute is not None:
            return self.statute.locate(dotted)
        return super().locate(dotted)


@dataclass(frozen=True)
class ConfigurationReport:
    submission: Submission
    statute: RuleFile
    lines: tuple[Line, ...]
    consistency: tuple[Consistency, ...]
    effective_rules: RuleFile

    @property
    def deviations(self) -> tuple[Line, ...]:
        return tuple(line for line in self.lines if line.verdict == "deviates")

    @property
    def passed(self) -> bool:
        return not self.deviations and all(c.passed for c in self.consistency)

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.submission.game,
            "casino": self.submission.casino,
            "configuration": str(self.submission.path),
            "configuration_sha256": self.submission.sha256,
            "statute_rules": self.statute.path.name,
            "statute_rules_sha256": self.statute.sha256,
            "verdict": "conforms" if self.passed else "deviates",
            "lines": [line.as_json() for line in self.lines],
            "consistency": [
                {"check": c.name, "article": c.article, "passed": c.passed, "detail": c.detail}
                for c in self.consistency
            ],
        }


def _plain(value: Any) -> Any:
    if isinstance(value, _Missing):
        return None
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def load_submission(path: str | Path) -> Submission:
    """Read a TOML or JSON configuration; errors name the file and position."""
    path = Path(path)
    raw, text = read_utf8(path, ConfigurationError, "configuration")
    try:
        if path.suffix.lower() == ".json":
            data = strict_json.loads(text, str(path))
        else:
            data = tomllib.loads(text)
    except strict_json.StrictJsonError as exc:
        why = ": an outcome may be paid only once" if "duplicate key" in str(exc) else ""
        raise ConfigurationError(f"{exc}{why}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{path}: invalid TOML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected a table of settings, got {type(data).__name__}")
    submission = data.pop("submission", None)
    if not isinstance(submission, dict) or "game" not in submission:
        raise ConfigurationError(f'{path}: missing [submission] table with game = "..."')
    game = submission["game"]
    if game not in STATUTE_RULES:
        raise ConfigurationError(
            f"{path}: submission.game {game!r} is not one of {', '.join(STATUTE_RULES)}"
        )
    values = dict(_flatten(data))
    return Submission(
        path=path,
        game=game,
        values=values,
        lines=tuple(text.splitlines()),
        sha256=hashlib.sha256(raw).hexdigest(),
        casino=str(submission.get("casino", "")),
    )


def _flatten(node: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in node.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, dotted + ".")
        else:
            yield dotted, value


def _rule_keys(node: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """Every dotted key of a rule file that holds a { value, article } table."""
    for key, value in node.items():
        if not isinstance(value, Mapping):
            continue
        dotted = f"{prefix}{key}"
        if "value" in value and "article" in value:
            yield dotted
        else:
            yield from _rule_keys(value, dotted + ".")


def _normalise(value: Any) -> Any:
    """Numbers (ints, floats written in the file, "3/2" strings) compare as exact fractions."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(\s*/\s*\d+)?\s*", value):
        return Fraction(value.replace(" ", ""))
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def _same_type(expected: Any, submitted: Any) -> bool:
    e, s = _normalise(expected), _normalise(submitted)
    if isinstance(e, Fraction):
        return isinstance(s, Fraction)
    if isinstance(e, bool):
        return isinstance(s, bool)
    return type(e) is type(s)


def check_configuration(
    path: str | Path, statute_rules: str | Path | RuleFile | None = None
) -> ConfigurationReport:
    """Judge a submitted configuration against its game's statute rule file (the bundled one,
    or ``statute_rules``: a lab's copy of it)."""
    submission = load_submission(path)
    if isinstance(statute_rules, RuleFile):
        statute = statute_rules
    else:
        statute = load_rules(statute_rules or STATUTE_RULES[submission.game])
    if statute.game != submission.game:
        raise statute.error(
            "game.id", f"the submission is for {submission.game!r}, not {statute.game!r}"
        )
    keys = [k for k in _rule_keys(statute.data) if not k.startswith(NOT_CONSTRAINTS)]
    unknown = sorted(set(submission.values) - set(_rule_keys(statute.data)))
    if unknown:
        raise submission.error(
            unknown[0],
            f"not a rule of {submission.game} (the statute rule file "
            f"{statute.path.name} has no such key)",
        )
    choices = HOUSE_CHOICES.get(submission.game, ())
    ranges = RANGES.get(submission.game, {})
    merged = copy.deepcopy(dict(statute.data))
    lines = []
    for key in keys:
        rule = statute.require(key)
        submitted = submission.values.get(key, _MISSING)
        if submitted is not _MISSING:
            expected_like = rule.value[0] if key in ONE_OF and rule.value else rule.value
            if not _same_type(expected_like, submitted):
                raise submission.error(
                    key, f"expected a value like {_plain(rule.value)!r}, got {submitted!r}"
                )
            _set(merged, key, submitted)
        lines.append(
            _judge(
                key,
                rule.value,
                rule.article,
                rule.reading,
                submitted,
                statute,
                _Kinds(choices, ranges, AT_LEAST.get(submission.game, ())),
            )
        )
    effective = EffectiveRules(
        path=submission.path,
        data=merged,
        sha256=hashlib.sha256(json.dumps(_plain(merged), sort_keys=True).encode()).hexdigest(),
        lines=statute.lines,
        submission=submission,
        statute=statute,
    )
    return ConfigurationReport(
        submission, statute, tuple(lines), tuple(consistency_checks(effective)), effective
    )


class _Missing:
    def __repr__(self) -> str:
        return "(not submitted)"


_MISSING: Any = _Missing()


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    node = data
    for part in dotted.split("."):
        node = node[part]
    node["value"] = value


@dataclass(frozen=True)
class _Kinds:
    choices: tuple[str, ...]
    ranges: dict[str, tuple[str, str, str]]
    at_least: tuple[str, ...]


def _judge(
    key: str,
    expected: Any,
    article: str,
    reading: bool,
    submitted: Any,
    statute: RuleFile,
    kinds: _Kinds,
) -> Line:
    choices, ranges = kinds.choices, kinds.ranges
    if submitted is not _MISSING and key in kinds.at_least:
        ok = _normalise(submitted) >= _normalise(expected)
        return Line(key, article, "conforms" if ok else "deviates", f">= {expected}", submitted)
    if submitted is not _MISSING and key in ONE_OF:
        ok = submitted in expected
        return Line(
            key,
            article,
            "conforms" if ok else "deviates",
            " or ".join(map(str, expected)),
            submitted,
        )
    if key in ranges:
        low_key, high_key, duty = ranges[key]
        low = _normalise(statute.require(low_key).value)
        high = _normalise(statute.require(high_key).value)
        if submitted is _MISSING:
            return Line(
                key,
                article,
                "not submitted",
                expected,
                submitted,
                f"the statute's range is {low}..{high}; the rule file's default applies",
            )
        value = _normalise(submitted)
        verdict = "conforms" if low <= value <= high else "deviates"
        return Line(key, article, verdict, f"{low}..{high}", submitted, duty)
    if key.startswith(choices) or key in choices:
        note = "the statute leaves this to the house"
        return Line(key, article, "house choice", expected, submitted, note)
    if submitted is _MISSING:
        return Line(
            key, article, "not submitted", expected, submitted, "the statute's value applies"
        )
    same = _normalise(submitted) == _normalise(expected)
    if reading:
        note = "a point the statute leaves open" + ("" if same else ": a different reading")
        return Line(key, article, "reading", expected, submitted, note)
    return Line(key, article, "conforms" if same else "deviates", expected, submitted)


# Per-category paytables: (table, article, whether payouts must rise with the hand). The
# progressive's fixed prizes need not: royal and straight flush are paid from the meter.
PAYTABLES: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "q-poker": (("pair_plus", "第十條", True), ("play.win", "第九條(七)", True)),
    "caribbean-stud": (
        ("play.raise_pays", "第九条(五)", True),
        ("progressive.fixed", "第十条(二)", False),
    ),
}
CATEGORY_ORDER = {
    "q-poker": ("high-card", "pair", "flush", "straight", "three-of-a-kind", "straight-flush"),
    "caribbean-stud": (
        "high-card",
        "one-pair",
        "two-pair",
        "three-of-a-kind",
        "straight",
        "flush",
        "full-house",
        "four-of-a-kind",
        "straight-flush",
        "royal-flush",
    ),
}


def consistency_checks(rules: RuleFile) -> Iterator[Consistency]:
    """The checks a lab expects of any configuration in force: hand categories rarer as they
    rank higher, payouts never falling as the hand rises, every outcome paid exactly once."""
    game = rules.game
    if game in CATEGORY_ORDER:
        yield _rarity(game, rules)
        for table, article, rising in PAYTABLES[game]:
            yield from _paytable_checks(rules, table, article, CATEGORY_ORDER[game], rising)
    else:
        yield from _mahjong_limits(rules)


def _rarity(game: str, rules: RuleFile) -> Consistency:
    from tablecert.hand_tables import category_table

    table = category_table(game, rules)
    counts = [row.count for row in table.rows]  # best category first
    ordered = all(a < b for a, b in itertools.pairwise(counts))
    article = str(rules.require("ranking.ordering").article)
    detail = ", ".join(f"{r.category} {r.count:,}" for r in table.rows)
    return Consistency("hand categories rarer as they rank higher", article, ordered, detail)


def _paytable_checks(
    rules: RuleFile, table: str, article: str, order: tuple[str, ...], rising: bool
) -> Iterator[Consistency]:
    entries = rules.table(table)
    present = [c for c in order if c in entries]
    extra = sorted(set(entries) - set(order))
    complete = not extra
    yield Consistency(
        f"{table}: every outcome paid exactly once",
        article,
        complete,
        "one entry per category" if complete else f"unknown outcome(s) {', '.join(extra)}",
    )
    if not rising:
        return
    values = [_normalise(rules.require(f"{table}.{c}").value) for c in present]
    falls = [
        f"{present[i + 1]} {values[i + 1]} < {present[i]} {values[i]}"
        for i in range(len(values) - 1)
        if values[i + 1] < values[i]
    ]
    yield Consistency(
        f"{table}: payouts never fall as the hand rises",
        article,
        not falls,
        "monotone" if not falls else "; ".join(falls),
    )


def _mahjong_limits(rules: RuleFile) -> Iterator[Consistency]:
    rows = rules.require("payment.limits").value
    article = rules.require("payment.limits").article
    limits = [tuple(_normalise(v) for v in row) for row in rows]
    lower = [row[0] for row in limits]
    unique = len(set(lower)) == len(lower)
    yield Consistency(
        "table limits: each limit has exactly one commission",
        article,
        unique,
        f"{len(limits)} limits",
    )
    ordered = sorted(limits)
    rising = all(a[2] < b[2] for a, b in itertools.pairwise(ordered))
    yield Consistency(
        "table limits: commission rises with the limit",
        article,
        rising,
        ", ".join(f"{a}/{b}: {c}" for a, b, c in ordered),
    )
    cap = _normalise(rules.require("fan.cap").value)
    items = rules.table("fan.items")
    over = [k for k in items if _normalise(rules.require(f"fan.items.{k}").value) > cap]
    yield Consistency(
        "fan items within the cap",
        str(rules.require("fan.cap").article),
        not over,
        "all within" if not over else ", ".join(over),
    )


@dataclass(frozen=True)
class BetReturn:
    """One bet's exact house edge under optimal play: submitted configuration and statute."""

    bet: str
    article: str
    submitted: Fraction
    statute: Fraction

    @property
    def difference(self) -> Fraction:
        return self.submitted - self.statute

    def as_json(self) -> dict[str, Any]:
        return {
            "bet": self.bet,
            "article": self.article,
            "house_edge_submitted": str(self.submitted),
            "house_edge_statute": str(self.statute),
            "difference": str(self.difference),
        }


def bet_returns(report: ConfigurationReport, progress: Any = None) -> tuple[BetReturn, ...]:
    """The exact house edge of every bet under the submitted configuration and under the
    statute default (the game-math engine's optimal strategy for each)."""
    game = report.submission.game
    if game == "q-poker":
        return _q_poker_returns(report)
    if game == "caribbean-stud":
        return _caribbean_returns(report, progress)
    return ()


def _q_poker_returns(report: ConfigurationReport) -> tuple[BetReturn, ...]:
    from tablecert.games import q_poker

    mine, law = q_poker.analyze(report.effective_rules), q_poker.analyze(report.statute)
    return (
        BetReturn(
            "多寶 (pair plus)", "第十條", mine.pair_plus.house_edge, law.pair_plus.house_edge
        ),
        BetReturn(
            "與莊荷博彩 (against the dealer, per initial bet)",
            "第九條",
            mine.play.house_edge,
            law.play.house_edge,
        ),
    )


def _caribbean_returns(report: ConfigurationReport, progress: Any) -> tuple[BetReturn, ...]:
    from tablecert.games import caribbean_stud
    from tablecert.games.progressive import progressive
    from tablecert.poker import ordering

    statute, values = report.statute, report.submission.values
    changed = {
        k for k, v in values.items() if _normalise(v) != _normalise(statute.require(k).value)
    }
    # The royal payout and the cap have a fast path in the engine; anything else in the
    # ante/raise paytable needs the full analysis of the configuration in force.
    fast = {"play.raise_pays.royal-flush", "play.cap.maximum_payout"}
    if all(k in fast or k.startswith(("progressive.", "table.")) for k in changed):
        royal_key, cap_key = "play.raise_pays.royal-flush", "play.cap.maximum_payout"
        mine = caribbean_stud.analyze(
            statute,
            royal=_normalise(values.get(royal_key, statute.require(royal_key).value)),
            cap=_normalise(values.get(cap_key, statute.require(cap_key).value)),
            progress=progress,
        )
    else:
        mine = caribbean_stud.analyze(report.effective_rules, progress=progress)
    law = caribbean_stud.analyze(statute, progress=progress)
    tie_breaks = ordering("caribbean-stud", statute).tie_breaks
    jackpot = progressive(report.effective_rules, tie_breaks)
    return (
        BetReturn(
            "原注/加注 (ante and raise, per ante)", "第九条", mine.house_edge, law.house_edge
        ),
        BetReturn(
            "累进大奖 (progressive, at the configured meter)",
            "第十条",
            -jackpot.return_at(jackpot.meter),
            -law.progressive.return_at(law.progressive.meter),
        ),
    )
