"""Exhaustive crosscheck of a vendor's poker evaluator against the statute ordering.

Four checks, each request answered by the evaluator and compared with the core:

1. categories: every one of the C(52, k) hands (22,100 or 2,598,960), or a seeded sample;
2. adjacent rank classes: for every two consecutive classes of the ordering (hands equal but
   for suits), a disjoint pair; together they pin down the order of categories and ranks;
3. suit-decided pairs: disjoint hands of equal ranks that the statute decides by suit (where
   vendors go wrong): the complete set for Q Poker, a seeded stratified sample for Caribbean
   Stud (the complete set has hundreds of millions of pairs; ``suit_pairs=None`` asks for all);
4. other pairs: a seeded random sample of disjoint hand pairs;
5. settlements: for every outcome of every bet (each category of 多寶; fold, dealer not
   qualifying, a win by each category, a loss), seeded deals whose net amount the evaluator
   must give exactly.

Mismatches are grouped by category, by the tie-break step and article that decides the pair,
and by what the evaluator answered, so the report names the defect ("answers PUSH where
第八條(五) decides by the kicker's suit").
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.conformance.evaluator_protocol import Answerer, EvaluatorError
from tablecert.errors import CrosscheckError
from tablecert.games.common import qualifier_ranks, rational
from tablecert.hand_arrays import strength_keys
from tablecert.poker import Ordering, RulesSource, check_game, ordering
from tablecert.rounds.settle import per_unit

CODES = tuple(_core.card_code(c) for c in range(52))
MAX_SAMPLE = 2_000_000
"""The largest sample of one check in one run: every request is held in memory with its
expected answer (about half a kilobyte each)."""
RANK_FIELDS = 5
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Mismatch:
    request: str
    expected: str
    got: str
    category: str
    step: str
    article: str


@dataclass(frozen=True)
class DefectGroup:
    """Mismatches sharing a category, deciding step and kind of wrong answer."""

    category: str
    step: str
    article: str
    answer: str
    count: int
    of: int
    common_features: tuple[str, ...]

    @property
    def description(self) -> str:
        features = (
            f"; every case involves {', '.join(self.common_features)}"
            if (self.common_features)
            else ""
        )
        return (
            f"{self.article} ({self.category}, decided by {self.step}): evaluator {self.answer} "
            f"in {self.count:,} of {self.of:,} such cases{features}"
        )


@dataclass(frozen=True)
class CheckResult:
    name: str
    checked: int
    mismatches: int
    groups: tuple[DefectGroup, ...]
    first: tuple[Mismatch, ...]
    seconds: float
    #: Why the evaluator did not answer every request (crashed, raised, exited, hung, answered
    #: out of protocol), or why the check did not run: a failed check, never a pass.
    error: str = ""

    @property
    def verdict(self) -> str:
        """``deviates`` on any wrong answer or evaluator failure; ``inconclusive`` if nothing
        was asked."""
        if self.mismatches or self.error:
            return "deviates"
        return "conforms" if self.checked > 0 else "inconclusive"

    @property
    def passed(self) -> bool:
        return self.verdict == "conforms"

    @property
    def rate(self) -> float:
        return self.checked / self.seconds if self.seconds > 0 and self.checked else 0.0


@dataclass(frozen=True)
class CrosscheckReport:
    game: str
    rules_file: str
    rules_sha256: str
    evaluator: str
    seed: int
    checks: tuple[CheckResult, ...]
    complete_suit_pairs: int | None = field(default=None)

    @property
    def verdict(self) -> str:
        """``deviates`` if any check does; ``inconclusive`` if any check asked nothing."""
        verdicts = {c.verdict for c in self.checks}
        if "deviates" in verdicts:
            return "deviates"
        return "conforms" if verdicts == {"conforms"} else "inconclusive"

    @property
    def passed(self) -> bool:
        return self.verdict == "conforms"

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules_file": self.rules_file,
            "rules_sha256": self.rules_sha256,
            "evaluator": self.evaluator,
            "seed": self.seed,
            "verdict": self.verdict,
            "complete_suit_pairs": self.complete_suit_pairs,
            "checks": [
                {
                    "name": c.name,
                    "checked": c.checked,
                    "mismatches": c.mismatches,
                    "verdict": c.verdict,
                    "error": c.error or None,
                    "requests_per_second": round(c.rate),
                    "defects": [
                        {
                            "article": g.article,
                            "category": g.category,
                            "step": g.step,
                            "answer": g.answer,
                            "count": g.count,
                            "of": g.of,
                            "common_features": list(g.common_features),
                            "description": g.description,
                        }
                        for g in c.groups
                    ],
                    "first_mismatches": [
                        {
                            "request": m.request,
                            "expected": m.expected,
                            "got": m.got,
                            "category": m.category,
                            "step": m.step,
                            "article": m.article,
                        }
                        for m in c.first
                    ],
                }
                for c in self.checks
            ],
        }


def _hand_text(cards: npt.NDArray[np.uint8]) -> str:
    return " ".join(CODES[c] for c in sorted((int(x) for x in cards), reverse=True))


class _Tables:
    """Every hand of the game (lexicographic order), its statute key and its card mask."""

    def __init__(self, game: str, rules: RulesSource) -> None:
        self.order = ordering(game, rules)
        size = self.order.hand_size
        n = comb(52, size)
        flat = itertools.chain.from_iterable(itertools.combinations(range(52), size))
        self.hands = np.fromiter(flat, dtype=np.uint8, count=n * size).reshape(n, size)
        self.keys = strength_keys(game, self.hands, self.order.rules)
        self.rank_keys = self.keys & ~np.uint32(3)  # the suit field cleared
        self.masks = np.zeros(n, dtype=np.uint64)
        for column in range(size):
            self.masks |= np.left_shift(np.uint64(1), self.hands[:, column].astype(np.uint64))
        self.categories = (self.keys >> np.uint32(22)).astype(np.int64)

    def text(self, i: int) -> str:
        return _hand_text(self.hands[i])

    def expected_winner(self, a: int, b: int) -> str:
        ka, kb = int(self.keys[a]), int(self.keys[b])
        return "A" if ka > kb else "B" if ka < kb else "PUSH"


def _fields(key: int) -> tuple[int, ...]:
    category, ranks, suit = _core.key_fields(key)
    return (category, *ranks, suit)


def _deciding_step(order: Ordering, ka: int, kb: int) -> tuple[str, str, str]:
    """(category, step, article) that decides a pair with keys ka, kb."""
    fa, fb = _fields(ka), _fields(kb)
    category = order.categories[max(fa[0], fb[0])]
    if fa[0] != fb[0]:
        return category, "category", str(order.rules.require("ranking.ordering").article)
    steps = order.steps[fa[0]]
    article = order.articles[fa[0]]
    for i in range(1, RANK_FIELDS + 1):
        if fa[i] != fb[i]:
            return category, steps[min(i - 1, len(steps) - 1)], article
    return category, steps[-1], article


def _features(order: Ordering, keys: tuple[int, ...]) -> set[str]:
    """Named hand features of the hands in one case, used to describe a defect."""
    found: set[str] = set()
    low_top = 1 if order.hand_size == 3 else 3  # the 3 of A-2-3, the 5 of 5-4-3-2-A
    for key in keys:
        fields = _fields(key)
        name = order.categories[fields[0]]
        if name in ("straight", "straight flush") and fields[1] == low_top:
            found.add(
                "an ace-low straight (" + ("A-2-3" if order.hand_size == 3 else "5-4-3-2-A") + ")"
            )
    return found


class _Collector:
    """Tallies one check's cases and mismatches, grouped into named defects."""

    def __init__(self, name: str, order: Ordering, keep: int) -> None:
        self.name = name
        self.order = order
        self.keep = keep
        self.checked = 0
        self.mismatches = 0
        self.first: list[Mismatch] = []
        self.cases: Counter[tuple[str, str, str]] = Counter()
        self.wrong: Counter[tuple[str, str, str, str]] = Counter()
        self.features: dict[tuple[str, str, str, str], set[str]] = {}

    def add(
        self,
        request: str,
        expected: str,
        got: str,
        where: tuple[str, str, str],
        keys: tuple[int, ...],
    ) -> None:
        self.checked += 1
        self.cases[where] += 1
        if _same_answer(expected, got, where[1] == "settlement"):
            return
        self.mismatches += 1
        answer = _answer_kind(expected, got)
        group = (*where, answer)
        self.wrong[group] += 1
        features = _features(self.order, keys)
        self.features[group] = self.features.get(group, features) & features
        if len(self.first) < self.keep:
            self.first.append(Mismatch(request, expected, got, *where))

    def result(self, seconds: float, error: str = "") -> CheckResult:
        groups = tuple(
            DefectGroup(
                category,
                step,
                article,
                answer,
                count,
                self.cases[(category, step, article)],
                tuple(sorted(self.features[(category, step, article, answer)])),
            )
            for (category, step, article, answer), count in self.wrong.most_common()
        )
        return CheckResult(
            self.name, self.checked, self.mismatches, groups, tuple(self.first), seconds, error
        )


