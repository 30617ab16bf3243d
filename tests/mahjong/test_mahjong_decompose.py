"""Decomposition of mahjong hands (Art. 4): the core against the slow reference decomposer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert import _core
from tablecert.errors import TileError
from tests.reference import mahjong_reference as ref
from tests.support.mahjong_strategies import complete_hands

CODES = ref.TRADITIONAL


def core_readings(hand: list[str], game: str = "traditional") -> set[tuple[tuple[str, ...], ...]]:
    """The core's readings in the reference's shape: (pair, *sorted sets) of tile codes."""
    ids = _core.parse_tiles(" ".join(hand))
    _, readings = _core.decompose_hand(ids, [], game)
    out = set()
    for pair, sets in readings:
        groups = []
        for kind, tile, _exposed in sets:
            step = 1 if kind == "chow" else 0
            groups.append(tuple(_core.tile_code(tile + i * step) for i in range(3)))
        p = _core.tile_code(pair)
        out.add(((p, p), *sorted(groups)))
    return out


@st.composite
def near_complete_hands(draw: st.DrawFn) -> list[str]:
    """A complete hand with one tile swapped: complete or not, usually not."""
    hand = draw(complete_hands())
    i = draw(st.integers(0, 13))
    new = draw(st.sampled_from(CODES[:9]))
    changed = [*hand[:i], new, *hand[i + 1 :]]
    if max(changed.count(t) for t in changed) > 4:
        return hand
    return changed


@settings(max_examples=400, deadline=None)
@given(complete_hands())
def test_complete_hands_match_reference(hand: list[str]) -> None:
    expected = ref.decompositions(hand)
    assert expected, hand
    assert core_readings(hand) == expected


@settings(max_examples=400, deadline=None)
@given(near_complete_hands())
def test_incomplete_and_complete_hands_match_reference(hand: list[str]) -> None:
    assert core_readings(hand) == ref.decompositions(hand)


def test_one_hand_several_readings() -> None:
    """111 222 333 reads as three pungs or three chows (Art. 4 allows both)."""
    hand = [*["1m", "1m", "1m", "2m", "2m", "2m", "3m", "3m", "3m"], "5p", "6p", "7p", "E", "E"]
    assert len(core_readings(hand)) == 2 == len(ref.decompositions(hand))


def test_thirteen_orphans_is_recognised() -> None:
    """Art. 6 (甲)(3): one of each orphan and one more; it has no sets-and-pair reading."""
    hand = "1m 9m 1p 9p 1s 9s E S W N Rd Gd Wd 9s"
    orphans, readings = _core.decompose_hand(_core.parse_tiles(hand), [], "traditional")
    assert orphans
    assert readings == []
    assert ref.is_thirteen_orphans(hand.split())


def test_declared_melds_join_every_reading() -> None:
    """Art. 5: an exposed pung and a concealed kong count as two of the four sets."""
    concealed = _core.parse_tiles("1m 2m 3m 7p 8p 9p 5s 5s")
    melds = [("pung", 27, True), ("kong", 31, False)]
    orphans, readings = _core.decompose_hand(concealed, melds, "traditional")
    assert not orphans
    assert len(readings) == 1
    pair, sets = readings[0]
    assert _core.tile_code(pair) == "5s"
    assert ("pung", 27, True) in sets
    assert ("kong", 31, False) in sets


@pytest.mark.parametrize(
    ("concealed", "melds", "message"),
    [
        ("1m 2m 3m 4m 5m 6m 7m 8m 9m E E E S", [], "needs 14 concealed tiles.*got 13"),
        ("1m 1m 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m", [], "5 copies of 1m"),
        ("1m 2m 3m 4m 5m 6m 7m 8m 9m E E", [("pung", 27, True)], "5 copies of E"),
        ("1m 2m 3m E E", [("chow", 7, True)] * 3, "no chow starts at 8m"),
        ("E E", [("pung", 0, True)] * 5, "5 declared melds"),
    ],
)
def test_bad_hands_are_named(
    concealed: str, melds: list[tuple[str, int, bool]], message: str
) -> None:
    with pytest.raises(TileError, match=message):
        _core.decompose_hand(_core.parse_tiles(concealed), melds, "traditional")


def test_simple_game_has_no_red_dragon() -> None:
    with pytest.raises(TileError, match="Rd is not in the Simple tile set"):
        _core.decompose_hand(_core.parse_tiles("Rd Rd Rd 1m 1m"), [], "simple")


def test_unknown_tile_code_is_named() -> None:
    with pytest.raises(TileError, match='unknown tile code "0m"'):
        _core.parse_tiles("0m 1m")
