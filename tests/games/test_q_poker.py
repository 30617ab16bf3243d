"""Q Poker par sheet: the statute's bets, and standard Three Card Poker's published figures."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from tablecert.errors import RuleFileError
from tablecert.games import q_poker
from tablecert.rules import RULES_DIR
from tests.reference import game_reference, poker_reference

STANDARD = q_poker.analyze("q-poker.standard")
STATUTE = q_poker.analyze("q-poker.macau")


def test_three_card_poker_ante_play_reproduces_published_figures() -> None:
    # Wizard of Odds, Three Card Poker (wizardofodds.com/games/three-card-poker/), pay table 1
    # (ante bonus 1-4-5), and John Grochowski, "Three Card Poker Dissected", Casino City Times,
    # 19 Dec 2021: house edge 3.37% of the ante, element of risk 2.01%, play Q-6-4 or better.
    play = STANDARD.play
    assert round(float(play.house_edge), 4) == 0.0337
    assert round(float(play.element_of_risk), 4) == 0.0201
    assert play.strategy.description == "follow with Q-6-4 (high card) or better, fold the rest"
    # Grochowski, "Three-card poker and roulette" (26 Jan 2014), quoting Wizard of Odds: betting
    # Q-6-4 loses $0.993378 per $1 ante, Q-6-3 $1.00255 (the best suit combinations).
    assert round(float(STANDARD.hand("Qs 6h 4d").follow), 6) == -0.993378
    assert round(float(STANDARD.hand("Qs 6h 3d").follow), 5) == -1.00255
    # The exact values behind the published 3.37% and 2.01% (over 22,100 x 18,424 deals).
    assert play.house_edge == -sum((r.contribution for r in play.rows), Fraction(0))
    assert play.house_edge == Fraction(686_689, 20_358_520)
    assert play.element_of_risk == Fraction(686_689, 34_084_400)


def test_pair_plus_1_4_6_30_40_reproduces_published_house_edge() -> None:
    # Grochowski, "The Three Card Poker problem", Casino City Times, 28 Dec 2017: Pair Plus
    # 40-30-6-4-1 has a house edge of 2.32%. Exactly: (48*40 + 52*30 + 720*6 + 1096*4 + 3744
    # - 16440) / 22100 = -512 / 22100.
    assert STANDARD.pair_plus.house_edge == Fraction(512, 22_100)
    assert STATUTE.pair_plus.house_edge == Fraction(512, 22_100)  # 多寶 pays the same table
    assert round(float(STANDARD.pair_plus.house_edge), 4) == 0.0232
    counts = {r.event: r.count for r in STATUTE.pair_plus.rows}
    assert counts == {
        "straight flush": 48,
        "three of a kind": 52,
        "straight": 720,
        "flush": 1096,
        "pair": 3744,
        "high card": 16_440,
    }


def test_statute_play_bet() -> None:
    play = STATUTE.play
    total = 22_100 * 18_424
    assert sum(r.count for r in play.rows) == total
    assert sum(r.probability for r in play.rows) == 1
    # The statute's bet is a single stake: house edge and element of risk coincide.
    assert play.house_edge == play.element_of_risk
    assert play.house_edge == Fraction(11_234_169, 407_170_400)  # 2.7591%
    # No push is possible under the statute ordering.
    assert next(r for r in play.rows if r.event.startswith("push")).count == 0
    # The optimal strategy: Q-6-4 or better, plus Q-6-3 offsuit headed by the Q of spades,
    # where the spade wins the suit tie-breaks that a standard table would push.
    strategy = play.strategy
    assert strategy.weakest_always == "Q-6-4 (high card)"
    assert set(strategy.also_follow) == {f"Qs 6{a} 3{b}" for a in "dch" for b in "dch" if a != b}
    assert strategy.fold_above == ()
    # Dealer not qualifying pays half; following a weak hand is worth less than folding.
    weak = STATUTE.hand("7s 5h 2d")
    assert (weak.decision, weak.fold) == ("fold", Fraction(-1, 2))
    assert STATUTE.hand("As Ks Qs").follow > 2


def test_suit_tie_breaks() -> None:
    play = STATUTE.play
    assert 0 < play.suit_decided_won < play.suit_decided < play.showdowns
    # Standard rules push exactly the showdowns the statute decides by suit.
    assert STANDARD.play.suit_decided == 0
    # Pushing the suit-decided showdowns (and re-optimising) would cost players a little.
    assert play.house_edge_if_suit_ties_pushed == Fraction(112_389, 4_071_704)  # 2.7602%


@pytest.mark.parametrize("seed", [1, 2])
def test_fast_path_agrees_with_plain_enumeration(seed: int) -> None:
    """A random sample of player hands: reference counts over all 18,424 dealer hands give
    exactly the value the core's sweep gives, under both orderings."""
    rng = random.Random(seed)
    deck = poker_reference.DECK
    for _ in range(3):
        hand = rng.sample(deck, 3)
        for analysis, suits, values in (
            (STATUTE, True, (Fraction(1, 2), Fraction(0), Fraction(-1))),
            (STANDARD, False, (Fraction(1), Fraction(0), Fraction(-2))),
        ):
            nq, won, tied, lost = game_reference.q_poker_counts(hand, suits)
            got = analysis.hand(" ".join(hand))
            win = _win_value(analysis, got.category) + _bonus(analysis, got.category)
            expected = (
                nq * (values[0] + _bonus(analysis, got.category))
                + won * win
                + tied * (values[1] + _bonus(analysis, got.category))
                + lost * (values[2] + _bonus(analysis, got.category))
            ) / Fraction(18_424)
            assert got.follow == expected, hand


def _win_value(analysis: q_poker.QPokerAnalysis, category: str) -> Fraction:
    if analysis is STANDARD:
        return Fraction(2)
    pays = {"straight flush": Fraction(3), "three of a kind": Fraction(2)}
    return pays.get(category, Fraction(3, 2) if category == "straight" else Fraction(1))


def _bonus(analysis: q_poker.QPokerAnalysis, category: str) -> Fraction:
    if analysis is STATUTE:
        return Fraction(0)
    return Fraction({"straight flush": 5, "three of a kind": 4, "straight": 1}.get(category, 0))


def test_bad_payout_names_key_and_line(tmp_path: Path) -> None:
    text = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('straight = { value = "3/2"', 'straight = { value = "3//2"'))
    line = next(i for i, s in enumerate(bad.read_text().splitlines(), 1) if '"3//2"' in s)
    with pytest.raises(RuleFileError, match=rf"bad.toml:{line}: play.win.straight: expected"):
        q_poker.analyze(bad)


def test_json_is_exact_and_complete() -> None:
    data = STATUTE.as_json()
    assert data["ordering"] == "statute"
    assert data["play"]["house_edge"]["exact"] == (
        f"{STATUTE.play.house_edge.numerator}/{STATUTE.play.house_edge.denominator}"
    )
    assert data["pair_plus"]["house_edge"]["exact"] == "128/5525"
