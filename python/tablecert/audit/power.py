"""Power and calibration of the shuffler battery, measured by simulation on the verdict a user
sees (``BatteryResult.outcome``: FAIL on any Holm rejection, at any sample size).

``python -m tablecert.audit.power`` prints, for each failure model, the smallest deck count on
a fixed grid at which the audit's verdict was FAIL (Holm, alpha 0.01) in at least 99 of 100
seeded trials, then the fair shuffler's verdicts around the smallest log that can PASS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tablecert import _core
from tablecert.audit.battery import BatteryResult, Repeats, Tally, run_battery, shuffles_to_conclude
from tablecert.judgement import VERDICTS, Outcome
from tablecert.stats import DEFAULT_ALPHA

GRID = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)
MODELS = (
    *(f"riffle:{k}" for k in range(1, 9)),
    "shelf:10",
    "overhand:100",
    "modulo:8",
    "modulo:10",
    "off-by-one",
    "short-period:1000",
    "stuck:50",
)


def simulated_battery(
    model: str, decks: int, seed: int, alpha: float = DEFAULT_ALPHA, deck: str = "cards52"
) -> BatteryResult:
    """The battery on ``decks`` shuffles of a simulated device, judged against the logged input."""
    audit = _core.ShuffleAudit(deck, "logged")
    audit.add_simulated(model, decks, seed)
    audit.finish()
    return run_battery(
        Tally.from_core(deck, audit.tally()), repeats=Repeats(*audit.repeats()), alpha=alpha
    )


def verdicts(model: str, decks: int, trials: int, first_seed: int = 0) -> dict[Outcome, int]:
    """How many of ``trials`` independent seeded batches end in each outcome."""
    out = dict.fromkeys(VERDICTS, 0)
    for i in range(trials):
        out[simulated_battery(model, decks, first_seed + i).outcome] += 1
    return out


def rejections(model: str, decks: int, trials: int, first_seed: int = 0) -> int:
    """How many of ``trials`` independent seeded batches the audit FAILS."""
    return verdicts(model, decks, trials, first_seed)[Outcome.FAIL]


POWER_ALPHA = 0.01
"""The family-wise alpha the power table is measured at."""

# The power table of docs/methodology/shuffler.md (cards52, input order logged, alpha 0.01):
# the smallest grid deck count at which the verdict was FAIL in at least 99 of 100 seeded
# trials (``main``).
DECKS_FOR_POWER: dict[str, int | None] = {
    "riffle:1": 10,
    "riffle:2": 10,
    "riffle:3": 20,
    "riffle:4": 20,
    "riffle:5": 20,
    "riffle:6": 20,
    "riffle:7": 100,
    "riffle:8": 500,
    "shelf:10": 10,
    "overhand:100": 10,
    "modulo:8": 2_000,
    "modulo:10": 50_000,
    "off-by-one": 20,
    "short-period:1000": 2_000,
    "stuck:50": 5_000,
}


def detectable(
    deck: str, shuffles: int, *, alpha: float = DEFAULT_ALPHA, input_order: str = "logged"
) -> str:
    """What an audit of ``shuffles`` can detect: the failure models of the power table it
    FAILS with at least 99% power, those it needs more shuffles for, and the smallest log
    that can PASS. The table is measured at alpha 0.01 against the logged input order: an
    audit at a smaller alpha has less power than it states, one with input order ``none``
    skips the tests it rests on, and the statement says so."""
    need = shuffles_to_conclude(deck)
    floor = f"a fair {deck} log can pass from {need:,} shuffles" + (
        "" if shuffles >= need else f" (this one has {shuffles:,}: it can fail, not pass)"
    )
    if deck != "cards52":
        return f"{floor}; no power table is measured for {deck}"
    if input_order == "none":
        return (
            f"{floor}; no power table applies: with input order none the tests against the "
            "input order are skipped"
        )
    caught = [m for m, d in DECKS_FOR_POWER.items() if d is not None and d <= shuffles]
    missed = [
        f"{m} ({d:,})" if d else f"{m} (> {GRID[-1]:,})"
        for m, d in DECKS_FOR_POWER.items()
        if d is None or d > shuffles
    ]
    caveat = ""
    if alpha < POWER_ALPHA:
        caveat = f"; this audit's alpha {alpha} is smaller, so its power is lower than stated"
    elif alpha > POWER_ALPHA:
        caveat = f"; this audit's alpha {alpha} is larger, so its power is at least that"
    if input_order != "logged":
        caveat += (
            f"; measured against the logged input, this audit used input order {input_order} "
            "(the same order for a device that re-shuffles what it dealt)"
        )
    return (
        f"{floor}; at {shuffles:,} shuffles a device is failed with 99% power (alpha "
        f"{POWER_ALPHA}, input order logged) if it is "
        f"{', '.join(caught) or 'none of the power table'}"
        + (f"; more shuffles are needed for {', '.join(missed)}" if missed else "")
        + caveat
    )


@dataclass(frozen=True)
class PowerRow:
    model: str
    decks: int | None
    rejected: int
    trials: int


def decks_for_power(
    model: str, target: float = 0.99, trials: int = 100, grid: Sequence[int] = GRID
) -> PowerRow:
    """The smallest grid deck count at which at least ``target`` of trials reject."""
    need = int(target * trials + 0.999999)
    for decks in grid:
        got = rejections(model, decks, trials, first_seed=1_000_003 * decks)
        if got >= need:
            return PowerRow(model, decks, got, trials)
    return PowerRow(model, None, 0, trials)
