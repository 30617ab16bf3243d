"""Mahjong tile codes and tile sets (Art. 2(2) of the mahjong statute)."""

from __future__ import annotations

import pytest

from tablecert import _core
from tablecert.errors import TileError


def test_codes_and_spellings() -> None:
    assert [_core.tile_code(t) for t in _core.parse_tiles("1m 9p 5s E N Rd Gd Wd")] == [
        "1m",
        "9p",
        "5s",
        "E",
        "N",
        "Rd",
        "Gd",
        "Wd",
    ]
    assert _core.parse_tiles("一萬 五筒 九索 東 中 發 白") == [0, 13, 26, 27, 31, 32, 33]


def test_tile_sets() -> None:
    assert len(_core.tile_types("traditional")) == 34
    simple = _core.tile_types("simple")
    assert len(simple) == 28
    assert _core.parse_tiles("Gd")[0] in simple
    assert _core.parse_tiles("Rd")[0] not in simple


@pytest.mark.parametrize(
    ("text", "tile_set", "message"),
    [
        ("0m", "traditional", '"0m"'),
        ("1m 1m 1m 1m 1m", "traditional", "5 copies of 1m"),
        ("Rd", "simple", "Rd is not in the Simple tile set"),
    ],
)
def test_bad_tiles_are_named(text: str, tile_set: str, message: str) -> None:
    with pytest.raises(TileError, match=message):
        _core.tile_counts(_core.parse_tiles(text), tile_set)
