"""The Caribbean Stud analysis as a user runs it on a running cluster: whole ``tablecert``
processes (start-up, client connection, submission, the shards, the merge, the par sheet),
on a running 1-worker and a running 2-worker local cluster, side by side in one run.

Run: .venv/bin/python benches/bench_cluster_cli.py [ROUNDS]   (default 3)

Both clusters are started first (``local_cluster``: single-threaded worker processes, as
``--workers`` makes them) and each is warmed by one run (workers import tablecert and build
their tables, which they keep, as a running cluster does); then the rounds alternate: the
local multi-core run (no cluster), the 1-worker cluster, the 2-worker cluster. Every run is
``tablecert analyze caribbean-stud --no-cache [--cluster ADDRESS] --json``; its output is
checked equal to the local run's. Prints min and median wall seconds and the 1-worker /
2-worker ratio (the issue's target: at least 1.7), with the load before and after.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Any

from benches.bench_simulate import ENTRY, _load

ROUNDS = 3


def _run(cluster: str | None) -> tuple[float, Any]:
    argv = [sys.executable, "-c", ENTRY, "analyze", "caribbean-stud", "--no-cache", "--json"]
    if cluster is not None:
        argv += ["--cluster", cluster]
    start = time.perf_counter()
    done = subprocess.run(argv, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    sheet = json.loads(done.stdout)
    sheet.pop("figures", None)  # where the figures came from, not what they are
    return seconds, sheet


def main(rounds: int = ROUNDS) -> dict[str, list[float]]:
    from tablecert.distributed import local_cluster

    one, two = local_cluster(1), local_cluster(2)
    try:
        addresses = {"1 worker": str(one.client.scheduler.address)}
        addresses["2 workers"] = str(two.client.scheduler.address)
        _, want = _run(None)
        for address in addresses.values():
            _, got = _run(address)  # warm-up: the workers' tables
            assert got == want, "a clustered par sheet differs from the local one"
        print(f"load before: {_load()}")
        times: dict[str, list[float]] = {"local": [], **{k: [] for k in addresses}}
        for _ in range(rounds):
            seconds, got = _run(None)
            times["local"].append(seconds)
            for name, address in addresses.items():
                seconds, got = _run(address)
                assert got == want, name
                times[name].append(seconds)
        print(f"load after:  {_load()}")
    finally:
        one.close()
        two.close()
    print(f"analyze caribbean-stud --no-cache, whole processes, {rounds} rounds")
    for name, values in times.items():
        print(f"  {name:<10} min {min(values):6.2f} s   median {statistics.median(values):6.2f} s")
    ratio = min(times["1 worker"]) / min(times["2 workers"])
    median = statistics.median(times["1 worker"]) / statistics.median(times["2 workers"])
    print(f"  1 worker / 2 workers: {ratio:.2f} (min), {median:.2f} (median); target >= 1.7")
    return times


def test_cluster_cli() -> None:
    """Run by ``pytest benches`` (prints the figures; ratios are measured, not asserted)."""
    main(1)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
