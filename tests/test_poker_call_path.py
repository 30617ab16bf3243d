"""The per-call path of ``evaluate`` and ``compare`` (hand text parsed once by the core, the
Evaluation filled in directly) gives what the general path gives: the same frozen
Evaluation, the same outcome, the same error for every malformed hand."""

from __future__ import annotations

import dataclasses
import random

import pytest

import tablecert
from tablecert import poker
from tablecert.errors import CardError

CODES = [r + s for r in "23456789TJQKA" for s in "shdc"]


def test_evaluate_is_the_dataclass_built_by_init() -> None:
    rng = random.Random(3)
    for game, size in poker.GAMES.items():
        for _ in range(200):
            text = " ".join(rng.sample(CODES, size))
            got = tablecert.evaluate(game, text)
            cards = poker.parse_hand(text, size)
            key = tablecert.evaluate(game, list(cards)).key  # the id path
            index = got.category_index
            want = poker.Evaluation(game, cards, poker.ordering(game).categories[index], index, key)
            assert got == want
            assert hash(got) == hash(want)
            assert repr(got) == repr(want)
            assert dataclasses.asdict(got) == dataclasses.asdict(want)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.key = 0  # type: ignore[misc]


def test_compare_by_text_is_compare_by_ids() -> None:
    rng = random.Random(4)
    for _ in range(300):
        cards = rng.sample(CODES, 10)
        a, b = " ".join(cards[:5]), " ".join(cards[5:])
        ids_a, ids_b = poker.parse_hand(a), poker.parse_hand(b)
        by_ids = tablecert.compare("caribbean-stud", ids_a, ids_b)
        assert tablecert.compare("caribbean-stud", a, b) == by_ids
        assert by_ids == poker.decide("caribbean-stud", a, b).outcome


@pytest.mark.parametrize(
    "hand",
    ["As-Kd-Qh-Jc-9s", "As Kd Qh Jc", "As Kd Qh Jc 9s 8s", "As As Qh Jc 9s", "As Kd Qh Jc 1s"],
)
def test_malformed_text_raises_what_parse_hand_raises(hand: str) -> None:
    with pytest.raises(CardError) as want:
        poker.parse_hand(hand, 5)
    with pytest.raises(CardError) as got:
        tablecert.evaluate("caribbean-stud", hand)
    assert str(got.value) == str(want.value)
    with pytest.raises(CardError) as got_compare:
        tablecert.compare("caribbean-stud", hand, "2c 3c 4c 5c 7d")
    assert str(got_compare.value) == str(want.value)
