"""The generic stud engine (``_core.stud_*``) against an independent brute force and today's
engines.

The reference (``tests/support/stud_reference.py``, itself checked in
``test_stud_reference.py``) is written from the poker rules and the engine's contract, not from
the Rust: every figure here is one the engine could get wrong. Reduced decks keep the brute force
to seconds; the whole deck is checked against published counts, against today's Q Poker and
Caribbean Stud engines bit for bit, and (slow run) against the reference where it finishes.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest

from tablecert import _core
from tablecert._core import _testing
from tablecert.games import caribbean_stud, q_poker
from tablecert.games.common import common_denominator
from tablecert.poker import ordering
from tests.support import stud_reference as ref
from tests.support.games_support import caribbean

SLOW = bool(os.environ.get("TABLECERT_SLOW"))
STATUTE = ref.TieBreaks(suit_decides=True)
RANK_ONLY = ref.TieBreaks(suit_decides=False)
#: Every tie-break option away from the statute's at once: the ace's suit, the lower of a
#: pair's suits, diamonds highest.
OTHER_SUITS = ref.TieBreaks(True, "ace", "lower", "dchs")
TIE_BREAKS = {"statute": STATUTE, "rank-only": RANK_ONLY, "other-suits": OTHER_SUITS}

Values = list[list[list[int]]]


def core_tie_breaks(tb: ref.TieBreaks) -> _core.TieBreaks:
    return _core.TieBreaks(tb.suit_decides, tb.ace_low_straight_suit, tb.pair_suit, tb.suit_order)


def reference_tie_breaks(tb: _core.TieBreaks) -> ref.TieBreaks:
    return ref.TieBreaks(tb.suit_decides, tb.ace_low_straight_suit, tb.pair_suit, tb.suit_order)


def core_ranking(r: ref.Ranking) -> _core.StudRanking:
    return _core.StudRanking(r.uses, list(r.categories), core_tie_breaks(r.tie_breaks))


def permuted(uses: int, seed: int, royal: bool = True) -> tuple[str, ...]:
    """A shuffled category order (what a game could declare): the engine must rank by it."""
    names = [c for c in ref.VOCABULARY[uses] if royal or c != "royal-flush"]
    random.Random(seed).shuffle(names)
    return tuple(names)


ORDERS = {
    "default": lambda uses: ref.VOCABULARY[uses],
    "permuted": lambda uses: permuted(uses, 7 * uses),
    "reversed": lambda uses: tuple(reversed(ref.VOCABULARY[uses])),
}


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def ranks(*names: str) -> list[int]:
    return ["23456789TJQKA".index(n) for n in names]


def deck_of(rank_names: str, suits: str = "dchs") -> tuple[int, ...]:
    """Every card of these ranks in these suits."""
    return tuple(r * 4 + ref.SUIT_LETTERS.index(s) for r in ranks(*rank_names) for s in suits)


#: Reduced decks rich in every category: the wheel and Broadway ranks, all four suits.
RICH_DECKS = (
    deck_of("A2345", "dchs") + deck_of("TJQK", "sh"),
    deck_of("A234KQJ", "shc"),
    deck_of("9TJQKA", "dchs"),
)


# --- 1. stud_key orders hands as the reference does ----------------------------------------


def _check_pairs(
    r: ref.Ranking, engine: _core.StudRanking, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> None:
    for a, b in pairs:
        ka, kb = _core.stud_key(engine, list(a)), _core.stud_key(engine, list(b))
        ra, rb = r.key(a), r.key(b)
        assert (ka >> 22, kb >> 22) == (ra >> 22, rb >> 22), (a, b)
        assert sign(ka - kb) == sign(ra - rb), (a, b)
        assert sign((ka & ~3) - (kb & ~3)) == sign((ra >> 2) - (rb >> 2)), (a, b)


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("tie_breaks", sorted(TIE_BREAKS))
@pytest.mark.parametrize("extra", [0, 1, 2])
@pytest.mark.parametrize("uses", [3, 4, 5])
def test_stud_key_orders_random_hands_as_the_reference(
    uses: int, extra: int, tie_breaks: str, order: str
) -> None:
    r = ref.Ranking(uses, ORDERS[order](uses), TIE_BREAKS[tie_breaks])
    engine = core_ranking(r)
    rnd = random.Random(f"{uses}-{extra}-{tie_breaks}-{order}")
    n = uses + extra
    decks = [tuple(range(52)), *RICH_DECKS]
    pairs = []
    for i in range(400):
        dealt = rnd.sample(decks[i % len(decks)], 2 * n)
        pairs.append((dealt[:n], dealt[n:]))
    _check_pairs(r, engine, pairs)


@pytest.mark.parametrize("tie_breaks", sorted(TIE_BREAKS))
@pytest.mark.parametrize(("uses", "n"), [(3, 3), (3, 4), (4, 4), (4, 5), (5, 5), (5, 6)])
def test_stud_key_orders_every_pair_of_a_reduced_deck(uses: int, n: int, tie_breaks: str) -> None:
    # Every two hands that can meet (disjoint) from 12 cards: the wheel in spades and hearts
    # (straights, flushes, straight flushes, suit steps) and the queens of diamonds and clubs.
    deck = deck_of("A2345", "sh") + deck_of("Q", "dc")
    for order in ("default", "permuted"):
        r = ref.Ranking(uses, ORDERS[order](uses), TIE_BREAKS[tie_breaks])
        engine = core_ranking(r)
        hands = list(combinations(deck, n))
        pairs = [(a, b) for a in hands for b in hands if a < b and not set(a) & set(b)]
        assert len(pairs) == comb(len(deck), n) * comb(len(deck) - n, n) // 2
        _check_pairs(r, engine, pairs)


def test_five_card_ranking_without_royal_flush() -> None:
    r = ref.Ranking(5, permuted(5, 11, royal=False), STATUTE)
    engine = core_ranking(r)
    rnd = random.Random(5)
    pairs = []
    for _ in range(2000):
        dealt = rnd.sample(RICH_DECKS[2], 10)
        pairs.append((dealt[:5], dealt[5:]))
    _check_pairs(r, engine, pairs)
    royal = list(deck_of("TJQKA", "s"))
    key = _core.stud_key(engine, royal)
    assert key >> 22 == r.position("straight-flush")


@pytest.mark.parametrize(
    ("uses", "categories", "named"),
    [
        (3, ["straight-flush", "three-of-a-kind", "straight", "flush", "pair"], "high-card"),
        (4, [*ref.VOCABULARY[4], "pair"], "pair"),
        (5, [*ref.VOCABULARY[5][:-1], "no-pair"], "no-pair"),
        (6, list(ref.VOCABULARY[5]), "6"),
    ],
)
def test_a_ranking_the_engine_cannot_read_is_refused(
    uses: int, categories: list[str], named: str
) -> None:
    # A missing, repeated or unknown category, or an unknown hand size, is named.
    with pytest.raises(ValueError, match=named):
        _core.StudRanking(uses, categories, _core.TieBreaks(True))


# --- 2. stud_category_counts ----------------------------------------------------------------


def _totals(counts: Sequence[Sequence[int]]) -> list[int]:
    """Per category, highest first."""
    return [sum(row) for row in reversed(counts)]


@pytest.mark.parametrize("tie_breaks", ["statute", "rank-only"])
@pytest.mark.parametrize("order", ["default", "permuted"])
@pytest.mark.parametrize(
    ("uses", "cards"), [(3, 3), (3, 4), (3, 6), (4, 4), (4, 5), (4, 6), (5, 5), (5, 6), (5, 7)]
)
def test_category_counts_of_reduced_decks_equal_the_brute_force(
    uses: int, cards: int, order: str, tie_breaks: str
) -> None:
    # 28 cards for hands of up to 5, 15 (a royal flush among them) for 6 and 7.
    small = deck_of("A2345", "sh") + deck_of("TJQK", "s") + deck_of("K", "d")
    deck = RICH_DECKS[0] if cards < 6 else small
    r = ref.Ranking(uses, ORDERS[order](uses), TIE_BREAKS[tie_breaks])
    counts = _core.stud_category_counts(core_ranking(r), list(deck), cards)
    assert counts == ref.category_counts(r, deck, cards)
    assert sum(map(sum, counts)) == comb(len(deck), cards)


def test_three_and_four_card_counts_of_the_whole_deck() -> None:
    # Wizard of Odds, Three Card Poker and Four Card Poker hand counts (22,100 and 270,725
    # hands), and every (category, first rank) cell equal to the brute force.
    for uses, published in (
        (3, [48, 52, 720, 1_096, 3_744, 16_440]),
        (4, [13, 44, 2_496, 2_816, 2_772, 2_808, 82_368, 177_408]),
    ):
        r = ref.Ranking(uses, ref.VOCABULARY[uses], STATUTE)
        counts = _core.stud_category_counts(core_ranking(r), list(range(52)), uses)
        assert _totals(counts) == published
        assert counts == ref.category_counts(r, range(52), uses)


#: Wikipedia, "Poker probability": the 2,598,960 five-card hands, royal flush first.
FIVE_CARD = [4, 36, 624, 3_744, 5_108, 10_200, 54_912, 123_552, 1_098_240, 1_302_540]
#: The best five of six cards, C(52, 6) = 20,358,520: the Six Card Bonus side bet. Royal
#: flushes 4 x 47, other straight flushes 36 x 46, quads 13 x C(48, 2); the house edges these
#: counts give match the printed ones of two published pay tables: "just over 8.5%" for
#: 1000-200-100-20-15-10-7 (mypokercoaching.com, "What is a 6-Card Bonus in 3-Card Poker?",
#: exactly 8.5614%) and 10.23% for 1000-200-50-25-20-10-5
#: (table-games-online.com/3-card-poker/rules.html; exactly 10.2248%).
SIX_CARD = [188, 1_656, 14_664, 165_984, 205_792, 361_620, 732_160, 2_532_816, 9_730_740, 6_612_900]


def test_five_and_six_card_counts_of_the_whole_deck_are_the_published_ones() -> None:
    engine = core_ranking(ref.Ranking(5, ref.VOCABULARY[5], STATUTE))
    assert _totals(_core.stud_category_counts(engine, list(range(52)), 5)) == FIVE_CARD
    six = _core.stud_category_counts(engine, list(range(52)), 6)
    assert _totals(six) == SIX_CARD
    assert sum(SIX_CARD) == comb(52, 6)
    # The six-card bonus' house edges on the two published tables, exactly.
    for pays, loss, printed in (
        ([1000, 200, 50, 25, 20, 10, 5], 2_081_616, 10.23),
        ([1000, 200, 100, 20, 15, 10, 7], 1_742_976, 8.56),
    ):
        won = zip([*pays, -1, -1, -1], _totals(six), strict=True)
        ev = Fraction(sum(p * n for p, n in won), comb(52, 6))
        assert ev == Fraction(-loss, 20_358_520)
        assert abs(float(-ev) * 100 - printed) < 0.01


#: The best four of five cards (Four Card Poker's player hand), highest first, as the
#: reference counts them (``test_five_card_and_best_four_of_five_counts_equal_the_brute_force``,
#: slow run); the pairs of aces apart (Aces Up pays "a pair of aces or better").
BEST_FOUR_OF_FIVE = [624, 2_072, 58_656, 114_616, 101_808, 123_552, 1_047_552, 1_150_080]
PAIRS_OF_ACES = 81_096


def test_best_four_of_five_gives_the_published_aces_up_edges() -> None:
    # Wikipedia, "Four Card Poker" (after Wizard of Odds): the Aces Up pay tables give "a house
    # edge ranging from 1.98% to 6.15%": the 50-40-9-6-4-2-1 table (four of a kind, straight
    # flush, three of a kind, flush, straight, two pair, pair of aces) and 50-40-7-5-4-3-1.
    engine = core_ranking(ref.Ranking(4, ref.VOCABULARY[4], RANK_ONLY))
    counts = _core.stud_category_counts(engine, list(range(52)), 5)
    assert _totals(counts) == BEST_FOUR_OF_FIVE
    assert counts[1][12] == PAIRS_OF_ACES
    paying = [*BEST_FOUR_OF_FIVE[:6], PAIRS_OF_ACES]
    losing = comb(52, 5) - sum(paying)
    for pays, printed in (((50, 40, 9, 6, 4, 2, 1), 1.98), ((50, 40, 7, 5, 4, 3, 1), 6.15)):
        ev = Fraction(sum(p * n for p, n in zip(pays, paying, strict=True)) - losing, comb(52, 5))
        assert round(float(-ev) * 100, 2) == printed


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1 (and -m slow)")
def test_five_card_and_best_four_of_five_counts_equal_the_brute_force() -> None:
    for uses, cards in ((5, 5), (4, 5)):
        r = ref.Ranking(uses, ref.VOCABULARY[uses], STATUTE)
        counts = _core.stud_category_counts(core_ranking(r), list(range(52)), cards)
        assert counts == ref.category_counts(r, range(52), cards)


# --- 3. stud_analyze against the brute force on reduced decks -------------------------------


def raise_values(
    categories: int,
    multiples: Sequence[int],
    pays: Sequence[int],
    *,
    ties_win: bool = False,
    cap: int | None = None,
    bonus: Sequence[int] | None = None,
) -> Values:
    """Ante/raise values per ante: fold loses the ante; a raise of ``m`` with the dealer not
    qualifying wins the ante and pushes the raise; a win pays the ante 1 to 1 and the raise
    ``pays[c]`` to 1 (at most ``cap`` in all); a tie pushes (or wins); a loss loses both; the
    ante ``bonus[c]`` is paid whatever the dealer holds."""
    fold = [[-1] * categories for _ in range(4)]
    table = [fold]
    for m in multiples:
        won = [1 + (m * p if cap is None else min(m * p, cap)) for p in pays]
        extra = bonus or [0] * categories
        rows = [[1] * categories, won, won if ties_win else [0] * categories, [-1 - m] * categories]
        table.append([[v + extra[c] for c, v in enumerate(row)] for row in rows])
    return table


def with_ties(values: Values, category: int) -> Values:
    """Make decisions 1 and 2 (and fold and 1 in the next category) worth exactly the same in
    every situation of ``category``: the lowest decision must be taken and counted
    indifferent."""
    out = [[list(row) for row in d] for d in values]
    for o in range(4):
        if len(out) > 2:
            out[2][o][category] = out[1][o][category]
        out[1][o][category + 1] = out[0][o][category + 1]
    return out


Rows = dict[tuple[int, int], tuple[int, ...]]


def engine_rows(run: _core.StudRun) -> Rows:
    """The run's rows by (category, decision)."""
    rows: Rows = {}
    for row in run.rows:
        fields = [int(getattr(row, f)) for f in ref.ROW_FIELDS]
        assert (fields[0], fields[1]) not in rows, fields
        rows[(fields[0], fields[1])] = tuple(fields)
    return rows


