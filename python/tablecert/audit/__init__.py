"""Randomness audits: shuffling machines and automatic tables from their captured logs, and
raw RNG output through the NIST SP 800-22 battery (``tablecert.audit.rng``).

The names below are imported on first use: ``tablecert simulate`` needs the deck sizes
(``tablecert.audit.decks``), not the battery, NumPy or the Mahjong dealer."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablecert.audit.battery import BatteryResult, Tally, run_battery
    from tablecert.audit.shuffler import ShufflerAudit, audit_shuffler
    from tablecert.stats import CheckResult

__all__ = [
    "BatteryResult",
    "CheckResult",
    "ShufflerAudit",
    "Tally",
    "audit_shuffler",
    "run_battery",
]

_HOME = {
    "BatteryResult": "battery",
    "CheckResult": "battery",
    "Tally": "battery",
    "run_battery": "battery",
    "ShufflerAudit": "shuffler",
    "audit_shuffler": "shuffler",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"tablecert.audit.{_HOME[name]}"), name)
