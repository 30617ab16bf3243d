"""Scaling on Dask: the full Caribbean Stud analysis and a fleet log audit on local clusters of
1 and 2 single-threaded worker processes (the local path's timing is bench_game_math.py's).

Run: .venv/bin/python -m pytest benches/bench_distributed.py --benchmark-enable -p no:logging
(``TABLECERT_BENCH_FLEET_FILES`` / ``TABLECERT_BENCH_FLEET_DECKS`` size the audit: default 8
logs of 25,000 shuffles each). Every clustered answer is checked equal to the local one.
BENCHMARKS.md turns the per-shard rates into a capacity estimate for a fleet audit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from tablecert.audit.shuffler import ShufflerAudit, audit_shuffler
from tablecert.audit.simulate import write_log
from tablecert.distributed import DaskExecutor, local_cluster
from tablecert.games import caribbean_stud

pytest.importorskip("distributed")

FILES = int(os.environ.get("TABLECERT_BENCH_FLEET_FILES", "8"))
DECKS = int(os.environ.get("TABLECERT_BENCH_FLEET_DECKS", "25000"))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("fleet")
    return [
        write_log(root / f"dev-{i}.csv.gz", "fair", DECKS, seed=i, device=f"SM-{i:04d}")
        for i in range(FILES)
    ]


@pytest.fixture(scope="module", params=[1, 2], ids=["1-worker", "2-workers"])
def cluster(request: pytest.FixtureRequest) -> Iterator[DaskExecutor]:
    executor = local_cluster(int(request.param))
    yield executor
    executor.close()


@pytest.fixture(scope="module")
def caribbean_local() -> caribbean_stud.CaribbeanAnalysis:
    return caribbean_stud.analyze("caribbean-stud.macau", use_cache=False)


def test_caribbean_on_cluster(
    benchmark: BenchmarkFixture,
    cluster: DaskExecutor,
    caribbean_local: caribbean_stud.CaribbeanAnalysis,
) -> None:
    result = benchmark.pedantic(
        caribbean_stud.analyze,
        args=("caribbean-stud.macau",),
        kwargs={"use_cache": False, "executor": cluster},
        rounds=1,
        iterations=1,
    )
    assert result.categories == caribbean_local.categories
    assert result.decisions == caribbean_local.decisions
    benchmark.extra_info["workers"] = cluster.parallelism
    benchmark.extra_info["shards"] = caribbean_stud.SHARDS_PER_THREAD * cluster.parallelism


def test_fleet_audit_on_cluster(
    benchmark: BenchmarkFixture, cluster: DaskExecutor, fleet: list[Path]
) -> None:
    result: ShufflerAudit = benchmark.pedantic(
        audit_shuffler, args=(fleet,), kwargs={"executor": cluster}, rounds=1, iterations=1
    )
    assert result.tally.shuffles == FILES * DECKS
    benchmark.extra_info["shuffles"] = FILES * DECKS
    benchmark.extra_info["workers"] = cluster.parallelism
