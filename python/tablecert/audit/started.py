"""A shuffler audit's logs read from the command's first moment.

``tablecert audit shuffler`` imports NumPy, the battery and SciPy's special functions (about
0.1 s) after it has checked its options; the core reads the logs on a thread of its own
meanwhile (``_core.ShuffleAudit.start_files``) and ``audit_local`` takes what it read, the
batches in order, as if it had read the files itself.

Before that, the ``tablecert`` script (``tablecert.entry``) offers a read started before the
command line is even imported (:func:`start_from_arguments`: Typer, Rich and the CLI take
0.1-0.2 s of one core, while the other is idle); the command's :func:`start_reading` takes it
when it is the read the command would start, and drops it otherwise. Only ``_core`` and the
option names are imported here."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tablecert import _core
from tablecert.audit import options
from tablecert.audit.decks import DECK_SIZES

COMMAND = ("audit", "shuffler")
"""The command whose reads the script starts before the command line is imported."""
EARLY_OPTIONS: dict[str, bool] = {
    "--json": False,
    "--deck": True,
    "--input-order": True,
    "--wall-statistic": True,
    "--batch-size": True,
    "--alpha": True,
    "--confidence": True,
}
"""The options of ``audit shuffler`` an early start reads past, by whether each takes a value
(``tests/audit/test_audit_started.py`` checks them against the command's own). Any other
option (``--game``, ``--cluster``, ``--svg-dir``, ``--help`` ...) means no early start."""

_offered: StartedRead | None = None


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
    audit of these settings; ``audit_shuffler(..., started=...)`` takes it over. The read the
    script started early is taken when it is this one; otherwise it is dropped (its thread
    stops after the group it is reading: it only ever reads regular files, which the new read
    reads again from their start)."""
    global _offered  # one offer per process, taken or dropped once
    offered, _offered = _offered, None
    settings = (deck, input_order, batch_size, keep_orders)
    if offered is not None and offered.paths == tuple(paths) and offered.settings == settings:
        return offered
    return _start(tuple(paths), settings)


def _start(paths: tuple[Path, ...], settings: tuple[str, str, int, bool]) -> StartedRead:
    deck, input_order, batch_size, keep_orders = settings
    core = _core.ShuffleAudit(deck, input_order, batch_size=batch_size, keep_orders=keep_orders)
    core.start_files([str(p) for p in paths])
    return StartedRead(core, paths, settings)


def early_read(arguments: Sequence[str]) -> tuple[tuple[Path, ...], tuple[str, str, int, bool]]:
    """The logs and settings ``tablecert audit shuffler ARGUMENTS`` reads, when the arguments
    are plain enough to tell without the command line: only the options of
    :data:`EARLY_OPTIONS` (as ``--name value`` or ``--name=value``), valid deck, input order,
    wall statistic and batch size, and logs that are regular files (never a pipe: a dropped
    read would have taken its bytes). Otherwise a ``ValueError``: the command starts its own
    read, and reports what is wrong with them."""
    values: dict[str, str] = {}
    logs: list[Path] = []
    rest = iter(arguments)
    for token in rest:
        if not token.startswith("-"):
            logs.append(Path(token))
            continue
        name, equals, value = token.partition("=")
        takes_value = EARLY_OPTIONS.get(name)
        if takes_value is None or (not takes_value and equals):
            raise ValueError(f"{token}: not an option an early start reads past")
        if takes_value and not equals:
            following = next(rest, None)
            if following is None:
                raise ValueError(f"{name} without a value")
            value = following
        values[name] = value
    deck = values.get("--deck", options.DEFAULT_DECK)
    input_order = values.get("--input-order", options.DEFAULT_INPUT_ORDER)
    statistic = values.get("--wall-statistic", options.DEFAULT_WALL_STATISTIC)
    batch_size = int(values.get("--batch-size", options.DEFAULT_BATCH))
    if deck not in DECK_SIZES or input_order not in options.INPUT_ORDERS:
        raise ValueError("not a deck and input order the command takes")
    if statistic not in (*options.STATISTICS, "none") or not 1 <= batch_size < 2**63:
        raise ValueError("not a wall statistic and batch size the command takes")
    if not logs:
        raise ValueError("no log")
    for log in logs:
        try:
            regular = stat.S_ISREG(os.stat(log).st_mode)
        except OSError as exc:
            raise ValueError(f"{log}: {exc.strerror}") from None
        if not regular:
            raise ValueError(f"{log}: not a regular file")
    return tuple(logs), (deck, input_order, batch_size, options.keeps_orders(deck, statistic))


def start_from_arguments(arguments: Sequence[str]) -> None:
    """Offer the read that ``tablecert ARGUMENTS`` will start, started now, when the arguments
    are ``audit shuffler`` with plain options (:func:`early_read`); else do nothing."""
    global _offered  # one offer per process, taken or dropped once
    if tuple(arguments[: len(COMMAND)]) != COMMAND:
        return
    try:
        paths, settings = early_read(arguments[len(COMMAND) :])
        _offered = _start(paths, settings)
    except (ValueError, RuntimeError):  # no early start: the command starts its own read
        return
