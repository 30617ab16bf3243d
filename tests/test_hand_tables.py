"""Exact category counts from exhaustive enumeration, the bulk NumPy API and the key tables."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import tablecert
from tablecert import _core
from tablecert.errors import CardError
from tablecert.hand_arrays import all_strength_keys, strength_keys
from tablecert.hand_tables import category_table
from tests.reference import poker_reference as ref

FIVE_CARD = {
    "royal flush": 4,
    "straight flush": 36,
    "four of a kind": 624,
    "full house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three of a kind": 54_912,
    "two pair": 123_552,
    "one pair": 1_098_240,
    "high card": 1_302_540,
}
THREE_CARD = {
    "straight flush": 48,
    "three of a kind": 52,
    "straight": 720,
    "flush": 1_096,
    "pair": 3_744,
    "high card": 16_440,
}


@pytest.mark.parametrize("rules", ["caribbean-stud.macau", "caribbean-stud.standard"])
def test_five_card_category_counts(rules: str) -> None:
    table = category_table("caribbean-stud", rules)
    assert {r.category: r.count for r in table.rows} == FIVE_CARD
    assert table.total == 2_598_960
    assert table.probability("royal flush") == Fraction(1, 649_740)


@pytest.mark.parametrize("rules", ["q-poker.macau", "q-poker.standard"])
def test_three_card_category_counts(rules: str) -> None:
    table = category_table("q-poker", rules)
    assert {r.category: r.count for r in table.rows} == THREE_CARD
    assert [r.article for r in table.rows][:2] == ["第八條(一)", "第八條(二)"]


def test_every_three_card_key_matches_the_reference_order() -> None:
    keys = all_strength_keys("q-poker")
    hands = [_core.hand_at(i, 3) for i in range(len(keys))]
    codes = [[ref.DECK[_ref_index(c)] for c in hand] for hand in hands]
    by_core = sorted(range(len(keys)), key=lambda i: keys[i])
    # Along the core's order the reference strength never decreases, and is equal exactly
    # where the keys are equal: both define the same order on all 22,100 hands.
    strengths = [ref.q_poker_strength(c) for c in codes]
    for i, j in itertools.pairwise(by_core):
        assert (keys[i] < keys[j]) == (strengths[i] < strengths[j])


def _ref_index(card: int) -> int:
    code = _core.card_code(card)
    return ref.DECK.index(code)


def test_bulk_keys_match_single_evaluation() -> None:
    rng = np.random.default_rng(7)
    hands = np.array([rng.permutation(52)[:5] for _ in range(500)], dtype=np.uint8)
    keys = strength_keys("caribbean-stud", hands)
    for row, key in zip(hands, keys, strict=True):
        assert tablecert.evaluate("caribbean-stud", [int(c) for c in row]).key == key


def test_bulk_keys_name_the_bad_row() -> None:
    hands = np.array([[0, 1, 2], [5, 5, 6]], dtype=np.uint8)
    with pytest.raises(CardError, match="hand 1: duplicate card 3c"):
        strength_keys("q-poker", hands)
    with pytest.raises(CardError, match="card id 52 is out of range"):
        strength_keys("q-poker", np.array([[0, 1, 52]]))
    with pytest.raises(CardError, match=r"shape \(n, 3\)"):
        strength_keys("q-poker", np.zeros((4, 5), dtype=np.uint8))


def test_colex_index_round_trip() -> None:
    for index in (0, 17, 22_099):
        assert _core.colex_index(_core.hand_at(index, 3)) == index
    with pytest.raises(IndexError):
        _core.hand_at(22_100, 3)


def test_all_hands_is_hand_at_of_every_index() -> None:
    # The batch form of hand_at: every 3-card index, and the 5-card table's ends and a sample.
    three = np.frombuffer(_core.all_hands(3), dtype=np.uint8).reshape(-1, 3)
    assert [list(h) for h in three] == [_core.hand_at(i, 3) for i in range(22_100)]
    five = np.frombuffer(_core.all_hands(5), dtype=np.uint8).reshape(-1, 5)
    assert len(five) == 2_598_960
    for i in [0, 1, 2_598_959, *range(7, 2_598_960, 9_973)]:
        assert list(five[i]) == _core.hand_at(i, 5)
    with pytest.raises(CardError):
        _core.all_hands(4)
