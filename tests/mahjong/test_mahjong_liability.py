"""Art. 10 liability (包輸) derived from the play of a replayed hand: a case the statute imposes
is applied though the record leaves it out, a case the record states that the play does not
support is refused naming its sub-article, and 包摸一轮 counts a kong called from a discard as
the fourth exposed set (第五条(甲)(5))."""

from __future__ import annotations

from typing import Any

import pytest

from tablecert.mahjong.replay import replay
from tests.support.mahjong_support import (
    FED,
    FILLER,
    FLUSH,
    SOUTH_WAITS_5P,
    game_record,
    paid,
    turns,
)

TRAD = "mahjong-traditional"

# South collects three exposed pungs of 萬子 (1m 2m 3m) and waits on 4m 9m with 4m 4m 9m 9m.
FLUSH_DEAL = {**FLUSH, "S": "1m 1m 2m 2m 3m 3m 4m 4m 9m 9m E S W"}
#: The first 13 events of the fed full flush: South's three pungs of 萬子.
THREE_PUNGS: list[dict[str, Any]] = FED[:13]

#: The issue's first record: South wins on West's 9m holding nine exposed tiles of 萬子, and
#: the record states no liability. Full flush and all pungs: 2 fan (the cap), a share of 200.
NINE_EXPOSED: dict[str, Any] = {
    "game": TRAD,
    "limit": "100/200",
    "deal": FLUSH_DEAL,
    "play": [
        *THREE_PUNGS,
        *turns("W 9m 9m"),
        {"seat": "S", "win": {}},
    ],
}

#: The issue's second record: South wins on West's 5p (all chows, 1 fan: a share of 100) and
#: the record charges West under 10(甲)(4), holding back the last honour; West holds none.
NO_HONOUR: dict[str, Any] = {
    "game": TRAD,
    "limit": "100/200",
    "deal": {
        "E": "1s 1s 1s 3s 3s 3s 6m 6m 6m E E E Wd 7p",
        "S": SOUTH_WAITS_5P,
        "W": "1p 2p 3p 5s 6s 7s 8s 8s 8s 9p 9p 5p 5p",
        "N": FILLER,
    },
    "play": [
        {"seat": "E", "discard": "Wd"},
        *turns("S 2p 2p", "W 4s 5p"),
        {"seat": "S", "win": {"liability": "held_last_honour"}},
    ],
}


def with_liability(record: dict[str, Any], liability: Any) -> dict[str, Any]:
    play = [*record["play"][:-1], {"seat": "S", "win": {"liability": liability}}]
    return {**record, "play": play}


def test_nine_exposed_full_flush_makes_the_discarder_pay_though_the_record_omits_it() -> None:
    played = replay(NINE_EXPOSED)
    assert paid(played) == {("W", "S"): 800}  # not E 400, W 200, N 200
    assert played.settlement is not None
    assert [p.article for p in played.settlement.payments] == ["第十条(甲)(1)"]
    assert played.final_record is not None
    assert played.final_record["liability"] == ["nine_exposed_full_flush"]
    # Stating it is the same settlement; stating another case instead is refused.
    assert paid(replay(with_liability(NINE_EXPOSED, "nine_exposed_full_flush"))) == {
        ("W", "S"): 800
    }
    refused = replay(with_liability(NINE_EXPOSED, ["nine_exposed_full_flush", "broke_pung"]))
    assert [(v.event, v.article) for v in refused.violations] == [(16, "第十条(甲)(5)")]


def test_a_stated_case_the_play_does_not_support_is_refused_with_its_sub_article() -> None:
    refused = replay(NO_HONOUR)
    (v,) = refused.violations
    assert (v.event, v.article) == (6, "第十条(甲)(4)")
    assert v.message == (
        "liability held_last_honour: the play does not support it: W held no last live "
        "honour (绝张番子)"
    )
    assert refused.settlement is None
    # Without the charge the same win is ordinary: 1 fan, the dealer pays a double share.
    plain = with_liability(NO_HONOUR, None)
    plain["play"][-1] = {"seat": "S", "win": {}}
    assert paid(replay(plain)) == {("E", "S"): 200, ("W", "S"): 100, ("N", "S"): 100}


@pytest.mark.parametrize(
    ("liability", "article", "why"),
    [
        ("broke_pung", "第十条(甲)(5)", "W did not break a pung: they held 2 5p"),
        ("missed_win_then_fed", "第十条(甲)(6)", "W never had a winning hand before this discard"),
        ("big_three_dragons", "第十条(甲)(3)", "the winning hand is not big three dragons"),
        ("nine_exposed_full_flush", "第十条(甲)(1)", "the winning hand is not a full flush"),
    ],
)
def test_unfounded_charges_are_refused(liability: str, article: str, why: str) -> None:
    (v,) = replay(with_liability(NO_HONOUR, liability)).violations
    assert (v.event, v.article) == (6, article)
    assert v.message.endswith(why)


