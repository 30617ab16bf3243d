"""Exact hand-category tables of the poker games, by exhaustive enumeration in the core."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from tablecert import _core
from tablecert.exact import decimal_text, exact_json
from tablecert.poker import RulesSource, ordering


@dataclass(frozen=True)
class CategoryRow:
    category: str
    article: str
    count: int


@dataclass(frozen=True)
class CategoryTable:
    """How many of all C(52, k) hands fall in each category, best category first."""

    game: str
    title: str
    rules_sha256: str
    total: int
    rows: tuple[CategoryRow, ...]

    def probability(self, category: str) -> Fraction:
        row = next(r for r in self.rows if r.category == category)
        return Fraction(row.count, self.total)

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "title": self.title,
            "rules_sha256": self.rules_sha256,
            "total": self.total,
            "categories": [
                {
                    "category": r.category,
                    "article": r.article,
                    "count": r.count,
                    "probability": exact_json(Fraction(r.count, self.total)),
                    "one_in": decimal_text(Fraction(self.total, r.count), 4) if r.count else None,
                }
                for r in self.rows
            ],
        }


def category_table(game: str, rules: RulesSource = None) -> CategoryTable:
    """Enumerate every hand of ``game`` and count each category exactly."""
    order = ordering(game, rules)
    counts = _core.category_counts(order.hand_size, order.tie_breaks)
    total = comb(52, order.hand_size)
    if sum(counts) != total:  # pragma: no cover - the core enumerates every hand once
        raise AssertionError("enumeration did not cover every hand exactly once")
    rows = tuple(
        CategoryRow(name, article, count)
        for name, article, count in reversed(
            list(zip(order.categories, order.articles, counts, strict=True))
        )
    )
    title = str(order.rules.require("game.title").value)
    return CategoryTable(game, title, order.rules.sha256, total, rows)
