"""Reading shuffler logs: formats, compression, the deck checker, and unreadable files."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert import _core
from tablecert.audit import audit_shuffler
from tablecert.audit.battery import Tally
from tablecert.audit.shuffler import stream_file
from tablecert.audit.simulate import write_log
from tablecert.errors import AuditError
from tablecert.stats import DealtLaw
from tests.reference import permutation_reference as ref

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
HEADER = "device_id,timestamp,shuffle_id,output,input\n"


def codes(order: list[int]) -> str:
    return " ".join(_core.card_code(c) for c in order)


def test_sample_logs_in_every_format() -> None:
    csv = audit_shuffler([LOGS / "shuffler-sample.csv"], input_order="logged")
    assert csv.integrity.records == 6
    assert csv.integrity.bad_count == 0
    assert dict(csv.integrity.events) == {"jam": 1}
    assert csv.tally.referenced == 6
    tsv = audit_shuffler([LOGS / "shuffler-sample.tsv"])
    assert (tsv.integrity.records, tsv.integrity.without_input) == (4, 4)
    with pytest.raises(AuditError, match="none of the 4 records logs its input order"):
        audit_shuffler([LOGS / "shuffler-sample.tsv"], input_order="logged")
    jsonl = audit_shuffler([LOGS / "shuffler-sample.jsonl"])
    assert jsonl.integrity.records == 4
    assert dict(jsonl.integrity.events) == {"misfeed": 1}
    # No record logs an input: consecutive shuffles of one device are judged against each other.
    assert jsonl.tally.referenced == 3
    # Too few shuffles to certify anything.
    assert jsonl.reason.startswith("INCONCLUSIVE")


def test_bad_records_are_reported_never_dropped() -> None:
    result = audit_shuffler([LOGS / "shuffler-bad.csv"])
    i = result.integrity
    assert (i.records, i.bad_count) == (2, 5)
    lines = {line: reason for _, line, reason in i.bad_records}
    assert sorted(lines) == [3, 4, 5, 6, 8]
    assert lines[3] == "output order: 51 items, expected 52; missing 8d"
    assert lines[4] == "output order: 52 items, expected 52; duplicated Jsx2; missing 8c"
    assert 'unknown card code "Xs"' in lines[5]
    assert lines[6].startswith("output order: 53 items")
    assert lines[8] == "missing shuffle_id"
    assert dict(i.events) == {"count error": 1}
    assert not result.passed
    assert result.reason == "FAIL (integrity)"


def test_mahjong_walls() -> None:
    r136 = audit_shuffler([LOGS / "mahjong136-sample.jsonl"], "mahjong136")
    assert (r136.integrity.records, r136.integrity.bad_count) == (3, 0)
    assert r136.tally.tables["position"].shape == (34, 136)
    assert r136.tally.tables["position"].sum() == 3 * 136
    r112 = audit_shuffler([LOGS / "mahjong112-sample.csv"], "mahjong112")
    assert (r112.integrity.records, r112.integrity.bad_count) == (3, 0)
    # A 112-tile wall is not a 136-tile wall, and red dragons are not in the simple set.
    wrong = audit_shuffler([LOGS / "mahjong112-sample.csv"], "mahjong136")
    assert wrong.integrity.bad_count == 3
    assert wrong.integrity.bad_records[0][2].startswith("output order: 112 items, expected 136")
    wrong = audit_shuffler([LOGS / "mahjong136-sample.jsonl"], "mahjong112")
    assert "not in the Simple tile set" in wrong.integrity.bad_records[0][2]


def test_gzip_reads_like_plain(tmp_path: Path) -> None:
    plain = LOGS / "shuffler-sample.csv"
    gz = tmp_path / "sample.log"  # recognised by content, not by name
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    a = audit_shuffler([plain], input_order="logged")
    b = audit_shuffler([gz], input_order="logged")
    for name, table in a.tally.tables.items():
        assert np.array_equal(table, b.tally.tables[name]), name


def test_unreadable_files_name_file_and_position(tmp_path: Path) -> None:
    data = gzip.compress((LOGS / "shuffler-sample.csv").read_bytes())
    truncated = tmp_path / "cut.csv.gz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(AuditError, match=r"cut\.csv\.gz: corrupt or truncated gzip"):
        audit_shuffler([truncated])
    corrupt = tmp_path / "bad.csv.gz"
    corrupt.write_bytes(data[:20] + bytes(b ^ 0x5A for b in data[20:60]) + data[60:])
    with pytest.raises(AuditError, match=r"bad\.csv\.gz: corrupt or truncated gzip"):
        audit_shuffler([corrupt])
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    with pytest.raises(AuditError, match=r"empty\.csv: line 0 \(byte 0\): empty file"):
        audit_shuffler([empty])
    header_only = tmp_path / "header.csv"
    header_only.write_text(HEADER)
    with pytest.raises(AuditError, match="no shuffle records"):
        audit_shuffler([header_only])
    utf16 = tmp_path / "utf16.csv"
    utf16.write_bytes((LOGS / "shuffler-sample.csv").read_text().encode("utf-16"))
    with pytest.raises(AuditError, match=r"utf16\.csv: line 1 \(byte 0\): UTF-16"):
        audit_shuffler([utf16])
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes(HEADER.encode() + b"SM-1,2026,1,As Kh \xe9\n")
    with pytest.raises(AuditError, match=r"latin1\.csv: line 2 \(byte 62\): invalid UTF-8"):
        audit_shuffler([latin1])
    with pytest.raises(AuditError, match="cannot open"):
        audit_shuffler([tmp_path / "missing.csv"])


def _tally_of(orders: list[list[int]], inputs: list[list[int]]) -> Tally:
    audit = _core.ShuffleAudit("cards52", "logged")
    audit.begin_file("mem.csv")
    text = HEADER + "".join(
        f"D,{k},{k},{codes(o)},{codes(i)}\n"
        for k, (o, i) in enumerate(zip(orders, inputs, strict=True))
    )
    audit.feed(text.encode())
    audit.end_file()
    audit.finish()
    return Tally.from_core("cards52", audit.tally())


perms = st.permutations(list(range(52)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(perms, perms), min_size=2, max_size=4))
def test_core_tallies_match_reference(decks: list[tuple[list[int], list[int]]]) -> None:
    """Every per-shuffle statistic the core tallies, against the slow reference."""
    orders = [list(o) for o, _ in decks]
    inputs = [list(i) for _, i in decks]
    t = _tally_of(orders, inputs)
    rels = []
    for o, i in zip(orders, inputs, strict=True):
        where = {c: k for k, c in enumerate(i)}
        rels.append([where[c] for c in o])

    def hist(values: list[int], length: int) -> list[int]:
        return [values.count(v) for v in range(length)]

    tb = t.tables
    assert list(tb["rising"]) == hist([ref.rising_sequences(r) for r in rels], 53)
    assert list(tb["fixed"]) == hist([ref.fixed_points(r) for r in rels], 53)
    assert list(tb["successions"]) == hist([ref.successions(r) for r in rels], 53)
    assert list(tb["valleys"]) == hist([ref.valleys(r) for r in rels], 53)
    assert list(tb["footrule"]) == hist([ref.footrule(r) for r in rels], len(tb["footrule"]))
    assert list(tb["guesses"]) == hist([valley_guesses(r) for r in rels], 53)
    assert list(tb["runs"]) == hist([ref.descents(o) + 1 for o in orders], 53)
    assert t.serial_sum == sum(ref.serial(o) for o in orders)
    assert t.serial_sumsq == sum(ref.serial(o) ** 2 for o in orders)
    for pos in range(52):
        digits = [ref.lehmer(o)[pos] for o in orders]
        assert list(tb["lehmer"][pos]) == hist(digits, 52)
    for o in orders:
        for p, c in enumerate(o):
            assert tb["position"][c, p] >= 1
    assert tb["successor"].sum() == 51 * len(orders)
    assert tb["consecutive"].sum() == 52 * (len(orders) - 1)
    assert t.consecutive_pairs == len(orders) - 1


def valley_guesses(rel: list[int]) -> int:
    """The valley-following guesser, written plainly."""
    unseen = set(range(len(rel)))
    guess, correct, previous = 0, 0, None
    for a in rel:
        correct += a == guess
        unseen.discard(a)
        if not unseen:
            break
        above = [x for x in unseen if x > a]
        below = [x for x in unseen if x < a]
        up = previous is None or a > previous
        guess = min(above) if (up and above) or not below else max(below)
        previous = a
    return correct


def test_coupon_collector_counts_each_device() -> None:
    """A device showing each card on top once in 52 shuffles completes one collection of 52;
    another device's shuffles in between do not count towards it."""
    base = list(range(52))
    orders, devices = [], []
    for k in range(52):
        orders.append(base[k:] + base[:k])
        devices.append("A")
        orders.append(base)
        devices.append("B")
    audit = _core.ShuffleAudit("cards52", "none")
    audit.begin_file("coupon.csv")
    text = "device_id,timestamp,shuffle_id,output\n" + "".join(
        f"{d},{k},{k},{codes(o)}\n" for k, (d, o) in enumerate(zip(devices, orders, strict=True))
    )
    audit.feed(text.encode())
    audit.end_file()
    audit.finish()
    coupon = Tally.from_core("cards52", audit.tally()).tables["coupon"]
    assert coupon[52] == 1
    assert coupon.sum() == 1
    # The devices whose records were read, for the report's identification.
    assert audit.device_ids() == ["A", "B"]


