"""Reference "vendor" evaluators of Four Card Poker for ``tablecert crosscheck poker``: one
correct, two wrong, written the way a vendor might, independently of tablecert (a score
tuple per four cards, the best four of the hand dealt).

They answer the line protocol (``category <cards>`` -> category name; ``compare <cards> /
<cards>`` -> A, B or PUSH) for hands of four, five or six cards, each counting its best
four:

- ``four_card``: the published rules (four of a kind, straight flush, three of a kind,
  flush, straight, two pair, pair, high card; A-2-3-4 the lowest straight; suits never
  decide);
- ``four_card_five_card_order``: the categories in five-card poker's order (straight flush,
  four of a kind, flush, straight, three of a kind, ...): the defect of an evaluator ported
  from a five-card game;
- ``four_card_ace_low_high``: A-2-3-4 ranked the highest straight, above A-K-Q-J.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

RANKS = {r: i for i, r in enumerate("23456789TJQKA", start=2)}
#: Lowest first: the published order, and five-card poker's.
PUBLISHED = (
    "high-card",
    "pair",
    "two-pair",
    "straight",
    "flush",
    "three-of-a-kind",
    "straight-flush",
    "four-of-a-kind",
)
FIVE_CARD = (
    "high-card",
    "pair",
    "two-pair",
    "three-of-a-kind",
    "straight",
    "flush",
    "four-of-a-kind",
    "straight-flush",
)

Score = tuple[int, ...]


def _cards(text: str) -> list[tuple[int, str]]:
    return [(RANKS[c[0]], c[1]) for c in text.split()]


def _name_and_ranks(four: tuple[tuple[int, str], ...], ace_low_high: bool) -> tuple[str, Score]:
    ranks = sorted((r for r, _ in four), reverse=True)
    counts = Counter(ranks)
    by_count = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    flush = len({s for _, s in four}) == 1
    top = 0
    if len(counts) == 4 and ranks[0] - ranks[3] == 3:
        top = ranks[0]
    elif ranks == [14, 4, 3, 2]:
        top = 15 if ace_low_high else 4
    if counts[by_count[0]] == 4:
        return "four-of-a-kind", (by_count[0],)
    if top and flush:
        return "straight-flush", (top,)
    if counts[by_count[0]] == 3:
        return "three-of-a-kind", (by_count[0],)
    if flush:
        return "flush", tuple(ranks)
    if top:
        return "straight", (top,)
    if counts[by_count[0]] == 2 and counts[by_count[1]] == 2:
        return "two-pair", (by_count[0], by_count[1])
    if counts[by_count[0]] == 2:
        return "pair", tuple(by_count)
    return "high-card", tuple(ranks)


def _best(text: str, order: tuple[str, ...], ace_low_high: bool) -> tuple[str, Score]:
    best: tuple[str, Score] | None = None
    best_score: Score = ()
    for four in combinations(_cards(text), 4):
        name, ranks = _name_and_ranks(four, ace_low_high)
        score = (order.index(name), *ranks)
        if best is None or score > best_score:
            best, best_score = (name, score), score
    assert best is not None
    return best


def _answer(line: str, order: tuple[str, ...], ace_low_high: bool = False) -> str:
    verb, _, rest = line.partition(" ")
    if verb == "category":
        return _best(rest, order, ace_low_high)[0]
    a, b = (_best(hand, order, ace_low_high)[1] for hand in rest.split(" / "))
    return "A" if a > b else "B" if b > a else "PUSH"


def four_card(line: str) -> str:
    return _answer(line, PUBLISHED)


def four_card_five_card_order(line: str) -> str:
    return _answer(line, FIVE_CARD)


def four_card_ace_low_high(line: str) -> str:
    return _answer(line, PUBLISHED, ace_low_high=True)
