"""Benchmark mode: a native vendor evaluator against tablecert's core on the same hands.

Workloads: every hand in colex order; ``random_hands`` seeded uniformly random hands; the hands
of ``pairs`` seeded suit-decided pairs (two hands equal but for suits, no card in common), the
cases a statute evaluator must get right and a rank-only one cannot. Each is timed after one
warm-up call, ``repeat`` times, each run one call over all the workload's hands: the vendor
inside its worker process (the pipe is not timed), the public PH-style C yardstick
(``conformance.yardstick``, built here when a C compiler is present) in a worker of its own
under the same clock, and the core's perfect-hash evaluator on one thread and on all of them.
These are measurements of this machine at this moment (its CPU, threads and load average are
recorded with them): shown on the terminal and in ``--json``, never in a signed report.

A fast wrong answer is no answer: the scores the timed calls returned are checked against the
statute too (every hand's workload by the exhaustive class-order and suit-decided-pair checks
of ``native_crosscheck``, the other two pair by pair: random hands two by two when they share
no card, the suit-decided pairs each), and the benchmark's verdict deviates if any disagree.
"""

from __future__ import annotations

import os
import platform
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert.conformance import yardstick
from tablecert.conformance.native_crosscheck import HandTable, PairTally, class_order_check
from tablecert.conformance.native_evaluator import NativeEvaluator, NativeSpec
from tablecert.conformance.poker_crosscheck import CheckResult, CrosscheckReport
from tablecert.exact import measured
from tablecert.poker import RulesSource


@dataclass(frozen=True)
class Timing:
    """Nanoseconds per hand over the repetitions: the best, the median and the worst."""

    min_ns: float
    median_ns: float
    max_ns: float

    @classmethod
    def of(cls, total_ns: list[int], hands: int) -> Timing:
        per_hand = [t / hands for t in total_ns]
        return cls(min(per_hand), statistics.median(per_hand), max(per_hand))

    @property
    def million_hands_per_s(self) -> float:
        """The median run's rate, in millions of hands per second (the field's unit)."""
        return 1e3 / self.median_ns

    def as_json(self) -> dict[str, str | None]:
        return {
            "min_ns_per_hand": measured(self.min_ns),
            "median_ns_per_hand": measured(self.median_ns),
            "max_ns_per_hand": measured(self.max_ns),
            "median_million_hands_per_s": measured(self.million_hands_per_s),
        }


def time_ratio(subject: str, a: Timing, other: str, b: Timing) -> str:
    """``a`` against ``b`` in words that cannot be read backwards (median runs): "the
    vendor's evaluator took 0.71x the yardstick's time per hand (1.40x its speed)"."""
    r = a.median_ns / b.median_ns
    return f"{subject} took {r:.2f}x {other}'s time per hand ({1 / r:.2f}x its speed)"


@dataclass(frozen=True)
class Workload:
    name: str
    hands: int
    vendor: Timing
    core_one_thread: Timing
    core_all_threads: Timing
    #: The public yardstick's timing, when it could be built here.
    yardstick: Timing | None = None

    @property
    def all_threads_slower(self) -> bool:
        """Whether the core on every thread took longer than on one (median runs)."""
        return self.core_all_threads.median_ns > self.core_one_thread.median_ns

    def as_json(self) -> dict[str, Any]:
        return {
            "workload": self.name,
            "hands": self.hands,
            "vendor": self.vendor.as_json(),
            "core_one_thread": self.core_one_thread.as_json(),
            "core_all_threads": self.core_all_threads.as_json(),
            "yardstick": None if self.yardstick is None else self.yardstick.as_json(),
            "vendor_time_over_core_one_thread": measured(
                self.vendor.median_ns / self.core_one_thread.median_ns
            ),
            "vendor_time_over_yardstick": None
            if self.yardstick is None
            else measured(self.vendor.median_ns / self.yardstick.median_ns),
        }


