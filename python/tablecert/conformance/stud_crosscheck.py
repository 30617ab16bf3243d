"""Crosscheck of a vendor's evaluator against a poker game described by its rule file.

The truth is the generic engine's key (``_core.stud_key``) under the ranking the file
describes: a hand of any dealt size counts its best ``uses`` cards (best four of five, best
four of six, ...). The evaluator answers the line protocol of the dedicated games
(:mod:`tablecert.conformance.evaluator_protocol`: ``category`` and ``compare``), and its
answers are tallied and named as theirs are (:mod:`tablecert.conformance.poker_crosscheck`).
Four checks:

1. hand categories: for every hand size the game uses (``uses`` cards, and the player's and
   the dealer's dealt cards), every hand of that size, or a seeded sample of each; a size
   with more than C(52, 5) hands is always a seeded sample of :data:`SAMPLED_HANDS`;
2. class boundaries: the hands' rank classes (keys equal but for suits, as
   :mod:`tablecert.conformance.rank_classes` defines them), and for each class one pair with
   the next class up that it *can meet*, derived from the deal: a player's hand and a
   dealer's hand of the dealt sizes with no card in common (so only a showdown that can
   happen is evidence). A side dealt just the cards that make a hand holds every such hand;
   a side dealt more is represented by one dealt hand found for each ``uses``-card hand
   (seeded tries of the remaining cards that keep its key: a class no such hand reaches, as
   7-5-3-2 high among five cards, is no hand of that side), so a boundary its hands were not
   found to meet is passed over to the next class up, and counted;
3. suit-decided pairs, only when the ranking's suits decide equal ranks: seeded showdowns of
   a player's and a dealer's hand of one rank class and different keys, spread over the
   categories;
4. other pairs: seeded deals from one shuffled deck, the player's cards against the dealer's.

Every pair is of a player's hand and a dealer's hand with no card in common, in random A/B
order, and no pair is asked twice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.conformance.poker_crosscheck import (
    Check,
    _codes,
    _deciding_step,
    _distinct,
    _hand_text,
    check_sampling,
)
from tablecert.conformance.rank_classes import SUIT_FIELD, first_pair, masks_of
from tablecert.errors import CrosscheckError
from tablecert.poker import Ordering

Showdown = tuple[tuple[int, ...], tuple[int, ...]]
"""Two hands with no card in common, as card ids: a player's and a dealer's (either first)."""
FULL_POOL = comb(52, 5)
"""The most hands of one size enumerated whole (C(52, 5)); beyond, a side is sampled."""
SAMPLED_HANDS = 100_000
"""Hands of a size beyond :data:`FULL_POOL` asked for their category by default."""
EXTENSION_TRIES = 4
"""Seeded tries, per ``uses``-card hand, of the remaining cards that keep its key."""
DEFAULT_SUIT_PAIRS = 100_000
"""Suit-decided showdowns asked by default, where the ranking's suits decide."""
SUIT_PAIR_TRIES = 50
"""Draws per suit-decided pair asked, at most, before a category is left short."""


@dataclass(frozen=True)
class Side:
    """The hands one side of the deal can hold: card ids (rows), keys and card masks, with
    their place in the plan's one array of masks (``offset``)."""

    name: str
    hands: npt.NDArray[np.uint8]
    keys: npt.NDArray[np.uint32]
    complete: bool
    offset: int

    def members(self, ranks: npt.NDArray[np.uint32]) -> dict[int, npt.NDArray[np.int64]]:
        """The plan-wide indices of this side's hands in each rank class (by its value)."""
        mine = self.keys & ~SUIT_FIELD
        order = np.argsort(mine, kind="stable").astype(np.int64)
        sorted_ranks = mine[order]
        starts = np.searchsorted(sorted_ranks, ranks, side="left")
        ends = np.searchsorted(sorted_ranks, ranks, side="right")
        return {
            int(r): order[s:e] + self.offset
            for r, s, e in zip(ranks, starts, ends, strict=True)
            if e > s
        }


def _keys(ranking: _core.StudRanking, hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint32]:
    key = _core.stud_key
    return np.fromiter((key(ranking, row) for row in hands.tolist()), np.uint32, len(hands))


def all_hands(size: int) -> npt.NDArray[np.uint8]:
    """Every hand of ``size`` cards (lexicographic order), rows of card ids."""
    n = comb(52, size)
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), size))
    return np.fromiter(flat, dtype=np.uint8, count=n * size).reshape(n, size)


