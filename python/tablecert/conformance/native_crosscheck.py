"""Exhaustive crosscheck of a native (or score-table) evaluator: every hand, every pair.

With a vendor's score of every hand in hand (a few seconds through the native ABI), three
checks cover every pair of hands that can meet in one deal, not a sample:

* **rank-class order**: the rank classes (hands equal but for suits) sorted by the rule file;
  every two classes that can meet (some hands without a card in common) must be scored in that
  order for every such pair (``rank_classes.check_class_order``). The evidence counted is the
  boundaries between neighbouring classes that can meet, and any classes further apart whose
  scores overlap; neighbours that cannot meet (2-2-2-3-3 and 2-2-2-4-4) are not evidence;
* **suit-decided pairs**: every disjoint pair within each rank class (under the statute these
  are exactly the pairs decided by suit; under rank-only rules they must push), counted exactly;
* **random disjoint pairs**: a seeded sample across the whole ordering, as a cross-check of
  the two above that needs no theory.

Mismatches are grouped by article and deciding step like the line-protocol crosscheck.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.conformance.evaluator_protocol import EvaluatorError
from tablecert.conformance.native_evaluator import NativeEvaluator, NativeSpec
from tablecert.conformance.poker_crosscheck import (
    CheckResult,
    CrosscheckReport,
    DefectGroup,
    Mismatch,
    _deciding_step,
    _hand_text,
)
from tablecert.conformance.rank_classes import ClassOrder, RankClasses, check_class_order, masks_of
from tablecert.poker import Ordering, RulesSource, check_game, ordering

DEFAULT_RANDOM_PAIRS = 10_000_000
_KIND = {0: "reverses the order", 1: "answers PUSH", 2: "splits a push"}
Status = Callable[[str], None]


class HandTable:
    """Every hand of a game in colex order with its key under the rule file."""

    def __init__(self, game: str, rules: RulesSource = None) -> None:
        check_game(game)
        self.order: Ordering = ordering(game, rules)
        self.table = _core.KeyTable(self.order.hand_size, self.order.tie_breaks)
        size = self.order.hand_size
        self.hands = np.frombuffer(self.table.hands(), dtype=np.uint8).reshape(-1, size)
        self.keys = np.frombuffer(self.table.table(), dtype="<u4").astype(np.uint32)

    def masks(self) -> npt.NDArray[np.uint64]:
        return masks_of(self.hands)

    def text(self, i: int) -> str:
        return _hand_text(self.hands[i])


def _expected(ka: int, kb: int) -> str:
    return "A" if ka > kb else "B" if ka < kb else "PUSH"


def _answer(sa: int, sb: int) -> str:
    return "A" if sa > sb else "B" if sa < sb else "PUSH"


def _mismatch(t: HandTable, a: int, b: int, scores: npt.NDArray[np.int32]) -> Mismatch:
    return _scored_mismatch(t, a, b, int(scores[a]), int(scores[b]))


def _scored_mismatch(t: HandTable, a: int, b: int, sa: int, sb: int) -> Mismatch:
    """Hands ``a`` and ``b`` (indices into the table) scored ``sa`` and ``sb``, as a mismatch."""
    ka, kb = int(t.keys[a]), int(t.keys[b])
    category, step, article = _deciding_step(t.order, ka, kb)
    return Mismatch(
        f"compare {t.text(a)} / {t.text(b)}",
        _expected(ka, kb),
        _answer(sa, sb),
        category,
        step,
        article,
    )


def class_order_check(
    t: HandTable, scores: npt.NDArray[np.int32], keep: int
) -> tuple[CheckResult, CheckResult]:
    """The rank-class order and the suit-decided (within-class) pairs, exhaustively."""
    started = time.perf_counter()
    within = t.table.check_scores(scores, keep).within
    found = check_class_order(RankClasses.of(t.keys, t.masks()), scores)
    seconds = time.perf_counter() - started
    order = t.order
    # Wrongly ordered class pairs: one defect group per (category, step, answer).
    groups: dict[tuple[str, str, str, str], int] = {}
    first: list[Mismatch] = []
    for lower, upper in found.wrong:
        m = _mismatch(t, upper, lower, scores)
        answer = "answers PUSH" if m.got == "PUSH" else "reverses the order"
        key = (m.category, m.step, m.article, answer)
        groups[key] = groups.get(key, 0) + 1
        if len(first) < keep:
            first.append(m)
    boundary_check = CheckResult(
        f"rank-class order (all {found.classes:,} classes, every hand)",
        found.checked,
        len(found.wrong),
        tuple(
            DefectGroup(category, step, article, answer, count, found.checked, ())
            for (category, step, article, answer), count in sorted(
                groups.items(), key=lambda kv: -kv[1]
            )
        ),
        tuple(first),
        seconds,
        notes=class_order_notes(found),
    )
    # Within classes: tallies per category from the core.
    pair_groups: list[DefectGroup] = []
    pair_first: list[Mismatch] = []
    checked = wrong = 0
    for category, tally in enumerate(within):
        n = tally.checked
        checked += n
        wrong += tally.reversed + tally.pushed + tally.split
        if not n:
            continue
        name = order.categories[category]
        step = order.steps[category][-1] if order.suit_decides else "ranks"
        article = order.articles[category]
        for kind, count in enumerate((tally.reversed, tally.pushed, tally.split)):
            if count:
                pair_groups.append(DefectGroup(name, step, article, _KIND[kind], count, n, ()))
        for a, b in tally.examples:
            if len(pair_first) < keep:
                pair_first.append(_mismatch(t, a, b, scores))
    label = "suit-decided pairs" if order.suit_decides else "equal-rank pairs (must push)"
    pair_check = CheckResult(
        f"{label} (complete)",
        checked,
        wrong,
        tuple(sorted(pair_groups, key=lambda g: -g.count)),
        tuple(pair_first),
        seconds,
    )
    return boundary_check, pair_check


def class_order_notes(found: ClassOrder) -> tuple[str, ...]:
    """What the rank-class order check counted and what it did not, in words."""
    notes = [
        f"{found.boundaries:,} boundaries between neighbouring classes that can meet"
        + (
            f", and {found.beyond:,} pairs of classes further apart that can meet and whose "
            "scores overlap, searched hand by hand"
            if found.beyond
            else ""
        )
    ]
    if found.not_evidence:
        notes.append(
            f"{found.not_evidence:,} boundaries between neighbouring classes that cannot meet "
            "(every hand of one shares a card with every hand of the other) are not evidence "
            "and are not counted"
        )
    if found.unsearched:
        notes.append(
            f"{found.unsearched:,} further pairs of classes whose scores overlap were not "
            "searched: the order was already found wrong"
        )
    return tuple(notes)


class PairTally:
    """Disjoint pairs of hands compared with the statute's order, the wrong ones grouped by
    deciding step (the random-pair check, and the answers a benchmark timed)."""

    def __init__(self, t: HandTable, keep: int) -> None:
        self.t = t
        self.keep = keep
        self.checked = 0
        self.wrong = 0
        self.first: list[Mismatch] = []
        self.groups: dict[tuple[str, str, str, str], int] = {}

    def add(
        self,
        a: npt.NDArray[np.int64],
        b: npt.NDArray[np.int64],
        sa: npt.NDArray[np.int32],
        sb: npt.NDArray[np.int32],
    ) -> None:
        """Pairs of hands ``a[i]``, ``b[i]`` (no card in common) the vendor scored ``sa[i]``,
        ``sb[i]``."""
        t = self.t
        self.checked += len(a)
        ka, kb = t.keys[a].astype(np.int64), t.keys[b].astype(np.int64)
        bad = np.sign(ka - kb) != np.sign(sa.astype(np.int64) - sb.astype(np.int64))
        self.wrong += int(bad.sum())
        # Only the wrongly answered pairs are named one by one, grouped by deciding step.
        for i in np.flatnonzero(bad):
            m = _scored_mismatch(t, int(a[i]), int(b[i]), int(sa[i]), int(sb[i]))
            answer = "answers PUSH" if m.got == "PUSH" else "reverses the order"
            if m.expected == "PUSH":
                answer = "splits a push"
            key = (m.category, m.step, m.article, answer)
            self.groups[key] = self.groups.get(key, 0) + 1
            if len(self.first) < self.keep:
                self.first.append(m)

    def result(self, name: str, seconds: float) -> CheckResult:
        return CheckResult(
            name,
            self.checked,
            self.wrong,
            tuple(
                DefectGroup(category, step, article, answer, c, self.checked, ())
                for (category, step, article, answer), c in sorted(
                    self.groups.items(), key=lambda kv: -kv[1]
                )
            ),
            tuple(self.first),
            seconds,
        )


def random_pair_check(
    t: HandTable, scores: npt.NDArray[np.int32], count: int, seed: int, keep: int
) -> CheckResult:
    """A seeded sample of ``count`` disjoint pairs of hands drawn uniformly."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    masks = t.masks()
    n = len(t.hands)
    tally = PairTally(t, keep)
    while tally.checked < count:
        size = min(1 << 21, 2 * (count - tally.checked) + 16)
        a = rng.integers(0, n, size)
        b = rng.integers(0, n, size)
        ok = (masks[a] & masks[b]) == 0
        a, b = a[ok][: count - tally.checked], b[ok][: count - tally.checked]
        tally.add(a, b, scores[a], scores[b])
    return tally.result(f"random disjoint pairs (seed {seed})", time.perf_counter() - started)


