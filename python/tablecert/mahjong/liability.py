"""Art. 10 liability (包輸) read from the play: which cases the statute imposes on a win, and
who pays for everyone.

A settlement record states its liability and the engine checks it against the final hand
(``payments``). A replayed game knows more: every hand, every discard and when each set was
exposed. From that, ``assess`` decides every case of the rule file's ``[liability]`` table:

* 第十条(甲)(1) 清一色九章落地: the winner held three exposed sets of the full flush's suit
  before the winning discard: the discarder pays;
* (甲)(2) 供清一色十二章, 包摸一轮: the player whose discard gave the winner a fourth exposed set
  (a chow, a pung or a kong) of the full flush pays for a win the winner draws within the round;
* (甲)(3) two dragon sets (three wind sets) exposed before the discard that gives big three
  dragons (big four winds);
* (甲)(4), (乙)(1) 扣起绝张番子: the discarder kept the last live honour (its other three tiles
  seen) and discarded another tile that wins; the honours are the dragons and the discarder's
  seat wind (门风), in the simple game 發 alone;
* (甲)(5), (乙)(2) 拆一碰牌: the discarder held three of the winning tile and broke them;
* (甲)(6), (乙)(2) 有糊不叫: the discarder could have won earlier in the hand (a complete hand on
  a draw of theirs or on another's discard) and did not, then discarded the winning tile.

Each case holds or not, with the reason in words; exemptions (全字全么, a first-discard honour)
are the settlement's (``payments._liable``), as for a settlement record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.mahjong.hands import Meld, read_hand
from tablecert.mahjong.payments import LIABILITY_REASONS
from tablecert.rules import RuleFile

DRAGONS = (31, 32, 33)  # Rd, Gd, Wd
SEAT_WIND = {"E": 27, "S": 28, "W": 29, "N": 30}
GREEN_DRAGON = 32
SELF_DRAWN_REASONS = ("fed_twelfth_full_flush_tile",)


@dataclass(frozen=True)
class Chance:
    """A moment a seat could have won: its concealed tiles with the tile, its sets, the tile."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    tile: int

    def wins(self, game: str) -> bool:
        try:
            read_hand(game, self.concealed, self.melds, self.tile)
        except MahjongError:
            return False
        return True


@dataclass(frozen=True)
class Set:
    """An exposed set of the winner, as it stood before the win."""

    kind: str
    tiles: tuple[int, ...]


@dataclass(frozen=True)
class WinPlay:
    """What the play shows about a win, for deciding Art. 10."""

    game: str
    winner: str
    win_by: str  # discard, self-drawn, robbed-kong
    winning_tile: int
    items: frozenset[str]  # the fan items of the winning hand
    exposed: tuple[Set, ...]  # the winner's exposed sets before the win
    discarder: str | None = None
    #: The discarder's concealed tiles after the winning discard, and the tiles seen by all
    #: (discards and exposed sets) by then.
    kept: tuple[int, ...] = ()
    seen: Counter[int] = field(default_factory=Counter)
    #: Earlier moments the discarder could have won and did not.
    chances: tuple[Chance, ...] = ()
    #: 包摸一轮: who fed the winner's fourth exposed set, and whether this win is within the
    #: round that followed.
    feeder: str | None = None
    within_round: bool = False


@dataclass(frozen=True)
class Assessment:
    """One case of Art. 10 against the play: whether it holds, who pays, and why."""

    reason: str
    article: str
    holds: bool
    payer: str | None
    why: str


def assess(play: WinPlay, rules: RuleFile) -> dict[str, Assessment]:
    """Every liability case of the rule file decided for this win."""
    out: dict[str, Assessment] = {}
    for reason in (k for k in rules.table("liability") if k in LIABILITY_REASONS):
        article = str(rules.require(f"liability.{reason}").article)
        holds, why = _CASES[reason](play)
        payer = play.feeder if reason in SELF_DRAWN_REASONS else play.discarder
        if reason not in SELF_DRAWN_REASONS and play.win_by == "self-drawn":
            holds, why = False, "a self-drawn win has no discarder (出冲者)"
        out[reason] = Assessment(reason, article, holds, payer if holds else None, why)
    joint = rules.get("liability.missed_win_broke_pung")
    pair = ("missed_win_then_fed", "broke_pung")
    both = joint is not None and joint.value == "both" and all(r in out for r in pair)
    if both and not all(out[r].holds for r in pair):
        # 有糊不叫，并拆打一碰牌 (乙)(2): one case, needing both facts.
        missing = next(x for x in pair if not out[x].holds)
        for r in pair:
            if out[r].holds:
                out[r] = Assessment(
                    r, out[r].article, False, None, f"{out[r].why}, but {out[missing].why}"
                )
    return out


