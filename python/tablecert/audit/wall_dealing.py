"""Dealt outcomes of automatic mahjong tables: the deal of Art. 3 from each logged wall, and the
exact law of a simple statistic of each initial hand.

Under a uniformly random wall, each seat's initial hand is a uniformly random set of its size
(14 tiles for the dealer, 13 for the others in the traditional game; 5 and 4 in the simple
game), whatever the dice: the dice only choose which wall positions a seat takes. Logs do not
carry the dice, so the deal uses a fixed, documented throw (``DEFAULT_DICE``: the most likely
total); the null law is exact for any throw that does not depend on the wall.

The statistics are sums over tile types of a function of how many copies a hand holds, so the
exact law is a small dynamic programme over types with ``C(4, k)`` weights, in integers:

* ``types``: distinct tile types in the hand (fewer when the table leaves tiles clumped);
* ``pairs``: tile types held at least twice;
* ``honours``: honour tiles (winds and dragons; 發 in the simple game), hypergeometric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING

from tablecert import _core
from tablecert.audit.options import STATISTICS
from tablecert.errors import AuditError
from tablecert.stats import DealtLaw

if TYPE_CHECKING:
    from tablecert.rules import RuleFile

# The mahjong engine is imported by the dealer that deals its walls: a card audit needs none
# of it (start-up of `audit shuffler`, tests/cli/test_cli_startup.py).

DECK_GAMES = {"mahjong136": "mahjong-traditional", "mahjong112": "mahjong-simple"}
DEFAULT_DICE = {"mahjong-traditional": (3, 3, 4), "mahjong-simple": (3, 4)}
FIRST_HONOUR = 27  # E; tile ids 27..33 are the winds and dragons
WIND_NAMES = {"E": "East", "S": "South", "W": "West", "N": "North"}


def _weights(statistic: str, tile: int) -> tuple[int, ...]:
    """What a hand holding k = 0..4 copies of ``tile`` adds to the statistic."""
    if statistic == "types":
        return (0, 1, 1, 1, 1)
    if statistic == "pairs":
        return (0, 0, 1, 1, 1)
    if statistic == "honours":
        return (0, 1, 2, 3, 4) if tile >= FIRST_HONOUR else (0, 0, 0, 0, 0)
    raise AuditError(f"wall statistic {statistic!r}: expected one of {', '.join(STATISTICS)}")


def hand_counts(tiles: Sequence[int], hand_size: int, statistic: str) -> dict[int, int]:
    """Exact number of ``hand_size``-tile hands from four copies of each of ``tiles`` (tile
    ids) for each value of the statistic; the counts add up to C(4 * len(tiles), hand_size)."""
    # by_size[n][v]: weighted number of n-tile hands from the types seen so far with value v
    by_size: list[dict[int, int]] = [{0: 1}] + [{} for _ in range(hand_size)]
    for tile in tiles:
        add = _weights(statistic, tile)
        grown: list[dict[int, int]] = [{} for _ in range(hand_size + 1)]
        for n, row in enumerate(by_size):
            for value, ways in row.items():
                for k in range(min(4, hand_size - n) + 1):
                    cell = grown[n + k]
                    v = value + add[k]
                    cell[v] = cell.get(v, 0) + ways * comb(4, k)
        by_size = grown
    return by_size[hand_size]


def statistic_of(hand: Sequence[int], statistic: str) -> int:
    """The statistic of one hand (tile ids)."""
    return sum(_weights(statistic, t)[k] for t, k in Counter(hand).items())


@dataclass(frozen=True)
class MahjongWallDealer:
    """The ``WallDealer`` of the shuffler audit for automatic mahjong tables: the hands of
    Art. 3 dealt from each wall with fixed dice, categorised by ``statistic``."""

    game: str
    statistic: str
    dice: tuple[int, ...]
    seats: tuple[str, ...]
    positions: tuple[tuple[int, ...], ...]
    lowest: int
    law: DealtLaw

    def deal(self, wall: Sequence[int]) -> Sequence[Sequence[int]]:
        return [[wall[p] for p in seat] for seat in self.positions]

    def category(self, hand: Sequence[int]) -> int:
        return statistic_of(hand, self.statistic) - self.lowest


def mahjong_dealer(
    deck: str,
    statistic: str = "types",
    *,
    dice: Sequence[int] | None = None,
    players: Sequence[str] | None = None,
    rules: str | RuleFile | None = None,
) -> MahjongWallDealer:
    """The dealer for a mahjong deck (``mahjong136`` traditional, ``mahjong112`` simple): the
    wall positions each seat takes (from the mahjong engine's deal) and the exact law."""
    if deck not in DECK_GAMES:
        raise AuditError(f"{deck} is not a mahjong wall: expected mahjong136 or mahjong112")
    game = DECK_GAMES[deck]
    _weights(statistic, 0)  # reject an unknown statistic before any work
    from tablecert.mahjong import wall as mahjong_wall
    from tablecert.mahjong.hands import TILE_SET

    throw = tuple(dice) if dice is not None else DEFAULT_DICE[game]
    tiles = _core.tile_types(TILE_SET[game])
    # Positions depend only on the dice and the rules: deal a reference wall once.
    reference = [t for t in tiles for _ in range(4)]
    dealt = mahjong_wall.deal(game, reference, throw, players=players, rules=rules)
    seats = tuple(dealt.positions)
    sizes = [len(dealt.positions[s]) for s in seats]
    laws = {size: hand_counts(tiles, size, statistic) for size in set(sizes)}
    lowest = min(min(c) for c in laws.values())
    highest = max(max(c) for c in laws.values())
    per_hand = tuple(
        tuple(
            Fraction(laws[size].get(v, 0), comb(len(tiles) * 4, size))
            for v in range(lowest, highest + 1)
        )
        for size in sizes
    )
    names = tuple(
        f"{WIND_NAMES[s]}{' (dealer)' if s == 'E' else ''}, {size} tiles"
        for s, size in zip(seats, sizes, strict=True)
    )
    noun = {"types": "tile types", "pairs": "pairs", "honours": "honours"}[statistic]
    categories = tuple(f"{v} {noun}" for v in range(lowest, highest + 1))
    law = DealtLaw(names, categories, per_hand[-1], per_hand)
    positions = tuple(dealt.positions[s] for s in seats)
    return MahjongWallDealer(game, statistic, throw, seats, positions, lowest, law)
