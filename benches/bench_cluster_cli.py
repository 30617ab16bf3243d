"""The Caribbean Stud analysis as a user runs it on a running cluster: whole ``tablecert``
processes (start-up, client connection, submission, the shards, the merge, the par sheet),
on a running 1-worker and a running 2-worker local cluster, side by side in one run.

Run: .venv/bin/python benches/bench_cluster_cli.py [ROUNDS] [TREE ...]   (default 3 rounds)

Each TREE is a ``python`` folder put first on the commands' ``PYTHONPATH`` (default: the
interpreter's own ``tablecert``), run through its own entry point (``tablecert.entry``, or
``tablecert.cli`` in a tree from before it): a tree before a change and the tree after it
alternate on the same two clusters at the same moments of the machine (the workers run this
tree's code).

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
from pathlib import Path
from typing import Any

from benches.bench_simulate import ENTRY

ROUNDS = 3

Figures = dict[tuple[str | None, str], list[float]]
"""Seconds by (tree, run: local, 1 worker, 2 workers)."""


def _run(cluster: str | None, tree: str | None = None) -> tuple[float, float, Any]:
    """One whole process: wall seconds, its own CPU seconds, the par sheet it printed."""
    env = dict(os.environ)
    entry = ENTRY
    if tree is not None:
        env["PYTHONPATH"] = tree
        if not (Path(tree) / "tablecert" / "entry.py").exists():
            entry = "from tablecert.cli import main; main()"
    argv = [sys.executable, "-c", entry, "analyze", "caribbean-stud", "--no-cache", "--json"]
    if cluster is not None:
        argv += ["--cluster", cluster]
    start = time.perf_counter()
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    ) as child:
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


def main(rounds: int = ROUNDS, trees: list[str] | None = None) -> dict[str, list[float]]:
    """The rounds on each tree (``None``: the interpreter's own ``tablecert``); the wall
    seconds by "TREE: run"."""
    from tablecert.distributed import local_cluster

    chosen: list[str | None] = list(trees) if trees else [None]
    one, two = local_cluster(1), local_cluster(2)
    try:
        clusters = {"1 worker": one, "2 workers": two}
        addresses = {k: str(c.client.scheduler.address) for k, c in clusters.items()}
        _, _, want = _run(None, chosen[0])
        for tree in chosen:
            for address in addresses.values():
                _, _, got = _run(address, tree)  # warm-up: the workers' tables
                assert got == want, "a clustered par sheet differs from the local one"
        print(f"load before: {_load()}")
        runs = ["local", *addresses]
        times: Figures = {(t, k): [] for t in chosen for k in runs}
        cpu: Figures = {key: [] for key in times}
        workers: Figures = {(t, k): [] for t in chosen for k in addresses}
        for _ in range(rounds):
            for tree in chosen:
                for name in runs:
                    target = addresses.get(name)
                    before = 0.0 if target is None else _workers_cpu(clusters[name])
                    seconds, own, got = _run(target, tree)
                    if target is not None:
                        workers[tree, name].append(_workers_cpu(clusters[name]) - before)
                    assert got == want, name
                    times[tree, name].append(seconds)
                    cpu[tree, name].append(own)
        print(f"load after:  {_load()}")
    finally:
        one.close()
        two.close()
    print(f"analyze caribbean-stud --no-cache, whole processes, {rounds} rounds")
    for tree in chosen:
        if tree is not None:
            print(tree)
        for name in runs:
            values = times[tree, name]
            line = (
                f"  {name:<10} min {min(values):6.2f} s   median {statistics.median(values):6.2f} s"
            )
            line += f"   process CPU min {min(cpu[tree, name]):5.2f} s"
            if name in addresses:
                line += f"   workers' CPU min {min(workers[tree, name]):5.2f} s"
            print(line)
        ones, twos = times[tree, "1 worker"], times[tree, "2 workers"]
        ratio = min(ones) / min(twos)
        median = statistics.median(ones) / statistics.median(twos)
        print(f"  1 worker / 2 workers: {ratio:.2f} (min), {median:.2f} (median); target >= 1.7")
    return {f"{tree or 'this tree'}: {name}": v for (tree, name), v in times.items()}


def test_cluster_cli() -> None:
    """Run by ``pytest benches`` (prints the figures; ratios are measured, not asserted)."""
    main(1)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS, sys.argv[2:] or None)