def reference_rows(run: ref.Run) -> dict[tuple[int, int], tuple[int, ...]]:
    return {k: tuple(getattr(row, f) for f in ref.ROW_FIELDS) for k, row in run.rows.items()}


def run_engine(
    game: ref.Game,
    values: Values,
    threads: int = 0,
    *,
    counts: bool = False,
    floor: Values | None = None,
    masks: bool = False,
) -> _core.StudRun:
    qualifier = None if game.qualifier is None else (game.qualifier[0], list(game.qualifier[1]))
    core_game = _core.StudGame(
        core_ranking(game.ranking),
        list(game.deck),
        game.player_cards,
        game.dealer_cards,
        game.upcards,
        qualifier,
    )
    return _core.stud_analyze(
        core_game,
        values,
        decisions=not masks,
        masks=masks,
        counts=counts,
        floor=floor,
        threads=threads,
    )


def assert_same_run(game: ref.Game, values: Values) -> ref.Run:
    expected = ref.analyze(game, values)
    run = run_engine(game, values)
    assert (run.completions, run.situations) == (expected.completions, expected.situations)
    assert engine_rows(run) == reference_rows(expected)
    assert run.decisions == expected.decisions
    return expected


@pytest.mark.parametrize("name", ["3-3 rank-only", "5-6 best four, rank-only"])
def test_equal_ranks_are_the_ties_under_rank_only(name: str) -> None:
    # equal_ranks counts the qualifying showdowns between equal ranks-only keys under either
    # ordering; with rank-only rules those showdowns are the ties.
    game = GAMES[name]
    k = len(game.ranking.categories)
    values = raise_values(k, [1], PAYS[game.ranking.uses])
    run = run_engine(game, values)
    assert sum(row.tied for row in run.rows) > 0
    assert [row.equal_ranks for row in run.rows] == [row.tied for row in run.rows]
    assert engine_rows(run) == reference_rows(ref.analyze(game, values))


