"""Round logs of a game described by its rule file, for the tests: the package simulator's
seeded deals and random play (``tablecert.rounds.stud_simulate``: the same rounds as ``simulate
rounds --game FILE`` draws for a game without a progressive; this generator places no
progressive bet, so for a game with one its draws differ from the simulator's from the first
round on), every bet settled by a slow, obviously-correct reading of the rule
file's text, and planted mis-settlements of named kinds, each with the round and the article
that decides it.

The settlement shares no code with the audit: the rule file is read as plain TOML
(``tomllib``), hands are ranked by the independent reference ranking (``stud_reference``), and
each bet is settled by spelling out the rules: fold, dealer not qualifying, higher hand, tie
(to the player, push or to the dealer), lower hand, the ante bonus, each side bet's pay table.
The simulator's decisions and raise multiples are checked against the text's.
"""

from __future__ import annotations

import io
import random
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablecert.games.stud_settle import StudSettlement, stud_settlement
from tablecert.rounds.stud_simulate import (
    StudPlay,
    StudRound,
    StudSeat,
    round_record,
    write_records,
)
from tablecert.rules import load_rules
from tests.support.stud_reference import Ranking, TieBreaks, first_rank

RULES = Path(__file__).resolve().parents[2] / "fixtures" / "rules"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
KINDS = ("pay-line", "bonus-missed", "tie-to-dealer", "not-qualifying-as-win", "side-bet")


def _number(value: Any) -> Fraction:
    return Fraction(str(value))


@dataclass(frozen=True)
class Side:
    """A side bet read from the file: whose cards, its ranking, its pays and minimum ranks."""

    id: str
    with_dealer: bool
    ranking: Ranking
    pays: dict[str, tuple[Fraction, str]]
    minimum: dict[str, tuple[int, str]]


