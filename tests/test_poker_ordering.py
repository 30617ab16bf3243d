"""The core's statute orderings against the slow reference, and one test per tie-break rule."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tablecert
from tablecert.errors import CardError, GameError
from tablecert.rules import RULES_DIR
from tests.reference import poker_reference as ref

STANDARD = {"q-poker": "q-poker.standard", "caribbean-stud": "caribbean-stud.standard"}


def two_disjoint_hands(size: int) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    return st.permutations(ref.DECK).map(lambda deck: (deck[:size], deck[size : 2 * size]))


def ref_strength(game: str, hand: list[str], suits: bool) -> tuple[int, ...]:
    if game == "q-poker":
        return ref.q_poker_strength(hand, suits)
    return ref.caribbean_strength(hand, suits)


@pytest.mark.parametrize(("game", "size"), [("q-poker", 3), ("caribbean-stud", 5)])
@pytest.mark.parametrize("statute", [True, False], ids=["statute", "rank-only"])
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_core_agrees_with_reference(
    game: str, size: int, statute: bool, data: st.DataObject
) -> None:
    a, b = data.draw(two_disjoint_hands(size))
    rules = None if statute else STANDARD[game]
    expected = ref.compare(ref_strength(game, a, statute), ref_strength(game, b, statute))
    assert tablecert.compare(game, " ".join(a), " ".join(b), rules=rules) == expected
    if statute:
        assert expected != 0, "the statute never pushes between disjoint hands"


@pytest.mark.parametrize(("game", "size"), [("q-poker", 3), ("caribbean-stud", 5)])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_category_agrees_with_reference(game: str, size: int, data: st.DataObject) -> None:
    hand, _ = data.draw(two_disjoint_hands(size))
    evaluation = tablecert.evaluate(game, hand)
    assert evaluation.category_index == ref_strength(game, hand, True)[0]


def winner(game: str, a: str, b: str, rules: str | None = None) -> tuple[int, str]:
    decision = tablecert.poker.decide(game, a, b, rules)
    return decision.outcome, decision.explanation


# --- Q Poker, Art. 4 and Art. 8: one test per tie-break rule ---------------------------------


def test_q_poker_art4_3_a23_is_the_lowest_straight() -> None:
    assert winner("q-poker", "2s 3h 4d", "As 2h 3d")[0] > 0
    assert winner("q-poker", "As Kh Qd", "Ks Qh Jd")[0] > 0


def test_q_poker_art8_1_straight_flush_ranks_then_suit() -> None:
    assert winner("q-poker", "9h 8h 7h", "8s 7s 6s")[0] > 0
    outcome, why = winner("q-poker", "9s 8s 7s", "9h 8h 7h")
    assert outcome > 0
    assert why.startswith("第八條(一)")


def test_q_poker_art8_2_three_of_a_kind_by_rank() -> None:
    outcome, why = winner("q-poker", "3s 3h 3d", "2s 2h 2d")
    assert outcome > 0
    assert "第八條(二)" in why


def test_q_poker_art8_3_straight_ranks_then_suit_of_highest_card() -> None:
    assert winner("q-poker", "7d 6c 5c", "6s 5s 4h")[0] > 0
    outcome, why = winner("q-poker", "7s 6d 5d", "7h 6s 5s")
    assert outcome > 0  # the 7s beats the 7h; the lower cards' suits do not count
    assert why == "第八條(三): suit of the highest card (spades over hearts) decides"


def test_q_poker_a23_suit_reading_is_the_three() -> None:
    # A-2-3 against A-2-3: the suit of the 3 decides under the default reading ...
    assert winner("q-poker", "Ad 2d 3s", "As 2s 3h")[0] > 0
    # ... and of the ace under the alternative reading, chosen in a rule file.
    assert tablecert.poker.ordering("q-poker").tie_breaks.ace_low_straight_suit == "top-of-sequence"


def test_q_poker_art8_4_flush_ranks_then_suit() -> None:
    assert winner("q-poker", "Kd 9d 3d", "Ks 8s 7s")[0] > 0
    outcome, why = winner("q-poker", "Ks 9s 3s", "Kh 9h 3h")
    assert outcome > 0
    assert why.startswith("第八條(四): suit of the flush")


def test_q_poker_art8_5_pair_rank_kicker_rank_then_kicker_suit() -> None:
    assert winner("q-poker", "9s 9h 5d", "8s 8h Ad")[0] > 0
    assert winner("q-poker", "9s 9h 6d", "9c 9d 5s")[0] > 0
    outcome, why = winner("q-poker", "9s 9h 5d", "9c 9d 5s")
    assert outcome < 0  # the pair's suits do not count; the kicker's spade does
    assert why == "第八條(五): the kicker's suit (spades over diamonds) decides"


def test_q_poker_art8_6_high_card_ranks_then_suit_of_highest() -> None:
    assert winner("q-poker", "Kd 9d 4c", "Ks 9s 3h")[0] > 0
    outcome, why = winner("q-poker", "Ks 9d 4c", "Kh 9s 4s")
    assert outcome > 0
    assert why.startswith("第八條(六)")


def test_q_poker_art8_category_order() -> None:
    # The weakest hand of each category against the strongest of the one below it.
    order = [
        ("4d 3d 2d", "As Ah Ac"),
        ("2s 2h 2d", "Ac Kd Qd"),
        ("3c 2h Ad", "Ks Qs 9s"),
        ("5c 3c 2c", "As Ah Kh"),
        ("2s 2h 3d", "Ah Kh Jd"),
    ]
    for better, worse in order:
        outcome, why = winner("q-poker", better, worse)
        assert outcome > 0
        assert why.startswith("第八條: category")


def test_q_poker_standard_rules_push() -> None:
    assert winner("q-poker", "9s 9h 5d", "9c 9d 5s", "q-poker.standard")[0] == 0


# --- Caribbean Stud, Art. 4 and Art. 8 -------------------------------------------------------


def test_caribbean_art8_1_royal_flush_by_suit() -> None:
    outcome, why = winner("caribbean-stud", "As Ks Qs Js Ts", "Ah Kh Qh Jh Th")
    assert outcome > 0
    assert why.startswith("第八条(一)")
    assert winner("caribbean-stud", "Ad Kd Qd Jd Td", "Ks Qs Js Ts 9s")[0] > 0


def test_caribbean_art8_2_straight_flush_k_high_top_wheel_lowest() -> None:
    assert winner("caribbean-stud", "Kd Qd Jd Td 9d", "Qs Js Ts 9s 8s")[0] > 0
    assert winner("caribbean-stud", "6d 5d 4d 3d 2d", "5s 4s 3s 2s As")[0] > 0
    assert winner("caribbean-stud", "9s 8s 7s 6s 5s", "9h 8h 7h 6h 5h")[0] > 0


def test_caribbean_art8_3_four_of_a_kind_fifth_card_never_counts() -> None:
    outcome, why = winner("caribbean-stud", "3s 3h 3c 3d 2s", "2h 2c 2d Ah As")
    assert outcome > 0
    with_deuce = tablecert.evaluate("caribbean-stud", "3s 3h 3c 3d 2s")
    with_ace = tablecert.evaluate("caribbean-stud", "3s 3h 3c 3d As")
    assert with_deuce.key == with_ace.key
    outcome, why = winner("caribbean-stud", "3s 3h 3c 3d Ks", "2h 2c 2d 2s Ah")
    assert outcome > 0
    assert why == "第八条(三): rank of the four (3 over 2) decides"


def test_caribbean_art8_4_full_house_by_the_three() -> None:
    assert winner("caribbean-stud", "3s 3h 3c 2d 2s", "2h 2c Kd Ks Kh")[0] < 0


def test_caribbean_art8_5_flush_ranks_then_suit() -> None:
    assert winner("caribbean-stud", "Kd Jd 9d 3d 2d", "Ks Js 8s 7s 5s")[0] > 0
    outcome, why = winner("caribbean-stud", "Ks Js 9s 3s 2s", "Kh Jh 9h 3h 2h")
    assert outcome > 0
    assert why.startswith("第八条(五): suit of the flush")


def test_caribbean_art8_6_straight_ranks_then_suit_of_highest_card() -> None:
    assert winner("caribbean-stud", "6d 5c 4c 3c 2c", "5s 4s 3s 2h As")[0] > 0
    outcome, why = winner("caribbean-stud", "Ts 9d 8d 7d 6d", "Th 9s 8s 7s 6s")
    assert outcome > 0
    assert why.startswith("第八条(六)")
    # 5-4-3-2-A: the 5 is the highest card, its suit decides.
    assert winner("caribbean-stud", "5s 4d 3d 2d Ad", "5h 4s 3s 2s As")[0] > 0


def test_caribbean_art8_7_three_of_a_kind_others_never_count() -> None:
    outcome, why = winner("caribbean-stud", "Ks Kh Kd 3c 2c", "Qs Qh Qd Ac Jc")
    assert outcome > 0
    assert why == "第八条(七): rank of the three (K over Q) decides"
    low = tablecert.evaluate("caribbean-stud", "Ks Kh Kd 3c 2c")
    high = tablecert.evaluate("caribbean-stud", "Ks Kh Kd Ac Qc")
    assert low.key == high.key


def test_caribbean_art8_8_two_pair_high_low_kicker_then_suit_of_higher_pair() -> None:
    assert winner("caribbean-stud", "Ks Kh 3d 3c 2c", "Qs Qh Jd Jc Ac")[0] > 0
    assert winner("caribbean-stud", "Ks Kh 4d 4c 2c", "Kc Kd 3s 3h As")[0] > 0
    assert winner("caribbean-stud", "Ks Kh 4d 4c 3c", "Kc Kd 4s 4h 2s")[0] > 0
    outcome, why = winner("caribbean-stud", "Kc Ks 4d 4c 3c", "Kh Kd 4s 4h 3s")
    assert outcome > 0  # the higher pair's spade; the lower pair's suits do not count
    assert why == "第八条(八): suit of the higher pair (spades over hearts) decides"


def test_caribbean_art8_9_one_pair_rank_kickers_then_suit_of_pair() -> None:
    assert winner("caribbean-stud", "Ts Th 9d 7c 6c", "Tc Td 9s 7s 5s")[0] > 0
    outcome, why = winner("caribbean-stud", "Ts Td 9d 7c 6c", "Tc Th 9s 7s 6s")
    assert outcome > 0  # spade beats heart: the higher suit of each pair
    assert why == "第八条(九): suit of the pair (spades over hearts) decides"


def test_caribbean_art8_10_high_card_ranks_then_suit_of_highest() -> None:
    assert winner("caribbean-stud", "Ad Kd 9c 5c 3c", "As Ks 9s 5s 2h")[0] > 0
    outcome, why = winner("caribbean-stud", "As Kd 9c 5c 3c", "Ah Ks 9s 5s 3h")
    assert outcome > 0
    assert why.startswith("第八条(十)")


def test_caribbean_standard_rules_push() -> None:
    outcome, _ = winner(
        "caribbean-stud", "Ts Td 9d 7c 6c", "Tc Th 9s 7s 6s", "caribbean-stud.standard"
    )
    assert outcome == 0


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("1x As Kd", "1x"),
        ("As As Kd", "duplicate card As"),
        ("As Kd", "3 cards, got 2"),
        ("As Kd Qh Jc", "3 cards, got 4"),
        ("", "3 cards, got 0"),
    ],
)
def test_bad_hands_raise_clear_errors(hand: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        tablecert.evaluate("q-poker", hand)


def test_hands_sharing_a_card_cannot_be_compared() -> None:
    with pytest.raises(CardError, match="share As"):
        tablecert.compare("q-poker", "As Kd Qh", "As 2d 3h")


def test_unknown_game() -> None:
    with pytest.raises(GameError, match="unknown game 'blackjack'; known: q-poker, caribbean-stud"):
        tablecert.evaluate("blackjack", "As Kd Qh")


def test_card_code_sequences_and_symbols() -> None:
    a = tablecert.evaluate("q-poker", ["A♠", "K♥", "10♦"])
    b = tablecert.evaluate("q-poker", "as kh td")
    assert a == b
    assert a.codes == "As Kh Td"


SUIT_ORDERS = [list(p) for p in itertools.permutations(["spades", "hearts", "clubs", "diamonds"])]


@pytest.mark.parametrize(("game", "size"), [("q-poker", 3), ("caribbean-stud", 5)])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_suit_order_of_the_rule_file_agrees_with_the_reference(
    game: str, size: int, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A rule file's suit order, any of the 24: the core's comparison equals the reference's
    (statute order) on hands whose suits are renamed so each takes its place in that order."""
    order = data.draw(st.sampled_from(SUIT_ORDERS))
    a, b = data.draw(two_disjoint_hands(size))
    # Mostly B is A with its suits renamed: equal ranks, so the suit order decides.
    relabel = dict(zip("dchs", data.draw(st.permutations("dchs")), strict=True))
    same_ranks = [card[:-1] + relabel[card[-1]] for card in a]
    if not set(same_ranks) & set(a):
        b = same_ranks
    rules = _suit_order_rules(game, tuple(order), tmp_path_factory)
    # The suit in place k of the file's order plays the statute suit in place k.
    rename = {name[0]: statute[0] for name, statute in zip(order, STATUTE_ORDER, strict=True)}

    def renamed(hand: list[str]) -> list[str]:
        return [card[:-1] + rename[card[-1]] for card in hand]

    expected = ref.compare(
        ref_strength(game, renamed(a), True), ref_strength(game, renamed(b), True)
    )
    assert tablecert.compare(game, " ".join(a), " ".join(b), rules=rules) == expected


STATUTE_ORDER = ["spades", "hearts", "clubs", "diamonds"]
_SUIT_ORDER_FILES: dict[tuple[str, tuple[str, ...]], Path] = {}


def _suit_order_rules(game: str, order: tuple[str, ...], factory: pytest.TempPathFactory) -> Path:
    if (game, order) not in _SUIT_ORDER_FILES:
        text = (RULES_DIR / f"{game}.macau.toml").read_text(encoding="utf-8")
        path = factory.mktemp("suits") / f"{game}.toml"
        path.write_text(
            text.replace(json.dumps(STATUTE_ORDER), json.dumps(list(order)), 1),
            encoding="utf-8",
        )
        _SUIT_ORDER_FILES[game, order] = path
    return _SUIT_ORDER_FILES[game, order]
