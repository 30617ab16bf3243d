"""Auditing a shuffler from its captured logs: stream every file through the core's reader and
tallies, check each deck, then judge the tallies with the battery."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tablecert import _core, poker
from tablecert.audit import plots
from tablecert.audit.battery import (
    DEFAULT_CONFIDENCE,
    BatteryResult,
    Repeats,
    Tally,
    check_levels,
    run_battery,
    second_level,
    shuffles_to_conclude,
)
from tablecert.audit.dealing import DEALINGS, WallDealer, poker_law, tally_walls
from tablecert.audit.decks import DECK_SIZES
from tablecert.audit.power import detectable
from tablecert.audit.wall_dealing import mahjong_dealer
from tablecert.distributed import Executor
from tablecert.equality import ContentEq
from tablecert.errors import AuditError, LogError
from tablecert.exact import measured
from tablecert.judgement import Outcome, overall
from tablecert.pathlike import PathsArg, as_paths, distinct_paths
from tablecert.stats import DEFAULT_ALPHA, CheckResult, DealtLaw, dealt_outcomes

INPUT_ORDERS = ("auto", "logged", "previous", "none")
"""What each output is judged against: ``auto`` (the default) its logged input when the record
has one, else its device's previous output; ``logged`` only the logged input; ``previous`` only
the previous output; ``none`` nothing (the order tests are skipped)."""
DEFAULT_BATCH = 10_000

Progress = Callable[[int, int], None]
"""Called with (bytes read of the current file, its size on disk; 0 for a pipe)."""


@dataclass(frozen=True, eq=False)
class Integrity(ContentEq):
    """What the deck checker found: counts, the bad records (first 1000), device events, and
    every line read (``lines`` = header lines + records + bad records + blank lines)."""

    files: tuple[str, ...]
    records: int
    bad_count: int
    bad_records: tuple[tuple[str, int, str], ...]
    events: tuple[tuple[str, int], ...]
    records_with_events: int
    without_input: int
    lines: int = 0
    header_lines: int = 0
    blank_lines: int = 0
    #: The ids of the devices whose records were accepted, sorted.
    devices: tuple[str, ...] = ()

    @classmethod
    def from_core(cls, paths: Sequence[str | Path], core: _core.ShuffleAudit) -> Integrity:
        """What the core's deck checker found in ``paths``."""
        return cls(
            tuple(str(p) for p in paths),
            core.records,
            core.bad_count,
            tuple(core.bad_records()),
            tuple(core.events()),
            core.records_with_events,
            core.without_input,
            core.lines,
            core.header_lines,
            core.blank_lines,
            tuple(core.device_ids()),
        )

    @property
    def passed(self) -> bool:
        return self.bad_count == 0 and self.records > 0

    def as_json(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "records": self.records,
            "bad_count": self.bad_count,
            "bad_records": [
                {"file": f, "line": line, "reason": r} for f, line, r in self.bad_records
            ],
            "events": dict(self.events),
            "records_with_events": self.records_with_events,
            "records_without_input": self.without_input,
            "lines": self.lines,
            "header_lines": self.header_lines,
            "blank_lines": self.blank_lines,
            "devices": list(self.devices),
            "passed": self.passed,
        }


