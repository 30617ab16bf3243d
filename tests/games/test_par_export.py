"""Par sheets as spreadsheets (``analyze GAME --export par.xlsx|par.csv``, the par-sheet
section's ``export`` key): read back, every cell equals the JSON's value; byte-identical
files; the certified export is a signed subject."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path, PurePath
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.games.par_export import read_xlsx
from tablecert.report import dsse
from tablecert.report.certify import certify
from tests.support.games_support import caribbean
from tests.support.plan_support import write_plan

runner = CliRunner()
HEADER = [
    "outcome",
    "article",
    "pays",
    "units won",
    "units won (exact)",
    "combinations",
    "probability",
    "probability (exact)",
    "return",
    "return (exact)",
]


def _expected(data: dict[str, Any]) -> list[tuple[str, list[list[Any]]]]:
    """What the workbook must hold, written out from the JSON independently of the exporter
    (decimals as Decimal: a workbook cell must equal the float of the JSON's decimal)."""
    q = data["game"] == "q-poker"
    bets = (
        [("Pair Plus", data["pair_plus"]), ("Ante-Play", data["play"])]
        if q
        else [("Ante-Raise", data)]
    )
    summary: list[list[Any]] = [
        ["par sheet", data["title"]],
        ["game", data["game"]],
        ["rule file", PurePath(data["rules"]).name],
        ["rule file SHA-256", data["rules_sha256"]],
        ["hand ordering", data["ordering"]],
        [],
        ["bet", "house edge", "house edge (exact)", "element of risk", "element of risk (exact)"],
    ]
    for name, bet in bets:
        row = [name, Decimal(bet["house_edge"]["decimal"]), bet["house_edge"]["exact"]]
        if "element_of_risk" in bet:
            row += [Decimal(bet["element_of_risk"]["decimal"]), bet["element_of_risk"]["exact"]]
        summary.append(row)
    summary += [[], ["optimal strategy"]]
    lines = [data["play"]["strategy"]["description"]] if q else data["strategy"]
    summary += [[line] for line in lines]
    out = [("Summary", summary)]
    for name, bet in bets:
        rows: list[list[Any]] = [HEADER]
        rows += [
            [
                r["event"],
                r["article"],
                r["pays"],
                Decimal(r["value"]["decimal"]),
                r["value"]["exact"],
                r["count"],
                Decimal(r["probability"]["decimal"]),
                r["probability"]["exact"],
                Decimal(r["return"]["decimal"]),
                r["return"]["exact"],
            ]
            for r in bet["rows"]
        ]
        ev = sum(Fraction(r["return"]["exact"]) for r in bet["rows"])
        assert ev == -Fraction(bet["house_edge"]["exact"])  # the totals row's expected value
        rows.append(
            [
                "total (expected value)",
                *[""] * 4,
                sum(r["count"] for r in bet["rows"]),
                Decimal("1.000000000000"),
                "1/1",
                Decimal(bet["house_edge"]["decimal"]) * -1,
                f"{ev.numerator}/{ev.denominator}",
            ]
        )
        out.append((name, rows))
    if not q:
        out.append(("Progressive", _progressive(data["progressive"])))
        royal: list[list[Any]] = [
            ["royal pays (to 1)", "house edge", "house edge (exact)", "method"]
        ]
        royal += [
            [
                p["royal_pays"],
                Decimal(p["house_edge"]["decimal"]),
                p["house_edge"]["exact"],
                p["method"],
            ]
            for p in data["royal_curve"]
        ]
        assert [r[0] for r in royal[1:]] == list(range(50, 101))  # the statute's range
        out.append(("Royal option", royal))
    return out


def _progressive(prog: dict[str, Any]) -> list[list[Any]]:
    def cells(value: dict[str, str]) -> list[Any]:
        return [Decimal(value["decimal"]), value["exact"]]

    rows: list[list[Any]] = [["term", "value", "value (exact)"]]
    for label, key in [
        ("bet", "bet"),
        ("meter", "meter"),
        ("seed", "seed"),
        ("contribution per bet", "contribution"),
        ("return at the meter", "return_at_meter"),
        ("return at the seed", "return_at_seed"),
        ("break-even meter", "break_even_meter"),
    ]:
        rows.append([label, *cells(prog[key])])
    rows.append([f"long-run return ({prog['long_run']['players']} players)"])
    rows[-1] += cells(prog["long_run"]["return"])
    rows.append(["PLAYER ADVANTAGE", "the prizes exceed the bets in the long run"])
    rows += [[], [
        "category", "article", "combinations", "probability", "probability (exact)",
        "fixed prize", "fixed prize (exact)", "meter share", "meter share (exact)",
        "prize at the meter", "prize at the meter (exact)",
    ]]  # fmt: skip
    for p in prog["prizes"]:
        rows.append([
            p["category"], p["article"], p["count"], *cells(p["probability"]),
            *cells(p["fixed"]), *cells(p["meter_share"]), *cells(p["prize_at_meter"]),
        ])  # fmt: skip
    paying = sum(Fraction(p["probability"]["exact"]) for p in prog["prizes"])
    assert paying == Fraction(61, 16660)  # 9,516 of 2,598,960 hands pay
    rows.append(["total (paying hands)", "", 9516, Decimal("0.003661464586"), "61/16660"])
    return rows


def _as_workbook(sheets: list[tuple[str, list[list[Any]]]]) -> list[tuple[str, list[list[Any]]]]:
    return [
        (name, [[float(c) if isinstance(c, Decimal) else c for c in row] for row in rows])
        for name, rows in sheets
    ]


def _as_csv(sheets: list[tuple[str, list[list[Any]]]]) -> list[list[str]]:
    return [[name, *(str(c) for c in row)] for name, rows in sheets for row in rows]


def _analyze(game: str, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["analyze", game, "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_q_poker_xlsx_and_csv_read_back_cell_for_cell(tmp_path: Path) -> None:
    xlsx, text = tmp_path / "par.xlsx", tmp_path / "par.csv"
    data = _analyze("q-poker", "--export", str(xlsx))
    assert _analyze("q-poker", "--export", str(text)) == data
    expected = _expected(data)
    assert read_xlsx(xlsx) == _as_workbook(expected)
    raw = text.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with BOM: the articles open as Chinese
    assert list(csv.reader(io.StringIO(raw.decode("utf-8-sig")))) == _as_csv(expected)
    # Published figures: 多寶 pays 40 to 1 on a straight flush; the house edge 128/5525.
    summary = dict(read_xlsx(xlsx))["Summary"]
    assert summary[7][:3] == ["Pair Plus", float(Decimal("0.023167420814")), "128/5525"]
    pair_plus = dict(read_xlsx(xlsx))["Pair Plus"]
    assert pair_plus[1][:6] == ["straight flush", "第十條(一)", "40 to 1", 40, "40/1", 48]
    # Byte-identical when written again (fixed zip times and document dates).
    again = tmp_path / "again.xlsx"
    _analyze("q-poker", "--export", str(again))
    assert again.read_bytes() == xlsx.read_bytes()


def test_caribbean_xlsx_pays_to_1_not_units_won(tmp_path: Path) -> None:
    caribbean("caribbean-stud.macau")  # fills the test cache the CLI reads
    path = tmp_path / "carib.xlsx"
    data = _analyze("caribbean-stud", "--rules", "caribbean-stud.macau", "--export", str(path))
    assert read_xlsx(path) == _as_workbook(_expected(data))
    rows = dict(read_xlsx(path))["Ante-Raise"]
    royal = next(r for r in rows if r[0] == "player wins with royal flush")
    assert royal[2] == "ante 1 to 1, raise 100 to 1"  # the pay, as par sheets state it
    assert royal[3:5] == [201, "201/1"]  # units won per ante: 1 + 2 x 100
    assert all(isinstance(r[3], int | float) for r in rows[1:-1])  # a number in every row
    total = rows[-1]
    assert total[0] == "total (expected value)"
    assert total[5] == 19_933_230_517_200  # every deal
    assert total[9] == "-3337606931/63888559350"  # the house edge, 5.2241% of the ante
    prog = dict(read_xlsx(path))["Progressive"]
    flush = next(r for r in prog if r[:1] == ["flush"])
    assert flush[:3] == ["flush", "第十条(二)(5)", 5108]
    assert ["PLAYER ADVANTAGE", "the prizes exceed the bets in the long run"] in prog


def test_bad_export_target_is_refused_before_the_analysis(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", "q-poker", "--export", str(tmp_path / "par.ods")])
    assert result.exit_code == 2
    assert "give a .xlsx or .csv file name" in result.output
    result = runner.invoke(app, ["analyze", "q-poker", "--export", str(tmp_path / "no/p.xlsx")])
    assert result.exit_code == 2


def test_certify_attaches_the_par_sheet(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "par-sheet"\ngame = "q-poker"\n'
        'rules = "q-poker.macau"\nexport = "xlsx"\n',
    )
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "out")
    sheet = tmp_path / "out" / "par-q-poker.xlsx"
    assert run.data["outputs"] == ["par-q-poker.xlsx"]
    section = run.data["sections"][0]["data"]
    assert read_xlsx(sheet) == _as_workbook(_expected({**section, "rules": "q-poker.macau.toml"}))
    result = dsse.verify_file(run.envelope, [key.public_key()], [sheet])
    assert result.valid, result.reasons
    assert [c.subject for c in result.inputs] == ["par-q-poker.xlsx"]
    plan.write_text(plan.read_text().replace('"xlsx"', '"ods"'), encoding="utf-8")
    with pytest.raises(Exception, match=r"plan\.toml:7: section 1 \(par-sheet\): export: 'ods'"):
        certify(plan, key, tmp_path / "out2")


def test_xlsx_shows_rates_as_percentages_and_keeps_headers_in_view(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    path = tmp_path / "par.xlsx"
    _analyze("q-poker", "--export", str(path))
    book = load_workbook(path)
    edge = book["Summary"]["B8"]
    assert (edge.value, edge.number_format) == (float(Decimal("0.023167420814")), "0.0000%")
    sheet = book["Pair Plus"]
    assert sheet.freeze_panes == "A2"
    units = sheet["D2"]
    assert (units.value, units.number_format) == (40, "General")
    assert sheet["F2"].number_format == "#,##0"  # combinations
    assert sheet["G2"].number_format == "0.000000000"  # probability
    assert sheet.cell(sheet.max_row, 1).font.bold  # the totals row
