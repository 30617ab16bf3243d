"""Mahjong hands and game records that several test files play, written once so each names
the same hand the same way."""

from __future__ import annotations

from typing import Any

#: A chicken hand (鸡糊, no fan item): chows in three suits, a pung of 2m, a pair of 5s.
CHICKEN = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2m 2m 2m 5s 5s"
#: Exposed pungs of East wind and 中 with chows and a 9s pair, no kong: for South in the East
#: round on a discard, round wind 1 + dragon 1 = 2 fan.
NO_KONG = "1m 2m 3m 4p 5p 6p 9s 9s [E E E] [Rd Rd Rd]"
#: South's chicken hand won on a discard at 25/50: East pays 50, West and North 25 each.
CHICKEN_RECORD: dict[str, Any] = {
    "game": "mahjong-traditional",
    "limit": "25/50",
    "winner": "S",
    "hand": CHICKEN,
    "context": {"win_by": "discard"},
}
