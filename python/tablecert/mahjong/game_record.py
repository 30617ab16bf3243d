"""A whole game record read strictly into typed data: the table, the deal and the events.

A game record (JSON, ``tablecert-mahjong-game/1``) is the wall and dice (or the deal), then
every event of the hand in order::

    {"format": "tablecert-mahjong-game/1", "game": "mahjong-traditional", "limit": "100/200",
     "round_wind": "E", "wall": "1m 5p ... (136 codes in logged wall order)", "dice": [6, 4, 3],
     "play": [
       {"seat": "E", "discard": "9s"},
       {"seat": "S", "pung": "9s 9s 9s"},          # a call on the last discard (its tiles)
       {"seat": "S", "discard": "1m"},
       {"seat": "W", "draw": "4p"},                # the tile is optional with a wall
       {"seat": "W", "kong": "4p", "from": "hand"},  # "hand" concealed, "pung" added, "discard"
       {"seat": "W", "replacement": "7s"},         # from the wall's tail (牌尾)
       {"claims": [{"seat": "N", "win": {}}, {"seat": "S", "win": {}}], "awarded": "N"},
       ...],
     "result": {"winner": "N"}}

Other events: ``chow`` (``"3m 4m 5m"``), ``win`` (``{"liability": ..., "stake": ...}``),
``retract`` (taking back a discard), ``withdraw_pung`` (calling pung and not punging),
``look`` (looking at another player's hand, ``{"seat": "S", "look": "W"}``) and ``correct``
(fixing a wrong chow or pung within one round). ``deal`` (``{"E": "...", "S": "...", ...}``)
may replace ``wall`` and ``dice``; draws then state their tile. ``result`` (optional) is what
the table decided: ``{"winner": S}``, ``{"false_win": S}`` or ``{"drawn": true}``.

What cannot be read is a ``MahjongError`` naming the file, line and key; whether the play is
legal is the replay's question (:mod:`tablecert.mahjong.replay`), not this module's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.mahjong.fan import rules_for
from tablecert.mahjong.hands import TILE_SET, WINDS
from tablecert.mahjong.record import MAX_STAKE, Fields
from tablecert.mahjong.wall import deal as deal_wall
from tablecert.rules import RuleFile

FORMAT = "tablecert-mahjong-game/1"
ACTIONS = (
    "draw",
    "discard",
    "chow",
    "pung",
    "kong",
    "replacement",
    "win",
    "retract",
    "withdraw_pung",
    "look",
    "correct",
)
CLAIMS = ("chow", "pung", "kong", "win")
_RECORD_KEYS = {
    "format",
    "game",
    "limit",
    "round_wind",
    "players",
    "stakes",
    "wall",
    "dice",
    "deal",
    "play",
    "device_id",
    "timestamp",
    "shuffle_id",
    "result",
}


def is_game_record(data: Any) -> bool:
    return isinstance(data, dict) and "play" in data


@dataclass(frozen=True)
class GameRecord:
    """A game record, read: the game and its rules, the table, the deal, the typed events and
    the result the table decided (``(outcome, seat)``, or None if the record states none)."""

    game: str
    rules: RuleFile
    limit: Any
    round_wind: str
    seats: list[str]
    stakes: dict[str, Any]
    start: Start
    events: tuple[Event, ...]
    result: tuple[str, str | None] | None


def read_game_record(
    record: Any, rules: str | RuleFile | None, locate: Callable[[str], str]
) -> GameRecord:
    """Read a game record strictly; ``locate`` names the file and line of a key."""
    fields = Fields(record, locate)
    fields.only(_RECORD_KEYS)
    if fields.has("format") and fields.text("format") != FORMAT:
        raise fields.error("format", f"expected {FORMAT!r}")
    game = fields.text("game", ("mahjong-traditional", "mahjong-simple"))
    rule_file = rules_for(game, rules)
    limit = fields.limit("limit")
    round_wind = fields.seat("round_wind") if fields.has("round_wind") else "E"
    seats = _players(fields, rule_file)
    stakes = _stakes(fields, seats)
    start = _start(fields, game, seats, rule_file)
    for key in ("device_id", "timestamp"):
        if fields.has(key):
            fields.text(key)
    if fields.has("shuffle_id"):
        fields.count("shuffle_id", 10**15)
    events = fields.need("play")
    if not isinstance(events, list) or not events:
        raise fields.error("play", "expected a non-empty list of events")
    parsed = tuple(_event(fields, i, e, seats) for i, e in enumerate(events, start=1))
    return GameRecord(
        game=game,
        rules=rule_file,
        limit=limit,
        round_wind=round_wind,
        seats=seats,
        stakes=stakes,
        start=start,
        events=parsed,
        result=_result(fields, seats),
    )


def _players(fields: Fields, rules: RuleFile) -> list[str]:
    seats = fields.seats("players") if fields.has("players") else list(WINDS)
    dealer = rules.value_of("payment.dealer_seat", str)
    if dealer not in seats:
        raise fields.error("players", f"the dealer ({dealer}) must be playing (第三条)")
    least = rules.value_of("game.min_players", int) if rules.get("game.min_players") else 4
    most = rules.value_of("game.players", int)
    if not least <= len(seats) <= most:
        raise fields.error("players", f"{len(seats)} players: this game has {least} to {most}")
    return [s for s in WINDS if s in seats]


def _stakes(fields: Fields, seats: list[str]) -> dict[str, Any]:
    if not fields.has("stakes"):
        return {}
    inner = Fields(fields.need("stakes"), fields.locate, "stakes.")
    inner.only(set(seats))
    return {seat: inner.positive(seat, MAX_STAKE) for seat in seats if inner.has(seat)}


def _tiles(fields: Fields, key: str, game: str) -> list[int]:
    value = fields.need(key)
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        text = " ".join(value)
    else:
        raise fields.error(key, "expected tile codes (a string or a list of strings)")
    try:
        tiles = _core.parse_tiles(text)
    except ValueError as exc:
        raise fields.error(key, str(exc)) from exc
    allowed = set(_core.tile_types(TILE_SET[game]))
    bad = [t for t in tiles if t not in allowed]
    if bad:
        raise fields.error(key, f"{_core.tile_code(bad[0])} is not a tile of {game} (第二条(2))")
    return tiles


@dataclass(frozen=True)
class Start:
    """The hand as dealt: every seat's tiles and, with a wall, the draw order of its front
    (``live``) and of its tail (replacements), as tiles and as wall positions."""

    hands: dict[str, list[int]]
    remaining: int
    live: list[int] | None = None
    tail: list[int] | None = None
    positions_live: list[int] = field(default_factory=list)
    positions_tail: list[int] = field(default_factory=list)
    #: With a deal and no wall: the tiles known to be in play (dealt), counted.
    in_play: Counter[int] = field(default_factory=Counter)


def _start(fields: Fields, game: str, seats: list[str], rules: RuleFile) -> Start:
    total = 4 * len(_core.tile_types(TILE_SET[game]))
    if fields.has("wall"):
        if fields.has("deal"):
            raise fields.error("deal", "give the wall and dice or the deal, not both")
        wall = _tiles(fields, "wall", game)
        dice = fields.need("dice")
        if not isinstance(dice, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in dice
        ):
            raise fields.error("dice", "expected a list of whole numbers")
        try:
            dealt = deal_wall(game, wall, dice, players=seats, rules=rules)
        except MahjongError as exc:
            raise fields.error("wall", str(exc)) from exc
        return Start(
            hands={s: list(dealt.hands[s]) for s in seats},
            remaining=len(dealt.live),
            live=[wall[p] for p in dealt.live],
            tail=[wall[p] for p in dealt.tail],
            positions_live=list(dealt.live),
            positions_tail=list(dealt.tail),
        )
    inner = Fields(fields.need("deal"), fields.locate, "deal.")
    inner.only(set(seats))
    hands = {s: _tiles(inner, s, game) for s in seats}
    size = 3 * rules.value_of("game.sets_in_win", int) + 1
    for s in seats:
        want = size + 1 if s == "E" else size
        if len(hands[s]) != want:
            raise inner.error(
                s, f"{s} is dealt {want} tiles (第三条), the record has {len(hands[s])}"
            )
    counts = Counter(t for h in hands.values() for t in h)
    over = [t for t, c in counts.items() if c > 4]
    if over:
        raise inner.error("", f"five or more {_core.tile_code(over[0])} dealt (第二条(2))")
    return Start(hands=hands, remaining=total - sum(len(h) for h in hands.values()), in_play=counts)


@dataclass(frozen=True)
class Event:
    """One event of the record, typed (a claims event holds its claims)."""

    seat: str
    action: str
    value: Any
    extra: dict[str, Any]
    claims: tuple[Event, ...] = ()
    awarded: str = ""


def _event(fields: Fields, number: int, data: Any, seats: list[str]) -> Event:
    where = Fields(data, fields.locate, f"play[{number - 1}].")
    if where.has("claims"):
        where.only({"claims", "awarded"})
        raw = where.need("claims")
        if not isinstance(raw, list) or not raw:
            raise where.error("claims", "expected a non-empty list of claims")
        claims = []
        for i, item in enumerate(raw):
            claim = Fields(item, fields.locate, f"play[{number - 1}].claims[{i}].")
            seat = claim.seat("seat")
            kinds = [k for k in CLAIMS if claim.has(k)]
            if len(kinds) != 1:
                raise claim.error("", f"a claim is one of {', '.join(CLAIMS)}")
            claim.only({"seat", kinds[0]})
            value, extra = _action(claim, kinds[0])
            claims.append(Event(seat, kinds[0], value, extra))
        awarded = where.seat("awarded")
        if awarded not in {c.seat for c in claims}:
            raise where.error("awarded", f"{awarded} made no claim")
        if len({c.seat for c in claims}) != len(claims):
            raise where.error("claims", "one claim per seat")
        return Event("", "claims", None, {}, tuple(claims), awarded)
    seat = where.seat("seat")
    if seat not in seats:
        raise where.error("seat", f"{seat} is not playing")
    actions = [a for a in ACTIONS if where.has(a)]
    if len(actions) != 1:
        raise where.error("", f"an event is exactly one of {', '.join(ACTIONS)}")
    action = actions[0]
    where.only({"seat", action, "from"} if action == "kong" else {"seat", action})
    value, extra = _action(where, action)
    return Event(seat, action, value, extra)


def _action(where: Fields, action: str) -> tuple[Any, dict[str, Any]]:
    """The value of one action, typed: tiles, a seat, or a win's details."""
    extra: dict[str, Any] = {}
    value = where.need(action)
    if action == "kong":
        extra["from"] = (
            where.text("from", ("hand", "pung", "discard")) if where.has("from") else "discard"
        )
    if action == "win":
        win = Fields(value, where.locate, f"{where.prefix}win.")
        win.only({"liability", "first_discard_honour", "discarder"})
        if win.has("liability"):
            extra["liability"] = win.names("liability")
        if win.has("first_discard_honour"):
            extra["first_discard_honour"] = win.flag("first_discard_honour")
        if win.has("discarder"):
            extra["discarder"] = win.seat("discarder")
        return None, extra
    if action == "look":
        return where.seat("look"), extra
    if action in ("draw", "replacement") and value is True:
        return None, extra
    if not isinstance(value, str):
        raise where.error(action, "expected tile codes")
    try:
        tiles = _core.parse_tiles(value)
    except ValueError as exc:
        raise where.error(action, str(exc)) from exc
    if action in ("chow", "pung", "correct"):
        if len(tiles) != 3:
            raise where.error(action, "expected three tiles")
        return tiles, extra
    if len(tiles) != 1:
        raise where.error(action, "expected one tile")
    return tiles[0], extra


def _result(fields: Fields, seats: list[str]) -> tuple[str, str | None] | None:
    if not fields.has("result"):
        return None
    inner = Fields(fields.need("result"), fields.locate, "result.")
    inner.only({"winner", "false_win", "drawn"})
    if inner.has("winner"):
        return ("win", inner.seat("winner"))
    if inner.has("false_win"):
        return ("false-win", inner.seat("false_win"))
    if inner.has("drawn") and inner.flag("drawn"):
        return ("drawn", None)
    raise inner.error("", "expected winner, false_win or drawn: true")