def test_stream_file_progress(tmp_path: Path) -> None:
    rng = random.Random(5)
    deck = list(range(52))
    lines = []
    for k in range(300):
        rng.shuffle(deck)
        lines.append(f"D,{k},{k},{codes(deck)},\n")
    path = tmp_path / "big.csv"
    path.write_text(HEADER + "".join(lines))
    seen: list[tuple[int, int]] = []
    audit = _core.ShuffleAudit("cards52")
    stream_file(audit, path, lambda done, size: seen.append((done, size)))
    assert audit.records == 300
    assert seen[-1] == (path.stat().st_size, path.stat().st_size)


class FirstTileDealer:
    """A stand-in for the mahjong engine: four hands of 13 from the wall's front; category 1
    when a hand's first tile is an honour (28 of 136 tiles)."""

    law = DealtLaw(
        ("East", "South", "West", "North"),
        ("suited first tile", "honour first tile"),
        (Fraction(108, 136), Fraction(28, 136)),
    )

    def deal(self, wall: Sequence[int]) -> Sequence[Sequence[int]]:
        return [wall[13 * h : 13 * h + 13] for h in range(4)]

    def category(self, hand: Sequence[int]) -> int:
        return int(hand[0] >= 27)


def test_wall_dealer_hook(tmp_path: Path) -> None:
    log = write_log(tmp_path / "walls.csv.gz", "fair", 400, deck="mahjong136", seed=3)
    result = audit_shuffler([log], "mahjong136", wall_dealer=FirstTileDealer())
    dealt = next(t for t in result.battery.tests if t.key == "dealt")
    assert dealt.p_value is not None
    assert "4 hands tested" in dealt.detail
    with pytest.raises(AuditError, match="wall dealer deals mahjong walls"):
        audit_shuffler([LOGS / "shuffler-sample.csv"], wall_dealer=FirstTileDealer())


