"""The progressive side bet (Caribbean Stud's Art. 10): exact return as a function of the meter.

Prizes depend only on the player's own five cards. The royal takes the larger of its fixed
prize and its share of the meter, the straight flush likewise; the other paying categories
(four of a kind, full house and flush in the statute's file) pay fixed prizes. The bet is
collected in every case (prizes are "for one"). The terms are read by
:mod:`tablecert.rules.stud` (``[progressive]``, in the statutes' files and in any game
described by its file) and the paying hands counted under the game's own ranking.

A round with several winners is paid as Art. 10(4)-(8) say, with the rule file's readings of
what they leave open (``pay_round``): straight flushes before royals, each straight flush its
10% of the meter, royals sharing it; the meter falls by what it paid and restarts from the seed
when emptied. ``long_run`` is the bet's return over the meter's cycles (a renewal argument).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb, factorial, floor
from typing import Any

from tablecert import _core
from tablecert.games.common import AnalysisError, decimal, fraction_json
from tablecert.poker import TieBreakSpec, tie_break_spec
from tablecert.rules import RuleFile
from tablecert.rules.stud import (
    CONTRIBUTION_TIMINGS,
    PAYMENT_ORDERS,
    PROGRESSIVE_HAND,
    STRAIGHT_FLUSH_BASES,
    VOCABULARY,
    ProgressiveTerms,
    Ranking,
    progressive_terms,
)

HANDS = comb(52, PROGRESSIVE_HAND)
#: Trailing points of an article: "(一)" of "第十条(一)".
_POINTS = re.compile(r"(\([^()]*\))+$")
ROYAL, STRAIGHT_FLUSH = "royal flush", "straight flush"
#: The clauses of Art. 10 that decide a round with several winners (statute structure, cited
#: in findings): royals share the meter (5), straight flushes each take their share (6),
#: straight flushes are paid before royals (7).
ROYALS_SHARE = "第十条(五)"
STRAIGHT_FLUSHES_EACH = "第十条(六)"
STRAIGHT_FLUSH_FIRST = "第十条(七)"
#: The statute's article of the progressive, whose clauses those are.
STATUTE_ARTICLE = "第十条"
SHARE_KEYS = {
    ROYAL: "progressive.royal_meter_share",
    STRAIGHT_FLUSH: "progressive.straight_flush_meter_share",
}


@dataclass(frozen=True)
class ProgressivePrize:
    """One paying hand: how many of the 2,598,960 hands, its fixed prize and meter share."""

    category: str
    article: str
    count: int
    fixed: Fraction
    meter_share: Fraction

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, HANDS)

    def prize(self, meter: Fraction) -> Fraction:
        return max(self.fixed, self.meter_share * meter)


@dataclass(frozen=True)
class Sharing:
    """With ``players`` progressive bets at the table: given your royal, the chance that
    ``others`` other players also hold one, and what your royal is then worth."""

    players: int
    others: int
    probability: Fraction
    prize: Fraction


@dataclass(frozen=True)
class SeatPrize:
    """One seat's progressive prize in a round (gross: the bet is collected besides), the
    rule key that decided it and the article of Art. 10 that settles it."""

    seat: int
    category: str
    prize: Fraction
    rule: str
    article: str


@dataclass(frozen=True)
class RoundPayment:
    """A round's progressive prizes in payment order and the meter after the round."""

    meter_before: Fraction
    prizes: tuple[SeatPrize, ...]
    emptied: bool
    meter_after: Fraction

    def of(self, seat: int) -> SeatPrize | None:
        return next((p for p in self.prizes if p.seat == seat), None)


