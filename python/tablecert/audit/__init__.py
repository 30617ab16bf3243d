"""Randomness audits: shuffling machines and automatic tables from their captured logs, and
raw RNG output through the NIST SP 800-22 battery (``tablecert.audit.rng``)."""

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
