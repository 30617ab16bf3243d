"""Settle one game from its record (a JSON object), as a device log or a lab writes it.

A win::

    {"game": "mahjong-traditional", "limit": "100/200", "winner": "S",
     "hand": "1m 2m 3m 4p 5p 6p 9s 9s [E E E] [Rd Rd Rd]", "winning_tile": "9s",
     "context": {"round_wind": "E", "win_by": "discard"},
     "discarder": "W", "liability": "broke_pung", "first_discard_honour": false,
     "stake": 500, "players": ["E", "S", "W", "N"]}

(``winning_tile``, ``context``, ``discarder``, ``liability``, ``first_discard_honour``,
``stake`` and ``players`` are optional; the winner's seat is the context's seat; a liability
is one Art. 10 case or a list of cases that hold together.) A false win (詐糊, Art. 10)::

    {"game": "mahjong-traditional", "limit": "100/200", "false_win": "S"}

Every field is typed strictly: booleans are JSON booleans, counts small whole numbers, seats
one of ``E S W N``, a stake a positive number; an error names the file, line and key.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from tablecert.errors import MahjongError
from tablecert.io import strict_json
from tablecert.mahjong.fan import MAX_KONGS, WIN_BY, Context, FanResult, score
from tablecert.mahjong.hands import GAMES, WINDS, parse_hand
from tablecert.mahjong.payments import Settlement, settle_false_win, settle_win
from tablecert.rules import RuleFile
from tablecert.rules.loader import read_utf8

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
MAX_STAKE = 10**12

Locate = Callable[[str], str]
T = TypeVar("T")


def _nowhere(key: str) -> str:
    return "game record"


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


class Fields:
    """Typed access to one JSON object of a record; errors name the place and the key."""

    def __init__(self, data: Any, locate: Locate, prefix: str = "") -> None:
        self.locate = locate
        self.prefix = prefix
        if not isinstance(data, Mapping):
            raise self.error("", f"expected a JSON object, got {_kind(data)}")
        self.data = data

    def error(self, key: str, message: str) -> MahjongError:
        name = f"{self.prefix}{key}".rstrip(".")
        where = self.locate(name)
        return MahjongError(f"{where}: {name}: {message}" if name else f"{where}: {message}")

    def only(self, allowed: set[str]) -> None:
        extra = sorted(set(self.data) - allowed)
        if extra:
            raise self.error(extra[0], f"unknown key (expected {', '.join(sorted(allowed))})")

    def has(self, key: str) -> bool:
        return key in self.data

    def need(self, key: str) -> Any:
        if key not in self.data:
            raise self.error(key, "missing")
        return self.data[key]

    def text(self, key: str, choices: tuple[str, ...] | None = None) -> str:
        value = self.need(key)
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_kind(value)}")
        if choices is not None and value not in choices:
            raise self.error(key, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def seat(self, key: str) -> str:
        return self.text(key, WINDS)

    def flag(self, key: str) -> bool:
        value = self.need(key)
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_kind(value)}")
        return value

    def count(self, key: str, top: int) -> int:
        value = self.need(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
            raise self.error(key, f"expected a whole number 0 to {top}, got {_kind(value)}")
        return value

    def positive(self, key: str, top: int) -> Fraction:
        value = self.need(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"expected a positive number, got {_kind(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.error(key, f"expected a positive number, got {value!r}")
        amount = Fraction(str(value))
        if not 0 < amount <= top:
            raise self.error(key, f"expected a positive number up to {top:,}, got {value!r}")
        return amount

    def limit(self, key: str) -> str | int:
        value = self.need(key)
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise self.error(key, f'expected a table limit like "100/200", got {_kind(value)}')
        return value

    def seats(self, key: str) -> list[str]:
        value = self.need(key)
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            raise self.error(key, f"expected a list of seats (E S W N), got {_kind(value)}")
        if any(s not in WINDS for s in value) or len(set(value)) != len(value):
            raise self.error(key, f"{value!r}: expected distinct seats among E, S, W, N")
        return list(value)

    def names(self, key: str) -> str | list[str]:
        value = self.need(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return list(value)
        raise self.error(key, f"expected a case name or a list of case names, got {_kind(value)}")


def _kind(value: Any) -> str:
    """A short, safe description of a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**15 else f"a {len(str(abs(value)))}-digit number"
    if isinstance(value, float | str):
        return repr(value) if len(repr(value)) < 40 else f"{repr(value)[:37]}..."
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def settle_record(
    record: Any, rules: str | RuleFile | None = None, *, locate: Locate = _nowhere
) -> SettledGame:
    """Score and settle one recorded game (a win or a false win), every field typed strictly.

    ``locate`` turns a key into the place to name in errors (``file:line``)."""
    fields = Fields(record, locate)
    game = fields.text("game", GAMES)
    limit = fields.limit("limit")
    players = fields.seats("players") if fields.has("players") else None
    if fields.has("false_win"):
        fields.only(_FALSE_WIN_KEYS)
        false_winner = fields.seat("false_win")
        if players is not None and false_winner not in players:
            raise fields.error("false_win", f"{false_winner!r} is not among the players")
        settled = _located(
            fields,
            "false_win",
            lambda: settle_false_win(game, false_winner, limit, rules=rules, players=players),
        )
        return SettledGame(None, settled)
    fields.only(_WIN_KEYS)
    winner = fields.seat("winner")
    context = _context(fields, winner)
    hand_text = fields.text("hand")
    tile = fields.text("winning_tile") if fields.has("winning_tile") else None
    hand = _located(fields, "hand", lambda: parse_hand(game, hand_text, tile))
    result = _located(fields, "context", lambda: score(hand, context, rules))
    discarder = fields.seat("discarder") if fields.has("discarder") else None
    liability = fields.names("liability") if fields.has("liability") else None
    first = fields.flag("first_discard_honour") if fields.has("first_discard_honour") else False
    stake = fields.positive("stake", MAX_STAKE) if fields.has("stake") else None
    key = "liability" if liability is not None else "discarder"
    settled = _located(
        fields,
        key,
        lambda: settle_win(
            result,
            winner,
            limit,
            rules=rules,
            players=players,
            discarder=discarder,
            liability=liability,
            first_discard_honour=first,
            stake=stake,
        ),
    )
    return SettledGame(result, settled)


