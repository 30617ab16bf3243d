"""Where a ``--cluster`` client's time goes: whole ``tablecert analyze caribbean-stud
--no-cache --json --cluster ADDRESS`` processes on a running local cluster, with the command
process's own CPU seconds up to the shards' submission (``Client.map``, or their hand-off to
the client process the script started: ``tablecert.client_process``) and while the shards
run, the CPU seconds of the whole command (``os.wait4``: its client process included), and its
wall seconds to the submission and after the shards' answers.

Run: .venv/bin/python benches/bench_cluster_phases.py [ROUNDS] [WORKERS] [TREE ...]

Each TREE is a ``python`` folder put first on the clients' ``PYTHONPATH`` (default: this
tree's), so a tree before a change and the tree after it alternate on the same cluster and
the same moment of the machine. CPU seconds, which the machine's other work inflates less
than wall seconds, are the figures to compare on a shared machine. The cluster's workers run
this tree's code; the clients' par sheets are checked equal; the clients get the environment
this process was started with (see SHELL_ENV).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The client's own entry point, with a timestamp and the process's CPU seconds written to
# stderr when the shards are submitted and when their answers are back: by the command's
# process itself (a client in it), or handed to the client process the script started
# (tablecert.client_process: "submitted" is then when the shards are sent to it). A tree
# from before tablecert.client_process runs the first way, with its own entry point.
CHILD = r"""
import os, sys, time
start = float(sys.argv.pop(1))
import tablecert.distributed as d
def mark(what):
    os.write(2, f"@{what} {time.time() - start:.4f} {time.process_time():.4f}\n".encode())
def marked(real_map, hand_off):
    def map(self, fn, shards, progress=None):
        hand_off(self)
        answers = real_map(self, fn, shards, progress)
        mark("back")
        return answers
    return map
def by_dask(self):
    submit = self.client.map
    def submitted(*args, **kwargs):
        futures = submit(*args, **kwargs)
        mark("submitted")
        return futures
    self.client.map = submitted
d.DaskExecutor.map = marked(d.DaskExecutor.map, by_dask)
try:
    from tablecert import client_process as cp
    from tablecert.entry import main
except ImportError:
    from tablecert.cli import main
else:
    def by_child(self):
        send = self._process.send
        def sent(message):
            send(message)
            mark("submitted")
        self._process.send = sent
    cp.ProcessExecutor.map = marked(cp.ProcessExecutor.map, by_child)
sys.argv = ["tablecert", *sys.argv[1:]]
main()
"""

#: The environment as a shell gives it: starting a local cluster sets OMP_NUM_THREADS,
#: MKL_NUM_THREADS, OPENBLAS_NUM_THREADS (=1) and MALLOC_TRIM_THRESHOLD_ in this process's
#: os.environ (Dask's nanny.pre-spawn-environ), which the clients would otherwise inherit.
SHELL_ENV = dict(os.environ)

PHASES = ("to submit, wall", "to submit, CPU", "while shards run, CPU", "after, wall", "CPU")


def run(tree: str, address: str) -> tuple[dict[str, float], str]:
    """One client process: its phases and its par sheet (without where the figures came
    from)."""
    env = {**SHELL_ENV, "PYTHONPATH": tree}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.time()
    argv = [sys.executable, "-c", CHILD, repr(start), "analyze", "caribbean-stud"]
    argv += ["--no-cache", "--json", "--cluster", address]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as p:
        assert p.stdout is not None
        assert p.stderr is not None
        out = p.stdout.read()  # stderr has a few short lines: no pipe fills while this waits
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.time() - start
    assert p.returncode == 0, err.decode()
    marks = {
        line.split()[0][1:]: (float(line.split()[1]), float(line.split()[2]))
        for line in err.decode().splitlines()
        if line.startswith("@")
    }
    sheet = json.loads(out)
    sheet.pop("figures", None)
    (submit_wall, submit_cpu), (back_wall, back_cpu) = marks["submitted"], marks["back"]
    phases = dict(
        zip(
            PHASES,
            (
                submit_wall,
                submit_cpu,
                back_cpu - submit_cpu,
                wall - back_wall,
                usage.ru_utime + usage.ru_stime,
            ),
            strict=True,
        )
    )
    return phases, json.dumps(sheet, sort_keys=True)


def main(rounds: int = 4, workers: int = 2, trees: list[str] | None = None) -> None:
    from tablecert.distributed import local_cluster

    trees = trees or [str(Path(__file__).resolve().parent.parent / "python")]
    cluster = local_cluster(workers)
    try:
        address = str(cluster.client.scheduler.address)
        run(trees[0], address)  # warm-up: the workers' tables
        sheets: set[str] = set()
        found: dict[str, list[dict[str, float]]] = {t: [] for t in trees}
        for _ in range(rounds):
            for tree in trees:
                phases, sheet = run(tree, address)
                found[tree].append(phases)
                sheets.add(sheet)
        assert len(sheets) == 1, "the trees' par sheets differ"
    finally:
        cluster.close()
    print(f"{workers} workers, {rounds} rounds, load {os.getloadavg()[0]:.2f}")
    for tree, runs in found.items():
        print(tree)
        for phase in PHASES:
            values = [r[phase] for r in runs]
            print(
                f"  {phase:<22} min {min(values):.3f} s   median {statistics.median(values):.3f} s"
            )


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 4,
        int(sys.argv[2]) if len(sys.argv) > 2 else 2,
        sys.argv[3:] or None,
    )
