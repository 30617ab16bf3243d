"""Benchmark mode: a native vendor evaluator against tablecert's core on the same hands.

Workloads: every hand in colex order; ``random_hands`` seeded uniformly random hands; the hands
of ``pairs`` seeded suit-decided pairs (two hands equal but for suits, no card in common), the
cases a statute evaluator must get right and a rank-only one cannot. Each is timed after one
warm-up call, ``repeat`` times; the vendor inside its worker process (the pipe is not timed),
the core's perfect-hash evaluator on one thread and on all of them. These are measurements of
this machine at this moment: shown on the terminal and in ``--json``, never in a signed report.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert.conformance.native_crosscheck import HandTable
from tablecert.conformance.native_evaluator import NativeEvaluator, NativeSpec
from tablecert.poker import RulesSource


@dataclass(frozen=True)
class Timing:
    """Nanoseconds per hand over the repetitions: the best and the median."""

    min_ns: float
    median_ns: float

    @classmethod
    def of(cls, total_ns: list[int], hands: int) -> Timing:
        per_hand = [t / hands for t in total_ns]
        return cls(min(per_hand), statistics.median(per_hand))

    def as_json(self) -> dict[str, float]:
        return {
            "min_ns_per_hand": round(self.min_ns, 3),
            "median_ns_per_hand": round(self.median_ns, 3),
        }


@dataclass(frozen=True)
class Workload:
    name: str
    hands: int
    vendor: Timing
    core_one_thread: Timing
    core_all_threads: Timing

    @property
    def ratio(self) -> float:
        """How many times faster the core is than the vendor, one thread each (best runs)."""
        return self.vendor.min_ns / self.core_one_thread.min_ns

    def as_json(self) -> dict[str, Any]:
        return {
            "workload": self.name,
            "hands": self.hands,
            "vendor": self.vendor.as_json(),
            "core_one_thread": self.core_one_thread.as_json(),
            "core_all_threads": self.core_all_threads.as_json(),
            "core_speedup_one_thread": round(self.ratio, 3),
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

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "evaluator": self.evaluator,
            "repeat": self.repeat,
            "seed": self.seed,
            "threads": self.threads,
            "load_average": list(self.load_average),
            "workloads": [w.as_json() for w in self.workloads],
        }


def suit_decided_pair_hands(t: HandTable, pairs: int, seed: int) -> npt.NDArray[np.uint8]:
    """The hands of ``pairs`` seeded disjoint pairs within rank classes whose keys differ,
    interleaved (a0, b0, a1, b1, ...)."""
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
    a = np.concatenate(found_a)[:pairs]
    b = np.concatenate(found_b)[:pairs]
    out = np.empty((2 * len(a), t.hands.shape[1]), dtype=np.uint8)
    out[0::2] = t.hands[a]
    out[1::2] = t.hands[b]
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
) -> BenchReport:
    """Time the vendor's library and the core on the three workloads."""
    native = NativeSpec.parse(spec)
    t = HandTable(game, rules)
    rng = np.random.default_rng(seed)
    random = t.hands[rng.integers(0, len(t.hands), random_hands)]
    # Shuffle each hand's cards too: evaluators get hands in any order.
    random = np.take_along_axis(
        random, rng.permuted(np.tile(np.arange(random.shape[1]), (len(random), 1)), axis=1), axis=1
    )
    workloads_in = [
        ("all hands, colex order", np.ascontiguousarray(t.hands)),
        (f"{random_hands:,} random hands (seed {seed})", np.ascontiguousarray(random)),
    ]
    pair_hands = suit_decided_pair_hands(t, pairs, seed)
    if len(pair_hands):
        workloads_in.append(
            (f"{len(pair_hands) // 2:,} suit-decided pairs (both hands)", pair_hands)
        )
    out = []
    with NativeEvaluator(native) as evaluator:
        for name, hands in workloads_in:
            vendor = Timing.of(evaluator.time_ns(hands, repeat), len(hands))
            out.append(
                Workload(
                    name,
                    len(hands),
                    vendor,
                    _time_core(t, hands, repeat, threads=False),
                    _time_core(t, hands, repeat, threads=True),
                )
            )
    return BenchReport(
        game=t.order.game,
        evaluator=str(native),
        repeat=repeat,
        seed=seed,
        threads=os.cpu_count() or 1,
        load_average=os.getloadavg(),
        workloads=tuple(out),
    )
