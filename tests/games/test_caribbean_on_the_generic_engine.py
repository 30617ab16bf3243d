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


def test_a_whole_table_is_refused_by_the_compact_form_unless_it_fits() -> None:
    with pytest.raises(ValueError, match="8 per hand"):
        _core.compact_decisions(b"\0" * 16)