@dataclass(frozen=True)
class LongRun:
    """The progressive's long-run return per unit bet over the meter's cycles.

    With ``players`` bets every round, the meter's cycle ends when it is emptied and restarts
    from the seed. By the renewal-reward theorem the long-run prizes per bet are the fixed
    prizes the house pays, plus everything that flows into the meter per bet: the contribution
    and the seed once per cycle. ``method`` says how it was computed; ``error_bound`` bounds
    |exact - return| (the prize unit's rounding remainders a royal leaves, not carried over)."""

    players: int
    method: str
    prizes_per_bet: Fraction
    fixed_per_bet: Fraction
    contribution_per_bet: Fraction
    seed_per_bet: Fraction
    restart_probability: Fraction
    error_bound: Fraction
    bet: Fraction
    #: what the meter's level adds per bet (the numerical method's term; 0 in the closed form)
    meter_level_per_bet: Fraction = Fraction(0)

    @property
    def return_per_bet(self) -> Fraction:
        """Expected net result per unit bet, in the long run."""
        return self.prizes_per_bet / self.bet - 1

    @property
    def mean_cycle_rounds(self) -> Fraction | None:
        return 1 / self.restart_probability if self.restart_probability else None

    @property
    def player_advantage(self) -> bool:
        """Whether the bet returns more than it takes in the long run (the house loses on it):
        beyond the error bound, so that a rounding remainder never raises the flag."""
        return self.return_per_bet > self.error_bound

    def as_json(self) -> dict[str, Any]:
        cycle = self.mean_cycle_rounds
        return {
            "players": self.players,
            "method": self.method,
            "return": fraction_json(self.return_per_bet),
            "error_bound": fraction_json(self.error_bound),
            "prizes_per_bet": fraction_json(self.prizes_per_bet),
            "fixed_prizes_per_bet": fraction_json(self.fixed_per_bet),
            "contribution_per_bet": fraction_json(self.contribution_per_bet),
            "seed_per_bet": fraction_json(self.seed_per_bet),
            "meter_level_per_bet": fraction_json(self.meter_level_per_bet),
            "restart_probability_per_round": fraction_json(self.restart_probability),
            "mean_cycle_rounds": None if cycle is None else fraction_json(cycle),
            "player_advantage": self.player_advantage,
        }


