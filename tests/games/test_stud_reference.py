"""The stud reference itself, checked by hand-worked deals and published hand counts.

The engine is judged against ``tests/support/stud_reference.py``; these tests are what make
that reference worth trusting: its rankings reproduce the published category counts of whole
decks, its suit steps read as the statutes do, and its analysis of decks small enough to work
out on paper gives the rows worked out on paper.
"""

from __future__ import annotations

import os
import random

import pytest

from tablecert import _core
from tests.support import stud_reference as ref

STATUTE = ref.TieBreaks(suit_decides=True)
RANK_ONLY = ref.TieBreaks(suit_decides=False)
SLOW = bool(os.environ.get("TABLECERT_SLOW"))


def cards(text: str) -> list[int]:
    """``"As Kh 2d"`` as card ids, read here without the core."""
    return ["23456789TJQKA".index(c[0]) * 4 + ref.SUIT_LETTERS.index(c[1]) for c in text.split()]


def ranking(uses: int, tie_breaks: ref.TieBreaks = STATUTE) -> ref.Ranking:
    return ref.Ranking(uses, ref.VOCABULARY[uses], tie_breaks)


def totals(counts: list[list[int]]) -> list[int]:
    """Per category, highest first (the order the counts are published in)."""
    return [sum(row) for row in reversed(counts)]


def test_three_card_counts_are_the_published_ones() -> None:
    # Wizard of Odds, Three Card Poker (wizardofodds.com/games/three-card-poker/): of the
    # 22,100 hands, straight flush 48, three of a kind 52, straight 720, flush 1,096, pair
    # 3,744, high card 16,440.
    counts = ref.category_counts(ranking(3), range(52), 3)
    assert totals(counts) == [48, 52, 720, 1_096, 3_744, 16_440]
    # A-high: 64 rank sets (66 less A-K-Q and A-2-3) x 60 suitings that are no flush.
    assert counts[0][12] == 64 * 60
    assert counts[1][12] == 6 * 48  # pairs of aces: 6 pairs x 48 kickers


def test_four_card_counts_are_the_published_ones() -> None:
    # The 270,725 four-card hands (C(52,4)): four of a kind 13, straight flush 44 (eleven runs
    # A-2-3-4 .. J-Q-K-A, four suits), three of a kind 2,496, flush 2,816, straight 2,772, two
    # pair 2,808, pair 82,368, high card 177,408 (Wizard of Odds, Four Card Poker).
    counts = ref.category_counts(ranking(4), range(52), 4)
    assert totals(counts) == [13, 44, 2_496, 2_816, 2_772, 2_808, 82_368, 177_408]
    assert counts[6][2] == 4  # A-2-3-4 straight flushes: top card the 4
    assert counts[1][12] == 6 * 66 * 16  # pairs of aces, two other ranks as kickers


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1 (and -m slow)")
def test_five_card_counts_are_the_published_ones() -> None:
    # The 2,598,960 five-card hands (Wikipedia, "Poker probability"): royal flush 4, straight
    # flush 36, four of a kind 624, full house 3,744, flush 5,108, straight 10,200, three of a
    # kind 54,912, two pair 123,552, one pair 1,098,240, high card 1,302,540.
    counts = ref.category_counts(ranking(5), range(52), 5)
    assert totals(counts) == [
        4,
        36,
        624,
        3_744,
        5_108,
        10_200,
        54_912,
        123_552,
        1_098_240,
        1_302_540,
    ]


def test_five_card_counts_of_the_high_ranks() -> None:
    # Ranks T..A only (20 cards, C(20,5) = 15,504): royal flushes 4, no other straight flush,
    # 1,020 straights (4^5 - 4 of T-J-Q-K-A), four of a kind 5 x 16 = 80, full house
    # 5 x 4 x 4 x 6 = 480, no flush that is not royal.
    counts = ref.category_counts(ranking(5), [c for c in range(52) if c >= 32], 5)
    by_name = dict(zip(ref.VOCABULARY[5], totals(counts), strict=True))
    assert by_name["royal-flush"] == 4
    assert by_name["straight-flush"] == 0
    assert by_name["straight"] == 1_020
    assert by_name["four-of-a-kind"] == 80
    assert by_name["full-house"] == 480
    assert by_name["flush"] == 0
    assert sum(by_name.values()) == 15_504


