"""What the statute rules out is refused: contexts the hand cannot support, liabilities whose
conditions do not hold, calls a game does not have, and game records with badly typed fields.
Each refusal is one MahjongError naming the article (or the record's file, line and key)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablecert import mahjong
from tablecert.errors import MahjongError
from tablecert.mahjong import Context
from tests.support.mahjong_support import CHICKEN, NO_KONG

TRAD = "mahjong-traditional"
SIMPLE = "mahjong-simple"
ONE_KONG = "1m 2m 3m 4p 5p 6p 9s 9s [E E E] [Rd Rd Rd Rd]"
TWO_KONGS = "1m 2m 3m 4p 5p 6p 9s 9s [E E E E] (Rd Rd Rd Rd)"


def fan(hand: str, game: str = TRAD, tile: str | None = None, **context: Any) -> mahjong.FanResult:
    base: dict[str, Any] = {"seat": "S", "round_wind": "E", "win_by": "discard"}
    base.update(context)
    return mahjong.score(mahjong.parse_hand(game, hand, tile), Context(**base))


@pytest.mark.parametrize("count", [1, 2, 5])
def test_kong_replacements_need_kongs(count: int) -> None:
    """The issue's case: 槓上槓 was awarded to a hand with no kong (第五条(甲)(5))."""
    with pytest.raises(MahjongError, match=r"declares 0 \(第五条\(甲\)\(5\)\)|0 to 4 kongs"):
        fan(NO_KONG, win_by="self-drawn", kong_replacements=count)


def test_double_kong_replacement_needs_two_kongs() -> None:
    with pytest.raises(MahjongError, match=r"槓上槓 needs as many kongs, the hand declares 1"):
        fan(ONE_KONG, win_by="self-drawn", kong_replacements=2)
    one = fan(ONE_KONG, win_by="self-drawn", kong_replacements=1)
    assert "kong_replacement" in {i.name for i in one.items}
    two = fan(TWO_KONGS, win_by="self-drawn", kong_replacements=2)
    assert "double_kong_replacement" in {i.name for i in two.items}


def test_kong_replacement_in_the_simple_game_needs_its_kong() -> None:
    with pytest.raises(MahjongError, match=r"第五条\(乙\)\(4\)"):
        fan("Gd Gd 1m 2m 3m", SIMPLE, win_by="self-drawn", kong_replacements=1)
    assert fan("Gd Gd (1m 1m 1m 1m)", SIMPLE, win_by="self-drawn", kong_replacements=1).fan == 1


def test_earthly_hand_is_a_concealed_win_on_the_dealers_first_discard() -> None:
    with pytest.raises(MahjongError, match=r"not self-drawn.*第五条\(甲\)\(2\)"):
        fan(CHICKEN, win_by="self-drawn", earthly=True)
    with pytest.raises(MahjongError, match=r"no declared melds \(第五条\(甲\)\(2\)\)"):
        fan(NO_KONG, earthly=True)
    result = fan(CHICKEN, earthly=True)
    assert result.fan == 2
    with pytest.raises(MahjongError, match=r"dealer's first discard, not W's"):
        mahjong.settle_win(result, "S", "100/200", discarder="W")
    assert mahjong.settle_win(result, "S", "100/200", discarder="E").commission == 40


def test_heavenly_hand_is_the_dealt_hand() -> None:
    with pytest.raises(MahjongError, match=r"第五条\(甲\)\(1\)"):
        fan(CHICKEN, seat="E", win_by="self-drawn", heavenly=True, last_tile=True)


def test_robbing_a_kong_leaves_the_robber_one_copy() -> None:
    """The robbed kong holds three copies of the tile: a robber holding another 5s cannot be."""
    with pytest.raises(MahjongError, match=r"robbing a kong of 5s.*holds 2"):
        fan("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s", win_by="robbed-kong", tile="5s")
    ok = fan("1m 2m 3m 4p 5p 6p 7s 8s 9s 4s 5s 6s 2m 2m", win_by="robbed-kong", tile="5s")
    assert "robbing_kong" in {i.name for i in ok.items}


def _won(hand: str, win_by: str, tile: str | None = None) -> mahjong.FanResult:
    return fan(hand, tile=tile, win_by=win_by)


@pytest.mark.parametrize(
    "case", ["broke_pung", "missed_win_then_fed", "held_last_honour", "nine_exposed_full_flush"]
)
def test_discarder_liabilities_need_a_discard(case: str) -> None:
    """出冲者: a self-drawn win has no discarder to make liable."""
    result = _won("1m 1m 1m 5m 5m [2m 3m 4m] [6m 7m 8m] [9m 9m 9m]", "self-drawn")
    with pytest.raises(MahjongError, match=r"self-drawn"):
        mahjong.settle_win(result, "S", "100/200", discarder="W", liability=case)


def test_full_flush_liabilities_need_a_full_flush() -> None:
    half = _won("1m 1m 1m E E [2m 3m 4m] [6m 7m 8m] [9m 9m 9m]", "discard")
    for case in ("nine_exposed_full_flush", "fed_twelfth_full_flush_tile"):
        with pytest.raises(MahjongError, match="full flush"):
            mahjong.settle_win(half, "S", "100/200", discarder="W", liability=case)
    full = _won("5m 5m [1m 1m 1m] [2m 3m 4m] [6m 7m 8m] [9m 9m 9m]", "self-drawn")
    fed = mahjong.settle_win(
        full, "S", "100/200", discarder="W", liability="fed_twelfth_full_flush_tile"
    )
    assert {(p.payer, int(p.amount)) for p in fed.payments} == {("W", 800)}