@dataclass(frozen=True)
class Progressive:
    """The progressive bet's par sheet under one rule file."""

    bet: Fraction
    meter: Fraction
    seed: Fraction
    contribution: Fraction
    players: int
    prizes: tuple[ProgressivePrize, ...]
    payment_order: str = "ascending-seat"
    straight_flush_base: str = "meter-before"
    meter_pays: frozenset[str] = frozenset((ROYAL, STRAIGHT_FLUSH))
    contribution_timing: str = "after-prizes"
    prize_unit: Fraction = Fraction(1, 100)
    articles: tuple[tuple[str, str], ...] = ()
    #: The articles a round with several winners is paid under: royals sharing the meter,
    #: straight flushes each taking their share, straight flushes paid before royals.
    round_articles: tuple[str, str, str] = (
        ROYALS_SHARE,
        STRAIGHT_FLUSHES_EACH,
        STRAIGHT_FLUSH_FIRST,
    )

    def articles_of(self, key: str) -> str:
        """The article of one of the progressive's rule keys."""
        return dict(self.articles).get(key, "")

    @property
    def article(self) -> str:
        """The progressive's article as its sheet's heading cites it: the bet's, without its
        points (第十条 of 第十条(一); "Rules: progressive" whole)."""
        return _POINTS.sub("", self.articles_of("progressive.bet")).strip()

    def prize_of(self, category: str) -> ProgressivePrize | None:
        return next((p for p in self.prizes if p.category == category), None)

    def pay_round(
        self, meter_before: Fraction, seats: list[tuple[int, str]], bets: Fraction
    ) -> RoundPayment:
        """What Art. 10 pays each progressive bettor of one round, and the meter after it.

        ``seats``: (seat number, category of the player's hand) of every seat whose ante and
        progressive bet were accepted; ``bets``: the round's progressive bets (contributions
        are ``contribution`` of them). Prizes are gross (the bet is collected besides)."""
        m = meter_before + (
            self.contribution * bets if self.contribution_timing == CONTRIBUTION_TIMINGS[1] else 0
        )
        base = m
        ordered = sorted(seats, key=lambda s: s[0], reverse=self.payment_order == PAYMENT_ORDERS[1])
        royals_share, flushes_each, flush_first = self.round_articles
        categories = [c for _, c in seats]
        several_sf = categories.count(STRAIGHT_FLUSH) > 1
        royals = [s for s, c in ordered if c == ROYAL]
        paid: dict[int, SeatPrize] = {}
        emptied = False
        for seat, category in ordered:
            prize = self.prize_of(category)
            if category == ROYAL or prize is None:
                continue
            on = (
                base
                if category == STRAIGHT_FLUSH
                and self.straight_flush_base == STRAIGHT_FLUSH_BASES[0]
                else m
            )
            share = self.down(prize.meter_share * max(on, Fraction(0)))
            amount = max(prize.fixed, share)
            if category in self.meter_pays:
                m -= amount
                emptied |= m <= 0
            article = prize.article
            if category == STRAIGHT_FLUSH and royals:
                article = flush_first
            elif category == STRAIGHT_FLUSH and several_sf:
                article = flushes_each
            rule = self._rule(category, prize.meter_share > 0 and share >= prize.fixed)
            paid[seat] = SeatPrize(seat, category, amount, rule, article)
        if royals:
            royal = self.prize_of(ROYAL)
            assert royal is not None
            share = self.down(royal.meter_share * max(m, Fraction(0)) / len(royals))
            amount = max(royal.fixed, share)
            if ROYAL in self.meter_pays:
                m -= amount * len(royals)
                # 100% of the meter: the royals take all of it, as a share or a larger fixed prize
                emptied |= m <= 0 or royal.meter_share == 1
            article = (
                royals_share
                if len(royals) > 1
                else flush_first
                if STRAIGHT_FLUSH in categories
                else royal.article
            )
            rule = self._rule(ROYAL, royal.meter_share > 0 and share >= royal.fixed)
            for seat in royals:
                paid[seat] = SeatPrize(seat, ROYAL, amount, rule, article)
        after = self.seed if emptied else m
        if self.contribution_timing == CONTRIBUTION_TIMINGS[0]:
            after += self.contribution * bets
        return RoundPayment(
            meter_before, tuple(paid[s] for s, _ in ordered if s in paid), emptied, after
        )

    def down(self, amount: Fraction) -> Fraction:
        """A share of the meter paid in whole prize units (rounded down)."""
        return floor(amount / self.prize_unit) * self.prize_unit

    @staticmethod
    def _rule(category: str, from_share: bool) -> str:
        """The rule key that decided a prize: the meter share, or the fixed prize."""
        if from_share:
            return SHARE_KEYS[category]
        return f"progressive.fixed.{category.replace(' ', '-')}"

    def long_run(self, players: int | None = None) -> LongRun:
        """The bet's return over the meter's cycles with ``players`` progressive bets every
        round (renewal-reward: what the meter pays in the long run is what flows into it)."""
        return long_run(self, self.players if players is None else players)

    def expected_prize(self, meter: Fraction) -> Fraction:
        return sum((p.probability * p.prize(meter) for p in self.prizes), Fraction(0))

    def return_at(self, meter: Fraction | int) -> Fraction:
        """Expected net result per unit bet with the meter at ``meter`` (one player)."""
        return self.expected_prize(Fraction(meter)) / self.bet - 1

    @property
    def break_even_meter(self) -> Fraction:
        """The meter at which the bet's expected return is exactly zero (one player)."""
        breaks = sorted({p.fixed / p.meter_share for p in self.prizes if p.meter_share > 0})
        lo = Fraction(0)
        for hi in [*breaks, None]:
            # Linear between breakpoints: solve on the segment [lo, hi].
            slope = sum(
                (
                    p.probability * p.meter_share
                    for p in self.prizes
                    if p.meter_share > 0 and (p.fixed == 0 or lo >= p.fixed / p.meter_share)
                ),
                Fraction(0),
            )
            at_lo = self.return_at(lo)
            if at_lo >= 0:
                return lo
            if slope > 0:
                root = lo - at_lo * self.bet / slope
                if hi is None or root <= hi:
                    return root
            if hi is None:
                break
            lo = hi
        raise AnalysisError("the progressive never breaks even: no prize grows with the meter")

    def sharing(
        self, players: int | None = None, meter: Fraction | None = None
    ) -> tuple[Sharing, ...]:
        """Exact distribution of other royals in the same round and the royal's shared prize."""
        n = self.players if players is None else players
        m = self.meter if meter is None else meter
        royal = next(p for p in self.prizes if p.category == "royal flush")
        # q[j]: chance that j given other players all hold royals (the 3 other suits).
        q = [Fraction(1)]
        for j in range(1, 4):
            q.append(q[-1] * (4 - j) / comb(47 - 5 * (j - 1), 5))
        out = []
        others = n - 1
        for k in range(min(others, 3) + 1):
            p = sum(
                (
                    (-1) ** (j - k) * comb(j, k) * comb(others, j) * q[j]
                    for j in range(k, min(others, 3) + 1)
                ),
                Fraction(0),
            )
            prize = max(royal.fixed, royal.meter_share * m / (k + 1))
            out.append(Sharing(n, k, p, prize))
        return tuple(out)

    def return_with_sharing(
        self, players: int | None = None, meter: Fraction | None = None
    ) -> Fraction:
        """The return per unit bet when royals in the same round share the meter."""
        m = self.meter if meter is None else meter
        royal = next(p for p in self.prizes if p.category == "royal flush")
        shared = sum((s.probability * s.prize for s in self.sharing(players, m)), Fraction(0))
        return self.return_at(m) + royal.probability * (shared - royal.prize(m)) / self.bet

    def long_run_json(self) -> dict[str, Any]:
        """The long-run return, or why it is not computed."""
        try:
            return self.long_run().as_json()
        except AnalysisError as exc:
            return {"players": self.players, "not_computed": str(exc)}

    def as_json(self) -> dict[str, Any]:
        return {
            "bet": fraction_json(self.bet),
            "meter": fraction_json(self.meter),
            "seed": fraction_json(self.seed),
            "contribution": fraction_json(self.contribution),
            "return_at_meter": fraction_json(self.return_at(self.meter)),
            "return_at_seed": fraction_json(self.return_at(self.seed)),
            "break_even_meter": fraction_json(self.break_even_meter),
            "prizes": [
                {
                    "category": p.category,
                    "article": p.article,
                    "count": p.count,
                    "probability": fraction_json(p.probability),
                    "fixed": fraction_json(p.fixed),
                    "meter_share": fraction_json(p.meter_share),
                    "prize_at_meter": fraction_json(p.prize(self.meter)),
                }
                for p in self.prizes
            ],
            "readings": {
                "payment_order": self.payment_order,
                "straight_flush_base": self.straight_flush_base,
                "meter_pays": sorted(self.meter_pays),
                "contribution_timing": self.contribution_timing,
                "prize_unit": fraction_json(self.prize_unit),
            },
            "long_run": self.long_run_json(),
            "sharing": {
                "players": self.players,
                "return_with_sharing": fraction_json(self.return_with_sharing()),
                "other_royals": [
                    {
                        "others": s.others,
                        "probability": fraction_json(s.probability),
                        "royal_prize": fraction_json(s.prize),
                    }
                    for s in self.sharing()
                ],
            },
        }


