"""``tablecert hands`` and ``tablecert compare`` through Typer's test runner."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tablecert.cli import app
from tests.support.cli_support import tablecert_process

runner = CliRunner()


def test_hands_json_is_exact() -> None:
    result = runner.invoke(app, ["hands", "caribbean-stud", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["total"] == 2_598_960
    royal = data["categories"][0]
    assert royal == {
        "article": "第八条(一)",
        "category": "royal flush",
        "count": 4,
        "probability": {"exact": "1/649740", "decimal": "0.000001539077"},
        "one_in": "649740.0000",
    }


def test_hands_table_for_people() -> None:
    result = runner.invoke(app, ["hands", "q-poker"])
    assert result.exit_code == 0
    assert "16,440" in result.stdout
    assert "12/5525" in result.stdout


def test_compare_names_the_deciding_rule() -> None:
    result = runner.invoke(app, ["compare", "q-poker", "9s 9h 5d", "9c 9d 5s"])
    assert result.exit_code == 0
    assert "B wins" in result.stdout
    assert "第八條(五): the kicker's suit (spades over diamonds) decides" in result.stdout


def test_compare_json() -> None:
    result = runner.invoke(
        app, ["compare", "caribbean-stud", "Ts Td 9d 7c 6c", "Tc Th 9s 7s 6s", "--json"]
    )
    data = json.loads(result.stdout)
    assert data["winner"] == "a"
    assert data["article"] == "第八条(九)"


def test_bad_card_is_one_line_exit_2() -> None:

    from tablecert.cli import main

    del main
    proc = tablecert_process(["compare", "q-poker", "1x As Kd", "2s 3h 4d"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert 'unknown card code "1x"' in proc.stderr
    assert "Traceback" not in proc.stderr


def test_usage_error_exits_2() -> None:
    result = runner.invoke(app, ["compare", "q-poker"])
    assert result.exit_code == 2


def test_every_command_has_help() -> None:
    for command in ([], ["hands"], ["compare"]):
        result = runner.invoke(app, [*command, "--help"])
        assert result.exit_code == 0
        assert "Usage" in result.stdout
