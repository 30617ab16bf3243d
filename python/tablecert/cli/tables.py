"""Tables that never lose a value (docs/cli/conventions.md).

A table is printed in the first of these layouts that fits the width, each value whole:

1. the full table, boxed, every cell on one line;
2. the compact table: no box or padding, one space between columns, a column's short
   header; its text columns (``Column(wrap=True)``: names, notes) are wrapped at spaces only
   when a table cannot fit otherwise (step 3); numbers and codes are never wrapped or cut;
3. the compact table without its optional columns (``Column(optional=True)``: values derived
   from others, such as a float beside an exact fraction), with a line naming them; ``--wide``
   (``print_table(..., wide=True)``) keeps them; then that table with its text wrapped;
4. records, the last resort: each row one ``header: value`` line per cell (as ``kubectl
   describe`` and ``gh`` do).

So a value is never truncated with ``…``, folded a character at a time or squeezed to a
zero-width column. The width is the terminal's; off a terminal it is ``$COLUMNS`` when set, and
otherwise unlimited (a pipe gets every table whole, one row per line, for grep and friends).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Literal

import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tablecert.cli.common import stdout

Cell = str | Text

#: The option of every command whose tables have optional columns (see the module docstring).
WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Keep every column of a table that is too wide for the terminal (columns derived "
        "from others are otherwise left out, and the output says which).",
    ),
]


@dataclass(frozen=True)
class Column:
    """A column: its header, alignment, and how it may give way to a narrow width: ``short``
    (the header in the compact layout), ``wrap`` (text that may wrap at spaces there) and
    ``optional`` (left out of the compact layout unless ``wide``)."""

    header: str
    justify: Literal["left", "right"] = "left"
    short: str | None = None
    wrap: bool = False
    optional: bool = False


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
    wide: bool = False,
) -> None:
    """Print rows under their column headers, every value whole, in the first layout that fits
    (see the module docstring)."""
    cols = [c if isinstance(c, Column) else Column(c) for c in columns]
    body = [list(r) for r in rows]
    for row in body:
        if len(row) != len(cols):
            raise ValueError(f"a row of {len(row)} cells for {len(cols)} columns")
    width = available_width(console)
    full = _table(cols, body, title)
    natural = Measurement.get(console, console.options.update(max_width=1 << 20), full).maximum
    if width is None or natural <= width:
        _print_at(console, full, max(natural, console.width))
        return
    every = list(range(len(cols)))
    required = every if wide else [i for i, c in enumerate(cols) if not c.optional]
    # Unwrapped before wrapped, and a derived column left out before text is wrapped.
    attempts = [(every, False), (required, False), (required, True)]
    for chosen, wrap in dict.fromkeys((tuple(c), w) for c, w in attempts):
        shown_cols = [cols[i] if wrap else replace(cols[i], wrap=False) for i in chosen]
        shown_body = [[row[i] for i in chosen] for row in body]
        widths = _compact_widths(shown_cols, shown_body, width)
        if widths is None:
            continue
        _print_at(console, _table(shown_cols, shown_body, title, widths), width)
        left_out = [c.header for i, c in enumerate(cols) if i not in chosen]
        if left_out:
            note = f"(not shown at this width: {', '.join(left_out)}; --wide shows them)"
            console.print(Text(note, style="dim"), soft_wrap=True)
        return
    _print_records(cols, body, title, console)


def _table(
    cols: Sequence[Column],
    body: Sequence[Sequence[Cell]],
    title: str | None,
    widths: Sequence[int] | None = None,
) -> Table:
    """The full (boxed) table of these columns and rows, or, given ``widths``, the compact one."""
    if widths is None:
        table = Table(title=title, title_justify="left")
        for c in cols:
            table.add_column(c.header, justify=c.justify, no_wrap=True, overflow="fold")
    else:
        table = Table(
            title=title,
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            padding=(0, 0, 0, 0),
            header_style="bold",
        )
        for c, w in zip(cols, widths, strict=True):
            table.add_column(c.short or c.header, justify=c.justify, no_wrap=not c.wrap, width=w)
    for row in body:
        table.add_row(*row)
    return table


def _lines(cell: Cell | str) -> list[str]:
    text = cell.plain if isinstance(cell, Text) else cell
    return text.splitlines() or [""]


def _compact_widths(
    cols: Sequence[Column], body: Sequence[Sequence[Cell]], width: int
) -> list[int] | None:
    """Column widths of the compact layout in ``width`` (one space between columns), or
    ``None`` when it cannot hold every value whole: a column that does not wrap is as wide as
    its widest cell; one that wraps at least as wide as its longest word, the room left then
    shared out evenly among the columns that wrap until each is whole."""
    least, most = [], []
    for i, c in enumerate(cols):
        lines = [ln for cell in (c.short or c.header, *(r[i] for r in body)) for ln in _lines(cell)]
        widest = max(cell_len(ln) for ln in lines)
        longest_word = max((cell_len(w) for ln in lines for w in ln.split()), default=0)
        least.append(longest_word if c.wrap else widest)
        most.append(max(widest, 1))
    room = width - (len(cols) - 1)
    if sum(least) > room:
        return None
    widths = list(least)
    spare = room - sum(widths)
    while spare > 0:
        growing = [i for i in range(len(cols)) if widths[i] < most[i]]
        if not growing:
            break
        for i in growing[:spare] if spare < len(growing) else growing:
            widths[i] += 1
            spare -= 1
    return widths


def _print_at(console: Console, table: Table, width: int) -> None:
    """Print the table in exactly ``width`` columns (print() never exceeds the console's own
    width, which off a terminal is not the one asked for)."""
    saved = console._width
    console.width = width
    try:
        console.print(table, crop=False)
    finally:
        console._width = saved


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
            line = Text.assemble((label, "bold"))  # the label bold, not the whole line
            line.append(value if isinstance(value, Text) else Text(value))
            console.print(line, soft_wrap=True, crop=False)