@dataclass(frozen=True, eq=False)
class ShufflerAudit(ContentEq):
    """The certificate's content: integrity, the battery on all shuffles, the batches, plots."""

    deck: str
    input_order: str
    game: str | None
    integrity: Integrity
    battery: BatteryResult
    batches: tuple[BatteryResult, ...]
    tally: Tally = field(repr=False)

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASS

    @property
    def integrity_outcome(self) -> Outcome:
        """Fail on any bad record; inconclusive when the logs hold no record."""
        return Outcome.of(self.integrity.bad_count > 0, judged=self.integrity.records > 0)

    @property
    def randomness_outcome(self) -> Outcome:
        """The battery's: fail on any Holm rejection (at any sample size), inconclusive when
        the log is too small for the position test."""
        return self.battery.outcome

    @property
    def outcome(self) -> Outcome:
        """``fail`` on any bad record (integrity) or any Holm rejection (randomness, at any
        sample size); ``inconclusive`` when nothing was rejected but the log is too small for
        the position test (or holds no record); else ``pass``."""
        return overall((self.integrity_outcome, self.randomness_outcome))

    @property
    def input_order_text(self) -> str:
        """Which order the outputs were judged against, how many, and why: the option, and
        whether the records log their input."""
        i = self.integrity
        judged = self.tally.referenced
        logged = i.records - i.without_input
        previous = f"{judged:,} judged against their device's previous output"
        if self.input_order == "none":
            return "input order none: no output is judged against an input (order tests skipped)"
        if self.input_order == "logged":
            return f"{judged:,} judged against their logged input (input order logged)" + (
                f"; {i.without_input:,} records log no input and are judged against no order"
                if i.without_input
                else ""
            )
        if self.input_order == "previous":
            return f"{previous} (input order previous)" + (
                f"; the logged input of {logged:,} of the {i.records:,} records is not used"
                if logged
                else ""
            )
        if not i.without_input:
            return (
                f"{judged:,} judged against their logged input (input order auto: every record "
                "logs one)"
            )
        if not logged:
            return f"{previous} (input order auto: no record logs an input)"
        return (
            f"{judged:,} judged: {logged:,} against their logged input, the others against "
            f"their device's previous output (input order auto: {i.without_input:,} of the "
            f"{i.records:,} records log no input)"
        )

    @property
    def power(self) -> str:
        """What this audit could detect at its size, alpha and input order (audit.power)."""
        order = self.input_order
        if order == "auto" and not self.integrity.without_input:
            order = "logged"  # every output was judged against its logged input
        return detectable(
            self.deck, self.tally.shuffles, alpha=self.battery.alpha, input_order=order
        )

    @property
    def reason(self) -> str:
        """The outcome as the report prints it, with its reason."""
        if self.integrity.bad_count:
            return "FAIL (integrity)"
        if self.integrity.records == 0:
            return "INCONCLUSIVE (no records)"
        if self.battery.rejected:
            return "FAIL (randomness)"
        if not self.battery.conclusive:
            need = shuffles_to_conclude(self.deck)
            return (
                f"INCONCLUSIVE (too few shuffles: {self.tally.shuffles:,}; nothing was "
                f"rejected, and a {self.deck} log needs {need:,} to pass)"
            )
        return Outcome.PASS.word().upper()

    def svg_plots(self) -> dict[str, str]:
        """Inline SVG figures for the report: residual heatmap, rising-sequence histogram."""
        out = {"position_residuals": plots.position_heatmap(self.tally)}
        if self.tally.referenced and "rising" in self.tally.tables:  # card decks only
            out["rising_sequences"] = plots.rising_histogram(self.tally)
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck,
            "input_order": self.input_order,
            "input_order_used": self.input_order_text,
            "game": self.game,
            "shuffles": self.tally.shuffles,
            "shuffles_with_input": self.tally.referenced,
            "integrity": self.integrity.as_json(),
            "alpha": measured(self.battery.alpha),
            "tests": [t.as_json() for t in self.battery.tests],
            "holm_rejected": list(self.battery.rejected),
            "batches": len(self.batches),
            "verdict": self.outcome.value,
            "verdict_text": self.reason,
            "shuffles_to_conclude": shuffles_to_conclude(self.deck),
            "power": self.power,
            "passed": self.passed,
        }


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


def audit_setup(
    paths: Sequence[str | Path],
    deck: str,
    input_order: str,
    game: str | None,
    seats: int,
    dealing: str,
    rules: poker.RulesSource,
) -> tuple[DealtLaw | None, dict[str, Any]]:
    """Check the audit's options; the dealt-hand law (with ``game``) and the core's game
    arguments (``_core.ShuffleAudit`` keywords)."""
    if deck not in DECK_SIZES:
        raise AuditError(f"unknown deck {deck!r}: expected one of {', '.join(DECK_SIZES)}")
    if input_order not in INPUT_ORDERS:
        raise AuditError(f"input order {input_order!r}: expected one of {', '.join(INPUT_ORDERS)}")
    if dealing not in DEALINGS:
        raise AuditError(f"dealing {dealing!r}: expected one of {', '.join(DEALINGS)}")
    if not paths:
        raise AuditError("no log files given")
    if game is None:
        return None, {}
    if deck != "cards52":
        raise AuditError(f"{game} is dealt from a 52-card deck, not {deck}")
    order = poker.ordering(game, rules)
    limit = 52 // order.hand_size - 1
    if not 1 <= seats <= limit:
        raise AuditError(f"{game} deals {order.hand_size} cards: seats must be 1..{limit}")
    kwargs = {
        "hand_size": order.hand_size,
        "hands": seats + 1,
        "round_robin": dealing == "round-robin",
        "tie_breaks": order.tie_breaks,
    }
    return poker_law(game, seats, rules), kwargs