def _case(
    uses: int,
    deck: tuple[int, ...],
    shape: tuple[int, int, int],
    qualifier: tuple[str, tuple[int, ...]] | None,
    tie_breaks: ref.TieBreaks = STATUTE,
    order: tuple[str, ...] | None = None,
) -> ref.Game:
    r = ref.Ranking(uses, order or ref.VOCABULARY[uses], tie_breaks)
    return ref.Game(r, deck, *shape, qualifier)


#: 17 cards where a Q-high qualifier bites: low ranks, the wheel's A-2-3, Q K.
THREE_CARD_DECK = deck_of("A2358QK", "sh") + deck_of("A5Q", "c")
#: Caribbean-like pays (raise), per category lowest first, for 3-, 4- and 5-card rankings.
PAYS = {3: [1, 1, 2, 3, 5, 8], 4: [1, 1, 1, 2, 3, 4, 9, 12], 5: [1, 1, 2, 3, 4, 5, 7, 20, 50, 100]}
GAMES = {
    # Q Poker / Three Card Poker's shape: 3 against 3, a Q-high qualifier.
    "3-3 Q-high": _case(3, THREE_CARD_DECK, (3, 3, 0), ("high-card", (10,))),
    "3-3 rank-only": _case(3, THREE_CARD_DECK, (3, 3, 0), ("high-card", (10,)), RANK_ONLY),
    "3-3 no qualifier, upcard": _case(3, deck_of("A234J", "shc"), (3, 3, 1), None),
    "3-3 other suits, permuted": _case(
        3, deck_of("A2KQ", "dchs"), (3, 3, 0), ("pair", (0,)), OTHER_SUITS, permuted(3, 3)
    ),
    # Four Card Poker's shape: best four of the player's 5 and of the dealer's 6, one up.
    "5-6 best four, upcard": _case(4, deck_of("A2345KQ", "sh"), (5, 6, 1), None),
    "5-6 best four, rank-only": _case(4, deck_of("A234KQ", "shd")[:13], (5, 6, 1), None, RANK_ONLY),
    "4-4 pair of 4s": _case(4, deck_of("A234K", "shc"), (4, 4, 0), ("pair", (2,))),
    # Best three of the player's 4 against the dealer's 5 (ranks with no run of three: a
    # dealer without a pair can fail to qualify).
    "4-5 best three, pair to qualify": _case(3, deck_of("258JK", "shc"), (4, 5, 0), ("pair", (0,))),
    # The dealer's best five of seven.
    "5-7 dealer best five of seven": _case(
        5,
        deck_of("23459", "sh") + deck_of("A", "s") + deck_of("K", "h") + deck_of("7", "d"),
        (5, 7, 0),
        ("high-card", (12, 11)),
        RANK_ONLY,
    ),
    # Caribbean Stud's shape (reduced): 5 against 5, one up, an A-K qualifier.
    "5-5 A-K, upcard": _case(
        5, deck_of("A2345", "sh") + deck_of("K", "shd"), (5, 5, 1), ("high-card", (12, 11))
    ),
    "5-5 rank-only, no upcard": _case(
        5, deck_of("A2345", "sh") + deck_of("KQ", "sd"), (5, 5, 0), ("one-pair", (0,)), RANK_ONLY
    ),
    "5-5 permuted, straight to qualify": _case(
        5,
        deck_of("A2345", "sh") + deck_of("K", "shd"),
        (5, 5, 0),
        ("straight", (2,)),
        OTHER_SUITS,
        permuted(5, 5),
    ),
}


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("multiples", [[1], [1, 2, 3]], ids=["one-raise", "three-raises"])
def test_analysis_equals_the_brute_force(name: str, multiples: list[int]) -> None:
    game = GAMES[name]
    k = len(game.ranking.categories)
    pays = PAYS[game.ranking.uses]
    ties_win = game.qualifier is None  # Four Card Poker: ties go to the player
    values = raise_values(
        k, multiples, pays, ties_win=ties_win, cap=6, bonus=[0] * (k - 2) + [1, 3]
    )
    expected = assert_same_run(game, values)
    decided = {d for _, d in expected.rows}
    assert len(decided) > 1, "the values must make the decision depend on the cards"
    # Every outcome the game can have occurs: the qualifier disqualifies some dealer hands,
    # equal ranks meet, and are decided by suit or tie.
    total = {f: sum(getattr(row, f) for row in expected.rows.values()) for f in ref.ROW_FIELDS}
    suits = game.ranking.tie_breaks.suit_decides
    assert (total["not_qualifying"] > 0) == (game.qualifier is not None)
    assert total["equal_ranks"] > 0
    assert (total["won_on_suit"] > 0, total["tied"] > 0) == (suits, not suits)
    # Exact ties between decisions: the lowest one, counted indifferent.
    tied = with_ties(values, 1)
    expected = assert_same_run(game, tied)
    assert sum(row.indifferent for row in expected.rows.values()) > 0


