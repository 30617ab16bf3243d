"""The wall and the deal of Art. 3: from a logged wall order and the dice, each player's
initial tiles and the order in which the rest will be drawn.

Wall-order convention (what index ``i`` of a logged wall of ``4 * 2 * S`` tiles means; S = 17
stacks per row traditional, 14 simple):

* ``row = i // (2 * S)`` is the row in front of seat ``E, S, W, N`` (0..3);
* ``stack = (i // 2) % S`` counts that row's stacks from its RIGHT end as its owner sees it
  (the end the statute counts from, Art. 3);
* ``layer = i % 2``: 0 the top tile, 1 the bottom tile of the stack.

Seats sit counter-clockwise E, S (the dealer's right), W, N (the dealer's left). The dice total
``t`` picks the row of the ``t``-th seat counting counter-clockwise with the dealer as 1, and
``t`` stacks are counted from that row's right end. The live wall starts at the next stack and
runs leftwards along the row, then on to the row of the seat on that row-owner's left
(E -> N -> W -> S), each stack top tile first. Kong replacements come from the other end
(牌尾): the rule file's ``wall.tail_order`` says which tile of the last stack goes first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.mahjong.fan import READING_CHOICES, rules_for
from tablecert.mahjong.hands import TILE_SET, WINDS
from tablecert.rules import RuleFile


@dataclass(frozen=True)
class Deal:
    """The deal of one game: tiles per seat (in the order taken) and the wall positions left.

    ``positions`` are indices into the logged wall order; ``live`` is the order of the
    remaining tiles from the front (normal draws), ``tail`` the order from the back (kong
    replacements). Both cover the same remaining tiles from opposite ends.
    """

    game: str
    dice: tuple[int, ...]
    break_row: str
    break_stack: int
    hands: dict[str, tuple[int, ...]]
    positions: dict[str, tuple[int, ...]]
    live: tuple[int, ...]
    tail: tuple[int, ...]

    def codes(self, seat: str) -> str:
        return " ".join(_core.tile_code(t) for t in self.hands[seat])


def wall_index(row: int, stack: int, layer: int, stacks_per_row: int) -> int:
    """The logged-wall index of a physical position (see the module docstring)."""
    return (row * stacks_per_row + stack) * 2 + layer


def deal(
    game: str,
    wall: Sequence[int],
    dice: Sequence[int],
    *,
    players: Sequence[str] | None = None,
    rules: str | RuleFile | None = None,
) -> Deal:
    """Reproduce the deal of Art. 3 from a logged wall order (tile ids) and the dice."""
    rule_file = rules_for(game, rules)
    stacks = rule_file.value_of("wall.stacks_per_row", int)
    size = 4 * 2 * stacks
    if len(wall) != size:
        raise MahjongError(f"a {game} wall has {size} tiles (Art. 2, 3), the log has {len(wall)}")
    counts = _core.tile_counts(list(wall), TILE_SET[game])
    missing = [_core.tile_code(t) for t in _core.tile_types(TILE_SET[game]) if counts[t] != 4]
    if missing:
        raise MahjongError(f"the wall is not a full set: short of {', '.join(missing)}")
    n_dice = rule_file.value_of("game.dice", int)
    if len(dice) != n_dice or any(not 1 <= d <= 6 for d in dice):
        raise MahjongError(f"{game} is played with {n_dice} dice showing 1..6, got {list(dice)}")
    seats = list(players) if players is not None else list(WINDS)
    if "E" not in seats or any(s not in WINDS for s in seats) or len(set(seats)) != len(seats):
        raise MahjongError(f"players {seats!r}: distinct winds including the dealer E")
    seats = [s for s in WINDS if s in seats]

    total = sum(dice)
    row0 = (total - 1) % 4
    # Stacks in draw order: each row right to left, then the row of the seat on its left.
    rows = [(row0 - k) % 4 for k in range(4)]
    ring = [(r, s) for r in rows for s in range(stacks)]
    start = _stacks_counted(rule_file, total, stacks)
    order = ring[start:] + ring[:start]
    sequence = [wall_index(r, s, layer, stacks) for r, s in order for layer in (0, 1)]

    per_take = rule_file.value_of("wall.tiles_per_take", int)
    takes = rule_file.value_of("wall.takes_per_player", int)
    taken: dict[str, list[int]] = {s: [] for s in seats}
    at = 0
    for _ in range(takes):
        for seat in seats:
            taken[seat] += sequence[at : at + per_take]
            at += per_take
    jump = rule_file.value_of("wall.dealer_jump", list)
    others = rule_file.value_of("wall.others_after_jump", int)
    rule_file.choice(
        "wall.jump_order", ("dealer-1st-3rd-then-next-in-sequence", "dealer-next-tile")
    )
    dealer_extra = [at + j for j in jump]
    taken["E"] += [sequence[k] for k in dealer_extra]
    free = (k for k in range(at, at + len(sequence)) if k not in dealer_extra)
    for seat in seats[1:]:
        for _ in range(others):
            taken[seat].append(sequence[next(free)])
    used = {p for ps in taken.values() for p in ps}
    live = tuple(p for p in sequence if p not in used)
    tail_order = rule_file.choice("wall.tail_order", ("top-first", "bottom-first"))
    back = [order[i] for i in range(len(order) - 1, -1, -1)]
    layers = (0, 1) if tail_order == "top-first" else (1, 0)
    tail = tuple(
        p for r, s in back for layer in layers if (p := wall_index(r, s, layer, stacks)) not in used
    )
    return Deal(
        game=game,
        dice=tuple(dice),
        break_row=WINDS[row0],
        break_stack=start,
        hands={s: tuple(wall[p] for p in taken[s]) for s in seats},
        positions={s: tuple(taken[s]) for s in seats},
        live=live,
        tail=tail,
    )


def _stacks_counted(rules: RuleFile, total: int, stacks: int) -> int:
    """How many stacks the dice total counts off from the right of the row it picks; a total
    longer than a row follows the rule file's reading ``wall.dice_past_row``."""
    if total <= stacks:
        return total
    how = rules.choice("wall.dice_past_row", READING_CHOICES["wall.dice_past_row"])
    entry = rules.require("wall.dice_past_row")
    if how == "rethrow":
        raise MahjongError(
            f"dice total {total} is longer than a row of {stacks} stacks: the rule file reads "
            f"such a throw as thrown again ({entry.article}, wall.dice_past_row)"
        )
    return total if how == "continue-next-row" else (total - 1) % stacks + 1