def audit_shuffler(
    paths: PathsArg,
    deck: str = "cards52",
    *,
    input_order: str = "auto",
    game: str | None = None,
    seats: int = 6,
    dealing: str = "packets",
    rules: poker.RulesSource = None,
    batch_size: int = DEFAULT_BATCH,
    alpha: float = DEFAULT_ALPHA,
    confidence: float = DEFAULT_CONFIDENCE,
    wall_dealer: WallDealer | None = None,
    wall_statistic: str | None = "types",
    progress: Progress | None = None,
    on_file: Callable[[Path], None] | None = None,
    executor: Executor | None = None,
) -> ShufflerAudit:
    """Read every log in one streaming pass and run the battery on all shuffles and on each
    full batch of ``batch_size`` shuffles (for the second-level check). Mahjong walls are
    dealt as Art. 3 deals them and each hand's ``wall_statistic`` tested (``None``: no dealt
    test) unless a ``wall_dealer`` is given.

    With an ``executor``, each file is one shard there instead (``audit.sharded``; each file
    its own stream; no dealt test of mahjong walls) and ``progress`` is called with (files
    done, files)."""
    paths = distinct_paths(as_paths(paths, "log file"), "log file")
    check_levels(alpha, confidence)
    if not 1 <= batch_size < 2**63:
        raise AuditError(f"batch size {batch_size}: must be from 1 to 2**63 - 1")
    law, kwargs = audit_setup(paths, deck, input_order, game, seats, dealing, rules)
    if executor is not None:
        from tablecert.audit.sharded import audit_sharded

        if wall_dealer is not None:
            raise AuditError("a wall dealer needs every order in one process: audit locally")
        options = (deck, input_order, game, batch_size)
        return audit_sharded(paths, executor, options, law, kwargs, (alpha, confidence), progress)
    if wall_dealer is not None and deck == "cards52":
        raise AuditError("a wall dealer deals mahjong walls: use --deck mahjong136 or mahjong112")
    if wall_dealer is None and wall_statistic is not None and deck != "cards52":
        wall_dealer = mahjong_dealer(deck, wall_statistic)
    core = _core.ShuffleAudit(
        deck,
        input_order,
        batch_size=batch_size,
        keep_orders=wall_dealer is not None,
        **kwargs,
    )
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
        (deck, input_order, game),
        integrity,
        tally,
        batches,
        Repeats(*core.repeats()),
        law,
        (alpha, confidence),
        extra,
    )


def conclude(
    what: tuple[str, str, str | None],
    integrity: Integrity,
    tally: Tally,
    batches: Sequence[BatteryResult],
    repeats: Repeats,
    law: DealtLaw | None,
    levels: tuple[float, float],
    extra: Sequence[CheckResult] = (),
) -> ShufflerAudit:
    """The battery on all shuffles (with the batches' second level) and the certificate's
    content; ``what`` is (deck, input order, game), ``levels`` (alpha, confidence). An input
    order the log contradicts is an AuditError (:func:`check_input_order`)."""
    check_input_order(what[1], integrity)
    alpha, confidence = levels
    battery = run_battery(
        tally,
        repeats=repeats,
        dealt_law=law,
        alpha=alpha,
        confidence=confidence,
        extra=[second_level(list(batches)), *extra],
    )
    return ShufflerAudit(*what, integrity, battery, tuple(batches), tally)


class InputOrderError(AuditError):
    """An input order the log contradicts: the lab's set-up, nothing judged (exit 2)."""


def check_input_order(input_order: str, integrity: Integrity) -> None:
    """Refuse an input order the log contradicts (a set-up error, nothing judged): ``logged``
    on logs where no record logs its input (no output could be judged against one), and
    ``previous`` on logs where every record does (every logged input would be ignored)."""
    records, without = integrity.records, integrity.without_input
    if not records:
        return
    if input_order == "logged" and without == records:
        raise InputOrderError(
            f"input order 'logged': none of the {records:,} records logs its input order; "
            "use 'auto' (the default) or 'previous'"
        )
    if input_order == "previous" and not without:
        raise InputOrderError(
            f"input order 'previous': every one of the {records:,} records logs its input "
            "order, which 'previous' would ignore; use 'auto' (the default) or 'logged'"
        )
