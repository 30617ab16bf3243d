"""``tablecert hands`` and ``tablecert compare`` on a stud game named by its rule file."""

from __future__ import annotations

import json
import os
from math import comb

import pytest
from typer.testing import CliRunner

from tablecert.bundled import bundled_rule_file
from tablecert.cli import app
from tests.support.cli_support import tablecert_process

runner = CliRunner()
FOUR_CARD = "four-card-poker.standard"


def test_compare_ranks_by_the_file_and_shows_the_best_four() -> None:
    result = runner.invoke(app, ["compare", FOUR_CARD, "2s 2h 2d 7c 9c", "Ks Qs Js 9s 3d"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "A: three-of-a-kind (9c 7c 2s 2h 2d), best 4: 9c 2s 2h 2d",
        "B: flush (Ks Qs Js 9s 3d), best 4: Ks Qs Js 9s",
        "A wins: three-of-a-kind (9c 7c 2s 2h 2d), best 4: 9c 2s 2h 2d",
        "why: Rules: hand ranks: category (three-of-a-kind ranks higher) decides",
    ]


def test_compare_json_of_the_player_against_the_dealers_six() -> None:
    result = runner.invoke(
        app, ["compare", FOUR_CARD, "Ks Qs Js 9s 3d", "Kd Qd Jd 9d 3c 4h", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == FOUR_CARD
    assert data["rules"] == "four-card-poker.standard.toml"
    assert data["a"] == {
        "hand": "Ks Qs Js 9s 3d",
        "best": "Ks Qs Js 9s",
        "category": "flush",
        "key": data["b"]["key"],
    }
    assert data["b"]["best"] == "Kd Qd Jd 9d"
    assert (data["winner"], data["outcome"], data["step"]) == ("tie", 0, "ranks")
    assert data["ties"] == {"to": "player", "article": "Rules: settlement"}


def test_a_tie_says_who_takes_it() -> None:
    result = runner.invoke(app, ["compare", FOUR_CARD, "As Ad Kh Kc 2c", "Ah Ac Ks Kd 3c"])
    assert result.exit_code == 0, result.output
    assert "tie: the player takes it" in result.stdout


def test_hands_json_counts_the_five_cards_by_their_best_four() -> None:
    result = runner.invoke(app, ["hands", FOUR_CARD, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["game"], data["total"], data["cards"], data["uses"]) == (
        FOUR_CARD,
        comb(52, 5),
        5,
        4,
    )
    first = data["categories"][0]
    assert (first["category"], first["count"], first["article"]) == (
        "four-of-a-kind",
        624,
        "Rules: hand ranks",
    )
    assert first["probability"]["exact"] == "1/4165"
    assert [c["category"] for c in data["categories"]][2:5] == [
        "three-of-a-kind",
        "flush",
        "straight",
    ]


def test_hands_table_names_what_it_counts() -> None:
    result = runner.invoke(app, ["hands", FOUR_CARD])
    assert result.exit_code == 0, result.output
    assert "all 2,598,960 hands of 5 cards, each by its best 4" in result.stdout
    assert "58,656" in result.stdout  # three of a kind (with or without a pair) in five cards


def test_a_game_name_is_case_free_and_a_mistyped_one_names_the_bundled_files() -> None:
    same = runner.invoke(app, ["compare", "Four-Card-Poker.Standard", "As Ks Qs Js", "2c 3c 4c 5c"])
    assert same.exit_code == 0, same.output
    assert "A wins: straight-flush (As Ks Qs Js)" in same.stdout  # A-2-3-4 is the lowest
    proc = tablecert_process(["hands", "four-card-pokr"])
    assert proc.returncode == 2
    assert "unknown game 'four-card-pokr'; known: q-poker, caribbean-stud, " in proc.stderr
    assert "caribbean-stud.no-upcard" in proc.stderr
    assert "Did you mean 'four-card-poker.standard'?" in proc.stderr


def test_the_family_id_takes_its_file_from_rules() -> None:
    args = ["compare", "stud", "As Ad Kh Kc 2c", "Qs Qd Jh Jc 2d"]
    result = runner.invoke(app, [*args, "--rules", "caribbean-stud.no-upcard"])
    assert result.exit_code == 0, result.output
    assert "why: Rules: hand ranks: higher pair (A over Q) decides" in result.stdout
    alone = tablecert_process(args)
    assert alone.returncode == 2
    assert "unknown game 'stud'" in alone.stderr


def test_a_rule_file_path_names_its_game() -> None:
    path = str(bundled_rule_file(FOUR_CARD))
    result = runner.invoke(app, ["compare", path, "As Ks Qs Js", "2c 3c 4c 5c", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["winner"] == "a"


def test_a_hand_of_no_dealt_size_is_one_line_exit_2() -> None:
    proc = tablecert_process(["compare", FOUR_CARD, "As Ks Qs", "2c 3c 4c 5c"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "error: a hand here has 4, 5 or 6 cards, got 3: As Ks Qs\n"


def test_the_help_lists_the_bundled_games() -> None:
    result = runner.invoke(app, ["hands", "--help"], terminal_width=200)
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "q-poker, caribbean-stud," in text
    assert FOUR_CARD in text


def test_hands_of_a_side_bet_in_its_pay_tables_words() -> None:
    result = runner.invoke(app, ["hands", FOUR_CARD, "--bet", "aces-up", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["bet"], data["cards"], data["uses"], data["total"]) == (
        "aces-up",
        5,
        4,
        comb(52, 5),
    )
    assert data["title"] == "Four Card Poker (standard rules), Aces Up"
    assert {c["article"] for c in data["categories"]} == {
        "Aces Up: pay table (Live! Casino Philadelphia)"
    }
    assert data["categories"][0]["count"] == 13 * 48


def test_an_unknown_bet_is_one_line_exit_2() -> None:
    proc = tablecert_process(["hands", FOUR_CARD, "--bet", "pair-plus"])
    assert proc.returncode == 2
    assert proc.stderr == (
        "error: four-card-poker.standard.toml: no side bet 'pair-plus'; its side bets: aces-up\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
def test_hands_of_the_six_card_bonus() -> None:
    """Every six-card hand (the player's three and the dealer's three) by its best five; the
    normal run checks single six-card hands against the reference (tests/test_poker_stud.py)."""
    args = ["hands", "q-poker.six-card-bonus", "--bet", "six-card-bonus", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["total"], data["cards"], data["uses"]) == (comb(52, 6), 6, 5)
    counts = {c["category"]: c["count"] for c in data["categories"]}
    assert counts["royal-flush"] == 4 * 47  # a royal and any sixth card
    assert counts["four-of-a-kind"] == 13 * comb(48, 2)
    assert sum(counts.values()) == comb(52, 6)
