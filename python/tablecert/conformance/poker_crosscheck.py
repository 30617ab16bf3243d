"""Exhaustive crosscheck of a vendor's poker evaluator against the statute ordering.

Five checks, each request answered by the evaluator and compared with the core:

1. categories: every one of the C(52, k) hands (22,100 or 2,598,960), or a seeded sample;
2. adjacent rank classes: for every class of the ordering (hands equal but for suits), a
   disjoint pair with the next class up that it can meet (``rank_classes``);
3. suit-decided pairs: disjoint hands of equal ranks that the statute decides by suit (where
   vendors go wrong): the complete set for Q Poker, for Caribbean Stud 100,000 distinct pairs
   stratified by category, small categories whole and the rest sampled without replacement
   (the complete set has 173,899,440 pairs; ``suit_pairs=None`` asks for all);
4. other pairs: a seeded random sample of distinct disjoint hand pairs;
5. settlements: for every outcome of every bet (each category of 多寶; fold, dealer not
   qualifying, a win by each category, a loss), seeded deals whose net amount the evaluator
   must give exactly.

Every pair is of hands without a card in common (only those can meet in one deal, so only
those are evidence), and no pair is asked twice.

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
from typing import Any, ClassVar, Protocol

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.conformance.evaluator_protocol import Answerer, EvaluatorError
from tablecert.conformance.rank_classes import RankClasses, masks_of
from tablecert.errors import CrosscheckError
from tablecert.games.common import qualifier_ranks, rational
from tablecert.games.settle import per_unit
from tablecert.hand_arrays import key_table, strength_keys
from tablecert.judgement import Domain, Judged, Outcome, overall
from tablecert.poker import Ordering, RulesSource, check_game, ordering

CODES = tuple(_core.card_code(c) for c in range(52))
MAX_SAMPLE = 2_000_000
"""The largest sample of one check in one run: every request is held in memory with its
expected answer (about half a kilobyte each)."""
RANK_FIELDS = 5
DEFAULT_SUIT_PAIRS = 100_000
"""Caribbean Stud's suit-decided pairs asked by default (distinct; Q Poker's are all asked)."""
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
class CheckResult(Judged):
    domain: ClassVar[Domain] = "conformance"
    name: str
    checked: int
    mismatches: int
    groups: tuple[DefectGroup, ...]
    first: tuple[Mismatch, ...]
    seconds: float
    #: Why the evaluator did not answer every request (crashed, raised, exited, hung, answered
    #: out of protocol), or why the check did not run: a failed check, never a pass.
    error: str = ""
    #: What the check counted and what it left out as no evidence (pairs that cannot meet).
    notes: tuple[str, ...] = ()

    @property
    def outcome(self) -> Outcome:
        """Fail (deviates) on any wrong answer or evaluator failure; inconclusive if nothing
        was asked."""
        return Outcome.of(bool(self.mismatches or self.error), judged=self.checked > 0)

    @property
    def rate(self) -> float:
        return self.checked / self.seconds if self.seconds > 0 and self.checked else 0.0


@dataclass(frozen=True)
class CrosscheckReport(Judged):
    domain: ClassVar[Domain] = "conformance"
    game: str
    rules_file: str
    rules_sha256: str
    evaluator: str
    seed: int
    checks: tuple[CheckResult, ...]
    complete_suit_pairs: int | None = field(default=None)

    @property
    def outcome(self) -> Outcome:
        """Fail (deviates) if any check does; inconclusive if any check asked nothing."""
        return overall(c.outcome for c in self.checks)

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
                    "notes": list(c.notes),
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
        self.masks = masks_of(self.hands)
        self.classes = RankClasses.of(self.keys, self.masks)
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
    low_top = order.hand_size - 2  # rank field of the 3 of A-2-3, the 4 of A-2-3-4, ...
    low = {3: "A-2-3", 4: "A-2-3-4", 5: "5-4-3-2-A"}[order.hand_size]
    for key in keys:
        fields = _fields(key)
        name = order.categories[fields[0]].replace("-", " ")
        if name in ("straight", "straight flush") and fields[1] == low_top:
            found.add(f"an ace-low straight ({low})")
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


@dataclass(frozen=True)
class Stratum:
    """The suit-decided pairs of one category: how many there are, how many are asked."""

    category: str
    population: int
    asked: int

    @property
    def complete(self) -> bool:
        return self.asked == self.population


def suit_pair_populations(tables: _Tables) -> dict[int, int]:
    """For each category (by index) that has any, the number of unordered pairs of hands
    without a card in common inside one rank class: the suit-decided pairs under a statute
    ordering, counted exactly by the core."""
    table = key_table(tables.order.game, tables.order.rules)
    keys = np.frombuffer(table.table(), dtype="<u4").astype(np.int32)
    within = table.check_scores(keys, 0).within
    return {category: tally.checked for category, tally in enumerate(within) if tally.checked}


def allocate(populations: dict[int, int], total: int) -> dict[int, int]:
    """How many of ``total`` requests each stratum gets: equal shares, a stratum no larger
    than its share taken whole and what it leaves shared among the others, so that exactly
    ``min(total, sum of populations)`` are asked."""
    quotas: dict[int, int] = {}
    left = total
    pending = sorted(populations, key=lambda c: (populations[c], c))
    while pending:
        share = left // len(pending)
        small = [c for c in pending if populations[c] <= share]
        if not small:
            break
        for c in small:
            quotas[c] = populations[c]
            left -= populations[c]
        pending = [c for c in pending if c not in small]
    if pending:
        base, extra = divmod(left, len(pending))
        for i, c in enumerate(sorted(pending)):
            quotas[c] = base + (i < extra)
    return quotas


def suit_decided_pairs(
    tables: _Tables, sample: int | None, rng: np.random.Generator
) -> tuple[npt.NDArray[np.int64], tuple[Stratum, ...]]:
    """Disjoint pairs of equal ranks that only suit decides, in random A/B order, and what
    they are of: all of them (``sample=None``), or ``sample`` distinct pairs stratified by
    category (``allocate``): a stratum within its share is asked whole, the others are sampled
    uniformly without replacement. No pair is asked twice."""
    populations = suit_pair_populations(tables)
    quotas = populations if sample is None else allocate(populations, sample)
    class_categories = tables.categories[tables.classes.order[tables.classes.starts]]
    chosen: list[npt.NDArray[np.int64]] = []
    strata: list[Stratum] = []
    for category, population in populations.items():
        quota = quotas[category]
        in_category = np.flatnonzero(class_categories == category)
        if 2 * quota >= population:
            pairs = np.concatenate([tables.classes.within_pairs(int(c)) for c in in_category])
            if quota < population:
                pairs = pairs[np.sort(rng.choice(len(pairs), size=quota, replace=False))]
        else:
            pairs = _sample_within(tables, in_category, quota, rng)
        chosen.append(pairs)
        strata.append(Stratum(tables.order.categories[category], population, len(pairs)))
    pairs = np.concatenate(chosen) if chosen else np.empty((0, 2), dtype=np.int64)
    return _shuffle_sides(pairs, rng), tuple(strata)


def _sample_within(
    tables: _Tables, class_ids: npt.NDArray[np.int64], count: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """``count`` distinct unordered disjoint pairs inside the classes ``class_ids``, uniform
    over all such pairs: a hand uniform over the classes' hands, a partner uniform in its class,
    kept with probability (class size / largest class size) when they share no card."""
    classes = tables.classes
    sizes = classes.sizes()
    hands = np.concatenate([classes.members(int(c)) for c in class_ids])
    largest = int(sizes[class_ids].max())
    class_of = classes.class_of()
    n = len(tables.keys)
    found = np.empty(0, dtype=np.int64)
    while len(found) < count:
        draws = min(1 << 22, max(4096, 8 * (count - len(found))))
        a = hands[rng.integers(len(hands), size=draws)]
        c = class_of[a]
        b = classes.order[classes.starts[c] + rng.integers(sizes[c])]
        kept = ((tables.masks[a] & tables.masks[b]) == 0) & (rng.random(draws) * largest < sizes[c])
        found = _distinct(np.r_[found, _codes(a[kept], b[kept], n)])
    return _decode(found[:count], n)


def _codes(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.int64]:
    """One number per unordered pair of hand indices (below ``n``)."""
    return np.minimum(a, b) * n + np.maximum(a, b)


def _decode(codes: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.int64]:
    return np.stack([codes // n, codes % n], axis=1).astype(np.int64)


def _distinct(codes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``codes`` without repeats, each kept where it first occurs (a seeded draw stays
    reproducible)."""
    _, first = np.unique(codes, return_index=True)
    return codes[np.sort(first)]


