"""The order in which a table's rounds were played: each round's timestamp read as an ISO 8601
time with its UTC offset (``2026-03-01T10:00:00Z``, as ``datetime.fromisoformat`` reads it),
and no round timestamped before the round logged before it at the same table.

A chunk's timestamps are read in one vectorised pass when they all have one of the common
fixed layouts (``YYYY-MM-DDTHH:MM:SS``, optionally ``.fff`` or ``.ffffff``, then ``Z`` or
``±HH:MM``) and every field is in range; that pass accepts only what ``fromisoformat`` accepts,
with the same instant. Any other chunk, and any chunk with a round out of order, is read
round by round with ``fromisoformat``, which gives the error naming the first offending line:
the two readings give the same result, the first is only faster.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert.errors import RoundLogError
from tablecert.notation import written
from tablecert.rounds.log import RoundChunk

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
#: The fixed layouts read in bulk, by length: (digits of the fraction, has a ``±HH:MM`` offset).
_LAYOUTS: dict[int, tuple[int, bool]] = {
    19 + (digits + 1 if digits else 0) + (6 if zoned else 1): (digits, zoned)
    for digits in (0, 3, 6)
    for zoned in (False, True)
}
_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _instant_us(when: datetime) -> int:
    """An aware time as microseconds since 1970-01-01 UTC (ordered as the times are)."""
    return (when - _EPOCH) // _MICROSECOND


def _number(digits: npt.NDArray[np.uint8], start: int, width: int) -> npt.NDArray[np.int64]:
    out = digits[:, start].astype(np.int64)
    for i in range(start + 1, start + width):
        out *= 10
        out += digits[:, i]
    return out


def _days_from_civil(
    year: npt.NDArray[np.int64], month: npt.NDArray[np.int64], day: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Days since 1970-01-01 of proleptic Gregorian dates (H. Hinnant's algorithm)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    out: npt.NDArray[np.int64] = era * 146097 + doe - 719468
    return out


def bulk_instants(stamps: list[str]) -> npt.NDArray[np.int64] | None:
    """Each timestamp as microseconds since 1970-01-01 UTC when all of them have one fixed
    layout with every field in range (then ``fromisoformat`` reads each to the same
    instant); None otherwise (they are to be read one by one)."""
    if not stamps:
        return np.zeros(0, dtype=np.int64)
    lengths = set(map(len, stamps))
    if len(lengths) != 1:
        return None
    size = lengths.pop()
    layout = _LAYOUTS.get(size)
    if layout is None:
        return None
    frac, zoned = layout
    try:
        raw = "".join(stamps).encode("ascii")
    except UnicodeEncodeError:
        return None
    text = np.frombuffer(raw, dtype=np.uint8).reshape(len(stamps), size)
    separators = {4: b"-", 7: b"-", 10: b"T", 13: b":", 16: b":"}
    zone_at = 19 + (frac + 1 if frac else 0)
    if frac:
        separators[19] = b"."
    if zoned:
        separators[zone_at + 3] = b":"
    else:
        separators[zone_at] = b"Z"
    digit_at = [i for i in range(size) if i not in separators and not (zoned and i == zone_at)]
    digits = text - np.uint8(ord("0"))  # a byte below "0" wraps round to above 9
    ok = (digits[:, digit_at] <= 9).all(axis=1)
    for i, char in separators.items():
        ok &= text[:, i] == char[0]
    sign: npt.NDArray[np.int64] | int = 0
    if zoned:
        plus, minus = text[:, zone_at] == ord("+"), text[:, zone_at] == ord("-")
        ok &= plus | minus
        sign = np.where(minus, -1, 1)
    if not ok.all():
        return None
    year, month, day = _number(digits, 0, 4), _number(digits, 5, 2), _number(digits, 8, 2)
    hour, minute, second = _number(digits, 11, 2), _number(digits, 14, 2), _number(digits, 17, 2)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    month_days = _DAYS_IN_MONTH[np.clip(month, 0, 12)] + ((month == 2) & leap)
    # years 0001 and 9999 are left to fromisoformat: an offset may take their UTC time out of range
    ok = (year >= 2) & (year <= 9998) & (month >= 1) & (month <= 12)
    ok &= (day >= 1) & (day <= month_days) & (hour <= 23) & (minute <= 59) & (second <= 59)
    offset: npt.NDArray[np.int64] | int = 0
    if zoned:
        off_hour, off_minute = _number(digits, zone_at + 1, 2), _number(digits, zone_at + 4, 2)
        ok &= (off_hour <= 23) & (off_minute <= 59)
        offset = sign * (off_hour * 3600 + off_minute * 60)
    if not ok.all():
        return None
    micro: npt.NDArray[np.int64] | int = 0
    if frac:
        micro = _number(digits, 20, frac) * 10 ** (6 - frac)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    out: npt.NDArray[np.int64] = (seconds - offset) * 1_000_000 + micro
    return out


class RoundClock:
    """Each round's timestamp read as an ISO 8601 time with its UTC offset
    (``2026-03-01T10:00:00Z``), and a table's rounds in the order they were played: a round
    timestamped before the round logged before it at the same table is an input error (the
    log is out of order, or its clock was set back), naming both lines. What is kept: per
    table, its last round's instant, line and timestamp text."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.last: dict[str, tuple[int, int, str]] = {}

    def check(self, chunk: RoundChunk) -> None:
        instants = bulk_instants(chunk.timestamp)
        if instants is None or not self._in_order(chunk, instants):
            self._check_each(chunk)

    def _in_order(self, chunk: RoundChunk, instants: npt.NDArray[np.int64]) -> bool:
        """Record the chunk's rounds when every table's are in order (True); else leave the
        state as it was (False)."""
        tables = chunk.table_id
        if not tables:
            return True
        names = list(dict.fromkeys(tables))
        if len(names) == 1:
            code = np.zeros(len(tables), dtype=np.int64)
            order = np.arange(len(tables))
        else:
            index = {name: i for i, name in enumerate(names)}
            code = np.fromiter(map(index.__getitem__, tables), dtype=np.int64, count=len(tables))
            # a stable sort of 16-bit keys is a radix sort (a log of up to 32,767 tables)
            order = np.argsort(code.astype(np.int16) if len(names) < 2**15 else code, kind="stable")
        key, when = code[order], instants[order]
        if ((key[1:] == key[:-1]) & (when[1:] < when[:-1])).any():
            return False
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ends = np.r_[starts[1:], len(key)] - 1
        for name, first in zip(names, when[starts].tolist(), strict=True):
            before = self.last.get(name)
            if before is not None and first < before[0]:
                return False
        lines: Any = chunk.arrays.line
        for name, row in zip(names, order[ends].tolist(), strict=True):
            self.last[name] = (int(instants[row]), int(lines[row]), chunk.timestamp[row])
        return True

    def _check_each(self, chunk: RoundChunk) -> None:
        for table, stamp, line in zip(chunk.table_id, chunk.timestamp, chunk.line, strict=True):
            try:
                when = datetime.fromisoformat(stamp)
            except ValueError:
                when = None
            if when is None or when.tzinfo is None:
                raise RoundLogError(
                    f"{self.path}:{line}: timestamp: {written(stamp)} is not an ISO 8601 time "
                    "with its UTC offset (e.g. 2026-03-01T10:00:00Z)"
                )
            instant = _instant_us(when)
            before = self.last.get(table)
            if before is not None and instant < before[0]:
                raise RoundLogError(
                    f"{self.path}:{line}: timestamp: {stamp} is before {before[2]}, the time of "
                    f"table {written(table)}'s round logged before it (line {before[1]}): the "
                    "rounds of a table are logged in the order played"
                )
            self.last[table] = (instant, line, stamp)
