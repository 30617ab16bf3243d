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

Every statute value gives one line: ``conforms``, ``deviates`` (expected and submitted; also
every value outside the statute's range or outside what the value can be, such as a
fractional seat count or a share of 1 or more, with the reason), ``house choice`` (the statute
leaves it to the house: shown, and its effect on the return computed), ``reading`` (a point
the statute leaves open; a different value is a different reading, not a deviation), or
``not submitted`` (the statute's value applies). A submission that sets no value the statute
judges is ``inconclusive``.

What cannot be read as data is a ``ConfigurationError`` naming the file, line and key: a key
the rule file does not have (anywhere, ``[submission]`` included), a key given twice (also
once dotted and once as a table), a number that is not finite, has a zero denominator or is
too large to be a setting, nesting deeper than a configuration has.
"""

from __future__ import annotations

import collections
import copy
import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablecert import strict_json, toml_input
from tablecert.errors import RulesError, TableCertError
from tablecert.judgement import Outcome
from tablecert.notation import written
from tablecert.rules import RuleFile, load_rules
from tablecert.rules.loader import key_occurrences, read_utf8

STATUTE_RULES = {
    "q-poker": "q-poker.macau",
    "caribbean-stud": "caribbean-stud.macau",
    "mahjong-traditional": "mahjong-traditional.macau",
    "mahjong-simple": "mahjong-simple.macau",
}
# The keys of the [submission] table: what is submitted, and by whom.
SUBMISSION_KEYS = ("game", "casino")

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
# Tables that are identification or explanation, not constraints: not submittable.
NOT_CONSTRAINTS = (
    "game.id",
    "game.variant",
    "game.title",
    "game.statute",
    "ranking.categories.",
    "play.royal_option.",
)

# What a value can be at all, whatever the statute says (a value outside is judged
# ``deviates`` with this reason): counts are whole numbers, shares are shares.
COUNTS = (  # whole numbers of at least 1
    "game.hand_size",
    "game.players",
    "game.min_players",
    "game.dice",
    "game.sets_in_win",
    "table.seats",
    "wall.stacks_per_row",
    "wall.tiles_per_take",
    "wall.takes_per_player",
    "progressive.players",
)
WHOLE = (*COUNTS, "wall.", "fan.cap", "fan.items.")
POSITIVE = (*COUNTS, "progressive.bet", "play.cap.ante")
NOT_NEGATIVE = (
    "wall.",
    "fan.",
    "progressive.meter",
    "progressive.seed",
    "progressive.fixed.",
    "progressive.royal_meter_share",
    "progressive.straight_flush_meter_share",
    "progressive.contribution",
    "play.cap.maximum_payout",
)
AT_MOST_ONE = ("progressive.royal_meter_share", "progressive.straight_flush_meter_share")
BELOW_ONE = ("progressive.contribution",)

# Reading limits: a setting is a small number written with few digits; anything larger is
# not a configuration value (and would overflow the exact engines' integer lanes).
MAX_DIGITS = 30
MAX_MAGNITUDE = 10**15
MAX_DEPTH = 8


class ConfigurationError(TableCertError):
    """A submitted configuration is malformed; names the file, line and key."""


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
class Consistency:
    """A statute self-consistency check on the configuration in force."""

    name: str
    article: str
    passed: bool
    detail: str

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(not self.passed)


@dataclass(frozen=True)
class Submission:
    path: Path
    game: str
    values: dict[str, Any]  # dotted key -> submitted value (numbers as Decimal, int or "p/q")
    lines: tuple[str, ...]
    sha256: str
    casino: str
    where: Mapping[str, int] = field(default_factory=dict, repr=False)  # dotted key -> line

    def line_of(self, dotted: str) -> int | None:
        """The line a dotted key (or the nearest enclosing key or table) is written on."""
        parts = dotted.split(".")
        for n in range(len(parts), 0, -1):
            found = self.where.get(".".join(parts[:n]))
            if found:
                return found
        return None

    def error(self, dotted: str, message: str) -> ConfigurationError:
        return ConfigurationError(f"{_at(self.path, self.line_of(dotted))}: {dotted}: {message}")


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

    @property
    def verdict(self) -> str:
        return self.outcome.word("conformance")

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS

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


def _at(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def _plain(value: Any) -> Any:
    if isinstance(value, _Missing):
        return None
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# --- reading a submission strictly ----------------------------------------------------------

_FRACTION = re.compile(r"\s*([-+]?\d+)(?:\s*/\s*(\d+))?\s*")


def _toml_key_lines(lines: tuple[str, ...]) -> list[tuple[str, int]]:
    """Every (dotted key, line) a TOML text defines, tables included, in file order."""
    return [(".".join(parts), number) for parts, number in key_occurrences(lines)]


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def _json_key_lines(text: str) -> list[tuple[str, int]]:
    """Every (dotted key, line) a JSON text defines, in file order."""
    out: list[tuple[str, int]] = []
    stack: list[tuple[bool, tuple[str, ...]]] = []  # (is object, path)
    key: str | None = None
    last: tuple[str, int] | None = None
    line, pos = 1, 0
    for match in _JSON_TOKEN.finditer(text):
        line += text.count("\n", pos, match.start())
        pos = match.start()
        token = match.group()
        if token in "{[":
            path = stack[-1][1] if stack else ()
            if stack and stack[-1][0] and key is not None:
                path = (*path, key)
            stack.append((token == "{", path))
            key = None
        elif token in "}]":
            if stack:
                stack.pop()
            key = None
        elif token == ":" and last is not None and stack and stack[-1][0]:
            key = last[0]
            out.append((".".join((*stack[-1][1], key)), last[1]))
        elif token == ",":
            key = None
        if token.startswith('"'):
            try:
                last = (str(json.loads(token)), line)
            except ValueError:
                last = (token, line)
        else:
            last = None
    return out


def load_submission(path: str | Path) -> Submission:
    """Read a TOML or JSON configuration strictly; errors name the file, line and key."""
    path = Path(path)
    raw, text = read_utf8(path, ConfigurationError, "configuration")
    text = text.removeprefix("\ufeff")
    lines = tuple(text.splitlines())
    is_json = path.suffix.lower() == ".json"
    located = _json_key_lines(text) if is_json else _toml_key_lines(lines)
    data = _parse(path, text, lines, is_json, located)
    where: dict[str, int] = {}
    for dotted, number in located:
        where.setdefault(dotted, number)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected a table of settings, got {type(data).__name__}")
    _check_depth(path, data, where)
    submission = data.pop("submission", None)
    if not isinstance(submission, dict) or "game" not in submission:
        raise ConfigurationError(
            f'{_at(path, where.get("submission"))}: missing [submission] table with game = "..."'
        )
    unknown = [
        f"submission.{k}"
        for k, _ in _flatten(submission, frozenset(SUBMISSION_KEYS))
        if k not in SUBMISSION_KEYS
    ]
    if unknown:
        key = unknown[0]
        raise ConfigurationError(
            f"{_at(path, where.get(key))}: {key}: unknown key (the [submission] table has "
            f"{' and '.join(SUBMISSION_KEYS)}; settings go in the rule file's own tables)"
        )
    game = submission["game"]
    if not isinstance(game, str) or game not in STATUTE_RULES:
        raise ConfigurationError(
            f"{_at(path, where.get('submission.game'))}: submission.game: {_plain(game)!r} is "
            f"not one of {', '.join(STATUTE_RULES)}"
        )
    casino = submission.get("casino", "")
    if not isinstance(casino, str):
        raise ConfigurationError(
            f"{_at(path, where.get('submission.casino'))}: submission.casino: expected a name "
            f"(a string), got {_plain(casino)!r}"
        )
    statute = load_rules(STATUTE_RULES[game])
    values: dict[str, Any] = {}
    for dotted, value in _flatten(data, frozenset(_rule_keys(statute.data))):
        if dotted in values:
            found = [n for k, n in located if k == dotted]
            also = f" (also at line {found[0]})" if len(found) > 1 else ""
            raise ConfigurationError(
                f"{_at(path, found[-1] if found else None)}: {dotted}: given twice{also}: "
                "a value may be set only once"
            )
        values[dotted] = value
    return Submission(
        path=path,
        game=game,
        values=values,
        lines=lines,
        sha256=hashlib.sha256(raw).hexdigest(),
        casino=casino,
        where=where,
    )


def _parse(
    path: Path, text: str, lines: tuple[str, ...], is_json: bool, located: list[tuple[str, int]]
) -> Any:
    try:
        if is_json:
            return strict_json.loads(text, str(path), parse_float=Decimal)
        return toml_input.loads(text, path, ConfigurationError, parse_float=Decimal)
    except strict_json.StrictJsonError as exc:  # add the dotted key of the line it names
        found = re.match(r"(.*?):(\d+): (.*)$", str(exc), re.DOTALL)
        if found is None or found.group(3).startswith("invalid JSON"):
            raise ConfigurationError(str(exc)) from None
        number = int(found.group(2))
        before = [k for k, n in located if n <= number]
        key = f"{before[-1]}: " if before else ""
        raise ConfigurationError(f"{found.group(1)}:{number}: {key}{found.group(3)}") from None
    except tomllib.TOMLDecodeError as exc:
        at_line = re.search(r"\(at line (\d+)", str(exc))
        line = int(at_line.group(1)) if at_line else None
        twice = [k for k, n in collections.Counter(k for k, _ in located).items() if n > 1]
        if twice:  # "cannot overwrite a value": say which key and where
            lines_of = [n for k, n in located if k == twice[0]]
            raise ConfigurationError(
                f"{_at(path, lines_of[-1])}: {twice[0]}: given twice (also at line "
                f"{lines_of[0]}): "
                "a value may be set only once"
            ) from None
        raise ConfigurationError(f"{_at(path, line)}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigurationError(
            f"{path}: nested too deeply (a configuration has at most {MAX_DEPTH} levels)"
        ) from None


def _check_depth(path: Path, data: Mapping[str, Any], where: Mapping[str, int]) -> None:
    """Every number finite, small and exactly written; no nesting deeper than a setting has."""
    todo: list[tuple[str, Any, int]] = [(k, v, 1) for k, v in data.items()]
    while todo:
        dotted, value, depth = todo.pop()
        line = next(
            (where[p] for p in _prefixes(dotted) if p in where),
            None,
        )
        if depth > MAX_DEPTH:
            raise ConfigurationError(
                f"{_at(path, line)}: {dotted}: nested too deeply (a configuration has at most "
                f"{MAX_DEPTH} levels)"
            )
        if isinstance(value, Mapping):
            todo.extend((f"{dotted}.{k}", v, depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((dotted, v, depth + 1) for v in value)
        else:
            problem = _unreadable_number(value)
            if problem:
                raise ConfigurationError(f"{_at(path, line)}: {dotted}: {problem}")


def _prefixes(dotted: str) -> Iterator[str]:
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        yield ".".join(parts[:n])


def _unreadable_number(value: Any) -> str | None:
    """Why a value written as a number cannot be a setting (None: it can, or it is no number)."""
    limit = (
        f"a setting is finite, below 10^{len(str(MAX_MAGNITUDE)) - 1} and written with at "
        f"most {MAX_DIGITS} digits"
    )
    if isinstance(value, Decimal):
        if not value.is_finite():
            return f"{value} is not a finite number"
        digits = value.as_tuple().digits
        if len(digits) > MAX_DIGITS or abs(value) >= MAX_MAGNITUDE:
            return f"the number {value} is out of range: {limit}"
    elif isinstance(value, int) and not isinstance(value, bool):
        if abs(value) >= MAX_MAGNITUDE:
            return f"the number {value} is out of range: {limit}"
    elif isinstance(value, str):
        match = _FRACTION.fullmatch(value)
        if match:
            numerator, denominator = match.group(1), match.group(2)
            if denominator is not None and int(denominator) == 0:
                return f"{written(value)} has a zero denominator"
            if abs(int(numerator)) >= MAX_MAGNITUDE or int(denominator or 1) >= MAX_MAGNITUDE:
                return f"the number {written(value)} is out of range: {limit}"
    return None


def _flatten(
    node: Mapping[str, Any], rule_keys: frozenset[str], prefix: str = ""
) -> Iterator[tuple[str, Any]]:
    """(dotted key, value) pairs; a rule key's value is taken whole (a table included)."""
    for key, value in node.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and dotted not in rule_keys:
            yield from _flatten(value, rule_keys, dotted + ".")
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


def number(value: Any) -> Fraction | None:
    """A submitted or statute value as an exact fraction (an integer, a decimal as written, a
    ``"3/2"`` string), or None if it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Decimal):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if isinstance(value, str):
        match = _FRACTION.fullmatch(value)
        if match and int(match.group(2) or 1) != 0:
            return Fraction(int(match.group(1)), int(match.group(2) or 1))
    return None


def _map_numbers(value: Any, convert: Any) -> Any:
    """``value`` with every number in it (nested in lists and tables too) converted."""
    found = number(value)
    if found is not None:
        return convert(found)
    if isinstance(value, list):
        return [_map_numbers(v, convert) for v in value]
    if isinstance(value, Mapping):
        return {k: _map_numbers(v, convert) for k, v in value.items()}
    return value


def _normalise(value: Any) -> Any:
    """Numbers compare as exact fractions, lists and tables element by element."""
    return _map_numbers(value, lambda f: f)


def _canonical(value: Any) -> Any:
    """A submitted value in the rule files' own form: numbers as int or ``"p/q"``."""
    return _map_numbers(value, lambda f: int(f) if f.denominator == 1 else str(f))


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return str(_plain(value))


def _starts(key: str, prefixes: tuple[str, ...]) -> bool:
    return any(key == p or (p.endswith(".") and key.startswith(p)) for p in prefixes)


def invalid(key: str, expected: Any, submitted: Any) -> str | None:
    """Why a submitted value cannot be what the statute's value is (None: it can): a number
    for a number, a whole count, a share below 1, the same kind of list or table."""
    if key in ONE_OF:
        if not isinstance(submitted, str):
            return (
                f"expected one name ({' or '.join(map(str, expected))}), got {_describe(submitted)}"
            )
        return None
    if number(expected) is not None:
        value = number(submitted)
        if value is None:
            return f"{_describe(submitted)} is not a number: nothing can be computed under it"
        if _starts(key, WHOLE) and value.denominator != 1:
            return f"{value} is not a whole number"
        if _starts(key, POSITIVE) and value <= 0:
            return f"{value} is not positive"
        if _starts(key, NOT_NEGATIVE) and value < 0:
            return f"{value} is negative"
        if _starts(key, AT_MOST_ONE) and value > 1:
            return f"{value} is a share above 1 (all of it)"
        if _starts(key, BELOW_ONE) and value >= 1:
            return f"{value} is not a share of each bet (it must be below 1)"
        return None
    if isinstance(expected, bool):
        return (
            None if isinstance(submitted, bool) else f"{_describe(submitted)} is not true or false"
        )
    if isinstance(expected, str):
        return (
            None
            if isinstance(submitted, str)
            else f"expected a name like {expected!r}, got {_describe(submitted)}"
        )
    if isinstance(expected, list):
        if not isinstance(submitted, list):
            return f"expected a list like {_plain(expected)}, got {_describe(submitted)}"
        if expected and isinstance(expected[0], list):  # rows, e.g. payment.limits
            width = len(expected[0])
            for i, row in enumerate(submitted, start=1):
                if not isinstance(row, list) or len(row) != width:
                    return f"row {i} is not a list of {width} values"
                if any(number(v) is None for v in row) and all(
                    number(v) is not None for v in expected[0]
                ):
                    return f"row {i} has a value that is not a number"
        return None
    if isinstance(expected, Mapping):
        if not isinstance(submitted, Mapping):
            return f"expected a table like {_plain(expected)}, got {_describe(submitted)}"
        extra = sorted(set(submitted) - set(expected))
        if extra:
            return (
                f"unknown entr{'y' if len(extra) == 1 else 'ies'} {', '.join(extra)} (the "
                f"statute's table has {', '.join(expected)})"
            )
        return None
    return None


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
    unknown = sorted(set(submission.values) - set(keys), key=lambda k: submission.line_of(k) or 0)
    if unknown:
        key = unknown[0]
        why = (
            "the statute's own text, not a setting a configuration submits"
            if key in set(_rule_keys(statute.data))
            else f"not a rule of {submission.game} (the statute rule file "
            f"{statute.path.name} has no such key)"
        )
        raise submission.error(key, why)
    kinds = _Kinds(
        HOUSE_CHOICES.get(submission.game, ()),
        RANGES.get(submission.game, {}),
        AT_LEAST.get(submission.game, ()),
    )
    merged = copy.deepcopy(dict(statute.data))
    lines = []
    for key in keys:
        rule = statute.require(key)
        submitted = submission.values.get(key, _MISSING)
        if submitted is not _MISSING:
            _set(merged, key, _canonical(submitted))
        lines.append(_judge(key, rule.value, rule.article, rule.reading, submitted, statute, kinds))
    effective = EffectiveRules(
        path=submission.path,
        data=merged,
        sha256=hashlib.sha256(json.dumps(_plain(merged), sort_keys=True).encode()).hexdigest(),
        lines=statute.lines,
        submission=submission,
        statute=statute,
    )
    return ConfigurationReport(
        submission, statute, tuple(lines), tuple(_safe_consistency(effective)), effective
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
    problem = None if submitted is _MISSING else invalid(key, expected, submitted)
    if key in ranges:
        low_key, high_key, duty = ranges[key]
        low = _normalise(statute.require(low_key).value)
        high = _normalise(statute.require(high_key).value)
        shown = f"{low}..{high}"
        if submitted is _MISSING:
            note = f"the statute's range is {shown}; the rule file's default applies"
            return Line(key, article, Outcome.NOT_APPLICABLE, expected, submitted, note)
        if problem:
            return Line(key, article, Outcome.FAIL, shown, submitted, problem)
        value = number(submitted)
        assert value is not None
        if low <= value <= high:
            return Line(key, article, Outcome.PASS, shown, submitted, duty, duty=duty)
        side = "above the statute's maximum" if value > high else "below the statute's minimum"
        note = f"{value} is {side} {high if value > high else low}; {duty}"
        return Line(key, article, Outcome.FAIL, shown, submitted, note)
    if problem:
        shown = f">= {expected}" if key in kinds.at_least else expected
        return Line(key, article, Outcome.FAIL, shown, submitted, problem)
    if submitted is not _MISSING and key in kinds.at_least:
        ok = _normalise(submitted) >= _normalise(expected)
        return Line(key, article, Outcome.of(not ok), f">= {expected}", submitted)
    if submitted is not _MISSING and key in ONE_OF:
        ok = submitted in expected
        shown = " or ".join(map(str, expected))
        return Line(key, article, Outcome.of(not ok), shown, submitted)
    if _starts(key, choices):
        note = "the statute leaves this to the house"
        return Line(key, article, Outcome.HOUSE_CHOICE, expected, submitted, note)
    if submitted is _MISSING:
        note = "the statute's value applies"
        return Line(key, article, Outcome.NOT_APPLICABLE, expected, submitted, note)
    same = _normalise(submitted) == _normalise(expected)
    if reading:
        note = "a point the statute leaves open" + ("" if same else ": a different reading")
        return Line(key, article, Outcome.PASS, expected, submitted, note, reading=True)
    return Line(key, article, Outcome.of(not same), expected, submitted)


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


def _safe_consistency(rules: RuleFile) -> Iterator[Consistency]:
    """The consistency checks; one that cannot run on the submitted values fails, saying why."""
    try:
        yield from consistency_checks(rules)
    except (RulesError, TableCertError, ValueError, TypeError, ZeroDivisionError) as exc:
        article = str(rules.require("game.id").article)
        yield Consistency("the configuration in force can be analysed", article, False, str(exc))


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
    numbers = [number(rules.require(f"{table}.{c}").value) for c in present]
    if None in numbers:
        bad = [f"{table}.{c}" for c, v in zip(present, numbers, strict=True) if v is None]
        yield Consistency(
            f"{table}: payouts never fall as the hand rises",
            article,
            False,
            f"cannot be compared: {', '.join(bad)} is not a number",
        )
        return
    values = [v for v in numbers if v is not None]
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
    problem = invalid("payment.limits", [[0, 0, 0]], rows)
    if problem:
        yield Consistency(
            "table limits: each limit has exactly one commission", article, False, problem
        )
        return
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
    cap = number(rules.require("fan.cap").value)
    items = rules.table("fan.items")
    fans = {k: number(rules.require(f"fan.items.{k}").value) for k in items}
    over = [k for k, fan in fans.items() if cap is None or fan is None or fan > cap]
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
    submitted: Fraction | None  # None: cannot be computed under the submitted values
    statute: Fraction
    why_not: str = ""

    @property
    def difference(self) -> Fraction | None:
        return None if self.submitted is None else self.submitted - self.statute

    def as_json(self) -> dict[str, Any]:
        difference = self.difference
        return {
            "bet": self.bet,
            "article": self.article,
            "house_edge_submitted": None if self.submitted is None else str(self.submitted),
            "house_edge_statute": str(self.statute),
            "difference": None if difference is None else str(difference),
            "not_computed": self.why_not or None,
        }


# What an exact engine raises when the submitted values cannot be analysed.
NOT_COMPUTABLE = (
    RulesError,
    TableCertError,
    ValueError,
    TypeError,
    ZeroDivisionError,
    OverflowError,
)


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

    law = q_poker.analyze(report.statute)
    bets = (
        ("多寶 (pair plus)", "第十條", law.pair_plus.house_edge),
        ("與莊荷博彩 (against the dealer, per initial bet)", "第九條", law.play.house_edge),
    )
    try:
        mine = q_poker.analyze(report.effective_rules)
    except NOT_COMPUTABLE as exc:
        return tuple(
            BetReturn(bet, article, None, edge, _why_not(exc)) for bet, article, edge in bets
        )
    return (
        BetReturn(*bets[0][:2], mine.pair_plus.house_edge, bets[0][2]),
        BetReturn(*bets[1][:2], mine.play.house_edge, bets[1][2]),
    )


def _why_not(exc: BaseException) -> str:
    return f"cannot be computed under the submitted values: {exc}"


def _caribbean_returns(report: ConfigurationReport, progress: Any) -> tuple[BetReturn, ...]:
    from tablecert.games import caribbean_stud
    from tablecert.games.progressive import grouped, progressive
    from tablecert.poker import ordering

    statute, values = report.statute, report.submission.values
    law = caribbean_stud.analyze(statute, progress=progress)
    ante_bet = ("原注/加注 (ante and raise, per ante)", "第九条", law.house_edge)
    changed = {
        k for k, v in values.items() if _normalise(v) != _normalise(statute.require(k).value)
    }
    # The royal payout and the cap have a fast path in the engine; anything else in the
    # ante/raise paytable needs the full analysis of the configuration in force. A royal
    # payout outside the statute's range is computed too: the check judges the range.
    royal_key, cap_key = "play.raise_pays.royal-flush", "play.cap.maximum_payout"
    royal = number(values.get(royal_key, statute.require(royal_key).value))
    cap = number(values.get(cap_key, statute.require(cap_key).value))
    fast = {royal_key, cap_key}
    try:
        if (
            royal is not None
            and cap is not None
            and all(k in fast or k.startswith(("progressive.", "table.")) for k in changed)
        ):
            mine = caribbean_stud.analyze(
                statute, royal=royal, cap=cap, progress=progress, royal_in_range=False
            )
        else:
            mine = caribbean_stud.analyze(
                report.effective_rules, progress=progress, royal_in_range=False
            )
        ante = BetReturn(ante_bet[0], ante_bet[1], mine.house_edge, ante_bet[2])
    except NOT_COMPUTABLE as exc:
        ante = BetReturn(ante_bet[0], ante_bet[1], None, ante_bet[2], _why_not(exc))
    # The meter is the house's, not the statute's: both edges are taken at the submitted
    # meter, so the difference is that of the prizes and shares alone.
    jackpot_bet = "累进大奖 (progressive, statute and submission at the submitted meter)"
    try:
        tie_breaks = ordering("caribbean-stud", statute).tie_breaks
        jackpot = progressive(report.effective_rules, tie_breaks)
    except NOT_COMPUTABLE as exc:
        at_statute = -law.progressive.return_at(law.progressive.meter)
        return ante, BetReturn(jackpot_bet, "第十条", None, at_statute, _why_not(exc))
    meter = jackpot.meter
    return ante, BetReturn(
        f"累进大奖 (progressive, statute and submission at the submitted meter {grouped(meter)})",
        "第十条",
        -jackpot.return_at(meter),
        -law.progressive.return_at(meter),
    )
