"""What the game analyses share: exact rule values, return-table rows and the on-disk cache."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from tablecert import _core
from tablecert.equality import ContentEq
from tablecert.errors import TableCertError
from tablecert.exact import exact_json
from tablecert.notation import written
from tablecert.rules import RuleFile

RANK_CODES = "23456789TJQKA"


class AnalysisError(TableCertError):
    """An analysis cannot be run as asked (e.g. an option outside the statute's range)."""


def rational(rules: RuleFile, dotted: str) -> Fraction:
    """A rule value as an exact fraction: an integer or a string such as ``"3/2"``."""
    value = rules.value_of(dotted, (int, str))
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise rules.error(
            dotted, f"expected an integer or a fraction like '3/2', got {written(value)}"
        ) from None


def qualifier_ranks(rules: RuleFile, dotted: str) -> list[int]:
    """The dealer's minimum high-card ranks (``["A", "K"]``) as rank indices (2 = 0 .. A = 12)."""
    value = rules.value_of(dotted, list)
    codes = [str(v).upper().replace("10", "T") for v in value]
    if not codes or any(len(c) != 1 or c not in RANK_CODES for c in codes):
        raise rules.error(dotted, f"expected a list of ranks like ['A', 'K'], got {written(value)}")
    return [RANK_CODES.index(c) for c in codes]


def per_category(rules: RuleFile, table: str, categories: Sequence[str]) -> tuple[Fraction, ...]:
    """One exact value per category (lowest category first) from a rule table."""
    return tuple(rational(rules, f"{table}.{name.replace(' ', '-')}") for name in categories)


def common_denominator(values: Sequence[Fraction]) -> int:
    return math.lcm(*(v.denominator for v in values))


def decimal(value: Fraction, places: int = 6) -> str:
    """A fraction rounded half-up for display (never used in a computation)."""
    scaled = value * 10**places
    rounded = math.floor(scaled + Fraction(1, 2))
    sign = "-" if rounded < 0 else ""
    digits = str(abs(rounded)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def fraction_json(value: Fraction) -> dict[str, Any]:
    """An exact value in the one JSON form (:func:`tablecert.exact.exact_json`)."""
    return dict(exact_json(value))


@dataclass(frozen=True)
class OutcomeRow:
    """One line of a return table: an event, what it pays, how often, its share of the return."""

    event: str
    article: str
    value: Fraction
    count: int
    total: int
    pay: str = ""  # the pay as par sheets state it, where the value alone does not say it

    @property
    def pays(self) -> str:
        """What the outcome pays, "n to 1" (or the stated pay of a compound bet)."""
        return self.pay or pay_text(self.value)

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, self.total)

    @property
    def contribution(self) -> Fraction:
        return self.probability * self.value

    def as_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "article": self.article,
            "value": fraction_json(self.value),
            "pays": self.pays,
            "count": self.count,
            "probability": fraction_json(self.probability),
            "return": fraction_json(self.contribution),
        }


def pay_text(value: Fraction) -> str:
    """Units won per unit staked as a pay: 40 -> "40 to 1", 3/2 -> "3 to 2", 0 -> "push",
    -1 -> "loses 1"."""
    if value == 0:
        return "push"
    if value < 0:
        return f"loses {-value}"
    return f"{value.numerator} to {value.denominator}"


def expected_value(rows: Iterable[OutcomeRow]) -> Fraction:
    """The exact expected value of a return table: the sum of its rows' contributions."""
    return sum((r.contribution for r in rows), Fraction(0))


class Returns:
    """What a bet's return table gives (a mixin for the frozen dataclasses holding one as
    ``rows``): the exact expected value per unit staked and the house edge, its negation."""

    rows: tuple[OutcomeRow, ...]

    @property
    def expected_value(self) -> Fraction:
        return expected_value(self.rows)

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_value


@dataclass(frozen=True, eq=False)
class ParSheet(ContentEq):
    """What every analysis result names: the rule file it came from and its ordering."""

    title: str
    rules_path: str
    rules_sha256: str
    suit_decides: bool

    def header_json(self, game: str) -> dict[str, Any]:
        return {
            "game": game,
            "title": self.title,
            "rules": self.rules_path,
            "rules_sha256": self.rules_sha256,
            "ordering": "statute" if self.suit_decides else "rank-only",
        }


@cache
def core_build() -> str:
    """The core's version and the SHA-256 of its compiled library: a rebuilt core never reads
    answers cached by another build."""
    library = Path(_core.__file__ or "")
    digest = hashlib.sha256(library.read_bytes()).hexdigest() if library.is_file() else ""
    return f"{_core.__version__}+{digest}"


def cache_key(kind: str, rules: RuleFile, extra: Any = None) -> str:
    """Key a cached result by the rule file's content, the core's build and the parameters."""
    text = json.dumps([kind, rules.sha256, core_build(), extra], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()
