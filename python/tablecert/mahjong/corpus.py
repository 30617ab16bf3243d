"""Seeded game records for the replay: whole hands of legal play, and illegal variants that
each break one article.

A legal hand is planned first (the winner's complete hand, its calls, kongs and how it is
won), then played: the other players draw and discard the tile they drew, except for the
tiles the plan needs them to discard; the wall is filled in last, so every draw of the record
is the tile the wall gives. An illegal record is a legal one with one event changed or added;
it carries the article it breaks.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tablecert import _core
from tablecert.mahjong.fan import rules_for
from tablecert.mahjong.game_record import FORMAT
from tablecert.mahjong.hands import TILE_SET, WINDS
from tablecert.mahjong.wall import deal

TRAD = "mahjong-traditional"
SIMPLE = "mahjong-simple"


def code(tile: int) -> str:
    return _core.tile_code(tile)


@dataclass
class _Plan:
    """What the winner's hand is made of and how it comes together."""

    groups: list[list[int]]  # sets (3 or 4 tiles) and the pair (2)
    calls: list[tuple[str, int]]  # ("pung" | "chow", index of the group called)
    kongs: list[tuple[str, int]]  # ("hand" | "pung", index of the group made a kong)
    winning_tile: int
    win_by: str  # self-drawn, discard, replacement, last-tile, false, drawn
    called: list[int] = field(default_factory=list)  # the tile each call takes
    late: list[int] = field(default_factory=list)  # tiles the winner draws for its kongs
    junk: Counter[int] = field(default_factory=Counter)  # dealt tiles the winner throws away


@dataclass
class _Game:
    game: str
    seats: list[str]
    dice: list[int]
    rng: random.Random
    wall: dict[int, int] = field(default_factory=dict)  # position -> tile
    pool: Counter[int] = field(default_factory=Counter)
    events: list[dict[str, Any]] = field(default_factory=list)
    hands: dict[str, list[int]] = field(default_factory=dict)
    live: list[int] = field(default_factory=list)
    tail: list[int] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    reserved: Counter[int] = field(default_factory=Counter)

    def put(self, position: int, tile: int) -> None:
        assert self.pool[tile] > 0, code(tile)
        self.pool[tile] -= 1
        self.wall[position] = tile

    def spare(self, avoid: set[int]) -> int:
        """A tile left in the pool (not one of ``avoid`` when possible)."""
        choices = [t for t, c in self.pool.items() if c > 0 and t not in avoid]
        if not choices:
            choices = [t for t, c in self.pool.items() if c > 0]
        return self.rng.choice(sorted(choices))

    def next_live(self) -> int:
        position = next(p for p in self.live if p not in self.used)
        self.used.add(position)
        return position

    def next_tail(self) -> int:
        position = next(p for p in self.tail if p not in self.used)
        self.used.add(position)
        return position

    @property
    def remaining(self) -> int:
        return sum(1 for p in self.live if p not in self.used)


def _random_groups(rng: random.Random, game: str, sets: int) -> list[list[int]]:
    types = _core.tile_types(TILE_SET[game])
    while True:
        groups: list[list[int]] = []
        for _ in range(sets):
            suited = [t for t in types if t < 27 and t % 9 <= 6]
            if game == TRAD and rng.random() < 0.5:
                first = rng.choice(suited)
                groups.append([first, first + 1, first + 2])
            else:
                tile = rng.choice(types)
                groups.append([tile] * 3)
        pair = rng.choice(types)
        groups.append([pair, pair])
        counts = Counter(t for g in groups for t in g)
        if max(counts.values()) <= 3:  # room for a kong's fourth copy
            return groups


