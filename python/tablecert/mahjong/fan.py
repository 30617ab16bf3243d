"""Fan (番) of a win under Art. 6, priced by the rule file.

The core reduces each reading of a hand to a signature of tile-only facts (suits, honours,
pung/chow shape, honour pungs, the pair). This module turns a signature plus the win's context
(seat and round wind, how the tile came, ...) into scoring items, each with its article, and
combines them as the rule file says. The hand's fan is that of its best reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.mahjong.hands import WINDS, Reading, WinningHand, check_game
from tablecert.rules import RuleFile, load_rules

WIN_BY = ("self-drawn", "discard", "robbed-kong")
GREEN_DRAGON = 32
MAX_KONGS = 4

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
_OUTSIDE = 1 << 22


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
        """Refuse impossible contexts, naming the problem and the article; with the hand, also
        what its tiles and melds cannot support."""
        for name, wind in (("seat", self.seat), ("round wind", self.round_wind)):
            if wind not in WINDS:
                raise MahjongError(f"{name} {wind!r} is not a wind: expected E, S, W or N")
        if self.win_by not in WIN_BY:
            raise MahjongError(f"win by {self.win_by!r}: expected {', '.join(WIN_BY)}")
        for name, flag in (
            ("last_tile", self.last_tile),
            ("heavenly", self.heavenly),
            ("earthly", self.earthly),
        ):
            if not isinstance(flag, bool):
                raise MahjongError(f"{name} {flag!r}: expected true or false")
        replacements = self.kong_replacements
        if not isinstance(replacements, int) or isinstance(replacements, bool):
            raise MahjongError(f"kong replacements {replacements!r}: expected a whole number")
        if not 0 <= replacements <= MAX_KONGS:
            raise MahjongError(
                f"kong replacements {replacements}: a hand makes 0 to {MAX_KONGS} kongs"
            )
        game = hand.game if hand is not None else "mahjong-traditional"
        if replacements and self.win_by != "self-drawn":
            raise MahjongError(
                f"a win on a kong replacement tile is self-drawn ({article(game, '五', 5, 4)})"
            )
        if self.last_tile and self.win_by != "self-drawn":
            raise MahjongError("海底撈月 is a win on the last tile drawn from the wall (Art. 6)")
        if self.heavenly and (self.seat != "E" or self.win_by != "self-drawn"):
            raise MahjongError(
                f"a heavenly hand is the dealer's (East's) dealt hand ({article(game, '五', 1, 1)})"
            )
        if self.heavenly and (replacements or self.last_tile):
            raise MahjongError(
                "a heavenly hand is won on the dealt tiles, not on a kong replacement or the "
                f"last tile ({article(game, '五', 1, 1)})"
            )
        if self.earthly and self.seat == "E":
            raise MahjongError(
                f"an earthly hand is a non-dealer's win at the start ({article(game, '五', 2, 2)})"
            )
        if self.earthly and self.win_by != "discard":
            raise MahjongError(
                "an earthly hand is won on the dealer's first discard, not self-drawn nor on a "
                f"robbed kong ({article(game, '五', 2, 2)})"
            )
        if hand is not None:
            self._check_hand(hand)
        return self

    def _check_hand(self, hand: WinningHand) -> None:
        game = hand.game
        if self.heavenly and hand.melds:
            raise MahjongError(
                f"a heavenly hand is the dealt hand: it has no declared melds "
                f"({article(game, '五', 1, 1)})"
            )
        if self.earthly and hand.melds:
            raise MahjongError(
                "an earthly hand is won on the dealer's first discard, before any call or kong: "
                f"it has no declared melds ({article(game, '五', 2, 2)})"
            )
        kongs = sum(1 for m in hand.melds if m.kind == "kong")
        if self.kong_replacements > kongs:
            what = "槓上槓 needs" if self.kong_replacements >= 2 else "槓上花 needs"
            raise MahjongError(
                f"{self.kong_replacements} kong replacement(s): {what} as many kongs, the hand "
                f"declares {kongs} ({article(game, '五', 5, 4)})"
            )
        if self.win_by == "robbed-kong":
            copies = hand.copies(hand.winning_tile)
            if copies != 1:
                raise MahjongError(
                    f"robbing a kong of {_core.tile_code(hand.winning_tile)}: the other three "
                    f"copies are in the robbed kong, the hand holds {copies} "
                    f"(第二条(2), {article(game, '六', 2, 2)})"
                )


def article(game: str, number: str, traditional: int, simple: int) -> str:
    """The article text ``第五条(甲)(5)`` of one game's item."""
    if game == "mahjong-simple":
        return f"第{number}条(乙)({simple})"
    return f"第{number}条(甲)({traditional})"


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
    hand: WinningHand | None = None
    context: Context | None = None

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