def _context(fields: Fields, winner: str) -> Context:
    if not fields.has("context"):
        return Context(seat=winner)
    inner = Fields(fields.need("context"), fields.locate, "context.")
    inner.only(_CONTEXT_KEYS)
    values: dict[str, Any] = {"seat": winner}
    if inner.has("round_wind"):
        values["round_wind"] = inner.seat("round_wind")
    if inner.has("win_by"):
        values["win_by"] = inner.text("win_by", WIN_BY)
    if inner.has("kong_replacements"):
        values["kong_replacements"] = inner.count("kong_replacements", MAX_KONGS)
    for flag in ("last_tile", "heavenly", "earthly"):
        if inner.has(flag):
            values[flag] = inner.flag(flag)
    return Context(**values)


def _located(fields: Fields, key: str, action: Callable[[], T]) -> T:
    """Run a step of the engine; its error is prefixed with the record's place and key."""
    try:
        return action()
    except MahjongError as exc:
        raise fields.error(key, str(exc)) from exc


def file_locator(path: Path | str, text: str, first_line: int = 1) -> Locate:
    """``file:line`` of a key in a record read from ``text`` (the key's first occurrence)."""

    def locate(key: str) -> str:
        last = key.rstrip(".").split(".")[-1]
        return f"{path}:{strict_json.line_of_key(text, last, first_line) if last else first_line}"

    return locate


def load_record(path: Path) -> tuple[Any, Locate]:
    """Read one JSON game record strictly; its locator names lines of the file."""
    _, text = read_utf8(path, MahjongError, "game record")
    try:
        data = strict_json.loads(text, str(path))
    except strict_json.StrictJsonError as exc:
        raise MahjongError(str(exc)) from exc
    return data, file_locator(path, text)
