"""Q Poker par sheet: "多寶" (Pair Plus) and "與莊荷博彩" (the bet against the dealer).

For each of the 22,100 player hands the core counts how its 18,424 possible dealer hands
split (dealer does not qualify; beaten; equal ranks, and of those won on suit). The rule
file's payouts turn the counts into the exact value of following and of folding, the optimal
decision, the house edge and every outcome's probability. The standard Three Card Poker file
(Ante/Play, ante bonus, ties push) reproduces the published figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.distributed import Executor
from tablecert.games.common import (
    AnalysisError,
    OutcomeRow,
    ParSheet,
    Returns,
    common_denominator,
    expected_value,
    fraction_json,
    per_category,
    rational,
)
from tablecert.games.stud import engine_game
from tablecert.hand_arrays import all_strength_keys
from tablecert.io.outputs import atomic_text, output_folder
from tablecert.poker import (
    Ordering,
    RulesSource,
    format_hand,
    ordering,
    parse_hand,
)
from tablecert.rules.stud import StudDescription, describe

HANDS = comb(52, 3)
DEALER_HANDS = comb(49, 3)
DEFAULT_SHARDS = 4
STRATEGY_FILES = ("q-poker-decisions.csv",)
_Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class PairPlus(Returns):
    """ "多寶": pays on the player's own hand (Art. 10)."""

    rows: tuple[OutcomeRow, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "house_edge": fraction_json(self.house_edge),
            "rows": [r.as_json() for r in self.rows],
        }


@dataclass(frozen=True)
class Strategy:
    """The optimal follow/fold rule in its simplest correct form: the weakest rank pattern
    from which every hand follows, plus the hands below it that still follow (the statute's
    suit tie-breaks can make a decision depend on suits) and those above it that fold."""

    weakest_always: str
    follow_hands: int
    also_follow: tuple[str, ...]
    fold_above: tuple[str, ...]

    @property
    def description(self) -> str:
        text = f"follow with {self.weakest_always} or better, fold the rest"
        if self.also_follow:
            text += f"; also follow {', '.join(self.also_follow)}"
        if self.fold_above:
            text += f"; but fold {', '.join(self.fold_above)}"
        return text

    def as_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "weakest_always_followed": self.weakest_always,
            "follow_hands": self.follow_hands,
            "also_follow": list(self.also_follow),
            "fold_above": list(self.fold_above),
        }


@dataclass(frozen=True)
class PlayBet:
    """The bet against the dealer under optimal play: every outcome and the house edge."""

    rows: tuple[OutcomeRow, ...]
    initial_bet: Fraction
    follow_bet: Fraction
    follow_probability: Fraction
    strategy: Strategy
    suit_decided: int
    suit_decided_won: int
    showdowns: int
    house_edge_if_suit_ties_pushed: Fraction | None

    @property
    def expected_value(self) -> Fraction:
        return expected_value(self.rows)

    @property
    def house_edge(self) -> Fraction:
        """Expected loss per unit of the initial bet."""
        return -self.expected_value / self.initial_bet

    @property
    def element_of_risk(self) -> Fraction:
        """Expected loss per unit actually wagered (initial bet plus the follow bet if made)."""
        return -self.expected_value / (self.initial_bet + self.follow_probability * self.follow_bet)

    @property
    def suit_decided_probability(self) -> Fraction:
        """Chance per round that the showdown is decided only by the suit tie-break."""
        return Fraction(self.suit_decided, HANDS * DEALER_HANDS)

    def as_json(self) -> dict[str, Any]:
        pushed = self.house_edge_if_suit_ties_pushed
        return {
            "house_edge": fraction_json(self.house_edge),
            "element_of_risk": fraction_json(self.element_of_risk),
            "follow_probability": fraction_json(self.follow_probability),
            "strategy": self.strategy.as_json(),
            "rows": [r.as_json() for r in self.rows],
            "suit_tie_break": {
                "showdowns": self.showdowns,
                "decided_by_suit": self.suit_decided,
                "decided_by_suit_won_by_player": self.suit_decided_won,
                "probability_per_round": fraction_json(self.suit_decided_probability),
                "house_edge_if_pushed": None if pushed is None else fraction_json(pushed),
            },
        }