def _suit(tiles: Sequence[int]) -> int | None:
    suits = {t // 9 for t in tiles}
    return suits.pop() if len(suits) == 1 and max(tiles) < 27 else None


def _flush_sets(play: WinPlay) -> int:
    """How many of the winner's exposed sets are of one suit (0 unless all are)."""
    suits = {_suit(s.tiles) for s in play.exposed}
    return len(play.exposed) if len(suits) == 1 and None not in suits else 0


def _nine_exposed(play: WinPlay) -> tuple[bool, str]:
    if "full_flush" not in play.items:
        return False, "the winning hand is not a full flush"
    if _flush_sets(play) < 3:
        return False, (
            f"{play.winner} had {len(play.exposed)} exposed set(s) of the suit before the win, "
            "not three (nine tiles)"
        )
    return True, f"{play.winner} won a full flush with {_flush_sets(play)} sets of it exposed"


def _twelfth(play: WinPlay) -> tuple[bool, str]:
    if "full_flush" not in play.items or _flush_sets(play) < 4:
        return False, "the win is not a full flush with four sets (twelve tiles) exposed"
    if play.win_by != "self-drawn":
        return False, "包摸一轮 is for a self-drawn win (a discard's own case is 清一色九章)"
    if play.feeder is None:
        return False, "no player's discard gave the fourth exposed set"
    if not play.within_round:
        return False, (
            f"{play.feeder} fed the fourth set, but {play.winner} won on a later draw than the "
            "next one: the feeder pays only within one round"
        )
    return True, f"{play.feeder} fed {play.winner}'s fourth exposed set of the full flush"


def _honour_sets(play: WinPlay, tiles: Sequence[int], item: str, need: int) -> tuple[bool, str]:
    if item not in play.items:
        return False, f"the winning hand is not {item.replace('_', ' ')}"
    count = sum(1 for s in play.exposed if s.kind != "chow" and s.tiles[0] in tiles)
    if count < need:
        return False, f"{play.winner} had {count} such set(s) exposed before the win, not {need}"
    return True, f"{need} sets exposed before {play.discarder}'s discard gave {item}"


def _held_last_honour(play: WinPlay) -> tuple[bool, str]:
    if play.discarder is None:
        return False, "no discarder"
    honours = (
        (GREEN_DRAGON,) if play.game == "mahjong-simple" else (*DRAGONS, SEAT_WIND[play.discarder])
    )
    held = [t for t in honours if play.kept.count(t) == 1 and play.seen[t] == 3]
    if not held:
        kept = [_core.tile_code(t) for t in honours if t in play.kept]
        return False, (
            f"{play.discarder} held no last live honour (绝张番子)"
            + (f": {', '.join(kept)} not the last of its kind" if kept else "")
        )
    if play.winning_tile in held:
        return False, f"{play.discarder} discarded the last honour itself"
    return True, (
        f"{play.discarder} kept the last {_core.tile_code(held[0])} and discarded "
        f"{_core.tile_code(play.winning_tile)}"
    )


def _broke_pung(play: WinPlay) -> tuple[bool, str]:
    if play.discarder is None:
        return False, "no discarder"
    left = play.kept.count(play.winning_tile)
    if left < 2:
        return False, (
            f"{play.discarder} did not break a pung: they held {left + 1} "
            f"{_core.tile_code(play.winning_tile)}"
        )
    return True, f"{play.discarder} broke three {_core.tile_code(play.winning_tile)} (拆碰)"


def _missed_win(play: WinPlay) -> tuple[bool, str]:
    if play.discarder is None:
        return False, "no discarder"
    for chance in play.chances:
        if chance.wins(play.game):
            return True, (
                f"{play.discarder} could have won on {_core.tile_code(chance.tile)} earlier and "
                "did not (有糊不叫)"
            )
    return False, f"{play.discarder} never had a winning hand before this discard"


_CASES = {
    "nine_exposed_full_flush": _nine_exposed,
    "fed_twelfth_full_flush_tile": _twelfth,
    "big_three_dragons": lambda p: _honour_sets(p, DRAGONS, "big_three_dragons", 2),
    "big_four_winds": lambda p: _honour_sets(p, (27, 28, 29, 30), "big_four_winds", 3),
    "held_last_honour": _held_last_honour,
    "broke_pung": _broke_pung,
    "missed_win_then_fed": _missed_win,
}
