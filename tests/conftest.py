"""Test-suite settings: under CI, hypothesis draws a fixed sequence of examples, so a run is
reproducible and a failure seen once is seen again (locally, examples stay random). The
local Dask cluster the cluster tests share."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from tablecert.distributed import DaskExecutor

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskExecutor]:
    """Two single-threaded worker processes, as ``--workers 2`` makes them; one per test
    module that asks for it (tests/test_distributed.py, tests/test_client_process.py)."""
    pytest.importorskip("distributed")
    from tablecert.distributed import local_cluster

    executor = local_cluster(2)
    try:
        yield executor
    finally:
        executor.close()