@dataclass(frozen=True)
class HandValue:
    """One player hand: the exact value of following and of folding, and the decision."""

    hand: str
    category: str
    follow: Fraction
    fold: Fraction

    @property
    def decision(self) -> str:
        return "follow" if self.follow > self.fold else "fold"


@dataclass(frozen=True, eq=False)
class QPokerAnalysis(ParSheet):
    """The full par sheet of one Q Poker rule file."""

    pair_plus: PairPlus
    play: PlayBet
    _follow_numerators: _Array
    _fold_numerator: int
    _denominator: int
    _categories: tuple[str, ...]
    _category_of: _Array

    def hand(self, hand: str | list[int]) -> HandValue:
        """The exact values of one player hand (any card order)."""
        cards = sorted(parse_hand(hand, 3))
        index = _core.colex_index(cards)
        return HandValue(
            format_hand(cards),
            self._categories[int(self._category_of[index])],
            Fraction(int(self._follow_numerators[index]), self._denominator),
            Fraction(self._fold_numerator, self._denominator),
        )

    def export_strategy(self, directory: str | Path, *, force: bool = False) -> Path:
        """Write every player hand's exact values and decision (CSV, colex order), atomically;
        an existing file is replaced only with ``force``."""
        path = output_folder(directory, STRATEGY_FILES, force=force) / STRATEGY_FILES[0]
        den = self._denominator
        with atomic_text(path) as f:
            f.write("hand,category,follow_value,fold_value,decision\n")
            for i, num in enumerate(self._follow_numerators.tolist()):
                follow = Fraction(int(num), den)
                fold = Fraction(self._fold_numerator, den)
                f.write(
                    f"{format_hand(_core.hand_at(i, 3))},"
                    f"{self._categories[int(self._category_of[i])]},{follow},{fold},"
                    f"{'follow' if follow > fold else 'fold'}\n"
                )
        return path

    def as_json(self) -> dict[str, Any]:
        return {
            **self.header_json("q-poker"),
            "pair_plus": self.pair_plus.as_json(),
            "play": self.play.as_json(),
        }


@dataclass(frozen=True)
class _PlayValues:
    initial: Fraction
    follow_bet: Fraction
    fold: Fraction
    not_qualifying: Fraction
    loss: Fraction
    tie: Fraction
    win: tuple[Fraction, ...]
    bonus: tuple[Fraction, ...]
    articles: dict[str, str]


def play_values(order: Ordering) -> _PlayValues:
    rules = order.rules
    cats = order.categories
    keys = ("fold", "dealer_not_qualifying", "loss", "tie", "initial_bet", "follow_bet")
    return _PlayValues(
        initial=rational(rules, "play.initial_bet"),
        follow_bet=rational(rules, "play.follow_bet"),
        fold=rational(rules, "play.fold"),
        not_qualifying=rational(rules, "play.dealer_not_qualifying"),
        loss=rational(rules, "play.loss"),
        tie=rational(rules, "play.tie"),
        win=per_category(rules, "play.win", cats),
        bonus=per_category(rules, "play.bonus", cats),
        articles={
            **{k: rules.require(f"play.{k}").article for k in keys},
            **{f"win.{c}": rules.require(f"play.win.{c.replace(' ', '-')}").article for c in cats},
            **{
                f"bonus.{c}": rules.require(f"play.bonus.{c.replace(' ', '-')}").article
                for c in cats
            },
        },
    )


@dataclass(frozen=True)
class _Showdowns:
    """Every player hand's counts over the dealer hands it can meet (colex order): not
    qualifying, beaten on ranks, equal ranks, and of those won on suit."""

    not_qualifying: _Array
    beaten: _Array
    equal_ranks: _Array
    won_on_suit: _Array

    @classmethod
    def of(cls, raw: bytes) -> _Showdowns:
        """The generic engine's counts (one LE u32 per hand and column of
        ``_core.STUD_COUNT_FIELDS``), its columns read by name. Its wins include those on
        suit, so the hands beaten on ranks are the wins less those."""
        names = _core.STUD_COUNT_FIELDS
        table = np.frombuffer(raw, dtype="<u4").reshape(-1, len(names)).astype(np.int64)
        column = {name: table[:, j] for j, name in enumerate(names)}
        return cls(
            not_qualifying=column["not_qualifying"],
            beaten=column["won"] - column["won_on_suit"],
            equal_ranks=column["equal_ranks"],
            won_on_suit=column["won_on_suit"],
        )


