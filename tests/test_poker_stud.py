"""Hands of a stud game named by its rule file: ``tablecert.evaluate``, ``compare`` and
``poker.decide`` rank them by the file's description (``four-card-poker.standard``: best four
of five or six cards, four of a kind above a straight flush, three of a kind above a flush
above a straight, ties to the player), checked against the rules written out here and against
the independent reference ranking (``tests/support/stud_reference.py``)."""

from __future__ import annotations

import random
from math import comb
from pathlib import Path

import pytest

import tablecert
from tablecert import poker
from tablecert.bundled import bundled_rule_file
from tablecert.errors import CardError, GameError, RuleFileError
from tablecert.hand_tables import category_table
from tests.support import stud_reference as ref

FOUR_CARD = "four-card-poker.standard"
FOUR_CARD_ORDER = ref.VOCABULARY[4]  # the file's order is the usual 4-card one


def test_three_of_a_kind_beats_a_flush_beats_a_straight() -> None:
    trips = tablecert.evaluate(FOUR_CARD, "2s 2h 2d 7c 9c")
    flush = tablecert.evaluate(FOUR_CARD, "Ks Qs Js 9s 3d")
    straight = tablecert.evaluate(FOUR_CARD, "Ad Kc Qh Js 3d")
    assert (trips.category, flush.category, straight.category) == (
        "three-of-a-kind",
        "flush",
        "straight",
    )
    assert trips.key > flush.key > straight.key
    assert tablecert.compare(FOUR_CARD, "2s 2h 2d 7c 9c", "Ks Qs Js 9s 3d") > 0
    assert tablecert.compare(FOUR_CARD, "Ad Kc Qh Js 3d", "Kd Qd Jd 9d") < 0


def test_four_of_a_kind_beats_a_straight_flush() -> None:
    decision = poker.decide(FOUR_CARD, "9s 9h 9d 9c 2s", "Ah Kh Qh Jh Th")
    assert decision.a.category == "four-of-a-kind"
    assert decision.b.category == "straight-flush"
    assert decision.winner == "a"
    assert decision.step == "category (four-of-a-kind ranks higher)"
    assert decision.article == "Rules: hand ranks"


def test_a_hand_counts_its_best_four_of_five() -> None:
    # A-A-K-K with a 2: two pair; the fifth card never counts, so 2 against 3 ties.
    order = poker.game_ordering(FOUR_CARD)
    hand = tablecert.evaluate(FOUR_CARD, "As Ad Kh Kc 2c")
    assert hand.category == "two-pair"
    assert poker.format_hand(poker.best_cards(order, hand.cards)) == "As Ad Kh Kc"
    assert hand.key == tablecert.evaluate(FOUR_CARD, "As Ad Kh Kc").key
    # Five spades: the best four are the top four; a sixth card (the dealer's) is one more.
    flush = tablecert.evaluate(FOUR_CARD, "As 9s 7s 5s 3s 2d")
    assert flush.category == "flush"
    assert poker.format_hand(poker.best_cards(order, flush.cards)) == "As 9s 7s 5s"
    assert tablecert.compare(FOUR_CARD, "As Ad Kh Kc 2c", "Ah Ac Ks Kd 3c") == 0


def test_equal_hands_tie_and_the_tie_goes_to_the_player() -> None:
    decision = poker.decide(FOUR_CARD, "Ks Qs Js 9s 3d", "Kd Qd Jd 9d 3c 4h")
    assert decision.outcome == 0
    assert decision.winner == "tie"
    assert (decision.ties, decision.ties_article) == ("player", "Rules: settlement")
    assert decision.explanation == (
        "Rules: hand ranks: equal ranks; the tie goes to the player under these rules "
        "(Rules: settlement)"
    )


def test_within_a_category_the_file_names_the_deciding_step() -> None:
    decision = poker.decide(FOUR_CARD, "Qs Qh 9d 5c 2s", "Qd Qc 8s 7h 3d")
    assert decision.winner == "a"
    assert decision.step == "highest kicker (9 over 8)"
    decision = poker.decide(FOUR_CARD, "As 2d 3h 4c 9d", "5s 2s 3c 4d 7h")
    assert (decision.a.category, decision.b.category) == ("straight", "straight")
    assert decision.winner == "b"  # A-2-3-4 is the lowest straight
    assert decision.step == "ranks (5 over 4)"


