"""``tablecert mahjong score`` and ``tablecert analyze mahjong-...`` through Typer's test runner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import MahjongError
from tests.support.cli_support import tablecert_process
from tests.support.mahjong_support import CHICKEN_RECORD, NO_KONG

runner = CliRunner()
TRAD = "mahjong-traditional"


def test_score_json_lists_items_with_articles() -> None:
    """South, East round, on a discard: pung of E (round wind, 1) + pung of 中 (1) = 2 fan;
    at 100/200 the dealer pays 400, West and North 200 each (第七条)."""
    result = runner.invoke(
        app,
        [
            "mahjong",
            "score",
            "mahjong-traditional",
            NO_KONG,
            "--seat",
            "S",
            "--round",
            "E",
            "--discard",
            "--limit",
            "100/200",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["fan"] == 2
    assert sorted((i["item"], i["article"]) for i in data["items"]) == [
        ("dragon_pung", "第六条(甲)(2)"),
        ("round_wind_pung", "第六条(甲)(2)"),
    ]
    amounts = {(p["payer"], p["amount"]) for p in data["settlement"]["payments"]}
    assert amounts == {("E", "400"), ("W", "200"), ("N", "200")}
    assert data["settlement"]["commission"] == "40"


def test_score_table_for_people() -> None:
    result = runner.invoke(
        app,
        [
            "mahjong",
            "score",
            "mahjong-traditional",
            "1m 9m 1p 9p 1s 9s E S W N Rd Gd Wd Wd",
            "--self-drawn",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "thirteen_orphans" in result.stdout
    assert "第六条(甲)(3)" in result.stdout


def test_score_simple_game_green_dragon() -> None:
    result = runner.invoke(app, ["mahjong", "score", "mahjong-simple", "1m 2m 3m Gd Gd", "--json"])
    data = json.loads(result.stdout)
    assert data["fan"] == 1
    assert data["items"][0]["item"] == "green_dragon_winning_tile"


def test_analyze_simple_json() -> None:
    result = runner.invoke(app, ["analyze", "mahjong-simple", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["distinct_complete_standard"] == 1344
    assert data["heavenly_hand_standard"] == {"exact": "2/1199", "decimal": "0.001668056714"}


def test_analyze_traditional_table() -> None:
    result = runner.invoke(app, ["analyze", "mahjong-traditional"])
    assert result.exit_code == 0, result.output
    assert "11,498,658" in result.stdout
    assert "1892188023583/708384171528036000" in result.stdout


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s Zz", 'unknown tile code "Zz"'),
        ("1m 1m 1m 1m 1m 2m 3m 4p 5p 6p 7s 8s 9s 5s", "5 copies of 1m"),
        ("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s", "needs 14 concealed tiles.*got 13"),
    ],
)
def test_bad_hands_one_line_exit_2(hand: str, message: str) -> None:
    proc = tablecert_process(["mahjong", "score", "mahjong-traditional", hand])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert re.search(message, " ".join(proc.stderr.split())), proc.stderr


def test_unknown_game_exit_2() -> None:
    proc = tablecert_process(["mahjong", "score", "mahjong-fast", "1m 1m"])
    assert proc.returncode == 2
    assert "unknown game 'mahjong-fast'; known: mahjong-traditional, mahjong-simple" in proc.stderr


def test_every_command_has_help() -> None:
    for command in (
        ["mahjong"],
        ["mahjong", "score"],
        ["mahjong", "settle"],
        ["analyze", "mahjong-traditional"],
    ):
        result = runner.invoke(app, [*command, "--help"])
        assert result.exit_code == 0
        assert "Usage" in result.stdout


def test_settle_a_record(tmp_path: Path) -> None:
    """South's chicken hand on West's discard at 25/50: E pays 50, W and N 25; commission 10."""
    record = tmp_path / "game.json"
    record.write_text(
        json.dumps(CHICKEN_RECORD),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["mahjong", "settle", str(record), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["fan"]["fan"] == 0
    amounts = {(p["payer"], p["amount"]) for p in data["settlement"]["payments"]}
    assert amounts == {("E", "50"), ("W", "25"), ("N", "25")}
    assert data["settlement"]["commission"] == "10"


def test_score_refuses_kong_replacements_without_kongs() -> None:
    """The issue's case: 槓上槓 on a hand with no kong; the option's help says what it needs."""
    too_many = runner.invoke(app, ["mahjong", "score", TRAD, NO_KONG, "--kong-replacements", "5"])
    assert too_many.exit_code == 2
    result = runner.invoke(
        app, ["mahjong", "score", TRAD, NO_KONG, "--kong-replacements", "2", "--self-drawn"]
    )
    assert result.exit_code != 0
    assert "槓上槓 needs as many kongs, the hand declares 0" in str(result.exception)
    help_text = runner.invoke(app, ["mahjong", "score", "--help"]).stdout
    assert "槓上槓" in help_text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"stake": "abc"', "stake: expected a positive number, got 'abc'"),
        ('"stake": NaN', "NaN is not a number JSON allows"),
        ('"winner": "E"', "duplicate key 'winner'"),
        ('"context": {"win_by": "discard", "last_tile": "false"}', "context.last_tile"),
    ],
)
def test_settle_refuses_bad_records_with_file_line_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "game.json"
    path.write_text(
        '{"game": "mahjong-traditional", "limit": "100/200", "winner": "S",\n'
        ' "hand": "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s",\n'
        f" {text}\n}}\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["mahjong", "settle", str(path)])
    assert result.exit_code != 0
    assert isinstance(result.exception, MahjongError), result.exception
    assert str(result.exception).startswith(f"{path}:3: ")
    assert message in str(result.exception)


def test_settle_malformed_record_exits_2_with_one_line(tmp_path: Path) -> None:
    """Through the installed entry point: no traceback, one line naming file, line and key."""
    path = tmp_path / "game.json"
    path.write_text(
        '{"game": "mahjong-traditional", "limit": "100/200", "winner": "S",\n'
        ' "hand": "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s",\n'
        ' "stake": [1]}\n',
        encoding="utf-8",
    )
    done = tablecert_process(["mahjong", "settle", str(path)])
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {path}:3: stake: expected a positive number, got a list"
    ]
