"""The bundled section kinds; importing this package registers them (one import per kind)."""

from tablecert.report.entry import SectionKind
from tablecert.report.registry import REGISTRY
from tablecert.report.sections import (
    configuration,
    evaluator_crosscheck,
    hand_categories,
    mahjong_tables,
    par_sheet,
    rng_audit,
    round_audit,
    rules_diff,
    shuffler_audit,
    stud_par_sheet,
)


def section_kinds() -> dict[str, SectionKind]:
    """Every registered section kind: the bundled ones (registered by importing this package)
    and any registered since."""
    return REGISTRY


__all__ = [
    "configuration",
    "evaluator_crosscheck",
    "hand_categories",
    "mahjong_tables",
    "par_sheet",
    "rng_audit",
    "round_audit",
    "rules_diff",
    "section_kinds",
    "shuffler_audit",
    "stud_par_sheet",
]
