"""Every open point of the mahjong statute is a named reading in the rule files (INTERPRETATION.md
§3): each test flips one reading in a copy of the bundled file and shows the score it drives
change, worked out by hand in the docstring."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tablecert import _core, mahjong
from tablecert.errors import MahjongError, RulesError
from tablecert.mahjong import Context
from tablecert.rules import RULES_DIR
from tests.support.mahjong_strategies import variant_rules

TRAD = "mahjong-traditional"
SIMPLE = "mahjong-simple"
MAHJONG_PAGE = Path(__file__).resolve().parents[2] / "docs" / "games" / "mahjong.md"
FULL_TRAD = [t for t in _core.tile_types("traditional") for _ in range(4)]


def scored(hand: str, rules: str | None = None, tile: str | None = None, **ctx: Any) -> Any:
    context: dict[str, Any] = {"seat": "S", "round_wind": "E", "win_by": "discard"}
    context.update(ctx)
    return mahjong.score(mahjong.parse_hand(TRAD, hand, tile), Context(**context), rules)


def names(result: mahjong.FanResult) -> list[str]:
    return sorted(i.name for i in result.items)


def flip(tmp_path: Path, key: str, old: str, new: str, game: str = TRAD) -> str:
    """A copy of the bundled file with one reading's value changed (the key's line only)."""
    line = next(
        line
        for line in (RULES_DIR / f"{game}.macau.toml").read_text(encoding="utf-8").splitlines()
        if line.startswith(f"{key} = ")
    )
    assert f"value = {old}" in line, line
    return variant_rules(tmp_path, game, line, line.replace(f"value = {old}", f"value = {new}", 1))


def test_honour_pungs_concealed_or_exposed(tmp_path: Path) -> None:
    """碰出或杠: a concealed 中 pung scores 1 fan by default; read as "exposed or kong" it scores
    nothing (a chicken hand), while an exposed 中 pung still scores 1."""
    concealed = "Rd Rd Rd 1m 2m 3m 4p 5p 6p 7s 8s 9s 5s 5s"
    exposed = "1m 2m 3m 4p 5p 6p 7s 8s 9s 5s 5s [Rd Rd Rd]"
    variant = flip(tmp_path, "honour_pungs", '"concealed-or-exposed"', '"exposed-or-kong"')
    assert (names(scored(concealed)), scored(concealed).fan) == (["dragon_pung"], 1)
    assert (names(scored(concealed, variant)), scored(concealed, variant).fan) == (
        ["chicken_hand"],
        0,
    )
    assert scored(exposed, variant).fan == 1


def test_mixed_terminals_narrow_or_broad(tmp_path: Path) -> None:
    """混么: 123m 789p 999s WWW + 白白 holds a 1, 9 or honour in every set but also 2, 3, 7, 8:
    narrow (default) it is a chicken hand; broad it is 混么, 1 fan."""
    hand = "1m 2m 3m 7p 8p 9p 9s 9s 9s W W W Wd Wd"
    variant = flip(
        tmp_path,
        "mixed_terminals",
        '"terminals-and-honours-only"',
        '"terminal-or-honour-in-every-set"',
    )
    assert scored(hand).fan == 0
    assert (names(scored(hand, variant)), scored(hand, variant).fan) == (["mixed_terminals"], 1)


def test_half_flush_with_scoring_honours(tmp_path: Path) -> None:
    """混一色 ... 无番之门风牌: one suit with a pung of E in the East round: round wind 1 + half
    flush 1 = 2 by default; read as "unscored winds" only the round wind pung: 1."""
    hand = "1m 2m 3m 4m 5m 6m 7m 8m 9m 2m 2m [E E E]"
    variant = flip(tmp_path, "half_flush_honours", '"any"', '"unscored-winds"')
    assert (names(scored(hand)), scored(hand).fan) == (["half_flush", "round_wind_pung"], 2)
    assert (names(scored(hand, variant)), scored(hand, variant).fan) == (["round_wind_pung"], 1)


def test_all_chows_concealed_or_called(tmp_path: Path) -> None:
    """平糊 (四上牌): four concealed chows and a 5s pair: 1 fan by default, 0 when only called
    chows count; four called chows score 1 under both."""
    concealed = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 3m 4m 5s 5s"
    called = "5s 5s [1m 2m 3m] [4p 5p 6p] [7s 8s 9s] [2m 3m 4m]"
    variant = flip(tmp_path, "all_chows", '"concealed-or-called"', '"called-only"')
    assert scored(concealed).fan == 1
    assert scored(concealed, variant).fan == 0
    assert names(scored(called, variant)) == ["all_chows"]


def test_concealed_all_pungs_and_kongs(tmp_path: Path) -> None:
    """糊 (对对糊不碰牌落地) with a concealed kong of 9m: 2 fan by default; read as "any kong
    breaks it", 對對糊 only: 1. With an exposed kong: 1 by default; 2 when only an exposed
    pung breaks it."""
    concealed_kong = "2m 2m 2m 5p 5p 5p 9s 9s 9s 5s 5s (9m 9m 9m 9m)"
    exposed_kong = "2m 2m 2m 5p 5p 5p 9s 9s 9s 5s 5s [9m 9m 9m 9m]"
    any_kong = flip(
        tmp_path, "concealed_all_pungs_melds", '"exposed-meld-breaks"', '"any-kong-breaks"'
    )
    assert names(scored(concealed_kong, win_by="self-drawn")) == ["concealed_all_pungs"]
    assert names(scored(concealed_kong, any_kong, win_by="self-drawn")) == ["all_pungs"]
    (tmp_path / "b").mkdir()
    pung_only = flip(
        tmp_path / "b",
        "concealed_all_pungs_melds",
        '"exposed-meld-breaks"',
        '"exposed-pung-breaks"',
    )
    assert scored(exposed_kong, win_by="self-drawn").fan == 1
    assert scored(exposed_kong, pung_only, win_by="self-drawn").fan == 2


def test_liability_exemption_covers_mixed_terminals_or_not(tmp_path: Path) -> None:
    """全字全么: big three dragons that is also 混么, fed by North after two dragon pungs were
    exposed. Default (全么 = 清么): North pays all 800. With 混么 added to the exemption, everyone
    pays their own share: E 400, W 200, N 200."""
    variant = flip(
        tmp_path,
        "exempt_hands",
        '["all_honours", "all_terminals"]',
        '["all_honours", "all_terminals", "mixed_terminals"]',
    )
    hand = "1m 1m 1m 9p 9p Wd Wd Wd [Rd Rd Rd] [Gd Gd Gd]"

    def paid(rules: str | None) -> dict[str, int]:
        result = scored(hand, rules, "Wd")
        assert "mixed_terminals" in names(result)
        s = mahjong.settle_win(
            result, "S", "100/200", rules=rules, discarder="N", liability="big_three_dragons"
        )
        return {p.payer: int(p.amount) for p in s.payments}

    assert paid(None) == {"N": 800}
    assert paid(variant) == {"E": 400, "W": 200, "N": 200}


def test_simple_game_10_2_both_or_either(tmp_path: Path) -> None:
    """有糊不叫，并拆打一碰牌: by default the discarder is liable only for both facts; read as
    two triggers, a broken pung alone makes West pay 200 + 100 + 100 = 400 for South's 發 win."""
    variant = flip(tmp_path, "missed_win_broke_pung", '"both"', '"either"', SIMPLE)
    result = mahjong.score(
        mahjong.parse_hand(SIMPLE, "1m 2m 3m Gd Gd", "Gd"), Context(seat="S", win_by="discard")
    )
    with pytest.raises(MahjongError, match=r"only for both.*第十条\(乙\)\(2\)"):
        mahjong.settle_win(result, "S", "100/200", discarder="W", liability="broke_pung")
    both = mahjong.settle_win(
        result, "S", "100/200", discarder="W", liability=["missed_win_then_fed", "broke_pung"]
    )
    either = mahjong.settle_win(
        result, "S", "100/200", rules=variant, discarder="W", liability="broke_pung"
    )
    assert {(p.payer, int(p.amount)) for p in both.payments} == {("W", 400)}
    assert {(p.payer, int(p.amount)) for p in either.payments} == {("W", 400)}


