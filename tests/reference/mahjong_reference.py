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


DRAGONS = ("Rd", "Gd", "Wd")
WINDS = ("E", "S", "W", "N")


def _suit(tile: str) -> str | None:
    return None if tile in HONOURS else tile[1]


def _reading_fan(reading: tuple[tuple[str, ...], ...], seat: str, round_wind: str) -> int:
    """Art. 6 (甲) items of one reading of a concealed, self-drawn hand, added (no cap)."""
    pair, sets = reading[0][0], reading[1:]
    pungs = [g[0] for g in sets if g[0] == g[1]]
    tiles = [t for g in reading for t in g]
    suits = {_suit(t) for t in tiles} - {None}
    honours = any(t in HONOURS for t in tiles)
    dragon_pungs = [t for t in pungs if t in DRAGONS]
    wind_pungs = [t for t in pungs if t in WINDS]
    fan = 0
    big_dragons = len(dragon_pungs) == 3
    big_winds = len(wind_pungs) == 4
    if big_dragons:
        fan += 2
    else:
        fan += len(dragon_pungs)
        if len(dragon_pungs) == 2 and pair in DRAGONS:
            fan += 1  # small three dragons
    if big_winds:
        fan += 2
    else:
        for w in wind_pungs:
            fan += (w == seat) + (w == round_wind)
        if len(wind_pungs) == 3 and pair in WINDS:
            fan += 1  # small four winds
    if len(pungs) == 4:
        fan += 2  # concealed all pungs (nothing exposed here)
    all_chows = not pungs and pair not in DRAGONS and pair not in (seat, round_wind)
    half_flush = len(suits) == 1 and honours
    if half_flush and all_chows:
        fan += 2
    else:
        fan += all_chows + half_flush
    if len(suits) == 1 and not honours:
        fan += 2  # full flush
    if not suits:
        fan += 2  # all honours
    if all(t in HONOURS or t[0] in "19" for t in tiles):
        if suits and honours:
            fan += 1  # mixed terminals
        elif not honours:
            fan += 2  # all terminals
    return fan


def best_fan(hand: list[str], seat: str, round_wind: str, cap: int = 2) -> tuple[int, int]:
    """(capped fan, raw fan) of the best reading of a concealed self-drawn 14-tile win."""
    if is_thirteen_orphans(hand):
        return min(2, cap), 2
    best = (-1, -1)
    for reading in decompositions(hand):
        raw = _reading_fan(reading, seat, round_wind)
        best = max(best, (min(raw, cap), raw))
    return best