def test_a_capped_raise_makes_every_multiple_best_somewhere() -> None:
    # A cap of 6 per ante makes the middle raise best in some situations: all four decisions
    # occur, and the engine must find each.
    game = GAMES["5-6 best four, upcard"]
    values = raise_values(8, [1, 2, 3], [1, 1, 1, 2, 3, 4, 9, 12], ties_win=True, cap=6)
    expected = assert_same_run(game, values)
    assert {d for _, d in expected.rows} == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "name",
    ["3-3 rank-only", "5-5 A-K, upcard", "5-6 best four, upcard", "5-5 rank-only, no upcard"],
)
def test_counts_margins_and_masks_equal_the_reference(name: str) -> None:
    # What the par sheets ask beyond the rows: every situation's counts (Q Poker's strategy
    # and values by hand), each category's smallest margin of raising under the floor values
    # (the proof that a payout change moves no decision) and the raise masks (the strategy
    # table by upcard), against the reference's situations one by one.
    game = GAMES[name]
    k = len(game.ranking.categories)
    values = raise_values(k, [1, 2], PAYS[game.ranking.uses], ties_win=game.qualifier is None)
    floor = [[list(row) for row in by_outcome] for by_outcome in values]
    for d in range(1, len(floor)):
        floor[d][1] = [min(floor[d][1])] * k
    expected = ref.analyze(game, values)
    run = run_engine(game, values, counts=True, floor=floor, masks=True)
    assert run.counts == ref.situation_counts(expected)
    assert run.min_margins == ref.min_margins(expected, floor, k)
    assert any(m < 0 for m in run.min_margins)
    assert any(0 < m < 2**63 - 1 for m in run.min_margins)
    lanes = len(game.deck) if game.upcards else 1
    table = np.frombuffer(expected.decisions, dtype=np.uint8).reshape(-1, lanes)
    raised = (table != 0) & (table != 255)
    masks = (raised * (1 << np.arange(lanes, dtype=np.uint64))).sum(axis=1, dtype=np.uint64)
    assert run.raise_masks == masks.astype("<u8").tobytes()
    assert run.decisions is None  # the masks alone were asked
    assert engine_rows(run) == reference_rows(expected)


