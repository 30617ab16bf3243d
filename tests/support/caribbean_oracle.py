"""Today's dedicated Caribbean Stud engine, kept only as the oracle of the generic one.

``tablecert.games.caribbean_stud`` runs on the generic stud engine (``_core.stud_analyze``);
the dedicated core (``_testing.caribbean_analyze``) and its upcard-range shards stay to check it:
category rows, margins and the decision table equal, bit for bit (tests/games/
test_caribbean_on_the_generic_engine.py), and the shard machinery's own tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from tablecert import _core
from tablecert._core import _testing
from tablecert.distributed import split_range
from tablecert.games.caribbean_stud import HANDS, CategoryLine, Payouts, Rows
from tablecert.games.common import AnalysisError, common_denominator, qualifier_ranks
from tablecert.poker import Ordering, TieBreakSpec, tie_break_spec


@dataclass(frozen=True)
class UpcardShard:
    """One shard of the analysis: the situations whose dealer upcard is a card id in
    ``upcards`` (first, end) and whose player hand is in part ``part`` (k, n) of the core's
    cut of the hands into n parts of about equal work. Picklable values only, so it travels
    to any worker."""

    tie_breaks: TieBreakSpec
    qualifier: tuple[int, ...]
    payouts: _testing.CaribbeanPayouts
    upcards: tuple[int, int]
    part: tuple[int, int] = (0, 1)


def _core_payouts(order: Ordering, p: Payouts) -> tuple[_testing.CaribbeanPayouts, list[int]]:
    """The payouts as integer numerators over their common denominator, and the qualifier."""
    den = common_denominator([p.fold, p.not_qualifying, p.tie, p.loss, *p.win])
    payouts = _testing.CaribbeanPayouts(
        fold=int(p.fold * den),
        not_qualifying=int(p.not_qualifying * den),
        win=[int(w * den) for w in p.win],
        tie=int(p.tie * den),
        loss=int(p.loss * den),
        win_floor=int(min(p.win) * den),
    )
    return payouts, qualifier_ranks(order.rules, "play.dealer_qualifier")


CoreArgs = tuple[_core.TieBreaks, list[int], _testing.CaribbeanPayouts]


def _core_args(shard: UpcardShard) -> CoreArgs:
    """``_testing.caribbean_analyze``'s leading arguments for a shard."""
    return (_core.TieBreaks(*shard.tie_breaks), list(shard.qualifier), shard.payouts)


def upcard_shards(order: Ordering, p: Payouts, shards: int) -> list[UpcardShard]:
    """The whole analysis cut into ``shards`` contiguous upcard ranges (every player hand)."""
    payouts, qual = _core_payouts(order, p)
    spec = tie_break_spec(order.tie_breaks)
    return [UpcardShard(spec, tuple(qual), payouts, r) for r in split_range(0, 52, shards)]


def hand_shards(order: Ordering, p: Payouts, shards: int) -> list[UpcardShard]:
    """The whole analysis cut into ``shards`` parts of the player hands (every upcard): the
    way to split it over workers. Every sweep visits all hands, so a cut by upcards repeats
    most of the work in each shard; a part of the hands costs only its hands (BENCHMARKS.md)."""
    payouts, qual = _core_payouts(order, p)
    spec = tie_break_spec(order.tie_breaks)
    count = max(1, min(shards, HANDS))
    return [UpcardShard(spec, tuple(qual), payouts, (0, 52), (k, count)) for k in range(count)]


ShardAnswer = _testing.CaribbeanRun
"""What a shard sends back: its category rows and its compact decisions (about 1 MB for half
the hands instead of the 21 MB table), both picklable."""


def row_values(row: _testing.CategoryRow) -> tuple[int, ...]:
    """A core row as the cache stores it, read by name (``CategoryLine``'s fields)."""
    return tuple(getattr(row, f.name) for f in fields(CategoryLine)[1:])


def run_upcard_shard(shard: UpcardShard) -> ShardAnswer:
    """Run one shard on this machine: its category rows and its compact decisions."""
    return _testing.caribbean_analyze(
        *_core_args(shard), chunks=1, upcards=shard.upcards, part=shard.part, compact=True
    )


def merge_upcard_shards(
    shards: Sequence[UpcardShard], parts: Sequence[ShardAnswer]
) -> tuple[Rows, bytes]:
    """Put shards' answers together, in shard order: rows merge in the core (counts add, the
    smallest margin wins), the decision tables of disjoint shards combine by OR. Equal to one
    whole run."""
    if not parts:
        raise AnalysisError("no shards to merge")
    rows = list(parts[0].categories)
    for part in parts[1:]:
        rows = [a.merged(b) for a, b in zip(rows, part.categories, strict=True)]
    compact = []
    for _, part in zip(shards, parts, strict=True):
        if not isinstance(part.decisions, _core.CompactDecisions):
            raise AnalysisError("a shard sent back the decision table, not compact decisions")
        compact.append(part.decisions)
    return [row_values(r) for r in rows], _core.caribbean_decision_table(compact)


def whole_run(order: Ordering, p: Payouts) -> tuple[Rows, bytes]:
    """The dedicated engine's rows and decision table of a whole analysis."""
    (whole,) = hand_shards(order, p, 1)
    run = _testing.caribbean_analyze(*_core_args(whole))
    assert isinstance(run.decisions, bytes)
    return [row_values(r) for r in run.categories], run.decisions
