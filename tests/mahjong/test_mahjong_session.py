"""A session of hands under Art. 3: the dealer keeps the deal by winning, otherwise it passes
to the right (South); the round wind moves on when the deal has gone round the table. Hands
are records of the bundled corpus with the round wind set; the dealers are worked out by hand
in each docstring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import MahjongError
from tablecert.mahjong.session import replay_session
from tests.support.mahjong_strategies import variant_rules

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mahjong"
TRAD = "mahjong-traditional"
PLAYERS = ["Ann", "Bo", "Cy", "Di"]
RECORDS = [
    json.loads(line)
    for line in (FIXTURES / "games-traditional.jsonl").read_text(encoding="utf-8").splitlines()
]
# Corpus records by outcome: 5 the dealer wins, 9 drawn, 16 South wins, 14 North wins,
# 2 a false win by North, 0 South wins.
PLAN = [(5, "Ann", "E"), (9, "Ann", "E"), (16, "Bo", "E"), (14, "Cy", "E"), (2, "Di", "E")]
PLAN += [(0, "Ann", "S")]


def session(plan: list[tuple[int, str, str]]) -> dict[str, Any]:
    hands = []
    for index, dealer, wind in plan:
        record = {**RECORDS[index], "round_wind": wind}
        hands.append({"dealer": dealer, "record": record})
    return {"game": TRAD, "players": PLAYERS, "hands": hands}


def test_deal_and_rounds_follow_art3() -> None:
    """Ann deals and wins (keeps the deal); the next hand is drawn (the deal passes, the
    default reading) to Bo; South wins, the deal passes to Cy; North wins, to Di; a false win
    by North passes it back to Ann: four passes, the South round begins."""
    played = replay_session(session(PLAN))
    assert played.valid, [(k, v.text) for k, v in played.violations]
    assert [h.outcome for h in played.hands] == [
        "win",
        "drawn",
        "win",
        "win",
        "false-win",
        "win",
    ]


def test_wrong_dealer_or_round_is_refused() -> None:
    """After Ann won, Bo dealing the next hand is refused (第三条(甲)); so is staying in the
    East round after four passes."""
    wrong = PLAN.copy()
    wrong[1] = (9, "Bo", "E")
    played = replay_session(session(wrong))
    assert [(k, v.article) for k, v in played.violations] == [(2, "第三条(甲)")]
    assert "the deal gives Ann in the E round" in played.violations[0][1].message
    late = PLAN.copy()
    late[5] = (0, "Ann", "E")
    assert [k for k, _ in replay_session(session(late)).violations] == [6]


def test_drawn_hand_reading(tmp_path: Path) -> None:
    """Read as "the dealer stays after a drawn hand", Ann deals the third hand too, and the
    session above is refused at hand 3."""
    text = Path(__file__).resolve().parents[2] / "fixtures" / "rules" / f"{TRAD}.macau.toml"
    line = next(
        x
        for x in text.read_text(encoding="utf-8").splitlines()
        if x.startswith("dealer_after_drawn_hand")
    )
    variant = variant_rules(tmp_path, TRAD, line, line.replace('"passes"', '"stays"', 1))
    played = replay_session(session(PLAN), variant)
    assert [(k, v.article) for k, v in played.violations] == [(3, "第三条(甲)")]
    stays = [(5, "Ann", "E"), (9, "Ann", "E"), (16, "Ann", "E")]
    assert replay_session(session(stays), variant).valid


def test_session_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session(PLAN)), encoding="utf-8")
    result = runner.invoke(app, ["mahjong", "replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [h["dealer"] for h in data["hands"]] == ["Ann", "Ann", "Bo", "Cy", "Di", "Ann"]
    bad = session([(5, "Ann", "E"), (9, "Bo", "E")])
    path.write_text(json.dumps(bad), encoding="utf-8")
    result = runner.invoke(app, ["mahjong", "replay", str(path)])
    assert result.exit_code == 1
    assert "hand 2" in result.stdout
    assert "第三条(甲)" in result.stdout


def test_malformed_session() -> None:
    with pytest.raises(MahjongError, match=r"players: expected 2 to 4 distinct player names"):
        replay_session({"game": TRAD, "players": ["Ann", "Ann"], "hands": []})
    with pytest.raises(MahjongError, match=r"hands\[0\]\.dealer: 'Zed' is not one of"):
        replay_session(
            {"game": TRAD, "players": PLAYERS, "hands": [{"dealer": "Zed", "record": RECORDS[0]}]}
        )


runner = CliRunner()