def _plan(rng: random.Random, game: str, winner: str, seats: list[str]) -> _Plan:
    sets = rules_for(game).value_of("game.sets_in_win", int)
    groups = _random_groups(rng, game, sets)
    calls: list[tuple[str, int]] = []
    kongs: list[tuple[str, int]] = []
    pungs = [i for i, g in enumerate(groups[:-1]) if g[0] == g[1]]
    chows = [i for i, g in enumerate(groups[:-1]) if g[0] != g[1]]
    if game == TRAD:
        for i in pungs:
            if rng.random() < 0.3:
                calls.append(("pung", i))
        for i in chows:
            if rng.random() < 0.3:
                calls.append(("chow", i))
    for i in pungs:
        called = ("pung", i) in calls
        if rng.random() < 0.25:
            kongs.append(("pung" if called else "hand", i))
    win_by = rng.choice(
        ["self-drawn", "self-drawn", "discard", "discard", "last-tile", "false", "drawn"]
        + (["replacement"] if kongs else [])
    )
    concealed = [t for i, g in enumerate(groups) if not any(c[1] == i for c in calls) for t in g]
    winning = rng.choice(concealed)
    return _Plan(groups, calls, kongs, winning, win_by)


def legal_game(game: str, seed: int) -> dict[str, Any]:
    """One legal hand of play from a seed (a game record replay accepts)."""
    rng = random.Random(seed)
    seats = list(WINDS)
    if game == SIMPLE and rng.random() < 0.25:
        seats = ["E", *sorted(rng.sample(["S", "W", "N"], rng.choice([1, 2])), key=WINDS.index)]
    dice_count = rules_for(game).value_of("game.dice", int)
    dice = [rng.randint(1, 6) for _ in range(dice_count)]
    full = [t for t in _core.tile_types(TILE_SET[game]) for _ in range(4)]
    layout = deal(game, full, dice, players=seats)
    g = _Game(game, seats, dice, rng, pool=Counter(full))
    g.live, g.tail = list(layout.live), list(layout.tail)
    winner = rng.choice(seats)
    plan = _plan(rng, game, winner, seats)
    _deal(g, layout.positions, winner, plan)
    _Play(g, winner, plan).run()
    # Fill the rest of the wall at random and resolve the draws' and discards' tiles.
    g.pool += g.reserved
    rest = list(g.pool.elements())
    rng.shuffle(rest)
    size = len(full)
    for position in range(size):
        if position not in g.wall:
            g.wall[position] = rest.pop()
    for event in g.events:
        for key in ("draw", "replacement", "discard"):
            if isinstance(event.get(key), tuple):
                event[key] = code(g.wall[event[key][1]])
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": game,
        "limit": rng.choice(["100/200", "1000/2000"]),
        "round_wind": rng.choice(WINDS),
        "wall": " ".join(code(g.wall[p]) for p in range(size)),
        "dice": dice,
        "play": g.events,
    }
    if seats != list(WINDS):
        record["players"] = seats
    return record


def _deal(g: _Game, positions: dict[str, tuple[int, ...]], winner: str, plan: _Plan) -> None:
    """The winner is dealt their planned tiles (and junk to throw away); the tiles the play
    brings later (called, late, winning) are reserved; the others get spare tiles."""
    for kind, i in plan.calls:
        group = plan.groups[i]
        tile = group[0] if kind == "pung" else g.rng.choice(group)
        plan.called.append(tile)
    winner_tiles = [t for grp in plan.groups for t in grp]
    winner_tiles += [plan.groups[i][0] for _, i in plan.kongs]
    for tile in plan.called:
        winner_tiles.remove(tile)
    winner_tiles.remove(plan.winning_tile)
    if len(winner_tiles) - len(plan.kongs) > len(positions[winner]):
        plan.kongs.clear()
        winner_tiles = [t for grp in plan.groups for t in grp]
        for tile in [*plan.called, plan.winning_tile]:
            winner_tiles.remove(tile)
    for _, i in plan.kongs:  # the kong's fourth tile comes during play
        plan.late.append(plan.groups[i][0])
        winner_tiles.remove(plan.groups[i][0])
    reserve = list(plan.called) + list(plan.late)
    if plan.win_by not in ("false", "drawn"):
        reserve.append(plan.winning_tile)
    g.pool -= Counter(winner_tiles)
    g.pool -= Counter(reserve)
    g.reserved = Counter(reserve)
    needed = set(winner_tiles) | set(reserve) | {plan.winning_tile}
    junk = [g.spare(needed) for _ in range(len(positions[winner]) - len(winner_tiles))]
    g.pool -= Counter(junk)
    plan.junk = Counter(junk)
    dealt = winner_tiles + junk
    g.rng.shuffle(dealt)
    for position, tile in zip(positions[winner], dealt, strict=True):
        g.wall[position] = tile
    g.hands[winner] = dealt
    for seat in g.seats:
        if seat != winner:
            g.hands[seat] = []
            for position in positions[seat]:
                tile = g.spare(needed)
                g.put(position, tile)
                g.hands[seat].append(tile)