# The readings (INTERPRETATION.md §3) consulted only in some situations, with their values:
# checked whenever a rule file is used, so a changed value is refused even when it would not
# be consulted.
READING_CHOICES = {
    "game.dealer_after_drawn_hand": ("passes", "stays"),
    "wall.dice_past_row": ("continue-next-row", "wrap-in-row", "rethrow"),
    "payment.fewer_players": ("own-share", "refuse"),
    "liability.missed_win_broke_pung": ("both", "either"),
}


def rules_for(game: str, rules: str | RuleFile | None = None) -> RuleFile:
    """The rule file for a game (default: the bundled Macau statute file), checked to match."""
    check_game(game)
    loaded = rules if isinstance(rules, RuleFile) else load_rules(rules or f"{game}.macau")
    if loaded.game != game:
        raise loaded.error("game.id", f"is {loaded.game!r}, not {game!r}")
    for key, implemented in GAME_SHAPE[game].items():
        if loaded.get(key) is not None and loaded.require(key).value != implemented:
            raise loaded.error(
                key, f"{game} is implemented with {implemented!r} (the game the id names) only"
            )
    for key, allowed in READING_CHOICES.items():
        if loaded.get(key) is not None:
            loaded.choice(key, allowed)
    if loaded.get("liability.exempt_hands") is not None:
        exempt = loaded.value_of("liability.exempt_hands", list)
        items = loaded.table("fan.items")
        unknown = [n for n in exempt if not isinstance(n, str) or n not in items]
        if unknown:
            raise loaded.error("liability.exempt_hands", f"{unknown!r}: not fan items of Art. 6")
    return loaded


# What the game id fixes (Art. 2, Art. 4): the engine implements these, a rule file states them.
GAME_SHAPE: dict[str, dict[str, Any]] = {
    "mahjong-traditional": {"game.tile_set": "traditional", "game.sets_in_win": 4},
    "mahjong-simple": {"game.tile_set": "simple", "game.sets_in_win": 1},
}


def _wind_index(wind: str) -> int:
    return WINDS.index(wind)


@dataclass(frozen=True)
class Exposure:
    """What a reading's tiles alone do not say: which of its sets were called (exposed) and
    which are kongs. A dealt hand (the exact tables) has none of either."""

    called_honours: int = 0  # bit i: a pung/kong of honour 27 + i exposed by a call, or a kong
    called_chows: int = 0
    exposed_pungs: int = 0
    concealed_kongs: int = 0

    @staticmethod
    def of(reading: Reading) -> Exposure:
        honours = 0
        for m in reading.sets:
            if m.kind != "chow" and m.tile >= HONOUR_BASE and (m.exposed or m.kind == "kong"):
                honours |= 1 << (m.tile - HONOUR_BASE)
        return Exposure(
            called_honours=honours,
            called_chows=sum(1 for m in reading.sets if m.kind == "chow" and m.exposed),
            exposed_pungs=sum(1 for m in reading.sets if m.kind == "pung" and m.exposed),
            concealed_kongs=sum(1 for m in reading.sets if m.kind == "kong" and not m.exposed),
        )