def meter_hands() -> tuple[list[int], list[int]]:
    """The 4 royal flushes and 36 other straight flushes as card bitmasks (card = 4 rank +
    suit, rank 0 = deuce .. 12 = ace)."""
    royals: list[int] = []
    straight_flushes: list[int] = []
    for suit in range(4):
        for top in range(3, 13):  # 5-high (A-2-3-4-5) .. A-high (the royal)
            ranks = [12, 0, 1, 2, 3] if top == 3 else list(range(top - 4, top + 1))
            mask = sum(1 << (4 * r + suit) for r in ranks)
            (royals if top == 12 else straight_flushes).append(mask)
    return royals, straight_flushes


def disjoint_counts(royals: list[int], straight_flushes: list[int]) -> dict[tuple[int, int], int]:
    """N(a, b): ordered ways to give a given seats royals and b given seats straight flushes,
    all disjoint (one deck).

    The unordered disjoint sets are counted per group of hands that share cards (on a full
    deck, one suit's ten straight flushes: hands of different suits never meet) by walking
    every disjoint subset of the group, and the groups' counts are multiplied out: a set of
    hands is disjoint exactly when its part in every group is (1,024 subsets a suit, where
    walking the whole deck's sets visited 390,625)."""
    groups: list[list[tuple[int, bool]]] = []
    for hand in [(m, True) for m in royals] + [(m, False) for m in straight_flushes]:
        meeting = [g for g in groups if any(hand[0] & mask for mask, _ in g)]
        groups = [g for g in groups if all(g is not m for m in meeting)]
        groups.append([hand] + [h for g in meeting for h in g])
    sets: dict[tuple[int, int], int] = {(0, 0): 1}
    for group in groups:
        local = _disjoint_subsets(group)
        product: dict[tuple[int, int], int] = {}
        for (a, b), n in sets.items():
            for (a2, b2), n2 in local.items():
                product[a + a2, b + b2] = product.get((a + a2, b + b2), 0) + n * n2
        sets = product
    return {(a, b): n * factorial(a) * factorial(b) for (a, b), n in sets.items()}


