"""Simulated shuffler logs made in the core: the seeded deck sequence, the formats (CSV and JSON
Lines, plain and gzip), bytes independent of the thread count and of the blocks asked for, and
the in-memory path of the power and calibration runs against the text path."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablecert import _core
from tablecert.audit import audit_shuffler
from tablecert.audit import simulate as simulate_module
from tablecert.audit.battery import Tally
from tablecert.audit.power import simulated_battery
from tablecert.audit.shuffler import stream_file
from tablecert.audit.simulate import HEADER, write_log
from tablecert.cli import app
from tablecert.errors import AuditError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MODELS = (
    "fair",
    "riffle:3",
    "shelf:10",
    "overhand:5",
    "modulo:8",
    "off-by-one",
    "short-period:40",
    "stuck:300",
)


def gzip_members(data: bytes) -> int:
    """How many gzip members ``data`` holds (each read to its end)."""
    count = 0
    while data:
        member = zlib.decompressobj(31)
        member.decompress(data)
        assert member.eof, "a truncated member"
        data = member.unused_data
        count += 1
    return count


@pytest.mark.parametrize(
    ("name", "deck", "seed", "device", "shuffles"),
    [
        ("shuffler-fair-52-small", "cards52", 7, "SIM-QP-2", 2_000),
        ("shuffler-fair-52", "cards52", 20261129, "SIM-QP-1", 20_000),
        ("mahjong-fair-136", "mahjong136", 20261129, "SIM-MJ-1", 2_000),
    ],
)
def test_seeded_sequence_is_the_one_of_the_fixtures(
    name: str, deck: str, seed: int, device: str, shuffles: int
) -> None:
    """The committed fixture logs were written by the simulator (scripts/make-fixture-logs.sh)
    with the Python writer before the core wrote logs: the core's writer draws the same decks
    and writes the same text, byte for byte once decompressed."""
    fixture = FIXTURES / "logs" / f"{name}.csv.gz"
    writer = _core.ShuffleLogWriter("fair", deck, seed, shuffles, device)
    text = b"".join(iter(lambda: writer.next_block(3), b""))
    assert text == gzip.decompress(fixture.read_bytes())
    assert writer.done == shuffles


@pytest.mark.parametrize("deck", ["cards52", "mahjong136"])
def test_chunks_change_the_members_not_the_text(deck: str) -> None:
    def made(chunk: int, chunks: int) -> bytes:
        writer = _core.ShuffleLogWriter("riffle:2", deck, 5, 50, "SIM-1", gzip=True, chunk=chunk)
        return b"".join(iter(lambda: writer.next_block(chunks), b""))

    one_member = made(50, 1)
    assert gzip_members(one_member) == 1
    assert gzip_members(made(7, 1)) == 8  # 50 shuffles in chunks of 7
    assert gzip_members(made(1, 4)) == 50
    text = gzip.decompress(one_member)
    assert text.startswith(HEADER.encode())
    assert text.count(b"\n") == 51
    for chunk, chunks in ((7, 1), (7, 3), (1, 4), (4096, 2)):
        assert gzip.decompress(made(chunk, chunks)) == text, (chunk, chunks)
    # how many chunks each call asks for never changes a byte
    assert made(7, 1) == made(7, 3) == made(7, 100)


def _write_in_subprocess(out: Path, threads: int, chunks_per_call: int) -> bytes:
    code = (
        "import sys; from tablecert.audit import simulate as s; "
        f"s.CHUNKS_PER_CALL = {chunks_per_call}; s.CHUNK = 64; "
        f"s.write_log(sys.argv[1], 'fair', 1000, seed=3)"
    )
    env = {**os.environ, "RAYON_NUM_THREADS": str(threads)}
    subprocess.run([sys.executable, "-c", code, str(out)], check=True, env=env)
    return out.read_bytes()


def test_log_bytes_do_not_depend_on_threads_or_blocks(tmp_path: Path) -> None:
    one = _write_in_subprocess(tmp_path / "t1.csv.gz", threads=1, chunks_per_call=1)
    two = _write_in_subprocess(tmp_path / "t2.csv.gz", threads=2, chunks_per_call=5)
    three = _write_in_subprocess(tmp_path / "t3.csv.gz", threads=3, chunks_per_call=16)
    assert one == two == three
    assert gzip_members(one) == 16  # 1,000 shuffles in chunks of 64, compressed in parallel
    text = gzip.decompress(one).decode()
    assert text.count("\n") == 1_001
    assert text.splitlines()[-1].startswith("SIM-1,1767255600,1000,")


@pytest.mark.parametrize("deck", ["cards52", "mahjong136"])
def test_json_lines_log_is_read_back_as_the_csv_log(tmp_path: Path, deck: str) -> None:
    csv_log = write_log(tmp_path / "log.csv", "riffle:1", 300, deck=deck, seed=2)
    jsonl_log = write_log(tmp_path / "log.jsonl.gz", "riffle:1", 300, deck=deck, seed=2)
    csv_lines = csv_log.read_text().splitlines()
    json_lines = gzip.decompress(jsonl_log.read_bytes()).decode().splitlines()
    assert len(json_lines) == 300
    assert len(csv_lines) == 301
    for row, line in zip(csv_lines[1:], json_lines, strict=True):
        record = json.loads(line)
        assert list(record) == ["device_id", "timestamp", "shuffle_id", "output", "input"]
        device, timestamp, shuffle_id, output, order_in = row.split(",")
        assert record["device_id"] == device == "SIM-1"
        assert record["timestamp"] == int(timestamp) == 1_767_225_600 + 30 * record["shuffle_id"]
        assert record["shuffle_id"] == int(shuffle_id)
        assert record["output"] == output.split()
        assert record["input"] == order_in.split()
    a = audit_shuffler([csv_log], deck, input_order="logged", wall_statistic=None)
    b = audit_shuffler([jsonl_log], deck, input_order="logged", wall_statistic=None)
    assert a.integrity.records == b.integrity.records == 300
    assert a.integrity.bad_count == b.integrity.bad_count == 0
    assert a.tally == b.tally
    assert a.battery.verdict == b.battery.verdict == "fail"  # one riffle: far from random


def test_device_ids_are_escaped_in_json_and_refused_when_unreadable(tmp_path: Path) -> None:
    log = write_log(tmp_path / "odd.jsonl", "fair", 2, device="lab\\7 台")
    first = json.loads(log.read_text().splitlines()[0])
    assert first["device_id"] == "lab\\7 台"
    with pytest.raises(_core.RulesError, match="device id"):
        _core.ShuffleLogWriter("fair", "cards52", 0, 1, "a,b")
    with pytest.raises(_core.RulesError, match="log format"):
        _core.ShuffleLogWriter("fair", "cards52", 0, 1, "A", format="xml")


def _text_path(tmp_path: Path, model: str, deck: str, decks: int, seed: int, order: str) -> Tally:
    log = write_log(tmp_path / f"{model.replace(':', '-')}-{deck}.csv.gz", model, decks, deck=deck,
                    seed=seed, replace=True)  # fmt: skip
    core = _core.ShuffleAudit(deck, order)  # the tallies only: "previous" on a log with inputs
    stream_file(core, log)  # is refused by the audit, but its tally is what is compared here
    core.finish()
    assert (core.records, core.bad_count) == (decks, 0)
    return Tally.from_core(deck, core.tally())


@pytest.mark.parametrize("model", MODELS)
def test_in_memory_path_equals_the_text_path(tmp_path: Path, model: str) -> None:
    """The power tables and calibration runs tally the simulator's orders directly
    (``ShuffleAudit.add_simulated``): the tallies, repeats and verdict equal those of writing
    the log and auditing it, for every model, both deck kinds and both input orders."""
    for deck, decks in (("cards52", 400), ("mahjong136", 150)):
        for order in ("logged", "previous"):
            audit = _core.ShuffleAudit(deck, order)
            audit.add_simulated(model, decks, 17)
            audit.finish()
            direct = Tally.from_core(deck, audit.tally())
            assert direct == _text_path(tmp_path, model, deck, decks, 17, order), (deck, order)
    in_memory = simulated_battery(model, 400, 17)
    log = tmp_path / f"{model.replace(':', '-')}-cards52.csv.gz"  # written above (logged)
    from_text = audit_shuffler([log], input_order="logged")
    assert in_memory.verdict == from_text.battery.verdict
    assert in_memory.p_values() == from_text.battery.p_values()
    assert in_memory.rejected == from_text.battery.rejected


def test_progress_counts_every_shuffle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulate_module, "CHUNK", 10)
    monkeypatch.setattr(simulate_module, "CHUNKS_PER_CALL", 3)
    steps: list[int] = []
    write_log(tmp_path / "p.csv.gz", "fair", 95, progress=steps.append)
    assert steps == [30, 30, 30, 5]


def test_cli_writes_json_lines_that_its_audit_passes(tmp_path: Path) -> None:
    runner = CliRunner()
    log = tmp_path / "walls.jsonl.gz"
    args = ["simulate", "shuffler", "--model", "fair", "--shuffles", "400", "--seed", "4"]
    made = runner.invoke(app, [*args, "--deck", "mahjong136", "-o", str(log)])
    assert made.exit_code == 0, made.output
    assert json.loads(gzip.decompress(log.read_bytes()).splitlines()[399])["shuffle_id"] == 400
    again = runner.invoke(app, [*args, "--deck", "mahjong136", "-o", str(log)])
    assert again.exit_code == 2  # never overwritten without --force
    audit = ["audit", "shuffler", str(log), "--deck", "mahjong136", "--input-order", "logged"]
    judged = runner.invoke(app, [*audit, "--json"])
    assert judged.exit_code == 0, judged.output
    assert json.loads(judged.stdout)["verdict"] == "pass"


def test_gzip_level_changes_the_size_not_the_text(tmp_path: Path) -> None:
    """`--gzip-level`: the default (1) and 2 compress the same text, 2 smaller; a level outside
    0..9 is a usage error (exit 2) before any file is made, and refused by `write_log` too."""
    runner = CliRunner()
    args = ["simulate", "shuffler", "--model", "fair", "--shuffles", "3000", "--seed", "9"]
    sizes = {}
    texts = set()
    for level in (None, "1", "2", "0"):
        log = tmp_path / f"fair-{level}.csv.gz"
        given = [] if level is None else ["--gzip-level", level]
        made = runner.invoke(app, [*args, *given, "-o", str(log)])
        assert made.exit_code == 0, made.output
        sizes[level] = log.stat().st_size
        texts.add(gzip.decompress(log.read_bytes()))
    assert len(texts) == 1
    assert sizes[None] == sizes["1"]
    assert sizes["2"] < sizes["1"] < sizes["0"]
    for bad in ("10", "-1", "one"):
        log = tmp_path / f"bad-{bad}.csv.gz"
        refused = runner.invoke(app, [*args, "--gzip-level", bad, "-o", str(log)])
        assert refused.exit_code == 2, refused.output
        assert not log.exists()
    with pytest.raises(AuditError, match="gzip level 10: expected 0 to 9"):
        write_log(tmp_path / "api.csv.gz", "fair", 10, gzip_level=10)
    assert not (tmp_path / "api.csv.gz").exists()


def test_a_log_that_would_not_fit_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room check estimates a gzip log at a quarter of its text (412 bytes a CSV shuffle of
    52 cards), and a level-0 one (stored, not compressed) at the whole text."""
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=200_000))
    write_log(tmp_path / "fits.csv.gz", "fair", 1000, gzip_level=1)
    for name, level in (("stored.csv.gz", 0), ("plain.csv", 1)):
        with pytest.raises(AuditError, match="about 412,000 bytes, more than the 200,000 free"):
            write_log(tmp_path / name, "fair", 1000, gzip_level=level)
        assert not (tmp_path / name).exists()