def _outcomes(counts: _Showdowns, suit_wins: bool) -> tuple[_Array, _Array, _Array, _Array]:
    nq, beaten = counts.not_qualifying, counts.beaten
    if suit_wins:
        won, tied = beaten + counts.won_on_suit, np.zeros_like(beaten)
    else:
        won, tied = beaten, counts.equal_ranks
    return nq, won, tied, DEALER_HANDS - nq - won - tied


def _decide(
    counts: _Showdowns, category: _Array, v: _PlayValues, suit_wins: bool
) -> tuple[_Array, int, int, npt.NDArray[np.bool_]]:
    den = common_denominator([v.fold, v.not_qualifying, v.loss, v.tie, *v.win, *v.bonus])

    def scaled(x: Fraction) -> int:
        return int(x * den)

    win = np.array([scaled(w) for w in v.win], dtype=np.int64)[category]
    bonus = np.array([scaled(b) for b in v.bonus], dtype=np.int64)[category]
    nq, won, tied, lost = _outcomes(counts, suit_wins)
    follow = (
        nq * scaled(v.not_qualifying)
        + won * win
        + tied * scaled(v.tie)
        + lost * scaled(v.loss)
        + DEALER_HANDS * bonus
    )
    fold = DEALER_HANDS * scaled(v.fold)
    return follow, fold, den * DEALER_HANDS, follow > fold


def _house_edge(counts: _Showdowns, category: _Array, v: _PlayValues, suit_wins: bool) -> Fraction:
    follow, fold, den, choose = _decide(counts, category, v, suit_wins)
    total = int(np.where(choose, follow, fold).sum())
    return -Fraction(total, den * HANDS) / v.initial


def _strategy(
    keys: npt.NDArray[np.uint32],
    choose: npt.NDArray[np.bool_],
    category: _Array,
    cats: tuple[str, ...],
) -> Strategy:
    patterns = (keys >> 2).astype(np.int64)  # category and ranks, without the suit field
    # np.unique's values, sorted distinct; np.unique itself imports numpy.ma (8 ms of a light
    # command's start-up) to ask whether the array is masked.
    ordered = np.sort(patterns)
    order = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
    # A pattern is always followed unless one of its hands is not (one pass, not one per
    # pattern: every pattern is in ``order``).
    all_follow = np.ones(len(order), dtype=bool)
    all_follow[np.searchsorted(order, patterns[~choose])] = False
    # The weakest pattern from which every stronger pattern is always followed.
    tail = len(order)
    while tail > 0 and all_follow[tail - 1]:
        tail -= 1
    if tail == len(order):
        raise AnalysisError("no hand is worth following under these rules")
    weakest = int(np.flatnonzero(patterns == order[tail])[0])
    below = patterns < order[tail]
    also = np.flatnonzero(choose & below)
    above = np.flatnonzero(~choose & ~below)
    return Strategy(
        weakest_always=f"{_rank_pattern(weakest)} ({cats[int(category[weakest])]})",
        follow_hands=int(choose.sum()),
        also_follow=tuple(format_hand(_core.hand_at(int(i), 3)) for i in also),
        fold_above=tuple(format_hand(_core.hand_at(int(i), 3)) for i in above),
    )


def _rank_pattern(index: int) -> str:
    return "-".join(_core.card_code(c)[0] for c in sorted(_core.hand_at(index, 3), reverse=True))


@dataclass(frozen=True)
class HandShard:
    """One shard of the showdown counts: part ``part`` (k, n) of the generic engine's cut of
    the player hands, of the game the rule file describes."""

    description: StudDescription
    part: tuple[int, int]


def run_hand_shard(shard: HandShard) -> bytes:
    """The generic engine's counts of one shard's player hands, zero for the others (one LE
    u32 per hand and column of ``_core.STUD_COUNT_FIELDS``): shards add up."""
    game = engine_game(shard.description)
    # One decision worth 0 under each of the engine's four outcomes: only the counts are asked.
    values = [[[0] * len(shard.description.ranking.names) for _ in range(4)]]
    run = _core.stud_analyze(game, values, counts=True, shard=shard.part)
    assert run.counts is not None
    return run.counts


def hand_shards(order: Ordering, shards: int) -> list[HandShard]:
    """The player hands cut into ``shards`` parts of about equal work."""
    d = describe(order.rules)
    return [HandShard(d, (k, shards)) for k in range(shards)]


