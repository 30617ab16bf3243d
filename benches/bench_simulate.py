"""Simulating a shuffler log, and a round log, against auditing it: whole processes, side by
side in one run.

Run: .venv/bin/python benches/bench_simulate.py [SHUFFLES] [ROUNDS]   (default 1,000,000 each)
or:  .venv/bin/python -m pytest benches/bench_simulate.py --benchmark-enable -s

Rounds: ``tablecert simulate rounds --game caribbean-stud --rounds N -o rounds.csv.gz``, then
``tablecert audit rounds --game caribbean-stud`` of that log and ``gzip -dc | wc -l``; with
``TABLECERT_BENCH_BEFORE`` naming an older checkout's ``python/`` folder, that tree's
simulator too, on ``TABLECERT_BENCH_BEFORE_ROUNDS`` rounds (default 20,000; the Python
simulator took 337 s for 10^6), its time scaled to N rounds.

Writes a fair 52-card log with ``tablecert simulate shuffler --model fair --shuffles N -o
fair.csv.gz`` in a temporary folder, then audits that same file as the issue measures it
(``tablecert audit shuffler LOG --input-order logged --game caribbean-stud --seats 6``) and
reads it with the yardstick ``gzip -dc LOG | wc -l``; prints each wall time, the simulator's
time over the audit's (the target: below 1), wall and CPU (user + system of each process), and
``uptime``'s load before and after (the machine is shared: compare ratios measured in the same
run, not seconds across runs).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENTRY = "from tablecert.entry import main; main()"
SHUFFLES = int(os.environ.get("TABLECERT_BENCH_DECKS", "1000000"))


def _load() -> str:
    return os.popen("uptime").read().strip()


def _timed(argv: list[str], verdicts: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the process and its children) of one process; an
    exit status outside ``verdicts`` is an error (an audit ends in 0, 1 or 3 whatever its
    verdict: each is a finished audit)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in verdicts:
        raise RuntimeError(f"{argv[2:5]} exited {done.returncode}: {done.stderr.decode()}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu


def measure(shuffles: int = SHUFFLES) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds of simulate, audit and the gzip yardstick on one fresh log, and the
    log's size in MB (as its first entry)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "fair.csv.gz"
        simulate = [sys.executable, "-c", ENTRY, "simulate", "shuffler", "--model", "fair"]
        simulate += ["--shuffles", str(shuffles), "--seed", "42", "-o", str(log)]
        audit = [sys.executable, "-c", ENTRY, "audit", "shuffler", str(log), "--input-order"]
        audit += ["logged", "--game", "caribbean-stud", "--seats", "6", "--json"]
        out = {"simulate": _timed(simulate)}
        out["log MB"] = (log.stat().st_size / 1e6, 0.0)
        out["audit"] = _timed(audit, (0, 1, 3))
        out["gzip -dc | wc -l"] = _timed(["sh", "-c", 'gzip -dc "$0" | wc -l', str(log)])
    return out


ROUNDS = int(os.environ.get("TABLECERT_BENCH_ROUNDS_LOG", "1000000"))


def measure_rounds(rounds: int = ROUNDS) -> dict[str, tuple[float, float]]:
    """Wall and CPU seconds of simulate rounds, audit rounds and the gzip yardstick on one
    fresh Caribbean Stud log (and the older tree's simulator, scaled, when named)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "rounds.csv.gz"
        game = ["--game", "caribbean-stud"]
        simulate = [sys.executable, "-c", ENTRY, "simulate", "rounds", *game]
        out = {"simulate": _timed([*simulate, "--rounds", str(rounds), "-o", str(log)])}
        out["log MB"] = (log.stat().st_size / 1e6, 0.0)
        out["audit"] = _timed([sys.executable, "-c", ENTRY, "audit", "rounds", *game, str(log)])
        out["gzip -dc | wc -l"] = _timed(["sh", "-c", 'gzip -dc "$0" | wc -l', str(log)])
        before = os.environ.get("TABLECERT_BENCH_BEFORE")
        if before:
            few = int(os.environ.get("TABLECERT_BENCH_BEFORE_ROUNDS", "20000"))
            old = Path(tmp) / "before.csv.gz"
            argv = [*simulate, "--rounds", str(few), "-o", str(old)]
            env = {**os.environ, "PYTHONPATH": before}
            start = time.perf_counter()
            subprocess.run(
                argv, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            out["simulate before (scaled)"] = ((time.perf_counter() - start) * rounds / few, 0.0)
    return out


def _report(what: str, run: Callable[[], dict[str, tuple[float, float]]]) -> dict[str, Any]:
    """Run one measurement between two load readings and print its table."""
    print(f"load before: {_load()}")
    got = run()
    print(f"load after:  {_load()}")
    print(f"{what}, gzip CSV of {got['log MB'][0]:.1f} MB")
    print(f"  {'':<26} {'wall':>7}   {'CPU':>7}")
    for key, (wall, cpu) in got.items():
        if key != "log MB":
            print(f"  {key:<26} {wall:7.2f} s {cpu:7.2f} s")
    wall = got["simulate"][0] / got["audit"][0]
    cpu = got["simulate"][1] / got["audit"][1]
    print(f"  {'simulate / audit':<26} {wall:7.2f}   {cpu:7.2f}    (target: below 1)")
    return got


def main(shuffles: int = SHUFFLES) -> dict[str, Any]:
    return _report(f"{shuffles:,} fair 52-card shuffles", lambda: measure(shuffles))


def main_rounds(rounds: int = ROUNDS) -> dict[str, Any]:
    return _report(f"{rounds:,} Caribbean Stud rounds", lambda: measure_rounds(rounds))


def test_simulate_faster_than_audit() -> None:
    """Run by ``pytest benches`` (prints the figures; the ratio is a measurement, not asserted:
    it is load-dependent)."""
    main(min(SHUFFLES, 200_000))
    main_rounds(min(ROUNDS, 100_000))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else SHUFFLES)
    main_rounds(int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS)