def test_a_caribbean_variant_keeps_its_five_card_words() -> None:
    hand = tablecert.evaluate("caribbean-stud.no-upcard", "As Ad Kh Kc 2c")
    assert (hand.game, hand.category) == ("caribbean-stud.no-upcard", "two-pair")
    assert poker.decide("caribbean-stud.no-upcard", "As Ks Qs Js Ts", "9h 9d 9c 9s 2d").step == (
        "category (royal-flush ranks higher)"
    )
    # The same game by its family id and its file.
    by_id = tablecert.compare("stud", "As Ad Kh Kc 2c", "Qs Qd Jh Jc 3c", rules=FOUR_CARD)
    assert by_id == tablecert.compare(FOUR_CARD, "As Ad Kh Kc 2c", "Qs Qd Jh Jc 3c") == 1


def test_random_hands_rank_as_the_reference_ranks_them() -> None:
    """The player's five against the dealer's six, as the rules rank them (no suits)."""
    reference = ref.Ranking(4, FOUR_CARD_ORDER, ref.TieBreaks(suit_decides=False))
    rng = random.Random(30)
    outcomes = set()
    for _ in range(400):
        deal = rng.sample(range(52), 11)
        player, dealer = deal[:5], deal[5:]
        got = poker.decide(FOUR_CARD, player, dealer)
        want_a, want_b = reference.key(player), reference.key(dealer)
        assert got.a.category == FOUR_CARD_ORDER[len(FOUR_CARD_ORDER) - 1 - (want_a >> 22)]
        assert got.outcome == (want_a > want_b) - (want_a < want_b)
        outcomes.add(got.outcome)
    assert outcomes >= {-1, 1}