@dataclass(frozen=True)
class BenchReport:
    game: str
    evaluator: str
    repeat: int
    seed: int
    threads: int
    load_average: tuple[float, float, float]
    workloads: tuple[Workload, ...]
    #: The timed answers against the statute, one check per kind of evidence.
    agreement: CrosscheckReport
    cpu: str = "unknown CPU"
    #: How the yardstick was built, or why it was not run.
    yardstick: str = ""
    yardstick_ran: bool = False

    @property
    def verdict(self) -> str:
        """The verdict of the timed answers (``agreement``): deviates if any disagree."""
        return self.agreement.verdict

    @property
    def overloaded(self) -> bool:
        """Whether other work competed for the CPU: a 1-minute load above the threads."""
        return self.load_average[0] > self.threads

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "evaluator": self.evaluator,
            "repeat": self.repeat,
            "seed": self.seed,
            "cpu": self.cpu,
            "threads": self.threads,
            "hands_per_call": "every hand of the workload in one call, each timed run",
            "load_average": [measured(x) for x in self.load_average],
            "overloaded": self.overloaded,
            "yardstick": {"name": yardstick.NAME, "ran": self.yardstick_ran, "how": self.yardstick},
            "workloads": [w.as_json() for w in self.workloads],
            "verdict": self.verdict,
            "answers_checked": [
                {
                    "check": c.name,
                    "checked": c.checked,
                    "disagree": c.mismatches,
                    "verdict": c.verdict,
                    "defects": [g.description for g in c.groups],
                }
                for c in self.agreement.checks
            ],
        }


