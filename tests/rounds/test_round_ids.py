"""A round logged twice, through the whole reader: the core keeps each (table id, round id)
pair's hash in a fresh table merged 65,536 at a time into a sorted array (rust/rounds/ids.rs),
so a repeat is found whether its first copy is still fresh, merged once, or merged several
merges ago, and the read stops at the repeat's line with the same message."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tablecert.errors import RoundLogError
from tablecert.rounds.log import read_rounds

HEADER = (
    "table_id,round_id,timestamp,dealer,upcard,meter_before,meter_after,events,seat,cards,"
    "decision,pair_plus_bet,play_bet,pair_plus_paid,play_paid\n"
)
#: The core's first merge of fresh hashes into the sorted ones (`MIN_BATCH`).
BATCH = 65_536


def _row(table: str, round_id: str) -> str:
    return f"{table},{round_id},2026-03-01T00:00:00Z,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n"


def _json_row(table: str, round_id: str) -> str:
    return (
        f'{{"table_id": "{table}", "round_id": "{round_id}", "timestamp": '
        '"2026-03-01T00:00:00Z", "dealer": "Qs 7d 3c", "seats": [{"seat": 1, "cards": '
        '"9h 9d 4s", "decision": "follow", "bets": {"pair_plus": "10", "play": "20"}, '
        '"paid": {"pair_plus": "10", "play": "20"}}]}\n'
    )


def _log(path: Path, rows: list[tuple[str, str]]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(_json_row(t, r) for t, r in rows), encoding="utf-8")
    else:
        path.write_text(HEADER + "".join(_row(t, r) for t, r in rows), encoding="utf-8")
    return path


def _read(path: Path) -> int:
    return sum(len(chunk) for chunk in read_rounds(path, "q-poker"))


@pytest.mark.parametrize(
    ("first", "repeat_at"),
    [
        (3, 10),  # both in the first fresh table
        (5, BATCH + 7),  # the first copy merged once
        (BATCH - 1, BATCH + 1),  # the first copy the last hash of the first merge
        (BATCH, BATCH + 2),  # the first copy the first hash after it
        (10, 3 * BATCH + 5),  # merged three merges ago
    ],
)
def test_a_round_logged_twice_is_found_across_merges(
    tmp_path: Path, first: int, repeat_at: int
) -> None:
    rows = [("T" if i % 3 else "U", str(i)) for i in range(repeat_at)]
    rows.append(rows[first])
    rows.append(("T", "after"))
    path = _log(tmp_path / "q.csv", rows)
    table, round_id = rows[first]
    with pytest.raises(RoundLogError) as err:
        _read(path)
    line = repeat_at + 2  # the header, then one line a round
    assert str(err.value) == (
        f"{path}:{line}: round_id: round '{round_id}' of table '{table}' is logged twice"
    )
    # the same in JSON Lines: one line a round, no header
    path = _log(tmp_path / "q.jsonl", rows)
    with pytest.raises(RoundLogError) as err:
        _read(path)
    line = repeat_at + 1
    assert str(err.value) == (
        f"{path}:{line}: round_id: round '{round_id}' of table '{table}' is logged twice"
    )


def test_distinct_rounds_across_merges_are_all_read(tmp_path: Path) -> None:
    """The same round ids at another table, and ids that differ only in where the table id
    ends, are other rounds."""
    rows = [(f"T{i % 2}", str(i)) for i in range(2 * BATCH + 3)]
    rows += [("T2", str(i)) for i in range(BATCH + 1)]
    rows += [("T0", "23"), ("T3", "12"), ("T31", "2")]  # T0's ids were even
    path = _log(tmp_path / "q.csv", rows)
    assert _read(path) == len(rows)


def test_the_reader_keeps_no_chunk_it_has_handed_on(tmp_path: Path) -> None:
    """A chunk's columns are referenced by the chunk alone once it is handed on: the reader
    keeps nothing of it while the next chunks are made (memory stays at a few chunks)."""
    path = _log(tmp_path / "q.csv", [("T", str(i)) for i in range(2 * BATCH + 5)])
    sizes = []
    for chunk in read_rounds(path, "q-poker"):
        # the chunk's attribute and getrefcount's argument: no other holder
        refs = sys.getrefcount(chunk.round_id)
        assert refs == 2
        sizes.append(len(chunk))
    assert sizes == [BATCH, BATCH, 5]