def _mixed_log(shuffles: int, jsonl: bool = False) -> bytes:
    """Shuffles of two simulated devices with logged inputs, blank lines and bad records."""
    sims = [_core.ShuffleSimulator("riffle:3", seed=s) for s in (1, 2)]
    last = [list(range(52)), list(range(52))]
    rows = []
    for k in range(shuffles):
        d = k % 2
        out = list(sims[d].orders(1))
        bad = "Zz " if k % 37 == 0 else ""  # a bad record: its device's chain breaks
        if jsonl:
            rows.append(
                f'{{"device_id": "D{d}", "timestamp": {k}, "shuffle_id": {k}, '
                f'"output": "{bad}{codes(out)}", "input": "{codes(last[d])}"}}'
            )
        else:
            rows.append(f"D{d},{k},{k},{bad}{codes(out)},{codes(last[d])}")
        last[d] = out
    for k in range(5, shuffles, 53):
        rows[k] = " \t"  # a blank line
    return ("" if jsonl else HEADER).encode() + "\n".join(rows).encode() + b"\n"


def _members(data: bytes, cuts: Sequence[int]) -> bytes:
    """gzip members cut at the given offsets (mid-line), as one file."""
    bounds = [0, *cuts, len(data)]
    return b"".join(gzip.compress(data[a:b], mtime=0) for a, b in itertools.pairwise(bounds))


def test_read_in_the_core_whatever_the_threads(tmp_path: Path) -> None:
    """Read in the core (decompressed on one thread, parsed and tallied on the others), a gzip
    log of members cut mid-line gives the same audit with 1 and 2 threads, and the same as the
    plain text fed in small chunks."""
    data = _mixed_log(2500)
    log = tmp_path / "mixed.csv.gz"
    log.write_bytes(_members(data, [7, 1000, len(data) // 2 + 3]))
    args = ["audit", "shuffler", str(log), "--json", "--input-order", "logged"]
    args += ["--game", "caribbean-stud", "--seats", "6", "--batch-size", "97"]
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        proc = subprocess.run(
            [sys.executable, "-m", "tablecert", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 1, proc.stderr  # bad records: integrity fails
        outputs.append(json.loads(proc.stdout))
    assert outputs[0] == outputs[1]
    integrity = outputs[0]["integrity"]
    assert integrity["bad_count"] == len(range(0, 2500, 37)) - len(
        set(range(0, 2500, 37)) & set(range(5, 2500, 53))
    )
    assert integrity["blank_lines"] == len(range(5, 2500, 53))
    assert integrity["lines"] == 2501
    # CSV and JSON Lines: the same tallies as the plain text fed to the core in chunks that
    # cut lines anywhere.
    for jsonl in (False, True):
        data = _mixed_log(2500, jsonl)
        log.write_bytes(_members(data, [7, 1000, len(data) // 2 + 3]))
        fed = _core.ShuffleAudit("cards52", "logged", batch_size=97)
        fed.begin_file("mixed.csv")
        for k in range(0, len(data), 1001):
            fed.feed(data[k : k + 1001])
        fed.end_file()
        fed.finish()
        read = _core.ShuffleAudit("cards52", "logged", batch_size=97)
        read.read_file(str(log))
        read.finish()
        assert read.records == 2500 - len(range(0, 2500, 37)) - len(range(5, 2500, 53)) + len(
            set(range(0, 2500, 37)) & set(range(5, 2500, 53))
        )
        assert fed.tally() == read.tally()
        assert fed.take_batches() == read.take_batches()
        assert [r[1:] for r in fed.bad_records()] == [r[1:] for r in read.bad_records()]
        assert read.bad_records()[0] == (str(log), 2 - jsonl, fed.bad_records()[0][2])
        assert fed.repeats() == read.repeats()
