"""Payments of the mahjong statute: Art. 7 (shares), Art. 8 (commission), Art. 9 (cap),
Art. 10 (liability 包輸, false wins 詐糊).

Worked at the traditional table limit 100/200 (commission 40, 第八条(甲)) unless said
otherwise. Share reading (第七条, reading): 100 for a 0 or 1 fan win, 200 for a 2 fan win.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tablecert import mahjong
from tablecert.errors import MahjongError
from tablecert.mahjong import Context
from tests.support.mahjong_strategies import variant_rules
from tests.support.mahjong_support import CHICKEN

TRAD = "mahjong-traditional"
SIMPLE = "mahjong-simple"


def scored(hand: str, seat: str, game: str = TRAD, **context: Any) -> mahjong.FanResult:
    ctx = Context(seat=seat, round_wind="E", **context)
    return mahjong.score(mahjong.parse_hand(game, hand), ctx)


def paid(settlement: mahjong.Settlement) -> dict[tuple[str, str], Fraction]:
    return {(p.payer, p.payee): p.amount for p in settlement.payments}


def test_art7_non_dealer_wins() -> None:
    """South wins a chicken hand (0 fan): share 100; dealer E pays double (200), W and N
    single (100 each). Gross 400, commission 40, South nets 360."""
    s = mahjong.settle_win(scored(CHICKEN, "S", win_by="discard"), "S", "100/200")
    assert paid(s) == {("E", "S"): 200, ("W", "S"): 100, ("N", "S"): 100}
    assert s.commission == 40
    assert s.net("S") == 360
    assert s.net("E") == -200
    assert {p.article for p in s.payments} == {"第七条"}


def test_art7_dealer_wins_two_fan() -> None:
    """East (dealer) wins a full flush (2 fan): share 200, each other pays double: 400 x 3 =
    1,200; commission 40; East nets 1,160."""
    r = scored("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 8m 9m 9m", "E", win_by="self-drawn")
    assert r.fan == 2
    s = mahjong.settle_win(r, "E", "100/200")
    assert paid(s) == {("S", "E"): 400, ("W", "E"): 400, ("N", "E"): 400}
    assert s.net("E") == 1160


@pytest.mark.parametrize(
    ("game", "limit", "commission"),
    [
        (TRAD, "25/50", 10),
        (TRAD, "1,000/2,000", 400),
        (TRAD, "10000/20000", 4000),
        (SIMPLE, "100/200", 20),
        (SIMPLE, "30000/60000", 6000),
    ],
)
def test_art8_commission_by_table_limit(game: str, limit: str, commission: int) -> None:
    """第八条: the commission per game is the table's, taken from the winner."""
    hand = CHICKEN if game == TRAD else "1m 2m 3m 9s 9s"
    s = mahjong.settle_win(scored(hand, "S", game, win_by="discard"), "S", limit)
    assert s.commission == commission
    assert s.commission_article == ("第八条(甲)" if game == TRAD else "第八条(乙)")


def test_art8_unknown_limit_is_named() -> None:
    with pytest.raises(MahjongError, match=r"table limit '150/300' is not in Art\. 8"):
        mahjong.settle_win(scored(CHICKEN, "S", win_by="discard"), "S", "150/300")


def test_art9_win_capped_at_stake() -> None:
    """South wins 2 fan: owed E 400, W 200, N 200 = 800, but has 500 in front: everyone's
    payment shrinks by 5/8: E 250, W 125, N 125; commission 40 from the 500."""
    r = scored("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 8m 9m 9m", "S", win_by="discard")
    s = mahjong.settle_win(r, "S", "100/200", stake=500)
    assert paid(s) == {("E", "S"): 250, ("W", "S"): 125, ("N", "S"): 125}
    assert s.net("S") == 460
    assert any("第九条(甲)(4)" in n for n in s.notes)