def _disjoint_subsets(group: list[tuple[int, bool]]) -> dict[tuple[int, int], int]:
    """How many disjoint subsets of ``group`` hold a royals and b other straight flushes."""
    counts: dict[tuple[int, int], int] = {}

    def walk(start: int, used: int, a: int, b: int) -> None:
        counts[a, b] = counts.get((a, b), 0) + 1
        for i in range(start, len(group)):
            mask, royal = group[i]
            if not mask & used:
                walk(i + 1, used | mask, a + royal, b + (not royal))

    walk(0, 0, 0, 0)
    return counts


def seat_law(
    players: int, counts: dict[tuple[int, int], int], deck: int, hand: int = 5
) -> dict[tuple[int, int], Fraction]:
    """Law of (royals, straight flushes) among ``players`` hands of ``hand`` cards dealt from
    one deck of ``deck`` cards, by inclusion-exclusion over the seats: P(a given seats hold
    royals and b given seats straight flushes) = N(a, b) / (C(deck, 5) C(deck - 5, 5) ...)."""
    n = players

    def deals(k: int) -> int:
        out = 1
        for i in range(k):
            out *= comb(deck - hand * i, hand)
        return out

    law = {}
    for a, b in sorted(counts):
        if a + b > n:
            continue
        total = Fraction(0)
        for (a2, b2), ways in counts.items():
            if a2 < a or b2 < b or a2 + b2 > n:
                continue
            seats = factorial(n) // (factorial(a2) * factorial(b2) * factorial(n - a2 - b2))
            sign = -1 if (a2 - a + b2 - b) % 2 else 1
            total += sign * comb(a2, a) * comb(b2, b) * seats * Fraction(ways, deals(a2 + b2))
        if total:
            law[a, b] = total
    return law


@cache
def round_law(players: int) -> dict[tuple[int, int], Fraction]:
    """Exact law of (royals, straight flushes) among ``players`` hands of one 52-card deck."""
    return seat_law(players, disjoint_counts(*meter_hands()), 52)


#: The numerical method's cycles (royal to royal) and generator seed: fixed, so that the same
#: rules give the same figure and bound.
CYCLES = 4000
CYCLE_SEED = 20260301


