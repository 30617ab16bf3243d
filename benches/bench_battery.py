"""CPU time of the shuffler battery on each full batch (``run_battery`` of a 10,000-shuffle
``Tally``, as ``audit shuffler`` runs it between read groups for the second level), in fresh
processes: the first pass over the batches (the battery's caches filled on the way, SciPy
loaded beforehand) and the best later pass.

Run: .venv/bin/python -m pytest benches/bench_battery.py -s
(``TABLECERT_BENCH_DECKS`` simulated fair shuffles, default 1,000,000 = 100 batches;
``TABLECERT_BENCH_ROUNDS`` rounds, default 3; ``TABLECERT_BENCH_BEFORE=DIR`` also times the
battery of another ``python`` tree, e.g. ``git archive REV python | tar -x -C DIR`` with the
built core and ``python/tablecert/data`` copied in, round by round interleaved with this one).
BENCHMARKS.md reports the figures, with the load average printed here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = """
import json, sys, time
from tablecert import _core
from tablecert.audit.battery import Tally, run_battery
from tablecert.stats import pvalues
pvalues.norm_sf(0.0)  # SciPy loaded outside the timing, as the audit's first batch does
decks, deck = int(sys.argv[1]), sys.argv[2]
core = _core.ShuffleAudit(deck, "logged", batch_size=10_000)
core.add_simulated("fair", decks, 42)
core.finish()
tallies = [Tally.from_core(deck, raw) for raw in core.take_batches()]
passes = []
for _ in range(4):
    start = time.process_time()
    for t in tallies:
        run_battery(t)
    passes.append((time.process_time() - start) / len(tallies))
print(json.dumps({"batches": len(tallies), "first": passes[0], "best": min(passes[1:])}))
"""


def _run(tree: Path | None, decks: int, deck: str) -> dict[str, float]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(decks), deck],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


@pytest.mark.parametrize("deck", ["cards52", "mahjong136"])
def test_battery_cpu_per_batch(deck: str) -> None:
    decks = int(os.environ.get("TABLECERT_BENCH_DECKS", "1000000"))
    rounds = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "3"))
    before = os.environ.get("TABLECERT_BENCH_BEFORE")
    trees: dict[str, Path | None] = {"this tree": None}
    if before:
        trees = {"before": Path(before), **trees}
    print(f"\nload average before: {os.getloadavg()}")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            runs[name].append(_run(tree, decks, deck))
    print(f"load average after: {os.getloadavg()}")
    for name, results in runs.items():
        first = min(r["first"] for r in results) * 1e3
        best = min(r["best"] for r in results) * 1e3
        print(
            f"{deck}, {name}: {int(results[0]['batches'])} batches of 10,000; CPU per battery: "
            f"first pass {first:.3f} ms, later passes {best:.3f} ms (best of {rounds} processes)"
        )
        assert best > 0
