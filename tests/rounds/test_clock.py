"""The round clock's bulk reading of timestamps agrees with ``datetime.fromisoformat`` on every
timestamp it accepts, and leaves the rest (and every error) to the round-by-round reading."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from tablecert.errors import RoundLogError
from tablecert.rounds.clock import RoundClock, bulk_instants

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _reference(stamp: str) -> int | None:
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return (when - _EPOCH) // timedelta(microseconds=1)


def _stamps() -> list[str]:
    """Dates and times at and across every field's bounds, in each bulk layout."""
    dates = [
        f"{y:04d}-{m:02d}-{d:02d}"
        for y, m, d in itertools.product(
            (0, 1, 2, 1900, 2000, 2024, 2026, 9998, 9999), (0, 1, 2, 12, 13), (0, 1, 28, 29, 31, 32)
        )
    ]
    times = ["00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60"]
    fractions = ["", ".5", ".123", ".123456", ".1234567"]
    zones = ["Z", "+00:00", "-00:00", "+08:00", "-23:59", "+24:00", "+05:60", "", "+0800", "z"]
    rng = random.Random(7)
    chosen = [
        f"{rng.choice(dates)}T{rng.choice(times)}{rng.choice(fractions)}{rng.choice(zones)}"
        for _ in range(3000)
    ]
    return [*chosen, "2026-03-01 10:00:00Z", "2026-03-01T10:00:00Z", "２026-03-01T10:00:00Z"]


def test_bulk_instants_agree_with_fromisoformat() -> None:
    accepted = 0
    for stamp in _stamps():
        bulk = bulk_instants([stamp])
        reference = _reference(stamp)
        if bulk is not None:
            accepted += 1
            assert reference is not None, stamp
            assert int(bulk[0]) == reference, stamp
    assert accepted > 100
    assert bulk_instants(["2026-03-01T10:00:00Z"]) is not None
    assert int(bulk_instants(["1970-01-01T08:00:00.250+08:00"])[0]) == 250_000  # type: ignore[index]


def test_bulk_instants_need_one_layout() -> None:
    # same total length as two well-formed stamps, but not each of one layout
    assert bulk_instants(["2026-03-01T10:00:00Z2", "026-03-01T10:00:00Z"]) is None
    assert bulk_instants(["2026-03-01T10:00:00Z", "2026-03-01T10:00:00+00:00"]) is None
    both = bulk_instants(["2026-03-01T10:00:00Z", "2026-03-01T10:00:45Z"])
    assert both is not None
    assert np.diff(both).tolist() == [45_000_000]


class _Arrays:
    def __init__(self, lines: list[int]) -> None:
        self.line = np.array(lines, dtype=np.int64)


class _Chunk:
    """The three columns the clock reads."""

    def __init__(self, tables: list[str], stamps: list[str], first_line: int) -> None:
        self.table_id = tables
        self.timestamp = stamps
        self.arrays = _Arrays(list(range(first_line, first_line + len(tables))))

    @property
    def line(self) -> list[int]:
        return [int(x) for x in self.arrays.line.tolist()]


@pytest.mark.parametrize("stamp", ["2026-03-01T10:00:59Z", "2026-03-01T11:00:59+01:00"])
def test_a_round_out_of_order_in_a_later_chunk(stamp: str) -> None:
    clock = RoundClock("q.csv")
    clock.check(_Chunk(["T1", "T2", "T1"], [f"2026-03-01T10:0{i}:00Z" for i in (0, 1, 2)], 2))  # type: ignore[arg-type]
    assert clock.last == {
        "T1": (1772359320000000, 4, "2026-03-01T10:02:00Z"),
        "T2": (1772359260000000, 3, "2026-03-01T10:01:00Z"),
    }
    # T2 at 10:00:59 follows its own 10:01:00 on line 3, whatever the offset it is written in
    with pytest.raises(
        RoundLogError,
        match=rf"q.csv:6: timestamp: {stamp.replace('+', '[+]')} is before 2026-03-01T10:01:00Z,"
        r" the time of table 'T2''s round logged before it \(line 3\)",
    ):
        clock.check(_Chunk(["T1", "T2"], ["2026-03-01T10:03:00Z", stamp], 5))  # type: ignore[arg-type]


def test_a_round_out_of_order_within_a_chunk() -> None:
    clock = RoundClock("q.csv")
    stamps = ["2026-03-01T10:00:00Z", "2026-03-01T09:00:00Z", "2026-03-01T09:59:00Z"]
    with pytest.raises(RoundLogError, match=r"q.csv:4: timestamp: 2026-03-01T09:59:00Z is before"):
        clock.check(_Chunk(["T1", "T2", "T1"], stamps, 2))  # type: ignore[arg-type]
