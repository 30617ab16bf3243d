"""The strategy by hand class (``games.stud_strategy``): the engine's decision bytes, grouped
by the player's category, ranks and the upcard's rank, equal the grouping of the brute-force
reference's own decisions, counted here hand by hand from the reference's ranking."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from pathlib import Path

from tablecert import _core
from tablecert.games import stud, stud_strategy
from tablecert.rules import load_rules
from tablecert.rules.stud import describe
from tests.games.test_stud_caps import (
    FOUR_CARD,
    SMALL_DECK,
    cap_table,
    four_card_values,
    numerators,
    variant,
)
from tests.support import stud_reference as ref


def test_classes_of_the_engines_decisions_equal_the_references(tmp_path: Path) -> None:
    capped = ["three-of-a-kind", "straight", "pair"]
    path = variant(tmp_path, FOUR_CARD, cap_table("9", "3", capped, ["ante", "raise", "bonus"]))
    d = describe(load_rules(path))
    values = numerators(four_card_values(Fraction(3), set(capped), {"ante", "raise", "bonus"}))
    rank = stud.ranking(d)
    game = _core.StudGame(rank, list(SMALL_DECK), 5, 6, 1, None)
    run = _core.stud_analyze(game, d.values()[1], decisions=True, threads=1)
    assert run.decisions is not None
    classes = stud_strategy.count_classes(rank, SMALL_DECK, 5, 1, run.decisions, 4)
    # The reference deals the same game and decides every situation itself.
    reference = ref.Game(
        ref.Ranking(4, ref.VOCABULARY[4], ref.TieBreaks(suit_decides=False)),
        SMALL_DECK,
        5,
        6,
        1,
        None,
    )
    expected_run = ref.analyze(reference, values)
    deck = sorted(SMALL_DECK)
    expected: dict[stud_strategy.HandClass, list[int]] = defaultdict(lambda: [0] * 4)
    lanes = len(deck)
    for h, positions in enumerate(ref.colex_hands(len(deck), 5)):
        cards = [deck[p] for p in positions]
        category = reference.ranking.key(cards) >> 22
        ranks = tuple(sorted((c // 4 for c in cards), reverse=True))
        for lane in range(lanes):
            decision = expected_run.decisions[h * lanes + lane]
            if deck[lane] in cards:
                assert decision == 255
                continue
            expected[(category, ranks, deck[lane] // 4)][decision] += 1
    assert classes == {k: tuple(v) for k, v in expected.items()}
    # More than one decision is taken, and some class depends on the suits.
    assert len({d for counts in classes.values() for d, n in enumerate(counts) if n}) > 1
    assert any(sum(1 for n in counts if n) > 1 for counts in classes.values())


def test_shards_add_up_to_the_whole_runs_classes() -> None:
    d = describe(load_rules("q-poker.standard"))
    rank = stud.ranking(d)
    _, values = d.values()
    game = stud.engine_game(d)
    whole = _core.stud_analyze(game, values, decisions=True)
    assert whole.decisions is not None
    expected = stud_strategy.count_classes(rank, list(range(52)), 3, 0, whole.decisions, 2)
    parts = []
    for k in range(3):
        run = _core.stud_analyze(game, values, decisions=True, shard=(k, 3))
        assert run.decisions is not None
        parts.append(stud_strategy.count_classes(rank, list(range(52)), 3, 0, run.decisions, 2))
    assert all(parts)
    assert stud_strategy.merge(parts) == expected
    assert sum(sum(v) for v in expected.values()) == 22_100
