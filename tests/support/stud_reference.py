"""A slow, obviously-correct reference for the generic stud engine, from the poker rules alone.

Shares no code with tablecert (it reads no Rust and imports nothing from the package): a hand
is ranked by classifying its rank groups, flush and straight as a dealer would, and a game is
analysed by dealing every player hand, every upcard and every dealer completion one by one
(``analyze``; ``analyze_hidden_dealer`` counts the same deals with NumPy arrays so that a
whole deck with no upcard finishes in seconds). Everything is an int; the only arithmetic is
sums and products of counts and value numerators, so nothing compared is ever rounded.

Cards are ints ``rank * 4 + suit`` (ranks 0..12 = 2..A, suits 0..3 = d c h s), as the core's.
A key is an int laid out as the contract documents (category position in bits 22 and up, rank
fields of four bits each from bit 18 down, a two-bit suit field), so ``key >> 2`` compares
ranks only and ``key >> 22`` is the category position (0 the lowest category).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np

SUIT_LETTERS = "dchs"

#: Every category a hand of ``uses`` cards can fall in, in the usual order (highest first).
VOCABULARY: dict[int, tuple[str, ...]] = {
    3: ("straight-flush", "three-of-a-kind", "straight", "flush", "pair", "high-card"),
    4: (
        "four-of-a-kind",
        "straight-flush",
        "three-of-a-kind",
        "flush",
        "straight",
        "two-pair",
        "pair",
        "high-card",
    ),
    5: (
        "royal-flush",
        "straight-flush",
        "four-of-a-kind",
        "full-house",
        "flush",
        "straight",
        "three-of-a-kind",
        "two-pair",
        "one-pair",
        "high-card",
    ),
}

#: The outcomes, indices of ``values[d][o]``.
NOT_QUALIFYING, WON, TIED, LOST = 0, 1, 2, 3


def rank_of(card: int) -> int:
    return card // 4


def suit_of(card: int) -> int:
    return card % 4


@dataclass(frozen=True)
class TieBreaks:
    """The tie-break options, named as ``_core.TieBreaks`` names them."""

    suit_decides: bool
    ace_low_straight_suit: str = "top-of-sequence"
    pair_suit: str = "higher"
    suit_order: str = "shcd"

    def place(self, card: int) -> int:
        """The suit field a card gives a key: its suit's place in the suit order (the order
        is written highest first; 0 is the lowest place), or 0 when suits never decide."""
        if not self.suit_decides:
            return 0
        return 3 - self.suit_order.index(SUIT_LETTERS[suit_of(card)])


@dataclass(frozen=True)
class Hand:
    """One hand of exactly ``uses`` cards as the rules read it: its category name, its rank
    fields in the order they are compared, and the suit field that breaks equal ranks."""

    category: str
    ranks: tuple[int, ...]
    suit: int


def _straight_top(ranks: list[int]) -> int | None:
    """The top rank of a straight of these (distinct) ranks, the ace counting low in A-2-3,
    A-2-3-4 and A-2-3-4-5 (then the top is the 3, the 4 or the 5); None if not a straight."""
    n = len(ranks)
    low = sorted(ranks)
    if low == list(range(low[0], low[0] + n)):
        return low[-1]
    if set(ranks) == {12, *range(n - 1)}:
        return n - 2
    return None


def classify(cards: Sequence[int], tie_breaks: TieBreaks, *, royal: bool) -> Hand:
    """The category, rank fields and suit field of exactly these 3, 4 or 5 cards."""
    n = len(cards)
    by_rank = sorted(cards, key=lambda c: (rank_of(c), suit_of(c)), reverse=True)
    ranks = [rank_of(c) for c in by_rank]
    groups = Counter(ranks)
    # Rank groups by size, then rank: (4,), (3, 2), (3, 1, 1), (2, 2, 1), (2, 1, 1, 1), ...
    grouped = sorted(groups, key=lambda r: (groups[r], r), reverse=True)
    sizes = [groups[r] for r in grouped]
    flush = len({suit_of(c) for c in cards}) == 1
    top = _straight_top(ranks) if len(groups) == n else None
    highest = by_rank[0]

    def pair_place(rank: int) -> int:
        places = [tie_breaks.place(c) for c in cards if rank_of(c) == rank]
        return max(places) if tie_breaks.pair_suit == "higher" else min(places)

    if top is not None:
        if top == n - 2 and 12 in ranks:  # the ace counts low
            ace_low_card = (
                next(c for c in cards if rank_of(c) == top)
                if tie_breaks.ace_low_straight_suit == "top-of-sequence"
                else next(c for c in cards if rank_of(c) == 12)
            )
            suit = tie_breaks.place(ace_low_card)
        else:
            suit = tie_breaks.place(highest)
        if flush and royal and top == 12:
            return Hand("royal-flush", (), suit)
        return Hand("straight-flush" if flush else "straight", (top,), suit)
    if sizes[0] == 4:
        return Hand("four-of-a-kind", (grouped[0],), 0)
    if sizes[:2] == [3, 2]:
        return Hand("full-house", (grouped[0], grouped[1]), 0)
    if sizes[0] == 3:
        return Hand("three-of-a-kind", (grouped[0],), 0)
    if sizes[:2] == [2, 2]:
        return Hand("two-pair", tuple(grouped), pair_place(grouped[0]))
    if sizes[0] == 2:
        name = "one-pair" if n == 5 else "pair"
        if n == 3:  # a 3-card pair is decided by its kicker's suit
            kicker = next(c for c in cards if rank_of(c) == grouped[1])
            return Hand(name, tuple(grouped), tie_breaks.place(kicker))
        return Hand(name, tuple(grouped), pair_place(grouped[0]))
    if flush:
        return Hand("flush", tuple(ranks), tie_breaks.place(highest))
    return Hand("high-card", tuple(ranks), tie_breaks.place(highest))


def pack(position: int, ranks: Sequence[int], suit: int) -> int:
    """A key: category position, rank fields from bit 18 down, suit field."""
    key = position << 22
    for i, r in enumerate(ranks):
        key |= r << (18 - 4 * i)
    return key | suit


@dataclass(frozen=True)
class Ranking:
    """A game's ranking: hands of ``uses`` cards, ``categories`` highest first."""

    uses: int
    categories: tuple[str, ...]
    tie_breaks: TieBreaks
    _keys: dict[tuple[int, ...], int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        vocabulary = set(VOCABULARY[self.uses])
        assert set(self.categories) <= vocabulary, self.categories
        assert len(set(self.categories)) == len(self.categories), self.categories
        assert vocabulary - set(self.categories) <= {"royal-flush"}, self.categories

    def position(self, category: str) -> int:
        """0 for the lowest category (the last named), ``len(categories) - 1`` the highest."""
        return len(self.categories) - 1 - self.categories.index(category)

    def hand(self, cards: Sequence[int]) -> Hand:
        return classify(cards, self.tie_breaks, royal="royal-flush" in self.categories)

    def key(self, cards: Iterable[int]) -> int:
        """The key of the best ``uses`` cards among ``cards`` (any order, at least ``uses``)."""
        hand = tuple(sorted(cards))
        known = self._keys.get(hand)  # each hand is classified once, however often it is met
        if known is None:
            assert len(hand) >= self.uses, hand
            if len(hand) > self.uses:
                known = max(self.key(c) for c in combinations(hand, self.uses))
            else:
                h = self.hand(hand)
                known = pack(self.position(h.category), h.ranks, h.suit)
            self._keys[hand] = known
        return known

    def threshold(self, category: str, ranks: Sequence[int]) -> int:
        """The ranks-only key (``key >> 2``) a qualifying dealer hand reaches at least."""
        return pack(self.position(category), ranks, 0) >> 2


def first_rank(key: int) -> int:
    return (key >> 18) & 0xF


def category_counts(ranking: Ranking, deck: Sequence[int], cards: int) -> list[list[int]]:
    """``counts[position][r]``: the ``cards``-card hands of ``deck`` whose best ``uses`` cards
    are in category ``position`` with first rank field ``r``."""
    counts = [[0] * 13 for _ in ranking.categories]
    for hand in combinations(sorted(deck), cards):
        key = ranking.key(hand)
        counts[key >> 22][first_rank(key)] += 1
    return counts


@dataclass(frozen=True)
class Game:
    ranking: Ranking
    deck: tuple[int, ...]
    player_cards: int
    dealer_cards: int
    upcards: int
    qualifier: tuple[str, tuple[int, ...]] | None


@dataclass
class Row:
    """One (category position, decision) row, the fields of ``StudRun.rows``."""

    category: int
    decision: int
    situations: int = 0
    indifferent: int = 0
    not_qualifying: int = 0
    won: int = 0
    tied: int = 0
    lost: int = 0
    equal_ranks: int = 0
    won_on_suit: int = 0


ROW_FIELDS = (
    "category",
    "decision",
    "situations",
    "indifferent",
    "not_qualifying",
    "won",
    "tied",
    "lost",
    "equal_ranks",
    "won_on_suit",
)


@dataclass(frozen=True)
class Run:
    completions: int
    situations: int
    rows: dict[tuple[int, int], Row]
    #: One byte per (player hand in colex order, lane), as ``StudRun.decisions``.
    decisions: bytes
    #: Per (player hand in colex order, lane): the category and the tally of the situation's
    #: dealer completions, None where the upcard is in the hand (``analyze`` only; not
    #: compared: ``analyze_hidden_dealer`` gives the same run without them).
    tallies: tuple[tuple[int, _Tally] | None, ...] = field(default=(), compare=False)


@dataclass
class _Tally:
    outcomes: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    equal_ranks: int = 0
    won_on_suit: int = 0


def _showdowns(
    game: Game, player_key: int, dealer_hands: Iterable[tuple[int, ...]], threshold: int | None
) -> _Tally:
    """Every dealer completion met one by one: does the dealer qualify, who is higher."""
    ranking, suits = game.ranking, game.ranking.tie_breaks.suit_decides
    tally = _Tally()
    for dealer in dealer_hands:
        dealer_key = ranking.key(dealer)
        if threshold is not None and dealer_key >> 2 < threshold:
            tally.outcomes[NOT_QUALIFYING] += 1
            continue
        mine, theirs = (player_key, dealer_key) if suits else (player_key >> 2, dealer_key >> 2)
        outcome = WON if mine > theirs else TIED if mine == theirs else LOST
        tally.outcomes[outcome] += 1
        if player_key >> 2 == dealer_key >> 2:
            tally.equal_ranks += 1
            tally.won_on_suit += suits and outcome == WON
    return tally


def colex_hands(positions: int, k: int) -> list[tuple[int, ...]]:
    """Every k-subset of range(positions) in colex order (by highest element first)."""
    return sorted(combinations(range(positions), k), key=lambda h: h[::-1])


def _decide(
    values: Sequence[Sequence[Sequence[int]]], category: int, tally: _Tally
) -> tuple[int, bool]:
    """The decision of largest value (the lowest ``d`` among equals), and whether another
    decision is worth exactly as much."""
    worth = [sum(n * v[o][category] for o, n in enumerate(tally.outcomes)) for v in values]
    best = max(worth)
    return worth.index(best), worth.count(best) > 1


def _record(rows: dict[tuple[int, int], Row], category: int, decision: int, tally: _Tally) -> None:
    row = rows.setdefault((category, decision), Row(category, decision))
    row.situations += 1
    row.not_qualifying += tally.outcomes[NOT_QUALIFYING]
    row.won += tally.outcomes[WON]
    row.tied += tally.outcomes[TIED]
    row.lost += tally.outcomes[LOST]
    row.equal_ranks += tally.equal_ranks
    row.won_on_suit += tally.won_on_suit


def _threshold(game: Game) -> int | None:
    return None if game.qualifier is None else game.ranking.threshold(*game.qualifier)


def analyze(game: Game, values: Sequence[Sequence[Sequence[int]]]) -> Run:
    """Deal everything; in each situation take the decision of largest value (the lowest ``d``
    among equals); tally each (category, decision) row over its situations' completions."""
    deck = tuple(sorted(game.deck))
    size = len(deck)
    threshold = _threshold(game)
    hidden = game.dealer_cards - game.upcards
    rows: dict[tuple[int, int], Row] = {}
    decisions = bytearray()
    tallies: list[tuple[int, _Tally] | None] = []
    situations = 0
    for positions in colex_hands(size, game.player_cards):
        player = [deck[p] for p in positions]
        player_key = game.ranking.key(player)
        category = player_key >> 22
        rest = [c for c in deck if c not in player]
        lanes: list[int | None] = list(range(size)) if game.upcards else [None]
        for lane in lanes:
            if lane is not None and deck[lane] in player:
                decisions.append(255)
                tallies.append(None)
                continue
            up = () if lane is None else (deck[lane],)
            unseen = [c for c in rest if c not in up]
            tally = _showdowns(
                game,
                player_key,
                (up + dealt for dealt in combinations(unseen, hidden)),
                threshold,
            )
            decision, indifferent = _decide(values, category, tally)
            decisions.append(decision)
            tallies.append((category, tally))
            situations += 1
            _record(rows, category, decision, tally)
            rows[(category, decision)].indifferent += indifferent
    completions = comb(size - game.player_cards - game.upcards, hidden)
    return Run(completions, situations, rows, bytes(decisions), tuple(tallies))


def situation_counts(run: Run) -> bytes:
    """``run``'s tallies as ``StudRun.counts``: LE u32 per cell and field of
    ``STUD_COUNT_FIELDS`` (not qualifying, won, tied, equal ranks, won on suit), zero where the
    upcard is in the hand."""
    cells = []
    for cell in run.tallies:
        if cell is None:
            cells.append((0, 0, 0, 0, 0))
            continue
        t = cell[1]
        cells.append(
            (
                t.outcomes[NOT_QUALIFYING],
                t.outcomes[WON],
                t.outcomes[TIED],
                t.equal_ranks,
                t.won_on_suit,
            )
        )
    return np.array(cells, dtype="<u4").tobytes()


def min_margins(run: Run, floor: Sequence[Sequence[Sequence[int]]], categories: int) -> list[int]:
    """Per category: the smallest, over its situations, of the best raise's worth under
    ``floor`` less the fold's (2^63 - 1 where the category has no situation)."""
    smallest = [2**63 - 1] * categories
    for cell in run.tallies:
        if cell is None:
            continue
        category, tally = cell
        worth = [sum(n * v[o][category] for o, n in enumerate(tally.outcomes)) for v in floor]
        smallest[category] = min(smallest[category], max(worth[1:]) - worth[0])
    return smallest


def analyze_hidden_dealer(game: Game, values: Sequence[Sequence[Sequence[int]]]) -> Run:
    """``analyze`` for games with no upcard, fast enough for a whole deck: every dealer hand's
    key computed once, a player hand's dealer hands picked as those holding none of its cards
    and counted as arrays. The same deals, the same decisions, the same rows."""
    assert game.upcards == 0, "the dealer's hand is one lane: no upcard"
    deck = tuple(sorted(game.deck))
    threshold = _threshold(game)
    suits = game.ranking.tie_breaks.suit_decides

    def mask(positions: tuple[int, ...]) -> int:
        return sum(1 << p for p in positions)

    dealer_hands = colex_hands(len(deck), game.dealer_cards)
    dealer_masks = np.array([mask(h) for h in dealer_hands], dtype=np.uint64)
    dealer_keys = np.array(
        [game.ranking.key(deck[p] for p in h) for h in dealer_hands], dtype=np.int64
    )
    rows: dict[tuple[int, int], Row] = {}
    decisions = bytearray()
    situations = 0
    for positions in colex_hands(len(deck), game.player_cards):
        player_key = game.ranking.key(deck[p] for p in positions)
        category = player_key >> 22
        keys = dealer_keys[(dealer_masks & np.uint64(mask(positions))) == 0]
        qualifies = np.ones(len(keys), dtype=bool) if threshold is None else keys >> 2 >= threshold
        shown = keys[qualifies]
        mine, theirs = (player_key, shown) if suits else (player_key >> 2, shown >> 2)
        tally = _Tally(
            [
                int((~qualifies).sum()),
                int((mine > theirs).sum()),
                int((mine == theirs).sum()),
                int((mine < theirs).sum()),
            ]
        )
        equal = shown >> 2 == player_key >> 2
        tally.equal_ranks = int(equal.sum())
        if suits:
            tally.won_on_suit = int((equal & (player_key > shown)).sum())
        decision, indifferent = _decide(values, category, tally)
        decisions.append(decision)
        situations += 1
        _record(rows, category, decision, tally)
        rows[(category, decision)].indifferent += indifferent
    completions = comb(len(deck) - game.player_cards, game.dealer_cards)
    return Run(completions, situations, rows, bytes(decisions))