@dataclass
class Rules:
    """The rule file's values, read as its text gives them (each with its article)."""

    path: Path
    data: dict[str, Any]
    ranking: Ranking
    player_cards: int
    dealer_cards: int
    upcards: int
    sides: list[Side] = field(default_factory=list)

    @classmethod
    def read(cls, name: str | Path) -> Rules:
        """A bundled rule file by name, or any file by its path."""
        path = name if isinstance(name, Path) else RULES / f"{name}.toml"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        ranking_table = data["ranking"]
        tie_breaks = TieBreaks(
            suit_decides=ranking_table["ordering"]["value"] == "statute",
            ace_low_straight_suit=ranking_table["ace_low_straight_suit"]["value"],
            pair_suit=ranking_table["pair_suit"]["value"],
            suit_order="".join(s[0] for s in ranking_table["suit_order"]["value"]),
        )
        categories = tuple(ranking_table["categories"])
        uses = data["game"]["hand_size"]["value"]
        deal = data["deal"]
        out = cls(
            path,
            data,
            Ranking(uses, categories, tie_breaks),
            deal["player_cards"]["value"],
            deal["dealer_cards"]["value"],
            deal["upcards"]["value"],
        )
        if "pair_plus" in data:
            pays = {k: (_number(v["value"]), v["article"]) for k, v in data["pair_plus"].items()}
            out.sides.append(Side("pair_plus", False, out.ranking, pays, {}))
        for bet_id, bet in data.get("side_bets", {}).items():
            pays = {k: (_number(v["value"]), v["article"]) for k, v in bet["pays"].items()}
            minimum = {
                k: (RANK_NAMES.index(str(v["value"])), v["article"])
                for k, v in bet.get("minimum_rank", {}).items()
            }
            ranking = Ranking(bet["hand_size"]["value"], tuple(bet["pays"]), tie_breaks)
            out.sides.append(
                Side(bet_id, bet["cards"]["value"] == "player-and-dealer", ranking, pays, minimum)
            )
        return out

    @property
    def follow(self) -> bool:
        """The statutes' one-decision layout: one bet against the dealer, its whole result."""
        return "play" in self.data and "initial_bet" in self.data["play"]

    def value(self, dotted: str) -> tuple[Fraction, str]:
        node: Any = self.data
        for part in dotted.split("."):
            node = node[part]
        return _number(node["value"]), node["article"]

    @property
    def against(self) -> tuple[str, ...]:
        return ("play",) if self.follow else ("ante", "raise")

    @property
    def bets(self) -> tuple[str, ...]:
        return (*self.against, *(s.id for s in self.sides))

    @property
    def raises(self) -> list[Fraction]:
        if self.follow:
            return [Fraction(0)]
        if "decision" in self.data:
            return [Fraction(v) for v in self.data["decision"]["raises"]["value"]]
        return [self.value("play.raise_multiple")[0]]

    def decision_names(self) -> list[str]:
        if self.follow:
            return ["follow"]
        return [f"raise {m.numerator if m.denominator == 1 else m}x" for m in self.raises]

    def category(self, cards: list[int]) -> str:
        key = self.ranking.key(cards)
        return self.ranking.categories[len(self.ranking.categories) - 1 - (key >> 22)]

    def qualifies(self, dealer: list[int]) -> bool:
        if self.follow or "play" in self.data:
            ranks = [RANK_NAMES.index(r) for r in self.data["play"]["dealer_qualifier"]["value"]]
            category = "high-card"
        else:
            category = self.data["qualifier"]["category"]["value"]
            if category == "none":
                return True
            ranks = [RANK_NAMES.index(str(r)) for r in self.data["qualifier"]["ranks"]["value"]]
        return self.ranking.key(dealer) >> 2 >= self.ranking.threshold(category, ranks)

    def compare(self, player: list[int], dealer: list[int]) -> int:
        pk, dk = self.ranking.key(player), self.ranking.key(dealer)
        return (pk > dk) - (pk < dk)

    def raise_cap(self) -> tuple[Fraction, list[str]]:
        """The per-round maximum on the raise's payout (currency; 0: none) and the categories
        it covers, from ``[play.cap]`` or a raise-only ``[settlement.cap]``."""
        table = self.data.get("play", {}).get("cap") or self.data.get("settlement", {}).get("cap")
        if not table:
            return Fraction(0), []
        return _number(table["maximum_payout"]["value"]), list(table["categories"]["value"])

    def ties(self) -> str:
        if "settlement" in self.data:
            return str(self.data["settlement"]["ties"]["value"])
        return "push"


Seat = StudSeat


def settle(rules: Rules, seat: Seat, dealer: list[int]) -> dict[str, Fraction]:
    """Every bet of a seat, settled by the rules' text."""
    paid: dict[str, Fraction] = {}
    cat = rules.category(seat.cards)
    if rules.follow:
        stake = seat.stakes["play"]
        if seat.decision == "fold":
            net = rules.value("play.fold")[0]
        else:
            if not rules.qualifies(dealer):
                net = rules.value("play.dealer_not_qualifying")[0]
            else:
                outcome = rules.compare(seat.cards, dealer)
                if outcome > 0:
                    net = rules.value(f"play.win.{cat}")[0]
                elif outcome < 0:
                    net = rules.value("play.loss")[0]
                else:
                    net = rules.value("play.tie")[0]
            net += rules.value(f"play.bonus.{cat}")[0]
        paid["play"] = stake * net
    else:
        ante, raised = seat.stakes["ante"], seat.stakes["raise"]
        generic = "settlement" in rules.data
        prefix = "settlement" if generic else "play"
        if seat.decision == "fold":
            paid["ante"] = ante * rules.value(f"{prefix}.fold")[0]
            paid["raise"] = Fraction(0)
        else:
            outcome = rules.compare(seat.cards, dealer)
            ties = rules.ties()
            if not rules.qualifies(dealer):
                if generic:
                    a = rules.value("settlement.ante.not_qualifying")[0]
                    r = rules.value("settlement.raise.not_qualifying")[0]
                else:
                    a = rules.value("play.not_qualifying_ante")[0]
                    r = rules.value("play.not_qualifying_raise")[0]
            elif outcome > 0 or (outcome == 0 and ties == "player"):
                if generic:
                    a = rules.value("settlement.ante.win")[0]
                    r = rules.value(f"settlement.raise.win.{cat}")[0]
                else:
                    a = rules.value("play.ante_win")[0]
                    r = rules.value(f"play.raise_pays.{cat}")[0]
            elif outcome < 0 or ties == "dealer":
                if generic:
                    a = rules.value("settlement.ante.loss")[0]
                    r = rules.value("settlement.raise.loss")[0]
                else:
                    a = r = rules.value("play.loss")[0]
            else:  # a push
                a = Fraction(0) if generic else rules.value("play.tie")[0]
                r = Fraction(0)
            if generic and "bonus" in rules.data["settlement"]:
                a += rules.value(f"settlement.bonus.{cat}")[0]
            paid["ante"] = ante * a
            paid["raise"] = raised * r
            maximum, categories = rules.raise_cap()
            if maximum and cat in categories and paid["raise"] > maximum:
                paid["raise"] = maximum
    for side in rules.sides:
        stake = seat.stakes[side.id]
        paid[side.id] = stake * side_pay(side, seat.cards + (dealer if side.with_dealer else []))
    return paid