DEALT = Exposure()
HONOUR_BASE = 27


@dataclass(frozen=True)
class FanReadings:
    """The rule file's readings of the open points of Art. 6(甲) (INTERPRETATION.md §3)."""

    honour_pungs: str
    mixed_terminals: str
    half_flush_honours: str
    all_chows: str
    concealed_all_pungs_melds: str

    @staticmethod
    def of(rules: RuleFile) -> FanReadings:
        return FanReadings(
            honour_pungs=rules.choice(
                "fan.honour_pungs", ("concealed-or-exposed", "exposed-or-kong")
            ),
            mixed_terminals=rules.choice(
                "fan.mixed_terminals",
                ("terminals-and-honours-only", "terminal-or-honour-in-every-set"),
            ),
            half_flush_honours=rules.choice(
                "fan.half_flush_honours", ("any", "unscored-winds", "unscored-honours")
            ),
            all_chows=rules.choice("fan.all_chows", ("concealed-or-called", "called-only")),
            concealed_all_pungs_melds=rules.choice(
                "fan.concealed_all_pungs_melds",
                ("exposed-meld-breaks", "exposed-pung-breaks", "any-kong-breaks"),
            ),
        )


def items_of(
    game: str,
    signature: int,
    context: Context,
    winning_tile: int,
    readings: FanReadings | None = None,
    exposure: Exposure = DEALT,
) -> list[str]:
    """The names of the Art. 6 items a reading carries in a context (before supersession).

    ``readings`` (required for the traditional game) are the rule file's readings of the open
    points; ``exposure`` says which sets were called or are kongs."""
    found: list[str] = []
    if context.win_by == "robbed-kong":
        found.append("robbing_kong")
    if context.last_tile:
        found.append("last_tile")
    if game == "mahjong-simple":
        if winning_tile == GREEN_DRAGON:
            found.append("green_dragon_winning_tile")
        return found
    if readings is None:
        raise MahjongError("the traditional game's fan needs the rule file's readings")
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
    # 碰出或杠: which honour pungs the items worded "exposed" count (a reading).
    called = honour_pungs
    if readings.honour_pungs == "exposed-or-kong":
        called &= exposure.called_honours
    pair = (signature >> _PAIR_SHIFT) & 0x3F
    seat, round_wind = _wind_index(context.seat), _wind_index(context.round_wind)
    winds = [w for w in range(4) if called >> w & 1]
    dragons = [d for d in range(3) if called >> (4 + d) & 1]
    found += ["dragon_pung"] * len(dragons)
    scored_wind = False
    for w in winds:
        if w == seat and w == round_wind:
            found.append("double_wind_pung")
        elif w == round_wind:
            found.append("round_wind_pung")
        elif w == seat:
            found.append("seat_wind_pung")
        scored_wind = scored_wind or w in (seat, round_wind)
    if signature & _ALL_PUNGS:
        found.append("all_pungs")
        if _concealed_all_pungs(signature, readings, exposure):
            found.append("concealed_all_pungs")
    scoring_pair = pair >= 31 or pair in (27 + seat, 27 + round_wind)
    all_chows = bool(signature & _ALL_CHOWS) and not scoring_pair
    if readings.all_chows == "called-only":
        all_chows = all_chows and exposure.called_chows == 4
    if all_chows:
        found.append("all_chows")
    suits = bin(signature & _SUITS).count("1")
    honours = bool(signature & _HONOURS)
    scored_honours = {
        "any": False,
        "unscored-winds": scored_wind,
        "unscored-honours": scored_wind or bool(dragons),
    }[readings.half_flush_honours]
    if suits == 1 and honours and not scored_honours:
        found.append("half_flush")
        if all_chows:
            found.append("half_flush_all_chows")
    if suits == 1 and not honours:
        found.append("full_flush")
    if suits == 0:
        found.append("all_honours")
    terminals_only = bool(signature & _TERMINALS_HONOURS_ONLY)
    if terminals_only and suits and not honours:
        found.append("all_terminals")
    outside = (
        terminals_only
        if readings.mixed_terminals == "terminals-and-honours-only"
        else bool(signature & _OUTSIDE)
    )
    if outside and suits and honours:
        found.append("mixed_terminals")
    all_dragons = [d for d in range(3) if honour_pungs >> (4 + d) & 1]
    all_winds = [w for w in range(4) if honour_pungs >> w & 1]
    if len(dragons) == 3:
        found.append("big_three_dragons")
    elif len(all_dragons) == 2 and pair >= 31:
        found.append("small_three_dragons")
    if len(winds) == 4:
        found.append("big_four_winds")
    elif len(all_winds) == 3 and 27 <= pair <= 30:
        found.append("small_four_winds")
    return found