def showdown_counts(
    order: Ordering, executor: Executor | None = None, shards: int = DEFAULT_SHARDS
) -> bytes:
    """Every player hand's showdown counts from the generic engine: in one core call, or as
    shards on ``executor`` added up (the same bytes)."""
    if executor is None:
        return run_hand_shard(HandShard(describe(order.rules), (0, 1)))
    parts = executor.map(run_hand_shard, hand_shards(order, shards))
    total = sum(np.frombuffer(p, dtype="<u4").astype(np.uint64) for p in parts)
    return np.asarray(total, dtype="<u4").tobytes()


def analyze(
    rules: RulesSource = None, *, executor: Executor | None = None, shards: int = DEFAULT_SHARDS
) -> QPokerAnalysis:
    """The exact par sheet of Q Poker under ``rules`` (default: the Macau statute); with an
    ``executor``, the showdown counts are computed there as ``shards`` shards."""
    order = ordering("q-poker", rules)
    rf = order.rules
    cats = order.categories
    keys = all_strength_keys("q-poker", rf)
    category = (keys >> 22).astype(np.int64)
    raw = showdown_counts(order, executor, shards)
    counts = _Showdowns.of(raw)
    v = play_values(order)
    suit_wins = order.suit_decides
    follow, fold, den, choose = _decide(counts, category, v, suit_wins)
    nq, won, tied, lost = _outcomes(counts, suit_wins)
    total = HANDS * DEALER_HANDS
    a = v.articles
    rows = [
        OutcomeRow("fold", a["fold"], v.fold, int((~choose).sum()) * DEALER_HANDS, total),
        OutcomeRow(
            "dealer does not qualify",
            a["dealer_not_qualifying"],
            v.not_qualifying,
            int(nq[choose].sum()),
            total,
        ),
    ]
    for c in reversed(range(len(cats))):
        sel = choose & (category == c)
        rows.append(
            OutcomeRow(
                f"player wins with {cats[c]}",
                a[f"win.{cats[c]}"],
                v.win[c],
                int(won[sel].sum()),
                total,
            )
        )
    rows.append(OutcomeRow("push (equal ranks)", a["tie"], v.tie, int(tied[choose].sum()), total))
    rows.append(OutcomeRow("dealer wins", a["loss"], v.loss, int(lost[choose].sum()), total))
    for c in reversed(range(len(cats))):
        if v.bonus[c]:
            sel = choose & (category == c)
            rows.append(
                OutcomeRow(
                    f"bonus: {cats[c]}",
                    a[f"bonus.{cats[c]}"],
                    v.bonus[c],
                    int(sel.sum()) * DEALER_HANDS,
                    total,
                )
            )
    equal = counts.equal_ranks
    showdowns = int((DEALER_HANDS - nq)[choose].sum())
    play = PlayBet(
        rows=tuple(rows),
        initial_bet=v.initial,
        follow_bet=v.follow_bet,
        follow_probability=Fraction(int(choose.sum()), HANDS),
        strategy=_strategy(keys, choose, category, cats),
        suit_decided=int(equal[choose].sum()) if suit_wins else 0,
        suit_decided_won=int(counts.won_on_suit[choose].sum()) if suit_wins else 0,
        showdowns=showdowns,
        house_edge_if_suit_ties_pushed=(
            _house_edge(counts, category, v, False) if suit_wins else None
        ),
    )
    return QPokerAnalysis(
        title=str(rf.require("game.title").value),
        rules_path=rf.path.name,
        rules_sha256=rf.sha256,
        suit_decides=suit_wins,
        pair_plus=pair_plus_sheet(order),
        play=play,
        _follow_numerators=follow,
        _fold_numerator=fold,
        _denominator=den,
        _categories=cats,
        _category_of=category,
    )


def pair_plus_sheet(order: Ordering) -> PairPlus:
    rules = order.rules
    counts = _core.category_counts(3, order.tie_breaks)
    pays = per_category(rules, "pair_plus", order.categories)
    rows = tuple(
        OutcomeRow(
            name,
            rules.require(f"pair_plus.{name.replace(' ', '-')}").article,
            pay,
            count,
            HANDS,
        )
        for name, pay, count in reversed(list(zip(order.categories, pays, counts, strict=True)))
    )
    return PairPlus(rows)
