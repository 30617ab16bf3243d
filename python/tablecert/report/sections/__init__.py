"""The bundled section kinds; importing this package registers them (one import per kind)."""

from tablecert.report.sections import hand_categories

__all__ = ["hand_categories"]