def crosscheck_native(
    game: str,
    spec: str,
    rules: RulesSource = None,
    *,
    random_pairs: int = DEFAULT_RANDOM_PAIRS,
    seed: int = 0,
    keep: int = 10,
    timeout_s: float = 20.0,
    status: Status | None = None,
    name: str | None = None,
) -> CrosscheckReport:
    """Score every hand with the native evaluator ``spec`` and check every pair that matters.
    ``name`` is how the report and its errors name the evaluator (default: the spec; a plan
    gives the library's name, never a path of the machine). A library that cannot be loaded
    raises ``EvaluatorStartError`` before anything is scored."""
    say = status or (lambda _message: None)
    native = NativeSpec.parse(spec)
    label = name or str(native)
    t = HandTable(game, rules)
    say(f"scoring all {len(t.hands):,} hands with {label} ...")
    started = time.perf_counter()
    checks: list[CheckResult] = []
    complete: int | None = None
    try:
        with NativeEvaluator(native, timeout_s, name=label) as evaluator:
            scores = evaluator.scores(t.hands)
    except EvaluatorError as exc:
        # The vendor's code crashed, hung or returned an error: a failed check naming the
        # library, never a pass and never a crash of tablecert.
        seconds = time.perf_counter() - started
        checks.append(CheckResult("every hand scored", 0, 0, (), (), seconds, error=str(exc)))
    else:
        say(f"scored in {time.perf_counter() - started:.2f} s; checking every disjoint pair ...")
        boundary_check, pair_check = class_order_check(t, scores, keep)
        checks += [boundary_check, pair_check]
        complete = pair_check.checked
        if random_pairs:
            checks.append(random_pair_check(t, scores, random_pairs, seed, keep))
    return CrosscheckReport(
        game=t.order.game,
        rules_file=t.order.rules.path.name,
        rules_sha256=t.order.rules.sha256,
        evaluator=label,
        seed=seed,
        checks=tuple(checks),
        complete_suit_pairs=complete,
    )
