"""Winning hands as the statute reads them (Art. 4, 5): concealed tiles plus declared melds.

Hand text: tile codes for the concealed tiles (the winning tile included), and declared melds
in brackets: ``[E E E]`` an exposed pung, ``[1m 2m 3m]`` an exposed chow, ``[Rd Rd Rd Rd]`` an
exposed kong, ``(Gd Gd Gd Gd)`` a concealed kong. The core checks tile counts and sizes and
reads the hand every way (``_core.decompose_hand``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablecert import _core
from tablecert.errors import GameError, MahjongError

GAMES = ("mahjong-traditional", "mahjong-simple")
TILE_SET = {"mahjong-traditional": "traditional", "mahjong-simple": "simple"}
WINDS = ("E", "S", "W", "N")


@dataclass(frozen=True)
class Meld:
    """One set: ``kind`` chow/pung/kong, its lowest tile id, and whether it is exposed."""

    kind: str
    tile: int
    exposed: bool

    def as_core(self) -> tuple[str, int, bool]:
        return (self.kind, self.tile, self.exposed)

    @property
    def text(self) -> str:
        size = {"chow": 3, "pung": 3, "kong": 4}[self.kind]
        step = 1 if self.kind == "chow" else 0
        codes = " ".join(_core.tile_code(self.tile + i * step) for i in range(size))
        if self.exposed:
            return f"[{codes}]"
        return f"({codes})" if self.kind == "kong" else f"{{{codes}}}"


@dataclass(frozen=True)
class Reading:
    """One decomposition of a winning hand: the pair and every set (declared ones included).

    Shown as ``Wd Wd {1m 2m 3m} [E E E] (Rd Rd Rd Rd)``: ``{}`` a concealed set, ``[]`` an
    exposed meld, ``()`` a concealed kong.
    """

    pair: int
    sets: tuple[Meld, ...]
    signature: int

    @property
    def text(self) -> str:
        if self.pair < 0:
            return "Thirteen Orphans (no sets)"
        pair = _core.tile_code(self.pair)
        return " ".join([f"{pair} {pair}", *(m.text for m in self.sets)])


@dataclass(frozen=True)
class WinningHand:
    """A checked winning hand of one game, with every way to read it."""

    game: str
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    winning_tile: int
    thirteen_orphans: bool
    readings: tuple[Reading, ...]

    @property
    def exposed_melds(self) -> tuple[Meld, ...]:
        return tuple(m for m in self.melds if m.exposed)

    def copies(self, tile: int) -> int:
        """How many of ``tile`` the hand holds, concealed and in its declared melds."""
        in_melds = 0
        for m in self.melds:
            if m.kind == "chow":
                in_melds += m.tile <= tile <= m.tile + 2 and tile // 9 == m.tile // 9
            else:
                in_melds += (4 if m.kind == "kong" else 3) * (m.tile == tile)
        return self.concealed.count(tile) + in_melds

    @property
    def text(self) -> str:
        tiles = " ".join(_core.tile_code(t) for t in self.concealed)
        return " ".join([tiles, *(m.text for m in self.melds)])


_GROUP = re.compile(r"\[([^\]]*)\]|\(([^)]*)\)")


def check_game(game: str) -> str:
    if game not in GAMES:
        raise GameError.unknown(game, GAMES)
    return game


def _meld(text: str, exposed: bool) -> Meld:
    tiles = sorted(_core.parse_tiles(text))
    bracket = f"[{text.strip()}]" if exposed else f"({text.strip()})"
    if len(tiles) in (3, 4) and len(set(tiles)) == 1:
        kind = "pung" if len(tiles) == 3 else "kong"
        if kind == "pung" and not exposed:
            raise MahjongError(
                f"{bracket}: only a kong is declared concealed (Art. 5(5)); "
                "write a concealed pung among the concealed tiles"
            )
        return Meld(kind, tiles[0], exposed)
    run = [tiles[0], tiles[0] + 1, tiles[0] + 2]
    if tiles == run and tiles[2] < 27 and tiles[0] // 9 == tiles[2] // 9:
        return Meld("chow", tiles[0], exposed)
    raise MahjongError(
        f"{bracket} is not a set: a meld is three identical tiles, four identical tiles "
        "(a kong) or three consecutive tiles of one suit (Art. 4, 5)"
    )


def parse_hand(game: str, text: str, winning_tile: str | None = None) -> WinningHand:
    """Read a winning hand; the winning tile defaults to the last concealed tile written."""
    check_game(game)
    melds = tuple(
        _meld(m.group(1) if m.group(1) is not None else m.group(2), m.group(1) is not None)
        for m in _GROUP.finditer(text)
    )
    rest = _GROUP.sub(" ", text)
    if any(c in rest for c in "[]()"):
        raise MahjongError(f"unbalanced brackets in hand {text!r}")
    concealed = tuple(_core.parse_tiles(rest))
    if not concealed:
        raise MahjongError("a winning hand needs concealed tiles (at least the pair)")
    if winning_tile is None:
        win = concealed[-1]
    else:
        codes = _core.parse_tiles(winning_tile)
        if len(codes) != 1:
            raise MahjongError(f"the winning tile must be one tile, got {winning_tile!r}")
        win = codes[0]
        if win not in concealed:
            raise MahjongError(
                f"the winning tile {_core.tile_code(win)} is not among the concealed tiles"
            )
    return read_hand(game, concealed, melds, win)


def read_hand(
    game: str, concealed: tuple[int, ...], melds: tuple[Meld, ...], winning_tile: int
) -> WinningHand:
    """Check a hand with the core and attach every reading and its signature."""
    if game == "mahjong-simple":
        called = [m for m in melds if m.exposed and m.kind != "kong"]
        if called:
            raise MahjongError(
                f"{called[0].text}: the simple game has no chow and no pung calls, a discard is "
                "taken only to win or to make a kong (第五条(乙)(3))"
            )
    orphans, raw = _core.decompose_hand(
        list(concealed), [m.as_core() for m in melds], TILE_SET[check_game(game)]
    )
    readings = []
    for pair, sets in raw:
        melds_read = tuple(Meld(k, t, e) for k, t, e in sets)
        readings.append(Reading(pair, melds_read, _core.hand_signature(pair, list(sets))))
    if not readings and not orphans:
        codes = " ".join(_core.tile_code(t) for t in sorted(concealed))
        raise MahjongError(
            f"not a winning hand: {codes} cannot be read as sets and a pair (Art. 4)"
            + (" nor as Thirteen Orphans" if game == "mahjong-traditional" else "")
        )
    if orphans:
        # Thirteen Orphans has no pair-and-sets reading; pair -1 marks it.
        readings.append(Reading(-1, (), _core.thirteen_orphans_signature()))
    return WinningHand(
        game=game,
        concealed=tuple(concealed),
        melds=melds,
        winning_tile=winning_tile,
        thirteen_orphans=orphans,
        readings=tuple(readings),
    )