def test_the_category_table_counts_the_players_five_cards_by_their_best_four() -> None:
    table = category_table(FOUR_CARD)
    assert table.game == FOUR_CARD
    assert table.total == comb(52, 5)
    counts = {row.category: row.count for row in table.rows}
    assert [row.category for row in table.rows] == list(FOUR_CARD_ORDER)
    assert counts["four-of-a-kind"] == 13 * 48
    # Three of a kind in five cards, with or without a pair: 5-card trips + full houses.
    assert counts["three-of-a-kind"] == 13 * 4 * comb(12, 2) * 16 + 13 * 4 * 12 * 6
    assert sum(counts.values()) == comb(52, 5)
    assert {row.article for row in table.rows} == {"Rules: hand ranks"}


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("As Ks Qs", "a hand here has 4, 5 or 6 cards, got 3: As Ks Qs"),
        ("As Ks Qs Js Ts 9s 8s", "a hand here has 4, 5 or 6 cards, got 7"),
        ("As As Qs Js", "duplicate card As"),
    ],
)
def test_a_hand_of_no_dealt_size_is_refused(hand: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        tablecert.evaluate(FOUR_CARD, hand)


def test_an_unknown_game_lists_the_bundled_poker_files() -> None:
    with pytest.raises(GameError) as info:
        tablecert.evaluate("let-it-ride", "As Ks Qs Js Ts")
    message = str(info.value)
    assert message.startswith("unknown game 'let-it-ride'; known: q-poker, caribbean-stud, ")
    for name in (FOUR_CARD, "caribbean-stud.no-upcard", "q-poker.six-card-bonus"):
        assert name in message
    assert "mahjong" not in message


def test_a_mahjong_file_is_no_poker_game() -> None:
    with pytest.raises(GameError, match="'mahjong-simple' is not a poker game"):
        tablecert.evaluate("mahjong-simple.macau", "As Ks Qs")


def test_two_rule_files_are_refused() -> None:
    with pytest.raises(GameError, match=r"two rule files given: 'four-card-poker\.standard'"):
        tablecert.evaluate(FOUR_CARD, "As Ks Qs Js", rules="q-poker.macau")


def test_a_dedicated_engines_file_names_its_game() -> None:
    by_file = tablecert.evaluate("q-poker.standard", "As Ks Qs")
    assert by_file == tablecert.evaluate("q-poker", "As Ks Qs", rules="q-poker.standard")
    assert by_file.game == "q-poker"


SIX_CARD = "q-poker.six-card-bonus"
BONUS = "six-card-bonus"


def test_a_six_card_hand_is_ranked_as_the_bonus_ranks_it() -> None:
    """The bonus counts the best five of the player's three and the dealer's three cards."""
    cases = {
        "As Ks Qs Js Ts 2d": "royal-flush",
        "As Ah Ad Ks Kh Kd": "full-house",  # the best five of two threes
        "As 2d 3h 4c 5s 9d": "straight",  # A-2-3-4-5, the ace low
        "As Ks Qs Js 2d 3h": "high-card",
        "9s 9h 7d 7c 5s 5h": "two-pair",
    }
    for hand, category in cases.items():
        assert tablecert.evaluate(SIX_CARD, hand, bet=BONUS).category == category, hand
    reference = ref.Ranking(5, ref.VOCABULARY[5], ref.TieBreaks(suit_decides=False))
    rng = random.Random(6)
    for _ in range(300):
        cards = rng.sample(range(52), 6)
        got = tablecert.evaluate(SIX_CARD, cards, bet=BONUS)
        want = reference.key(cards)
        assert got.category == ref.VOCABULARY[5][9 - (want >> 22)], cards
        assert got.key >> 2 == want >> 2, cards


def test_a_bets_hands_are_its_own_size_and_categories() -> None:
    order = poker.bet_ordering(FOUR_CARD, "aces-up")
    assert order.stud is not None
    assert (order.hand_size, order.stud.sizes, order.stud.table_cards) == (4, (4, 5), 5)
    assert order.articles[0] == "Aces Up: pay table (Live! Casino Philadelphia)"
    with pytest.raises(CardError, match="a hand here has 5 or 6 cards, got 4"):
        tablecert.evaluate(SIX_CARD, "As Ks Qs Js", bet=BONUS)


def test_an_unknown_bet_names_the_files_bets() -> None:
    with pytest.raises(tablecert.RulesError, match="no side bet 'pair-plus'; its side bets: "):
        tablecert.evaluate(FOUR_CARD, "As Ks Qs Js", bet="pair-plus")
    with pytest.raises(tablecert.RulesError, match="its side bets: pair_plus, six-card-bonus"):
        tablecert.evaluate(SIX_CARD, "As Ks Qs Js Ts", bet="bonus")


def test_a_lab_file_where_suits_decide_names_the_suit_step(tmp_path: Path) -> None:
    """A copy of the file with the statutes' ordering: equal ranks are decided by one suit
    step, named by the file's category steps, in its suit order."""
    text = bundled_rule_file(FOUR_CARD).read_text(encoding="utf-8")
    statute = text.replace('ordering = { value = "rank-only"', 'ordering = { value = "statute"')
    assert statute != text
    path = tmp_path / "four-card-suits.toml"
    path.write_text(statute, encoding="utf-8")
    pair = poker.decide(str(path), "Qs Qh 9d 5c 2s", "Qd Qc 9s 5h 3d")
    assert (pair.winner, pair.step) == ("a", "suit of the pair (spades over clubs)")
    flush = poker.decide(str(path), "Kd Qd Jd 9d 3c 4h", "Ks Qs Js 9s 3d")
    assert (flush.winner, flush.step) == ("b", "suit of the flush (spades over diamonds)")
    assert flush.a.game == "four-card-suits"


def test_a_described_games_file_given_for_a_game_id_says_how_to_name_it() -> None:
    with pytest.raises(RuleFileError, match=r"rule file is for 'stud', not 'caribbean-stud' \("):
        tablecert.evaluate("caribbean-stud", "As Ks Qs Js Ts", rules="caribbean-stud.no-upcard")
    with pytest.raises(RuleFileError, match=r"rule file is for 'caribbean-stud', not 'q-poker'$"):
        tablecert.evaluate("q-poker", "As Ks Qs", rules="caribbean-stud.macau")
