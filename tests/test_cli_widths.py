"""Every value a table-printing command reports is printed whole at any width and in a pipe:
each command runs with --json and as text at COLUMNS=60, 80 and 160 and with no width (a pipe),
and every value of the JSON rows must appear, unbroken, in each text."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablecert.cli import app

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
WIDTHS = ("60", "80", "160", None)

Values = Callable[[dict[str, Any]], Iterable[object]]


def _run(args: list[str], columns: str | None) -> str:
    env = {"COLUMNS": columns} if columns else {"COLUMNS": ""}
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code in (0, 1, 3), result.output
    return result.stdout


def _shown(value: object, text: str) -> bool:
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return f"{value:,}" in text or str(value) in text
    return str(value) in text


def _rows(data: dict[str, Any], key: str, fields: tuple[str, ...]) -> list[object]:
    return [row[f] for row in data[key] for f in fields]


CASES: dict[str, tuple[list[str], Values]] = {
    "hands": (
        ["hands", "caribbean-stud"],
        lambda d: _rows(d, "categories", ("category", "article", "count")),
    ),
    "check-caribbean": (
        ["check", str(FIXTURES / "configs/caribbean-stud.casino-a.toml"), "--no-returns"],
        lambda d: _rows(d, "lines", ("article", "key", "verdict", "expected", "submitted", "note")),
    ),
    "check-q-poker": (
        ["check", str(FIXTURES / "configs/q-poker.casino-b.toml"), "--no-returns"],
        lambda d: _rows(d, "lines", ("article", "key", "verdict", "expected", "submitted", "note")),
    ),
    "analyze-q-poker": (
        ["analyze", "q-poker"],
        lambda d: [
            *_rows(d["play"], "rows", ("event", "article", "count")),
            *_rows(d["pair_plus"], "rows", ("event", "article", "count")),
        ],
    ),
    "analyze-caribbean-stud": (
        ["analyze", "caribbean-stud"],
        lambda d: _rows(d, "rows", ("event", "article", "count")),
    ),
    "analyze-mahjong": (
        ["analyze", "mahjong-simple"],
        lambda d: [
            *_rows(d, "fan_items", ("name", "article", "distinct_hands", "combinations")),
            *_rows(d, "fan_totals", ("name", "article", "distinct_hands", "combinations")),
        ],
    ),
    "mahjong-score": (
        [
            "mahjong",
            "score",
            "mahjong-traditional",
            "1m 2m 3m 4p 5p 6p 9s 9s [E E E] [Rd Rd Rd]",
            "--seat",
            "S",
            "--limit",
            "100/200",
        ],
        lambda d: [
            *_rows(d, "items", ("item", "fan", "article")),
            *_rows(d["settlement"], "payments", ("payer", "amount", "article")),
        ],
    ),
    "audit-shuffler": (
        ["audit", "shuffler", str(FIXTURES / "logs/shuffler-fair-52-small.csv.gz")],
        lambda d: _rows(d, "tests", ("key", "verdict", "name", "detail")),
    ),
    "crosscheck-poker": (
        [
            "crosscheck",
            "poker",
            "q-poker",
            "--evaluator",
            f"{FIXTURES / 'evaluators/vendor_poker.py'}:q_poker_pushes_ties",
            "--hands",
            "300",
            "--suit-pairs",
            "300",
            "--other-pairs",
            "100",
        ],
        lambda d: _rows(d, "checks", ("name", "checked", "mismatches", "verdict")),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_json_value_is_printed_whole(case: str) -> None:
    args, values = CASES[case]
    data = json.loads(_run([*args, "--json"], None))
    expected = [v for v in values(data) if v not in ("", None)]
    assert expected
    for columns in WIDTHS:
        text = _run(args, columns)
        missing = [v for v in expected if not _shown(v, text)]
        assert missing == [], f"COLUMNS={columns}: {missing[:5]}\n{text}"
        if columns:
            widest = max(len(line) for line in text.splitlines())
            table_lines = [ln for ln in text.splitlines() if ln[:1] in "┏┃┡│└"]
            assert all(len(ln) <= int(columns) for ln in table_lines), (columns, widest)
        assert "…" not in text
