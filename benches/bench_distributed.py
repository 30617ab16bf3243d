"""Scaling on Dask, side by side in one run: the full Caribbean Stud analysis (statute, no
cache) and a fleet audit of gzip logs of unequal sizes, each run locally (this process, the
core's threads on every core) and on running local clusters of 1 and 2 single-threaded worker
processes (``--workers 1|2``). Cluster start-up is not counted: both clusters are started and
each job is run once on them first ("first run": workers import tablecert and the Caribbean
workers build their key tables and the histogram of the dealer hands that do not qualify,
which they then keep; the local process does the same in its first run); the rounds after
that are interleaved (local, 1 worker, 2 workers, again) so that the machine's load hits all
three alike. A timed Caribbean round is one whole ``caribbean_stud.analyze(..., use_cache=
False)`` call in this process: reading the rule file, the shards' submission, their sweeps on
the workers, the answers sent back, the merge into the decision table, the progressive and
the par sheet's object. Every clustered answer is checked equal to the local one. The load
average is printed before and after: on a shared machine read the ratios, not the seconds.

After the table, the Caribbean shards alone (one ``executor.map`` on each warm cluster, best
of 3): each shard's wall and CPU seconds inside its worker, what the call took beyond its
slowest shard (submission, scheduling, the answers over the wire), the answers' pickled size
and the merge's time: where a cluster run's time goes. Last, what idle clusters' own timers
take of the cores, with Dask's default timers and with ``local_cluster``'s quieter ones.

Run (one command; prints the table BENCHMARKS.md quotes):

    .venv/bin/python benches/bench_distributed.py

or through pytest with the other benches (``pytest benches/bench_distributed.py -s``).
``TABLECERT_BENCH_ROUNDS`` (default 3) sets the rounds; ``TABLECERT_BENCH_FLEET_DECKS``
(default ``50000,10000,40000,10000,30000,20000,10000,30000``) the shuffles per log.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tablecert.audit.shuffler import audit_shuffler
from tablecert.audit.simulate import write_log
from tablecert.distributed import DaskExecutor, local_cluster
from tablecert.games import caribbean_stud
from tablecert.poker import ordering

pytest.importorskip("distributed")

ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "3"))
DECKS = [
    int(d)
    for d in os.environ.get(
        "TABLECERT_BENCH_FLEET_DECKS", "50000,10000,40000,10000,30000,20000,10000,30000"
    ).split(",")
]


@dataclass
class Timings:
    """Wall-clock seconds of one job on one executor: the first run, then the rounds."""

    first: float = 0.0
    rounds: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.rounds)

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def _caribbean(executor: DaskExecutor | None) -> caribbean_stud.CaribbeanAnalysis:
    return caribbean_stud.analyze("caribbean-stud.macau", use_cache=False, executor=executor)


def _fleet(root: Path) -> list[Path]:
    return [
        write_log(root / f"dev-{i}.csv.gz", "fair", decks, seed=i, device=f"SM-{i:04d}")
        for i, decks in enumerate(DECKS)
    ]


ShardResult = caribbean_stud.ShardAnswer


def timed_shard(shard: caribbean_stud.HandShard) -> tuple[ShardResult, float, float]:
    """One Caribbean shard where it runs: its answer, wall and CPU seconds in the worker (the
    load on the machine stretches wall-clock time far more than a single-threaded task's
    CPU time)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = caribbean_stud.run_hand_shard(shard)
    return result, time.perf_counter() - wall, time.process_time() - cpu


@dataclass
class ShardCall:
    """One warm ``executor.map`` of the Caribbean shards: the call's wall seconds, each
    shard's wall and CPU seconds inside its worker, the answers' pickled bytes and the
    merge's seconds. What the call costs beyond its slowest shard is the cluster's own
    (submission, scheduling, results over the wire)."""

    call: float
    walls: list[float]
    cpus: list[float]
    result_bytes: int
    merge: float

    @property
    def outside(self) -> float:
        return self.call - max(self.walls)


def _shard_call(executor: DaskExecutor) -> ShardCall:
    """The plan the executor gets (parts of the hands), run once; the best of three calls."""
    order = ordering("caribbean-stud", "caribbean-stud.macau")
    pay = caribbean_stud.payouts(order)
    plan = caribbean_stud.hand_shards(
        order, pay, caribbean_stud.SHARDS_PER_THREAD * executor.parallelism
    )
    calls = []
    for _ in range(3):
        start = time.perf_counter()
        done = executor.map(timed_shard, plan)
        call = time.perf_counter() - start
        start = time.perf_counter()
        caribbean_stud.merge_hand_shards([d[0] for d in done])
        merge = time.perf_counter() - start
        size = sum(len(pickle.dumps(d[0])) for d in done)
        calls.append(ShardCall(call, [d[1] for d in done], [d[2] for d in done], size, merge))
    return min(calls, key=lambda c: c.call)