def test_art7_with_fewer_players(tmp_path: Path) -> None:
    """Simple game, E S W: West's 發 win is paid E 200, S 100 by default; read as "refuse",
    a three-player game is not settled (win or false win)."""
    variant = flip(tmp_path, "fewer_players", '"own-share"', '"refuse"', SIMPLE)
    result = mahjong.score(
        mahjong.parse_hand(SIMPLE, "1m 2m 3m Gd Gd", "Gd"), Context(seat="W", win_by="discard")
    )
    s = mahjong.settle_win(result, "W", "100/200", players=["E", "S", "W"])
    assert {(p.payer, int(p.amount)) for p in s.payments} == {("E", 200), ("S", 100)}
    with pytest.raises(MahjongError, match=r"3 players.*第七条"):
        mahjong.settle_win(result, "W", "100/200", rules=variant, players=["E", "S", "W"])
    with pytest.raises(MahjongError, match="2 players"):
        mahjong.settle_false_win(SIMPLE, "W", "100/200", rules=variant, players=["E", "W"])


def test_dice_total_longer_than_a_row(tmp_path: Path) -> None:
    """Three sixes: 18 picks South's row (18 = 2 + 4 * 4) and 18 stacks, one more than its 17.
    By default the count goes on into the next row of the draw, East's: its 1st stack is the
    18th, the dealer starts at its 2nd (positions 2, 3). Read as "wrap in row", 18 is South's
    1st stack and the dealer starts at South's 2nd (positions 36, 37). Read as "rethrow", the
    throw is refused (17 is still fine)."""
    wrap = flip(tmp_path, "dice_past_row", '"continue-next-row"', '"wrap-in-row"')
    (tmp_path / "b").mkdir()
    rethrow = flip(tmp_path / "b", "dice_past_row", '"continue-next-row"', '"rethrow"')
    default = mahjong.deal(TRAD, FULL_TRAD, [6, 6, 6])
    wrapped = mahjong.deal(TRAD, FULL_TRAD, [6, 6, 6], rules=wrap)
    assert (default.break_row, default.break_stack) == ("S", 18)
    assert default.positions["E"][:2] == (2, 3)
    assert (wrapped.break_row, wrapped.break_stack) == ("S", 1)
    assert wrapped.positions["E"][:2] == (36, 37)
    with pytest.raises(MahjongError, match=r"dice total 18 .*第三条\(甲\)"):
        mahjong.deal(TRAD, FULL_TRAD, [6, 6, 6], rules=rethrow)
    assert mahjong.deal(TRAD, FULL_TRAD, [6, 6, 5], rules=rethrow).break_stack == 17


