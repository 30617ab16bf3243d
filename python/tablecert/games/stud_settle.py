"""What a game described by its rule file pays on each bet of a round.

The description (:mod:`tablecert.rules.stud`) says every bet's net result per unit staked on
it, by the player's decision, the outcome against the dealer and the player's category; this
module lays those values out as integer arrays (numerators over one denominator per bet), each
entry with the rule keys and articles that decide it, so that a chunk of logged rounds is
settled at once. The bets of a round are:

- against the dealer, with the layout of the rule file: ``ante`` (the ante's net result, the
  ante bonus included: it is paid on the ante) and ``raise`` (the play bet, per unit raised)
  where the player raises a multiple of the ante; or one ``play`` bet (the initial bet, whose
  values are the player's whole result: initial and follow bet together) in the statutes'
  one-decision layout;
- each side bet, by its id in the rule file, on the player's own hand or on the player's and
  the dealer's cards together, paid by its own category (and minimum first rank).

Every value is per unit of the logged stake of its bet, as the dedicated games' settlement
(``games/settle.py``) reads the statutes' files: a statute's file audited as a described game
is settled as its own engine's audit settles it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.games.progressive import Progressive, progressive_of
from tablecert.poker import engine_ranking
from tablecert.rules import RuleFile
from tablecert.rules.stud import (
    LOST,
    NOT_QUALIFYING,
    TIED,
    WON,
    Cited,
    Part,
    SideBet,
    StudDescription,
    describe,
)

#: The outcomes of the bet against the dealer (the engine's order), and the fold's.
OUTCOMES = ("dealer does not qualify", "win", "tie", "loss")
FOLDED = len(OUTCOMES)
CATEGORY_SHIFT = 22
FIRST_RANK_SHIFT = 18
RANK_SHIFTS = (18, 14, 10, 6, 2)
RANKS_ONLY = ~3


@dataclass(frozen=True)
class Rule:
    """What decides one entry of a bet's table: the rule keys and their articles."""

    keys: tuple[str, ...]
    articles: tuple[str, ...]

    @property
    def key(self) -> str:
        return " + ".join(self.keys)

    @property
    def article(self) -> str:
        return "; ".join(dict.fromkeys(a for a in self.articles if a))


def _rule(*cited: Cited[Fraction] | Cited[str]) -> Rule:
    return Rule(tuple(c.key for c in cited), tuple(c.article for c in cited))


@dataclass(frozen=True)
class BetTable:
    """One bet's net results per unit staked, as numerators over ``denominator``, indexed
    ``[row, category position]`` (the row: see :class:`StudSettlement`), and each entry's
    deciding rule, a code into ``rules``."""

    bet: str
    numerators: npt.NDArray[np.int64]
    denominator: int
    codes: npt.NDArray[np.int64]
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class SideBetHands:
    """How a side bet's hand is made: its ranking in the core and whose cards."""

    bet: SideBet
    ranking: _core.StudRanking
    with_dealer: bool


