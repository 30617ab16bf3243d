"""print_table's layouts (tablecert.cli.tables): full, compact, without optional columns,
wrapped, records; each value whole in every one."""

from __future__ import annotations

import io

from rich.console import Console

from tablecert.cli.tables import Column, print_table

COLUMNS = [
    Column("event", wrap=True),
    Column("combinations", "right", short="count"),
    Column("probability", "right", short="prob.", optional=True),
]
ROWS = [
    ["player wins with three of a kind", "132,542,256", "0.32552036"],
    ["dealer wins", "91,609,720", "0.22499111"],
]


def _printed(width: int, *, wide: bool = False, color: bool = False) -> str:
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        force_terminal=True,
        color_system="standard" if color else None,
        markup=False,
        highlight=False,
    )
    print_table(COLUMNS, ROWS, console=console, wide=wide)
    return out.getvalue()


def test_the_full_table_when_it_fits() -> None:
    text = _printed(100)
    assert text.splitlines()[0].startswith("┏")
    assert "│ player wins with three of a kind │  132,542,256 │  0.32552036 │" in text


def test_the_compact_table_uses_short_headers_and_no_box() -> None:
    text = _printed(56)
    lines = text.splitlines()
    assert lines[0].split() == ["event", "count", "prob."]
    assert set(lines[1]) == {"─"}
    assert lines[2].split()[-2:] == ["132,542,256", "0.32552036"]
    assert "player wins with three of a kind" in lines[2]


def test_an_optional_column_is_left_out_and_named_before_text_wraps() -> None:
    text = _printed(46)
    assert "0.32552036" not in text
    assert "(not shown at this width: probability; --wide shows them)" in text
    assert "player wins with three of a kind 132,542,256" in text


def test_wide_keeps_every_column_and_wraps_text_at_spaces() -> None:
    text = _printed(40, wide=True)
    assert "not shown" not in text
    first, second = text.splitlines()[2:4]
    assert first.split()[-2:] == ["132,542,256", "0.32552036"]  # numbers whole, on one line
    words = first.split()[:-2] + second.split()
    assert words == ["player", "wins", "with", "three", "of", "a", "kind"]  # wrapped at spaces only


def test_records_only_when_nothing_fits_with_the_label_alone_bold() -> None:
    text = _printed(16, color=True)
    assert "\x1b[1mevent:        \x1b[0mplayer wins with three of a kind" in text
    assert "\x1b[1mcombinations: \x1b[0m132,542,256" in text
