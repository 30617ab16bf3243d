"""The two parts of the Caribbean Stud sweep (statute, all upcards, single-threaded), alone
and side by side: what running two workers at once costs each of them, with no Dask in the
way (BENCHMARKS.md, "Second pass").

Each part runs in its own process (``RAYON_NUM_THREADS=1``) that first runs it once to build
its key tables and its histogram of the dealer hands that do not qualify (kept, as a warm
worker keeps them), then waits for a common start time and times one more run of its part:
CPU seconds (``time.process_time``) and wall seconds. "Alone": the two processes one after
the other; "side by side": both at once. The whole sweep (one part of one) alone is the
1-worker yardstick. Run (one command):

    .venv/bin/python benches/bench_sweep_parts.py

``TABLECERT_BENCH_ROUNDS`` (default 2) sets how many times each layout runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tablecert.games import caribbean_stud
from tablecert.poker import ordering

ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "2"))
WARM_UP = 15.0  # seconds for a process to start and build its tables before the start time


def _part(parts: int, k: int, start: float) -> None:
    """In a child process: warm up, wait for ``start``, time part ``k`` of ``parts``."""
    order = ordering("caribbean-stud", "caribbean-stud.macau")
    plan = caribbean_stud.hand_shards(order, caribbean_stud.payouts(order), parts)
    caribbean_stud.run_hand_shard(plan[k])
    while time.time() < start:
        time.sleep(0.01)
    cpu, wall = time.process_time(), time.perf_counter()
    caribbean_stud.run_hand_shard(plan[k])
    print(f"{time.process_time() - cpu:.3f} {time.perf_counter() - wall:.3f}")


def _run(layout: list[list[tuple[int, int]]]) -> list[tuple[float, float]]:
    """Each group of (parts, k) at once, the groups one after the other: (CPU, wall) each."""
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    out = []
    for group in layout:
        start = time.time() + WARM_UP
        procs = [
            subprocess.Popen(
                [sys.executable, __file__, str(parts), str(k), str(start)],
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for parts, k in group
        ]
        for p in procs:
            stdout, _ = p.communicate()
            if p.returncode != 0:
                raise RuntimeError(f"a part's process failed ({p.returncode})")
            cpu, wall = stdout.split()
            out.append((float(cpu), float(wall)))
    return out


def measure(rounds: int = ROUNDS) -> list[str]:
    one, five, fifteen = os.getloadavg()
    lines = [f"load average before: {one:.2f}, {five:.2f}, {fifteen:.2f}"]
    for r in range(rounds):
        (whole,) = _run([[(1, 0)]])
        alone = _run([[(2, 0)], [(2, 1)]])
        side = _run([[(2, 0), (2, 1)]])
        fmt = ", ".join
        lines.append(
            f"round {r + 1}: whole {whole[0]:.3f} CPU-s; parts alone "
            + fmt(f"{c:.3f}" for c, _ in alone)
            + " CPU-s; side by side "
            + fmt(f"{c:.3f}" for c, _ in side)
            + f" CPU-s (wall {fmt(f'{w:.3f}' for _, w in side)} s); "
            f"whole / slowest part: alone {whole[0] / max(c for c, _ in alone):.2f}, "
            f"side by side {whole[0] / max(c for c, _ in side):.2f}"
        )
    one, five, fifteen = os.getloadavg()
    lines.append(f"load average after: {one:.2f}, {five:.2f}, {fifteen:.2f}")
    return lines


if __name__ == "__main__":
    if len(sys.argv) == 4:
        _part(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
    else:
        print("\n".join(measure()))
