"""A casino's submitted configuration, read strictly, and the statute with its values in force.

A configuration is written in the rule files' own terms: the same tables and keys as the
game's statute rule file (``fixtures/rules/<game>.macau.toml``), with plain values instead of
``{ value, article }`` tables, plus a ``[submission]`` table naming the game:

    [submission]
    game = "caribbean-stud"
    casino = "Example Casino"

    [play.raise_pays]
    royal-flush = 80          # the house's option, 50..100 (第九条(五)(9), 第十三条)

A game with no statute of its own, described by its rule file alone (a stud poker game), is
named as every command names it: by its bundled rule file (``game = "<file name>"``), or by
the id of such games with the lab's file given apart (``tablecert check --rules FILE``). A
configuration never names a path: it cannot make tablecert read a file it was not given.

What cannot be read as data is a ``ConfigurationError`` naming the file, line and key: a key
the rule file does not have (anywhere, ``[submission]`` included), a key given twice (also
once dotted and once as a table), a number that is not finite, has a zero denominator or is
too large to be a setting, nesting deeper than a configuration has, a value the statute rule
file marks as its own text (``submittable = false``, or a bound of a ``range``).

:func:`in_force` gives "the statute with these submitted values in force" (an
:class:`EffectiveRules`) to whatever settles or analyses under a submission: the round audit,
the configuration check, the report.
"""

from __future__ import annotations

import collections
import copy
import hashlib
import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from tablecert.bundled import bundled_games
from tablecert.errors import TableCertError
from tablecert.io import strict_json, toml_input
from tablecert.io.locate import json_keys, toml_keys
from tablecert.notation import written
from tablecert.rules.loader import RuleFile, load_rules, read_utf8
from tablecert.rules.numbers import FRACTION, canonical, plain

STATUTE_RULES = {
    "q-poker": "q-poker.macau",
    "caribbean-stud": "caribbean-stud.macau",
    "mahjong-traditional": "mahjong-traditional.macau",
    "mahjong-simple": "mahjong-simple.macau",
}
# The keys of the [submission] table: what is submitted, and by whom.
SUBMISSION_KEYS = ("game", "casino")
# The keys naming a rule file, not a rule of the game: never submitted.
IDENTITY = ("game.id", "game.variant", "game.title", "game.statute", "game.source")

# Reading limits: a setting is a small number written with few digits; anything larger is
# not a configuration value (and would overflow the exact engines' integer lanes).
MAX_DIGITS = 30
MAX_MAGNITUDE = 10**15
MAX_DEPTH = 8


class ConfigurationError(TableCertError):
    """A submitted configuration is malformed; names the file, line and key."""


@dataclass(frozen=True)
class Submission:
    """A configuration as submitted: every value by its dotted key, where it is written,
    and the file's digest."""

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

    submission: Submission
    statute: RuleFile

    def locate(self, dotted: str) -> tuple[str, str]:
        if dotted in self.submission.values:
            return _at(self.submission.path, self.submission.line_of(dotted)), ""
        return self.statute.locate(dotted)


@cache
def described_games() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The games described by their rule files alone (no statute file of their own), read
    from the bundled files once (they are part of the install): (their game ids, the names
    of their bundled files)."""
    poker = bundled_games(having="deal")
    games = {g: names for g, names in poker.items() if g not in STATUTE_RULES}
    return tuple(games), tuple(sorted(name for names in games.values() for name in names))


def game_names() -> tuple[str, ...]:
    """Every name ``[submission] game`` accepts: a statute's game id, a described game's
    bundled file, or the id of described games (its file given apart)."""
    ids, files = described_games()
    return (*STATUTE_RULES, *files, *ids)


def bundled_rules(submission: Submission) -> str:
    """The name of the bundled rule file a submission's game is judged against: its
    statute's, or a described game's own file. The id of described games names no bundled
    file: its file is given apart, which only ``tablecert check --rules`` takes."""
    ids, files = described_games()
    if submission.game in ids:
        raise submission.error(
            "submission.game",
            f"{submission.game!r} names a game described by its rule file, and none is given "
            f"here: name a bundled one ({', '.join(files)})",
        )
    return STATUTE_RULES.get(submission.game, submission.game)


def statute_rules(submission: Submission, rules: str | Path | RuleFile | None = None) -> RuleFile:
    """The rule file a submission is judged against: the bundled statute file of its game (or
    a described game's bundled file), or ``rules`` (a lab's copy of it), which must be of the
    submission's game: the same game id, and for a described game named by its bundled file
    the same ``game.variant``."""
    return _rules_for(submission.path, submission.game, rules, submission.where)


def _rules_for(
    path: Path, game: str, rules: str | Path | RuleFile | None, where: Mapping[str, int]
) -> RuleFile:
    ids, files = described_games()
    if rules is None and game in ids:
        raise ConfigurationError(
            f"{_at(path, where.get('submission.game'))}: submission.game: {game!r} names a "
            "game described by its rule file: give that file (--rules FILE), or name a "
            f"bundled one ({', '.join(files)})"
        )
    bundled = None if game in ids else load_rules(STATUTE_RULES.get(game, game))
    if isinstance(rules, RuleFile):
        statute = rules
    elif rules is not None:
        statute = load_rules(rules)
    else:
        assert bundled is not None
        statute = bundled
    expected = game if bundled is None else bundled.game
    if statute.game != expected:
        raise statute.error("game.id", f"the submission is for {game!r}, not {statute.game!r}")
    if bundled is not None and game in files and statute.variant != bundled.variant:
        raise statute.error(
            "game.variant",
            f"the submission is for {game!r} ({bundled.variant!r}), not {statute.variant!r}",
        )
    return statute


def submittable_keys(statute: RuleFile) -> list[str]:
    """The statute's values a configuration may set, in file order: not the file's identity,
    not the statute's own text (``submittable = false``), not the bounds of a range."""
    keys = list(rule_keys(statute.data))
    bounds = {b for k in keys for b in statute.require(k).range or ()}
    return [
        k for k in keys if k not in IDENTITY and k not in bounds and statute.require(k).submittable
    ]


