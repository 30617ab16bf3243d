#!/usr/bin/env python3
"""Measure the shuffler battery's power and calibration tables (docs/methodology/shuffler.md),
printed as Markdown: for each failure model, the smallest deck count on the grid at which 99
of 100 seeded trials are FAIL; then a fair log's verdicts around the size that can conclude.
``tablecert.audit.power.DECKS_FOR_POWER`` holds the first table, checked by a test.

Usage: python scripts/power-tables.py [MODEL ...]   (a few hours for every model)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tablecert.audit.battery import shuffles_to_conclude
from tablecert.audit.power import GRID, MODELS, decks_for_power, verdicts


def main(argv: Sequence[str] = ()) -> None:
    """Print the power table for ``argv``'s models (default: all), then the calibration."""
    models = list(argv) or list(MODELS)
    print("| model | decks for 99% power | FAIL / trials |")
    print("|---|---:|---:|")
    for model in models:
        row = decks_for_power(model)
        decks = f"{row.decks:,}" if row.decks else f"> {GRID[-1]:,}"
        print(f"| `{model}` | {decks} | {row.rejected}/{row.trials} |", flush=True)
    need = shuffles_to_conclude("cards52")
    print("\n| fair log, decks | PASS | FAIL | INCONCLUSIVE |\n|---:|---:|---:|---:|")
    for size in (need - 1, need, 1_000):
        got = verdicts("fair", size, 1_000, first_seed=7 * size)
        counts = " | ".join(str(n) for n in got.values())
        print(f"| {size:,} | {counts} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