@dataclass(frozen=True)
class StudSettlement:
    """Every bet of a described game's round, as tables.

    The table of the first bet against the dealer (``ante`` or ``play``) has a row per
    (decision, outcome): ``d * 4 + o`` for a raise or a follow ``d`` (1..) and outcome ``o``
    (:data:`OUTCOMES`), and row 0 for the fold (``d = 0``). The ``raise`` table's rows are the
    outcomes, per unit raised, the fold's (nothing raised) as row :data:`FOLDED`. A side bet's
    table has one row per first rank (0 = 2 .. 12 = A): its pay by category and rank.
    """

    description: StudDescription
    rules: RuleFile
    ranking: _core.StudRanking
    #: The bets in log column order: those against the dealer, then the side bets by id.
    bets: tuple[str, ...]
    against: tuple[str, ...]
    #: The decisions in the engine's order (d = 0 fold), as a log writes them.
    decisions: tuple[str, ...]
    #: What the player stakes on the raise per unit of the ante, by decision (0 for fold).
    multiples: tuple[Fraction, ...]
    #: The dealer qualifies iff the ranks of its hand's key are at least this (0: always).
    threshold: int
    tables: dict[str, BetTable]
    side_bets: tuple[SideBetHands, ...]
    #: The raise's per-round maximum payout in currency units (0: none), and the categories
    #: (by position) whose raise it caps where the raise wins.
    maximum_payout: Fraction
    capped: tuple[bool, ...]
    cap_rule: Rule | None
    #: The progressive (``[progressive]``), its paying hands counted under the game's
    #: ranking; None where the file has none. It is settled with its meter (rounds/meter.py),
    #: not by a table: its prizes depend on the meter and on the round's other winners.
    progressive: Progressive | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        """The bets a round log holds per seat, in column order: ``bets``, then the
        progressive where the game has one."""
        return (*self.bets, "progressive") if self.progressive is not None else self.bets

    @property
    def categories(self) -> tuple[str, ...]:
        """The game's category names by position (0 the lowest)."""
        return tuple(reversed(self.description.ranking.names))

    @property
    def suit_decides(self) -> bool:
        return self.description.ranking.suit_decides.value

    def player_key(self, cards: Sequence[int]) -> int:
        """The key of the player's (or the dealer's) best hand; compare keys to compare."""
        return _core.stud_key(self.ranking, list(cards))

    def outcome(self, player: Sequence[int], dealer: Sequence[int]) -> int:
        """The outcome of the bet against the dealer (:data:`OUTCOMES`' index)."""
        pk, dk = self.player_key(player), self.player_key(dealer)
        if (dk & RANKS_ONLY) < self.threshold:
            return NOT_QUALIFYING
        mask = -1 if self.suit_decides else RANKS_ONLY
        p, d = pk & mask, dk & mask
        return WON if p > d else LOST if p < d else TIED

    def settle(
        self,
        cards: Sequence[int],
        dealer: Sequence[int],
        decision: int,
        stakes: Sequence[Fraction],
    ) -> tuple[Fraction, ...]:
        """A seat's net result on each of its bets (currency, ``bets`` order): its cards,
        the dealer's, its ``decision`` (the engine's: 0 fold, 1.. the raises or the follow)
        and its stakes. The scalar, one-seat-at-a-time reading of the tables (the round audit
        does the same arithmetic on arrays: the two agree on every round, which the tests
        check)."""
        category = self.player_key(cards) >> CATEGORY_SHIFT
        outcome = self.outcome(cards, dealer)
        out = []
        for i, bet in enumerate(self.bets):
            table = self.tables[bet]
            if bet == self.against[0]:
                row, column = (0 if decision == 0 else 1 + 4 * (decision - 1) + outcome), category
            elif bet == "raise":
                row, column = (FOLDED if decision == 0 else outcome), category
            else:
                side = self.side_bets[i - len(self.against)]
                hand = [*cards, *(dealer if side.with_dealer else ())]
                key = _core.stud_key(side.ranking, hand)
                row, column = (key >> FIRST_RANK_SHIFT) & 0xF, key >> CATEGORY_SHIFT
            value = int(table.numerators[row, column])
            due = stakes[i] * Fraction(value, table.denominator)
            if bet == "raise" and self.cap_rule is not None and self.capped[column] and value > 0:
                due = min(due, self.maximum_payout)
            out.append(due)
        return tuple(out)


def _ties(rules: RuleFile) -> Cited[str]:
    entry = rules.require("settlement.ties")
    return Cited(str(entry.value), str(entry.article), "settlement.ties")


def _against_tables(d: StudDescription, rules: RuleFile) -> dict[str, BetTable]:
    """The tables of the bets against the dealer."""
    s = d.settlement
    positions = range(len(s.win))
    rows = 1 + 4 * len(s.raises)
    first: list[list[tuple[Fraction, Rule]]] = [
        [(Fraction(0), Rule((), ())) for _ in positions] for _ in range(rows)
    ]
    per_raise: list[list[tuple[Fraction, Rule]]] = [
        [(Fraction(0), Rule((), ())) for _ in positions] for _ in range(len(OUTCOMES) + 1)
    ]
    for c in positions:
        first[0][c] = (s.fold.value, _rule(s.fold))
        per_raise[FOLDED][c] = (Fraction(0), _rule(s.fold))
    # a tie's settlement is the ties rule's (to the player: the win's values) where the file
    # has one; in the statutes' layouts, the tie value's own
    ties = [_ties(rules)] if "ties" in rules.data.get("settlement", {}) else []
    for o in range(len(OUTCOMES)):
        for c in positions:
            part: Part
            cited: list[Cited[Fraction] | Cited[str]] = []
            if o == NOT_QUALIFYING:
                part = s.not_qualifying
            elif o == WON:
                part = s.win[c]
            elif o == TIED:
                part = s.win[c] if s.tie is None else s.tie
                cited = list(ties)
            else:
                part = s.loss
            bonus = s.bonus[c] if s.bonus else None
            for d_index in range(len(s.raises)):
                value = part.ante.value
                ante_rule = [*cited, part.ante]
                if bonus is not None and bonus.value != 0:
                    value += bonus.value
                    ante_rule.append(bonus)
                first[1 + 4 * d_index + o][c] = (value, _rule(*dict.fromkeys(ante_rule)))
            per_raise[o][c] = (
                part.per_raise.value,
                _rule(*dict.fromkeys([*cited, part.per_raise])),
            )
    names = ("ante", "raise") if s.action == "raise" else ("play",)
    tables = {names[0]: _table(names[0], first)}
    if s.action == "raise":
        tables["raise"] = _table("raise", per_raise)
    return tables


