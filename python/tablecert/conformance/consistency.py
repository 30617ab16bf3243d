"""The statute's self-consistency checks on a configuration in force.

What a lab expects of any configuration, whoever wrote it: hand categories rarer as they rank
higher, payouts never falling as the hand rises, every outcome paid exactly once, and for
mahjong one commission per table limit, rising with it, and every fan item within the cap.
A check that cannot run on the submitted values fails, saying why (:func:`safe_consistency`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from tablecert.errors import RulesError, TableCertError
from tablecert.judgement import Outcome
from tablecert.rules import RuleFile
from tablecert.rules.constraints import invalid
from tablecert.rules.numbers import normalise, number
from tablecert.rules.stud import Cited, describe, is_stud

if TYPE_CHECKING:
    from tablecert.hand_tables import CategoryTable


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


# Per-category paytables: (table, article, whether payouts must rise with the hand). The
# progressive's fixed prizes need not: royal and straight flush are paid from the meter.
PAYTABLES: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "q-poker": (("pair_plus", "第十條", True), ("play.win", "第九條(七)", True)),
    "caribbean-stud": (
        ("play.raise_pays", "第九条(五)", True),
        ("progressive.fixed", "第十条(二)", False),
    ),
}


def safe_consistency(rules: RuleFile) -> Iterator[Consistency]:
    """The consistency checks; one that cannot run on the submitted values fails, saying why."""
    try:
        yield from consistency_checks(rules)
    except (RulesError, TableCertError, ValueError, TypeError, ZeroDivisionError) as exc:
        article = str(rules.require("game.id").article)
        yield Consistency("the configuration in force can be analysed", article, False, str(exc))


def consistency_checks(rules: RuleFile) -> Iterator[Consistency]:
    """The checks a lab expects of any configuration in force: hand categories rarer as they
    rank higher, payouts never falling as the hand rises (in the engine's order of the
    categories), every outcome paid exactly once."""
    from tablecert.hand_tables import category_table

    game = rules.game
    if game not in PAYTABLES and is_stud(rules):
        yield from _described_checks(rules)
        return
    if game not in PAYTABLES:
        yield from _mahjong_limits(rules)
        return
    table = category_table(game, rules)
    yield _rarity(table, rules)
    order = tuple(row.category.replace(" ", "-") for row in reversed(table.rows))
    for paytable, article, rising in PAYTABLES[game]:
        yield from _paytable_checks(rules, paytable, article, order, rising)
    if "side_bets" in rules.data:  # a file's side bets besides the statute's own tables
        for bet in describe(rules).side_bets:
            if bet.id != "pair_plus":
                yield _rising(list(zip(reversed(bet.categories), bet.pays, strict=True)))


def _rarity(table: CategoryTable, rules: RuleFile) -> Consistency:
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


def _described_checks(rules: RuleFile) -> Iterator[Consistency]:
    """A game described by its rule file: every pay table by category (the raise's, the
    bonus's, each side bet's) never falling as the hand rises, in the file's own order of
    its categories. Its categories' rarity is not judged: their order is the game's rules,
    not a setting (published rules may rank a category above a rarer one), so no
    configuration could make it go the other way."""
    d = describe(rules)
    s = d.settlement
    wins = tuple(p.ante if s.action == "follow" else p.per_raise for p in s.win)
    names = tuple(reversed(d.ranking.names))  # by position, lowest first
    tables = [(wins, names), (s.bonus, names)]
    tables += [(bet.pays, tuple(reversed(bet.categories))) for bet in d.side_bets]
    for pays, by_position in tables:
        present = [(n, p) for n, p in zip(by_position, pays, strict=True) if rules.get(p.key)]
        if present:
            yield _rising(present)


def _rising(pays: list[tuple[str, Cited[Fraction]]]) -> Consistency:
    """One pay table by category, lowest category first: never falling as the hand rises."""
    table = pays[0][1].key.rsplit(".", 1)[0]
    falls = [
        f"{high} {b.value} < {low} {a.value}"
        for (low, a), (high, b) in itertools.pairwise(pays)
        if b.value < a.value
    ]
    return Consistency(
        f"{table}: payouts never fall as the hand rises",
        pays[-1][1].article,
        not falls,
        "monotone" if not falls else "; ".join(falls),
    )


def _mahjong_limits(rules: RuleFile) -> Iterator[Consistency]:
    rows = rules.require("payment.limits").value
    article = rules.require("payment.limits").article
    problem = invalid([[0, 0, 0]], rows)
    if problem:
        yield Consistency(
            "table limits: each limit has exactly one commission", article, False, problem
        )
        return
    limits = [tuple(normalise(v) for v in row) for row in rows]
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