class _Play:
    """The turns of a planned hand; events hold ("pos", p) for tiles fixed only at the end."""

    def __init__(self, g: _Game, winner: str, plan: _Plan) -> None:
        self.g = g
        self.winner = winner
        self.plan = plan
        # (kind, tile called, index of the group it completes)
        self.calls = [(k, tile, i) for (k, i), tile in zip(plan.calls, plan.called, strict=True)]
        self.pung_melds: list[int] = []
        self.target = g.rng.randint(0, 10)
        self.turn = 0

    def place(self, tile: int) -> tuple[str, int]:
        """Put a reserved tile at the next live position."""
        g = self.g
        g.reserved[tile] -= 1
        g.pool[tile] += 1
        position = g.next_live()
        g.put(position, tile)
        return ("pos", position)

    def tile_at(self, value: Any) -> int:
        if isinstance(value, tuple):
            return self.g.wall.get(value[1], -1)
        return _core.parse_tiles(value)[0]

    def emit(self, seat: str, **event: Any) -> None:
        self.g.events.append({"seat": seat, **event})

    def winner_discard(self) -> None:
        hand = self.g.hands[self.winner]
        junk = [t for t in hand if self.plan.junk[t] > 0]
        tile = junk[0] if junk else hand[-1]
        hand.remove(tile)
        self.plan.junk[tile] -= 1
        self.emit(self.winner, discard=code(tile))

    def run(self) -> None:
        g, winner, plan = self.g, self.winner, self.plan
        seats = g.seats
        if winner == "E":
            if plan.win_by == "false" and g.rng.random() < 0.3:
                self.emit(winner, win={})
                return
            self.winner_discard()
        else:
            hand = g.hands["E"]
            self.emit("E", discard=code(hand.pop()))
        actor = "E"
        while True:
            discarder = actor
            last = self.tile_at(g.events[-1]["discard"])
            if self.calls and discarder != winner and last == self.calls[0][1]:
                kind, tile, group = self.calls[0]
                if kind == "pung" or _left_of(seats, winner) == discarder:
                    self.calls.pop(0)
                    self.call(kind, tile, group)
                    actor = winner
                    self.winner_discard()
                    continue
            if (
                plan.win_by == "discard"
                and discarder != winner
                and last == plan.winning_tile
                and not self.calls
                and not plan.late
            ):
                self.emit(winner, win={})
                return
            if g.remaining == 0:
                return  # played out: a drawn hand
            actor = seats[(seats.index(discarder) + 1) % len(seats)]
            self.turn += 1
            if actor == winner:
                if self.winner_turn():
                    return
            else:
                self.other_turn(actor)

    def call(self, kind: str, tile: int, index: int) -> None:
        group = self.plan.groups[index]
        own = list(group)
        own.remove(tile)
        for t in own:
            self.g.hands[self.winner].remove(t)
        self.emit(self.winner, **{kind: " ".join(code(t) for t in sorted(group))})
        if kind == "pung":
            self.pung_melds.append(tile)

    def winner_turn(self) -> bool:
        """The winner's turn; True when the hand ends."""
        g, plan, winner = self.g, self.plan, self.winner
        last_draw = g.remaining == 1
        if plan.late and not self.calls:
            tile = plan.late.pop(0)
            self.emit(winner, draw=self.place(tile))
            g.hands[winner].append(tile)
            done = self.kongs()
            if done is None:
                self.winner_discard()
            return bool(done)
        ready = not self.calls and not plan.late and self.turn >= self.target
        if (plan.win_by == "self-drawn" and ready) or (plan.win_by == "last-tile" and last_draw):
            self.emit(winner, draw=self.place(plan.winning_tile))
            self.emit(winner, win={})
            return True
        position = ("pos", g.next_live())
        self.emit(winner, draw=position)
        if plan.win_by == "false" and ready:
            self.emit(winner, win={})
            return True
        self.emit(winner, discard=position)
        return False

    def kongs(self) -> bool | None:
        """Declare the kongs the winner's hand now allows: None if none was declared, True if
        the hand was won on a replacement, False if the replacement was discarded."""
        g, plan, winner = self.g, self.plan, self.winner
        hand = g.hands[winner]
        for kind, i in list(plan.kongs):
            tile = plan.groups[i][0]
            if kind == "hand" and hand.count(tile) == 4:
                for _ in range(4):
                    hand.remove(tile)
            elif kind == "pung" and tile in self.pung_melds and tile in hand:
                hand.remove(tile)
            else:
                continue
            plan.kongs.remove((kind, i))
            self.emit(winner, kong=code(tile), **{"from": kind})
            position = g.next_tail()
            if plan.win_by == "replacement" and not plan.late and not plan.kongs:
                g.reserved[plan.winning_tile] -= 1
                g.pool[plan.winning_tile] += 1
                g.put(position, plan.winning_tile)
                self.emit(winner, replacement=("pos", position))
                self.emit(winner, win={})
                return True
            self.emit(winner, replacement=("pos", position))
            self.emit(winner, discard=("pos", position))
            return False
        return None

    def other_turn(self, actor: str) -> None:
        g, plan = self.g, self.plan
        wanted = None
        if self.calls and (self.calls[0][0] == "pung" or _left_of(g.seats, self.winner) == actor):
            wanted = self.calls[0][1]
        elif (
            not self.calls
            and not plan.late
            and (
                (plan.win_by == "discard" and self.turn >= self.target)
                or (plan.win_by == "last-tile" and g.remaining == 1)
            )
        ):
            wanted = plan.winning_tile
            plan.win_by = "discard"
        position = self.place(wanted) if wanted is not None else ("pos", g.next_live())
        self.emit(actor, draw=position)
        self.emit(actor, discard=position)


