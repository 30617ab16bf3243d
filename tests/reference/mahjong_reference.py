"""A slow, obviously-correct reading of Art. 4 of the mahjong statute: sets and a pair.

Shares no code with tablecert. A tile is a code like "5m", "E" or "Gd"; a hand is a list of
codes. ``decompositions`` tries every way to remove a pair, then removes sets from the smallest
tile left, and returns each reading as a sorted tuple of groups.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

SUITED = [f"{n}{s}" for s in "mps" for n in range(1, 10)]
HONOURS = ["E", "S", "W", "N", "Rd", "Gd", "Wd"]
TRADITIONAL = SUITED + HONOURS  # Art. 2(2)(甲): 34 kinds, four of each
SIMPLE = [*SUITED, "Gd"]  # Art. 2(2)(乙): the three suits and 發
ORDER = {t: i for i, t in enumerate(TRADITIONAL)}


def _next(tile: str) -> str | None:
    """The next tile of the same suit, or None for a 9 or an honour."""
    if tile in HONOURS or tile[0] == "9":
        return None
    return f"{int(tile[0]) + 1}{tile[1]}"


def _sets(counts: Counter[str], need: int) -> list[tuple[tuple[str, ...], ...]]:
    """Every way to split ``counts`` into exactly ``need`` sets, as sorted tuples of groups."""
    left = sorted((t for t, c in counts.items() if c > 0), key=ORDER.__getitem__)
    if not left:
        return [()] if need == 0 else []
    if need == 0:
        return []
    first = left[0]
    found: list[tuple[tuple[str, ...], ...]] = []
    if counts[first] >= 3:
        rest = counts.copy()
        rest[first] -= 3
        found += [((first, first, first), *r) for r in _sets(rest, need - 1)]
    second = _next(first)
    third = _next(second) if second else None
    if second and third and counts[second] > 0 and counts[third] > 0:
        rest = counts.copy()
        for t in (first, second, third):
            rest[t] -= 1
        found += [((first, second, third), *r) for r in _sets(rest, need - 1)]
    return found


def decompositions(hand: list[str], sets: int = 4) -> set[tuple[tuple[str, ...], ...]]:
    """All readings of ``hand`` as ``sets`` sets plus one pair; the pair is the first group."""
    counts = Counter(hand)
    out: set[tuple[tuple[str, ...], ...]] = set()
    for tile in counts:
        if counts[tile] >= 2:
            rest = counts.copy()
            rest[tile] -= 2
            for reading in _sets(rest, sets):
                out.add(((tile, tile), *sorted(reading)))
    return out


def is_thirteen_orphans(hand: list[str]) -> bool:
    orphans = {"1m", "9m", "1p", "9p", "1s", "9s", *HONOURS}
    return len(hand) == 14 and set(hand) == orphans


def count_complete_simple() -> tuple[int, int]:
    """Brute force over every 5-tile multiset of the simple game's 28 kinds: (distinct hands,
    physical combinations out of C(112, 5))."""
    distinct = 0
    combos = 0
    for hand in combinations_with_replacement(SIMPLE, 5):
        counts = Counter(hand)
        if max(counts.values()) > 4:
            continue
        if decompositions(list(hand), sets=1):
            distinct += 1
            ways = 1
            for c in counts.values():
                ways *= [1, 4, 6, 4, 1][c]
            combos += ways
    return distinct, combos