def test_art10_1_nine_exposed_full_flush() -> None:
    """South's full flush with three character melds exposed (nine tiles) wins on West's
    discard: West pays everyone's share alone: 400 + 200 + 200 = 800 (第十条(甲)(1))."""
    r = scored("7m 8m 9m 5m 5m [1m 1m 1m] [2m 3m 4m] [6m 6m 6m]", "S", win_by="discard")
    s = mahjong.settle_win(r, "S", "100/200", discarder="W", liability="nine_exposed_full_flush")
    assert paid(s) == {("W", "S"): 800}
    assert s.payments[0].article == "第十条(甲)(1)"


def test_art10_1_needs_nine_exposed_tiles() -> None:
    r = scored("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 8m 9m 9m", "S", win_by="discard")
    with pytest.raises(MahjongError, match="nine tiles"):
        mahjong.settle_win(r, "S", "100/200", discarder="W", liability="nine_exposed_full_flush")


def test_art10_3_big_three_dragons() -> None:
    """Two dragon pungs exposed; North feeds the third: North pays all 800 (第十条(甲)(3))."""
    r = scored("Wd Wd Wd 1m 2m 3m 5p 5p [Rd Rd Rd] [Gd Gd Gd]", "S", win_by="discard")
    s = mahjong.settle_win(r, "S", "100/200", discarder="N", liability="big_three_dragons")
    assert paid(s) == {("N", "S"): 800}


def test_art10_5_broke_a_pung() -> None:
    """West broke a pung and fed South's chicken hand: West pays 200 + 100 + 100 = 400."""
    r = scored(CHICKEN, "S", win_by="discard")
    s = mahjong.settle_win(r, "S", "100/200", discarder="W", liability="broke_pung")
    assert paid(s) == {("W", "S"): 400}
    assert s.payments[0].article == "第十条(甲)(5)"


def test_art10_9_all_honours_never_liable() -> None:
    """Big four winds that is also all honours: 第十条(甲)(9) exempts it, so everyone pays
    their own share (E 400, W 200, N 200) although the discarder fed the fourth wind."""
    r = scored("Rd Rd N N N [E E E] [S S S] [W W W]", "S", win_by="discard")
    s = mahjong.settle_win(r, "S", "100/200", discarder="W", liability="big_four_winds")
    assert paid(s) == {("E", "S"): 400, ("W", "S"): 200, ("N", "S"): 200}


def test_art10_10_first_discard_honour_never_liable() -> None:
    """West held back... but the discard was a first-seen honour (N, the winning tile): no
    liability (第十条(甲)(10))."""
    r = mahjong.score(
        mahjong.parse_hand(TRAD, "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m N N", "N"),
        Context(seat="S", win_by="discard"),
    )
    s = mahjong.settle_win(
        r,
        "S",
        "100/200",
        discarder="W",
        liability="held_last_honour",
        first_discard_honour=True,
    )
    assert paid(s) == {("E", "S"): 200, ("W", "S"): 100, ("N", "S"): 100}


def test_art10_unknown_case_is_named() -> None:
    r = scored(CHICKEN, "S", win_by="discard")
    with pytest.raises(MahjongError, match=r"'bad_luck' is not a case of Art\. 10"):
        mahjong.settle_win(r, "S", "100/200", discarder="W", liability="bad_luck")


def test_art10_8_false_win_by_the_dealer() -> None:
    """The dealer pays each player as a 2 fan win, the double share a dealer pays: 400 each,
    1,200 in all; no commission (reading)."""
    s = mahjong.settle_false_win(TRAD, "E", "100/200")
    assert paid(s) == {("E", "S"): 400, ("E", "W"): 400, ("E", "N"): 400}
    assert s.commission == 0
    assert s.net("E") == -1200


def test_art10_8_false_win_by_a_non_dealer() -> None:
    """South pays the dealer as 2 fan (double share of 200: 400) and West and North as 1 fan
    (single share of 100 each): 600 in all."""
    s = mahjong.settle_false_win(TRAD, "S", "100/200")
    assert paid(s) == {("S", "E"): 400, ("S", "W"): 100, ("S", "N"): 100}
    assert {p.article for p in s.payments} == {"第十条(甲)(8)"}