def cpu_model() -> str:
    """The CPU's model name (Linux ``/proc/cpuinfo``, else the platform's), for the record."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def suit_decided_pairs(t: HandTable, pairs: int, seed: int) -> npt.NDArray[np.int64]:
    """``pairs`` seeded disjoint pairs within rank classes whose keys differ: rows of two
    hand indices into ``t.hands``."""
    rng = np.random.default_rng(seed)
    classes = t.keys & ~np.uint32(3)
    by_class = np.argsort(classes, kind="stable")
    sorted_classes = classes[by_class]
    starts = np.searchsorted(sorted_classes, classes, side="left")
    ends = np.searchsorted(sorted_classes, classes, side="right")
    masks = t.masks()
    found_a: list[npt.NDArray[np.int64]] = []
    found_b: list[npt.NDArray[np.int64]] = []
    have = 0
    while have < pairs:
        a = rng.integers(0, len(t.hands), 1 << 20)
        width = ends[a] - starts[a]
        b = by_class[starts[a] + (rng.random(len(a)) * width).astype(np.int64)]
        ok = ((masks[a] & masks[b]) == 0) & (t.keys[a] != t.keys[b])
        found_a.append(a[ok])
        found_b.append(b[ok])
        have += int(ok.sum())
        if have == 0 and len(found_a) > 8:
            break  # no such pairs under this rule file (rank-only)
    return np.stack([np.concatenate(found_a)[:pairs], np.concatenate(found_b)[:pairs]], axis=1)


def suit_decided_pair_hands(t: HandTable, pairs: int, seed: int) -> npt.NDArray[np.uint8]:
    """The hands of ``suit_decided_pairs``, interleaved (a0, b0, a1, b1, ...)."""
    return _interleaved(t, suit_decided_pairs(t, pairs, seed))


def _interleaved(t: HandTable, pairs: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    out = np.empty((2 * len(pairs), t.hands.shape[1]), dtype=np.uint8)
    out[0::2] = t.hands[pairs[:, 0]]
    out[1::2] = t.hands[pairs[:, 1]]
    return out


def _time_core(t: HandTable, hands: npt.NDArray[np.uint8], repeat: int, threads: bool) -> Timing:
    out = np.empty(len(hands), dtype=np.uint32)
    t.table.keys_into(hands, out, threads)  # warm-up: table and pages in cache
    runs = []
    for _ in range(repeat):
        started = time.perf_counter_ns()
        t.table.keys_into(hands, out, threads)
        runs.append(time.perf_counter_ns() - started)
    return Timing.of(runs, len(hands))


def benchmark(
    game: str,
    spec: str,
    rules: RulesSource = None,
    *,
    random_hands: int = 10_000_000,
    pairs: int = 1_000_000,
    repeat: int = 5,
    seed: int = 0,
    keep: int = 10,
) -> BenchReport:
    """Time the vendor's library and the core on the three workloads, and check the answers
    the timed calls gave (``keep`` wrong ones named per check)."""
    native = NativeSpec.parse(spec)
    t = HandTable(game, rules)
    rng = np.random.default_rng(seed)
    picked = rng.integers(0, len(t.hands), random_hands)
    random = t.hands[picked]
    # Shuffle each hand's cards too: evaluators get hands in any order.
    random = np.take_along_axis(
        random, rng.permuted(np.tile(np.arange(random.shape[1]), (len(random), 1)), axis=1), axis=1
    )
    # Which answers are checked, and how: every hand exhaustively; the random hands two by two.
    everything = np.arange(len(t.hands), dtype=np.int64)
    workloads_in = [
        ("all hands, colex order", np.ascontiguousarray(t.hands), everything),
        (f"{random_hands:,} random hands (seed {seed})", np.ascontiguousarray(random), picked),
    ]
    decided = suit_decided_pairs(t, pairs, seed)
    if len(decided):
        workloads_in.append(
            (
                f"{len(decided):,} suit-decided pairs (both hands)",
                np.ascontiguousarray(_interleaved(t, decided)),
                decided.reshape(-1),
            )
        )
    out = []
    checks: list[list[CheckResult]] = []
    masks = t.masks()
    with tempfile.TemporaryDirectory(prefix="tablecert-yardstick-") as folder:
        built = yardstick.build(t.hands.shape[1], Path(folder))
        timed_yardstick = _yardstick_timings(built, [h for _, h, _ in workloads_in], repeat)
        with NativeEvaluator(native) as evaluator:
            for (name, hands, indices), theirs in zip(workloads_in, timed_yardstick, strict=True):
                timings, scores = evaluator.time_ns(hands, repeat)
                out.append(
                    Workload(
                        name,
                        len(hands),
                        Timing.of(timings, len(hands)),
                        _time_core(t, hands, repeat, threads=False),
                        _time_core(t, hands, repeat, threads=True),
                        theirs,
                    )
                )
                checks.append(_check(t, masks, scores, indices, everything, picked, keep))
    agreement = CrosscheckReport(
        game=t.order.game,
        rules_file=t.order.rules.path.name,
        rules_sha256=t.order.rules.sha256,
        evaluator=str(native),
        seed=seed,
        checks=tuple(c for group in checks for c in group),
    )
    return BenchReport(
        game=t.order.game,
        evaluator=str(native),
        repeat=repeat,
        seed=seed,
        threads=os.cpu_count() or 1,
        load_average=os.getloadavg(),
        workloads=tuple(out),
        agreement=agreement,
        cpu=cpu_model(),
        yardstick=built if isinstance(built, str) else f"built here: {built.command}",
        yardstick_ran=not isinstance(built, str),
    )


def _yardstick_timings(
    built: yardstick.Yardstick | str, workloads: list[npt.NDArray[np.uint8]], repeat: int
) -> list[Timing | None]:
    """The yardstick timed on each workload in its own worker, as the vendor is."""
    if isinstance(built, str):
        return [None] * len(workloads)
    with NativeEvaluator(NativeSpec.parse(built.spec)) as evaluator:
        return [Timing.of(evaluator.time_ns(h, repeat)[0], len(h)) for h in workloads]


def _check(
    t: HandTable,
    masks: npt.NDArray[np.uint64],
    scores: npt.NDArray[np.int32],
    indices: npt.NDArray[np.int64],
    everything: npt.NDArray[np.int64],
    picked: npt.NDArray[np.int64],
    keep: int,
) -> list[CheckResult]:
    """The timed answers of one workload against the statute: every hand's by the exhaustive
    class-order checks, the others pair by pair."""
    started = time.perf_counter()
    if indices is everything:
        return list(class_order_check(t, scores, keep))
    tally = PairTally(t, keep)
    even = len(indices) // 2 * 2
    a, b = indices[0:even:2], indices[1:even:2]
    sa, sb = scores[0:even:2], scores[1:even:2]
    meet = (masks[a] & masks[b]) == 0
    tally.add(a[meet], b[meet], sa[meet], sb[meet])
    what = "the random hands two by two (pairs with no card in common)"
    if indices is not picked:
        what = "the suit-decided pairs"
    return [tally.result(f"timed answers: {what}", time.perf_counter() - started)]
