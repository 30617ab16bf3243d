"""A slow, obviously-correct reading of both statute orderings, straight from INTERPRETATION.md.

Shares no code with tablecert. A hand is a list of codes like "Ts"; ``strength`` returns a tuple
that compares as the statute compares hands.
"""

from __future__ import annotations

from collections import Counter

RANKS = "23456789TJQKA"
SUITS = "dchs"  # Art. 4: spades > hearts > clubs > diamonds
DECK = [r + s for r in RANKS for s in SUITS]
RANK_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}  # 2..14
SUIT_VALUE = {s: i for i, s in enumerate(SUITS)}


def _cards(hand: list[str]) -> list[tuple[int, int]]:
    return sorted(((RANK_VALUE[c[0]], SUIT_VALUE[c[1]]) for c in hand), reverse=True)


def _suit_of_rank(cards: list[tuple[int, int]], rank: int, pick: str = "higher") -> int:
    suits = [s for r, s in cards if r == rank]
    return max(suits) if pick == "higher" else min(suits)


def q_poker_strength(
    hand: list[str], suits: bool = True, a23_suit_card: str = "three"
) -> tuple[int, ...]:
    """Art. 8 of the Q Poker statute; category 5 (straight flush) .. 0 (high card)."""
    cards = _cards(hand)
    ranks = [r for r, _ in cards]
    counts = Counter(ranks)
    flush = len({s for _, s in cards}) == 1
    rank_set = set(ranks)
    straight_top = None
    suit_card_rank = None
    if len(rank_set) == 3 and max(ranks) - min(ranks) == 2:
        straight_top = max(ranks)
        suit_card_rank = max(ranks)
    elif rank_set == {14, 2, 3}:
        straight_top = 3  # A-2-3 is the lowest straight (Art. 4(3))
        suit_card_rank = 3 if a23_suit_card == "three" else 14
    top_suit = cards[0][1]

    def tail(suit: int) -> tuple[int, ...]:
        return (suit,) if suits else ()

    if straight_top is not None and flush:
        return (5, straight_top, *tail(top_suit))
    if 3 in counts.values():
        return (4, ranks[0])
    if straight_top is not None:
        assert suit_card_rank is not None
        return (3, straight_top, *tail(_suit_of_rank(cards, suit_card_rank)))
    if flush:
        return (2, *ranks, *tail(top_suit))
    if 2 in counts.values():
        pair = next(r for r, n in counts.items() if n == 2)
        kicker = next(c for c in cards if c[0] != pair)
        return (1, pair, kicker[0], *tail(kicker[1]))
    return (0, *ranks, *tail(top_suit))


def caribbean_strength(
    hand: list[str], suits: bool = True, wheel_suit_card: str = "five", pair_suit: str = "higher"
) -> tuple[int, ...]:
    """Art. 8 of the Caribbean Stud statute; category 9 (royal) .. 0 (high card)."""
    cards = _cards(hand)
    ranks = [r for r, _ in cards]
    counts = Counter(ranks)
    by_count = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    flush = len({s for _, s in cards}) == 1
    distinct = len(counts) == 5
    straight_top = None
    suit_card_rank = None
    if distinct and max(ranks) - min(ranks) == 4:
        straight_top = suit_card_rank = max(ranks)
    elif distinct and set(ranks) == {14, 2, 3, 4, 5}:
        straight_top = 5  # the ace counts lowest (Art. 4(3))
        suit_card_rank = 5 if wheel_suit_card == "five" else 14
    top_suit = cards[0][1]

    def tail(suit: int) -> tuple[int, ...]:
        return (suit,) if suits else ()

    if straight_top == 14 and flush:
        return (9, *tail(top_suit))
    if straight_top is not None and flush:
        return (8, straight_top, *tail(top_suit))
    if by_count[0][1] == 4:
        return (7, by_count[0][0])
    if by_count[0][1] == 3 and by_count[1][1] == 2:
        return (6, by_count[0][0], by_count[1][0])
    if flush:
        return (5, *ranks, *tail(top_suit))
    if straight_top is not None:
        assert suit_card_rank is not None
        return (4, straight_top, *tail(_suit_of_rank(cards, suit_card_rank)))
    if by_count[0][1] == 3:
        return (3, by_count[0][0])
    if by_count[0][1] == 2 and by_count[1][1] == 2:
        high, low, kicker = by_count[0][0], by_count[1][0], by_count[2][0]
        return (2, high, low, kicker, *tail(_suit_of_rank(cards, high, pair_suit)))
    if by_count[0][1] == 2:
        pair = by_count[0][0]
        kickers = [r for r in ranks if r != pair]
        return (1, pair, *kickers, *tail(_suit_of_rank(cards, pair, pair_suit)))
    return (0, *ranks, *tail(top_suit))


def compare(strength_a: tuple[int, ...], strength_b: tuple[int, ...]) -> int:
    return (strength_a > strength_b) - (strength_a < strength_b)