def test_what_the_engine_cannot_keep_is_refused() -> None:
    ranking = core_ranking(GAMES["5-5 A-K, upcard"].ranking)
    whole = _core.StudGame(ranking, list(range(52)), 5, 5, 1, ("high-card", [12, 11]))
    values = raise_values(10, [2], PAYS[5])
    with pytest.raises(ValueError, match=r"counts: 135145920 situations, at most 16777216"):
        _core.stud_analyze(whole, values, counts=True)
    with pytest.raises(ValueError, match="floor: 1 decisions, expected 2"):
        _core.stud_analyze(whole, values, floor=values[:1])


def test_threads_do_not_change_the_answer() -> None:
    game = GAMES["5-5 A-K, upcard"]
    values = raise_values(10, [2], PAYS[5])
    one, many = run_engine(game, values, threads=1), run_engine(game, values, threads=0)
    assert engine_rows(one) == engine_rows(many)
    assert one.decisions == many.decisions


def test_progress_counts_player_hands_and_decisions_are_optional() -> None:
    game = GAMES["5-5 A-K, upcard"]
    values = raise_values(10, [2], PAYS[5])
    core_game = _core.StudGame(
        core_ranking(game.ranking), list(game.deck), 5, 5, 1, ("high-card", [12, 11])
    )
    progress = _core.Progress()
    run = _core.stud_analyze(core_game, values, progress=progress)
    assert progress.done == comb(len(game.deck), 5)
    assert run.decisions is None
    assert engine_rows(run) == reference_rows(ref.analyze(game, values))