def _idle_share(seconds: float = 5.0) -> float:
    """The CPU this process and its children (the clusters' worker processes; the schedulers
    and nannies run in this one) take while idle, as a share of one core."""
    import psutil  # type: ignore[import-untyped]

    def cpu() -> float:
        me = psutil.Process()
        total = 0.0
        for p in [me, *me.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    time.sleep(1.0)  # the start-up settles
    before, start = cpu(), time.perf_counter()
    time.sleep(seconds)
    return (cpu() - before) / (time.perf_counter() - start)


def idle_clusters() -> list[str]:
    """A 1-worker and a 2-worker cluster side by side, idle: the share of a core their own
    timers take, with Dask's default timers and with ``local_cluster``'s (``QUIET_SERVERS``)."""
    import distributed

    shares = {}
    for name in ("Dask's default timers", "local_cluster (QUIET_SERVERS)"):
        if name.startswith("Dask"):
            clusters = [
                distributed.LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
                )
                for n in (1, 2)
            ]
            clients = [distributed.Client(c) for c in clusters]
            shares[name] = _idle_share()
            for client, cluster in zip(clients, clusters, strict=True):
                client.close()
                cluster.close()
        else:
            executors = [local_cluster(1), local_cluster(2)]
            shares[name] = _idle_share()
            for executor in executors:
                executor.close()
    return [
        f"- idle 1-worker and 2-worker clusters, {name}: {share:.1%} of a core"
        for name, share in shares.items()
    ]


def measure(rounds: int = ROUNDS) -> list[str]:
    """Run every job side by side; the report as lines of text (a Markdown table)."""
    lines = [f"load average before: {_load()}"]
    jobs: dict[str, dict[str, Timings]] = {"caribbean": {}, "fleet": {}}
    with tempfile.TemporaryDirectory() as tmp:
        files = _fleet(Path(tmp))
        clusters = {"1 worker": local_cluster(1), "2 workers": local_cluster(2)}
        runs: dict[str, DaskExecutor | None] = {"local": None, **clusters}
        answers: dict[str, Any] = {}

        def run(job: str, name: str) -> float:
            """One timed run, its answer checked against the first one of its kind."""
            executor = runs[name]
            start = time.perf_counter()
            if job == "caribbean":
                result: Any = _caribbean(executor)
            else:
                result = audit_shuffler(files, executor=executor)
            seconds = time.perf_counter() - start
            if job == "caribbean":
                answer: Any = (result.categories, result.decisions)
            else:
                assert result.tally.shuffles == sum(DECKS)
                # One stream locally, one stream per file on a cluster: compare like with like.
                job = "fleet local" if executor is None else "fleet sharded"
                answer = result.as_json()
            assert answers.setdefault(job, answer) == answer, job
            return seconds

        try:
            for job, timings in jobs.items():
                for name in runs:
                    timings[name] = Timings(first=run(job, name))
            for _ in range(rounds):
                for job, timings in jobs.items():
                    for name in runs:
                        timings[name].rounds.append(run(job, name))
            calls = {name: _shard_call(executor) for name, executor in clusters.items()}
        finally:
            for executor in clusters.values():
                executor.close()
    lines.append(f"load average after: {_load()}")
    lines.append("")
    lines.append(
        "| job | run | first run | best of rounds | median | rounds | "
        "1 worker / this (speed-up) | this / local |"
    )
    lines.append("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
    titles = {
        "caribbean": "Caribbean Stud, statute, no cache",
        "fleet": f"fleet audit, {len(DECKS)} gzip logs, {sum(DECKS):,} shuffles",
    }
    for job, timings in jobs.items():
        local, one = timings["local"], timings["1 worker"]
        for name, t in timings.items():
            speedup = f"{one.best / t.best:.2f}" if name != "local" else "-"
            lines.append(
                f"| {titles[job]} | {name} | {t.first:.2f} s | {t.best:.2f} s | "
                f"{t.median:.2f} s | {', '.join(f'{s:.2f}' for s in t.rounds)} | "
                f"{speedup} | {t.best / local.best:.2f} |"
            )
    lines.append("")
    lines.append(
        "Caribbean shards on the warm clusters, best of 3 calls (seconds; CPU inside the "
        "shards; outside = the call beyond its slowest shard: submission, scheduling, results):"
    )
    for name, c in calls.items():
        lines.append(
            f"- {name}: call {c.call:.3f}; shards wall "
            + ", ".join(f"{w:.3f}" for w in c.walls)
            + ", CPU "
            + ", ".join(f"{x:.3f}" for x in c.cpus)
            + f"; outside {c.outside:.3f}; results {c.result_bytes / 1e6:.2f} MB pickled; "
            f"merge {c.merge:.3f}"
        )
    alone, slowest = sum(calls["1 worker"].cpus), max(calls["2 workers"].cpus)
    lines.append(
        f"- speed-up on dedicated cores (1-worker shard CPU / slowest 2-worker shard CPU): "
        f"{alone / slowest:.2f}"
    )
    lines.append("")
    lines.append("What the clusters' own timers take from the shards' cores (5 s idle each):")
    lines.extend(idle_clusters())
    return lines


if __name__ != "__main__":
    # The workers import tablecert, not the benches: send this module's functions by value.
    import cloudpickle  # type: ignore[import-untyped]

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_distributed_side_by_side() -> None:
    print("\n".join(measure()))


if __name__ == "__main__":
    logging.getLogger("distributed").setLevel(logging.WARNING)
    print("\n".join(measure()))
