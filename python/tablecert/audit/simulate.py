"""Simulated shuffler logs in the documented CSV format, from the core's seeded models."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tablecert import _core
from tablecert.errors import AuditError

HEADER = "device_id,timestamp,shuffle_id,output,input\n"
ROWS_PER_CALL = 5_000


def _open_text(path: Path) -> TextIO:
    if path.name.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", compresslevel=6)
    return path.open("w", encoding="utf-8")


def write_log(
    path: str | Path,
    model: str,
    decks: int,
    *,
    deck: str = "cards52",
    seed: int = 0,
    device: str = "SIM-1",
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Write ``decks`` shuffles of a simulated device (gzip if the name ends in .gz). Each
    shuffle's input is the previous output, as a device re-shuffling what was dealt."""
    if decks < 1:
        raise AuditError(f"--shuffles must be at least 1, got {decks}")
    if "," in device:
        raise AuditError(f"device id {device!r} must not contain a comma")
    sim = _core.ShuffleSimulator(model, deck, seed)
    out = Path(path)
    with _open_text(out) as f:
        f.write(HEADER)
        done = 0
        while done < decks:
            n = min(ROWS_PER_CALL, decks - done)
            f.write(sim.csv_rows(n, device, done + 1))
            done += n
            if progress is not None:
                progress(n)
    return out