def random_hands(count: int, size: int, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """``count`` seeded hands of ``size`` distinct cards each (rows of card ids)."""
    return np.argsort(rng.random((count, 52)), axis=1)[:, :size].astype(np.uint8)


def _extended(
    ranking: _core.StudRanking,
    base: npt.NDArray[np.uint8],
    keys: npt.NDArray[np.uint32],
    size: int,
    rng: np.random.Generator,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint32]]:
    """For each ``uses``-card hand, one hand of ``size`` cards with the same key (its best
    cards are the hand itself) where seeded tries of the remaining cards find one; and the
    keys of those found."""
    found: list[npt.NDArray[np.uint8]] = []
    found_keys: list[npt.NDArray[np.uint32]] = []
    left = np.arange(len(base))
    for _ in range(EXTENSION_TRIES):
        if not len(left):
            break
        noise = rng.random((len(left), 52))
        noise[np.arange(len(left))[:, None], base[left]] = 2.0  # never the hand's own cards
        extra_cards = size - base.shape[1]
        extra = np.argpartition(noise, extra_cards, axis=1)[:, :extra_cards].astype(np.uint8)
        rows = np.concatenate([base[left], extra], axis=1)
        same = _keys(ranking, rows) == keys[left]
        found.append(rows[same])
        found_keys.append(keys[left][same])
        left = left[~same]
    if not found:
        return np.empty((0, size), np.uint8), np.empty(0, np.uint32)
    return np.concatenate(found), np.concatenate(found_keys)


@dataclass(frozen=True)
class StudPlan:
    """What to ask of an evaluator of a described game, and what its ranking expects."""

    order: Ordering
    seed: int
    category_hands: tuple[npt.NDArray[np.uint8], ...]
    boundary_pairs: tuple[Showdown, ...]
    suit_pairs: tuple[Showdown, ...]
    other_pairs: tuple[Showdown, ...]
    classes: int
    passed_over: int
    suit_strata: tuple[tuple[str, int], ...]
    size_notes: tuple[str, ...]

    @property
    def complete_suit_pairs(self) -> int | None:
        """Never the complete set: the suit-decided showdowns are sampled."""
        return None

    @property
    def total(self) -> int:
        return sum(len(h) for h in self.category_hands) + sum(
            len(p) for p in (self.boundary_pairs, self.suit_pairs, self.other_pairs)
        )

    def _key(self, cards: tuple[int, ...]) -> int:
        assert self.order.stud is not None
        return int(_core.stud_key(self.order.stud.ranking, list(cards)))

    def category_check(self) -> Check:
        requests: list[str] = []
        expected: list[str] = []
        where: list[tuple[str, str, str]] = []
        keys: list[tuple[int, ...]] = []
        for hands in self.category_hands:
            for row in hands.tolist():
                key = self._key(tuple(row))
                name = self.order.categories[key >> 22]
                requests.append(f"category {_hand_text(np.asarray(row))}")
                expected.append(name)
                where.append((name, "category", self.order.articles[key >> 22]))
                keys.append((key,))
        return requests, expected, where, keys

    def pair_check(self, pairs: tuple[Showdown, ...]) -> Check:
        requests: list[str] = []
        expected: list[str] = []
        where: list[tuple[str, str, str]] = []
        keys: list[tuple[int, ...]] = []
        for a, b in pairs:
            ka, kb = self._key(a), self._key(b)
            requests.append(f"compare {_hand_text(np.asarray(a))} / {_hand_text(np.asarray(b))}")
            expected.append("A" if ka > kb else "B" if ka < kb else "PUSH")
            where.append(_deciding_step(self.order, ka, kb))
            keys.append((ka, kb))
        return requests, expected, where, keys

    def checks(self) -> list[tuple[str, Check]]:
        named = [
            ("hand categories", self.category_check()),
            ("adjacent rank classes", self.pair_check(self.boundary_pairs)),
        ]
        if self.order.suit_decides:
            named.append(("suit-decided pairs", self.pair_check(self.suit_pairs)))
        named.append(("other pairs", self.pair_check(self.other_pairs)))
        return named

    def notes(self) -> dict[str, tuple[str, ...]]:
        """What each check asked and left out, by check name."""
        boundary = (
            f"{self.classes:,} rank classes of the hands the deal gives; "
            f"{self.passed_over:,} cannot meet (or were not found to meet) the class just "
            "above them in a showdown: each is paired with the next class up that it meets"
        )
        strata = "; ".join(f"{name} {n:,}" for name, n in self.suit_strata)
        return {
            "hand categories": self.size_notes,
            "adjacent rank classes": (boundary,),
            "suit-decided pairs": (f"{len(self.suit_pairs):,} sampled showdowns: {strata}",),
            "other pairs": (f"{len(self.other_pairs):,} seeded deals from one deck",),
        }

    def requests(self) -> list[str]:
        return [r for _, check in self.checks() for r in check[0]]


