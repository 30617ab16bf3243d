"""Fan of a win, Art. 6 of the mahjong statute: one or more cases per item, both games.

Each test's docstring works out the expected fan by hand. Unless said otherwise the winner
sits South in the East round and wins on a discard, so neither E nor S pungs score by accident.
Default reading (fixtures/rules/*.toml): items add, the sum is capped at 2 (第六条(甲)(3)).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tablecert import mahjong
from tablecert.errors import MahjongError, TileError
from tablecert.mahjong import Context
from tests.reference import mahjong_reference as ref
from tests.support.mahjong_strategies import complete_hands, variant_rules

TRAD = "mahjong-traditional"
SIMPLE = "mahjong-simple"


def fan_of(
    hand: str, game: str = TRAD, winning_tile: str | None = None, **context: Any
) -> mahjong.FanResult:
    base: dict[str, Any] = {"seat": "S", "round_wind": "E", "win_by": "discard"}
    base.update(context)
    return mahjong.score(mahjong.parse_hand(game, hand, winning_tile), Context(**base))


def names(result: mahjong.FanResult) -> list[str]:
    return sorted(i.name for i in result.items)


def test_art6_1_chicken_hand() -> None:
    """123m 456p 789s + pung 2m + pair 5s: nothing scores: 0 fan, a chicken hand."""
    r = fan_of("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s")
    assert (names(r), r.fan) == (["chicken_hand"], 0)
    assert r.items[0].article == "第六条(甲)(1)"


def test_art6_2_dragon_pung() -> None:
    """Exposed pung of 中 + three chows + pair: dragon pung, 1 fan."""
    r = fan_of("1m 2m 3m 4p 5p 6p 7s 8s 9s 5s 5s [Rd Rd Rd]")
    assert (names(r), r.fan) == (["dragon_pung"], 1)
    assert r.items[0].article == "第六条(甲)(2)"


def test_art6_2_round_and_seat_wind_pungs() -> None:
    """South seat, East round: a pung of E is the round wind (1), of S the seat wind (1);
    both together 2; a pung of W scores nothing."""
    base = "1m 2m 3m 4p 5p 6p 5s 5s"
    assert names(fan_of(f"{base} 7s 8s 9s [E E E]")) == ["round_wind_pung"]
    assert names(fan_of(f"{base} 7s 8s 9s [S S S]")) == ["seat_wind_pung"]
    both = fan_of(f"{base} [E E E] [S S S]")
    assert (names(both), both.fan) == (["round_wind_pung", "seat_wind_pung"], 2)
    assert names(fan_of(f"{base} 7s 8s 9s [W W W]")) == ["chicken_hand"]


def test_art6_3_double_wind_pung() -> None:
    """East seat in the East round: a pung of E is both winds, 2 fan (replacing the two 1s)."""
    r = fan_of("1m 2m 3m 4p 5p 6p 7s 8s 9s 5s 5s [E E E]", seat="E")
    assert (names(r), r.fan) == (["double_wind_pung"], 2)


def test_art6_2_robbing_a_kong() -> None:
    """A chicken hand won on 8s robbed from a kong (the hand holds no other 8s): 1 fan."""
    r = fan_of("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s", winning_tile="8s", win_by="robbed-kong")
    assert (names(r), r.fan) == (["robbing_kong"], 1)


def test_art6_kong_replacement_once_and_twice() -> None:
    """Self-drawn on a kong replacement: 1 fan (槓上花); on a second one in a row: 2 (槓上槓),
    which needs a second kong."""
    hand = "1m 2m 3m 4p 5p 6p 5s 5s [7p 7p 7p 7p] (9s 9s 9s 9s)"
    once = fan_of(hand, win_by="self-drawn", kong_replacements=1)
    assert (names(once), once.fan) == (["kong_replacement"], 1)
    twice = fan_of(hand, win_by="self-drawn", kong_replacements=2)
    assert (names(twice), twice.fan) == (["double_kong_replacement"], 2)


def test_art6_2_all_pungs_exposed_and_3_concealed() -> None:
    """Four pungs + pair with two exposed: 對對糊 1 fan. All concealed: 2 fan (暗對對)."""
    exposed = fan_of("9s 9s 9s 2m 2m 2m 7p 7p [1m 1m 1m] [5p 5p 5p]")
    assert (names(exposed), exposed.fan) == (["all_pungs"], 1)
    hidden = fan_of("9s 9s 9s 2m 2m 2m 7p 7p 1m 1m 1m 5p 5p 5p", win_by="self-drawn")
    assert (names(hidden), hidden.fan) == (["concealed_all_pungs"], 2)


def test_art6_2_all_chows_and_its_pair() -> None:
    """Four chows + pair 9p: 平糊 1 fan. A dragon pair, or the seat wind's, spoils it; the pair
    of a wind that is neither seat nor round wind does not."""
    chows = "1m 2m 3m 4m 5m 6m 2p 3p 4p 6s 7s 8s"
    r = fan_of(f"{chows} 9p 9p")
    assert (names(r), r.fan) == (["all_chows"], 1)
    assert names(fan_of(f"{chows} Rd Rd")) == ["chicken_hand"]
    assert names(fan_of(f"{chows} S S")) == ["chicken_hand"]
    assert names(fan_of(f"{chows} W W")) == ["all_chows"]


def test_art6_all_chows_needs_the_chow_reading() -> None:
    """111 222 333m 789p + 99s reads as three pungs or three chows: the chow reading gives
    平糊 (1 fan) and the pung reading nothing, so the hand is scored 1 fan."""
    r = fan_of("1m 1m 1m 2m 2m 2m 3m 3m 3m 7p 8p 9p 9s 9s")
    assert (names(r), r.fan) == (["all_chows"], 1)
    assert len(mahjong.parse_hand(TRAD, "1m 1m 1m 2m 2m 2m 3m 3m 3m 7p 8p 9p 9s 9s").readings) == 2


def test_art6_2_half_flush() -> None:
    """Characters + honours (E pung unscored for West seat in the North round): 1 fan."""
    r = fan_of("1m 1m 1m 4m 5m 6m 7m 8m 9m S S [E E E]", seat="W", round_wind="N")
    assert (names(r), r.fan) == (["half_flush"], 1)


def test_art6_3_half_flush_all_chows() -> None:
    """Four character chows + pair W (not scoring for South in East round): 2 fan,
    replacing half flush and all chows."""
    r = fan_of("1m 2m 3m 4m 5m 6m 7m 8m 9m 2m 3m 4m W W")
    assert (names(r), r.fan) == (["half_flush_all_chows"], 2)


def test_art6_2_last_tile() -> None:
    """A chicken hand self-drawn on the wall's last tile: 海底撈月 1 fan."""
    r = fan_of("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s", win_by="self-drawn", last_tile=True)
    assert (names(r), r.fan) == (["last_tile"], 1)


