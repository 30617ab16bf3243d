"""Dealt outcomes: the exact category law of each dealt hand, and the hook for the mahjong deal.

Poker hands are dealt in the core as the audit streams. Mahjong walls are dealt in Python
through ``WallDealer``, the interface the audit hands every accepted wall; the Art. 3 dealer
of the mahjong engine is ``tablecert.audit.wall_dealing.mahjong_dealer``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tablecert import _core
from tablecert.audit.options import DEALINGS
from tablecert.stats import Counts, DealtLaw

if TYPE_CHECKING:
    from tablecert import poker

__all__ = ["DEALINGS", "WallDealer", "poker_law", "tally_walls"]


def poker_law(game: str, seats: int, rules: poker.RulesSource = None) -> DealtLaw:
    """Every dealt hand of ``game`` (seats, then the dealer) follows the exact category law of
    a uniformly random k-card hand."""
    from tablecert import poker  # the rule files, only for an audit with a game

    order = poker.ordering(game, rules)
    counts = _core.category_counts(order.hand_size, order.tie_breaks)
    total = comb(52, order.hand_size)
    hands = (*(f"seat {s + 1}" for s in range(seats)), "dealer")
    return DealtLaw(hands, tuple(order.categories), tuple(Fraction(c, total) for c in counts))


class WallDealer(Protocol):
    """What the mahjong deal engine provides for dealt-outcome tests of automatic tables."""

    @property
    def law(self) -> DealtLaw:
        """Exact category probabilities of each dealt hand (lowest category first)."""
        ...

    def deal(self, wall: Sequence[int]) -> Sequence[Sequence[int]]:
        """The hands the statute's dealing procedure gives from this wall order. Tiles are the
        core's tile ids (1m = 0 .. Wd = 33), the wall's first tile first."""
        ...

    def category(self, hand: Sequence[int]) -> int:
        """The category index of a dealt hand under ``law``."""
        ...


def tally_walls(dealer: WallDealer, walls: bytes, deck: str, into: Counts) -> None:
    """Add the dealt categories of each wall (one symbol byte per tile, as the core keeps
    them) to ``into``."""
    tile_ids = np.array(_core.tile_types("traditional" if deck == "mahjong136" else "simple"))
    size = len(tile_ids) * 4
    table = tile_ids[np.frombuffer(walls, dtype=np.uint8).reshape(-1, size)]
    for wall in table:
        for h, hand in enumerate(dealer.deal(wall.tolist())):
            into[h, dealer.category(hand)] += 1