def _left_of(seats: list[str], seat: str) -> str:
    return seats[(seats.index(seat) - 1) % len(seats)]


def _next_of(record: dict[str, Any], seat: str) -> str:
    seats = record.get("players", list(WINDS))
    return str(seats[(seats.index(seat) + 1) % len(seats)])


def _discards(record: dict[str, Any]) -> list[int]:
    """Indices of discards that the next event does not claim (a draw follows)."""
    events = record["play"]
    return [i for i, e in enumerate(events[:-1]) if "discard" in e and "draw" in events[i + 1]]


def _mutations(record: dict[str, Any], rng: random.Random) -> list[tuple[str, str, Any]]:
    """(name, article, mutated record) for each way this legal record can be broken."""
    game = record["game"]
    simple = game == SIMPLE

    def art(number: str, traditional: int, simple_item: int) -> str:
        part = f"(乙)({simple_item})" if simple else f"(甲)({traditional})"
        return f"第{number}条{part}"

    events = record["play"]
    seats = record.get("players", list(WINDS))
    out: list[tuple[str, str, Any]] = []

    def changed(index: int, new: list[dict[str, Any]], drop: int = 0) -> dict[str, Any]:
        mutated = copy.deepcopy(record)
        mutated["play"][index : index + drop] = new
        return mutated

    discards = _discards(record)
    if discards:
        i = rng.choice(discards)
        seat, tile = events[i]["seat"], events[i]["discard"]
        out.append(("retract", art("九", 1, 1), changed(i + 1, [{"seat": seat, "retract": tile}])))
        drawer = events[i + 1]["seat"]
        other = rng.choice([s for s in seats if s != drawer])
        out.append(
            ("draw-out-of-turn", "第三条", changed(i + 1, [{**events[i + 1], "seat": other}], 1))
        )
        others = [s for s in seats if s not in (seat, _next_of(record, seat))]
        tile_id = _core.parse_tiles(tile)[0]
        if simple:
            caller = rng.choice([s for s in seats if s != seat])
            pung = {"seat": caller, "pung": f"{tile} {tile} {tile}"}
            out.append(("pung-in-simple-game", "第五条(乙)(3)", changed(i + 1, [pung])))
        elif tile_id < 27 and tile_id % 9 <= 6 and others:
            run = " ".join(code(tile_id + k) for k in range(3))
            chow = {"seat": rng.choice(others), "chow": run}
            out.append(("chow-not-from-left", "第五条(甲)(3)", changed(i + 1, [chow])))
            claims = {
                "claims": [
                    {"seat": _next_of(record, seat), "chow": run},
                    {"seat": rng.choice(others), "pung": f"{tile} {tile} {tile}"},
                ],
                "awarded": _next_of(record, seat),
            }
            out.append(("chow-before-pung", "第五条(甲)(3)", changed(i + 1, [claims])))
    last = events[-1]
    if "win" in last and len(events) >= 2 and "discard" in events[-2]:
        discarder, winner = events[-2]["seat"], last["seat"]
        first = _next_of(record, discarder)
        if first != winner:
            claims = {
                "claims": [{"seat": winner, "win": {}}, {"seat": first, "win": {}}],
                "awarded": winner,
            }
            out.append(
                (
                    "several-winners-wrong-one",
                    art("五", 6, 5),
                    changed(len(events) - 1, [claims], 1),
                )
            )
    if "win" in last and not simple:
        winner = last["seat"]
        before = [i for i in discards if events[i]["seat"] != winner]
        if before:
            i = rng.choice(before)
            withdraw = {"seat": winner, "withdraw_pung": events[i]["discard"]}
            out.append(("pung-called-not-made", "第九条(甲)(2)", changed(i + 1, [withdraw])))
    kongs = [i for i, e in enumerate(events) if "kong" in e]
    if kongs:
        i = rng.choice(kongs)
        seat = events[i]["seat"]
        look = {"seat": seat, "look": rng.choice([s for s in seats if s != seat])}
        out.append(("kong-after-looking", art("九", 3, 2), changed(0, [look])))
        out.append(("kong-without-replacement", art("五", 5, 4), changed(i + 1, [], 1)))
        real = events[i + 1]["replacement"]
        wrong = rng.choice(
            [c for c in (code(t) for t in _core.tile_types(TILE_SET[game])) if c != real]
        )
        swapped = {**events[i + 1], "replacement": wrong}
        out.append(("replacement-not-from-tail", art("五", 5, 4), changed(i + 1, [swapped], 1)))
        if events[i].get("from") == "hand":
            robber = rng.choice([s for s in seats if s != seat])
            out.append(
                (
                    "robbing-a-concealed-kong",
                    art("六", 2, 2),
                    changed(i + 1, [{"seat": robber, "win": {}}]),
                )
            )
    if "discard" in last:  # a drawn hand: the wall is played out
        drawer = _next_of(record, last["seat"])
        out.append(
            (
                "draw-from-empty-wall",
                "第三条",
                changed(len(events), [{"seat": drawer, "draw": True}]),
            )
        )
    return out


def corpus(game: str, legal: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``legal`` legal records of ``game`` from ``seed`` on, and the illegal variants made from
    them (each ``{"breaks": article, "mutation": name, "record": ...}``), at most two of each
    kind."""
    rng = random.Random(seed)
    records = [legal_game(game, seed * 100_000 + k) for k in range(legal)]
    device = "AMT-" + ("TRAD" if game == TRAD else "SIMPLE")
    for k, record in enumerate(records):
        # What an automatic table logs with each hand: the record is also a shuffler-audit
        # log line (device, time, shuffle id and the wall as the output order).
        record.update(
            device_id=device,
            timestamp=f"2026-03-01T{10 + k // 60:02d}:{k % 60:02d}:00Z",
            shuffle_id=k + 1,
        )
    illegal: list[dict[str, Any]] = []
    per_kind: Counter[str] = Counter()
    for record in records:
        for name, article, mutated in _mutations(record, rng):
            if per_kind[name] < 2:
                per_kind[name] += 1
                illegal.append({"breaks": article, "mutation": name, "record": mutated})
    return records, illegal
