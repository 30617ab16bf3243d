"""The core's results cross into Python as named, frozen classes: each field read by name, the
ones that travel between processes pickled whole, bad values refused with a core error."""

from __future__ import annotations

import importlib
import pickle
from math import comb

import numpy as np
import pytest

from tablecert import _core
from tablecert._core import _testing
from tablecert.errors import RulesError
from tablecert.games import caribbean_stud
from tablecert.poker import ordering
from tests.support import caribbean_oracle

ROW = _testing.CategoryRow(
    situations=10,
    raised=4,
    indifferent=1,
    not_qualifying=7,
    won=20,
    tied=2,
    lost=30,
    equal_ranks=3,
    won_on_suit=1,
    min_margin_at_floor=-5,
)


def test_a_category_row_is_read_by_name_and_merged_by_the_core() -> None:
    assert (ROW.situations, ROW.raised, ROW.min_margin_at_floor) == (10, 4, -5)
    other = _testing.CategoryRow(1, 2, 3, 4, 5, 6, 7, 8, 9, -9)
    merged = ROW.merged(other)
    assert merged == _testing.CategoryRow(11, 6, 4, 11, 25, 8, 37, 11, 10, -9)
    # The smallest margin is kept whichever side holds it.
    assert other.merged(ROW).min_margin_at_floor == -9
    assert ROW.merged(_testing.CategoryRow(0, 0, 0, 0, 0, 0, 0, 0, 0, 3)).min_margin_at_floor == -5
    assert other != ROW
    with pytest.raises(AttributeError):
        ROW.raised = 5  # type: ignore[misc]
    # The cache stores the counts in CategoryLine's field order, read by name.
    assert caribbean_oracle.row_values(ROW) == (10, 4, 1, 7, 20, 2, 30, 3, 1, -5)


def test_what_travels_to_and_from_a_worker_pickles_whole() -> None:
    payouts = _testing.CaribbeanPayouts(
        fold=-2,
        not_qualifying=3,
        win=[4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
        tie=0,
        loss=-6,
        win_floor=4,
    )
    compact = _core.CompactDecisions((3, 9), b"\x01" * 16, b"\x07\0\0\0", b"\x08" + b"\0" * 7)
    run = _testing.CaribbeanRun([ROW, ROW], compact)
    for value in (ROW, payouts, compact, run, _testing.CaribbeanRun([ROW], b"\x05" * 8)):
        again = pickle.loads(pickle.dumps(value))
        assert type(again) is type(value)
        assert again == value
    back = pickle.loads(pickle.dumps(payouts))
    assert (back.fold, back.not_qualifying, back.win, back.tie, back.loss, back.win_floor) == (
        -2,
        3,
        [4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
        0,
        -6,
        4,
    )
    assert hash(back) == hash(payouts)
    decisions = pickle.loads(pickle.dumps(run)).decisions
    assert isinstance(decisions, _core.CompactDecisions)
    assert (decisions.upcards, decisions.every, decisions.index, decisions.bits) == (
        (3, 9),
        b"\x01" * 16,
        b"\x07\0\0\0",
        b"\x08" + b"\0" * 7,
    )
    assert run != _testing.CaribbeanRun([ROW, ROW], b"")
    assert compact != _core.CompactDecisions(
        (3, 10), b"\x01" * 16, b"\x07\0\0\0", b"\x08" + b"\0" * 7
    )


def test_bad_boundary_values_are_refused_by_the_core() -> None:
    with pytest.raises(RulesError, match="expected 10 win payouts"):
        _testing.CaribbeanPayouts(
            fold=-2, not_qualifying=1, win=[1, 2], tie=0, loss=-2, win_floor=1
        )
    with pytest.raises(TypeError, match="decisions must be"):
        _testing.CaribbeanRun([ROW], "table")  # type: ignore[arg-type]


def test_a_shard_names_its_upcards_and_its_payouts() -> None:
    order = ordering("caribbean-stud", "caribbean-stud.standard")
    pay = caribbean_stud.payouts(order)
    (shard,) = caribbean_oracle.upcard_shards(order, pay, 1)
    p = shard.payouts
    # Numerators over one denominator: the standard rules pay the ante 1 and the raise 2 x
    # the category's odds, so a fold loses 1 and the weakest win is 1 + 2 x 1.
    assert p.win_floor == min(p.win) == p.win[0]
    assert p.fold * 3 == p.win_floor * -1
    assert p.loss == 3 * p.fold
    assert len(p.win) == len(order.categories)
    assert pickle.loads(pickle.dumps(shard)) == shard


def test_score_checks_are_named_tallies() -> None:
    """The statute's own keys as scores: nothing wrong; the keys reversed: every within-class
    pair reversed and every boundary failed."""
    table = _core.KeyTable(3, _core.TieBreaks(suit_decides=True))
    keys = np.frombuffer(table.table(), dtype="<u4").astype(np.int32)
    right = table.check_scores(keys, 3)
    assert isinstance(right, _core.ScoreCheck)
    assert len(right.within) == 16
    assert all(t.reversed == t.pushed == t.split == 0 and t.examples == [] for t in right.within)
    assert sum(t.checked for t in right.within) == table.suit_decided_pairs() > 0
    assert right.boundaries == []
    assert 0 < right.classes < comb(52, 3)
    wrong = table.check_scores(-keys, 3)
    assert wrong.classes == right.classes
    assert [t.reversed for t in wrong.within] == [t.checked for t in right.within]
    assert all(len(t.examples) == min(3, t.reversed) for t in wrong.within)
    assert len(wrong.boundaries) == right.classes - 1
    assert all(b.disjoint for b in wrong.boundaries)
    lower, upper = wrong.boundaries[0].lower, wrong.boundaries[0].upper
    assert keys[lower] < keys[upper]


TEST_ONLY = {
    # The dedicated engines, the generic stud engine's oracles.
    "CaribbeanPayouts",
    "CaribbeanRun",
    "CategoryRow",
    "Q_POKER_COUNT_FIELDS",
    "caribbean_analyze",
    "q_poker_hand_counts",
    # The core's inner steps.
    "aperiodic_templates",
    "count_complete_hands",
    "dft_magnitudes",
    "dft_peak_counts",
    "erfc",
    "linear_complexity_of",
}


def test_test_only_functions_are_in_the_testing_submodule() -> None:
    """The public module lists only the API; the inner steps only the tests call are in
    ``tablecert._core._testing``, importable by its full name."""
    assert set(_testing.__all__) == TEST_ONLY
    assert not TEST_ONLY & set(dir(_core))
    assert importlib.import_module("tablecert._core._testing") is _core._testing
    assert _testing.__name__ == "tablecert._core._testing"
    assert _testing.count_complete_hands([0, 1, 2, 3], 1)[0] == 20


def test_q_poker_counts_are_read_by_the_names_the_core_gives_its_columns() -> None:
    from tablecert.games.q_poker import _Showdowns

    # The generic engine's columns; its wins include those on suit.
    raw = np.array([[1, 6, 0, 3, 4], [50, 60, 0, 70, 8]], dtype="<u4").tobytes()
    counts = _Showdowns.of(raw)
    fields = ["not_qualifying", "won", "tied", "equal_ranks", "won_on_suit"]
    assert fields == _core.STUD_COUNT_FIELDS
    assert counts.not_qualifying.tolist() == [1, 50]
    assert counts.beaten.tolist() == [2, 52]
    assert counts.equal_ranks.tolist() == [3, 70]
    assert counts.won_on_suit.tolist() == [4, 8]