def test_reference_keys_equal_todays_statute_keys() -> None:
    # Today's 3- and 5-card keys (``_core.strength_key``) are the layout the contract keeps:
    # the reference, written from the rules, gives the same int for every sampled hand under
    # each tie-break option.
    rnd = random.Random(30)
    for tb in (
        STATUTE,
        RANK_ONLY,
        ref.TieBreaks(True, "ace", "lower", "dchs"),
        ref.TieBreaks(True, "top-of-sequence", "lower", "hscd"),
    ):
        core_tb = _core.TieBreaks(
            tb.suit_decides, tb.ace_low_straight_suit, tb.pair_suit, tb.suit_order
        )
        for uses in (3, 5):
            r = ranking(uses, tb)
            for _ in range(3000):
                hand = rnd.sample(range(52), uses)
                assert r.key(hand) == _core.strength_key(hand, core_tb), hand


def test_suit_steps_read_as_the_statutes() -> None:
    r3, r4, r5 = ranking(3), ranking(4), ranking(5)
    # A 3-card pair is decided by its kicker's suit; A-2-3 is the lowest straight.
    assert r3.key(cards("7d 7c Ks")) > r3.key(cards("7s 7h Kh"))
    assert r3.key(cards("Ad 2c 3h")) < r3.key(cards("2d 3c 4h"))
    # 4 cards: the pair's suit (the higher of its two), the higher pair's for two pair.
    assert r4.key(cards("9s 9d 5c 3c")) > r4.key(cards("9h 9c 5d 3d"))
    assert r4.key(cards("9s 9d 5c 5h")) > r4.key(cards("9h 9c 5d 5s"))
    lower = ranking(4, ref.TieBreaks(True, pair_suit="lower"))
    assert lower.key(cards("9s 9d 5c 3c")) < lower.key(cards("9h 9c 5d 3d"))
    # A-2-3-4 is the lowest straight; its suit is the 4's, or the ace's.
    assert r4.key(cards("Ad 2c 3h 4s")) < r4.key(cards("2d 3c 4h 5s"))
    assert r4.key(cards("As 2c 3h 4d")) < r4.key(cards("Ad 2c 3h 4h"))
    ace = ranking(4, ref.TieBreaks(True, ace_low_straight_suit="ace"))
    assert ace.key(cards("As 2c 3h 4d")) > ace.key(cards("Ad 2c 3h 4h"))
    # Another suit order: diamonds highest.
    diamonds = ranking(5, ref.TieBreaks(True, suit_order="dchs"))
    assert diamonds.key(cards("Ad Kc 9h 5s 3s")) > diamonds.key(cards("As Kh 9c 5d 3d"))
    # Rank-only: equal ranks are equal keys.
    flat = ranking(5, RANK_ONLY)
    assert flat.key(cards("Ad Kc 9h 5s 3s")) == flat.key(cards("As Kh 9c 5d 3d"))
    # Best four of five, best five of six.
    assert r4.hand(cards("Ks Kd 7c 2h")).category == "pair"
    assert r4.key(cards("Ks Kd 7c 2h 7s")) >> 22 == r4.position("two-pair")
    assert r5.key(cards("As Ks Qs Js Ts 2d")) >> 22 == r5.position("royal-flush")
    # Without royal-flush an A-high straight flush is the highest straight flush.
    no_royal = ref.Ranking(5, ref.VOCABULARY[5][1:], STATUTE)
    key = no_royal.key(cards("As Ks Qs Js Ts"))
    assert (key >> 22, ref.first_rank(key)) == (no_royal.position("straight-flush"), 12)


def test_permuted_order_changes_the_best_hand_of_six() -> None:
    # Flush above everything: 6 cards holding both a flush and a full house count the flush.
    order = ("flush", *[c for c in ref.VOCABULARY[5] if c != "flush"])
    r = ref.Ranking(5, order, STATUTE)
    six = cards("Ks Kh Kd 9s 9h 2s")  # a full house; no five spades
    assert r.key(six) >> 22 == r.position("full-house")
    seven = cards("Ks Kh 9s 5s 3s 2s")  # a flush and a pair of kings among six
    assert r.key(seven) >> 22 == r.position("flush") == len(order) - 1
    assert ranking(5).key(seven) >> 22 == ranking(5).position("flush")