def test_art6_2_small_three_dragons() -> None:
    """Two dragon pungs (1 + 1) and a dragon pair (small three dragons, 1): 3, capped at 2."""
    r = fan_of("Gd Gd Gd Wd Wd 1m 2m 3m 5p 6p 7p [Rd Rd Rd]")
    assert names(r) == ["dragon_pung", "dragon_pung", "small_three_dragons"]
    assert (r.raw, r.fan) == (3, 2)


def test_art6_2_small_four_winds() -> None:
    """Pungs of E (round, 1), S (seat, 1), W + pair N (small four winds, 1), with one
    character chow also a half flush (1): 4, capped at 2."""
    r = fan_of("W W W N N 1m 2m 3m [E E E] [S S S]")
    assert names(r) == ["half_flush", "round_wind_pung", "seat_wind_pung", "small_four_winds"]
    assert (r.raw, r.fan) == (4, 2)


def test_art6_2_mixed_terminals() -> None:
    """1s 9s and honours only; exposed pungs: mixed terminals (1) + all pungs (1) = 2."""
    r = fan_of("1s 1s 1s N N N Wd Wd [1m 1m 1m] [9p 9p 9p]")
    assert names(r) == ["all_pungs", "mixed_terminals"]
    assert r.fan == 2


@pytest.mark.parametrize(
    ("hand", "item"),
    [
        ("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 8m 9m 9m", "full_flush"),
        ("1m 9m 1p 9p 1s 9s E S W N Rd Gd Wd Wd", "thirteen_orphans"),
        ("1m 2m 3m 5p 5p [Rd Rd Rd] [Gd Gd Gd] [Wd Wd Wd]", "big_three_dragons"),
        ("5p 5p [E E E] [S S S] [W W W] [N N N]", "big_four_winds"),
        ("9s 9s [1m 1m 1m] [9m 9m 9m] [1p 1p 1p] [9p 9p 9p]", "all_terminals"),
        ("Rd Rd [E E E] [S S S] [W W W] [Gd Gd Gd]", "all_honours"),
    ],
)
def test_art6_3_two_fan_patterns(hand: str, item: str) -> None:
    """Each 2-fan pattern of 第六条(甲)(3) is found and the hand scores the 2-fan maximum."""
    r = fan_of(hand)
    assert item in names(r)
    assert r.fan == 2
    assert next(i for i in r.items if i.name == item).article == "第六条(甲)(3)"


def test_art6_3_heavenly_and_earthly_hands() -> None:
    """The dealer's dealt chicken hand: 天糊 2 fan. South winning on the dealer's first
    discard: 地糊 2 fan."""
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s"
    heavenly = fan_of(hand, seat="E", win_by="self-drawn", heavenly=True)
    assert (names(heavenly), heavenly.fan) == (["heavenly_hand"], 2)
    earthly = fan_of(hand, earthly=True)
    assert (names(earthly), earthly.fan) == (["earthly_hand"], 2)


