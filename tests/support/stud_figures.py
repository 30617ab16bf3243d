"""The generic stud engine's figures for a game description, on a reduced deck.

A test that must tell whether a rule file's value reaches the engine (the rule-mutation test)
compares what the engine computes from the description, not the description itself: the
engine's game is built as :mod:`tablecert.games.stud` builds it (its ``ranking``, the
description's deal, qualifier and ``values()``), but dealt from a reduced deck in which every
category of the game's hands occurs, so that one run takes a fraction of a second. The
figures are the engine's rows (every category and decision with its dealer completions by
outcome), the exact expected value those rows and the values give, the expected value of every
decision with a hand of every category (from the engine's dealer completions by outcome per
category, counted once per game), and each side bet's exact return from the category counts
of its hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from tablecert import _core
from tablecert.games.stud import ranking
from tablecert.rules.stud import SideBet, StudDescription

A, K, Q, J, T = 12, 11, 10, 9, 8
TWO, THREE, FOUR, FIVE, SIX, EIGHT = 0, 1, 2, 3, 4, 6


def cards_of(ranks: Sequence[int], suits: int = 4) -> list[int]:
    """The cards of these ranks in the first ``suits`` suits."""
    return [rank * 4 + suit for rank in ranks for suit in range(suits)]


#: The 5-card hands' low cards: 2 and 3 of diamonds, 4 and 5 of diamonds and clubs (the
#: wheel and its straight flush with the ace of diamonds, a pair of fours and of fives).
_LOW = [TWO * 4, THREE * 4, FOUR * 4, FOUR * 4 + 1, FIVE * 4, FIVE * 4 + 1]
#: Four Card Poker's high cards: 6 of diamonds and clubs, 8 of clubs and hearts, Q of hearts
#: (a flush with a gap; a high card for the player's five cards and for the dealer's six).
_GAPS = [SIX * 4, SIX * 4 + 1, EIGHT * 4 + 1, EIGHT * 4 + 2, Q * 4 + 2]

#: Reduced decks by how many cards make a hand, each chosen so that every category occurs
#: among the player's hands and wins a showdown (the ace-low straights, the royal flush and
#: every qualifier of the bundled files included), and a run takes a fraction of a second:
#: - 3 cards: A 2 3 4 5 T J Q K in four suits;
#: - 4 cards (Four Card Poker's five and six cards): the aces, 2 3 4 of diamonds and clubs
#:   (quads, the ace-low straight flush), and the high cards above;
#: - 5 cards: A K in four suits (quads, full houses), Q J T of diamonds and clubs (the royal
#:   flush), and the low cards above.
DECKS: dict[int, list[int]] = {
    3: cards_of([A, TWO, THREE, FOUR, FIVE, T, J, Q, K]),
    4: cards_of([A]) + cards_of([TWO, THREE, FOUR], 2) + _GAPS,
    5: cards_of([A, K]) + cards_of([Q, J, T], 2) + _LOW,
}
#: The larger decks of the long run.
FULL_DECKS: dict[int, list[int]] = {
    3: DECKS[3],
    4: cards_of([A, TWO, THREE, FOUR]) + _GAPS,
    5: cards_of([A, TWO, THREE, FOUR, FIVE, T, J, Q, K]),
}
#: The side bets' decks by the bet's hand size (the counts are kept per deck: one count
#: serves every change of a pay table).
SIDE_BET_DECKS: dict[int, list[int]] = {
    3: DECKS[3],
    4: FULL_DECKS[4],
    5: FULL_DECKS[5],
}
#: The long run counts the side bets' hands on the full deck.
FULL_SIDE_BET_DECKS: dict[int, list[int]] = {uses: list(range(52)) for uses in SIDE_BET_DECKS}


def game_figures(d: StudDescription, deck: Sequence[int]) -> dict[str, Any]:
    """What the engine computes for the description's main game dealt from ``deck``: the
    run's rows and totals, the exact expected net result per unit ante under the optimal
    decisions, and the expected value of every decision with a hand of every category (what
    the optimal decision is chosen from: a value of a decision the optimum never takes still
    shows there)."""
    den, values = d.values()
    run = _core.stud_analyze(_game(d, deck), values, threads=1)
    total = run.situations * run.completions
    net = sum(_net(values, r.decision, r.category, _outcomes(r)) for r in run.rows)
    per_category = outcome_counts(d, deck)
    by_decision = [
        [
            Fraction(_net(values, decision, category, counts), den * sum(counts))
            for category, counts in sorted(per_category.items())
        ]
        for decision in range(len(values))
    ]
    return {
        "situations": run.situations,
        "completions": run.completions,
        "rows": [_row(r) for r in run.rows],
        "expected value": Fraction(net, den * total),
        "by decision and category": by_decision,
    }


def _game(d: StudDescription, deck: Sequence[int]) -> _core.StudGame:
    """The engine's game as ``tablecert.games.stud.engine_game`` builds it, on ``deck``."""
    return _core.StudGame(
        _ranking(d),
        list(deck),
        d.deal.player_cards.value,
        d.deal.dealer_cards.value,
        d.deal.upcards.value,
        None if d.qualifier is None else d.qualifier.engine,
    )


