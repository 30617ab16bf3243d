"""The core's round-log reader against the Python reading it replaced (reference_log.py, slow
and obviously correct): the same chunks from seeded logs of both games and both encodings, and
on hundreds of seeded corruptions the same outcome, failing at the same file, line and field
with the same message."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablecert.errors import RoundLogError
from tablecert.poker import ordering
from tablecert.rounds.log import RoundChunk, read_rounds
from tablecert.rounds.simulate import write_rounds

from .reference_log import reference_rounds

COLUMNS = ("table_id", "round_id", "timestamp", "events")
ARRAYS = (
    "line",
    "dealer",
    "upcard",
    "meter_before",
    "meter_after",
    "void",
    "seat_round",
    "seat_number",
    "seat_line",
    "seat_cards",
    "decision",
    "bets",
    "paid",
)
#: Messages the core words differently from Python's own parsers (same file, line and field):
#: JSON syntax (Python's json module words its errors its own way) and a bad UTF-8 byte.
REWORDED = ("invalid JSON", "invalid UTF-8", "Invalid control character")


def _read(reader: Any, path: Path, game: str) -> list[RoundChunk] | str:
    try:
        return list(reader(path, game))
    except RoundLogError as exc:
        return str(exc)


def _same(path: Path, game: str) -> None:
    core, ref = _read(read_rounds, path, game), _read(reference_rounds, path, game)
    if isinstance(ref, str) or isinstance(core, str):
        assert isinstance(core, str), f"core read what Python refused: {ref}"
        assert isinstance(ref, str), f"core refused what Python read: {core}"
        if any(word in ref for word in REWORDED):
            # same place: FILE:LINE
            assert core.split(": ")[0] == ref.split(": ")[0], (core, ref)
        else:
            assert core == ref
        return
    assert len(core) == len(ref)
    for a, b in zip(core, ref, strict=True):
        for name in COLUMNS:
            assert getattr(a, name) == getattr(b, name), name
        for name in ARRAYS:
            x, y = getattr(a.arrays, name), getattr(b.arrays, name)
            assert (x.dtype, x.shape) == (y.dtype, y.shape), name
            assert np.array_equal(x, y), name


@pytest.fixture(scope="module", params=["q-poker", "caribbean-stud"])
def logs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    game = request.param
    folder = tmp_path_factory.mktemp(game)
    order = ordering(game)
    csv_path, jsonl_path = folder / "r.csv", folder / "r.jsonl"
    write_rounds(csv_path, order, 400, seed=5, share=0.02)
    write_rounds(jsonl_path, order, 400, seed=6, share=0.02)
    return game, csv_path, jsonl_path


def test_seeded_logs_read_identically(logs: Any, tmp_path: Path) -> None:
    game, csv_path, jsonl_path = logs
    for path in (csv_path, jsonl_path):
        _same(path, game)
        zipped = tmp_path / (path.name + ".gz")
        zipped.write_bytes(gzip.compress(path.read_bytes()))
        _same(zipped, game)


CSV_VALUES = [
    "", " ", "1e5", "NaN", "-0", "0.00001", "2.5000", "1000000000000", "1000000000000.0001",
    "99999999999999999999", "x", "Qs Qs Qs", "Qs,7d", "qs 7D 3c", "10s 9h 8d", "As;Kh;Qd",
    "AsKh", "♠A", "Q♠ 7♦ 3♣", '"a,b"', '"x""y"', '"x"y', "void", "void;misdeal", " misdeal | void ",
    "exposed-card", "jam", "follow", "fold", "raise", "3", "0", "100", "+3", " 4 ", "1_0", "3.0",
    "True", "Ä\u202e", "Ks Qh Jd 2c 3c 4c", "-5", "12.34567",
]  # fmt: skip
JSON_VALUES = [
    None, True, False, 0, -1, 1.5, "1e2", 1e16, 2.5e-7, 2.5, 12, "", " ", "x", [], {}, [1],
    ["Qs", 7], "Qs 7d 3c", ["Qs", "7d", "3c"], "As Ks Qs Js Ts", "void", ["void"],
    ["exposed-card", "void"], "misdeal|void", "follow", "fold", "raise", "3", 3, 100,
    {"play": 1}, "-0",
]  # fmt: skip


def _csv_mutants(text: str, rng: random.Random, n: int) -> list[str]:
    lines = text.splitlines(keepends=True)
    out = []
    for _ in range(n):
        rows = list(lines)
        i = rng.randrange(1, len(rows))
        what = rng.random()
        if what < 0.75:
            fields = rows[i].rstrip("\r\n").split(",")
            j = rng.randrange(len(fields))
            fields[j] = rng.choice(CSV_VALUES)
            rows[i] = ",".join(fields) + "\n"
        elif what < 0.8:
            del rows[i]
        elif what < 0.85:
            rows.insert(i, rows[rng.randrange(1, len(rows))])
        elif what < 0.9:
            rows.insert(i, rng.choice(["\n", "\r\n", ",,,\n", '"\n']))
        elif what < 0.95:
            cut = rng.randrange(len(rows[i]))
            rows = [*rows[:i], rows[i][:cut]]
        else:
            rows[0] = rows[0].replace(rng.choice(rows[0].rstrip().split(",")), "x", 1)
        out.append("".join(rows))
    return out


def _json_mutants(text: str, rng: random.Random, n: int) -> list[str]:
    lines = text.splitlines()
    out = []
    for _ in range(n):
        rows = list(lines)
        i = rng.randrange(len(rows))
        record = json.loads(rows[i])
        what = rng.random()
        target = record
        if what < 0.5 and record.get("seats"):
            seat = rng.choice(record["seats"])
            target = (
                seat if rng.random() < 0.5 else rng.choice([seat.get("bets"), seat.get("paid")])
            )
        if not isinstance(target, dict) or not target:
            target = record
        key = rng.choice(sorted(target))
        if rng.random() < 0.15:
            del target[key]
        elif rng.random() < 0.1:
            target["tip"] = 1
        else:
            target[key] = rng.choice(JSON_VALUES)
        line = json.dumps(record, ensure_ascii=False)
        if rng.random() < 0.1:  # a raw number spelled as the test wants
            line = line.replace('"1e2"', "1e2").replace('"-0"', "-0")
        rows[i] = line
        if rng.random() < 0.05:
            rows.insert(i, rng.choice(["", "  ", "[1]", '{"a": 1, "a": 2}', '{"a": NaN}']))
        out.append("\n".join(rows) + "\n")
    return out


def test_corrupted_logs_fail_alike(logs: Any, tmp_path: Path) -> None:
    game, csv_path, jsonl_path = logs
    rng = random.Random(11)
    head = "".join(csv_path.read_text(encoding="utf-8").splitlines(keepends=True)[:25])
    for k, text in enumerate(_csv_mutants(head, rng, 150)):
        path = tmp_path / f"m{k}.csv"
        path.write_text(text, encoding="utf-8", newline="")
        _same(path, game)
    jhead = "".join(jsonl_path.read_text(encoding="utf-8").splitlines(keepends=True)[:8])
    for k, text in enumerate(_json_mutants(jhead, rng, 150)):
        path = tmp_path / f"m{k}.jsonl"
        path.write_text(text, encoding="utf-8", newline="")
        _same(path, game)


def test_chunk_columns_are_arrays(logs: Any) -> None:
    """The interface the hold and meter analyses compute with: one array per numeric column,
    seat rows grouped by round; the list views under the old names agree with it."""
    game, csv_path, _ = logs
    (chunk,) = list(read_rounds(csv_path, game))
    a = chunk.arrays
    spots = 2 if game == "q-poker" else 3
    size = 3 if game == "q-poker" else 5
    assert a.bets.shape == a.paid.shape == (chunk.seats, spots)
    assert a.dealer.shape == (len(chunk), size)
    assert a.seat_cards.shape == (chunk.seats, size)
    assert a.bets.dtype == np.int64
    assert np.all(np.diff(a.seat_round) >= 0)
    assert a.seat_start[-1] == chunk.seats
    assert chunk.bets == [tuple(map(int, row)) for row in a.bets]
    assert chunk.dealer[0] == tuple(int(x) for x in a.dealer[0] if x >= 0)


def test_an_upcard_of_two_cards_is_an_input_error(tmp_path: Path) -> None:
    """The Python reader crashed here (an internal error, exit 4); it is an input error naming
    the file, line and field (exit 2)."""
    header = (
        "table_id,round_id,timestamp,dealer,upcard,meter_before,meter_after,events,seat,cards,"
        "decision,ante_bet,raise_bet,progressive_bet,ante_paid,raise_paid,progressive_paid\n"
    )
    row = "T,1,t,As Kd 9c 7h 2s,As Kd,100000,100000,,1,Qs Qh 4c 3d 2h,fold,10,0,0,-10,0,0\n"
    path = tmp_path / "c.csv"
    path.write_text(header + row, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablecert",
            "audit",
            "rounds",
            str(path),
            "--game",
            "caribbean-stud",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert f"{path}:2: upcard: 'As Kd' is more than one card" in done.stderr
