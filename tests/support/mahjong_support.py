"""Mahjong hands and game records that several test files play, written once so each names
the same hand the same way."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tablecert.mahjong.corpus import TRAD
from tablecert.mahjong.replay import Replay

#: A chicken hand (鸡糊, no fan item): chows in three suits, a pung of 2m, a pair of 5s.
CHICKEN = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s"
#: Exposed pungs of East wind and 中 with chows and a 9s pair, no kong: for South in the East
#: round on a discard, round wind 1 + dragon 1 = 2 fan.
NO_KONG = "1m 2m 3m 4p 5p 6p 9s 9s [E E E] [Rd Rd Rd]"
#: South's all-chows hand waiting on 5p (4p 6p), a pair of 2s: 1 fan on a discard.
SOUTH_WAITS_5P = "1m 2m 3m 4m 5m 6m 7m 8m 9m 2s 2s 4p 6p"
#: A hand of honours for a seat that only draws and discards (North in most hand-made deals).
FILLER = "Rd Rd Rd Gd Gd Gd Wd Wd Wd S S S W"
#: South's chicken hand won on a discard at 25/50: East pays 50, West and North 25 each.
CHICKEN_RECORD: dict[str, Any] = {
    "game": "mahjong-traditional",
    "limit": "25/50",
    "winner": "S",
    "hand": CHICKEN,
    "context": {"win_by": "discard"},
}


def turns(*moves: str) -> list[dict[str, Any]]:
    """The play events of ordinary turns, each written ``"SEAT DRAWN DISCARDED"``: ``"W 4s 5p"``
    is West drawing 4s and discarding 5p (two events). A hand-made record is mostly such turns;
    written this way, the events that decide the hand (calls, wins, a held tile) stand out."""
    events: list[dict[str, Any]] = []
    for move in moves:
        seat, drawn, discarded = move.split()
        events += [{"seat": seat, "draw": drawn}, {"seat": seat, "discard": discarded}]
    return events


def game_record(
    deal: dict[str, str], play: list[dict[str, Any]], game: str = TRAD
) -> dict[str, Any]:
    """A hand-made game record at 100/200: the tiles dealt to each seat (every draw of the play
    states its tile, so there is no wall) and the play."""
    return {"game": game, "limit": "100/200", "deal": deal, "play": play}


def paid(played: Replay) -> dict[tuple[str, str], Fraction]:
    """Who paid whom how much in a valid replayed hand."""
    assert played.valid, [v.text for v in played.violations]
    assert played.settlement is not None
    return {(p.payer, p.payee): p.amount for p in played.settlement.payments}


#: A 萬子 full flush for South: East, West and North hold the 1m, 2m and 3m South pungs in FED.
FLUSH = {
    "E": "1m 4m 1p 1p 1p 2p 2p 2p 3p 3p 3p 5s 5s 5s",
    "S": "1m 1m 2m 2m 3m 3m 4m 4m 9m E S W N",
    "W": "2m Rd Rd Rd Gd Gd Gd Wd Wd Wd 6s 6s 6s",
    "N": "3m 7p 7p 7p 8p 8p 8p 9p 9p 9p 7s 7s 7s",
}
#: South pungs 1m, 2m, 3m (the first 13 events) and East's 4m, then a round passes.
FED: list[dict[str, Any]] = [
    {"seat": "E", "discard": "1m"},
    {"seat": "S", "pung": "1m 1m 1m"},
    {"seat": "S", "discard": "E"},
    *turns("W 8s 2m"),
    {"seat": "S", "pung": "2m 2m 2m"},
    {"seat": "S", "discard": "S"},
    *turns("W 9s 9s", "N 1s 3m"),
    {"seat": "S", "pung": "3m 3m 3m"},
    {"seat": "S", "discard": "W"},
    *turns("W 2s 2s", "N 4s 4s", "E 4p 4m"),
    {"seat": "S", "pung": "4m 4m 4m"},
    {"seat": "S", "discard": "N"},
    *turns("W 3s 3s", "N 6p 6p", "E 5p 5p"),
]
