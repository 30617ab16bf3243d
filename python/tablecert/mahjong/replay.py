"""Replay a whole hand of play under the statute, event by event, then settle it.

The record is read first (:mod:`tablecert.mahjong.game_record`: the deal and the typed
events); this module is the state machine that plays them.

The replay checks turn order (Art. 3), calls and their priority (Art. 5: chow only from the
left neighbour, pung or kong before chow, the first winner counter-clockwise from the
discarder), kong replacements from the tail, the last tile, 9(1) discards are final, 9(甲)(2),
9(3), 10(甲)(7) wrong melds; it decides every Art. 10 liability from the play
(``liability.assess``: applied when the record states none, a stated case the play does not
support or one left out is a violation of its sub-article), then settles the final state with
the engine (``fan.score``, ``payments.settle_win`` / ``settle_false_win``). A claimed win whose
hand is not complete is a false win (詐糊) and is settled as one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.judgement import Outcome
from tablecert.mahjong.fan import Context, FanResult, article, score
from tablecert.mahjong.game_record import (
    CLAIMS,
    Event,
    GameRecord,
    is_game_record,
    read_game_record,
)
from tablecert.mahjong.hands import Meld, WinningHand, read_hand
from tablecert.mahjong.liability import Chance, Set, WinPlay, assess
from tablecert.mahjong.payments import Settlement, settle_false_win, settle_win
from tablecert.mahjong.record import Locate, SettledGame, settle_record
from tablecert.rules import RuleFile

__all__ = ["Replay", "Violation", "replay", "settle_game"]


@dataclass(frozen=True)
class Violation:
    """A rule of the statute the record breaks: the event (1-based; 0 the record itself)."""

    event: int
    article: str
    message: str

    @property
    def text(self) -> str:
        where = f"event {self.event}" if self.event else "record"
        return f"{where}: {self.message} ({self.article})"


@dataclass(frozen=True)
class Replay:
    """A replayed hand: its violations, and when it is valid, how it ended and the settlement."""

    game: str
    events: int
    violations: tuple[Violation, ...]
    outcome: str  # "win", "false-win", "drawn" or "" (not finished / invalid)
    winner: str | None
    fan: FanResult | None
    settlement: Settlement | None
    final_record: dict[str, Any] | None  # the settle-record form of the final state

    @property
    def valid(self) -> bool:
        return not self.violations

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "events": self.events,
            "verdict": Outcome.of(not self.valid).word("validity"),
            "violations": [
                {"event": v.event, "article": v.article, "message": v.message}
                for v in self.violations
            ],
            "outcome": self.outcome or None,
            "winner": self.winner,
            "fan": self.fan.as_json() if self.fan is not None else None,
            "settlement": self.settlement.as_json() if self.settlement is not None else None,
            "final_record": self.final_record,
        }


class ViolationError(Exception):
    """Raised inside the replay: the event breaks the statute (becomes a Violation)."""

    def __init__(self, article: str, message: str) -> None:
        super().__init__(message)
        self.article = article
        self.message = message


@dataclass
class Called:
    """A meld a seat declared: what it is, its tiles, whether it is a valid set (拈错 if not)."""

    kind: str  # chow, pung, kong
    tiles: list[int]
    exposed: bool
    valid: bool
    event: int
    turns_seen: int = 0  # how many of the seat's own turns passed since (10(甲)(7) window)

    def meld(self) -> Meld:
        return Meld(self.kind, min(self.tiles), self.exposed)


@dataclass
class Table:
    """The state of the hand as the replay goes."""

    game: str
    seats: list[str]
    hands: dict[str, list[int]]
    melds: dict[str, list[Called]] = field(default_factory=dict)
    live: list[int] | None = None  # wall mode: tile ids in draw order (front) ...
    tail: list[int] | None = None  # ... and from the back (replacements)
    positions_live: list[int] = field(default_factory=list)
    positions_tail: list[int] = field(default_factory=list)
    drawn: set[int] = field(default_factory=set)
    remaining: int = 0
    phase: str = "discard"  # discard, after-discard, replacement, robbable, over
    actor: str = "E"
    last_tile: int = -1  # the tile of the last discard or added kong
    replacements: int = 0  # consecutive kong replacements in the actor's turn
    discards: Counter[str] = field(default_factory=Counter)
    calls_made: int = 0
    visible: Counter[int] = field(default_factory=Counter)
    looked: set[str] = field(default_factory=set)
    withdrawn: set[str] = field(default_factory=set)
    feeders: dict[str, str] = field(default_factory=dict)  # 包摸一輪: winner -> feeder
    fed_at: dict[str, int] = field(default_factory=dict)  # the winner's live draws then
    draws: Counter[str] = field(default_factory=Counter)  # live draws per seat
    in_play: Counter[int] = field(default_factory=Counter)  # dealt and drawn tiles
    last_was_final_draw: bool = False
    #: Each seat's moments to win so far (a draw of its own, another's discard): 有糊不叫.
    chances: dict[str, list[Chance]] = field(default_factory=dict)

    def chance(self, seat: str, tile: int, drawn: bool) -> None:
        """Note that ``seat`` could win on ``tile`` now (checked only if it matters)."""
        melds = self.melds.get(seat, [])
        if all(m.valid for m in melds):
            concealed = (*self.hands[seat], *(() if drawn else (tile,)))
            moment = Chance(concealed, tuple(m.meld() for m in melds), tile)
            self.chances.setdefault(seat, []).append(moment)

    def next_seat(self, seat: str) -> str:
        return self.seats[(self.seats.index(seat) + 1) % len(self.seats)]


def _table(read: GameRecord) -> Table:
    """The table as the record deals it, East to play first."""
    start = read.start
    table = Table(read.game, read.seats, {s: list(start.hands[s]) for s in read.seats})
    table.live, table.tail = start.live, start.tail
    table.positions_live = list(start.positions_live)
    table.positions_tail = list(start.positions_tail)
    table.remaining = start.remaining
    table.in_play = Counter(start.in_play)
    table.melds = {s: [] for s in read.seats}
    table.actor = "E"
    table.phase = "discard"
    return table


def replay(
    record: Any, rules: str | RuleFile | None = None, *, locate: Callable[[str], str] | None = None
) -> Replay:
    """Check a game record event by event and settle it; malformed input raises MahjongError
    (naming the file, line and key), statute violations are returned as ``Violation``s."""
    read = read_game_record(record, rules, locate or (lambda key: "game record"))
    game, parsed, expected = read.game, read.events, read.result
    table = _table(read)
    run = _Run(table, read.rules, game, read.limit, read.round_wind, read.stakes)
    violations: list[Violation] = []
    for number, event in enumerate(parsed, start=1):
        if table.phase == "over":
            violations.append(
                Violation(number, article(game, "四", 1, 1), "the hand is over: no more events")
            )
            break
        try:
            run.apply(number, event)
        except ViolationError as exc:
            violations.append(Violation(number, exc.article, exc.message))
            break
    drawn = table.phase == "after-discard" and table.remaining == 0
    if not violations and table.phase != "over" and not drawn:
        violations.append(
            Violation(
                len(parsed),
                "第四条",
                "the record ends before the hand does: no win, and the wall is not played out",
            )
        )
    if not violations and table.phase != "over":
        run.outcome = "drawn"
        run.settlement = Settlement((), None, Fraction(0), "第八条", ("drawn hand: no winner",))
    if not violations and expected is not None and expected != (run.outcome, run.winner):
        violations.append(
            Violation(
                0,
                run.result_article,
                f"the record's result {expected[0]} {expected[1] or ''} is not what the play "
                f"gives: {run.outcome} {run.winner or ''}".rstrip(),
            )
        )
    ok = not violations
    return Replay(
        game=game,
        events=len(parsed),
        violations=tuple(violations),
        outcome=run.outcome if ok else "",
        winner=run.winner if ok else None,
        fan=run.fan if ok else None,
        settlement=run.settlement if ok else None,
        final_record=run.final_record if ok else None,
    )


class _Run:
    """Applies events to the table; raises ViolationError on the first broken rule."""

    def __init__(
        self,
        table: Table,
        rules: RuleFile,
        game: str,
        limit: Any,
        round_wind: str,
        stakes: dict[str, Any],
    ) -> None:
        self.t = table
        self.rules = rules
        self.game = game
        self.limit = limit
        self.round_wind = round_wind
        self.stakes = stakes
        self.simple = game == "mahjong-simple"
        self.outcome = ""
        self.winner: str | None = None
        self.fan: FanResult | None = None
        self.settlement: Settlement | None = None
        self.final_record: dict[str, Any] | None = None
        self.result_article = "第四条(乙)" if self.simple else "第四条(甲)"
        self.kong_source = ""
        self.first_honour = False  # the last discard was an honour no one had seen (生张)
        self.just_called = False
        self.false_win_reason = ""

    # -- helpers ------------------------------------------------------------------------------

    def art(self, number: str, traditional: int, simple: int) -> str:
        return article(self.game, number, traditional, simple)

    def take(self, seat: str, tile: int, count: int = 1) -> None:
        hand = self.t.hands[seat]
        if hand.count(tile) < count:
            raise ViolationError(
                "第二条(2)",
                f"{seat} holds {hand.count(tile)} {_core.tile_code(tile)}, the event needs {count}",
            )
        for _ in range(count):
            hand.remove(tile)

    def turn(self, seat: str, what: str) -> None:
        if seat != self.t.actor:
            raise ViolationError(
                "第三条", f"{what} by {seat} out of turn: it is {self.t.actor}'s turn"
            )

    def draw_from(self, seat: str, stated: int | None, tail: bool) -> int:
        t = self.t
        if t.remaining <= 0:
            raise ViolationError(
                self.art("五", 5, 4) if tail else "第三条",
                "the wall is empty: no tile to draw",
            )
        if t.live is not None and t.tail is not None:
            source, positions = (t.tail, t.positions_tail) if tail else (t.live, t.positions_live)
            index = next(i for i, p in enumerate(positions) if p not in t.drawn)
            tile = source[index]
            t.drawn.add(positions[index])
            if stated is not None and stated != tile:
                where = "tail (牌尾)" if tail else "front"
                raise ViolationError(
                    self.art("五", 5, 4) if tail else "第三条",
                    f"{seat} drew {_core.tile_code(stated)}, the wall's {where} tile is "
                    f"{_core.tile_code(tile)}",
                )
        else:
            if stated is None:
                raise ViolationError(
                    "第三条", "with a deal and no wall, a draw must state its tile"
                )
            tile = stated
            if t.in_play[tile] >= 4:
                raise ViolationError("第二条(2)", f"a fifth {_core.tile_code(tile)} drawn")
            t.in_play[tile] += 1
        t.remaining -= 1
        t.hands[seat].append(tile)
        t.last_was_final_draw = t.remaining == 0
        return tile

    # -- events -------------------------------------------------------------------------------

    def apply(self, number: int, event: Event) -> None:
        t = self.t
        if event.action == "claims":
            self.claims(number, event)
            return
        seat, action = event.seat, event.action
        if action == "retract":
            raise ViolationError(
                self.art("九", 1, 1), f"{seat} takes back a discard: discards are final"
            )
        if action == "look":
            if event.value == seat:
                raise ViolationError("第九条", f"{seat} looks at their own hand")
            t.looked.add(seat)
            return
        if action == "withdraw_pung":
            if self.simple:
                raise ViolationError(self.art("五", 3, 3), "the simple game has no pung calls")
            if t.phase != "after-discard" or event.value != t.last_tile or seat == t.actor:
                raise ViolationError(
                    self.art("五", 4, 3), f"{seat} calls pung with no discard to pung"
                )
            t.withdrawn.add(seat)
            return
        if action == "correct":
            self.correct(number, seat, event.value)
            return
        if t.phase == "after-discard" and action in CLAIMS:
            self.claims(number, Event("", "claims", None, {}, (event,), seat))
            return
        if t.phase == "robbable" and action == "win" and seat != t.actor:
            self.win(number, seat, "robbed-kong", event)
            return
        if t.phase == "replacement" and action == "win" and seat != t.actor:
            raise ViolationError(
                self.art("六", 2, 2),
                f"{seat} robs {t.actor}'s {self.kong_source} kong: only a kong added to an "
                "exposed pung (先碰出，再开杠) can be robbed",
            )
        if action == "draw":
            if t.phase != "after-discard":
                raise ViolationError(
                    "第三条", f"{seat} draws out of turn: {t.actor} is to {self.expect()}"
                )
            due = t.next_seat(t.actor)
            if seat != due:
                raise ViolationError("第三条", f"{seat} draws out of turn: it is {due}'s draw")
            t.actor = seat
            drawn = self.draw_from(seat, event.value, tail=False)
            t.draws[seat] += 1
            t.chance(seat, drawn, drawn=True)
            t.phase = "discard"
            t.replacements = 0
            self.just_called = False
            self.tick(seat)
            return
        if action == "replacement":
            if t.phase not in ("replacement", "robbable") or seat != t.actor:
                raise ViolationError(
                    self.art("五", 5, 4), f"{seat} draws a kong replacement with no kong"
                )
            drawn = self.draw_from(seat, event.value, tail=True)
            t.chance(seat, drawn, drawn=True)
            t.replacements += 1
            t.phase = "discard"
            self.just_called = False
            return
        if t.phase in ("replacement", "robbable"):
            raise ViolationError(
                self.art("五", 5, 4),
                f"after a kong {t.actor} draws a replacement from the wall's tail (牌尾) first",
            )
        if t.phase == "after-discard":
            raise ViolationError("第三条", f"{action} by {seat}: {t.next_seat(t.actor)} is to draw")
        self.turn(seat, action)
        if action == "discard":
            self.take(seat, event.value)
            t.visible[event.value] += 1
            t.discards[seat] += 1
            t.last_tile = event.value
            t.phase = "after-discard"
            self.first_honour = _is_honour(event.value) and t.visible[event.value] == 1
            for other in t.seats:
                if other != seat:
                    t.chance(other, event.value, drawn=False)
            return
        if action == "kong":
            self.kong(number, seat, event.value, event.extra["from"])
            return
        if action == "win":
            self.win(number, seat, "self-drawn", event)
            return
        raise ViolationError("第五条", f"{action} by {seat} needs a discard to call")

    def expect(self) -> str:
        return {
            "discard": "discard",
            "after-discard": "draw",
            "replacement": "draw a replacement",
        }.get(self.t.phase, "play")

    def tick(self, seat: str) -> None:
        """A new turn of ``seat``: 10(甲)(7) windows of its wrong melds run on."""
        for called in self.t.melds[seat]:
            called.turns_seen += 1

    def claims(self, number: int, event: Event) -> None:
        t = self.t
        if t.phase != "after-discard":
            raise ViolationError("第五条", "a call needs a discard to call on")
        discarder = t.actor
        order = [t.next_seat(discarder)]
        while len(order) < len(t.seats) - 1:
            order.append(t.next_seat(order[-1]))
        for claim in event.claims:
            seat, kind = claim.seat, claim.action
            if seat == discarder:
                raise ViolationError("第五条", f"{seat} calls on their own discard")
            if self.simple and kind in ("chow", "pung"):
                raise ViolationError(
                    self.art("五", 3, 3),
                    f"{kind} by {seat}: the simple game has no chow and no pung calls",
                )
        wins = [c for c in event.claims if c.action == "win"]
        pungs = [c for c in event.claims if c.action in ("pung", "kong")]
        if wins:
            first = min(wins, key=lambda c: order.index(c.seat))
            if event.awarded != first.seat:
                raise ViolationError(
                    self.art("五", 6, 5),
                    f"several players win on {discarder}'s discard: the first counter-clockwise "
                    f"from the discarder, {first.seat}, wins, not {event.awarded}",
                )
        elif pungs and event.awarded not in {c.seat for c in pungs}:
            raise ViolationError(
                self.art("五", 3, 3),
                f"{pungs[0].seat}'s {pungs[0].action} takes the discard before "
                f"{event.awarded}'s chow",
            )
        chosen = next(c for c in event.claims if c.seat == event.awarded)
        seat, kind, value = chosen.seat, chosen.action, chosen.value
        tile = t.last_tile
        if kind == "win":
            self.win(number, seat, "discard", chosen)
            return
        if kind == "kong":
            self.kong(number, seat, tile, "discard", discarder=discarder)
            return
        tiles = value if isinstance(value, list) else None
        if tiles is None or len(tiles) != 3 or tile not in tiles:
            raise ViolationError(
                self.art("五", 3 if kind == "chow" else 4, 3),
                f"{kind} by {seat}: three tiles including the discard {_core.tile_code(tile)}",
            )
        if kind == "chow" and seat != t.next_seat(discarder):
            raise ViolationError(
                self.art("五", 3, 3),
                f"chow by {seat} on {discarder}'s discard: only the next player "
                f"({t.next_seat(discarder)}, 下家) may chow",
            )
        own = list(tiles)
        own.remove(tile)
        for x in set(own):
            self.take(seat, x, own.count(x))
        valid = _is_set(kind, tiles)
        t.melds[seat].append(Called(kind, list(tiles), True, valid, number))
        t.visible.update(own)
        t.calls_made += 1
        self.note_feeder(seat, discarder)
        t.actor = seat
        t.phase = "discard"
        t.replacements = 0
        self.just_called = True

    def note_feeder(self, seat: str, discarder: str) -> None:
        """供清一色十二章: the discarder who gave a player their fourth exposed meld."""
        exposed = [m for m in self.t.melds[seat] if m.exposed]
        if len(exposed) == 4:
            self.t.feeders[seat] = discarder
            self.t.fed_at[seat] = self.t.draws[seat]

    def kong(self, number: int, seat: str, tile: int, source: str, discarder: str = "") -> None:
        t = self.t
        if seat in t.looked:
            raise ViolationError(
                self.art("九", 3, 2),
                f"{seat} looked at another player's hand: no kong this hand",
            )
        if source == "discard":
            if not discarder:
                raise ViolationError(
                    self.art("五", 5, 4), f"{seat}'s kong from a discard needs a discard"
                )
            self.take(seat, tile, 3)
            t.melds[seat].append(Called("kong", [tile] * 4, True, True, number))
            t.visible[tile] += 3
            t.calls_made += 1
            self.note_feeder(seat, discarder)  # a kong is a set (第五条(甲)(5))
            t.actor = seat
            t.phase = "replacement"
        elif source == "hand":
            self.take(seat, tile, 4)
            t.melds[seat].append(Called("kong", [tile] * 4, False, True, number))
            t.calls_made += 1
            t.phase = "replacement"
        else:
            pung = next(
                (m for m in t.melds[seat] if m.kind == "pung" and m.valid and m.tiles[0] == tile),
                None,
            )
            if pung is None:
                raise ViolationError(
                    self.art("五", 5, 4),
                    f"{seat} adds {_core.tile_code(tile)} to a pung they have not exposed",
                )
            self.take(seat, tile, 1)
            pung.kind, pung.tiles = "kong", [tile] * 4
            t.visible[tile] += 1
            t.last_tile = tile
            t.phase = "robbable"
        self.kong_source = source

    def correct(self, number: int, seat: str, tiles: Any) -> None:
        t = self.t
        wrong = next((m for m in t.melds[seat] if not m.valid), None)
        if wrong is None or not isinstance(tiles, list):
            raise ViolationError(
                self.art("十", 7, 3), f"{seat} has no wrong chow or pung to correct"
            )
        if wrong.turns_seen > 1:
            raise ViolationError(
                self.art("十", 7, 3),
                f"{seat}'s wrong {wrong.kind} can be corrected only within one round (未过一轮)",
            )
        hand = t.hands[seat]
        pool = Counter(hand) + Counter(wrong.tiles)
        if Counter(tiles) - pool or not _is_set(wrong.kind, tiles):
            raise ViolationError(
                self.art("十", 7, 3), f"{seat}'s correction is not a valid {wrong.kind}"
            )
        t.hands[seat] = list((pool - Counter(tiles)).elements())
        wrong.tiles, wrong.valid = list(tiles), True

    def win(self, number: int, seat: str, win_by: str, event: Event) -> None:
        """A win claimed: checked, read, scored, its liabilities decided, settled (or, when
        the hand is no win, settled as a false win)."""
        self.check_win_claim(seat, win_by)
        concealed, winning, discarder = self.winning_tiles(seat, win_by)
        hand = self.complete_hand(seat, concealed, winning)
        if hand is None:
            return
        context = self.win_context(seat, win_by, discarder)
        try:
            result = score(hand, context, self.rules)
        except MahjongError as exc:
            raise ViolationError("第六条", str(exc)) from exc
        cases, liable = self.liabilities(seat, win_by, winning, discarder, result, event)
        first_honour = self.check_stated(event, win_by, liable)
        try:
            settlement = settle_win(
                result,
                seat,
                self.limit,
                rules=self.rules,
                players=self.t.seats,
                discarder=liable,
                liability=cases or None,
                first_discard_honour=first_honour,
                stake=self.stakes.get(seat),
            )
        except MahjongError as exc:
            raise ViolationError(
                self.liability_article(cases) if cases else "第六条", str(exc)
            ) from exc
        self.outcome, self.winner = "win", seat
        self.fan, self.settlement = result, settlement
        self.final_record = self.win_record(
            seat, hand, winning, context, liable, cases, first_honour
        )
        self.t.phase = "over"

    def check_win_claim(self, seat: str, win_by: str) -> None:
        """A self-drawn win is claimed in the winner's own turn, not straight after a call;
        only a kong added to an exposed pung can be robbed."""
        t = self.t
        if win_by == "self-drawn":
            if t.phase != "discard" or seat != t.actor:
                raise ViolationError("第四条", f"{seat} claims a self-drawn win out of turn")
            if self.just_called:
                raise ViolationError(
                    "第四条",
                    f"{seat} claims a self-drawn win after a call without drawing: a win on "
                    "the discard is claimed as such",
                )
        if win_by == "robbed-kong" and self.kong_source != "pung":
            raise ViolationError(
                self.art("六", 2, 2),
                "only a kong added to an exposed pung (先碰出，再开杠) can be robbed",
            )

    def winning_tiles(self, seat: str, win_by: str) -> tuple[list[int], int, str | None]:
        """The winner's concealed tiles with the winning tile, the winning tile, and who
        discarded it (None for a self-drawn win)."""
        t = self.t
        concealed = list(t.hands[seat])
        if win_by != "self-drawn":
            concealed.append(t.last_tile)
            winning = t.last_tile
        else:
            winning = concealed[-1]
        return concealed, winning, (t.actor if win_by != "self-drawn" else None)

    def complete_hand(self, seat: str, concealed: list[int], winning: int) -> WinningHand | None:
        """The winning hand read; None when it is not a win (settled as a false win). A seat
        that called pung and did not pung cannot win this hand."""
        melds = self.t.melds[seat]
        if seat in self.t.withdrawn:
            raise ViolationError(
                self.art("九", 2, 2) if not self.simple else "第九条",
                f"{seat} called pung and did not pung: their win is void (叫碰唔碰，食糊无效)",
            )
        wrong = [m for m in melds if not m.valid]
        try:
            if wrong:
                raise MahjongError("a wrong chow or pung was never corrected")
            return read_hand(self.game, tuple(concealed), tuple(m.meld() for m in melds), winning)
        except MahjongError as exc:
            self.false_win(seat, str(exc), bool(wrong))
            return None

    def win_context(self, seat: str, win_by: str, discarder: str | None) -> Context:
        """How the hand was won, as the fan items of Art. 6 need it (heavenly and earthly
        hands, the last tile, kong replacements)."""
        t = self.t
        first_turn = sum(t.discards.values()) == 0 and t.calls_made == 0 and not t.replacements
        return Context(
            seat=seat,
            round_wind=self.round_wind,
            win_by=win_by,
            kong_replacements=t.replacements if win_by == "self-drawn" else 0,
            last_tile=win_by == "self-drawn" and t.last_was_final_draw,
            heavenly=win_by == "self-drawn" and seat == "E" and first_turn,
            earthly=(
                win_by == "discard"
                and seat != "E"
                and discarder == "E"
                and t.discards["E"] == 1
                and sum(t.discards.values()) == 1
                and t.calls_made == 0
            ),
        )

    def check_stated(self, event: Event, win_by: str, liable: str | None) -> bool:
        """The discarder and first-discard honour the record states are those of the play;
        the first-discard honour the play gives."""
        stated = event.extra.get("discarder")
        if stated is not None and stated != liable:
            raise ViolationError(
                "第十条", f"the record names {stated} as discarder, the play gives {liable}"
            )
        first_honour = win_by == "discard" and self.first_honour
        claimed_first = event.extra.get("first_discard_honour")
        if claimed_first is not None and claimed_first != first_honour:
            raise ViolationError(
                self.art("十", 10, 4),
                f"first_discard_honour {claimed_first}: the play shows it is {first_honour}",
            )
        return first_honour

    def win_record(
        self,
        seat: str,
        hand: WinningHand,
        winning: int,
        context: Context,
        liable: str | None,
        cases: tuple[str, ...],
        first_honour: bool,
    ) -> dict[str, Any]:
        """The settle-record form of the won hand (``tablecert mahjong settle`` reads it)."""
        record: dict[str, Any] = {
            "game": self.game,
            "limit": self.limit,
            "winner": seat,
            "hand": hand.text,
            "winning_tile": _core.tile_code(winning),
            "context": {
                "round_wind": context.round_wind,
                "win_by": context.win_by,
                "kong_replacements": context.kong_replacements,
                "last_tile": context.last_tile,
                "heavenly": context.heavenly,
                "earthly": context.earthly,
            },
            "players": list(self.t.seats),
        }
        if liable is not None:
            record["discarder"] = liable
        if cases:
            record["liability"] = list(cases)
        if first_honour:
            record["first_discard_honour"] = True
        if seat in self.stakes:
            record["stake"] = _plain_number(self.stakes[seat])
        return record

    def liabilities(
        self,
        seat: str,
        win_by: str,
        winning: int,
        discarder: str | None,
        result: FanResult,
        event: Event,
    ) -> tuple[tuple[str, ...], str | None]:
        """The Art. 10 cases the play imposes on this win, and who pays (the discarder of a
        win on a discard, the feeder of 包摸一轮). A case the record states that the play does
        not support, or one it leaves out of the cases it states, breaks its sub-article."""
        t = self.t
        feeder = t.feeders.get(seat)
        play = WinPlay(
            game=self.game,
            winner=seat,
            win_by=win_by,
            winning_tile=winning,
            items=frozenset(i.name for i in result.items),
            exposed=tuple(Set(m.kind, tuple(m.tiles)) for m in t.melds[seat] if m.exposed),
            discarder=discarder,
            kept=tuple(t.hands[discarder]) if discarder else (),
            seen=Counter(t.visible),
            chances=tuple(t.chances.get(discarder, ())) if discarder else (),
            feeder=feeder,
            within_round=feeder is not None and t.draws[seat] - t.fed_at[seat] <= 1,
        )
        found = assess(play, self.rules)
        derived = tuple(r for r, a in found.items() if a.holds)
        named = event.extra.get("liability")
        stated = (named,) if isinstance(named, str) else named
        if stated is not None:
            for reason in stated:
                if reason not in found:
                    raise ViolationError(
                        "第十条",
                        f"liability {reason!r} is not a case of Art. 10: {', '.join(found)}",
                    )
                if not found[reason].holds:
                    raise ViolationError(
                        found[reason].article,
                        f"liability {reason}: the play does not support it: {found[reason].why}",
                    )
            for reason in derived:
                if reason not in stated:
                    a = found[reason]
                    raise ViolationError(
                        a.article,
                        f"liability {reason} left out: {a.why}, so {a.payer} pays for everyone",
                    )
        payers = {found[r].payer for r in derived}
        liable = payers.pop() if len(payers) == 1 else discarder
        if win_by == "self-drawn" and not derived:
            liable = None
        return derived, liable

    def liability_article(self, cases: tuple[str, ...]) -> str:
        """The sub-articles of Art. 10 that the cases cite."""
        cited = (str(self.rules.require(f"liability.{c}").article) for c in cases)
        return ", ".join(dict.fromkeys(cited))

    def false_win(self, seat: str, why: str, wrong_meld: bool) -> None:
        """A claimed win whose hand is not a win: 詐糊, settled as the statute says."""
        settlement = settle_false_win(
            self.game, seat, self.limit, rules=self.rules, players=self.t.seats
        )
        self.outcome, self.winner = "false-win", seat
        self.settlement = settlement
        self.final_record = {
            "game": self.game,
            "limit": self.limit,
            "false_win": seat,
            "players": list(self.t.seats),
        }
        self.false_win_reason = (
            f"{why} ({self.art('十', 7, 3)})" if wrong_meld else f"{why} ({self.art('十', 8, 3)})"
        )
        self.t.phase = "over"


def _plain_number(value: Any) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _is_honour(tile: int) -> bool:
    return tile >= 27


def _is_set(kind: str, tiles: list[int]) -> bool:
    ordered = sorted(tiles)
    if kind == "pung":
        return len(set(ordered)) == 1
    first = ordered[0]
    return (
        ordered == [first, first + 1, first + 2]
        and ordered[2] < 27
        and first // 9 == ordered[2] // 9
    )


def settle_game(
    record: Any, rules: str | RuleFile | None = None, *, locate: Locate | None = None
) -> SettledGame:
    """Settle either record format: a settlement record, or a game record replayed (it must
    be valid play; its first violation is the error)."""
    if not is_game_record(record):
        return settle_record(record, rules, locate=locate or (lambda key: "game record"))
    played = replay(record, rules, locate=locate)
    if played.violations:
        first = played.violations[0]
        where = locate("play") if locate is not None else "game record"
        raise MahjongError(f"{where}: not valid play: {first.text}")
    assert played.settlement is not None
    return SettledGame(played.fan, played.settlement)