def test_art6_cap_and_combination_are_rule_data(tmp_path: Path) -> None:
    """With a lab's file that caps at 3, small three dragons scores its raw 3."""
    variant = variant_rules(
        tmp_path,
        TRAD,
        'cap = { value = 2, article = "第六条(甲)(3)"',
        'cap = { value = 3, article = "第六条(甲)(3)"',
    )
    hand = mahjong.parse_hand(TRAD, "Gd Gd Gd Wd Wd 1m 2m 3m 5p 6p 7p [Rd Rd Rd]")
    r = mahjong.score(hand, Context(seat="S", win_by="discard"), variant)
    assert (r.raw, r.fan, r.cap) == (3, 3, 3)


def test_simple_game_fan_items() -> None:
    """第六条(乙): 發 as the winning tile 1 fan; robbing a kong 1; otherwise chicken. Both
    cannot be: a robbed 發 is the robber's only 發, and 發 can only be a pair or a pung."""
    assert fan_of("1m 2m 3m Gd Gd", SIMPLE, winning_tile="Gd").fan == 1
    assert names(fan_of("1m 2m 3m Gd Gd", SIMPLE, winning_tile="1m")) == ["chicken_hand"]
    robbed = fan_of("1m 2m 3m Gd Gd", SIMPLE, winning_tile="1m", win_by="robbed-kong")
    assert (names(robbed), robbed.fan) == (["robbing_kong"], 1)
    with pytest.raises(MahjongError, match=r"robbing a kong of Gd.*holds 2"):
        fan_of("1m 2m 3m Gd Gd", SIMPLE, winning_tile="Gd", win_by="robbed-kong")
    last = fan_of("5p 5p 5p 9s 9s", SIMPLE, win_by="self-drawn", last_tile=True)
    assert (names(last), last.fan) == (["last_tile"], 1)
    # Art. 6 (乙) has no pung items: a 發 pung is still a chicken hand unless 發 wins.
    assert names(fan_of("Gd Gd Gd 9s 9s", SIMPLE, winning_tile="9s")) == ["chicken_hand"]


@pytest.mark.parametrize(
    ("game", "hand", "error", "message"),
    [
        (
            TRAD,
            "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s",
            TileError,
            "needs 14 concealed tiles.*got 13",
        ),
        (TRAD, "1m 1m 1m 1m 1m 2m 3m 4p 5p 6p 7s 8s 9s 5s", TileError, "5 copies of 1m"),
        (TRAD, "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s Xq", TileError, 'unknown tile code "Xq"'),
        (TRAD, "1m 2m 4m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s", MahjongError, "not a winning hand"),
        (SIMPLE, "Rd Rd Rd 1m 1m", TileError, "Rd is not in the Simple tile set"),
        (
            TRAD,
            "1m 2m 3m 4p 5p 6p 5s 5s [E E E] [1m 2m 4m]",
            MahjongError,
            r"\[1m 2m 4m\] is not a set",
        ),
        (TRAD, "1m 2m 3m 4p 5p 6p 5s 5s [E E E", MahjongError, "unbalanced brackets"),
    ],
)
def test_bad_hands_are_named(game: str, hand: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        mahjong.parse_hand(game, hand)


def test_bad_contexts_are_named() -> None:
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s"
    with pytest.raises(MahjongError, match="seat 'X' is not a wind"):
        fan_of(hand, seat="X")
    with pytest.raises(MahjongError, match="kong replacement tile is self-drawn"):
        fan_of(hand, kong_replacements=1)
    with pytest.raises(MahjongError, match="heavenly hand is the dealer"):
        fan_of(hand, heavenly=True, win_by="self-drawn")


def _tiles(text: str) -> list[str]:
    return text.split()


# Rare shapes random draws seldom reach: small/big winds and dragons with every pair.
@example(_tiles("E E E S S S W W W N N 5p 6p 7p"), "S", "E")
@example(_tiles("E E E S S S N N N W W 5p 6p 7p"), "N", "N")
@example(_tiles("S S S W W W N N N E E 5p 5p 5p"), "E", "S")
@example(_tiles("E E E S S S W W W N N N Rd Rd"), "W", "W")
@example(_tiles("Rd Rd Rd Gd Gd Gd Wd Wd 1s 2s 3s 9m 9m 9m"), "E", "E")
@example(_tiles("Gd Gd Gd Wd Wd Wd Rd Rd 1s 2s 3s E E E"), "E", "E")
@example(_tiles("Rd Rd Rd Gd Gd Gd Wd Wd Wd 1s 1s 2s 3s 4s"), "S", "E")
@settings(max_examples=300, deadline=None)
@given(
    complete_hands(),
    st.sampled_from(["E", "S", "W", "N"]),
    st.sampled_from(["E", "S", "W", "N"]),
)
def test_fan_matches_reference(hand: list[str], seat: str, round_wind: str) -> None:
    """Concealed self-drawn wins: the engine's best reading scores what the independent
    reading of Art. 6 in tests/reference scores (capped and raw)."""
    r = mahjong.score(
        mahjong.parse_hand(TRAD, " ".join(hand)),
        Context(seat=seat, round_wind=round_wind, win_by="self-drawn"),
    )
    assert (r.fan, r.raw) == ref.best_fan(hand, seat, round_wind)
