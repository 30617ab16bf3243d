"""The optimal strategy of a described stud game, situation by situation, as a lab checks it.

The generic engine decides every situation (a player hand, and the dealer's upcard where one
is dealt face up) and, asked to, hands back each decision (``_core.stud_analyze(...,
decisions=True)``: one byte per player hand in colex order and upcard lane). A table of every
situation is too long to read (Caribbean Stud has 122 million), so the situations are grouped
by **hand class**: the category of the player's hand, the ranks of all the player's cards
(high to low) and the upcard's rank. Within a class the decision may still depend on the
suits (a flush the upcard blocks, a rank it duplicates); the table says how many situations
of the class take each decision, so a class where the suits matter shows it, and nothing is
summarised away. Classes add up across shards (:func:`merge`), so the table is the same
whether the analysis ran here or on a cluster.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tablecert import _core

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
#: The byte the engine writes where a lane's upcard is one of the player's cards (or where a
#: shard did not decide the situation).
NOT_DECIDED = 255
#: The upcard of a game whose dealer cards are all hidden.
HIDDEN = -1

#: (category position, the player's ranks high to low, the upcard's rank or HIDDEN).
HandClass = tuple[int, tuple[int, ...], int]
#: Situations by decision, per hand class: what a shard sends back (plain, picklable).
ClassCounts = dict[HandClass, tuple[int, ...]]


def _colex_hands(deck: Sequence[int], cards: int) -> np.ndarray:
    """Every ``cards``-card hand of ``deck`` (sorted) in colex order over its positions, as
    the engine numbers them: the card ids, one row per hand."""
    ordered = sorted(deck)
    if ordered == list(range(52)) and cards in (3, 5):
        hands = np.frombuffer(_core.all_hands(cards), dtype=np.uint8).reshape(-1, cards)
        return hands.astype(np.int64)
    positions = sorted(itertools.combinations(range(len(ordered)), cards), key=lambda h: h[::-1])
    return np.array(ordered, dtype=np.int64)[np.array(positions, dtype=np.int64)]


def count_classes(
    ranking: _core.StudRanking,
    deck: Sequence[int],
    player_cards: int,
    upcards: int,
    decisions: bytes,
    choices: int,
) -> ClassCounts:
    """Situations by decision for every hand class, from the engine's decision bytes (the
    situations a shard did not decide are skipped)."""
    hands = _colex_hands(deck, player_cards)
    lanes = len(deck) if upcards else 1
    # One contiguous row per lane: each lane's decisions are read in one pass.
    table = np.frombuffer(decisions, dtype=np.uint8).reshape(len(hands), lanes).T.copy()
    categories = np.array([_core.stud_key(ranking, h) >> 22 for h in hands.tolist()])
    ranks = -np.sort(-(hands // 4), axis=1)
    code = categories.astype(np.int64)
    for column in ranks.T:
        code = code * 13 + column
    classes, inverse = np.unique(code, return_inverse=True)
    scaled = inverse.reshape(-1) * choices
    ordered = sorted(deck)
    out: dict[HandClass, np.ndarray] = {}
    by_upcard: dict[int, np.ndarray] = {}
    for lane in range(lanes):
        column = table[lane]
        decided = column != NOT_DECIDED
        if not decided.any():
            continue
        up = ordered[lane] // 4 if upcards else HIDDEN
        counts = np.bincount(
            scaled[decided] + column[decided],
            minlength=len(classes) * choices,
        ).reshape(len(classes), choices)
        by_upcard[up] = by_upcard.get(up, 0) + counts
    for up, counts in by_upcard.items():
        for i in np.flatnonzero(counts.sum(axis=1)):
            value = int(classes[i])
            hand = []
            for _ in range(player_cards):
                value, rank = divmod(value, 13)
                hand.append(rank)
            out[(value, tuple(reversed(hand)), up)] = counts[i]
    return {k: tuple(int(n) for n in v) for k, v in out.items()}


def merge(parts: Sequence[ClassCounts]) -> ClassCounts:
    """The classes of disjoint shards added up: the whole run's."""
    total: dict[HandClass, list[int]] = {}
    for part in parts:
        for key, counts in part.items():
            into = total.setdefault(key, [0] * len(counts))
            for i, n in enumerate(counts):
                into[i] += n
    return {k: tuple(v) for k, v in total.items()}


@dataclass(frozen=True)
class ClassRow:
    """One hand class and how many of its situations take each decision."""

    category: str
    ranks: tuple[int, ...]
    upcard: int
    situations: tuple[int, ...]

    def decision(self, names: Sequence[str]) -> str:
        """The class's decision, or that it depends on the suits."""
        taken = [n for n, k in zip(names, self.situations, strict=True) if k]
        return taken[0] if len(taken) == 1 else "depends on the suits"


@dataclass(frozen=True)
class StrategyTable:
    """The optimal decisions by hand class, highest category, ranks and upcard first."""

    decisions: tuple[str, ...]
    upcard: bool
    rows: tuple[ClassRow, ...]

    @property
    def situations(self) -> int:
        return sum(sum(r.situations) for r in self.rows)

    def cells(self) -> list[list[str | int]]:
        """The table as the strategy CSV holds it, a header first."""
        header: list[str | int] = [
            "category",
            "player's ranks",
            "dealer's upcard" if self.upcard else "dealer's cards",
            *(f"situations: {d}" for d in self.decisions),
            "decision",
        ]
        out = [header]
        for r in self.rows:
            up = RANK_NAMES[r.upcard] if r.upcard != HIDDEN else "all hidden"
            out.append(
                [
                    r.category,
                    " ".join(RANK_NAMES[x] for x in r.ranks),
                    up,
                    *r.situations,
                    r.decision(self.decisions),
                ]
            )
        return out


def strategy_table(
    categories: Sequence[str], decisions: Sequence[str], upcard: bool, counts: ClassCounts
) -> StrategyTable:
    """The table of a run's class counts; ``categories`` by position (0 the lowest)."""
    rows = tuple(
        ClassRow(categories[cat], ranks, up, counts[(cat, ranks, up)])
        for cat, ranks, up in sorted(counts, reverse=True)
    )
    return StrategyTable(tuple(decisions), upcard, rows)
