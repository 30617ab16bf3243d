"""Hold analysis (``tablecert audit rounds --hold``) side by side with the audit without it.

Run: TABLECERT_BENCH_HOLD_ROUNDS=20000 .venv/bin/python -m pytest benches/bench_hold.py
--benchmark-enable -s. Per game, a clean simulated JSON Lines log (1-7 seats a round); timed
in the same run: the audit alone (the yardstick), the audit with the hold analysis, and the
core's completion count alone (``KeyTable.dealer_splits`` over every round). The number of
dealer completions enumerated is printed, so the cost per completion can be read off; the load
average is printed before and after. The machine is shared: compare ratios, not seconds
(BENCHMARKS.md, "Hold analysis").
"""

from __future__ import annotations

import os
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tablecert.hand_arrays import key_table
from tablecert.poker import ordering
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.hold import HoldParameters
from tablecert.rounds.log import read_rounds
from tablecert.rounds.simulate import write_rounds

ROUNDS = int(os.environ.get("TABLECERT_BENCH_HOLD_ROUNDS", "20000"))
GAMES = ("q-poker", "caribbean-stud")


pytestmark = pytest.mark.usefixtures("load_printed")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hold")
    out = {}
    for game in GAMES:
        path = folder / f"{game}.jsonl"
        write_rounds(path, ordering(game), ROUNDS, seed=4)
        out[game] = path
        audit_rounds([path], ordering(game), hold=HoldParameters())  # strategy tables warm
    return out


def _kernel_inputs(path: Path, game: str) -> tuple[list[npt.NDArray[Any]], int]:
    """Every non-void round's dealt cards and thresholds (qualifier + each seat's key)."""
    kt = key_table(game)
    hidden = 4 if game == "caribbean-stud" else 3
    fixed, dead, thresholds, offsets, completions = [], [], [], [0], 0
    for chunk in read_rounds(path, game):
        a = chunk.arrays
        keys = np.empty(len(a.seat_cards), dtype=np.uint32)
        kt.keys_into(np.ascontiguousarray(np.maximum(a.seat_cards, 0), dtype=np.uint8), keys)
        for r in np.flatnonzero(~a.void).tolist():
            rows = np.flatnonzero(a.seat_round == r)
            cards = a.seat_cards[rows].ravel().tolist()
            up = int(a.upcard[r]) if game == "caribbean-stud" else 255
            mask = sum(1 << c for c in cards) | (1 << up if up != 255 else 0)
            fixed.append(up)
            dead.append(mask)
            thresholds.extend([0, *keys[rows].tolist()])
            offsets.append(len(thresholds))
            completions += comb(52 - len(cards) - (up != 255), hidden)
    arrays: list[npt.NDArray[Any]] = [
        np.array(fixed, dtype=np.uint8),
        np.array(dead, dtype=np.uint64),
        np.array(offsets, dtype=np.uint64),
        np.array(thresholds, dtype=np.uint32),
    ]
    return arrays, completions


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["yardstick: audit rounds", "audit rounds --hold", "kernel"])
def test_hold(benchmark: BenchmarkFixture, logs: dict[str, Path], game: str, name: str) -> None:
    path = logs[game]
    if name == "kernel":
        (fixed, dead, offsets, thresholds), completions = _kernel_inputs(path, game)
        below = np.zeros(len(thresholds), dtype=np.uint64)
        equal = np.zeros(len(thresholds), dtype=np.uint64)
        kt = key_table(game)
        print(f"\n{game}: {completions:,} dealer completions in {len(fixed):,} rounds")
        benchmark.pedantic(
            kt.dealer_splits,
            args=(fixed, dead, offsets, thresholds, below, equal),
            rounds=1,
            warmup_rounds=0,
        )
        return
    hold = HoldParameters() if name.endswith("--hold") else None
    benchmark.pedantic(audit_rounds, args=([path], ordering(game)), kwargs={"hold": hold}, rounds=1)
