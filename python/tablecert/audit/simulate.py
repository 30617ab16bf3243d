"""Simulated shuffler logs in the documented CSV or JSON Lines format, from the core's seeded
models: the core draws the orders in sequence and formats and compresses them in parallel, a
block of fixed chunks at a time (each chunk one gzip member), so a seed gives the same bytes
whatever the number of threads."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from tablecert import _core
from tablecert.audit.decks import DECK_SIZES
from tablecert.errors import AuditError
from tablecert.io.outputs import atomic_file, check_new_file

HEADER = "device_id,timestamp,shuffle_id,output,input\n"
CHUNK = 4096  # shuffles per chunk, one gzip member each
CHUNKS_PER_CALL = 16  # chunks formatted and compressed in parallel per call into the core
# miniz_oxide's level 1: 92 bytes a 52-card shuffle in 0.9 us of CPU (level 2: 72 bytes in 1.3 us,
# as long as the audit takes to read them; BENCHMARKS.md, "Current figures").
GZIP_LEVEL = 1


def check_device(device: str) -> str:
    """A device id the log format carries as it is: printable, not blank, no comma or quote."""
    if not device.strip() or not device.isprintable() or any(c in device for c in ',"'):
        raise AuditError(
            f"device id {device!r}: expected printable text without commas, quotes, "
            "line breaks or control characters"
        )
    return device


def check_model(model: str, deck: str, seed: int) -> None:
    """A shuffler model the core simulates on ``deck``; an unknown model or parameter raises
    the core's RulesError before anything is written."""
    _core.ShuffleSimulator(model, deck, seed)


def log_format(path: Path) -> str:
    """``jsonl`` if the file name has ``.jsonl`` (``walls.jsonl.gz``), else ``csv``."""
    return "jsonl" if ".jsonl" in path.name else "csv"


def _check_room(out: Path, decks: int, deck: str, gzip_level: int) -> None:
    """Refuse a log that cannot fit on the target's file system (estimated, gzip at about a
    quarter of the plain size, level 0 at the plain size), before writing any of it."""
    items = DECK_SIZES[deck][0]
    # output and input: about three bytes per code in CSV, six in JSON Lines ("As", )
    per_code = 6 if log_format(out) == "jsonl" else 3
    per_shuffle = 2 * per_code * items + 100
    estimate = decks * per_shuffle // (4 if out.name.endswith(".gz") and gzip_level > 0 else 1)
    free = shutil.disk_usage(out.parent).free
    if estimate > free:
        raise AuditError(
            f"--shuffles {decks:,}: the log would take about {estimate:,} bytes, more than the "
            f"{free:,} free in {out.parent}"
        )


def write_log(
    path: str | Path,
    model: str,
    decks: int,
    *,
    deck: str = "cards52",
    seed: int = 0,
    device: str = "SIM-1",
    progress: Callable[[int], None] | None = None,
    replace: bool = False,
    gzip_level: int = GZIP_LEVEL,
) -> Path:
    """Write ``decks`` shuffles of a simulated device (JSON Lines if the name has ``.jsonl``,
    else CSV; gzip if it ends in .gz), atomically; an existing file is replaced only with
    ``replace``; ``gzip_level`` (0 to 9) compresses a ``.gz`` log. Each shuffle's input is the
    previous output, as a device re-shuffling what was dealt."""
    if decks < 1:
        raise AuditError(f"--shuffles must be at least 1, got {decks}")
    if not 0 <= seed < 2**64:
        raise AuditError(f"seed {seed}: expected a whole number from 0 to 2**64 - 1")
    if not 0 <= gzip_level <= 9:
        raise AuditError(f"gzip level {gzip_level}: expected 0 to 9")
    check_device(device)
    out = check_new_file(Path(path), replace=replace, what="log")
    _check_room(out, decks, deck, gzip_level)
    writer = _core.ShuffleLogWriter(
        model,
        deck,
        seed,
        decks,
        device,
        log_format(out),
        gzip=out.name.endswith(".gz"),
        level=gzip_level,
        chunk=CHUNK,
    )
    # Each block is written on a thread of its own while the core makes the next one (both
    # release the GIL); one write at a time, in order.
    with atomic_file(out, what="log") as raw, ThreadPoolExecutor(max_workers=1) as pool:
        written = 0
        writing: Future[int] | None = None
        while block := writer.next_block(CHUNKS_PER_CALL):
            if writing is not None:
                writing.result()
            writing = pool.submit(raw.write, block)
            if progress is not None:
                progress(writer.done - written)
            written = writer.done
        if writing is not None:
            writing.result()
    return out