def side_pay(side: Side, cards: list[int]) -> Fraction:
    key = side.ranking.key(cards)
    name = side.ranking.categories[len(side.ranking.categories) - 1 - (key >> 22)]
    pay, _ = side.pays[name]
    if name in side.minimum and first_rank(key) < side.minimum[name][0]:
        return Fraction(-1)
    return pay


@dataclass(frozen=True)
class Planted:
    """A planted mis-settlement: the round, the seat, the bet and the article deciding it."""

    round_id: str
    seat: int
    bet: str
    kind: str
    article: str


@dataclass
class Log:
    rules: Rules
    rounds: list[StudRound]
    planted: list[Planted]
    settlement: StudSettlement

    def seats(self) -> list[Seat]:
        return [seat for rnd in self.rounds for seat in rnd.seats]

    def outcomes(self) -> set[str]:
        """What happened at the seats, as the reference reads it: fold, dealer does not
        qualify, win, tie, loss; ante bonus (paid); side bet won, side bet lost."""
        rules = self.rules
        seen: set[str] = set()
        for rnd in self.rounds:
            dealer = rnd.dealer
            for seat in rnd.seats:
                if seat.decision == "fold":
                    seen.add("fold")
                elif not rules.qualifies(dealer):
                    seen.add("dealer does not qualify")
                else:
                    outcome = rules.compare(seat.cards, dealer)
                    seen.add({1: "win", 0: "tie", -1: "loss"}[outcome])
                    bonus = rules.data.get("settlement", {}).get("bonus", {})
                    cat = rules.category(seat.cards)
                    if cat in bonus and _number(bonus[cat]["value"]) != 0:
                        seen.add("ante bonus")
                for side in rules.sides:
                    if seat.stakes[side.id]:
                        won = seat.paid[side.id] > 0
                        seen.add("side bet won" if won else "side bet lost")
        return seen

    def write(self, path: Path) -> Path:
        """The log as CSV, or as JSON Lines when the name ends in ``.jsonl`` (the package
        simulator's writer)."""
        out = io.StringIO()
        records = self.records()
        write_records(out, self.settlement, records, jsonl=path.suffix == ".jsonl")
        path.write_text(out.getvalue(), "utf-8")
        return path

    def records(self) -> list[dict[str, Any]]:
        return [round_record(self.settlement, rnd, i) for i, rnd in enumerate(self.rounds)]


