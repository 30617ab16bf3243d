"""A shuffler audit split into one shard per log file, for a fleet's logs on a cluster.

Each shard reads its file where it runs (the scheduler only ever sees a path) and returns
the core's integer tallies, its batches' batteries and integrity counts; the merge adds the
tallies in file order and runs the battery once on the sum. Each file is one stream: a
device's chain of orders (the "previous" reference, the coupon collection), the batches and
the repeat search start afresh in every file, as when each file is a device's own log. The
answer is the same wherever the shards run, and equals the one-stream audit of the same
files whenever no device spans two files, no order repeats across files and every file
holds whole batches (the fleet layout: one log per device).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablecert import _core
from tablecert.audit.battery import DEFAULT_CONFIDENCE, BatteryResult, Repeats, Tally, run_battery
from tablecert.audit.shuffler.local import stream_file
from tablecert.audit.shuffler.result import Integrity, ShufflerAudit, conclude
from tablecert.distributed import Executor, ShardProgress, largest_first
from tablecert.poker import TieBreakSpec, tie_break_spec
from tablecert.stats import DEFAULT_ALPHA, DealtLaw

BAD_RECORDS_KEPT = 1000
RawTally = dict[str, Any]


@dataclass(frozen=True)
class FileShard:
    """One log file and the core's audit options, as plain values (sent to a worker)."""

    path: str
    deck: str
    input_order: str
    batch_size: int
    game: tuple[int, int, bool, TieBreakSpec] | None  # size, hands, round robin, ties
    law: DealtLaw | None = None
    levels: tuple[float, float] = (DEFAULT_ALPHA, DEFAULT_CONFIDENCE)  # alpha, confidence


@dataclass(frozen=True)
class FileTally:
    """What one shard returns: integer tallies sized by the deck, not by the log, and the
    battery of each of the file's full batches (judged on the worker)."""

    tally: RawTally
    batches: tuple[BatteryResult, ...]
    integrity: Integrity
    repeats: tuple[int, int, int, int, float]


def audit_file(shard: FileShard) -> FileTally:
    """Stream one log through the core on this machine and return its tallies."""
    kwargs: dict[str, Any] = {}
    if shard.game is not None:
        size, hands, round_robin, ties = shard.game
        kwargs = {
            "hand_size": size,
            "hands": hands,
            "round_robin": round_robin,
            "tie_breaks": _core.TieBreaks(*ties),
        }
    core = _core.ShuffleAudit(shard.deck, shard.input_order, batch_size=shard.batch_size, **kwargs)
    stream_file(core, Path(shard.path))
    core.finish()
    alpha, confidence = shard.levels
    batches = tuple(
        run_battery(
            Tally.from_core(shard.deck, raw),
            dealt_law=shard.law,
            alpha=alpha,
            confidence=confidence,
        )
        for raw in core.take_batches()
    )
    return FileTally(
        dict(core.tally()),
        batches,
        Integrity.from_core([shard.path], core),
        core.repeats(),
    )


def merge_tallies(deck: str, raws: Sequence[RawTally]) -> Tally:
    """The sum of several tallies of one deck (every field and table is a count or a sum)."""
    tallies = [Tally.from_core(deck, raw) for raw in raws]
    first = tallies[0]
    return Tally(
        deck,
        sum(t.shuffles for t in tallies),
        sum(t.referenced for t in tallies),
        sum(t.consecutive_pairs for t in tallies),
        sum(t.serial_sum for t in tallies),
        sum(t.serial_sumsq for t in tallies),
        {
            name: np.sum([t.tables[name] for t in tallies], axis=0, dtype=np.int64)
            for name in first.tables
        },
    )


def file_shards(
    paths: Sequence[str | Path],
    deck: str,
    input_order: str,
    batch_size: int,
    core_game: dict[str, Any],
    law: DealtLaw | None = None,
    levels: tuple[float, float] = (DEFAULT_ALPHA, DEFAULT_CONFIDENCE),
) -> list[FileShard]:
    """One shard per file, in the order given."""
    game = None
    if core_game:
        tb = core_game["tie_breaks"]
        game = (
            int(core_game["hand_size"]),
            int(core_game["hands"]),
            bool(core_game["round_robin"]),
            tie_break_spec(tb),
        )
    return [FileShard(str(p), deck, input_order, batch_size, game, law, levels) for p in paths]


def audit_sharded(
    paths: Sequence[str | Path],
    executor: Executor,
    options: tuple[str, str, str | None, int],
    law: DealtLaw | None,
    core_game: dict[str, Any],
    levels: tuple[float, float],
    progress: ShardProgress | None = None,
) -> ShufflerAudit:
    """The shuffler audit with one shard per file on ``executor`` (see the module note);
    ``options`` are (deck, input order, game, batch size), checked by ``audit_setup``.
    Call it through ``audit_shuffler(..., executor=...)``."""
    deck, input_order, game, batch_size = options
    shards = file_shards(paths, deck, input_order, batch_size, core_game, law, levels)
    order = largest_first(paths)
    done: list[FileTally] = executor.map(audit_file, [shards[i] for i in order], progress)
    parts = [done[order.index(i)] for i in range(len(shards))]  # back in file order
    checked = [p.integrity for p in parts]
    events: Counter[str] = Counter()
    for part in checked:
        events.update(dict(part.events))
    integrity = Integrity(
        tuple(str(p) for p in paths),
        sum(p.records for p in checked),
        sum(p.bad_count for p in checked),
        tuple(b for part in checked for b in part.bad_records)[:BAD_RECORDS_KEPT],
        tuple(sorted(events.items())),
        sum(p.records_with_events for p in checked),
        sum(p.without_input for p in checked),
        sum(p.lines for p in checked),
        sum(p.header_lines for p in checked),
        sum(p.blank_lines for p in checked),
        tuple(sorted({d for p in checked for d in p.devices})),
    )
    batches = [b for part in parts for b in part.batches]
    repeats = Repeats(
        sum(p.repeats[0] for p in parts),
        sum(p.repeats[1] for p in parts),
        sum(p.repeats[2] for p in parts),
        sum(p.repeats[3] for p in parts),
        min(p.repeats[4] for p in parts),
    )
    tally = merge_tallies(deck, [p.tally for p in parts])
    return conclude((deck, input_order, game), integrity, tally, batches, repeats, law, levels)