def plan(
    order: Ordering,
    *,
    hands: int | None = None,
    suit_pairs: int | None = None,
    other_pairs: int = 50_000,
    seed: int = 0,
) -> StudPlan:
    """What to ask of an evaluator of the described game ``order`` ranks. ``hands``: hands
    asked per size (None: every hand of a size with at most C(52, 5) of them); ``suit_pairs``
    (None: :data:`DEFAULT_SUIT_PAIRS`), only where the ranking's suits decide."""
    stud = order.stud
    if stud is None:
        raise CrosscheckError(f"{order.rules.path.name}: not a game described by its rule file")
    check_sampling(seed, hands=hands, suit_pairs=suit_pairs, other_pairs=other_pairs)
    rng = np.random.default_rng(seed)
    deal = (
        int(order.rules.require("deal.player_cards").value),
        int(order.rules.require("deal.dealer_cards").value),
    )
    uses, ranking = order.hand_size, stud.ranking
    base = all_hands(uses)
    base_keys = _keys(ranking, base)
    category_hands, size_notes = _category_hands(base, sorted({uses, *deal}), hands, rng)
    player, dealer = _sides(ranking, base, base_keys, deal, rng)
    masks = masks_of(player.hands)
    if dealer.offset:
        masks = np.concatenate([masks, masks_of(dealer.hands)])
    ranks = np.unique(np.concatenate([player.keys, dealer.keys]) & ~SUIT_FIELD)
    boundary, passed_over = _boundaries(player, dealer, masks, ranks)
    both = {"player": player, "dealer": dealer}
    suit: list[Showdown] = []
    strata: tuple[tuple[str, int], ...] = ()
    if order.suit_decides:
        suit, strata = _suit_pairs(
            order, both, masks, ranks, DEFAULT_SUIT_PAIRS if suit_pairs is None else suit_pairs, rng
        )
    others = random_hands(other_pairs, deal[0] + deal[1], rng)
    other = [(tuple(row[: deal[0]]), tuple(row[deal[0] :])) for row in others.astype(int).tolist()]
    asked = {frozenset((a, b)) for a, b in (*boundary, *suit)}
    other = [p for p in dict.fromkeys(other) if frozenset(p) not in asked]
    return StudPlan(
        order=order,
        seed=seed,
        category_hands=tuple(category_hands),
        boundary_pairs=tuple(_sides_shuffled(boundary, rng)),
        suit_pairs=tuple(_sides_shuffled(suit, rng)),
        other_pairs=tuple(_sides_shuffled(other, rng)),
        classes=len(ranks),
        passed_over=passed_over,
        suit_strata=strata,
        size_notes=tuple(size_notes),
    )


def _category_hands(
    base: npt.NDArray[np.uint8], sizes: list[int], hands: int | None, rng: np.random.Generator
) -> tuple[list[npt.NDArray[np.uint8]], list[str]]:
    """The hands asked for their category, per size: all, or a seeded sample."""
    out: list[npt.NDArray[np.uint8]] = []
    notes: list[str] = []
    for size in sizes:
        population = comb(52, size)
        if population <= FULL_POOL and (hands is None or hands >= population):
            chosen = base if size == base.shape[1] else all_hands(size)
            notes.append(f"{size}-card hands: all {population:,}")
        elif population <= FULL_POOL:
            every = base if size == base.shape[1] else all_hands(size)
            chosen = every[np.sort(rng.choice(population, size=hands, replace=False))]
            notes.append(f"{size}-card hands: {hands:,} of {population:,}, sampled")
        else:
            count = SAMPLED_HANDS if hands is None else hands
            chosen = random_hands(count, size, rng)
            notes.append(f"{size}-card hands: {count:,} of {population:,}, seeded draws")
        out.append(chosen)
    return out, notes