# --- 4. bit-identity with today's engines ---------------------------------------------------


def q_poker_values(rules: str) -> tuple[ref.TieBreaks, Values, int]:
    """The play bet's values of a Q Poker rule file as the contract's ``values``: fold, and
    follow (``d = 1``) with the ante bonus paid on every outcome."""
    order = ordering("q-poker", rules)
    v = q_poker.play_values(order)
    den = common_denominator([v.fold, v.not_qualifying, v.loss, v.tie, *v.win, *v.bonus])
    k = len(v.win)

    def n(x: Fraction) -> int:
        return int(x * den)

    follow = [
        [n(v.not_qualifying + v.bonus[c]) for c in range(k)],
        [n(v.win[c] + v.bonus[c]) for c in range(k)],
        [n(v.tie + v.bonus[c]) for c in range(k)],
        [n(v.loss + v.bonus[c]) for c in range(k)],
    ]
    return reference_tie_breaks(order.tie_breaks), [[[n(v.fold)] * k] * 4, follow], den


def q_poker_rows_today(rules: str, values: Values) -> dict[tuple[int, int], tuple[int, ...]]:
    """Today's Q Poker showdown counts (``_testing.q_poker_hand_counts``) summed into the
    contract's rows under ``values`` (the optimal decision of each hand, fold on equal)."""
    order = ordering("q-poker", rules)
    raw = _testing.q_poker_hand_counts(order.tie_breaks, [10])
    names = _testing.Q_POKER_COUNT_FIELDS
    table = np.frombuffer(raw, dtype="<u4").reshape(-1, len(names)).astype(np.int64)
    col = {name: table[:, j] for j, name in enumerate(names)}
    keys = [_core.strength_key(_core.hand_at(i, 3), order.tie_breaks) for i in range(22_100)]
    dealer = comb(49, 3)
    rows: dict[tuple[int, int], list[int]] = {}
    for i, key in enumerate(keys):
        c = key >> 22
        nq, beaten = int(col["not_qualifying"][i]), int(col["beaten"][i])
        equal, on_suit = int(col["equal_ranks"][i]), int(col["won_on_suit"][i])
        if order.suit_decides:
            won, tied, eq, ws = beaten + on_suit, 0, equal, on_suit
        else:
            won, tied, eq, ws = beaten, equal, equal, 0
        outcomes = (nq, won, tied, dealer - nq - won - tied)
        worth = [sum(x * d[o][c] for o, x in enumerate(outcomes)) for d in values]
        d = worth.index(max(worth))
        row = rows.setdefault((c, d), [c, d, 0, 0, 0, 0, 0, 0, 0, 0])
        for j, x in enumerate((1, worth.count(max(worth)) > 1, *outcomes, eq, ws)):
            row[2 + j] += int(x)
    return {k: tuple(v) for k, v in rows.items()}


