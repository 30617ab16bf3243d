"""Settle one game from its record (a JSON object), as a device log or a lab writes it.

A win::

    {"game": "mahjong-traditional", "limit": "100/200", "winner": "S",
     "hand": "1m 2m 3m 4p 5p 6p 9s 9s [E E E] [Rd Rd Rd]", "winning_tile": "9s",
     "context": {"round_wind": "E", "win_by": "discard"},
     "discarder": "W", "liability": "broke_pung", "first_discard_honour": false,
     "stake": 500, "players": ["E", "S", "W", "N"]}

(``winning_tile``, ``context``, ``discarder``, ``liability``, ``first_discard_honour``,
``stake`` and ``players`` are optional; the winner's seat is the context's seat.) A false win
(詐糊, Art. 10)::

    {"game": "mahjong-traditional", "limit": "100/200", "false_win": "S"}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablecert.errors import MahjongError
from tablecert.mahjong.fan import Context, FanResult, score
from tablecert.mahjong.hands import check_game, parse_hand
from tablecert.mahjong.payments import Settlement, settle_false_win, settle_win
from tablecert.rules import RuleFile

_WIN_KEYS = {
    "game",
    "limit",
    "winner",
    "hand",
    "winning_tile",
    "context",
    "discarder",
    "liability",
    "first_discard_honour",
    "stake",
    "players",
}
_FALSE_WIN_KEYS = {"game", "limit", "false_win", "players"}
_CONTEXT_KEYS = {"round_wind", "win_by", "kong_replacements", "last_tile", "heavenly", "earthly"}


@dataclass(frozen=True)
class SettledGame:
    """A settled record: the fan of the win (None for a false win) and the payments."""

    fan: FanResult | None
    settlement: Settlement

    def as_json(self) -> dict[str, Any]:
        return {
            "fan": self.fan.as_json() if self.fan is not None else None,
            "settlement": self.settlement.as_json(),
        }


def _need(record: Mapping[str, Any], key: str) -> Any:
    if key not in record:
        raise MahjongError(f"game record: missing {key!r}")
    return record[key]


def _unknown(record: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(record) - allowed)
    if extra:
        raise MahjongError(f"game record: unknown {where}key(s) {', '.join(extra)}")


def settle_record(record: Mapping[str, Any], rules: str | RuleFile | None = None) -> SettledGame:
    """Score and settle one recorded game (a win or a false win)."""
    if not isinstance(record, Mapping):
        raise MahjongError("game record: expected a JSON object")
    game = check_game(str(_need(record, "game")))
    limit = _need(record, "limit")
    players = record.get("players")
    if "false_win" in record:
        _unknown(record, _FALSE_WIN_KEYS, "")
        settled = settle_false_win(
            game, str(record["false_win"]), limit, rules=rules, players=players
        )
        return SettledGame(None, settled)
    _unknown(record, _WIN_KEYS, "")
    winner = str(_need(record, "winner"))
    context_data = dict(record.get("context") or {})
    _unknown(context_data, _CONTEXT_KEYS, "context ")
    context = Context(seat=winner, **context_data)
    hand = parse_hand(game, str(_need(record, "hand")), record.get("winning_tile"))
    result = score(hand, context, rules)
    stake = record.get("stake")
    settled = settle_win(
        result,
        winner,
        limit,
        rules=rules,
        players=players,
        discarder=record.get("discarder"),
        liability=record.get("liability"),
        first_discard_honour=bool(record.get("first_discard_honour", False)),
        stake=Fraction(str(stake)) if stake is not None else None,
    )
    return SettledGame(result, settled)
