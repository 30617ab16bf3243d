"""Randomness audits: shuffling machines and automatic tables from their captured logs."""

from tablecert.audit.battery import BatteryResult, CheckResult, Tally, run_battery
from tablecert.audit.shuffler import ShufflerAudit, audit_shuffler

__all__ = [
    "BatteryResult",
    "CheckResult",
    "ShufflerAudit",
    "Tally",
    "audit_shuffler",
    "run_battery",
]
