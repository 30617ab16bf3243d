"""The par sheet of a game described by its rule file (``games.stud``, ``analyze game``).

The generic engine's sheet of the four dedicated-engine files gives today's figures exactly
(the same Fractions); shards on any executor add up to the local run bit for bit; the 6 Card
Bonus' return is the published combinatorics' exact value; the command prints and emits it.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

import pytest
from rich.cells import cell_len

from tablecert.distributed import LocalExecutor
from tablecert.games import caribbean_stud, q_poker, stud
from tests.support.cli_support import tablecert

SLOW = bool(os.environ.get("TABLECERT_SLOW"))


@pytest.mark.parametrize("rules", ["q-poker.standard", "q-poker.macau"])
def test_q_poker_files_give_todays_figures(rules: str) -> None:
    sheet = stud.analyze(rules)
    today = q_poker.analyze(rules)
    assert sheet.house_edge == today.play.house_edge
    assert sheet.element_of_risk == today.play.element_of_risk
    assert sheet.decisions[1].probability == today.play.follow_probability
    (pair_plus,) = sheet.side_bets
    assert pair_plus.house_edge == today.pair_plus.house_edge
    # the outcomes cover every situation x completion exactly once
    assert sum(r.count for r in sheet.rows) == 22_100 * 18_424
    assert sum(r.probability for r in sheet.rows) == 1


def test_standard_three_card_poker_is_the_published_sheet() -> None:
    sheet = stud.analyze("q-poker.standard")
    assert f"{float(sheet.house_edge) * 100:.4f}" == "3.3730"
    assert f"{float(sheet.element_of_risk) * 100:.4f}" == "2.0147"
    assert sheet.house_edge == Fraction(686_689, 20_358_520)


@pytest.mark.parametrize(
    "rules",
    [
        "caribbean-stud.standard",
        pytest.param(
            "caribbean-stud.macau",
            marks=[
                pytest.mark.slow,
                pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1"),
            ],
        ),
    ],
)
def test_caribbean_files_give_todays_figures(rules: str) -> None:
    sheet = stud.analyze(rules)
    today = caribbean_stud.analyze(rules, use_cache=False)
    assert sheet.house_edge == today.house_edge
    assert sheet.element_of_risk == today.element_of_risk
    assert sheet.decisions[1].probability == today.raise_probability


def test_six_card_bonus_is_the_exact_combinatorics() -> None:
    sheet = stud.analyze("q-poker.six-card-bonus")
    bonus = next(b for b in sheet.side_bets if b.hands == 20_358_520)
    # 188 royal flushes, 1,656 straight flushes, ... of C(52, 6) six-card hands, paid
    # 1000-200-100-20-15-10-7: 8.5614% (published as "just over 8.5%").
    assert bonus.house_edge == Fraction(1_742_976, 20_358_520)
    counts = {r.event: r.count for r in bonus.rows}
    assert counts["royal-flush"] == 188
    assert counts["three-of-a-kind"] == 732_160
    # the main game is standard Three Card Poker's
    assert sheet.house_edge == Fraction(686_689, 20_358_520)


@pytest.mark.parametrize("rules", ["q-poker.six-card-bonus", "caribbean-stud.no-upcard"])
def test_shards_add_up_to_the_local_run(rules: str) -> None:
    local = stud.analyze(rules).as_json()
    seen: list[tuple[int, int]] = []
    sharded = stud.analyze(
        rules,
        executor=LocalExecutor(),
        shards_count=3,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert sharded.as_json() == local
    assert seen[-1] == (3, 3)


def test_the_command_prints_and_emits_the_sheet() -> None:
    run = tablecert(["analyze", "game", "q-poker.six-card-bonus", "--json"])
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["schema"] == "tablecert.stud-analysis/1"
    assert data["house_edge"]["exact"] == "686689/20358520"
    assert [b["id"] for b in data["side_bets"]] == ["pair_plus", "six-card-bonus"]
    text = tablecert(["analyze", "game", "q-poker.six-card-bonus"], env={"COLUMNS": "80"})
    assert text.code == 0, text.stderr
    assert "house edge: 3.3730% of the ante (686689/20358520)" in text.stdout
    # Every table fits 80 columns (the title line is soft-wrapped by the terminal).
    assert max(cell_len(line) for line in text.stdout.splitlines()[1:]) <= 80


def test_a_file_without_a_stud_game_is_an_input_error() -> None:
    run = tablecert(["analyze", "game", "mahjong-simple.macau"])
    assert run.code == 2
    assert run.error_lines[0].startswith("error: ")