def test_dealer_jump_top_of_first_and_third_stack(tmp_path: Path) -> None:
    """挑牌 (取上之第一及第三只牌): the dealer's 14th tile is two stacks (4 positions) after the
    13th; read as the 1st and 3rd tiles of the draw sequence ([0, 2]) it is the next stack's top
    (2 positions), and South's 13th tile moves from the 1st stack's bottom accordingly."""
    variant = flip(tmp_path, "dealer_jump", "[0, 4]", "[0, 2]")
    default = mahjong.deal(TRAD, FULL_TRAD, [6, 4, 3])
    other = mahjong.deal(TRAD, FULL_TRAD, [6, 4, 3], rules=variant)
    first = default.positions["E"][12]
    assert default.positions["E"][13] - first == 4
    assert other.positions["E"][13] - first == 2
    assert [other.positions[s][12] for s in "SWN"] == [first + 1, first + 3, first + 4]


# Every reading the issue names, with the file it is in: the mahjong page lists each. (The
# drawn-hand reading is flipped in tests/mahjong/test_mahjong_session.py.)
READINGS = {
    TRAD: {
        "game.dealer_after_drawn_hand",
        "wall.dealer_jump",
        "wall.dice_past_row",
        "fan.honour_pungs",
        "fan.mixed_terminals",
        "fan.half_flush_honours",
        "fan.all_chows",
        "fan.concealed_all_pungs_melds",
        "liability.exempt_hands",
    },
    SIMPLE: {
        "game.dealer_after_drawn_hand",
        "payment.fewer_players",
        "liability.missed_win_broke_pung",
    },
}


def _readings(game: str) -> dict[str, dict[str, Any]]:
    data = tomllib.loads((RULES_DIR / f"{game}.macau.toml").read_text(encoding="utf-8"))
    found = {}
    for table, entries in data.items():
        for key, entry in entries.items():
            if isinstance(entry, dict) and entry.get("reading"):
                found[f"{table}.{key}"] = entry
            elif isinstance(entry, dict):
                for sub, inner in entry.items():
                    if isinstance(inner, dict) and inner.get("reading"):
                        found[f"{table}.{key}.{sub}"] = inner
    return found


@pytest.mark.parametrize("game", [TRAD, SIMPLE])
def test_every_reading_is_marked_cited_noted_and_documented(game: str) -> None:
    """Each reading: `reading = true`, an article, a note naming the alternative; the mahjong page's
    list of readings names every reading of both files with its default value."""
    readings = _readings(game)
    assert READINGS[game] <= set(readings)
    page = MAHJONG_PAGE.read_text(encoding="utf-8")
    section = page[page.index("## Readings") :]
    for key, entry in readings.items():
        assert entry["article"].startswith("第"), key
        assert re.search(rf"`{re.escape(key)}`", section), f"{key} missing from the page"
    for key in READINGS[game]:
        assert "alternative" in readings[key]["note"] or "other reading" in readings[key]["note"]


@pytest.mark.parametrize(
    ("game", "key", "old"),
    [
        (TRAD, "dice_past_row", '"continue-next-row"'),
        (TRAD, "dealer_after_drawn_hand", '"passes"'),
        (SIMPLE, "fewer_players", '"own-share"'),
        (SIMPLE, "missed_win_broke_pung", '"both"'),
        (TRAD, "exempt_hands", '["all_honours", "all_terminals"]'),
    ],
)
def test_a_reading_value_outside_its_alternatives_is_refused(
    tmp_path: Path, game: str, key: str, old: str
) -> None:
    """Even where the reading would not be consulted (three dice under 18, four players, no
    liability), a value that is none of its alternatives is refused, naming file, line, key."""
    variant = flip(tmp_path, key, old, '"bogus"' if old.startswith('"') else '["bogus"]', game)
    hand = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s" if game == TRAD else "1m 2m 3m Gd Gd"
    with pytest.raises(RulesError, match=rf"variant\.toml:\d+: \w+\.{key}: .*bogus"):
        mahjong.score(mahjong.parse_hand(game, hand), Context(), variant)
