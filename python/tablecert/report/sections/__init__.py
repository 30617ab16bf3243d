"""The bundled section kinds; importing this package registers them (one import per kind)."""

from tablecert.report.sections import (
    configuration,
    evaluator_crosscheck,
    hand_categories,
    mahjong_tables,
    par_sheet,
    rng_audit,
    round_audit,
    shuffler_audit,
)

__all__ = [
    "configuration",
    "evaluator_crosscheck",
    "hand_categories",
    "mahjong_tables",
    "par_sheet",
    "rng_audit",
    "round_audit",
    "shuffler_audit",
]
