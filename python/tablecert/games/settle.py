"""What the statute (or a submitted configuration) pays on each spot of a round.

One source for every settlement: ``per_unit`` gives a spot's net result per unit staked on
it, with the article that decides it, for each outcome of the round; the evaluator crosscheck
(``conformance.poker_crosscheck.expected_settlement``) and the round audit both read it.
``SettlementTable`` lays the same values out as integer arrays (numerator over a common
denominator, indexed by outcome and the player's category) for a chunk of rounds at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from tablecert.games.common import common_denominator, qualifier_ranks, rational
from tablecert.games.progressive import Progressive, progressive
from tablecert.poker import Ordering

#: Outcomes of the bet against the dealer, by code.
OUTCOMES = ("fold", "dealer does not qualify", "win", "loss", "tie")
FOLD, NOT_QUALIFYING, WIN, LOSS, TIE = range(len(OUTCOMES))
CATEGORY_SHIFT = 22
RANK_SHIFTS = (18, 14, 10, 6, 2)


def _slug(category: str) -> str:
    return category.replace(" ", "-")


def per_unit(order: Ordering, spot: str, outcome: str, category: str) -> tuple[Fraction, str]:
    """A spot's net result per unit staked on it (Caribbean Stud's raise: per unit of the
    raise), and the rule key whose article decides it. ``outcome`` is one of OUTCOMES (the
    side bets ignore it); ``category`` the player's."""
    rules = order.rules
    slug = _slug(category)
    if spot == "pair_plus":
        key = f"pair_plus.{slug}"
        return rational(rules, key), key
    q_poker = order.game == "q-poker"
    if spot not in (("play",) if q_poker else ("ante", "raise")):
        raise ValueError(f"{spot!r} is not a spot of {order.game} settled against the dealer")
    if q_poker:
        key = {
            "win": f"play.win.{slug}",
            "tie": "play.tie",
            "fold": "play.fold",
            "dealer does not qualify": "play.dealer_not_qualifying",
            "loss": "play.loss",
        }[outcome]
        if outcome == "fold":
            return rational(rules, key), key
        # The play bonus is paid whenever the player follows, whatever the dealer holds
        # (the game analysis values a follow the same way).
        return rational(rules, key) + rational(rules, f"play.bonus.{slug}"), key
    if outcome == "win":
        key = "play.ante_win" if spot == "ante" else f"play.raise_pays.{slug}"
        return rational(rules, key), key
    if outcome == "tie":
        return (
            (rational(rules, "play.tie"), "play.tie")
            if spot != "raise"
            else (
                Fraction(0),
                "play.tie",
            )
        )
    ante_key, raise_key = {
        "fold": ("play.fold", "play.fold"),
        "dealer does not qualify": ("play.not_qualifying_ante", "play.not_qualifying_raise"),
        "loss": ("play.loss", "play.loss"),  # Art. 9(4): the dealer takes ante and raise
    }[outcome]
    if spot == "ante":
        return rational(rules, ante_key), ante_key
    if outcome == "fold":  # nothing was raised
        return Fraction(0), raise_key
    return rational(rules, raise_key), raise_key


def dealer_threshold(order: Ordering) -> int:
    """The smallest strength key with which the dealer qualifies: a key qualifies iff it is at
    least this (a pair or better, or high cards at least the qualifier's ranks)."""
    qualifier = qualifier_ranks(order.rules, "play.dealer_qualifier")
    return sum(r << s for r, s in zip(qualifier, RANK_SHIFTS, strict=False))


@dataclass(frozen=True)
class SpotTable:
    """One spot's per-unit net values as numerators over ``denominator``, [outcome, category],
    and the deciding rule key of each."""

    spot: str
    numerators: npt.NDArray[np.int64]
    denominator: int
    keys: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class SettlementTable:
    """Every spot of a game settled under one rule file, as arrays."""

    order: Ordering
    spots: dict[str, SpotTable]
    threshold: int
    raise_multiple: Fraction
    #: Caribbean Stud: the per-round maximum on the raise's payout (currency units, 0 = none)
    #: and the categories it caps.
    maximum_payout: Fraction
    capped: npt.NDArray[np.bool_]
    #: Caribbean Stud's progressive: the bet, each category's fixed prize and meter share.
    progressive_bet: Fraction
    fixed_prize: tuple[Fraction, ...]
    meter_share: tuple[Fraction, ...]
    progressive: Progressive | None = None

    def article(self, key: str) -> str:
        return str(self.order.rules.require(key).article)


def settlement_table(order: Ordering) -> SettlementTable:
    cats = order.categories
    rules = order.rules
    spot_names = ("pair_plus", "play") if order.game == "q-poker" else ("ante", "raise")
    spots = {}
    for spot in spot_names:
        values = [[per_unit(order, spot, o, c) for c in cats] for o in OUTCOMES]
        den = common_denominator([v for row in values for v, _ in row])
        nums = np.array([[int(v * den) for v, _ in row] for row in values], dtype=np.int64)
        spots[spot] = SpotTable(spot, nums, den, tuple(tuple(k for _, k in row) for row in values))
    if order.game == "q-poker":
        return SettlementTable(
            order,
            spots,
            dealer_threshold(order),
            Fraction(0),
            Fraction(0),
            np.zeros(len(cats), dtype=bool),
            Fraction(0),
            (),
            (),
        )
    capped_names = rules.value_of("play.cap.categories", list)
    prog = progressive(rules, order.tie_breaks)
    by_name = {p.category: p for p in prog.prizes}
    return SettlementTable(
        order,
        spots,
        dealer_threshold(order),
        rational(rules, "play.raise_multiple"),
        rational(rules, "play.cap.maximum_payout"),
        np.array([_slug(c) in capped_names for c in cats], dtype=bool),
        prog.bet,
        tuple(by_name[c].fixed if c in by_name else Fraction(0) for c in cats),
        tuple(by_name[c].meter_share if c in by_name else Fraction(0) for c in cats),
        prog,
    )
