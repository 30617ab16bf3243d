"""``tablecert analyze`` through Typer's test runner (Caribbean runs read the test cache)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.games import caribbean_stud
from tests.support.cli_support import tablecert_process
from tests.support.games_support import CACHE, caribbean
from tests.support.imports_probe import modules_imported

runner = CliRunner()


def test_q_poker_json() -> None:
    result = runner.invoke(app, ["analyze", "q-poker", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["pair_plus"]["house_edge"]["exact"] == "128/5525"
    assert data["play"]["strategy"]["weakest_always_followed"] == "Q-6-4 (high card)"


def test_q_poker_par_sheet_for_people() -> None:
    result = runner.invoke(app, ["analyze", "q-poker", "--rules", "q-poker.standard"])
    assert result.exit_code == 0, result.output
    assert "house edge: 3.3730% of the initial bet" in result.stdout
    assert "follow with Q-6-4 (high card) or better, fold the rest" in result.stdout


def test_caribbean_json_and_export(tmp_path: Path) -> None:
    expected = caribbean("caribbean-stud.standard")  # fills the cache the CLI reads
    result = runner.invoke(
        app,
        [
            "analyze",
            "caribbean-stud",
            "--rules",
            "caribbean-stud.standard",
            "--json",
            "--export-strategy",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["house_edge"] == json.loads(json.dumps(expected.as_json()["house_edge"]))
    assert data["house_edge"]["decimal"].startswith("0.05224")
    assert (tmp_path / "caribbean-decisions.u64le").stat().st_size == 8 * 2_598_960


def test_caribbean_json_builds_the_par_sheet_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --export the par sheet (its strategy summary and royal curve) is built only
    for the JSON printed, not a second time for an export nobody asked for."""
    expected = caribbean("caribbean-stud.standard")  # fills the cache the CLI reads
    calls = []
    as_json = caribbean_stud.CaribbeanAnalysis.as_json

    def counted(self: caribbean_stud.CaribbeanAnalysis) -> dict[str, Any]:
        calls.append(1)
        return as_json(self)

    monkeypatch.setattr(caribbean_stud.CaribbeanAnalysis, "as_json", counted)
    args = ["analyze", "caribbean-stud", "--rules", "caribbean-stud.standard", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(calls) == 1
    data = json.loads(result.stdout)
    assert data.pop("schema") == "tablecert.analyze-caribbean-stud/1"
    want = json.loads(json.dumps(as_json(expected)))
    mine = {"figures", "tablecert_version"}  # where the figures came from; the version
    assert {k: v for k, v in data.items() if k not in mine} == {
        k: v for k, v in want.items() if k not in mine
    }


def test_the_analyze_commands_import_what_they_run_only() -> None:
    """``analyze caribbean-stud`` (and a --cluster client's start) never imports the mahjong
    package, Q Poker's analysis, the paytable sweep or numpy.typing; ``analyze mahjong-simple``
    imports mahjong, when it runs."""
    others = ["tablecert.games.q_poker", "tablecert.games.sweep", "numpy.typing"]
    names = ["tablecert.mahjong", "tablecert.cli.mahjong"]
    assert modules_imported("import tablecert.cli.analyze", names + others) == []
    run = "from tablecert.cli import app\ntry: app(['analyze', 'mahjong-simple', '--json'])\n"
    assert modules_imported(run + "except SystemExit: pass", names) == sorted(names)


def test_royal_outside_the_statute_is_one_line_exit_2() -> None:
    proc = tablecert_process(
        ["analyze", "caribbean-stud", "--royal", "120"],
        env={"TABLECERT_CACHE": str(CACHE), "PATH": ""},
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: royal payout 120 is outside the statute's 50..100"
    ]


def test_q_poker_export_has_every_hand(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", "q-poker", "--export-strategy", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "q-poker-decisions.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 22_100
    assert lines[1] == "2h 2c 2d,three of a kind,57721/36848,-1/2,follow"
    assert sum(line.endswith(",follow") for line in lines) == 14_906


def test_caribbean_cap_curve_in_json() -> None:
    caribbean("caribbean-stud.macau")  # fills the cache the CLI reads
    result = runner.invoke(app, ["analyze", "caribbean-stud", "--json", "--cap-curve", "0,40"])
    assert result.exit_code == 0, result.output
    curve = json.loads(result.stdout)["cap_curve"]
    assert [p["maximum_payout"] for p in curve] == ["0", "40"]
    assert curve[1]["house_edge"]["decimal"] > curve[0]["house_edge"]["decimal"]
    bad = runner.invoke(app, ["analyze", "caribbean-stud", "--cap-curve", "x"])
    assert bad.exit_code == 2


def test_command_line_values_are_blamed_on_their_option(tmp_path: Path) -> None:
    cap = runner.invoke(app, ["analyze", "caribbean-stud", "--cap", "-1"])
    assert cap.exit_code == 2
    assert "--cap" in cap.output
    assert "rules" not in cap.output.lower()
    for spec in ("1/0", "-5", "0,-5", "x"):
        curve = runner.invoke(app, ["analyze", "caribbean-stud", "--cap-curve", spec])
        assert curve.exit_code == 2, (spec, curve.output)
        assert curve.stderr.startswith(f"error: --cap-curve {spec!r}: ")
        assert len(curve.stderr.splitlines()) == 1
        assert curve.exception is None or isinstance(curve.exception, SystemExit)


def test_export_targets_are_checked_before_the_analysis(tmp_path: Path) -> None:
    existing = tmp_path / "afile"
    existing.write_text("keep\n")
    for target, message in (
        (existing, "exists and is not a folder"),
        (tmp_path / "missing" / "out", "does not exist"),
        (Path("/dev/null"), "exists and is not a folder"),
    ):
        for game in ("q-poker", "caribbean-stud"):
            result = runner.invoke(app, ["analyze", game, "--export-strategy", str(target)])
            assert result.exit_code == 2, (game, target, result.output)
            assert "--export-strategy" in result.output
            assert result.stderr.splitlines() == [
                f"error: --export-strategy: {target}: the folder {target.parent} does not exist"
                if message == "does not exist"
                else f"error: --export-strategy: {target} exists and is not a folder"
            ]
            assert result.exception is None or isinstance(result.exception, SystemExit)
    assert existing.read_text() == "keep\n"
    assert not (tmp_path / "missing").exists()


def test_an_exported_strategy_is_replaced_only_with_force(tmp_path: Path) -> None:
    old = tmp_path / "q-poker-decisions.csv"
    old.write_text("old\n")
    refused = runner.invoke(app, ["analyze", "q-poker", "--export-strategy", str(tmp_path)])
    assert refused.exit_code == 2
    assert "--force" in refused.output
    assert old.read_text() == "old\n"
    forced = runner.invoke(
        app, ["analyze", "q-poker", "--export-strategy", str(tmp_path), "--force"]
    )
    assert forced.exit_code == 0, forced.output
    assert len(old.read_text().splitlines()) == 1 + 22_100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q-poker-decisions.csv"]
