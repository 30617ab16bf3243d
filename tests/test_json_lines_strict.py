"""The strict JSON Lines reader (rust/logs/json) under both logs that use it: shuffler logs
(a bad line is a bad record with its reason) and round logs (a bad line stops the read, naming
FILE:LINE: FIELD). Duplicate keys at any depth and however escaped, NaN and Infinity, deep
nesting, lone surrogate escapes and invalid UTF-8 are refused; numbers are kept as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecert import _core
from tablecert.audit import audit_shuffler
from tablecert.errors import AuditError, RoundLogError
from tablecert.rounds.log import read_rounds

CODES = " ".join(_core.card_code(c) for c in range(52))
SHUFFLE = f'{{"device_id":"A","timestamp":1,"shuffle_id":1,"output":"{CODES}","input":"{CODES}"}}'
ROUND = (
    '{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": ["Qs", "7d", "3c"], '
    '"seats": [{"seat": 1, "cards": "9h 9d 4s", "decision": "follow", '
    '"bets": {"pair_plus": 10, "play": 20}, "paid": {"pair_plus": 10, "play": 20}}]}'
)
DEEP = "[" * 40 + "]" * 40
LONE = "lone surrogate escape"
ONES = "1" * 31
DEEPLY = "nested too deeply"


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ('"timestamp":1', '"timestamp":1,"events":[{"a":1,"a":2}]', "duplicate key 'a'"),
        ('"timestamp":1', '"timestamp":1,"events":[[{"b":[{"c":0,"c":0}]}]]', "duplicate key 'c'"),
        ('"device_id":"A"', '"device_id":"A","\\u0064evice_id":"B"', "duplicate key 'device_id'"),
        ('"timestamp":1', '"timestamp":NaN', "NaN is not a number JSON allows"),
        ('"timestamp":1', '"timestamp":[-Infinity]', "-Infinity is not a number JSON allows"),
        ('"timestamp":1', f'"timestamp":1,"events":{DEEP}', f"invalid JSON at column 73: {DEEPLY}"),
        # Read as the character U+10041 before: a high surrogate needs a low one after it.
        ('"device_id":"A"', '"device_id":"\\ud800\\u0041"', f"invalid JSON at column 27: {LONE}"),
        ('"device_id":"A"', '"device_id":"\\udc00"', "invalid JSON at column 21: bad \\u escape"),
    ],
)  # fmt: skip
def test_a_shuffle_record_breaking_a_rule_is_a_bad_record_with_its_reason(
    tmp_path: Path, old: str, new: str, reason: str
) -> None:
    path = tmp_path / "s.jsonl"
    bad = SHUFFLE.replace(old, new)
    assert bad != SHUFFLE
    path.write_text(f"{SHUFFLE}\n{bad}\n", encoding="utf-8")
    i = audit_shuffler([path]).integrity
    assert (i.records, i.bad_count) == (1, 1)
    assert list(i.bad_records) == [(str(path), 2, reason)]


def test_shuffle_record_numbers_are_kept_as_written(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    huge = "123456789012345678901234567890123"
    lines = [SHUFFLE.replace('"A"', n) for n in (huge, "-0", "1.50e1")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    i = audit_shuffler([path]).integrity
    assert (i.records, i.bad_count) == (3, 0)
    assert sorted(i.devices) == sorted([huge, "-0", "1.50e1"])


def test_invalid_utf8_in_a_shuffle_log_names_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(f"{SHUFFLE}\n".encode() + SHUFFLE.replace('"A"', '"A\xff"').encode("latin-1"))
    with pytest.raises(AuditError, match=r"s\.jsonl: line 2 \(byte 395\): invalid UTF-8"):
        audit_shuffler([path])


def _rounds(tmp_path: Path, line: str | bytes) -> list[str]:
    path = tmp_path / "q.jsonl"
    path.write_bytes((line if isinstance(line, bytes) else line.encode()) + b"\n")
    return [r for chunk in read_rounds(path, "q-poker") for r in chunk.round_id]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"play": 20}}', '"play": 20, "play": 21}}', "duplicate key 'play'"),
        ('"seat": 1,', '"seat": 1, "\\u0073eat": 2,', "duplicate key 'seat'"),
        ('"dealer"', '"events": [{"x": {"y": 1, "y": 1}}], "dealer"', "duplicate key 'y'"),
        ('"round_id": 1', '"round_id": NaN', "NaN is not a number JSON allows"),
        ('"play": 20}}', '"play": Infinity}}', "Infinity is not a number JSON allows"),
        ('"round_id": 1', f'"round_id": {DEEP}', f"invalid JSON at column 63: {DEEPLY}"),
        ('"round_id": 1', f'"round_id": {ONES}', f"number {ONES}... has more than 30 digits"),
        # Read as the character U+10041 before: a high surrogate needs a low one after it.
        ('"table_id": "T"', '"table_id": "\\ud800\\u0041"', f"invalid JSON at column 27: {LONE}"),
        ('"table_id": "T"', '"table_id": "\\ud800"', f"invalid JSON at column 21: {LONE}"),
    ],
)  # fmt: skip
def test_a_round_line_breaking_a_rule_names_file_and_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    bad = ROUND.replace(old, new)
    assert bad != ROUND
    with pytest.raises(RoundLogError) as err:
        _rounds(tmp_path, bad)
    assert str(err.value) == f"{tmp_path / 'q.jsonl'}:1: {message}"


def test_round_numbers_are_kept_as_written(tmp_path: Path) -> None:
    assert _rounds(tmp_path, ROUND) == ["1"]
    big = "123456789012345678901234567890"
    assert _rounds(tmp_path, ROUND.replace('"round_id": 1', f'"round_id": {big}')) == [big]
    assert _rounds(tmp_path, ROUND.replace('"round_id": 1', '"round_id": -0')) == ["0"]
    # An amount is the decimal written, never a float: 0.1 + 0.2 is not 0.30000000000000004.
    path = tmp_path / "q.jsonl"
    path.write_text(ROUND.replace('"play": 20}}', '"play": 0.3}}') + "\n", encoding="utf-8")
    (chunk,) = read_rounds(path, "q-poker")
    assert [tuple(p) for p in chunk.paid] == [(100_000, 3_000)]


def test_invalid_utf8_in_a_round_log_names_line_and_byte(tmp_path: Path) -> None:
    with pytest.raises(RoundLogError, match=r"q\.jsonl:1: invalid UTF-8 at byte 15 of the line"):
        _rounds(tmp_path, ROUND.replace('"T"', '"\xff"').encode("latin-1"))