def q_poker_game(tb: ref.TieBreaks) -> ref.Game:
    return ref.Game(
        ref.Ranking(3, ref.VOCABULARY[3], tb), tuple(range(52)), 3, 3, 0, ("high-card", (10,))
    )


@pytest.mark.parametrize("rules", ["q-poker.macau", "q-poker.standard"])
def test_q_poker_rows_are_todays_bit_for_bit(rules: str) -> None:
    tb, values, den = q_poker_values(rules)
    run = run_engine(q_poker_game(tb), values)
    assert (run.completions, run.situations) == (18_424, 22_100)
    rows = engine_rows(run)
    assert rows == q_poker_rows_today(rules, values)
    # And today's published house edge from those rows (standard: 3.37% of the ante).
    total = sum(r[2 + 2 + o] * values[r[1]][o][r[0]] for r in rows.values() for o in range(4))
    edge = -Fraction(total, den * 22_100 * 18_424)
    assert edge == q_poker.analyze(rules).play.house_edge


def test_q_poker_whole_deck_equals_the_brute_force() -> None:
    # The whole deck, every player hand against each of its 18,424 dealer hands (NumPy-counted
    # per hand), under the statute's values: seconds.
    tb, values, _ = q_poker_values("q-poker.macau")
    game = q_poker_game(tb)
    expected = ref.analyze_hidden_dealer(game, values)
    run = run_engine(game, values)
    assert engine_rows(run) == reference_rows(expected)
    assert run.decisions == expected.decisions


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1 (and -m slow)")
@pytest.mark.parametrize("qualifier", [("high-card", (10,)), None, ("pair", (2,))])
def test_three_card_whole_deck_equals_the_brute_force_slow(
    qualifier: tuple[str, tuple[int, ...]] | None,
) -> None:
    for rules in ("q-poker.standard", "q-poker.macau"):
        tb, values, _ = q_poker_values(rules)
        game = ref.Game(ref.Ranking(3, ref.VOCABULARY[3], tb), tuple(range(52)), 3, 3, 0, qualifier)
        expected = ref.analyze_hidden_dealer(game, values)
        run = run_engine(game, values)
        assert engine_rows(run) == reference_rows(expected)
        assert run.decisions == expected.decisions


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1 (and -m slow)")
def test_four_card_poker_reproduces_the_published_house_edge() -> None:
    # Wizard of Odds, Four Card Poker (wizardofodds.com/games/four-card-poker/), as quoted by
    # Atlantic City Weekly (2022-08-22): 2.78-2.79% of the ante, 1.30% of total wagers, under
    # optimal play. Best four of the player's 5 against the dealer's 6 (one up), no qualifier,
    # ties to the player, raise 1 to 3 times the ante, ante bonus 25-20-2 for four of a kind,
    # straight flush, three of a kind whatever the dealer holds. About 2 minutes.
    ranking = ref.Ranking(4, ref.VOCABULARY[4], RANK_ONLY)
    game = ref.Game(ranking, tuple(range(52)), 5, 6, 1, None)
    bonus = [0, 0, 0, 0, 0, 2, 20, 25]
    values = [[[-1] * 8] * 4]
    for m in (1, 2, 3):
        win = [1 + m + b for b in bonus]
        values.append([[0] * 8, win, win, [b - 1 - m for b in bonus]])
    run = run_engine(game, values)
    assert (run.completions, run.situations) == (comb(46, 5), comb(52, 5) * 47)
    total = sum(
        n * values[r.decision][o][r.category]
        for r in run.rows
        for o, n in enumerate((r.not_qualifying, r.won, r.tied, r.lost))
    )
    wagered = sum(r.situations * (1 + r.decision) for r in run.rows) * run.completions
    edge = -Fraction(total, run.situations * run.completions)
    assert edge == Fraction(8_840_827_253, 317_119_576_410)
    assert round(float(edge) * 100, 2) == 2.79
    assert round(float(-Fraction(total, wagered)) * 100, 2) == 1.30
    assert {r.decision for r in run.rows} == {0, 1, 3}  # linear in the raise: never 2


