"""The battery's results are the recorded ones to the bit: every field of every CheckResult
(floats by ``repr``), the rejections and the second level, on every case of
``tests/support/battery_golden.py`` (fixture recorded from the battery before its per-batch
constants were cached)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.battery_golden import CASES, GOLDEN, Case, run_case

RECORDED: dict[str, Any] = json.loads(GOLDEN.read_text())


def test_the_fixture_covers_every_case() -> None:
    assert list(RECORDED) == [case.name for case in CASES]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_battery_results_are_bit_identical(case: Case) -> None:
    got, want = run_case(case), RECORDED[case.name]
    assert len(got["batches"]) == len(want["batches"])
    for i, (g, w) in enumerate(zip(got["batches"], want["batches"], strict=True)):
        assert g == w, f"batch {i}"
    assert got["whole"] == want["whole"]
    assert got["second_level"] == want["second_level"]
