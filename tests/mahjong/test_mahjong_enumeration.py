"""Exhaustive enumeration of complete mahjong hands and the exact tables built on it.

Published figures reproduced here (all count tile multisets of sets and a pair, no seven pairs;
the Macau statute has no seven pairs either, Art. 4):

* 11,498,658 complete 14-tile hands over the 34 kinds: the commonly quoted count of 胡牌局面
  (e.g. the note "麻将胡牌局面数为一千万个：11498658" in public mahjong-counting code, and the
  same constant used as the capacity of a Go winning-hand table).
* Project Euler problem 696 "Mahjong" (projecteuler.net/problem=696): w(4,1,1) = 20,
  w(9,1,4) = 13,259 (one suit, also endlessriichi.blogspot.com, "Computing all Chinitsu
  possibilities", 2016) and w(9,3,4) = 5,237,550 (three suits, no honours).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from tablecert import _core, mahjong
from tablecert._core import _testing
from tests.reference import mahjong_reference as ref


def test_project_euler_696_small_case() -> None:
    assert _testing.count_complete_hands([0, 1, 2, 3], 1)[0] == 20


def test_one_suit_fourteen_tiles() -> None:
    assert _testing.count_complete_hands(list(range(9)), 4)[0] == 13_259


@pytest.mark.slow
def test_three_suits_no_honours() -> None:
    assert _testing.count_complete_hands(list(range(27)), 4)[0] == 5_237_550


def test_simple_game_against_brute_force() -> None:
    """Every 5-tile multiset of the simple game's 28 kinds, checked by the reference."""
    distinct, combos, orphans, _, classes = _core.enumerate_complete_hands("simple")
    assert (distinct, combos) == ref.count_complete_simple()
    assert (distinct, combos) == (1_344, 223_776)
    assert orphans == 0
    assert sum(c[1] for c in classes) == distinct


def test_simple_game_heavenly_hand() -> None:
    """P(the dealer's 5 tiles are a set and a pair) = 223,776 / C(112, 5) = 2/1199."""
    analysis = mahjong.analyze("mahjong-simple")
    assert analysis.dealt_hands == comb(112, 5) == 134_153_712
    assert analysis.heavenly_standard == Fraction(223_776, 134_153_712) == Fraction(2, 1199)
    assert analysis.heavenly_any == analysis.heavenly_standard
    # Art. 6 (乙) has no item a dealt hand can carry: every one is a chicken hand.
    assert [(r.name, r.combinations) for r in analysis.fan_totals] == [("0 fan", 223_776)]


@pytest.fixture(scope="module")
def traditional() -> mahjong.MahjongAnalysis:
    return mahjong.analyze("mahjong-traditional")


def test_traditional_published_count(traditional: mahjong.MahjongAnalysis) -> None:
    assert traditional.distinct_standard == 11_498_658
    assert traditional.distinct_orphans == 13


def test_traditional_heavenly_hand(traditional: mahjong.MahjongAnalysis) -> None:
    """P(dealer's 14 dealt tiles are complete) over C(136, 14) = 4,250,305,029,168,216,000."""
    assert traditional.dealt_hands == comb(136, 14) == 4_250_305_029_168_216_000
    assert traditional.combinations_standard == 11_353_128_141_498
    # Thirteen Orphans: 13 choices of the paired tile, C(4,2) * 4^12 combinations each.
    assert traditional.combinations_orphans == 13 * 6 * 4**12 == 1_308_622_848
    assert traditional.heavenly_standard == Fraction(1_892_188_023_583, 708_384_171_528_036_000)
    assert 374_000 < 1 / traditional.heavenly_standard < 374_500


def test_traditional_fan_distribution(traditional: mahjong.MahjongAnalysis) -> None:
    """Dealer East, East round: fan of the best reading before the heavenly item itself."""
    totals = {r.name: r.combinations for r in traditional.fan_totals}
    assert sum(totals.values()) == (
        traditional.combinations_standard + traditional.combinations_orphans
    )
    assert totals == {
        "0 fan": 4_917_158_521_536,
        "1 fan": 6_209_041_330_260,
        "2 fan": 228_236_912_550,
    }
    items = {r.name: r for r in traditional.items}
    assert items["thirteen_orphans"].combinations == 1_308_622_848
    # Four concealed pungs + pair, all distinct kinds: 34 * C(33, 4) hands = 1,391,280.
    assert items["concealed_all_pungs"].distinct == 34 * comb(33, 4)
    # All honours: 7 pair kinds * C(6, 4) pung kinds = 105 hands, 6 * 4^4 combinations each.
    assert items["all_honours"].distinct == 105
    assert items["all_honours"].combinations == 105 * 6 * 4**4
    # Big four winds: four wind pungs and any other pair: 30 kinds.
    assert items["big_four_winds"].distinct == 30
    # All terminals: 6 terminal kinds, 4 pungs + a pair of the other two: 6 * 5 = 30 hands.
    assert items["all_terminals"].distinct == 30
    # One suit only (full flush): the 13,259 one-suit hands in each of three suits.
    assert items["full_flush"].distinct == 3 * 13_259
    assert items["big_three_dragons"].article == "第六条(甲)(3)"
