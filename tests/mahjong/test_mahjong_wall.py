"""The wall and the deal of Art. 3, for both games, under the documented wall-order convention
(python/tablecert/mahjong/wall.py): index = (row * stacks + stack) * 2 + layer, row 0..3 in
front of E S W N, stacks counted from the row's right end, layer 0 on top."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert import _core, mahjong
from tablecert.errors import MahjongError

TRAD = "mahjong-traditional"
SIMPLE = "mahjong-simple"
FULL_TRAD = [t for t in _core.tile_types("traditional") for _ in range(4)]
FULL_SIMPLE = [t for t in _core.tile_types("simple") for _ in range(4)]


def test_art3_traditional_statute_example() -> None:
    """Dice total 13 (the statute's example): the dealer's own row (13 = 1 + 4 * 3), 13 stacks
    counted from its right, 4 stacks left: the dealer takes stacks 13-14 of that row (wall
    positions 26..29), South stacks 15-16 (30..33), West the first two stacks of North's row,
    which continues the wall to the left (positions 102..105)."""
    d = mahjong.deal(TRAD, FULL_TRAD, [6, 4, 3])
    assert (d.break_row, d.break_stack) == ("E", 13)
    assert d.positions["E"][:4] == (26, 27, 28, 29)
    assert d.positions["S"][:4] == (30, 31, 32, 33)
    assert d.positions["W"][:4] == (102, 103, 104, 105)
    assert {s: len(t) for s, t in d.hands.items()} == {"E": 14, "S": 13, "W": 13, "N": 13}
    # 挑牌: after 48 tiles the dealer takes the top tiles of the 1st and 3rd next stacks (two
    # stacks on: 4 positions), then S, W, N the next tiles left: the 1st stack's bottom, the
    # 2nd stack top then bottom.
    first = d.positions["E"][12]
    assert d.positions["E"][13] == first + 4
    assert [d.positions[s][12] for s in "SWN"] == [first + 1, first + 2, first + 3]
    assert len(d.live) == 136 - 53 == len(d.tail)


def test_art3_simple_statute_example() -> None:
    """Dice total 9: the dealer's row, 9 stacks from the right, 5 left (the statute's
    example): E takes stack 9 (positions 18, 19), then S, W, N one stack each, twice; the
    dealer takes one more tile: 5 tiles, the others 4."""
    d = mahjong.deal(SIMPLE, FULL_SIMPLE, [4, 5])
    assert (d.break_row, d.break_stack) == ("E", 9)
    assert d.positions["E"][:2] == (18, 19)
    assert d.positions["S"][:2] == (20, 21)
    assert {s: len(t) for s, t in d.hands.items()} == {"E": 5, "S": 4, "W": 4, "N": 4}
    assert len(d.live) == 112 - 17


def test_dice_total_picks_row_counter_clockwise() -> None:
    """Totals 2, 3, 4, 5: South's, West's, North's, East's row (dealer = 1)."""
    rows = [mahjong.deal(SIMPLE, FULL_SIMPLE, [1, t - 1]).break_row for t in (2, 3, 4, 5)]
    assert rows == ["S", "W", "N", "E"]


def test_tail_is_the_other_end() -> None:
    """Kong replacements come from the end of the wall: the last stack's top tile first."""
    d = mahjong.deal(TRAD, FULL_TRAD, [6, 4, 3])
    # The last stack in draw order is the 13th stack counted (index 12) of East's row.
    assert d.tail[:2] == (24, 25)
    # The live wall starts with the bottom tile of the stack whose top the dealer took.
    stacks = zip(d.live[-2:0:-2], d.live[-1:0:-2], strict=True)
    assert d.tail == (*(p for pair in stacks for p in pair), d.live[0])


@settings(max_examples=60, deadline=None)
@given(st.permutations(FULL_TRAD), st.lists(st.integers(1, 6), min_size=3, max_size=3))
def test_deal_partitions_the_wall(wall: list[int], dice: list[int]) -> None:
    """Every tile goes to exactly one hand or stays in the wall, and the tiles are the logged
    tiles at those positions."""
    d = mahjong.deal(TRAD, wall, dice)
    positions = [p for ps in d.positions.values() for p in ps] + list(d.live)
    assert sorted(positions) == list(range(136))
    assert sorted(d.tail) == sorted(d.live)
    for seat, tiles in d.hands.items():
        assert list(tiles) == [wall[p] for p in d.positions[seat]]
    dealt = Counter(t for tiles in d.hands.values() for t in tiles)
    assert dealt + Counter(wall[p] for p in d.live) == Counter(FULL_TRAD)


def test_simple_game_with_two_players() -> None:
    d = mahjong.deal(SIMPLE, FULL_SIMPLE, [3, 3], players=["E", "W"])
    assert {s: len(t) for s, t in d.hands.items()} == {"E": 5, "W": 4}
    assert d.positions["W"][:2] == (d.positions["E"][1] + 1, d.positions["E"][1] + 2)


@pytest.mark.parametrize(
    ("game", "wall", "dice", "message"),
    [
        (TRAD, FULL_TRAD[:-1], [1, 2, 3], "has 136 tiles.*the log has 135"),
        (TRAD, [*FULL_TRAD[:-1], 0], [1, 2, 3], "5 copies of 1m"),
        (TRAD, FULL_TRAD, [1, 2], "3 dice"),
        (TRAD, FULL_TRAD, [1, 2, 7], "3 dice"),
        (SIMPLE, FULL_TRAD[:112], [1, 2], "not in the Simple tile set"),
    ],
)
def test_bad_walls_are_named(game: str, wall: list[int], dice: list[int], message: str) -> None:
    with pytest.raises((MahjongError, ValueError), match=message):
        mahjong.deal(game, wall, dice)
