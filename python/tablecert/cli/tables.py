"""Tables that never lose a value (README, "Command-line conventions").

A table is printed whole or not as a table at all: when it fits the width it is a table with
every cell on one line; when it does not, each row becomes a record, one ``header: value`` line
per cell (as ``kubectl describe`` and ``gh`` do), so a value is never truncated, folded a
character at a time or squeezed to a zero-width column. The width is the terminal's; off a
terminal it is ``$COLUMNS`` when set, and otherwise unlimited (a pipe gets every table whole, one
row per line, for grep and friends).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tablecert.cli.common import stdout

Cell = str | Text


@dataclass(frozen=True)
class Column:
    header: str
    justify: Literal["left", "right"] = "left"


def available_width(console: Console) -> int | None:
    """The width to print in: the terminal's, else ``$COLUMNS``, else ``None`` (no limit)."""
    if console.is_terminal:
        return console.width
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


def print_table(
    columns: Sequence[Column | str],
    rows: Iterable[Sequence[Cell]],
    *,
    title: str | None = None,
    console: Console = stdout,
) -> None:
    """Print rows under their column headers, every value whole (see the module docstring)."""
    cols = [c if isinstance(c, Column) else Column(c) for c in columns]
    body = [list(r) for r in rows]
    for row in body:
        if len(row) != len(cols):
            raise ValueError(f"a row of {len(row)} cells for {len(cols)} columns")
    table = Table(title=title, title_justify="left")
    for c in cols:
        table.add_column(c.header, justify=c.justify, no_wrap=True, overflow="fold")
    for row in body:
        table.add_row(*row)
    natural = Measurement.get(console, console.options.update(max_width=1 << 20), table).maximum
    width = available_width(console)
    if width is None or natural <= width:
        saved = console._width  # print() never exceeds the console's width: widen it for this
        console.width = max(natural, console.width)
        try:
            console.print(table, crop=False)
        finally:
            console._width = saved
        return
    _print_records(cols, body, title, console)


def _print_records(
    cols: Sequence[Column], body: Sequence[Sequence[Cell]], title: str | None, console: Console
) -> None:
    """One ``header: value`` line per cell, a blank line between rows; long values run on
    (the terminal wraps them, no line break is inserted)."""
    pad = max(cell_len(c.header) for c in cols) + 2
    if title:
        console.print(Text(title, style="italic"), soft_wrap=True)
    for index, row in enumerate(body):
        if index:
            console.print()
        for c, value in zip(cols, row, strict=True):
            label = f"{c.header}:".ljust(pad)
            line = Text(label, style="bold")
            line.append(value if isinstance(value, Text) else Text(value))
            console.print(line, soft_wrap=True, crop=False)