@cache
def long_run(prog: Progressive, players: int) -> LongRun:
    """The long-run return with ``players`` bets each round.

    Every round with a royal empties the meter (100% of it; the reading ``meter_pays`` takes
    the royal's prize from the meter), so the rounds with a royal cut time into independent
    cycles of 1/P(royal round) rounds on average. Over a cycle the meter pays out what flowed
    in: the seed once and the contributions. So the long-run prizes per bet are the fixed
    prizes the house pays, the contribution, the seed x P(royal round) / players, and what
    the meter's level adds: the house's part of prizes above what the meter holds (a fixed
    royal or straight-flush prize larger than its share) or of shares it pays itself
    (``meter_pays`` without the straight flush), and a seed for every other emptying. That
    last term is 0 (a closed form, exact) when no fixed royal or straight-flush prize is
    posted, straight flushes are paid from the meter and cannot take all of it; otherwise it
    is estimated by simulating CYCLES cycles of the meter (regenerative method: the cycles are
    independent, each drawn from the exact law of royals and straight flushes per round; the
    cycle's length and its square, of known means, as control variates), with a bound of 3
    standard errors. Fixed prizes of other categories paid from the meter, or a royal that
    does not empty the meter, are not computed (refused with the reason)."""
    if not 1 <= players <= 7:
        raise AnalysisError(f"players: {players} is not between 1 and 7 player seats")
    royal, flush = prog.prize_of(ROYAL), prog.prize_of(STRAIGHT_FLUSH)
    assert royal is not None
    assert flush is not None
    law = round_law(players)
    refused = [
        name
        for name, blocked in (
            (
                "fixed prizes paid from the meter",
                any(
                    p.fixed > 0 and p.category in prog.meter_pays
                    for p in prog.prizes
                    if p.category not in SHARE_KEYS
                ),
            ),
            (
                "a royal that does not empty the meter",
                royal.meter_share != 1 or ROYAL not in prog.meter_pays,
            ),
        )
        if blocked
    ]
    if refused:
        raise AnalysisError(
            "the long-run return is not computed with "
            + " and ".join(refused)
            + " (the meter's cycles are then not cut by the royals)"
        )
    most_flushes = max(b for _, b in law)
    meter_decides = (
        royal.fixed > 0
        or flush.fixed > 0
        or STRAIGHT_FLUSH not in prog.meter_pays
        or most_flushes * flush.meter_share >= 1
    )
    fixed = sum((p.probability * p.fixed for p in prog.prizes if p.meter_share == 0), Fraction(0))
    restart = 1 - sum((q for (a, _), q in law.items() if a == 0), Fraction(0))
    contribution = prog.contribution * prog.bet
    seed = prog.seed * restart / players
    extra, bound = Fraction(0), Fraction(0)
    if meter_decides:
        mean, spread = _cycles(prog, players, law)
        extra = mean * restart / players
        bound = 3 * spread * restart / players / prog.bet
        method = (
            f"renewal-reward, the meter's part simulated over {CYCLES:,} independent royal-to-"
            f"royal cycles (seed {CYCLE_SEED}, the cycle's length as control variate); bound: "
            "3 standard errors"
        )
    else:
        # Rounding: a royal emptying the meter leaves less than one prize unit per royal, not
        # carried over; per bet at most prize_unit x the royals per round / players.
        royals_per_bet = sum((a * q for (a, _), q in law.items()), Fraction(0)) / players
        bound = prog.prize_unit * royals_per_bet / prog.bet
        method = "closed form (renewal-reward: meter prizes = seed per cycle + contributions)"
    return LongRun(
        players=players,
        method=method,
        prizes_per_bet=fixed + contribution + seed + extra,
        fixed_per_bet=fixed,
        contribution_per_bet=contribution,
        seed_per_bet=seed,
        restart_probability=restart,
        error_bound=bound,
        bet=prog.bet,
        meter_level_per_bet=extra,
    )


def _draw(cumulative: Any, u: float) -> int:
    """The index an inverse-CDF draw of ``u`` picks (the last one for rounding slack)."""
    return min(int(cumulative.searchsorted(u, side="right")), len(cumulative) - 1)


