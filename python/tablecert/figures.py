"""Measured numbers (test statistics, p-values, effect sizes) as people read them: one
notation for the terminal, the HTML report and the PDF, so a figure reads the same wherever it
is cited.

- ``digits`` significant digits in ``%g`` style (``0.3810``, ``4e-18``, ``2.413e+09``);
- a number of 1,000 or more below 10^9 whole, with thousands separators (``24,127``, never
  ``2.413e+04`` or ``2.413E+4``): a count-like statistic is not rounded to fewer digits than
  it has;
- a p-value that underflowed to 0 (the survival functions are accurate far into the tail, so
  the true value is below about 1e-307) is ``< 1e-300``, never ``0``.
"""

from __future__ import annotations

import math
from decimal import Decimal

#: How a p-value that is 0 in floating point is written: the true value is below this.
P_FLOOR_TEXT = "< 1e-300"


def measured(value: float | Decimal | None, digits: int = 4) -> str:
    """A measured number in the one notation (see the module docstring); ``None`` is ``""``."""
    if value is None:
        return ""
    x = float(value)
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    if 10 ** (digits - 1) <= abs(x) < 1e9:
        return f"{round(x):,}"
    return format(x, f".{digits}g")


def p_value(value: float | Decimal | None, digits: int = 3) -> str:
    """A p-value: :func:`measured`, and ``< 1e-300`` for one that underflowed to 0."""
    if value is not None and float(value) == 0:
        return P_FLOOR_TEXT
    return measured(value, digits)
