"""Caribbean Stud's par sheet runs on the generic stud engine, bit for bit today's.

``caribbean_stud.analyze`` gives the generic engine (``_core.stud_analyze``) the values of
fold and raise read from the rule file; the dedicated engine (``_core.caribbean_analyze``,
tests/support/caribbean_oracle.py) stays as the oracle. Every category row, including the
margins that prove a payout change moves no decision, and the whole decision table (one
mask of upcards per player hand) are equal, on the standard rules (rank only) and the
statute's (suits decide); shards on an executor give the same answer as one local run.
"""

from __future__ import annotations

import os

import pytest

from tablecert import _core
from tablecert.distributed import LocalExecutor
from tablecert.games import caribbean_stud
from tablecert.poker import ordering
from tests.support import caribbean_oracle

SLOW = bool(os.environ.get("TABLECERT_SLOW"))
LONG = [pytest.mark.slow, pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1")]


@pytest.mark.parametrize(
    "rules",
    ["caribbean-stud.standard", pytest.param("caribbean-stud.macau", marks=LONG)],
)
def test_rows_and_decisions_are_the_dedicated_engines(rules: str) -> None:
    order = ordering("caribbean-stud", rules)
    p = caribbean_stud.payouts(order)
    rows, table = caribbean_stud._run_core(order, p, None)
    expected_rows, expected_table = caribbean_oracle.whole_run(order, p)
    assert rows == expected_rows
    assert table == expected_table
    # Not a vacuous table: some hands raise against some upcards only.
    assert 0 < sum(r[1] for r in rows) < caribbean_stud.SITUATIONS
    assert all(r[-1] != 2**63 - 1 for r in rows)


def test_shards_on_an_executor_are_one_local_run() -> None:
    local = caribbean_stud.analyze("caribbean-stud.standard", use_cache=False)
    sharded = caribbean_stud.analyze(
        "caribbean-stud.standard", use_cache=False, executor=LocalExecutor(), shards=3
    )
    assert sharded.as_json() == local.as_json()
    assert sharded.decisions == local.decisions
    assert sharded.categories == local.categories


def test_a_worker_keeps_one_game_and_its_shards_are_unchanged() -> None:
    """Shards run where the game (and the tables its first run built) is kept give the
    answers of a new game each: the two games' shards in turn, then the first's again."""
    plans = []
    for rules in ("caribbean-stud.standard", "caribbean-stud.macau"):
        order = ordering("caribbean-stud", rules)
        plans.append(caribbean_stud.hand_shards(order, caribbean_stud.payouts(order), 2))
    standard, macau = plans
    assert standard[0].description != macau[0].description
    caribbean_stud.kept_game.cache_clear()
    raised = situations = 0
    fresh = {}
    for shard in (standard[0], standard[1], macau[1], standard[0]):
        kept = caribbean_stud.run_hand_shard(shard)
        if shard not in fresh:
            run = caribbean_stud._engine_run(shard)  # a new game
            assert run.raise_masks is not None
            fresh[shard] = (tuple(caribbean_stud._rows(run)), run.raise_masks)
        rows, masks = fresh[shard]
        assert kept.rows == rows
        assert kept.decisions == _core.compact_decisions(masks)
        raised += sum(r[1] for r in kept.rows)
        situations += sum(r[0] for r in kept.rows)
    assert 0 < raised < situations  # not a vacuous table: some situations fold
    game = caribbean_stud.kept_game(standard[0].description)
    assert caribbean_stud.kept_game(standard[1].description) is game
    # One game built per change of game: standard, the statute's, standard again.
    assert caribbean_stud.kept_game.cache_info().misses == 3


def test_a_whole_table_is_refused_by_the_compact_form_unless_it_fits() -> None:
    with pytest.raises(ValueError, match="8 per hand"):
        _core.compact_decisions(b"\0" * 16)
