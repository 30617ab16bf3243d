"""The per-call path of ``evaluate`` and ``compare`` (hand text parsed once by the core, the
Evaluation made there) gives what the general path gives: the same frozen Evaluation, the
same outcome, the same error for every malformed hand."""

from __future__ import annotations

import copy
import gc
import pickle
import random

import pytest

import tablecert
from tablecert import _core, poker
from tablecert.errors import CardError

CODES = [r + s for r in "23456789TJQKA" for s in "shdc"]


def test_evaluate_is_the_evaluation_built_by_its_constructor() -> None:
    rng = random.Random(3)
    for game, size in poker.DEDICATED_ENGINES.items():
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
            fields = (got.game, got.cards, got.category, got.category_index, got.key)
            assert fields == (game, cards, want.category, index, key)
    with pytest.raises(AttributeError):
        got.key = 0  # type: ignore[misc]


def test_an_evaluation_reads_prints_pickles_and_is_not_collected() -> None:
    got = tablecert.evaluate("q-poker", "Qh 4c 9s")
    # The dataclass it replaced printed the same.
    cards = poker.parse_hand("Qh 4c 9s")
    assert got.cards == cards
    assert repr(got) == (
        f"Evaluation(game='q-poker', cards={cards!r}, category='high card', "
        f"category_index=0, key={got.key})"
    )
    assert (got.codes, got.name) == ("Qh 9s 4c", "high card (Qh 9s 4c)")
    for twin in (pickle.loads(pickle.dumps(got)), copy.copy(got), copy.deepcopy(got)):
        assert twin == got
        assert hash(twin) == hash(got)
    other = poker.Evaluation("q-poker", cards, "high card", 0, got.key + 1)
    assert other != got
    assert got != (got.game, got.cards, got.category, got.category_index, got.key)
    assert len({got, other, copy.copy(got)}) == 2
    # Holds no Python container: a loop keeping 10^5 of them gives the collector nothing.
    assert not gc.is_tracked(got)
    with pytest.raises(ValueError, match="at most 7 cards, got 8"):
        poker.Evaluation("x", range(8), "high card", 0, 0)
    with pytest.raises(ValueError, match="card id 52: expected 0 to 51"):
        poker.Evaluation("x", (1, 52), "high card", 0, 0)


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


@pytest.mark.parametrize(
    "game",
    ["four-card-poker.standard", "caribbean-stud.pair-qualifier", "caribbean-stud.no-upcard"],
)
def test_a_described_games_text_is_its_ids(game: str) -> None:
    # The one-call path from text (any dealt size) gives the object the id path builds.
    order = poker.game_ordering(game)
    assert order.stud is not None
    rng = random.Random(5)
    for size in order.stud.sizes:
        for _ in range(100):
            text = " ".join(rng.sample(CODES, size))
            got = tablecert.evaluate(game, text)
            ids = list(poker.parse_hand(text))
            want = tablecert.evaluate(game, ids)
            assert got == want
            assert repr(got) == repr(want)
            assert got.key == _core.stud_key(order.stud.ranking, ids)
    # A size the deal has no hand of, a repeated card, a hyphen: the general path's errors.
    for text in ("As Kd", "As As Qh Jc 9s", "As-Kd-Qh-Jc-9s", "As Kd Qh Jc 9s 8s 7s 6s"):
        with pytest.raises(CardError) as want_error:
            tablecert.evaluate(game, poker.parse_hand(text) if "-" not in text else text)
        with pytest.raises(CardError) as got_error:
            tablecert.evaluate(game, text)
        assert str(got_error.value) == str(want_error.value)


RANKS = "23456789TJQKA"
SUITS = "dchs"  # card id = 4 * rank + suit, suits in this order
RANK_SPELLINGS: dict[str, tuple[str, ...]] = {"T": ("T", "t", "10")} | {
    r: (r, r.lower()) for r in "JQKA"
}
SUIT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "d": ("d", "D", "♦"),
    "c": ("c", "C", "♣"),
    "h": ("h", "H", "♥"),
    "s": ("s", "S", "♠"),
}


def test_every_spelling_parses_to_the_ids_it_names() -> None:
    # The core's one-call path (parse, key, category) reads every spelling the general parser
    # reads: ranks in either case and 10 for T, suit letters or symbols, cards separated by
    # spaces, commas or semicolons or written together; ids computed here from the spelling.
    rng = random.Random(5)
    for game, size in poker.DEDICATED_ENGINES.items():
        for _ in range(400):
            ids = rng.sample(range(52), size)
            text = ""
            for i, card in enumerate(ids):
                rank, suit = RANKS[card // 4], SUITS[card % 4]
                text += rng.choice(RANK_SPELLINGS.get(rank, (rank,)))
                text += rng.choice(SUIT_SPELLINGS[suit])
                if i < size - 1:
                    text += rng.choice((" ", ",", ";", "", ", ", "  "))
            got = tablecert.evaluate(game, text)
            assert got.cards == tuple(ids), text
            assert got == tablecert.evaluate(game, ids), text


def test_compare_of_hands_sharing_a_card_raises_the_general_error() -> None:
    with pytest.raises(CardError, match="share 9s"):
        tablecert.compare("q-poker", "9s 9h 5d", "9s 9d 5c")
