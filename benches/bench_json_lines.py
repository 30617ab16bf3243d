"""JSON Lines logs read in the core, uncompressed: this tree's reader and an older one's.

Run: .venv/bin/python benches/bench_json_lines.py
with TABLECERT_BENCH_BEFORE=OLD/python to time an older tree's build side by side (made as in
BENCHMARKS.md: ``git archive COMMIT | tar -x -C OLD``, then its core built into
OLD/python/tablecert/_core.abi3.so). Sizes: TABLECERT_BENCH_DECKS shuffles (default 200,000),
TABLECERT_BENCH_ROUNDS Q Poker rounds (default 200,000); TABLECERT_BENCH_REPEAT rounds of
every run, interleaved, best kept (default 3).

Writes a fair shuffler log (``fair.jsonl``, as ``tablecert simulate shuffler`` writes it) and a
clean Q Poker round log (``rounds.jsonl``: 10,000 simulated rounds repeated under distinct table
ids), both uncompressed, then times in a fresh process per run, after the imports:
- the shuffler log's core read (parse, check, tally; ``_core.ShuffleAudit.read_file``) with
  ``RAYON_NUM_THREADS`` 1 and 2;
- the round log's strict read (``read_rounds``: the core's ``RoundReader``, one thread) and
  the whole round audit (``audit_rounds``);
against the yardstick ``wc -l`` on the same file. Prints MB/s of log text by wall time and by
CPU time (user + system of the process during the run: steadier on a shared machine) and the
load before and after.
"""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECKS = int(os.environ.get("TABLECERT_BENCH_DECKS", "200000"))
ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS", "200000"))
REPEAT = int(os.environ.get("TABLECERT_BENCH_REPEAT", "3"))
BEFORE = os.environ.get("TABLECERT_BENCH_BEFORE")
BLOCK = 10_000

#: One timed run in a fresh process: prints {"wall": s, "cpu": s, "count": n}.
WORKER = """
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
from tablecert import _core
from tablecert.poker import ordering
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.log import read_rounds
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
wall, used = time.perf_counter(), cpu()
if kind == "shuffles":
    core = _core.ShuffleAudit("cards52", "logged", batch_size=10_000)
    core.read_file(path)
    count = core.records
elif kind == "read_rounds":
    count = sum(len(c) for c in read_rounds(path, "q-poker"))
else:
    result = audit_rounds([path], ordering("q-poker"))
    assert result.verdict == "pass"
    count = result.rounds
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": cpu() - used, "count": count}))
"""


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _logs(folder: Path) -> tuple[Path, Path]:
    from tablecert.audit.simulate import write_log
    from tablecert.poker import ordering
    from tablecert.rounds.simulate import write_rounds

    shuffles = write_log(folder / "fair.jsonl", "fair", DECKS, seed=42)
    block = folder / "block.jsonl"
    write_rounds(block, ordering("q-poker"), BLOCK, seed=3)
    rows = block.read_text(encoding="utf-8").splitlines()
    out = io.StringIO()
    for copy in range(ROUNDS // BLOCK):
        table = json.dumps(f"T{copy + 1}")
        # Each row starts with its table id; the copies differ only there.
        for row in rows:
            assert row.startswith('{"table_id": "T1"')
            out.write('{"table_id": ' + table + row[len('{"table_id": "T1"') :] + "\n")
    rounds = folder / "rounds.jsonl"
    rounds.write_text(out.getvalue(), encoding="utf-8")
    return shuffles, rounds


def _worker(tree: Path, kind: str, path: Path, threads: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree), RAYON_NUM_THREADS=str(threads))
    done = subprocess.run(
        [sys.executable, "-c", WORKER, kind, str(path)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def _wc(path: Path) -> dict[str, float]:
    wall = time.perf_counter()
    cpu = os.times()
    subprocess.run(["wc", "-l", str(path)], check=True, stdout=subprocess.DEVNULL)
    after = os.times()
    used = (after.children_user - cpu.children_user) + (after.children_system - cpu.children_system)
    return {"wall": time.perf_counter() - wall, "cpu": used}


def main() -> None:
    trees = {"after": ROOT / "python"}
    if BEFORE:
        trees = {"before": Path(BEFORE), **trees}
    with tempfile.TemporaryDirectory() as tmp:
        shuffles, rounds = _logs(Path(tmp))
        runs: dict[str, tuple[Path, Callable[[], dict[str, float]]]] = {
            "shuffles: wc -l (yardstick)": (shuffles, functools.partial(_wc, shuffles)),
            "rounds: wc -l (yardstick)": (rounds, functools.partial(_wc, rounds)),
        }
        for name, tree in trees.items():
            for threads in (1, 2):
                runs[f"shuffles: core read, {threads} thread(s), {name}"] = (
                    shuffles,
                    functools.partial(_worker, tree, "shuffles", shuffles, threads),
                )
            for kind in ("read_rounds", "audit_rounds"):
                runs[f"rounds: {kind}, {name}"] = (
                    rounds,
                    functools.partial(_worker, tree, kind, rounds, 1),
                )
        before = _load()
        best: dict[str, dict[str, float]] = {}
        for _ in range(REPEAT):
            for name, (_, run) in runs.items():
                got = run()
                if "count" in got:
                    assert got["count"] == (DECKS if name.startswith("shuffles") else ROUNDS)
                old = best.get(name)
                best[name] = {k: min(got[k], old[k]) if old else got[k] for k in ("wall", "cpu")}
        print(
            f"{DECKS:,} shuffles ({shuffles.stat().st_size:,} bytes), {ROUNDS:,} rounds "
            f"({rounds.stat().st_size:,} bytes), JSON Lines uncompressed, best of {REPEAT}; "
            f"load {before} -> {_load()}"
        )
        for name, (path, _) in runs.items():
            size = path.stat().st_size
            wall, cpu = best[name]["wall"], best[name]["cpu"]
            print(
                f"  {name:44s} {wall:7.3f} s wall {size / wall / 1e6:7.0f} MB/s   "
                f"{cpu:7.3f} s CPU {size / max(cpu, 1e-9) / 1e6:7.0f} MB/s"
            )


if __name__ == "__main__":
    main()
