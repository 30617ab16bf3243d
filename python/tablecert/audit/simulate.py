"""Simulated shuffler logs in the documented CSV format, from the core's seeded models."""

from __future__ import annotations

import gzip
import io
import shutil
from collections.abc import Callable
from pathlib import Path

from tablecert import _core
from tablecert.audit.battery import DECK_SIZES
from tablecert.errors import AuditError
from tablecert.outputs import atomic_file, check_new_file

HEADER = "device_id,timestamp,shuffle_id,output,input\n"
ROWS_PER_CALL = 5_000


def check_device(device: str) -> str:
    """A device id the log format carries as it is: printable, not blank, no comma or quote."""
    if not device.strip() or not device.isprintable() or any(c in device for c in ',"'):
        raise AuditError(
            f"device id {device!r}: expected printable text without commas, quotes, "
            "line breaks or control characters"
        )
    return device


def _check_room(out: Path, decks: int, deck: str) -> None:
    """Refuse a log that cannot fit on the target's file system (estimated, gzip at about a
    quarter of the plain size), before writing any of it."""
    items = DECK_SIZES[deck][0]
    per_shuffle = 2 * 3 * items + 40  # output and input, about three bytes per code
    estimate = decks * per_shuffle // (4 if out.name.endswith(".gz") else 1)
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
) -> Path:
    """Write ``decks`` shuffles of a simulated device (gzip if the name ends in .gz),
    atomically; an existing file is replaced only with ``replace``. Each shuffle's input is
    the previous output, as a device re-shuffling what was dealt."""
    if decks < 1:
        raise AuditError(f"--shuffles must be at least 1, got {decks}")
    if not 0 <= seed < 2**64:
        raise AuditError(f"seed {seed}: expected a whole number from 0 to 2**64 - 1")
    check_device(device)
    sim = _core.ShuffleSimulator(model, deck, seed)
    out = check_new_file(Path(path), replace=replace, what="log")
    _check_room(out, decks, deck)
    with atomic_file(out, what="log") as raw:
        compressed = (
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0)
            if out.name.endswith(".gz")
            else None
        )
        text = io.TextIOWrapper(compressed or raw, encoding="utf-8", newline="\n")
        try:
            text.write(HEADER)
            done = 0
            while done < decks:
                n = min(ROWS_PER_CALL, decks - done)
                text.write(sim.csv_rows(n, device, done + 1))
                done += n
                if progress is not None:
                    progress(n)
        finally:
            text.detach()  # flushes; the file itself is closed by atomic_file
        if compressed is not None:
            compressed.close()
    return out
