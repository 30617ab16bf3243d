"""Caribbean Stud's progressive side bet (Art. 10): exact return as a function of the meter.

Prizes depend only on the player's own five cards. The royal takes the larger of its fixed
prize and its share of the meter, the straight flush likewise; four of a kind, full house and
flush pay fixed prizes. The bet is collected in every case (prizes are "for one").
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from tablecert import _core
from tablecert.games.common import AnalysisError, fraction_json, rational
from tablecert.rules import RuleFile

HANDS = comb(52, 5)
PAYING = ("royal flush", "straight flush", "four of a kind", "full house", "flush")


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
class Progressive:
    """The progressive bet's par sheet under one rule file."""

    bet: Fraction
    meter: Fraction
    seed: Fraction
    contribution: Fraction
    players: int
    prizes: tuple[ProgressivePrize, ...]

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


def progressive(rules: RuleFile, tie_breaks: _core.TieBreaks) -> Progressive:
    """Read the progressive's rule values and count its paying hands."""
    counts = _core.category_counts(5, tie_breaks)
    names = _core.category_names(5)
    shares = {
        "royal flush": rational(rules, "progressive.royal_meter_share"),
        "straight flush": rational(rules, "progressive.straight_flush_meter_share"),
    }
    prizes = []
    for name in PAYING:
        dotted = f"progressive.fixed.{name.replace(' ', '-')}"
        prizes.append(
            ProgressivePrize(
                name,
                rules.require(dotted).article,
                counts[names.index(name)],
                rational(rules, dotted),
                shares.get(name, Fraction(0)),
            )
        )
    bet = rational(rules, "progressive.bet")
    if bet <= 0:
        raise rules.error("progressive.bet", "the bet must be positive")
    players = rules.value_of("progressive.players", int)
    if not 1 <= players <= 7:
        raise rules.error("progressive.players", "between 1 and 7 player seats")
    return Progressive(
        bet=bet,
        meter=rational(rules, "progressive.meter"),
        seed=rational(rules, "progressive.seed"),
        contribution=rational(rules, "progressive.contribution"),
        players=players,
        prizes=tuple(prizes),
    )


__all__ = ["Progressive", "ProgressivePrize", "Sharing", "progressive"]