def _shuffle_sides(pairs: npt.NDArray[np.int64], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Each pair as (A, B) or (B, A) at random: an evaluator cannot pass by answering one
    side."""
    swap = rng.random(len(pairs)) < 0.5
    out = pairs.copy()
    out[swap] = pairs[swap][:, ::-1]
    return out


def adjacent_class_pairs(
    tables: _Tables, rng: np.random.Generator
) -> tuple[npt.NDArray[np.int64], int]:
    """For each rank class of the ordering (hands equal but for suits), one disjoint pair with
    the next class up whose hands can meet it, in random A/B order, and how many classes had
    to pass over their neighbour to find it. Neighbours that cannot meet (2-2-2-3-3 and
    2-2-2-4-4 need six deuces) are not evidence: their order is never asked, and an evaluator
    may order them as it likes."""
    classes = tables.classes
    chosen = []
    passed_over = 0
    for g in range(len(classes) - 1):
        lower = classes.members(g)
        for h in range(g + 1, len(classes)):
            pair = classes.disjoint_pair(lower, classes.members(h))
            if pair is not None:
                chosen.append(pair)
                passed_over += h > g + 1
                break
    pairs = np.array(chosen, dtype=np.int64).reshape(-1, 2)
    return _shuffle_sides(pairs, rng), passed_over


def _qualifies(key: int, qualifier: list[int]) -> bool:
    """The dealer qualifies: any pair or better, or high cards at least the qualifier's ranks."""
    category, ranks, _ = _core.key_fields(key)
    return category > 0 or list(ranks[: len(qualifier)]) >= qualifier


SETTLEMENT_TRIES = 20_000
"""Deals drawn at most for one outcome of one bet (an outcome no deal reaches is left short)."""


def settlement_cases(
    tables: _Tables, per_outcome: int, rng: np.random.Generator
) -> list[tuple[str, str, int, int, str]]:
    """For every outcome of every bet, up to ``per_outcome`` distinct seeded deals of two
    hands without a card in common: (bet, outcome, player hand, dealer hand, decision).
    Outcomes: each category of the side bet (Q Poker's 多寶), and for the bet against the
    dealer: fold, dealer not qualifying, a win by each category, a loss. The player's hand of
    an outcome named by a category is drawn from that category, so rare ones are reached."""
    order = tables.order
    game = order.game
    qualifier = qualifier_ranks(order.rules, "play.dealer_qualifier")
    decide = "follow" if game == "q-poker" else "raise"
    n = len(tables.keys)
    names = order.categories
    by_category = {name: np.flatnonzero(tables.categories == i) for i, name in enumerate(names)}

    def outcome_of(a: int, b: int) -> str:
        ka, kb = int(tables.keys[a]), int(tables.keys[b])
        if not _qualifies(kb, qualifier):
            return "dealer does not qualify"
        if ka == kb:
            return "push"
        return f"win with {names[int(tables.categories[a])]}" if ka > kb else "loss"

    wanted: list[tuple[str, str, str, str]] = [
        *((f"win with {c}", "play", decide, c) for c in names),
        ("dealer does not qualify", "play", decide, ""),
        ("loss", "play", decide, ""),
        ("fold", "play", "fold", ""),
    ]
    if game == "q-poker":
        wanted += [(f"多寶 {c}", "pair-plus", "-", c) for c in names]
    cases: list[tuple[str, str, int, int, str]] = []
    for outcome, bet, decision, category in wanted:
        pool = by_category[category] if category else None
        seen: set[tuple[int, int]] = set()
        for _ in range(SETTLEMENT_TRIES):
            if len(seen) == per_outcome:
                break
            a = int(rng.integers(n) if pool is None else pool[rng.integers(len(pool))])
            b = int(rng.integers(n))
            if tables.masks[a] & tables.masks[b]:
                continue
            if bet == "play" and decision != "fold" and outcome_of(a, b) != outcome:
                continue
            key = (a, -1) if bet == "pair-plus" else (a, b)
            if key not in seen:
                seen.add(key)
                cases.append((bet, outcome, a, b, decision))
    return cases


def expected_settlement(order: Ordering, outcome: str, category: str) -> Fraction:
    """The player's net result per unit (Q Poker) or per ante (Caribbean Stud): the spots'
    values from the one settlement source (``games.settle.per_unit``)."""
    if outcome.startswith("多寶"):
        return per_unit(order, "pair_plus", "", category)[0]
    name = "win" if outcome.startswith("win with") else outcome
    if order.game == "q-poker":
        return per_unit(order, "play", name, category)[0]
    raise_multiple = rational(order.rules, "play.raise_multiple")
    ante = per_unit(order, "ante", name, category)[0]
    return ante + raise_multiple * per_unit(order, "raise", name, category)[0]


def random_pairs(
    tables: _Tables,
    count: int,
    rng: np.random.Generator,
    asked: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.int64]:
    """A seeded sample of ``count`` distinct disjoint hand pairs, uniform over hands, none of
    them among the pairs ``asked`` already (rows of hand indices)."""
    n = len(tables.keys)
    before = np.empty(0, dtype=np.int64) if asked is None else _codes(asked[:, 0], asked[:, 1], n)
    found = np.empty(0, dtype=np.int64)
    while len(found) < count:
        a = rng.integers(n, size=2 * count)
        b = rng.integers(n, size=2 * count)
        ok = (tables.masks[a] & tables.masks[b]) == 0
        codes = _codes(a[ok], b[ok], n)
        found = _distinct(np.r_[found, codes[~np.isin(codes, before)]])
    return _shuffle_sides(_decode(found[:count], n), rng)


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
    #: The suit-decided pairs by category: how many exist, how many are asked (distinct).
    suit_strata: tuple[Stratum, ...]
    seed: int
    settlements: tuple[tuple[str, str, int, int, str], ...] = ()
    #: Classes whose neighbour up cannot meet them, paired with the next class up that can.
    adjacent_passed_over: int = 0

    @property
    def order(self) -> Ordering:
        return self.tables.order

    @property
    def suit_pairs_complete(self) -> bool:
        return all(s.complete for s in self.suit_strata)

    @property
    def complete_suit_pairs(self) -> int | None:
        """How many suit-decided pairs were asked when they are the complete set."""
        return len(self.suit_pairs) if self.suit_pairs_complete else None

    def notes(self) -> dict[str, tuple[str, ...]]:
        """What each check asked and left out, by check name."""
        strata = "; ".join(
            f"{s.category} {s.asked:,}" + (" (all)" if s.complete else f" of {s.population:,}")
            for s in self.suit_strata
        )
        suit = f"{len(self.suit_pairs):,} distinct pairs by category: {strata}" + (
            "" if self.suit_pairs_complete else "; sampled without replacement"
        )
        adjacent = (
            f"{self.adjacent_passed_over:,} classes cannot meet the class just above them (not "
            "evidence, never asked); each is paired with the next class up that it can meet"
        )
        return {
            "suit-decided pairs": (suit,),
            "adjacent rank classes": (adjacent,) if self.adjacent_passed_over else (),
        }

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
        "loss": "play.loss",
        "dealer does not qualify": "play.dealer_not_qualifying"
        if q_poker
        else "play.not_qualifying_ante",
    }.get(outcome, f"play.win.{slug}" if q_poker else f"play.raise_pays.{slug}")
    return str(order.rules.require(key).article)


