"""A game record read into typed data before it is replayed (tablecert.mahjong.game_record):
the deal and the events as the record gives them, and what cannot be read refused by key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.mahjong.game_record import Event, read_game_record

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mahjong"


def first_record() -> dict[str, Any]:
    text = (FIXTURES / "games-traditional.jsonl").read_text(encoding="utf-8")
    record: dict[str, Any] = json.loads(text.splitlines()[0])
    return record


def test_the_record_is_read_into_typed_events_and_a_dealt_wall() -> None:
    record = first_record()
    read = read_game_record(record, None, lambda key: "hand.json")
    assert (read.game, read.limit, read.round_wind, read.seats) == (
        "mahjong-traditional",
        "1000/2000",
        "W",  # the record's round wind
        ["E", "S", "W", "N"],
    )
    assert len(read.events) == len(record["play"])
    assert read.events[0] == Event("E", "discard", _core.parse_tiles("1s")[0], {})
    assert read.events[5] == Event("S", "pung", _core.parse_tiles("7m 7m 7m"), {})
    assert sorted(len(hand) for hand in read.start.hands.values()) == [13, 13, 13, 14]
    assert read.start.live is not None
    assert read.start.tail is not None
    assert read.start.remaining == len(read.start.live) == 136 - 53
    assert read.rules.game == "mahjong-traditional"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"play": []}, "hand.json: play: expected a non-empty list of events"),
        ({"format": "other/1"}, "hand.json: format: expected 'tablecert-mahjong-game/1'"),
        ({"deal": {}}, "hand.json: deal: give the wall and dice or the deal, not both"),
    ],
)
def test_what_cannot_be_read_is_refused_naming_the_key(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(MahjongError) as caught:
        read_game_record({**first_record(), **change}, None, lambda key: "hand.json")
    assert str(caught.value) == message
