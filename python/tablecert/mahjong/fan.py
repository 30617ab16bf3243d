"""Fan (番) of a win under Art. 6, priced by the rule file.

The core reduces each reading of a hand to a signature of tile-only facts (suits, honours,
pung/chow shape, honour pungs, the pair). This module turns a signature plus the win's context
(seat and round wind, how the tile came, ...) into scoring items, each with its article, and
combines them as the rule file says. The hand's fan is that of its best reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecert.errors import MahjongError
from tablecert.mahjong.hands import WINDS, Reading, WinningHand, check_game
from tablecert.rules import RuleFile, load_rules

WIN_BY = ("self-drawn", "discard", "robbed-kong")
GREEN_DRAGON = 32

# Signature bits (rust/mahjong/decompose.rs, module `sig`).
_SUITS = 0b111
_HONOURS = 1 << 3
_TERMINALS_HONOURS_ONLY = 1 << 4
_ALL_PUNGS = 1 << 5
_ALL_CHOWS = 1 << 6
_THIRTEEN_ORPHANS = 1 << 7
_CONCEALED = 1 << 8
_HONOUR_PUNG_SHIFT = 9
_PAIR_SHIFT = 16


@dataclass(frozen=True)
class Context:
    """How the hand was won (Art. 5, 6). Winds are ``E S W N``; the dealer sits East."""

    seat: str = "E"
    round_wind: str = "E"
    win_by: str = "self-drawn"
    kong_replacements: int = 0
    last_tile: bool = False
    heavenly: bool = False
    earthly: bool = False

    def check(self, hand: WinningHand | None = None) -> Context:
        """Refuse impossible contexts, naming the problem."""
        for name, wind in (("seat", self.seat), ("round wind", self.round_wind)):
            if wind not in WINDS:
                raise MahjongError(f"{name} {wind!r} is not a wind: expected E, S, W or N")
        if self.win_by not in WIN_BY:
            raise MahjongError(f"win by {self.win_by!r}: expected {', '.join(WIN_BY)}")
        if self.kong_replacements < 0:
            raise MahjongError("kong replacements cannot be negative")
        if self.kong_replacements and self.win_by != "self-drawn":
            raise MahjongError("a win on a kong replacement tile is self-drawn (Art. 5(5))")
        if self.last_tile and self.win_by != "self-drawn":
            raise MahjongError("海底撈月 is a win on the last tile drawn from the wall (Art. 6)")
        if self.heavenly and (self.seat != "E" or self.win_by != "self-drawn"):
            raise MahjongError("a heavenly hand is the dealer's (East's) dealt hand (Art. 5(1))")
        if self.earthly and self.seat == "E":
            raise MahjongError("an earthly hand is a non-dealer's win at the start (Art. 5(2))")
        if self.heavenly and hand is not None and hand.melds:
            raise MahjongError("a heavenly hand has no declared melds")
        return self


@dataclass(frozen=True)
class FanItem:
    """One scoring item of Art. 6: its name in the rule file, fan, article and what it is."""

    name: str
    fan: int
    article: str
    detail: str = ""


@dataclass(frozen=True)
class FanResult:
    """The fan of a win: the chosen reading, its items, the raw sum and the combined fan."""

    game: str
    reading: Reading
    items: tuple[FanItem, ...]
    raw: int
    fan: int
    cap: int
    cap_article: str

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "reading": self.reading.text,
            "items": [
                {"item": i.name, "fan": i.fan, "article": i.article, "detail": i.detail}
                for i in self.items
            ],
            "raw": self.raw,
            "fan": self.fan,
            "cap": self.cap,
            "cap_article": self.cap_article,
        }


def rules_for(game: str, rules: str | RuleFile | None = None) -> RuleFile:
    """The rule file for a game (default: the bundled Macau statute file), checked to match."""
    check_game(game)
    loaded = rules if isinstance(rules, RuleFile) else load_rules(rules or f"{game}.macau")
    if loaded.game != game:
        raise loaded.error("game.id", f"is {loaded.game!r}, not {game!r}")
    return loaded


def _wind_index(wind: str) -> int:
    return WINDS.index(wind)


def items_of(game: str, signature: int, context: Context, winning_tile: int) -> list[str]:
    """The names of the Art. 6 items a reading carries in a context (before supersession)."""
    found: list[str] = []
    if context.win_by == "robbed-kong":
        found.append("robbing_kong")
    if context.last_tile:
        found.append("last_tile")
    if game == "mahjong-simple":
        if winning_tile == GREEN_DRAGON:
            found.append("green_dragon_winning_tile")
        return found
    if context.kong_replacements == 1:
        found.append("kong_replacement")
    elif context.kong_replacements >= 2:
        found.append("double_kong_replacement")
    if context.heavenly:
        found.append("heavenly_hand")
    if context.earthly:
        found.append("earthly_hand")
    if signature & _THIRTEEN_ORPHANS:
        found.append("thirteen_orphans")
        return found
    honour_pungs = (signature >> _HONOUR_PUNG_SHIFT) & 0x7F
    pair = (signature >> _PAIR_SHIFT) & 0x3F
    seat, round_wind = _wind_index(context.seat), _wind_index(context.round_wind)
    winds = [w for w in range(4) if honour_pungs >> w & 1]
    dragons = [d for d in range(3) if honour_pungs >> (4 + d) & 1]
    found += ["dragon_pung"] * len(dragons)
    for w in winds:
        if w == seat and w == round_wind:
            found.append("double_wind_pung")
        elif w == round_wind:
            found.append("round_wind_pung")
        elif w == seat:
            found.append("seat_wind_pung")
    if signature & _ALL_PUNGS:
        found.append("all_pungs")
        if signature & _CONCEALED:
            found.append("concealed_all_pungs")
    scoring_pair = pair >= 31 or pair in (27 + seat, 27 + round_wind)
    all_chows = bool(signature & _ALL_CHOWS) and not scoring_pair
    if all_chows:
        found.append("all_chows")
    suits = bin(signature & _SUITS).count("1")
    honours = bool(signature & _HONOURS)
    if suits == 1 and honours:
        found.append("half_flush")
        if all_chows:
            found.append("half_flush_all_chows")
    if suits == 1 and not honours:
        found.append("full_flush")
    if suits == 0:
        found.append("all_honours")
    if signature & _TERMINALS_HONOURS_ONLY and suits:
        found.append("mixed_terminals" if honours else "all_terminals")
    if len(dragons) == 3:
        found.append("big_three_dragons")
    elif len(dragons) == 2 and pair >= 31:
        found.append("small_three_dragons")
    if len(winds) == 4:
        found.append("big_four_winds")
    elif len(winds) == 3 and 27 <= pair <= 30:
        found.append("small_four_winds")
    return found


@dataclass(frozen=True)
class FanRules:
    """The fan data of one rule file, read once: item values, supersession, combining, cap."""

    items: dict[str, FanItem]
    supersedes: dict[str, tuple[str, ...]]
    combine: str
    cap: int
    cap_article: str
    concealed_all_pungs_on_discard: bool

    @staticmethod
    def of(rules: RuleFile) -> FanRules:
        return _fan_rules(rules)

    def price(self, names: list[str], win_by: str) -> tuple[list[FanItem], int, int]:
        """Items (after supersession), raw fan and combined (capped) fan of found item names."""
        on_discard = win_by != "self-drawn"
        if on_discard and not self.concealed_all_pungs_on_discard:
            names = [n for n in names if n != "concealed_all_pungs"]
        dropped = {d for n in names for d in self.supersedes.get(n, ())}
        items = [self.items[n] for n in names if n not in dropped]
        fans = [i.fan for i in items]
        raw = (sum(fans) if self.combine == "add" else max(fans)) if fans else 0
        if raw == 0:
            items.append(self.items["chicken_hand"])
        return items, raw, min(raw, self.cap)


_FAN_RULES: dict[str, FanRules] = {}


def _fan_rules(rules: RuleFile) -> FanRules:
    key = f"{rules.path}:{rules.sha256}"
    if key in _FAN_RULES:
        return _FAN_RULES[key]
    items = {}
    for name in rules.table("fan.items"):
        value = rules.require(f"fan.items.{name}")
        if not isinstance(value.value, int) or isinstance(value.value, bool):
            raise rules.error(f"fan.items.{name}", f"expected a whole number of fan, got {value!r}")
        items[name] = FanItem(name, value.value, value.article, value.note)
    if "chicken_hand" not in items:
        raise rules.error("fan.items", "missing chicken_hand (the zero-fan win)")
    supersedes = {
        name: tuple(rules.value_of(f"fan.supersedes.{name}", list))
        for name in rules.table("fan.supersedes")
    }
    on_discard = (
        rules.value_of("fan.concealed_all_pungs_on_discard", bool)
        if rules.get("fan.concealed_all_pungs_on_discard") is not None
        else True
    )
    compiled = FanRules(
        items=items,
        supersedes=supersedes,
        combine=rules.choice("fan.combine", ("add", "max")),
        cap=rules.value_of("fan.cap", int),
        cap_article=rules.require("fan.cap").article,
        concealed_all_pungs_on_discard=on_discard,
    )
    _FAN_RULES[key] = compiled
    return compiled


def score_signature(
    rules: RuleFile | FanRules, game: str, signature: int, context: Context, winning_tile: int
) -> tuple[list[FanItem], int, int]:
    """Items, raw fan and combined (capped) fan of one reading."""
    fan_rules = rules if isinstance(rules, FanRules) else FanRules.of(rules)
    names = items_of(game, signature, context, winning_tile)
    missing = [n for n in names if n not in fan_rules.items]
    if missing:
        raise MahjongError(f"the rule file prices no fan item {', '.join(missing)} (Art. 6)")
    return fan_rules.price(names, context.win_by)


def score(hand: WinningHand, context: Context, rules: str | RuleFile | None = None) -> FanResult:
    """The fan of a win: the reading with the highest combined fan (then the highest raw sum)."""
    fan_rules = FanRules.of(rules_for(hand.game, rules))
    context.check(hand)
    best: FanResult | None = None
    for reading in hand.readings:
        items, raw, fan = score_signature(
            fan_rules, hand.game, reading.signature, context, hand.winning_tile
        )
        result = FanResult(
            hand.game, reading, tuple(items), raw, fan, fan_rules.cap, fan_rules.cap_article
        )
        if best is None or (fan, raw) > (best.fan, best.raw):
            best = result
    assert best is not None, "read_hand refuses hands without a reading"
    return best
