"""The reduced-deck figures the rule-mutation test judges a described game by are the
engine's par-sheet figures, and their decks deal what they are chosen for."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest

from tablecert.games import stud
from tablecert.rules import RULES_DIR, load_rules
from tablecert.rules.stud import describe, is_stud
from tests.support.stud_figures import (
    DECKS,
    FULL_DECKS,
    SIDE_BET_DECKS,
    category_counts,
    game_figures,
    outcome_counts,
    side_bet_figures,
)

LONG_RUN = pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
DESCRIBED = sorted(p.stem for p in RULES_DIR.glob("*.toml") if is_stud(load_rules(p)))


@pytest.mark.parametrize("name", ["q-poker.standard", "q-poker.macau"])
def test_on_the_full_deck_the_figures_are_the_par_sheet(name: str) -> None:
    """The expected value and the side bet's return equal the par sheet's (Three Card Poker:
    3.3730% of the ante, pair plus 2.3167%), and a fold loses the fold's value whatever the
    category."""
    d = describe(load_rules(name))
    figures = game_figures(d, list(range(52)))
    sheet = stud.analyze(name)
    assert figures["situations"] == 22100
    assert figures["expected value"] == sheet.expected_value
    if name == "q-poker.standard":
        assert round(float(-figures["expected value"]), 6) == 0.033730
    fold = d.settlement.fold.value
    assert figures["by decision and category"][0] == [fold] * len(d.ranking.names)
    bets = side_bet_figures(d, {3: list(range(52))})
    assert [(i, r) for i, _, r in bets] == [(b.id, b.expected_value) for b in sheet.side_bets]
    assert bets[0][2] == Fraction(-128, 5525)


@pytest.mark.parametrize("name", DESCRIBED)
@pytest.mark.parametrize(
    "full",
    [
        pytest.param(False, id="normal"),
        pytest.param(True, id="long", marks=[pytest.mark.slow, LONG_RUN]),
    ],
)
def test_the_reduced_decks_deal_every_category_and_it_wins(name: str, full: bool) -> None:
    """Every category of the player's hands occurs on the game's reduced deck, and wins a
    showdown unless it is below the qualifier (it then never meets a qualifying dealer);
    every side bet's categories occur on its deck."""
    d = describe(load_rules(name))
    deck = (FULL_DECKS if full else DECKS)[d.ranking.uses]
    figures = game_figures(d, deck)
    game_counts = outcome_counts(d, deck)
    lowest_winner = 0 if d.qualifier is None else d.ranking.position(d.qualifier.category)
    assert sorted(game_counts) == list(range(len(d.ranking.names)))
    assert [c for c, (_, won, _, _) in sorted(game_counts.items()) if won > 0] == list(
        range(lowest_winner, len(d.ranking.names))
    )
    assert {row[1] for row in figures["rows"]} >= {0, 1}
    assert isinstance(figures["expected value"], Fraction)
    for bet in d.side_bets:
        counts = category_counts(d, bet, SIDE_BET_DECKS[bet.uses.value])
        assert all(sum(row) > 0 for row in counts), bet.id