def _sides(
    ranking: _core.StudRanking,
    base: npt.NDArray[np.uint8],
    base_keys: npt.NDArray[np.uint32],
    deal: tuple[int, int],
    rng: np.random.Generator,
) -> tuple[Side, Side]:
    """The player's and the dealer's hands: every hand where a side is dealt just the cards
    that make a hand, else one dealt hand found for each ``uses``-card hand; one side for
    both when they are dealt alike."""
    built: list[Side] = []
    for name, size in zip(("player", "dealer"), deal, strict=True):
        if built and size == built[0].hands.shape[1]:
            built.append(Side(name, built[0].hands, built[0].keys, built[0].complete, 0))
            continue
        offset = len(built[0].hands) if built else 0
        if size == base.shape[1]:
            hands, keys, complete = base, base_keys, True
        else:
            hands, keys = _extended(ranking, base, base_keys, size, rng)
            complete = False
        built.append(Side(name, hands, keys, complete, offset))
    return built[0], built[1]


def _cards(sides: tuple[Side, Side], index: int) -> tuple[int, ...]:
    """The cards of the hand at a plan-wide index."""
    player, dealer = sides
    side = dealer if dealer.offset and index >= dealer.offset else player
    return tuple(int(c) for c in side.hands[index - side.offset])


def _boundaries(
    player: Side,
    dealer: Side,
    masks: npt.NDArray[np.uint64],
    ranks: npt.NDArray[np.uint32],
) -> tuple[list[Showdown], int]:
    """For each rank class but the top, one showdown with the next class up that it meets
    (either side holding the lower hand), and how many classes passed over their neighbour."""
    sides = (player, dealer)
    of = {s.name: s.members(ranks) for s in sides}
    empty = np.empty(0, np.int64)
    chosen: list[Showdown] = []
    passed_over = 0
    values = [int(r) for r in ranks]
    for g, low in enumerate(values[:-1]):
        for h in range(g + 1, len(values)):
            high = values[h]
            pair = first_pair(
                masks, of["player"].get(low, empty), of["dealer"].get(high, empty)
            ) or first_pair(masks, of["dealer"].get(low, empty), of["player"].get(high, empty))
            if pair is not None:
                chosen.append((_cards(sides, pair[0]), _cards(sides, pair[1])))
                passed_over += h > g + 1
                break
    return chosen, passed_over


def _suit_pairs(
    order: Ordering,
    sides: dict[str, Side],
    masks: npt.NDArray[np.uint64],
    ranks: npt.NDArray[np.uint32],
    count: int,
    rng: np.random.Generator,
) -> tuple[list[Showdown], tuple[tuple[str, int], ...]]:
    """Seeded showdowns of a player's and a dealer's hand of one rank class that only suit
    decides (different keys), the same share for each category (distinct pairs)."""
    player, dealer = sides["player"], sides["dealer"]
    dealer_of = dealer.members(ranks)
    categories = (player.keys >> np.uint32(22)).astype(np.int64)
    present = [int(c) for c in np.unique(categories)]
    share = count // max(len(present), 1)
    n = len(masks)
    pairs: list[Showdown] = []
    strata: list[tuple[str, int]] = []
    for category in present:
        pool = np.flatnonzero(categories == category)
        found = np.empty(0, np.int64)
        for _ in range(SUIT_PAIR_TRIES):
            if len(found) >= share:
                break
            draws = max(4096, 4 * (share - len(found)))
            a = pool[rng.integers(len(pool), size=draws)] + player.offset
            rank_of = player.keys[a - player.offset] & ~SUIT_FIELD
            b = np.array([_partner(dealer_of.get(int(r)), rng) for r in rank_of], np.int64)
            a, b = a[b >= 0], b[b >= 0]
            keys_a = player.keys[a - player.offset]
            keys_b = dealer.keys[b - dealer.offset]
            kept = ((masks[a] & masks[b]) == 0) & (keys_a != keys_b)
            found = _distinct(np.r_[found, _codes(a[kept], b[kept], n)])
        found = found[:share]
        both = (player, dealer)
        for code in found.tolist():
            i, j = divmod(code, n)
            first, second = (i, j) if i < player.offset + len(player.hands) else (j, i)
            pairs.append((_cards(both, first), _cards(both, second)))
        strata.append((order.categories[category], len(found)))
    return pairs, tuple(strata)


def _partner(members: npt.NDArray[np.int64] | None, rng: np.random.Generator) -> int:
    """A dealer's hand of the class drawn at random (-1, never kept, if the dealer holds
    none of the class)."""
    return -1 if members is None else int(members[rng.integers(len(members))])


def _sides_shuffled(pairs: list[Showdown], rng: np.random.Generator) -> list[Showdown]:
    """Each pair as (A, B) or (B, A) at random: an evaluator cannot pass by answering one
    side."""
    swap = rng.random(len(pairs)) < 0.5
    return [(b, a) if s else (a, b) for (a, b), s in zip(pairs, swap, strict=True)]
