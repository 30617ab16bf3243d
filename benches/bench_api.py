"""The Python API per call from strings, side by side with treys (a pure-Python 5-card
evaluator from PyPI, ``pip install -e '.[bench]'``), interleaved in one process.

Run: .venv/bin/python benches/bench_api.py [HANDS]   (default 100,000 hand strings)
Each round times every row once, tablecert and treys alternating; five rounds, then the
minimum and the median of each and the ratio treys / tablecert (above 1: tablecert is faster).
Rows: ``tablecert.evaluate`` against treys' ``Evaluator.evaluate`` of ``Card.new`` of each
code, for Caribbean Stud and for a game described by its rule file (Four Card Poker);
``tablecert.compare`` of two disjoint hands against two treys evaluations and a comparison;
and the batch fast path ``hand_arrays.strength_keys`` (an (n, 5) array of card ids) against
treys' evaluation of hands already parsed to its card ints, treys' own fastest form.
Before timing, the two are checked to order a sample of hand pairs alike wherever treys (rank
only) sees a difference, so both sides compute the same thing.
"""

from __future__ import annotations

import importlib
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import tablecert
from tablecert import hand_arrays
from tablecert.poker import parse_hand

GAME = "caribbean-stud"
#: A game of the generic engine, by its bundled rule file: a 5-card hand counts its best 4.
DESCRIBED = "four-card-poker.standard"
ROUNDS = 5
CODES = [r + s for r in "23456789TJQKA" for s in "shdc"]


def deal(n: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """n pairs of disjoint 5-card hands as text ("As Kd Qh Jc 9s")."""
    rng = random.Random(seed)
    a, b = [], []
    for _ in range(n):
        cards = rng.sample(CODES, 10)
        a.append(" ".join(cards[:5]))
        b.append(" ".join(cards[5:]))
    return a, b


def rows(
    treys: Any, hands: list[str], others: list[str]
) -> dict[str, dict[str, Callable[[], object]]]:
    card, evaluator = treys.Card, treys.Evaluator()
    new, score = card.new, evaluator.evaluate
    ids = np.array([parse_hand(h) for h in hands], dtype=np.int64)
    treys_ints = [[new(c) for c in h.split()] for h in hands]
    pairs = list(zip(hands, others, strict=True))

    def t_evaluate() -> object:
        return [score([new(c) for c in h.split()], []) for h in hands]

    def t_compare() -> object:
        # treys: lower score is the stronger hand.
        out = []
        for a, b in pairs:
            sa, sb = score([new(c) for c in a.split()], []), score([new(c) for c in b.split()], [])
            out.append((sb > sa) - (sb < sa))
        return out

    def t_batch() -> object:
        return [score(h, []) for h in treys_ints]

    return {
        "evaluate from strings": {
            "tablecert": lambda: [tablecert.evaluate(GAME, h) for h in hands],
            "treys": t_evaluate,
        },
        "evaluate from strings, a described game (four-card-poker.standard: best 4 of 5)": {
            "tablecert": lambda: [tablecert.evaluate(DESCRIBED, h) for h in hands],
            "treys": t_evaluate,
        },
        "compare from strings": {
            "tablecert": lambda: [tablecert.compare(GAME, a, b) for a, b in pairs],
            "treys": t_compare,
        },
        "batch (tablecert: strength_keys of an id array; treys: parsed ints)": {
            "tablecert": lambda: hand_arrays.strength_keys(GAME, ids),
            "treys": t_batch,
        },
    }


def check_agreement(treys: Any, hands: list[str], others: list[str]) -> int:
    """Pairs where treys sees a strict difference and tablecert's statute order agrees
    (the statute only adds suit tie-breaks to the rank order treys implements)."""
    new, score = treys.Card.new, treys.Evaluator().evaluate
    agreed = 0
    for a, b in zip(hands, others, strict=True):
        sa, sb = score([new(c) for c in a.split()], []), score([new(c) for c in b.split()], [])
        if sa != sb:
            want = 1 if sa < sb else -1
            got = tablecert.compare(GAME, a, b)
            if (got > 0) - (got < 0) != want:
                raise AssertionError(f"tablecert and treys disagree on {a!r} vs {b!r}")
            agreed += 1
    return agreed


def main(n: int) -> None:
    try:
        treys = importlib.import_module("treys")
    except ImportError:
        sys.exit("error: treys is not installed: pip install -e '.[bench]'")
    hands, others = deal(n)
    agreed = check_agreement(treys, hands[:2000], others[:2000])
    table = rows(treys, hands, others)
    for sides in table.values():  # warm-up: rule files, orderings, key table, treys' tables
        for run in sides.values():
            run()
    samples: dict[tuple[str, str], list[float]] = {}
    print(f"load before: {os.getloadavg()}; {n:,} hands; {agreed:,} treys-decided pairs agree")
    for _ in range(ROUNDS):
        for row, sides in table.items():
            for side, run in sides.items():
                start = time.perf_counter()
                run()
                samples.setdefault((row, side), []).append(time.perf_counter() - start)
    print(f"load after: {os.getloadavg()}")
    for row in table:
        tc, tr = samples[(row, "tablecert")], samples[(row, "treys")]
        print(
            f"{row}: tablecert min {n / min(tc) / 1e3:,.0f} k/s median "
            f"{n / statistics.median(tc) / 1e3:,.0f} k/s; treys min {n / min(tr) / 1e3:,.0f} k/s "
            f"median {n / statistics.median(tr) / 1e3:,.0f} k/s; ratio treys/tablecert "
            f"min {min(tr) / min(tc):.2f} median "
            f"{statistics.median(tr) / statistics.median(tc):.2f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
