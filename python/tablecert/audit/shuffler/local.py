"""The shuffler audit in one process: every log streamed through the core's reader and
tallies as one stream, the battery run on each full batch as it completes, Mahjong walls dealt
and tallied from the kept orders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tablecert import _core
from tablecert.audit.battery import BatteryResult, Repeats, Tally, run_battery
from tablecert.audit.dealing import WallDealer, tally_walls
from tablecert.audit.shuffler.result import Integrity, ShufflerAudit, conclude
from tablecert.errors import AuditError, LogError
from tablecert.stats import CheckResult, DealtLaw, dealt_outcomes

if TYPE_CHECKING:
    from tablecert.audit.started import StartedRead

Progress = Callable[[int, int], None]
"""Called with (bytes read of the current file, its size on disk; 0 for a pipe)."""


def stream_file(
    audit: _core.ShuffleAudit,
    path: Path,
    progress: Progress | None = None,
    on_batches: Callable[[list[dict[str, object]], bytes], None] | None = None,
) -> None:
    """Read one log through the core (plain or gzip, a FIFO too): decompressed on one thread,
    parsed and tallied on the others. After each group of lines ``on_batches`` gets the batches
    completed and the orders kept since the last call, then ``progress`` the bytes read.
    Unreadable files raise AuditError."""
    try:
        audit.read_file(str(path), progress, on_batches)
    except LogError as exc:
        raise AuditError(str(exc)) from None


def audit_local(
    paths: Sequence[str | Path],
    what: tuple[str, str, str | None],
    batch_size: int,
    law: DealtLaw | None,
    core_kwargs: dict[str, Any],
    levels: tuple[float, float],
    wall_dealer: WallDealer | None,
    progress: Progress | None = None,
    on_file: Callable[[Path], None] | None = None,
    started: StartedRead | None = None,
) -> ShufflerAudit:
    """The shuffler audit in this process, in one streaming pass over ``paths`` (checked by
    ``audit_setup``); ``what`` is (deck, input order, game), ``levels`` (alpha, confidence);
    ``started``: the core already reading ``paths`` for these settings. Call it through
    ``audit_shuffler``."""
    deck, input_order = what[0], what[1]
    alpha, confidence = levels
    settings = (deck, input_order, batch_size, wall_dealer is not None)
    if started is None:
        core = _core.ShuffleAudit(
            deck,
            input_order,
            batch_size=batch_size,
            keep_orders=settings[3],
            **core_kwargs,
        )
    elif (
        started.settings != settings
        or core_kwargs
        or started.paths != tuple(Path(p) for p in paths)
    ):
        raise RuntimeError(  # the caller's mistake, not the input's: an internal error
            f"the started read ({started.settings}, {len(started.paths)} file(s)) is not this "
            f"audit's ({settings}, {len(paths)} file(s), game {what[2]})"
        )
    else:
        core = started.core
    batches: list[BatteryResult] = []
    wall_table = (
        np.zeros((len(wall_dealer.law.hand_names), len(wall_dealer.law.categories)), np.int64)
        if wall_dealer is not None
        else None
    )

    def drain(raws: list[dict[str, object]], orders: bytes) -> None:
        for raw in raws:
            batches.append(
                run_battery(
                    Tally.from_core(deck, raw), dealt_law=law, alpha=alpha, confidence=confidence
                )
            )
        if wall_dealer is not None and wall_table is not None:
            tally_walls(wall_dealer, orders, deck, wall_table)

    for p in paths:
        path = Path(p)
        if on_file is not None:
            on_file(path)
        stream_file(core, path, progress, drain)
    core.finish()
    drain(core.take_batches(), core.take_orders())
    tally = Tally.from_core(deck, core.tally())
    integrity = Integrity.from_core(paths, core)
    extra: list[CheckResult] = []
    if wall_dealer is not None and wall_table is not None:
        extra.append(dealt_outcomes(wall_table, wall_dealer.law))
    return conclude(
        what,
        integrity,
        tally,
        batches,
        Repeats(*core.repeats()),
        law,
        levels,
        extra,
    )
