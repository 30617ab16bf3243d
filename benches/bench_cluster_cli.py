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
2-worker ratio (the issue's target: at least 1.7), with the load before and after; and the
CPU seconds of each run, the ``tablecert`` process's own (``os.wait4``) and the cluster's
workers' (their ``time.process_time`` before and after, summed): seconds the machine's other
work cannot inflate the way it inflates wall time.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from benches.bench_simulate import ENTRY

ROUNDS = 3


def _run(cluster: str | None) -> tuple[float, float, Any]:
    """One whole process: wall seconds, its own CPU seconds, the par sheet it printed."""
    argv = [sys.executable, "-c", ENTRY, "analyze", "caribbean-stud", "--no-cache", "--json"]
    if cluster is not None:
        argv += ["--cluster", cluster]
    start = time.perf_counter()
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as child:
        out = child.stdout.read() if child.stdout is not None else b""
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    assert child.returncode == 0, f"{argv}: exit {child.returncode}"
    sheet = json.loads(out)
    sheet.pop("figures", None)  # where the figures came from, not what they are
    return seconds, usage.ru_utime + usage.ru_stime, sheet


def _load() -> str:
    """``uptime``'s line (the process waited for: no ResourceWarning under pytest)."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def _workers_cpu(executor: Any) -> float:
    """The CPU seconds the cluster's worker processes have used so far, summed."""
    return float(sum(executor.client.run(time.process_time).values()))


def main(rounds: int = ROUNDS) -> dict[str, list[float]]:
    from tablecert.distributed import local_cluster

    one, two = local_cluster(1), local_cluster(2)
    try:
        clusters = {"1 worker": one, "2 workers": two}
        addresses = {k: str(c.client.scheduler.address) for k, c in clusters.items()}
        _, _, want = _run(None)
        for address in addresses.values():
            _, _, got = _run(address)  # warm-up: the workers' tables
            assert got == want, "a clustered par sheet differs from the local one"
        print(f"load before: {_load()}")
        times: dict[str, list[float]] = {"local": [], **{k: [] for k in addresses}}
        cpu: dict[str, list[float]] = {k: [] for k in times}
        workers: dict[str, list[float]] = {k: [] for k in addresses}
        for _ in range(rounds):
            seconds, own, got = _run(None)
            times["local"].append(seconds)
            cpu["local"].append(own)
            for name, address in addresses.items():
                before = _workers_cpu(clusters[name])
                seconds, own, got = _run(address)
                workers[name].append(_workers_cpu(clusters[name]) - before)
                assert got == want, name
                times[name].append(seconds)
                cpu[name].append(own)
        print(f"load after:  {_load()}")
    finally:
        one.close()
        two.close()
    print(f"analyze caribbean-stud --no-cache, whole processes, {rounds} rounds")
    for name, values in times.items():
        line = f"  {name:<10} min {min(values):6.2f} s   median {statistics.median(values):6.2f} s"
        line += f"   process CPU min {min(cpu[name]):5.2f} s"
        if name in workers:
            line += f"   workers' CPU min {min(workers[name]):5.2f} s"
        print(line)
    ratio = min(times["1 worker"]) / min(times["2 workers"])
    median = statistics.median(times["1 worker"]) / statistics.median(times["2 workers"])
    print(f"  1 worker / 2 workers: {ratio:.2f} (min), {median:.2f} (median); target >= 1.7")
    return times


def test_cluster_cli() -> None:
    """Run by ``pytest benches`` (prints the figures; ratios are measured, not asserted)."""
    main(1)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