def _cycles(
    prog: Progressive, players: int, law: dict[tuple[int, int], Fraction]
) -> tuple[Fraction, Fraction]:
    """Mean and standard error, over CYCLES simulated royal-to-royal cycles, of what a cycle
    pays beyond the meter's inflow: the house's part of each round's prizes (prize minus what
    the meter gave) plus a seed for each emptying without a royal. A cycle starts from the
    meter a royal round leaves; its rounds without a royal are 1/P(royal round) - 1 on
    average (geometric), each holding straight flushes with their exact law given no royal,
    at seats drawn at random; the cycle ends with a royal round drawn from its exact law."""
    import numpy as np

    rng = np.random.default_rng(CYCLE_SEED)
    none = {b: q for (a, b), q in law.items() if a == 0}
    p_royal = 1 - sum(none.values(), Fraction(0))
    p_flush = 1 - none[0] / (1 - p_royal)
    flush_counts = sorted(b for b in none if b)
    flush_law = np.cumsum([float(none[b] / (1 - p_royal - none[0])) for b in flush_counts])
    royal_rounds = sorted(k for k in law if k[0])
    royal_law = np.cumsum([float(law[k] / p_royal) for k in royal_rounds])
    step = prog.contribution * prog.bet * players
    bets = prog.bet * players
    after_contribution = step if prog.contribution_timing == CONTRIBUTION_TIMINGS[0] else 0

    def play(meter: Fraction, royals: int, flushes: int) -> tuple[Fraction, Fraction]:
        seats = (rng.permutation(players)[: royals + flushes] + 1).tolist()
        hands = [(s, ROYAL) for s in seats[:royals]] + [(s, STRAIGHT_FLUSH) for s in seats[royals:]]
        payment = prog.pay_round(meter, hands, bets)
        available = meter + (step - after_contribution)
        kept = 0 if payment.emptied else payment.meter_after - after_contribution
        house = sum((p.prize for p in payment.prizes), Fraction(0)) - (available - kept)
        if payment.emptied and not royals:
            house += prog.seed  # an emptying the renewal term does not count
        return payment.meter_after, house

    start, _ = play(prog.seed, 1, 0)  # the meter a royal round leaves (it empties it)
    totals: list[Fraction] = []
    lengths: list[int] = []
    for _ in range(CYCLES):
        meter, house = start, Fraction(0)
        quiet = int(rng.geometric(float(p_royal))) - 1
        flush_rounds = int(rng.binomial(quiet, float(p_flush)))
        at: list[int] = sorted(rng.choice(quiet, flush_rounds, replace=False).tolist())
        last = 0
        for r in at:
            meter += step * (int(r) - last)
            flushes = flush_counts[_draw(flush_law, rng.random())]
            meter, paid = play(meter, 0, flushes)
            house += paid
            last = int(r) + 1
        meter += step * (quiet - last)
        royals, flushes = royal_rounds[_draw(royal_law, rng.random())]
        _, paid = play(meter, royals, flushes)
        totals.append(house + paid)
        lengths.append(quiet + 1)
    # Control variates: a cycle's length R and R^2, geometric with exactly known means.
    h = np.array([float(x) for x in totals])
    length = np.array(lengths, dtype=float)
    known = np.array([float(1 / p_royal), float((2 - p_royal) / p_royal**2)])
    controls = np.column_stack([length, length * length]) - known
    centred = controls - controls.mean(axis=0)
    beta = np.linalg.lstsq(centred, h - h.mean(), rcond=None)[0]
    adjusted = h - controls @ beta
    return Fraction(float(adjusted.mean())), Fraction(
        float(adjusted.std(ddof=1)) / len(adjusted) ** 0.5
    )


def long_run_text(prog: Progressive) -> str:
    """One line for people: the long-run return with the rule file's players, or why not; a
    positive return (a player advantage) leads, flagged."""
    try:
        run = prog.long_run()
    except AnalysisError as exc:
        return f"not computed: {exc}"
    cycle = run.mean_cycle_rounds
    sign = "+" if run.return_per_bet > 0 else ""
    flag = (
        f"PLAYER ADVANTAGE: the prizes pay {decimal(run.prizes_per_bet / run.bet, 4)} per unit "
        "bet, so the house loses on this bet in the long run; "
        if run.player_advantage
        else ""
    )
    return (
        f"{flag}long-run return {sign}{decimal(100 * run.return_per_bet, 4)}% per bet with "
        f"{run.players} players betting every round (seed {grouped(prog.seed)}, contribution "
        f"{grouped(prog.contribution)}"
        + (f", a cycle of {grouped(cycle, 1)} rounds on average" if cycle else ", never emptied")
        + f"; {run.method}, error below {decimal(100 * run.error_bound, 8)}%)"
    )


def grouped(value: Fraction, places: int = 2) -> str:
    """A figure for people with thousands separators: whole numbers as they are (50,000),
    others rounded to ``places`` (92,820.5)."""
    if value.denominator == 1:
        return f"{value.numerator:,}"
    whole, _, frac = decimal(abs(value), places).partition(".")
    return f"{'-' if value < 0 else ''}{int(whole):,}.{frac}"


def prize_rows(prog: Progressive) -> list[tuple[str, ...]]:
    """The progressive's pay table for people: category, article, hands, probability, fixed
    prize, meter share, and the prize at the rule file's meter."""
    return [
        (
            p.category,
            p.article,
            f"{p.count:,}",
            decimal(p.probability, 9),
            grouped(p.fixed),
            f"{decimal(100 * p.meter_share, 2)}%" if p.meter_share else "-",
            grouped(p.prize(prog.meter)),
        )
        for p in prog.prizes
    ]


PRIZE_HEADER = (
    "category",
    "article",
    "hands",
    "probability",
    "fixed prize",
    "meter share",
    "prize at the meter",
)