_RANKINGS: dict[tuple[Any, ...], _core.StudRanking] = {}


def _ranking(d: StudDescription) -> _core.StudRanking:
    """The engine's ranking of the description (``tablecert.games.stud.ranking``), built once
    per ranking: its tables are the costly part of a run on a small deck."""
    key = (d.ranking.uses, d.ranking.names, tuple(sorted(d.ranking.tie_breaks.items())))
    if key not in _RANKINGS:
        _RANKINGS[key] = ranking(d)
    return _RANKINGS[key]


def _outcomes(row: _core.StudRow) -> tuple[int, int, int, int]:
    return (row.not_qualifying, row.won, row.tied, row.lost)


def _row(row: _core.StudRow) -> tuple[int, ...]:
    return (
        row.category,
        row.decision,
        row.situations,
        row.indifferent,
        *_outcomes(row),
        row.equal_ranks,
        row.won_on_suit,
    )


def _net(
    values: list[list[list[int]]],
    decision: int,
    category: int,
    counts: Sequence[int],
) -> int:
    """The summed net result (over the values' denominator) of taking ``decision`` in
    situations of ``category`` whose dealer completions fall by outcome as ``counts``: a fold
    loses the same whatever the dealer holds."""
    if decision == 0:
        return sum(counts) * values[0][0][category]
    return sum(n * values[decision][o][category] for o, n in enumerate(counts))


_OUTCOME_COUNTS: dict[tuple[Any, ...], dict[int, tuple[int, int, int, int]]] = {}


def outcome_counts(d: StudDescription, deck: Sequence[int]) -> dict[int, tuple[int, int, int, int]]:
    """Per category position: all its situations' dealer completions by outcome, counted by
    the engine with a decision that is always taken. The counts depend on the game (its
    ranking, deck, deal and qualifier), never on the values: they are kept once per game."""
    key = (
        d.ranking.names,
        tuple(sorted(d.ranking.tie_breaks.items())),
        tuple(deck),
        d.deal.player_cards.value,
        d.deal.dealer_cards.value,
        d.deal.upcards.value,
        None if d.qualifier is None else (d.qualifier.category, d.qualifier.ranks),
    )
    if key not in _OUTCOME_COUNTS:
        categories = len(d.ranking.names)
        always = [[[0] * categories for _ in range(4)], [[1] * categories for _ in range(4)]]
        run = _core.stud_analyze(_game(d, deck), always, threads=1)
        assert all(r.decision == 1 for r in run.rows)
        _OUTCOME_COUNTS[key] = {r.category: _outcomes(r) for r in run.rows}
    return _OUTCOME_COUNTS[key]


def side_bet_figures(d: StudDescription, decks: dict[int, list[int]]) -> list[Any]:
    """Each side bet's name (a label) and exact return per unit, its hands dealt from the deck
    of its hand size."""
    return [
        (
            bet.id,
            bet.name.value,
            bet.return_per_unit(category_counts(d, bet, decks[bet.uses.value])),
        )
        for bet in d.side_bets
    ]


def category_counts(d: StudDescription, bet: SideBet, deck: Sequence[int]) -> list[list[int]]:
    """A side bet's hands from ``deck`` by category position and first rank."""
    tie_breaks = tuple(sorted(d.ranking.tie_breaks.items()))
    return _category_counts(
        bet.uses.value, bet.categories, tie_breaks, tuple(deck), bet.card_count(d.deal)
    )


@lru_cache(maxsize=64)
def _category_counts(
    uses: int,
    categories: tuple[str, ...],
    tie_breaks: tuple[tuple[str, Any], ...],
    deck: tuple[int, ...],
    cards: int,
) -> list[list[int]]:
    """``_core.stud_category_counts``, computed once per input (a pay table's change needs
    no new count: the counts depend on the bet's ranking, the deck and its cards only)."""
    order = _core.StudRanking(uses, list(categories), _core.TieBreaks(**dict(tie_breaks)))
    return _core.stud_category_counts(order, list(deck), cards)
