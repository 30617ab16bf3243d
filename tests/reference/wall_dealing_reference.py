"""Brute-force laws of simple statistics of a mahjong hand, by listing every hand.

Shares no code with tablecert. A deck is four physical copies of each tile name; a hand is any
set of ``size`` physical tiles (copies are distinct objects, as in a real wall), so listing
``itertools.combinations`` of the physical tiles counts each hand exactly once.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

HONOURS = {"E", "S", "W", "N", "Rd", "Gd", "Wd"}


def statistic(names: list[str], which: str) -> int:
    held = Counter(names)
    if which == "types":
        return len(held)
    if which == "pairs":
        return sum(1 for n in held.values() if n >= 2)
    if which == "honours":
        return sum(1 for name in names if name in HONOURS)
    raise ValueError(which)


def brute_counts(tile_names: list[str], size: int, which: str) -> dict[int, int]:
    """How many of the C(4T, size) hands take each value of the statistic."""
    physical = [(name, copy) for name in tile_names for copy in range(4)]
    out: Counter[int] = Counter()
    for hand in combinations(physical, size):
        out[statistic([name for name, _ in hand], which)] += 1
    return dict(out)