def check_sampling(seed: int, **counts: int | None) -> None:
    """Refuse a negative seed, or a sample (by its option's name) of more requests than are
    kept in memory."""
    if seed < 0:
        raise CrosscheckError(f"seed {seed}: expected a whole number, 0 or more")
    for name, count in counts.items():
        if count is not None and not 0 <= count <= MAX_SAMPLE:
            raise CrosscheckError(
                f"{name} {count:,}: a sample holds 0 to {MAX_SAMPLE:,} requests (each is kept "
                "in memory with its expected answer; run several seeds for more)"
            )


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
    """What to ask. ``suit_pairs=0`` means the default: all for Q Poker, 100,000 distinct for
    Caribbean Stud; ``None`` means all. ``settlements_per_outcome`` deals for each outcome of
    each bet."""
    check_game(game)
    check_sampling(seed, hands=hands, suit_pairs=suit_pairs, other_pairs=other_pairs)
    tables = _Tables(game, rules)
    rng = np.random.default_rng(seed)
    if suit_pairs == 0:
        suit_pairs = None if tables.order.hand_size == 3 else DEFAULT_SUIT_PAIRS
    categories = category_requests(tables, hands, rng)
    adjacent, passed_over = adjacent_class_pairs(tables, rng)
    suit, strata = suit_decided_pairs(tables, suit_pairs, rng)
    return Plan(
        tables,
        categories,
        adjacent,
        suit,
        random_pairs(tables, other_pairs, rng, np.concatenate([adjacent, suit])),
        strata,
        seed,
        tuple(settlement_cases(tables, settlements_per_outcome, rng)),
        passed_over,
    )


class Asking(Protocol):
    """What a crosscheck asks: a plan of a dedicated game's checks (:class:`Plan`), or of a
    game described by its rule file (``stud_crosscheck.StudPlan``)."""

    @property
    def order(self) -> Ordering: ...
    @property
    def complete_suit_pairs(self) -> int | None: ...
    @property
    def seed(self) -> int: ...

    def checks(self) -> list[tuple[str, Check]]: ...
    def notes(self) -> dict[str, tuple[str, ...]]: ...


def crosscheck(
    p: Asking,
    answerer: Answerer,
    evaluator: str,
    *,
    keep: int = 10,
    progress: Progress | None = None,
) -> CrosscheckReport:
    """Run every check of a plan through the evaluator and report mismatches by defect."""
    order = p.order
    notes = p.notes()
    checks = [
        replace(c, notes=notes.get(c.name, ()))
        for c in _run_checks(p.checks(), answerer, order, keep, progress)
    ]
    return CrosscheckReport(
        game=order.game,
        rules_file=order.rules.path.name,
        rules_sha256=order.rules.sha256,
        evaluator=evaluator,
        seed=p.seed,
        checks=tuple(checks),
        complete_suit_pairs=p.complete_suit_pairs,
    )
