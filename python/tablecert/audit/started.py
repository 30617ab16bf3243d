"""A shuffler audit's logs read from the command's first moment.

``tablecert audit shuffler`` imports NumPy, the battery and SciPy's special functions (about
0.1 s) after it has checked its options; the core reads the logs on a thread of its own
meanwhile (``_core.ShuffleAudit.start_files``) and ``audit_local`` takes what it read, the
batches in order, as if it had read the files itself. Only ``_core`` is imported here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tablecert import _core


@dataclass(frozen=True)
class StartedRead:
    """A core audit reading ``paths`` already, and the settings it was made with: deck, input
    order, batch size, whether it keeps the orders (Mahjong walls)."""

    core: _core.ShuffleAudit
    paths: tuple[Path, ...]
    settings: tuple[str, str, int, bool]


def start_reading(
    paths: Sequence[Path], deck: str, input_order: str, batch_size: int, *, keep_orders: bool
) -> StartedRead:
    """Start the core reading ``paths`` (checked: existing options, distinct paths) for an
    audit of these settings; ``audit_shuffler(..., started=...)`` takes it over."""
    core = _core.ShuffleAudit(deck, input_order, batch_size=batch_size, keep_orders=keep_orders)
    core.start_files([str(p) for p in paths])
    return StartedRead(core, tuple(paths), (deck, input_order, batch_size, keep_orders))