def in_force(
    submission: Submission | str | Path, rules: str | Path | RuleFile | None = None
) -> EffectiveRules:
    """The statute with the submitted values in force. A submitted key the statute rule file
    does not have, or that is no setting, is refused naming the submission's line."""
    if not isinstance(submission, Submission):
        submission = load_submission(submission, rules)
    statute = statute_rules(submission, rules)
    keys = submittable_keys(statute)
    unknown = sorted(set(submission.values) - set(keys), key=lambda k: submission.line_of(k) or 0)
    if unknown:
        key = unknown[0]
        why = (
            "the statute's own text, not a setting a configuration submits"
            if key in set(rule_keys(statute.data))
            else f"not a rule of {submission.game} (the "
            f"{'statute ' if submission.game in STATUTE_RULES else ''}rule file "
            f"{statute.path.name} has no such key)"
        )
        raise submission.error(key, why)
    merged = copy.deepcopy(dict(statute.data))
    for key in keys:
        if key in submission.values:
            _set(merged, key, canonical(submission.values[key]))
    return EffectiveRules(
        path=submission.path,
        data=merged,
        sha256=hashlib.sha256(json.dumps(plain(merged), sort_keys=True).encode()).hexdigest(),
        lines=statute.lines,
        submission=submission,
        statute=statute,
    )


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    node = data
    for part in dotted.split("."):
        node = node[part]
    node["value"] = value


def _at(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


# --- reading a submission strictly ----------------------------------------------------------


def _key_lines(text: str, lines: tuple[str, ...], is_json: bool) -> list[tuple[str, int]]:
    """Every (dotted key, line) a TOML or JSON text defines, tables included, in file order,
    each time it is written."""
    found = json_keys(text) if is_json else toml_keys(lines)
    return [(".".join(parts), number) for parts, number in found]


def load_submission(path: str | Path, rules: str | Path | RuleFile | None = None) -> Submission:
    """Read a TOML or JSON configuration strictly; errors name the file, line and key.
    ``rules``: the rule file it is judged against, when the lab gives one (its keys are the
    settings a configuration may write)."""
    path = Path(path)
    raw, text = read_utf8(path, ConfigurationError, "configuration")
    text = text.removeprefix("\ufeff")
    lines = tuple(text.splitlines())
    is_json = path.suffix.lower() == ".json"
    located = _key_lines(text, lines, is_json)
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
    if not isinstance(game, str) or game not in game_names():
        raise ConfigurationError(
            f"{_at(path, where.get('submission.game'))}: submission.game: {plain(game)!r} is "
            f"not one of {', '.join(game_names())}"
        )
    casino = submission.get("casino", "")
    if not isinstance(casino, str):
        raise ConfigurationError(
            f"{_at(path, where.get('submission.casino'))}: submission.casino: expected a name "
            f"(a string), got {plain(casino)!r}"
        )
    statute = _rules_for(path, game, rules, where)
    values: dict[str, Any] = {}
    for dotted, value in _flatten(data, frozenset(rule_keys(statute.data))):
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
        match = FRACTION.fullmatch(value)
        if match:
            numerator, denominator = match.group(1), match.group(2)
            if denominator is not None and int(denominator) == 0:
                return f"{written(value)} has a zero denominator"
            if abs(int(numerator)) >= MAX_MAGNITUDE or int(denominator or 1) >= MAX_MAGNITUDE:
                return f"the number {written(value)} is out of range: {limit}"
    return None


def _flatten(
    node: Mapping[str, Any], values: frozenset[str], prefix: str = ""
) -> Iterator[tuple[str, Any]]:
    """(dotted key, value) pairs; a rule value's key is taken whole (a table included)."""
    for key, value in node.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and dotted not in values:
            yield from _flatten(value, values, dotted + ".")
        else:
            yield dotted, value


def rule_keys(node: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """Every dotted key of a rule file that holds a { value, article } table."""
    for key, value in node.items():
        if not isinstance(value, Mapping):
            continue
        dotted = f"{prefix}{key}"
        if "value" in value and "article" in value:
            yield dotted
        else:
            yield from rule_keys(value, dotted + ".")