def test_a_kong_called_from_a_discard_is_the_fourth_set_of_bao_mo_yi_lun() -> None:
    """East discards South's fourth 4m and South kongs it: the fourth exposed set of a 萬子
    full flush. South draws the 9m pair on the next draw: East pays everything (包摸一轮,
    第十条(甲)(2)), stated or not."""
    deal = {**FLUSH_DEAL, "S": "1m 1m 2m 2m 3m 3m 4m 4m 4m 9m E S W"}
    events: list[dict[str, Any]] = [
        *THREE_PUNGS,
        *turns("W 2s 2s", "N 4s 4s", "E 4p 4m"),
        {"seat": "S", "kong": "4m", "from": "discard"},
        {"seat": "S", "replacement": "5p"},
        {"seat": "S", "discard": "5p"},
        *turns("W 3s 3s", "N 6p 6p", "E 7s 7s"),
        {"seat": "S", "draw": "9m"},
    ]
    record = game_record(deal, events)
    derived = replay({**record, "play": [*events, {"seat": "S", "win": {}}]})
    assert paid(derived) == {("E", "S"): 800}
    assert derived.settlement is not None
    assert derived.settlement.payments[0].article == "第十条(甲)(2)"
    stated = {"seat": "S", "win": {"liability": "fed_twelfth_full_flush_tile"}}
    assert paid(replay({**record, "play": [*events, stated]})) == {("E", "S"): 800}


def test_holding_back_the_last_honour_is_derived() -> None:
    """第十条(甲)(4): three Rd are seen (East's, South's and North's discards) and West keeps
    the fourth, discarding 5p instead: South wins on it and West pays for everyone."""
    deal = {
        "E": "1s 1s 1s 3s 3s 3s 6m 6m 6m E E E Rd 7p",
        "S": SOUTH_WAITS_5P,
        "W": "1p 2p 3p 5s 6s 7s 8s 8s 8s 9p Rd 5p 5p",
        "N": "Rd Gd Gd Gd Wd Wd Wd S S S W N N",
    }
    play: list[dict[str, Any]] = [
        {"seat": "E", "discard": "Rd"},
        *turns("S Rd Rd", "W 4s 4s", "N 1m Rd", "E 2s 2s", "S 2p 2p", "W 7p 5p"),
        {"seat": "S", "win": {}},
    ]
    played = replay(game_record(deal, play))
    assert paid(played) == {("W", "S"): 400}
    assert played.settlement is not None
    assert played.settlement.payments[0].article == "第十条(甲)(4)"
    # The record that states no case but another one is refused for leaving this one out.
    stated = [*play[:-1], {"seat": "S", "win": {"liability": "broke_pung"}}]
    (v,) = replay(game_record(deal, stated)).violations
    assert (v.event, v.article) == (14, "第十条(甲)(5)")


def test_a_missed_win_then_a_fatal_discard_is_derived() -> None:
    """第十条(甲)(6) 有糊不叫: West could have won on East's 9p and let it pass, then discards the
    5p South wins on: West pays for everyone."""
    deal = {
        "E": "1s 1s 1s 3s 3s 3s 6m 6m 6m E E E 9p 7p",
        "S": SOUTH_WAITS_5P,
        "W": "1p 2p 3p 5s 6s 7s 8s 8s 8s 9p 9p 5p 5p",
        "N": FILLER,
    }
    play: list[dict[str, Any]] = [
        {"seat": "E", "discard": "9p"},
        *turns("S 2p 2p", "W 4s 5p"),
        {"seat": "S", "win": {}},
    ]
    played = replay(game_record(deal, play))
    assert paid(played) == {("W", "S"): 400}
    assert played.settlement is not None
    assert played.settlement.payments[0].article == "第十条(甲)(6)"


SIMPLE_DEAL = {"E": "Gd 1m 1m 1m 9s", "S": "2m 3m 4m 5p", "N": "Gd 1p 1p 1p"}


def _simple(west: str, play: list[dict[str, Any]]) -> dict[str, Any]:
    return game_record({**SIMPLE_DEAL, "W": west}, play, game="mahjong-simple")


def test_the_simple_game_holds_back_only_the_green_dragon() -> None:
    """第十条(乙)(1): three 發 seen, West keeps the fourth and discards the 5p South wins on:
    West pays what the three would have paid (E 200, W 100, N 100)."""
    play: list[dict[str, Any]] = [
        {"seat": "E", "discard": "Gd"},
        *turns("S Gd Gd", "W 9p 9p", "N 2p Gd", "E 3s 3s", "S 6p 6p", "W 4s 5p"),
        {"seat": "S", "win": {}},
    ]
    played = replay(_simple("Gd 5p 7s 8s", play))
    assert paid(played) == {("W", "S"): 400}
    assert played.settlement is not None
    assert played.settlement.payments[0].article == "第十条(乙)(1)"


def test_the_simple_game_needs_both_a_missed_win_and_a_broken_pung() -> None:
    """第十条(乙)(2) 有糊不叫，并拆打一碰牌 (the rule file's reading: both facts): West breaks
    three 5p but never had a win, so no one is liable, and a record charging it is refused."""
    play: list[dict[str, Any]] = [
        {"seat": "E", "discard": "9s"},
        *turns("S 6p 6p", "W 4s 5p"),
        {"seat": "S", "win": {}},
    ]
    assert paid(replay(_simple("5p 5p 5p 7s", play))) == {
        ("E", "S"): 200,
        ("W", "S"): 100,
        ("N", "S"): 100,
    }
    charged = [*play[:-1], {"seat": "S", "win": {"liability": ["broke_pung"]}}]
    (v,) = replay(_simple("5p 5p 5p 7s", charged)).violations
    assert (v.event, v.article) == (6, "第十条(乙)(2)")
    assert v.message.endswith(
        "W broke three 5p (拆碰), but W never had a winning hand before this discard"
    )