def _concealed_all_pungs(signature: int, readings: FanReadings, exposure: Exposure) -> bool:
    """糊 (对对糊不碰牌落地) under the rule file's reading of which melds break it."""
    rule = readings.concealed_all_pungs_melds
    if rule == "exposed-pung-breaks":
        return exposure.exposed_pungs == 0
    concealed = bool(signature & _CONCEALED)
    if rule == "any-kong-breaks":
        return concealed and exposure.concealed_kongs == 0
    return concealed


@dataclass(frozen=True)
class FanRules:
    """The fan data of one rule file, read once: item values, supersession, combining, cap."""

    items: dict[str, FanItem]
    supersedes: dict[str, tuple[str, ...]]
    combine: str
    cap: int
    cap_article: str
    concealed_all_pungs_on_discard: bool
    readings: FanReadings | None

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
    if items["chicken_hand"].fan != 0:
        raise rules.error(
            "fan.items.chicken_hand", "the win with no scoring item is worth 0 fan (Art. 6(1))"
        )
    supersedes = {
        name: tuple(rules.value_of(f"fan.supersedes.{name}", list))
        for name in rules.table("fan.supersedes")
    }
    for name, dropped in supersedes.items():
        unknown = [d for d in (name, *dropped) if d not in items]
        if unknown:
            raise rules.error(
                f"fan.supersedes.{name}", f"no fan item {', '.join(map(repr, unknown))}"
            )
    on_discard = (
        rules.value_of("fan.concealed_all_pungs_on_discard", bool)
        if rules.get("fan.concealed_all_pungs_on_discard") is not None
        else True
    )
    cap = rules.value_of("fan.cap", int)
    compiled = FanRules(
        items=items,
        supersedes=supersedes,
        combine=rules.choice("fan.combine", ("add", "max")),
        cap=cap,
        cap_article=rules.require("fan.cap").article,
        concealed_all_pungs_on_discard=on_discard,
        readings=FanReadings.of(rules) if rules.game == "mahjong-traditional" else None,
    )
    _FAN_RULES[key] = compiled
    return compiled


def score_signature(
    rules: RuleFile | FanRules,
    game: str,
    signature: int,
    context: Context,
    winning_tile: int,
    exposure: Exposure = DEALT,
) -> tuple[list[FanItem], int, int]:
    """Items, raw fan and combined (capped) fan of one reading."""
    fan_rules = rules if isinstance(rules, FanRules) else FanRules.of(rules)
    names = items_of(game, signature, context, winning_tile, fan_rules.readings, exposure)
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
            fan_rules,
            hand.game,
            reading.signature,
            context,
            hand.winning_tile,
            Exposure.of(reading),
        )
        result = FanResult(
            hand.game,
            reading,
            tuple(items),
            raw,
            fan,
            fan_rules.cap,
            fan_rules.cap_article,
            hand,
            context,
        )
        if best is None or (fan, raw) > (best.fan, best.raw):
            best = result
    assert best is not None, "read_hand refuses hands without a reading"
    return best
