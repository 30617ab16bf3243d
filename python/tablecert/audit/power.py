"""Power and calibration of the shuffler battery, measured by simulation.

``python -m tablecert.audit.power`` prints, for each failure model, the smallest deck count on
a fixed grid at which the battery (Holm, alpha 0.01) rejected in at least 99 of 100 seeded
trials, and the fair shuffler's rejection rate.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from tablecert import _core
from tablecert.audit.battery import DEFAULT_ALPHA, BatteryResult, Repeats, Tally, run_battery

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


def rejections(model: str, decks: int, trials: int, first_seed: int = 0) -> int:
    """How many of ``trials`` independent seeded batches the battery rejects."""
    return sum(
        bool(simulated_battery(model, decks, first_seed + i).rejected) for i in range(trials)
    )


#: Decks (52-card, input order logged) at which the battery rejected each model in at least 99
#: of 100 seeded trials at alpha 0.01: ``main()``'s table as measured (README, "Power and
#: calibration"; tests/test_audit_power.py keeps the two equal and re-measures the cheap rows).
MEASURED_99: dict[str, int] = {
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


def power_at(shuffles: int, deck: str) -> tuple[str, ...]:
    """What the measured power says about an audit of ``shuffles`` shuffles of ``deck``."""
    if deck != "cards52":
        return (
            f"not measured for {deck}: the power table covers 52-card decks; the fair "
            "rejection rate is alpha by construction (exact null laws)",
        )
    caught = [m for m, n in MEASURED_99.items() if n <= shuffles]
    missed = [f"{m} (needs {n:,})" for m, n in MEASURED_99.items() if n > shuffles]
    return (
        f"at {shuffles:,} shuffles the battery rejects, with 99% power at alpha 0.01: "
        + (", ".join(caught) or "none of the measured failure models"),
        "not yet with 99% power: " + (", ".join(missed) or "none (every measured model)"),
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


def main(argv: Sequence[str] = ()) -> None:
    models = list(argv) or list(MODELS)
    print("| model | decks for 99% power | rejected / trials |")
    print("|---|---:|---:|")
    for model in models:
        row = decks_for_power(model)
        decks = f"{row.decks:,}" if row.decks else f"> {GRID[-1]:,}"
        print(f"| `{model}` | {decks} | {row.rejected}/{row.trials} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
