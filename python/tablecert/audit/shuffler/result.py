"""What a shuffler audit found, whichever way its logs were read: the deck checker's counts
(:class:`Integrity`), the battery on the tallies and the certificate's content
(:class:`ShufflerAudit`), and :func:`conclude`, the one step both the local and the sharded
runner end with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablecert import _core
from tablecert.audit import plots
from tablecert.audit.battery import (
    BatteryResult,
    Repeats,
    Tally,
    run_battery,
    second_level,
    shuffles_to_conclude,
)
from tablecert.audit.power import detectable
from tablecert.equality import ContentEq
from tablecert.errors import AuditError
from tablecert.exact import measured
from tablecert.judgement import Judged, Outcome, overall
from tablecert.stats import CheckResult, DealtLaw


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
class ShufflerAudit(Judged, ContentEq):
    """The certificate's content: integrity, the battery on all shuffles, the batches, plots."""

    deck: str
    input_order: str
    game: str | None
    integrity: Integrity
    battery: BatteryResult
    batches: tuple[BatteryResult, ...]
    tally: Tally = field(repr=False)

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