def _mirrored_deal(
    rules: Rules, rng: random.Random, seats: int
) -> tuple[list[int], list[list[int]]]:
    """A deal whose first seat holds the ranks of the dealer's first cards in other suits
    (where the deck allows): a deal where equal hands are likely, for a tie to be dealt."""
    dealer = rng.sample(range(52), rules.dealer_cards)
    used = set(dealer)
    first: list[int] = []
    for card in dealer[: rules.player_cards]:
        others = [card // 4 * 4 + s for s in range(4) if card // 4 * 4 + s not in used]
        pick = rng.choice(others) if others else rng.choice([c for c in range(52) if c not in used])
        first.append(pick)
        used.add(pick)
    rest = rng.sample([c for c in range(52) if c not in used], (seats - 1) * rules.player_cards)
    hands = [first] + [
        rest[i * rules.player_cards : (i + 1) * rules.player_cards] for i in range(seats - 1)
    ]
    return dealer, hands


def _plant(rules: Rules, kind: str, seat: Seat, dealer: list[int]) -> tuple[str, str] | None:
    """Mis-settle one bet of ``seat`` as ``kind`` does, if the seat's hand allows it: the bet
    and the article that decides the right settlement; None if it does not apply."""
    cat = rules.category(seat.cards)
    raised = seat.decision != "fold" and not rules.follow
    qualifies = rules.qualifies(dealer)
    outcome = rules.compare(seat.cards, dealer) if qualifies else None
    if kind == "tie":  # nothing mis-settled: a round where the first seat ties, raising
        return ("", "") if seat.decision != "fold" and outcome == 0 else None
    if kind == "bonus-missed":
        if not raised or "bonus" not in rules.data.get("settlement", {}):
            return None
        bonus, article = rules.value(f"settlement.bonus.{cat}")
        if bonus == 0:
            return None
        seat.paid["ante"] -= seat.stakes["ante"] * bonus
        return "ante", article
    if kind == "tie-to-dealer":
        if not raised or rules.ties() != "player" or outcome != 0:
            return None
        seat.paid["ante"] = -seat.stakes["ante"]
        seat.paid["raise"] = -seat.stakes["raise"]
        return "ante", rules.data["settlement"]["ties"]["article"]
    if kind == "not-qualifying-as-win":
        if not raised or qualifies:
            return None
        wins = rules.data["settlement"]["raise"]["win"]
        if cat not in wins:
            return None
        seat.paid["raise"] = seat.stakes["raise"] * _number(wins[cat]["value"])
        return "raise", rules.value("settlement.raise.not_qualifying")[1]
    if kind == "cap":  # a capped raise paid in full
        maximum, categories = rules.raise_cap()
        if not raised or not maximum or cat not in categories or seat.paid["raise"] != maximum:
            return None
        pay = rules.data["settlement"]["raise"]["win"][cat]
        seat.paid["raise"] = seat.stakes["raise"] * _number(pay["value"])
        if seat.paid["raise"] == maximum:
            return None
        return "raise", rules.data["settlement"]["cap"]["maximum_payout"]["article"]
    if kind == "pay-line":
        # a win paid by the line of the category below the player's
        if raised and outcome is not None and outcome > 0 and "settlement" in rules.data:
            table = rules.data["settlement"]["raise"]["win"]
            names = list(table)
            if cat in names and names.index(cat) + 1 < len(names):
                lower = names[names.index(cat) + 1]
                if table[lower]["value"] != table[cat]["value"]:
                    seat.paid["raise"] = seat.stakes["raise"] * _number(table[lower]["value"])
                    return "raise", table[cat]["article"]
        for side in rules.sides:
            pay = side_pay(side, seat.cards + (dealer if side.with_dealer else []))
            if seat.stakes[side.id] and pay > 0:
                seat.paid[side.id] = seat.stakes[side.id] * (pay + 1)
                key = side.ranking.key(seat.cards + (dealer if side.with_dealer else []))
                name = side.ranking.categories[len(side.ranking.categories) - 1 - (key >> 22)]
                return side.id, side.pays[name][1]
        return None
    if kind == "side-bet":
        for side in rules.sides:
            if seat.stakes[side.id] and seat.paid[side.id] < 0:
                seat.paid[side.id] = Fraction(0)
                key = side.ranking.key(seat.cards + (dealer if side.with_dealer else []))
                name = side.ranking.categories[len(side.ranking.categories) - 1 - (key >> 22)]
                if name in side.minimum and first_rank(key) < side.minimum[name][0]:
                    return side.id, side.minimum[name][1]
                return side.id, side.pays[name][1]
        return None
    raise ValueError(kind)


def applicable(rules: Rules) -> tuple[str, ...]:
    """The planted kinds the game's rules make possible."""
    settlement = rules.data.get("settlement", {})
    bonus = settlement.get("bonus", {})
    qualifier = rules.data.get("qualifier", {}).get("category", {}).get("value", "none")
    possible = {
        "pay-line": True,
        "bonus-missed": any(_number(v["value"]) != 0 for v in bonus.values()),
        "tie-to-dealer": rules.ties() == "player",
        "not-qualifying-as-win": "settlement" in rules.data and qualifier != "none",
        "side-bet": bool(rules.sides),
    }
    return tuple(k for k in KINDS if possible[k])


def make_log(
    name: str | Path,
    rounds: int,
    seed: int = 0,
    plant: tuple[str, ...] = (),
    every: int = 10,
    seats: int = 3,
) -> Log:
    """``rounds`` seeded rounds of the game ``name`` (a bundled rule file), drawn as the
    package simulator draws them (without ``plant`` and for a game without a progressive, its
    very rounds; no progressive bet is placed here), every bet settled by
    the rule text; with ``plant``, one round in ``every`` (cycling through the kinds)
    mis-settled by a kind that applies to it (a deal is dealt again until one does). The kind
    ``tie`` mis-settles nothing: it deals a round where the first seat raises and ties the
    dealer."""
    rules = Rules.read(name)
    st = stud_settlement(load_rules(rules.path))
    assert st.decisions == ("fold", *rules.decision_names()), st.decisions
    if not rules.follow:
        assert st.multiples == (0, *rules.raises), st.multiples
    play = StudPlay(st, seed)
    log = Log(rules, [], [], st)
    plant = tuple(k for k in plant if k in (*applicable(rules), "tie", "cap"))
    kinds = iter(plant * rounds)
    for i in range(rounds):
        round_id = str(i + 1)
        kind = next(kinds) if plant and i % every == every - 1 else None
        for _ in range(100_000):
            n = play.seat_count(seats)
            if kind in ("tie", "tie-to-dealer"):
                dealer, hands = _mirrored_deal(rules, play.rng, n)
            else:
                dealer, hands = play.deal(n)
            table = [play.play(k + 1, h) for k, h in enumerate(hands)]
            for seat in table:
                seat.paid = settle(rules, seat, dealer)
            if kind is None:
                break
            planted = _plant(rules, kind, table[0], dealer)
            if planted is not None:
                if planted[0]:
                    log.planted.append(Planted(round_id, 1, planted[0], kind, planted[1]))
                break
        else:
            raise AssertionError(f"no deal of {name} lets {kind} be planted")
        log.rounds.append(StudRound(round_id, dealer, table))
    return log


CAP = """
[settlement.cap]
maximum_payout = { value = 150, article = "Lab variant: the cap" }
ante = { value = 10, article = "Lab variant: the cap" }
categories = { value = ["royal-flush", "straight-flush", "four-of-a-kind", "full-house", \
"flush", "straight", "three-of-a-kind", "two-pair"], article = "Lab variant: the cap" }
bets = { value = BETS, article = "Lab variant: the cap" }
"""


def capped_rules(folder: Path, bets: str = '["raise"]') -> Path:
    """A lab variant of Caribbean Stud without an upcard whose round pays at most 150 on
    ``bets`` (a TOML list) for the hands the cap covers: ``folder/capped.toml``."""
    path = folder / "capped.toml"
    text = (RULES / "caribbean-stud.no-upcard.toml").read_text("utf-8")
    path.write_text(text + CAP.replace("BETS", bets), "utf-8")
    return path
