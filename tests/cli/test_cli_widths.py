"""Every value a table-printing command reports is printed whole at any width and in a pipe:
each command runs with --json and as text at COLUMNS=60, 80 and 160 and with no width (a pipe),
and every value of the JSON rows must appear, unbroken, in each text (a list as a reader writes
it: ``A, K``). At 80 columns the main tables (par sheets, ``hands``, ``check``) are tables, in
the compact layout where the full one is too wide, never ``header: value`` records."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.report.display import display
from tests.support.mahjong_support import NO_KONG

ROOT = Path(__file__).resolve().parents[2]
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
    shown = display(value) if isinstance(value, list) else str(value)
    if shown in text:
        return True
    # A text column may wrap at spaces (never inside a word): each word whole, in the text.
    words = set(text.split())
    return " " in shown and all(word in words for word in shown.split())


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
            NO_KONG,
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


#: The main tables at 80 columns: the headers of the tables' first columns, and cells of one
#: row that must share a line (the row is a table row, not a record).
COMPACT_AT_80 = {
    "hands": (("category",), ("royal flush", "第八条(一)", "1/649740", "649,740.00")),
    "analyze-q-poker": (("event",), ("fold", "第九條(三)", "loses 1/2", "132,542,256")),
    "analyze-caribbean-stud": (
        ("event", "category"),  # the par sheet and the progressive's prize table
        ("fold", "第六条(七)", "9,523,042,201,530"),
    ),
    "check-q-poker": (("article",), ("第九條(七)(3)", "play.win.straight", "3/2")),
    "check-caribbean": (("article",), ("第九条(五)(9)", "play.raise_pays.royal-flush", "50..100")),
}


@pytest.mark.parametrize("case", sorted(COMPACT_AT_80))
def test_main_tables_stay_tables_at_80_columns(case: str) -> None:
    args, _ = CASES[case]
    first_headers, row = COMPACT_AT_80[case]
    text = _run(args, "80")
    lines = text.splitlines()
    records = [ln for ln in lines if ln.startswith(tuple(f"{h}:" for h in first_headers))]
    assert records == [], text
    assert [ln for ln in lines if all(cell in ln for cell in row)], text
    rules = [ln for ln in lines if set(ln.strip()) == {"─"}]  # a compact table's header rule
    boxes = [ln for ln in lines if ln.startswith("┏")]
    assert rules or boxes, text
    assert all(len(ln) <= 80 for ln in rules + boxes)


def test_check_lists_deviations_first_in_a_readers_notation() -> None:
    args, _ = CASES["check-q-poker"]
    text = _run(args, "80")
    assert text.index("deviates (2)") < text.index("conforms (") < text.index("not submitted (")
    deviations = text[text.index("deviates (2)") : text.index("conforms (")]
    assert "play.win.straight" in deviations
    assert "pair_plus.straight " in deviations
    assert "spades, hearts, clubs, diamonds" in text
    assert "['" not in text
    assert "None" not in text


def test_a_derived_column_left_out_at_80_is_named_and_restored_by_wide() -> None:
    narrow = _run(["analyze", "q-poker"], "80")
    assert "(not shown at this width: units won, probability; --wide shows them)" in narrow
    wide = _run(["analyze", "q-poker", "--wide"], "80")
    assert "not shown" not in wide
    assert "0.32552036" in wide  # the fold's probability, left out without --wide
    assert "0.32552036" not in narrow


@pytest.fixture(scope="module")
def sample_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("cc") is None or shutil.which("make") is None:
        pytest.skip("no C toolchain")
    out = tmp_path_factory.mktemp("native")
    native = FIXTURES / "evaluators" / "native"
    subprocess.run(
        ["make", "-s", "-C", str(native), f"OUT={out}", f"{out}/libsample.so"], check=True
    )
    return out / "libsample.so"


def test_the_benchmark_table_stays_a_table_at_80_columns(sample_library: Path) -> None:
    args = ["crosscheck", "poker", "q-poker", "--evaluator", f"so:{sample_library}"]
    text = _run([*args, "--benchmark", "--repeat", "1"], "80")
    lines = text.splitlines()
    assert not [ln for ln in lines if ln.startswith(("evaluator:", "workload:"))], text
    vendor_rows = [ln for ln in lines if ln.lstrip("│ ").startswith("vendor ") and " / " in ln]
    assert vendor_rows, text
    assert all(len(ln) <= 80 for ln in lines if ln[:1] in "┏┃┡│└─")