def caribbean_values(analysis: caribbean_stud.CaribbeanAnalysis) -> tuple[Values, int]:
    """Today's ``CaribbeanPayouts`` as the contract's values: fold everywhere for d = 0;
    not qualifying, win by category, tie, loss for d = 1; and their common denominator."""
    p = analysis.payouts
    den = common_denominator([p.fold, p.not_qualifying, p.tie, p.loss, *p.win])
    k = len(p.win)
    fold = [[int(p.fold * den)] * k] * 4
    raised = [
        [int(p.not_qualifying * den)] * k,
        [int(w * den) for w in p.win],
        [int(p.tie * den)] * k,
        [int(p.loss * den)] * k,
    ]
    return [fold, raised], den


def test_caribbean_without_upcard_lies_between_the_published_edges() -> None:
    # Caribbean Stud with no dealer card up, standard pays, ties push: the whole deck in
    # seconds. Alan Krigman, "If Dealers Don't Qualify, Caribbean Stud Hands are Dud Hands"
    # (Casino City Times, 1 June 2000): raising A-K-J-8-3 or better regardless of the upcard
    # gives 5.32% of the ante; the optimum without an upcard can be no worse than that fixed
    # strategy, and no better than the optimum seeing the upcard (5.224%, today's engine).
    today = caribbean("caribbean-stud.standard")
    game = ref.Game(
        ref.Ranking(5, ref.VOCABULARY[5], RANK_ONLY),
        tuple(range(52)),
        5,
        5,
        0,
        ("high-card", (12, 11)),
    )
    values, den = caribbean_values(today)
    run = run_engine(game, values)
    assert (run.completions, run.situations) == (comb(47, 5), comb(52, 5))
    total = sum(
        n * values[r.decision][o][r.category]
        for r in run.rows
        for o, n in enumerate((r.not_qualifying, r.won, r.tied, r.lost))
    )
    edge = -Fraction(total, run.situations * run.completions * den)
    assert edge == Fraction(1_605_628_741, 30_201_864_420)
    assert today.house_edge < edge < Fraction(5_325, 100_000)
    assert round(float(edge) * 100, 2) == 5.32


@pytest.mark.parametrize(
    "rules",
    [
        "caribbean-stud.macau",
        pytest.param(
            "caribbean-stud.standard",
            marks=[
                pytest.mark.slow,
                pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1"),
            ],
        ),
    ],
)
def test_caribbean_rows_and_decisions_are_todays_bit_for_bit(rules: str) -> None:
    # 8 to 25 s a file (the whole deck, 2,598,960 x 47 situations, 135 MB of decisions): the
    # statute in the normal run, the standard rules in the slow one.
    today = caribbean(rules)
    tb = ordering("caribbean-stud", rules).tie_breaks
    game = ref.Game(
        ref.Ranking(5, ref.VOCABULARY[5], reference_tie_breaks(tb)),
        tuple(range(52)),
        5,
        5,
        1,
        ("high-card", (12, 11)),
    )
    run = run_engine(game, caribbean_values(today)[0])
    assert (run.completions, run.situations) == (comb(46, 4), 2_598_960 * 47)
    rows = engine_rows(run)
    for c, line in enumerate(today.categories):
        raised = rows.get((c, 1), (c, 1, 0, 0, 0, 0, 0, 0, 0, 0))
        folded = rows.get((c, 0), (c, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        assert raised[2:8] == (
            line.raised,
            0,
            line.not_qualifying,
            line.won,
            line.tied,
            line.lost,
        ), line.category
        # equal_ranks: the equal-rank showdowns under either ordering (the pushes under rank-only).
        assert raised[8:] == (line.equal_ranks, line.won_on_suit), line.category
        assert folded[2:4] == (line.situations - line.raised, line.indifferent), line.category
    # Today's table: one LE u64 per hand, bit u set where the hand raises facing upcard u.
    bits = np.frombuffer(today.decisions, dtype="<u8")
    assert run.decisions is not None
    lanes = np.frombuffer(run.decisions, dtype=np.uint8).reshape(-1, 52)
    assert lanes.shape[0] == len(bits) == 2_598_960
    raised_bits = np.zeros(len(bits), dtype=np.uint64)
    for u in range(52):
        raised_bits |= (lanes[:, u] == 1).astype(np.uint64) << np.uint64(u)
    assert np.array_equal(raised_bits, bits)
    hands = np.frombuffer(_core.all_hands(5), dtype=np.uint8).reshape(-1, 5)
    held = np.zeros_like(lanes, dtype=bool)
    np.put_along_axis(held, hands.astype(np.int64), True, axis=1)
    assert np.array_equal(lanes == 255, held)
