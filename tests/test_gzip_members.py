"""A gzip log of several members is decoded on several threads (rust/logs/members.rs) with the
bytes of the sequential decoder: the audit of such a log, false member starts planted in it, is
the audit of its plain text, for shuffler logs and for round logs."""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np

from tablecert import _core
from tablecert.rounds.log import read_rounds

ROUNDS = Path(__file__).parent.parent / "fixtures" / "rounds"
HEADER = "device_id,timestamp,shuffle_id,output,input\n"
RANKS = "23456789TJQKA"


def _codes(order: list[int]) -> str:
    return " ".join(RANKS[c % 13] + "cdhs"[c // 13] for c in order)


def _log(shuffles: int) -> bytes:
    sim = _core.ShuffleSimulator("riffle:3", seed=5)
    last = list(range(52))
    rows = []
    for k in range(shuffles):
        out = list(sim.orders(1))
        rows.append(f"D0,{k},{k},{_codes(out)},{_codes(last)}\n")
        last = out
    return (HEADER + "".join(rows)).encode()


def _with_extra(data: bytes, extra: bytes) -> bytes:
    """A gzip member by hand whose header's extra field (FEXTRA) holds `extra`."""
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = deflate.compress(data) + deflate.flush()
    head = b"\x1f\x8b\x08\x04" + b"\0\0\0\0" + b"\0\xff" + struct.pack("<H", len(extra))
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return head + extra + body + trailer


def test_members_decoded_in_parallel_read_as_the_plain_text(tmp_path: Path) -> None:
    data = _log(3000)
    lines = data.splitlines(keepends=True)
    # A whole member of a valid record of another device: counted if it were ever accepted.
    fake = gzip.compress(f"D9,1,1,{_codes(list(range(52)))},{_codes(list(range(52)))}\n".encode())
    parts = [b"".join(lines[a : a + 250]) for a in range(0, len(lines), 250)]
    members = []
    for k, part in enumerate(parts):
        if k % 3 == 1:
            members.append(_with_extra(part, fake))
        else:
            members.append(gzip.compress(part, mtime=0))
        if k % 4 == 0:
            members.append(gzip.compress(b"", mtime=0))  # a member of 0 bytes
    log = tmp_path / "members.csv.gz"
    log.write_bytes(b"".join(members))
    assert fake in log.read_bytes()
    fed = _core.ShuffleAudit("cards52", "logged", batch_size=97)
    fed.begin_file("members.csv")
    fed.feed(data)
    fed.end_file()
    fed.finish()
    read = _core.ShuffleAudit("cards52", "logged", batch_size=97)
    read.read_file(str(log))
    read.finish()
    assert read.records == fed.records == 3000
    assert read.device_ids() == ["D0"]
    assert fed.tally() == read.tally()
    assert fed.take_batches() == read.take_batches()


def test_round_log_members_read_as_the_plain_text(tmp_path: Path) -> None:
    """The round reader (its own parsing thread, the same member decoder) reads a gzip log of
    members cut mid-line, false starts planted, as it reads the plain text."""
    header, *rows = (ROUNDS / "q-poker-clean.csv").read_text(encoding="utf-8").splitlines()
    copies = [f"C{k}{row}" for k in range(40) for row in rows]
    data = (header + "\n" + "\n".join(copies) + "\n").encode()
    fake = gzip.compress(f"X{rows[0]}\n".encode())  # a round of a table not in the log
    cuts = range(0, len(data), 40_003)
    members = [
        _with_extra(data[a : a + 40_003], fake) if k % 2 else gzip.compress(data[a : a + 40_003])
        for k, a in enumerate(cuts)
    ]
    plain = tmp_path / "rounds.csv"
    plain.write_bytes(data)
    gz = tmp_path / "rounds.csv.gz"
    gz.write_bytes(b"".join(members))
    want = list(read_rounds(plain, "q-poker"))
    got = list(read_rounds(gz, "q-poker"))
    assert sum(len(c) for c in got) == sum(len(c) for c in want) > 1000
    for a, b in zip(want, got, strict=True):
        assert (a.table_id, a.round_id, a.timestamp, a.events) == (
            b.table_id,
            b.round_id,
            b.timestamp,
            b.events,
        )
        for name in vars(a.arrays):
            assert np.array_equal(getattr(a.arrays, name), getattr(b.arrays, name)), name