def test_simple_game_false_win_and_two_players() -> None:
    """第十条(乙)(3): 1 fan to everyone. Dealer: double share of 100 to each = 200. A non-dealer
    in a two-player game (E, W) pays the dealer 200."""
    s = mahjong.settle_false_win(SIMPLE, "E", "100/200")
    assert paid(s) == {("E", "S"): 200, ("E", "W"): 200, ("E", "N"): 200}
    two = mahjong.settle_false_win(SIMPLE, "W", "100/200", players=["E", "W"])
    assert paid(two) == {("W", "E"): 200}


def test_simple_game_win_with_three_players() -> None:
    """Simple game, E S W playing; West wins with 發 (1 fan): E pays 200, S pays 100;
    commission 20 (第八条(乙) 100/200)."""
    r = mahjong.score(
        mahjong.parse_hand(SIMPLE, "1m 2m 3m Gd Gd", "Gd"), Context(seat="W", win_by="discard")
    )
    s = mahjong.settle_win(r, "W", "100/200", players=["E", "S", "W"])
    assert paid(s) == {("E", "W"): 200, ("S", "W"): 100}
    assert s.commission == 20


def test_traditional_game_needs_four_players() -> None:
    with pytest.raises(MahjongError, match="3 players: this game has 4 to 4"):
        mahjong.settle_win(
            scored(CHICKEN, "S", win_by="discard"), "S", "100/200", players=["E", "S", "W"]
        )


def test_game_record_win_with_liability() -> None:
    """A record as a device logs it: South's big three dragons fed by North (第十条(甲)(3)):
    North pays 400 + 200 + 200 = 800 alone; commission 40."""
    settled = mahjong.settle_record(
        {
            "game": TRAD,
            "limit": "100/200",
            "winner": "S",
            "hand": "Wd Wd Wd 1m 2m 3m 5p 5p [Rd Rd Rd] [Gd Gd Gd]",
            "winning_tile": "Wd",
            "context": {"round_wind": "E", "win_by": "discard"},
            "discarder": "N",
            "liability": "big_three_dragons",
        }
    )
    assert settled.fan is not None
    assert settled.fan.fan == 2
    assert paid(settled.settlement) == {("N", "S"): 800}
    assert settled.settlement.commission == 40


def test_game_record_false_win_and_bad_records() -> None:
    settled = mahjong.settle_record({"game": TRAD, "limit": "50/100", "false_win": "E"})
    assert settled.fan is None
    assert paid(settled.settlement) == {("E", "S"): 200, ("E", "W"): 200, ("E", "N"): 200}
    with pytest.raises(MahjongError, match="hand: missing"):
        mahjong.settle_record({"game": TRAD, "limit": "100/200", "winner": "S"})
    with pytest.raises(MahjongError, match=r"context\.x: unknown key"):
        mahjong.settle_record(
            {"game": TRAD, "limit": "100/200", "winner": "S", "hand": CHICKEN, "context": {"x": 1}}
        )


def test_art7_share_reading_is_one_rule(tmp_path: Path) -> None:
    """The share reading is the single rule payment.share: a lab reading "a 1 fan win is paid
    at the upper limit" changes South's 1 fan win at 100/200 from 200/100/100 to 400/200/200."""
    variant = variant_rules(tmp_path, TRAD, '"1" = "lower"', '"1" = "upper"')
    hand = mahjong.parse_hand(TRAD, "1m 2m 3m 4p 5p 6p 7s 8s 9s 5s 5s [Rd Rd Rd]")
    result = mahjong.score(hand, Context(seat="S", win_by="discard"), variant)
    assert result.fan == 1
    default = mahjong.settle_win(result, "S", "100/200")
    assert paid(default) == {("E", "S"): 200, ("W", "S"): 100, ("N", "S"): 100}
    upper = mahjong.settle_win(result, "S", "100/200", rules=variant)
    assert paid(upper) == {("E", "S"): 400, ("W", "S"): 200, ("N", "S"): 200}