def test_first_discard_exemption_is_for_an_honour() -> None:
    """生张番子及门风牌: the exemption of 第十条(甲)(10) does not cover a suit tile."""
    result = _won(CHICKEN, "discard")
    with pytest.raises(MahjongError, match=r"5s is not a dragon or wind.*第十条\(甲\)\(10\)"):
        mahjong.settle_win(
            result,
            "S",
            "100/200",
            discarder="W",
            liability="held_last_honour",
            first_discard_honour=True,
        )
    honour = _won("1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m N N", "discard", "N")
    exempt = mahjong.settle_win(
        honour,
        "S",
        "100/200",
        discarder="W",
        liability="held_last_honour",
        first_discard_honour=True,
    )
    assert len(exempt.payments) == 3


def test_discarder_is_another_player_in_the_game() -> None:
    result = _won(CHICKEN, "discard")
    with pytest.raises(MahjongError, match="is the winner"):
        mahjong.settle_win(result, "S", "100/200", discarder="S")
    with pytest.raises(MahjongError, match="self-drawn win has no discarder"):
        mahjong.settle_win(_won(CHICKEN, "self-drawn"), "S", "100/200", discarder="W")


@pytest.mark.parametrize("meld", ["[1m 2m 3m]", "[Gd Gd Gd]"])
def test_simple_game_has_no_chow_or_pung_calls(meld: str) -> None:
    with pytest.raises(MahjongError, match=r"no chow and no pung calls.*第五条\(乙\)\(3\)"):
        mahjong.parse_hand(SIMPLE, f"5s 5s {meld}")
    assert mahjong.parse_hand(SIMPLE, "5s 5s [Gd Gd Gd Gd]").melds[0].kind == "kong"


# --- game records: strict types ------------------------------------------------------------

WIN: dict[str, Any] = {
    "game": TRAD,
    "limit": "100/200",
    "winner": "S",
    "hand": CHICKEN,
    "context": {"round_wind": "E", "win_by": "discard"},
    "discarder": "W",
}


def with_(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(json.dumps(WIN))
    for key, value in changes.items():
        if key.startswith("context_"):
            record["context"][key[len("context_") :]] = value
        else:
            record[key] = value
    return record


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"stake": "abc"}, "stake: expected a positive number, got 'abc'"),
        ({"stake": True}, "stake: expected a positive number, got true"),
        ({"stake": "1/0"}, "stake: expected a positive number"),
        ({"stake": [1]}, "stake: expected a positive number, got a list"),
        ({"stake": 0}, "stake: expected a positive number up to"),
        ({"stake": -5}, "stake: expected a positive number up to"),
        ({"context": "discard"}, "context: expected a JSON object"),
        ({"context": ["discard"]}, "context: expected a JSON object"),
        ({"players": 4}, "players: expected a list of seats"),
        ({"players": ["E", "S", "W", "Q"]}, "players: .*distinct seats"),
        ({"winning_tile": 9}, "winning_tile: expected a string, got 9"),
        ({"context_kong_replacements": "2"}, "context.kong_replacements: expected a whole"),
        ({"context_kong_replacements": 1.5}, "context.kong_replacements: expected a whole"),
        ({"context_kong_replacements": 10**30}, "context.kong_replacements: .*31-digit"),
        ({"context_last_tile": "false"}, "context.last_tile: expected true or false"),
        ({"context_heavenly": "no"}, "context.heavenly: expected true or false"),
        ({"context_win_by": "lucky"}, "context.win_by: 'lucky' is not one of"),
        ({"discarder": "Q"}, "discarder: 'Q' is not one of E, S, W, N"),
        ({"discarder": 3}, "discarder: expected a string, got 3"),
        ({"discarder": "S"}, "discarder: .*is the winner"),
        ({"winner": "E", "discarder": "E"}, "discarder: .*is the winner"),
        ({"first_discard_honour": "yes"}, "first_discard_honour: expected true or false"),
        ({"limit": True}, "limit: expected a table limit"),
        ({"game": 1}, "game: expected a string"),
        ({"extra": 1}, "extra: unknown key"),
    ],
)
def test_record_fields_are_typed_strictly(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(MahjongError, match=message):
        mahjong.settle_record(with_(**changes))


def test_record_errors_name_file_line_and_key(tmp_path: Path) -> None:
    from tablecert.mahjong.record import load_record

    path = tmp_path / "game.json"
    path.write_text(json.dumps(with_(stake="abc"), indent=1), encoding="utf-8")
    data, locate = load_record(path)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if '"stake"' in t)
    with pytest.raises(MahjongError, match=rf"^{path}:{line}: stake: expected a positive"):
        mahjong.settle_record(data, locate=locate)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"game": "mahjong-traditional", "winner": "S", "winner": "E"}', "duplicate key 'winner'"),
        ('{"stake": NaN}', "NaN is not a number JSON allows"),
        ('{"stake": Infinity}', "Infinity is not a number JSON allows"),
        ("[" * 100000 + "]" * 100000, "nested deeper than 32"),
        ('{"a": ' * 40 + "1" + "}" * 40, "nested deeper than 32"),
        ("{", "invalid JSON"),
    ],
)
def test_record_json_is_read_strictly(tmp_path: Path, text: str, message: str) -> None:
    from tablecert.mahjong.record import load_record

    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MahjongError, match=message):
        load_record(path)
