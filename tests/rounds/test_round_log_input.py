"""Round logs as devices write them: a byte order mark, blank lines, timestamps that must be
times and in the order played, ids of bounded length."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecert.errors import RoundLogError
from tablecert.poker import ordering
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.log import MAX_ID_BYTES

from .test_rounds import Q_HEADER, Q_ROUND

ROUND_2 = "T9,2,2026-03-01T10:00:45Z,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n"
JSON_ROUND = (
    '{"table_id": "T9", "round_id": "1", "timestamp": "2026-03-01T10:00:00Z", '
    '"dealer": "Qs 7d 3c", "seats": [{"seat": 1, "cards": "9h 9d 4s", "decision": "follow", '
    '"bets": {"pair_plus": "10", "play": "20"}, "paid": {"pair_plus": "10", "play": "20"}}]}\n'
)


def _audit(tmp_path: Path, text: str, name: str = "q.csv", encoding: str = "utf-8"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return audit_rounds([path], ordering("q-poker"))


@pytest.mark.parametrize("name", ["q.csv", "q.jsonl"])
def test_a_byte_order_mark_and_blank_lines_are_read(tmp_path: Path, name: str) -> None:
    body = (
        Q_HEADER + Q_ROUND + "\n" + ROUND_2 + "\n\n"
        if name == "q.csv"
        else (
            JSON_ROUND
            + "\n"
            + JSON_ROUND.replace('"1"', '"2"', 1).replace("10:00:00", "10:01:00")
            + "\n"
        )
    )
    result = _audit(tmp_path, body, name, encoding="utf-8-sig")
    assert result.verdict == "pass"
    assert result.rounds == 2


@pytest.mark.parametrize(
    ("stamp", "why"),
    [
        ("not-a-time", "'not-a-time' is not an ISO 8601 time with its UTC offset"),
        ("2026-03-01T10:00:00", "'2026-03-01T10:00:00' is not an ISO 8601 time with its UTC"),
    ],
)
def test_a_timestamp_must_be_a_time(tmp_path: Path, stamp: str, why: str) -> None:
    text = Q_HEADER + Q_ROUND.replace("2026-03-01T10:00:00Z", stamp)
    with pytest.raises(RoundLogError, match=f"q.csv:2: timestamp: {why}"):
        _audit(tmp_path, text)


def test_rounds_out_of_order_are_an_input_error(tmp_path: Path) -> None:
    earlier = ROUND_2.replace("10:00:45Z", "09:59:00Z")
    with pytest.raises(
        RoundLogError,
        match=r"q.csv:5: timestamp: 2026-03-01T09:59:00Z is before 2026-03-01T10:00:00Z, the "
        r"time of table 'T9''s round logged before it \(line 2\)",
    ):
        _audit(tmp_path, Q_HEADER + Q_ROUND + earlier)
    # another table keeps its own clock
    other = earlier.replace("T9,2,", "T8,2,")
    result = _audit(tmp_path, Q_HEADER + Q_ROUND + other)
    assert result.rounds == 2
    # the audit names its devices: the tables whose rounds it read
    assert result.as_json()["tables"] == ["T8", "T9"]
    from tablecert.report.sections.round_audit import tables_text

    assert tables_text(result) == "tables T8, T9"


@pytest.mark.parametrize("field", ["table_id", "round_id"])
def test_an_id_is_bounded(tmp_path: Path, field: str) -> None:
    long = "x" * (MAX_ID_BYTES + 1)
    text = Q_HEADER + (
        Q_ROUND.replace("T9,1,", f"{long},1,")
        if field == "table_id"
        else Q_ROUND.replace("T9,1,", f"T9,{long},")
    )
    with pytest.raises(RoundLogError, match=f"q.csv:2: {field}: longer than {MAX_ID_BYTES} bytes"):
        _audit(tmp_path, text)
    fits = "x" * MAX_ID_BYTES
    ok = Q_HEADER + Q_ROUND.replace("T9,1,", f"T9,{fits},")
    assert _audit(tmp_path, ok).rounds == 1