def _side_table(bet: SideBet) -> BetTable:
    """A side bet's pay by [first rank, category position]."""
    grid: list[list[tuple[Fraction, Rule]]] = []
    for rank in range(13):
        row = []
        for position, pay in enumerate(bet.pays):
            minimum = bet.minimum_rank.get(position)
            if minimum is not None and rank < minimum.value:
                row.append((Fraction(-1), Rule((minimum.key,), (minimum.article,))))
            else:
                row.append((pay.value, _rule(pay)))
        grid.append(row)
    return _table(bet.id, grid)


def _table(bet: str, grid: list[list[tuple[Fraction, Rule]]]) -> BetTable:
    den = math.lcm(*(v.denominator for row in grid for v, _ in row))
    rules: dict[Rule, int] = {}
    codes = [[rules.setdefault(r, len(rules)) for _, r in row] for row in grid]
    return BetTable(
        bet,
        np.array([[int(v * den) for v, _ in row] for row in grid], dtype=np.int64),
        den,
        np.array(codes, dtype=np.int64),
        tuple(rules),
    )


def _threshold(d: StudDescription) -> int:
    q = d.qualifier
    if q is None:
        return 0
    key = d.ranking.position(q.category) << CATEGORY_SHIFT
    return key | sum(r << s for r, s in zip(q.ranks, RANK_SHIFTS, strict=False))


def stud_settlement(rules: RuleFile) -> StudSettlement:
    """The settlement of every bet of the game ``rules`` describes (validated completely:
    a value that cannot be computed is a RuleFileError naming its key)."""
    d = describe(rules)
    s = d.settlement
    against = _against_tables(d, rules)
    side = tuple(
        SideBetHands(
            bet,
            engine_ranking(bet.uses.value, bet.categories, d.ranking),
            bet.cards.value == "player-and-dealer",
        )
        for bet in d.side_bets
    )
    tables = {**against, **{h.bet.id: _side_table(h.bet) for h in side}}
    multiples = (
        (Fraction(0), *(r.value for r in s.raises))
        if s.action == "raise"
        else tuple(Fraction(0) for _ in range(1 + len(s.raises)))
    )
    cap = s.cap
    maximum = cap.maximum_payout.value if cap is not None else Fraction(0)
    if cap is not None and maximum != 0 and cap.bets.value != ("raise",):
        # the log pays each bet apart: how a cap over several bets together is shared among
        # them is not in the description
        raise rules.error(
            cap.bets.key,
            f"a per-round cap over {', '.join(cap.bets.value)} together is not re-settled "
            "in round logs (each bet is logged apart); a cap on the raise alone is",
        )
    return StudSettlement(
        description=d,
        rules=rules,
        ranking=engine_ranking(d.ranking.uses, d.ranking.names, d.ranking),
        bets=(*against, *(h.bet.id for h in side)),
        against=tuple(against),
        decisions=s.decisions,
        multiples=multiples,
        threshold=_threshold(d),
        tables=tables,
        side_bets=side,
        maximum_payout=maximum,
        capped=s.capped,
        cap_rule=None if cap is None or maximum == 0 else _rule(cap.maximum_payout),
        progressive=None if d.progressive is None else progressive_of(d.progressive, d.ranking),
    )