def test_analysis_of_a_six_card_deck_worked_by_hand() -> None:
    # Deck 2d 2c 2h As Ks Qs, three cards each: the dealer holds the complement. Player A-K-Q
    # of spades (straight flush) beats 2-2-2; 2-2-2 loses to it; each of the 9 hands of a pair
    # of 2s beats the dealer's K-Q-2 (or A-x-2) high card; each of the 9 hands of one 2 and
    # two spades loses to the dealer's pair of 2s. Raising wins 2 or loses 2, folding loses 1.
    game = ref.Game(ranking(3), tuple(cards("2d 2c 2h As Ks Qs")), 3, 3, 0, None)
    r = game.ranking
    fold, raised = [[-1] * 6] * 4, [[2] * 6, [2] * 6, [0] * 6, [-2] * 6]
    run = ref.analyze(game, [fold, raised])
    assert (run.completions, run.situations) == (1, 20)
    rows = {k: (v.situations, v.won, v.lost, v.indifferent) for k, v in run.rows.items()}
    assert rows == {
        (r.position("straight-flush"), 1): (1, 1, 0, 0),
        (r.position("three-of-a-kind"), 0): (1, 0, 1, 0),
        (r.position("pair"), 1): (9, 9, 0, 0),
        (r.position("high-card"), 0): (9, 0, 9, 0),
    }
    # A qualifier of a pair of 3s: only the straight flush and the trips qualify.
    qualified = ref.Game(r, game.deck, 3, 3, 0, ("pair", (1,)))
    run = ref.analyze(qualified, [fold, raised])
    assert run.rows[(r.position("pair"), 1)].not_qualifying == 9
    # ... and the high cards, facing a pair of 2s that does not qualify, now raise.
    assert run.rows[(r.position("high-card"), 1)].not_qualifying == 9
    assert (r.position("high-card"), 0) not in run.rows
    # Folding worth as much as raising: every situation is indifferent and folds.
    even = ref.analyze(game, [fold, fold])
    assert {k[1] for k in even.rows} == {0}
    assert sum(v.indifferent for v in even.rows.values()) == 20
    assert even.decisions == bytes(20)


def test_equal_ranks_are_decided_by_suit_or_tie() -> None:
    # Deck As Ks 2s Ah Kh 2h: the two flushes A-K-2 meet with equal ranks; spades are higher.
    deck = tuple(cards("As Ks 2s Ah Kh 2h"))
    values = [[[-1] * 6] * 4, [[1] * 6, [1] * 6, [0] * 6, [-1] * 6]]
    statute = ref.analyze(ref.Game(ranking(3), deck, 3, 3, 0, None), values)
    flush = ranking(3).position("flush")
    row = statute.rows[(flush, 1)]
    assert (row.situations, row.won, row.tied, row.lost) == (1, 1, 0, 0)
    assert (row.equal_ranks, row.won_on_suit) == (1, 1)
    assert statute.rows[(flush, 0)].lost == 1
    flat = ref.analyze(ref.Game(ranking(3, RANK_ONLY), deck, 3, 3, 0, None), values)
    row = flat.rows[(flush, 1)]  # a tie is worth 0 > -1: both flush hands raise
    assert (row.situations, row.won, row.tied, row.lost, row.equal_ranks) == (2, 0, 2, 0, 2)


def test_upcard_lanes_and_completions() -> None:
    # 8 cards, 3 each, one dealer card up: 56 hands x 5 upcards, C(4, 2) = 6 completions each;
    # the decision bytes hold 255 where the upcard lane is a player card.
    deck = tuple(cards("2d 5c 7h 9s Jd Qc Kh As"))
    game = ref.Game(ranking(3), deck, 3, 3, 1, ("high-card", (10,)))
    values = [[[-1] * 6] * 4, [[1] * 6, [2] * 6, [0] * 6, [-2] * 6]]
    run = ref.analyze(game, values)
    assert (run.completions, run.situations) == (6, 56 * 5)
    assert len(run.decisions) == 56 * 8
    assert run.decisions[:3] == bytes([255, 255, 255])  # the first hand holds positions 0-2
    assert 255 not in run.decisions[3:8]
    assert run.decisions.count(255) == 56 * 3
    assert sum(v.not_qualifying + v.won + v.tied + v.lost for v in run.rows.values()) == 56 * 30


@pytest.mark.parametrize(
    ("uses", "shape", "qualifier", "tie_breaks"),
    [
        (3, (3, 3), ("high-card", (10,)), STATUTE),
        (3, (3, 3), None, RANK_ONLY),
        (4, (5, 6), None, STATUTE),
        (5, (5, 5), ("high-card", (12, 11)), RANK_ONLY),
    ],
)
def test_the_array_count_equals_the_deal_by_deal_count(
    uses: int,
    shape: tuple[int, int],
    qualifier: tuple[str, tuple[int, ...]] | None,
    tie_breaks: ref.TieBreaks,
) -> None:
    # The whole-deck variant (NumPy counts per player hand) deals the same as the plain loop.
    deck = tuple(cards("As Ah Ad 2s 2h 3s 3d 4h Qs Qh Kd Kc 5s"))
    game = ref.Game(ranking(uses, tie_breaks), deck, *shape, 0, qualifier)
    k = len(game.ranking.categories)
    values = [[[-1] * k] * 4, [[1] * k, [1 + c for c in range(k)], [0] * k, [-2] * k]]
    plain, arrays = ref.analyze(game, values), ref.analyze_hidden_dealer(game, values)
    assert plain == arrays
    assert len({d for _, d in plain.rows}) == 2