@cache
def _category_counts(names: tuple[str, ...], spec: TieBreakSpec) -> tuple[int, ...]:
    """Five-card hands per category of a ranking (``names`` highest first), highest first:
    the core enumerates all 2,598,960 of them, once per process and ranking rather than in
    every analysis. The usual poker ranking (the engine's categories in their usual order,
    royal flush apart) is the core's own evaluator's: counted by it, 15 ms of CPU instead of
    the 50 ms of building a stud ranking and enumerating through it (the same counts:
    tests/games/test_progressive_par_sheet.py)."""
    if names == VOCABULARY.get(PROGRESSIVE_HAND) and PROGRESSIVE_HAND == 5:
        return tuple(reversed(_core.category_counts(5, _core.TieBreaks(*spec))))
    order = _core.StudRanking(PROGRESSIVE_HAND, list(names), _core.TieBreaks(*spec))
    counts = _core.stud_category_counts(order, list(range(52)), PROGRESSIVE_HAND)
    return tuple(sum(row) for row in reversed(counts))


def progressive_of(
    terms: ProgressiveTerms, ranking: Ranking, tie_breaks: _core.TieBreaks | None = None
) -> Progressive:
    """The progressive's par sheet from its terms, its paying hands counted under the game's
    ranking (``tie_breaks``: an ordering's own instead of the ranking's; a category holds the
    same hands under any)."""
    order = _core.TieBreaks(**ranking.tie_breaks) if tie_breaks is None else tie_breaks
    counts = dict(
        zip(ranking.names, _category_counts(ranking.names, tie_break_spec(order)), strict=True)
    )
    shares = {
        "royal-flush": terms.royal_meter_share.value,
        "straight-flush": terms.straight_flush_meter_share.value,
    }
    return Progressive(
        bet=terms.bet.value,
        meter=terms.meter.value,
        seed=terms.seed.value,
        contribution=terms.contribution.value,
        players=terms.players.value,
        prizes=tuple(
            ProgressivePrize(
                _label(name),
                prize.article,
                counts[name],
                prize.value,
                shares.get(name, Fraction(0)),
            )
            for name, prize in terms.fixed
        ),
        payment_order=terms.payment_order.value,
        straight_flush_base=terms.straight_flush_base.value,
        meter_pays=frozenset(_label(name) for name in terms.meter_pays.value),
        contribution_timing=terms.contribution_timing.value,
        prize_unit=terms.prize_unit.value,
        articles=terms.articles,
        round_articles=round_articles(terms),
    )


def round_articles(terms: ProgressiveTerms) -> tuple[str, str, str]:
    """The articles of a round with several winners (royals sharing, straight flushes each
    taking their share, straight flushes first): the statute's clauses of Art. 10 where the
    file's progressive is the statute's article; otherwise the file's own articles of what
    decides each point (the royal's meter share, the straight flushes' base, the payment
    order), so that a finding never cites a statute clause the file does not have."""
    if _POINTS.sub("", terms.bet.article).strip() == STATUTE_ARTICLE:
        return ROYALS_SHARE, STRAIGHT_FLUSHES_EACH, STRAIGHT_FLUSH_FIRST
    return (
        terms.royal_meter_share.article,
        terms.straight_flush_base.article,
        terms.payment_order.article,
    )


def _label(slug: str) -> str:
    """A category as the progressive's sheet names it: ``royal flush`` of ``royal-flush``."""
    return slug.replace("-", " ")


def progressive(rules: RuleFile, tie_breaks: _core.TieBreaks) -> Progressive:
    """Read the progressive's rule values and count its paying hands under an ordering's
    ``tie_breaks`` (the statutes' engines)."""
    ranking, terms = progressive_terms(rules)
    return progressive_of(terms, ranking, tie_breaks)


__all__ = [
    "PRIZE_HEADER",
    "LongRun",
    "Progressive",
    "ProgressivePrize",
    "RoundPayment",
    "SeatPrize",
    "Sharing",
    "disjoint_counts",
    "grouped",
    "long_run",
    "long_run_text",
    "meter_hands",
    "prize_rows",
    "progressive",
    "progressive_of",
    "round_articles",
    "round_law",
    "seat_law",
]