def _same_answer(expected: str, got: str, amount: bool) -> bool:
    if not amount:
        return _normalise(got) == _normalise(expected)
    try:
        return Fraction(got.strip()) == Fraction(expected)
    except (ValueError, ZeroDivisionError):
        return False


def _normalise(answer: str) -> str:
    return " ".join(answer.strip().lower().replace("_", " ").replace("-", " ").split())


def _answer_kind(expected: str, got: str) -> str:
    g = _normalise(got)
    if expected in ("A", "B"):
        if g == "push":
            return "answers PUSH"
        if g in ("a", "b"):
            return "reverses the order"
        return f"answers {got!r}"
    return f"answers {got!r} for {expected!r}"


def category_requests(
    tables: _Tables, sample: int | None, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Hand indices for the category check: all hands, or a seeded sample."""
    n = len(tables.keys)
    if sample is None or sample >= n:
        return np.arange(n, dtype=np.int64)
    return np.sort(rng.choice(n, size=sample, replace=False)).astype(np.int64)


def suit_decided_pairs(
    tables: _Tables, sample: int | None, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Disjoint pairs of equal ranks that only suit decides: all of them, or a sample
    stratified by category (equal numbers per category that has such pairs)."""
    order = np.argsort(tables.rank_keys, kind="stable")
    sorted_keys = tables.rank_keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    ends = np.r_[starts[1:], len(order)]
    if sample is None:
        pairs = []
        for s, e in zip(starts, ends, strict=True):
            if e - s < 2:
                continue
            members = order[s:e]
            m = tables.masks[members]
            i, j = np.nonzero(np.triu((m[:, None] & m[None, :]) == 0, 1))
            if len(i):
                pairs.append(np.stack([members[i], members[j]], axis=1))
        return np.concatenate(pairs).astype(np.int64)
    group_of = np.empty(len(order), dtype=np.int64)
    group_of[order] = np.repeat(np.arange(len(starts)), ends - starts)
    sizes = ends - starts
    eligible = sizes[group_of] > 1
    categories = np.unique(tables.categories[eligible])
    per_category = max(1, sample // max(1, len(categories)))
    chosen: list[tuple[int, int]] = []
    for category in categories:
        candidates = np.flatnonzero(eligible & (tables.categories == category))
        found = 0
        attempts = 0
        while found < per_category and attempts < per_category * 50:
            attempts += 1
            a = int(candidates[rng.integers(len(candidates))])
            g = group_of[a]
            b = int(order[starts[g] + rng.integers(sizes[g])])
            if a != b and tables.masks[a] & tables.masks[b] == 0:
                chosen.append((a, b))
                found += 1
    return np.array(chosen, dtype=np.int64).reshape(-1, 2)


def adjacent_class_pairs(tables: _Tables, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """For each rank class of the ordering (hands equal but for suits), one disjoint pair with
    the next class up that can be dealt beside it, in random A/B order: together these pin
    down the whole order of categories and ranks, boundaries between categories included."""
    order = np.argsort(tables.rank_keys, kind="stable")
    sorted_keys = tables.rank_keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    ends = np.r_[starts[1:], len(order)]
    chosen = []
    for g in range(len(starts) - 1):
        lower = order[starts[g] : ends[g]]
        # Some neighbours cannot be dealt together (2-2-2-3-3 and 2-2-2-4-4 need five deuces);
        # then the next class up that can be is this class's neighbour in the chain.
        for h in range(g + 1, min(g + 64, len(starts))):
            upper = order[starts[h] : ends[h]]
            pair = _disjoint_pair(tables, lower, upper)
            if pair is not None:
                chosen.append(pair if rng.random() < 0.5 else pair[::-1])
                break
    return np.array(chosen, dtype=np.int64).reshape(-1, 2)


def _disjoint_pair(
    tables: _Tables, lower: npt.NDArray[np.int64], upper: npt.NDArray[np.int64]
) -> tuple[int, int] | None:
    for a in lower[:64]:
        disjoint = upper[(tables.masks[upper] & tables.masks[a]) == 0]
        if len(disjoint):
            return int(a), int(disjoint[0])
    return None


def _qualifies(key: int, qualifier: list[int]) -> bool:
    """The dealer qualifies: any pair or better, or high cards at least the qualifier's ranks."""
    category, ranks, _ = _core.key_fields(key)
    return category > 0 or list(ranks[: len(qualifier)]) >= qualifier


def settlement_cases(
    tables: _Tables, per_outcome: int, rng: np.random.Generator
) -> list[tuple[str, str, int, int, str]]:
    """For every outcome of every bet, up to ``per_outcome`` seeded deals: (bet, outcome,
    player hand, dealer hand, decision). Outcomes: each category of the side bet (Q Poker's
    多寶), and for the bet against the dealer: fold, dealer not qualifying, a win by each
    category, a loss."""
    order = tables.order
    game = order.game
    qualifier = qualifier_ranks(order.rules, "play.dealer_qualifier")
    decide = "follow" if game == "q-poker" else "raise"
    wanted: dict[str, list[tuple[str, str, int, int, str]]] = {}
    n = len(tables.keys)
    names = order.categories
    outcomes = [f"win with {c}" for c in names] + ["dealer does not qualify", "loss", "fold"]
    if game == "q-poker":
        outcomes += [f"多寶 {c}" for c in names]
    for name in outcomes:
        wanted[name] = []
    tries = 0
    while any(len(v) < per_outcome for v in wanted.values()) and tries < 400_000:
        tries += 1
        a, b = int(rng.integers(n)), int(rng.integers(n))
        if tables.masks[a] & tables.masks[b]:
            continue
        ka, kb = int(tables.keys[a]), int(tables.keys[b])
        category = names[int(tables.categories[a])]
        if game == "q-poker" and len(wanted[f"多寶 {category}"]) < per_outcome:
            wanted[f"多寶 {category}"].append(("pair-plus", f"多寶 {category}", a, b, "-"))
        if len(wanted["fold"]) < per_outcome:
            wanted["fold"].append(("play", "fold", a, b, "fold"))
        if not _qualifies(kb, qualifier):
            outcome = "dealer does not qualify"
        elif ka > kb:
            outcome = f"win with {category}"
        elif ka < kb:
            outcome = "loss"
        else:
            continue
        if len(wanted[outcome]) < per_outcome:
            wanted[outcome].append(("play", outcome, a, b, decide))
    return [case for name in outcomes for case in wanted[name]]


def expected_settlement(order: Ordering, outcome: str, category: str) -> Fraction:
    """The player's net result per unit (Q Poker) or per ante (Caribbean Stud): the spots'
    values from the one settlement source (``rounds.settle.per_unit``)."""
    if outcome.startswith("多寶"):
        return per_unit(order, "pair_plus", "", category)[0]
    name = "win" if outcome.startswith("win with") else outcome
    if order.game == "q-poker":
        return per_unit(order, "play", name, category)[0]
    raise_multiple = rational(order.rules, "play.raise_multiple")
    ante = per_unit(order, "ante", name, category)[0]
    return ante + raise_multiple * per_unit(order, "raise", name, category)[0]


def random_pairs(tables: _Tables, count: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """A seeded sample of disjoint hand pairs, uniform over hands."""
    chosen = np.empty((0, 2), dtype=np.int64)
    n = len(tables.keys)
    while len(chosen) < count:
        a = rng.integers(n, size=2 * count)
        b = rng.integers(n, size=2 * count)
        ok = (tables.masks[a] & tables.masks[b]) == 0
        chosen = np.concatenate([chosen, np.stack([a[ok], b[ok]], axis=1)])
    return chosen[:count]


Check = tuple[list[str], list[str], list[tuple[str, str, str]], list[tuple[int, ...]]]


def _run_checks(
    named: list[tuple[str, Check]],
    answerer: Answerer,
    order: Ordering,
    keep: int,
    progress: Progress | None,
) -> list[CheckResult]:
    """Send every check's requests through the evaluator in one stream (a results file answers
    them all in order) and tally each check's answers. An evaluator that fails (raises, exits,
    hangs, stops answering or answers out of protocol) fails the check it was answering; the
    checks after it are failed as not run."""
    all_requests = itertools.chain.from_iterable(check[0] for _, check in named)
    answers = answerer(all_requests)
    results: list[CheckResult] = []
    failure = ""
    for name, (requests, expected, where, keys) in named:
        collector = _Collector(name, order, keep)
        if failure:
            results.append(collector.result(0.0, f"not run: {failure}"))
            continue
        start = time.perf_counter()
        try:
            for i in range(len(requests)):
                got = next(answers, None)
                if got is None:
                    raise EvaluatorError(f"evaluator stopped answering at request {requests[i]!r}")
                collector.add(requests[i], expected[i], got, where[i], keys[i])
                if progress is not None and (i + 1) % 10_000 == 0:
                    progress(10_000)
        except EvaluatorError as exc:
            failure = str(exc)
            results.append(collector.result(time.perf_counter() - start, failure))
            continue
        if progress is not None:
            progress(len(requests) % 10_000)
        results.append(collector.result(time.perf_counter() - start))
    if not failure:
        try:
            extra = next(answers, None) is not None
        except EvaluatorError as exc:
            results[-1] = replace(results[-1], error=str(exc))
        else:
            if extra:
                message = "evaluator gave more answers than there were requests"
                results[-1] = replace(results[-1], error=message)
    return results


@dataclass(frozen=True)
class Plan:
    """The requests of each check and what the statute expects for them."""

    tables: _Tables
    categories: npt.NDArray[np.int64]
    adjacent_pairs: npt.NDArray[np.int64]
    suit_pairs: npt.NDArray[np.int64]
    other_pairs: npt.NDArray[np.int64]
    suit_pairs_complete: bool
    seed: int
    settlements: tuple[tuple[str, str, int, int, str], ...] = ()

    @property
    def total(self) -> int:
        return len(self.settlements) + sum(
            len(x)
            for x in (self.categories, self.adjacent_pairs, self.suit_pairs, self.other_pairs)
        )

    def category_check(self) -> Check:
        t = self.tables
        requests = [f"category {t.text(i)}" for i in self.categories]
        indices = [int(c) for c in t.categories[self.categories]]
        names = [t.order.categories[c] for c in indices]
        where = [(t.order.categories[c], "category", t.order.articles[c]) for c in indices]
        keys: list[tuple[int, ...]] = [(int(t.keys[i]),) for i in self.categories]
        return requests, names, where, keys

    def pair_check(self, pairs: npt.NDArray[np.int64]) -> Check:
        t = self.tables
        requests: list[str] = []
        expected: list[str] = []
        where: list[tuple[str, str, str]] = []
        keys: list[tuple[int, ...]] = []
        for a, b in pairs:
            ka, kb = int(t.keys[a]), int(t.keys[b])
            requests.append(f"compare {t.text(a)} / {t.text(b)}")
            expected.append(t.expected_winner(int(a), int(b)))
            where.append(_deciding_step(t.order, ka, kb))
            keys.append((ka, kb))
        return requests, expected, where, keys

    def checks(self) -> list[tuple[str, Check]]:
        return [
            ("hand categories", self.category_check()),
            ("adjacent rank classes", self.pair_check(self.adjacent_pairs)),
            ("suit-decided pairs", self.pair_check(self.suit_pairs)),
            ("other pairs", self.pair_check(self.other_pairs)),
            ("settlements", self.settlement_check()),
        ]

    def settlement_check(self) -> Check:
        t = self.tables
        requests: list[str] = []
        expected: list[str] = []
        where: list[tuple[str, str, str]] = []
        keys: list[tuple[int, ...]] = []
        for bet, outcome, a, b, decision in self.settlements:
            category = t.order.categories[int(t.categories[a])]
            amount = expected_settlement(t.order, outcome, category)
            if bet == "pair-plus":
                requests.append(f"settle pair-plus {t.text(a)}")
                article = str(
                    t.order.rules.require(f"pair_plus.{category.replace(' ', '-')}").article
                )
            else:
                requests.append(f"settle {decision} {t.text(a)} / {t.text(b)}")
                article = _settlement_article(t.order, outcome, category)
            expected.append(str(amount))
            where.append((outcome, "settlement", article))
            keys.append((int(t.keys[a]), int(t.keys[b])))
        return requests, expected, where, keys

    def requests(self) -> Iterator[str]:
        for _, check in self.checks():
            yield from check[0]


def _settlement_article(order: Ordering, outcome: str, category: str) -> str:
    slug = category.replace(" ", "-")
    q_poker = order.game == "q-poker"
    key = {
        "fold": "play.fold",
        "loss": "play.loss" if q_poker else "play.fold",
        "dealer does not qualify": "play.dealer_not_qualifying"
        if q_poker
        else "play.not_qualifying_ante",
    }.get(outcome, f"play.win.{slug}" if q_poker else f"play.raise_pays.{slug}")
    return str(order.rules.require(key).article)


def plan(
    game: str,
    rules: RulesSource = None,
    *,
    hands: int | None = None,
    suit_pairs: int | None = 0,
    other_pairs: int = 50_000,
    seed: int = 0,
    settlements_per_outcome: int = 20,
) -> Plan:
    """What to ask. ``suit_pairs=0`` means the default: all for Q Poker, 100,000 for Caribbean
    Stud; ``None`` means all. ``settlements_per_outcome`` deals for each outcome of each bet."""
    check_game(game)
    if seed < 0:
        raise CrosscheckError(f"seed {seed}: expected a whole number, 0 or more")
    for name, count in (("hands", hands), ("suit_pairs", suit_pairs), ("other_pairs", other_pairs)):
        if count is not None and not 0 <= count <= MAX_SAMPLE:
            raise CrosscheckError(
                f"{name} {count:,}: a sample holds 0 to {MAX_SAMPLE:,} requests (each is kept "
                "in memory with its expected answer; run several seeds for more)"
            )
    tables = _Tables(game, rules)
    rng = np.random.default_rng(seed)
    if suit_pairs == 0:
        suit_pairs = None if tables.order.hand_size == 3 else 100_000
    return Plan(
        tables,
        category_requests(tables, hands, rng),
        adjacent_class_pairs(tables, rng),
        suit_decided_pairs(tables, suit_pairs, rng),
        random_pairs(tables, other_pairs, rng),
        suit_pairs is None,
        seed,
        tuple(settlement_cases(tables, settlements_per_outcome, rng)),
    )


def crosscheck(
    p: Plan, answerer: Answerer, evaluator: str, *, keep: int = 10, progress: Progress | None = None
) -> CrosscheckReport:
    """Run every check of a plan through the evaluator and report mismatches by defect."""
    order = p.tables.order
    checks = _run_checks(p.checks(), answerer, order, keep, progress)
    return CrosscheckReport(
        game=order.game,
        rules_file=order.rules.path.name,
        rules_sha256=order.rules.sha256,
        evaluator=evaluator,
        seed=p.seed,
        checks=tuple(checks),
        complete_suit_pairs=len(p.suit_pairs) if p.suit_pairs_complete else None,
    )
