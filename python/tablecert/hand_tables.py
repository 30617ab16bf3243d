"""Exact hand-category tables of the poker games, by exhaustive enumeration in the core.

A described stud game's table counts the player's dealt hands (every C(52, player cards)
of them), each in the category of its best ``game.hand_size`` cards; a side bet's table the
bet's hands in the bet's own categories."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from tablecert import _core
from tablecert.exact import decimal_text, exact_json
from tablecert.poker import Ordering, RulesSource, bet_ordering, game_ordering


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


def category_table(game: str, rules: RulesSource = None, bet: str | None = None) -> CategoryTable:
    """Enumerate every hand of ``game`` (a game id or rule file, see
    ``poker.game_ordering``), or of its side bet ``bet`` (its id in the rule file), and count
    each category exactly."""
    order = game_ordering(game, rules) if bet is None else bet_ordering(game, bet, rules)
    counts = _counts(order)
    total = comb(52, order.hand_size if order.stud is None else order.stud.table_cards)
    if sum(counts) != total:  # pragma: no cover - the core enumerates every hand once
        raise AssertionError("enumeration did not cover every hand exactly once")
    rows = tuple(
        CategoryRow(name, article, count)
        for name, article, count in reversed(
            list(zip(order.categories, order.articles, counts, strict=True))
        )
    )
    title = str(order.rules.require("game.title").value)
    if order.stud is not None and order.stud.bet is not None:
        title = f"{title}, {order.stud.bet.name.value}"
    return CategoryTable(order.game, title, order.rules.sha256, total, rows)


def _counts(order: Ordering) -> list[int]:
    """Hands per category, lowest first."""
    if order.stud is None:
        return _core.category_counts(order.hand_size, order.tie_breaks)
    by_rank = _core.stud_category_counts(
        order.stud.ranking, list(range(52)), order.stud.table_cards
    )
    return [sum(row) for row in by_rank]
