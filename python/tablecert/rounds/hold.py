"""Observed hold against exact expectation, and the dealt-hand frequencies of a round log.

**Conditioning.** In each dealt, non-void round the log shows every seat's hand and (Caribbean
Stud) the dealer's upcard. Given those cards, the dealer's hidden cards (Caribbean Stud: 4 of
the 52 - 5 x seats - 1 cards left; Q Poker: 3 of the 52 - 3 x seats left) are a uniformly
random subset of the cards nobody at the table holds, under a fair deal. The analysis
conditions on exactly that: every card dealt to the table, the upcard, and each seat's
decision as logged. This is the finest conditioning the log allows (the other seats' cards
are known to the auditor though not to the player), and the only one under which the seats
of one round, who all face the same dealer hand, have an exactly computable joint law: the
round's whole result is a function of the dealer's key, so the core counts, for the
qualifier's key and every seat's key, the completions below and equal to it
(``KeyTable.dealer_splits``: every completion enumerated, at most C(46, 4) = 163,185 per
round) and the round's exact distribution follows. Rounds are independent (one deck each),
so the expected hold and its variance are exact sums (rationals) over rounds.

**Decisions.** The optimal decision is the one of the core's situation values, i.e. with the
player's information only (own cards and upcard, the dealer's cards drawn from the other 46 /
49): Caribbean Stud's raise/fold table per hand x upcard, Q Poker's follow/fold per hand. The
hold under optimal play is the same computation with those decisions (same cards); the
difference is the hold that came from the players' decisions (its expectation over the other
seats' cards is the situation values' difference).

**Test.** The observed hold minus its expectation given the decisions, over its exact standard
deviation, is a sum of independent bounded rounds: its two-sided p-value is the normal one
(Lyapunov's CLT), and the Berry-Esseen bound (constant 0.56, Shevtsova 2010) on that
approximation's error is reported beside it; the calibration on simulated clean logs is a test.
The hold under optimal play is compared the same way, descriptively (decisions may lawfully be
poor). The side bet against the player's own cards (多寶 / pair plus) is settled by the cards,
so its expectation given them is its due amount (variance 0). The progressive bet is left out
(its meter is audited on its own).

**Dealt hands.** Each seat number's hands and the dealer's hands, by category, against the
exact category law of a random hand (the shuffler audit's dealt test, Bonferroni across
hands), with the power to detect a deviation of a stated Cohen's w.

**Verdict** (one family, Holm at ``alpha``): FAIL if the hold given the decisions or the dealt
frequencies are rejected; else PASS only if both had the stated power; else INCONCLUSIVE.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb, lcm, sqrt
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert.errors import AuditError
from tablecert.exact import measured
from tablecert.games.common import decimal, fraction_json
from tablecert.games.settle import (
    CATEGORY_SHIFT,
    FOLD,
    LOSS,
    NOT_QUALIFYING,
    TIE,
    WIN,
    SettlementTable,
    settlement_table,
)
from tablecert.hand_arrays import key_table
from tablecert.judgement import Judged, Outcome
from tablecert.poker import Ordering
from tablecert.rounds.log import SCALE, SPOTS, RoundChunk
from tablecert.stats import DEFAULT_ALPHA, CheckResult, DealtLaw, dealt_outcomes, holm, pool

NO_CARD = 255
#: Outcomes against the dealer, in the order of the value arrays' last axis.
AGAINST = (NOT_QUALIFYING, WIN, TIE, LOSS)
DEFAULT_POWER = 0.8
DEFAULT_SHIFT = Fraction(1, 100)  # a hold off by 1% of the amount wagered
DEFAULT_EFFECT = 0.05  # Cohen's w of a dealt hand's category law
BERRY_ESSEEN_C = 0.56  # Shevtsova (2010): independent, non-identically distributed summands
_SAFE = 2**62
_Int = npt.NDArray[np.int64]


@dataclass(frozen=True)
class HoldParameters:
    """What the hold analysis must be able to detect, and at which family-wise level."""

    alpha: float = DEFAULT_ALPHA
    power: float = DEFAULT_POWER
    shift: Fraction = DEFAULT_SHIFT
    effect: float = DEFAULT_EFFECT

    def __post_init__(self) -> None:
        for name, value in (("alpha", self.alpha), ("power", self.power)):
            if not 0 < value < 1:
                raise AuditError(f"hold {name} {value}: must be strictly between 0 and 1")
        if not 0 < self.shift < 1:
            raise AuditError(f"hold shift {self.shift}: must be strictly between 0 and 1")
        if not 0 < self.effect < 1:
            raise AuditError(f"dealt effect {self.effect}: must be strictly between 0 and 1")


@dataclass
class _Sums:
    """Exact sums of one decision rule over rounds grouped by their completion count N:
    expected net per spot (sum of counts x values) and the centred second moment
    (N x sum cnt T^2 - (sum cnt T)^2), in 1/(unit) currency; Lyapunov's third moments."""

    expected: dict[str, dict[int, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    m2: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    rho: float = 0.0

    def mean(self, spot: str) -> Fraction:
        return sum((Fraction(v, n) for n, v in self.expected[spot].items()), Fraction(0))

    def variance(self) -> Fraction:
        return sum((Fraction(v, n * n) for n, v in self.m2.items()), Fraction(0))


@dataclass(frozen=True)
class HoldTest:
    """The observed hold against its exact expectation under one decision rule."""

    rule: str  # "decisions as logged" or "optimal decisions"
    expected: Fraction
    variance: Fraction
    observed: Fraction
    z: float | None
    p_value: float | None
    berry_esseen: float | None
    power: float | None

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "expected_hold": fraction_json(self.expected),
            "variance": fraction_json(self.variance),
            "standard_deviation": measured(sqrt(self.variance)),
            "observed_hold": fraction_json(self.observed),
            "z": measured(self.z),
            "p_value": measured(self.p_value),
            "p_value_method": "normal (Lyapunov CLT over independent rounds)",
            "berry_esseen_bound": measured(self.berry_esseen),
            "power": measured(self.power),
        }


@dataclass(frozen=True)
class SpotHold:
    spot: str
    wagered: Fraction
    observed_net: Fraction
    expected_net: Fraction
    optimal_net: Fraction

    def as_json(self) -> dict[str, Any]:
        return {
            "spot": self.spot,
            "wagered": fraction_json(self.wagered),
            "observed_net_to_players": fraction_json(self.observed_net),
            "expected_net_given_decisions": fraction_json(self.expected_net),
            "expected_net_optimal_play": fraction_json(self.optimal_net),
        }


@dataclass(frozen=True)
class DealtHands:
    counts: dict[str, list[int]]
    categories: tuple[str, ...]
    check: CheckResult
    power: dict[str, float | None]
    effect: float
    target: float

    @property
    def conclusive(self) -> bool:
        """The dealer's hands and at least one seat's were tested with the stated power."""
        ok = [h for h, p in self.power.items() if p is not None and p >= self.target]
        return "dealer" in ok and any(h != "dealer" for h in ok)

    def as_json(self) -> dict[str, Any]:
        return {
            **self.check.as_json(),
            "categories": list(self.categories),
            "counts": self.counts,
            "power": {h: measured(p) for h, p in self.power.items()},
            "effect_cohens_w": measured(self.effect),
        }


@dataclass(frozen=True)
class HoldResult(Judged):
    game: str
    rounds: int
    seats: int
    rounds_skipped: int
    seats_skipped: int
    spots: tuple[SpotHold, ...]
    given_decisions: HoldTest
    optimal: HoldTest
    decisions_off_optimal: int
    dealt: DealtHands
    parameters: HoldParameters
    rejected: tuple[str, ...]

    @property
    def decision_hold(self) -> Fraction:
        """Expected hold that came from the players' decisions (optimal play would have held
        this much less)."""
        return self.given_decisions.expected - self.optimal.expected

    @property
    def outcome(self) -> Outcome:
        """Fail on any rejection; pass only with the required power and enough dealt hands
        for the category law; else inconclusive."""
        power = self.given_decisions.power
        powered = power is not None and power >= self.parameters.power and self.dealt.conclusive
        return Outcome.of(bool(self.rejected), judged=powered)

    @property
    def reasons(self) -> list[str]:
        out = []
        if "hold" in self.rejected:
            out.append("the hold differs from its expectation given the decisions")
        if "dealt" in self.rejected:
            out.append("dealt hand categories differ from the exact law")
        p = self.given_decisions.power
        if not self.rejected and (p is None or p < self.parameters.power):
            out.append(
                f"too few rounds to detect a hold off by {decimal(self.parameters.shift * 100, 2)}%"
                f" of the amount wagered with power {self.parameters.power}"
            )
        if not self.rejected and not self.dealt.conclusive:
            out.append(
                "too few hands to detect a dealt-category deviation of "
                f"w = {self.parameters.effect} with power {self.parameters.power}"
                " (dealer and at least one seat)"
            )
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reasons": self.reasons,
            "conditioning": (
                "every card dealt to the table and the upcard; the dealer's hidden cards "
                "uniform over the rest of the deck; decisions as logged"
            ),
            "rounds": self.rounds,
            "seats": self.seats,
            "rounds_not_analysed": self.rounds_skipped,
            "seats_not_analysed": self.seats_skipped,
            "spots": [s.as_json() for s in self.spots],
            "given_decisions": self.given_decisions.as_json(),
            "optimal_play": self.optimal.as_json(),
            "hold_from_decisions": fraction_json(self.decision_hold),
            "decisions_off_optimal": self.decisions_off_optimal,
            "dealt": self.dealt.as_json(),
            "alpha": measured(self.parameters.alpha),
            "power_target": measured(self.parameters.power),
            "detectable_shift": fraction_json(self.parameters.shift),
            "dealt_effect": measured(self.parameters.effect),
            "rejected": list(self.rejected),
        }


_Decider = Callable[[_Int, _Int], npt.NDArray[np.bool_]]
_DECIDERS: dict[tuple[str, str], _Decider] = {}


def _decider(order: Ordering) -> _Decider:
    """The optimal decision of every situation (the core's situation values), built once per
    rule file and process."""
    from tablecert.rounds.simulate import optimal_decider

    key = (order.game, order.rules.sha256)
    if key not in _DECIDERS:
        _DECIDERS[key] = optimal_decider(order)
    return _DECIDERS[key]


@dataclass(frozen=True)
class HoldState:
    """A HoldAnalysis's sums as plain values (what a shard returns): for each decision rule
    (as logged, optimal) the expected nets by spot and completion count, the second moments
    and the third-moment sum; the amounts, counts and dealt categories."""

    sums: tuple[tuple[dict[str, dict[int, int]], dict[int, int], float], ...]
    wagered: dict[str, int]
    observed: dict[str, int]
    counts: tuple[int, int, int, int, int]
    dealt: dict[str, _Int]


class HoldAnalysis:
    """Streams RoundChunks (with the audit's per-round and per-seat judgement masks) into
    exact sums; ``result()`` judges them."""

    def __init__(self, order: Ordering, parameters: HoldParameters | None = None) -> None:
        self.order = order
        self.parameters = parameters or HoldParameters()
        self.table: SettlementTable = settlement_table(order)
        self.game = order.game
        self.size = order.hand_size
        self.caribbean = order.game == "caribbean-stud"
        self.spots = tuple(s for s in SPOTS[order.game] if s != "progressive")
        self.kt = key_table(order.game, order.rules)
        self.decide = _decider(order)
        t = self.table
        self.rm = t.raise_multiple if self.caribbean else Fraction(1)
        # one unit for every value: 1/(den * SCALE) currency, den = the spots' common
        # denominator times the raise multiple's (bets are scaled by the latter)
        self.spot_den = lcm(*(t.spots[s].denominator for s in self.spots))
        self.den = self.spot_den * self.rm.denominator
        self.cap_units = int(t.maximum_payout * SCALE * self.den)
        self.hidden = self.size - (1 if self.caribbean else 0)
        self.given = _Sums()
        self.optimal_sums = _Sums()
        self.wagered: dict[str, int] = defaultdict(int)
        self.observed: dict[str, int] = defaultdict(int)
        self.rounds = 0
        self.seats = 0
        self.rounds_skipped = 0
        self.seats_skipped = 0
        self.off_optimal = 0
        cats = len(order.categories)
        self.dealt_counts: dict[str, _Int] = defaultdict(lambda: np.zeros(cats, dtype=np.int64))

    def state(self) -> HoldState:
        """The sums so far, to be added into another analysis by ``absorb``."""
        return HoldState(
            tuple(
                ({k: dict(v) for k, v in s.expected.items()}, dict(s.m2), s.rho)
                for s in (self.given, self.optimal_sums)
            ),
            dict(self.wagered),
            dict(self.observed),
            (self.rounds, self.seats, self.rounds_skipped, self.seats_skipped, self.off_optimal),
            {k: v.copy() for k, v in self.dealt_counts.items()},
        )

    def absorb(self, state: HoldState) -> None:
        """Add another file's sums (under the same rules) after this analysis's own."""
        for mine, (expected, m2, rho) in zip(
            (self.given, self.optimal_sums), state.sums, strict=True
        ):
            for spot, by_n in expected.items():
                for n, v in by_n.items():
                    mine.expected[spot][n] += v
            for n, v in m2.items():
                mine.m2[n] += v
            mine.rho += rho
        for spot, v in state.wagered.items():
            self.wagered[spot] += v
        for spot, v in state.observed.items():
            self.observed[spot] += v
        rounds, seats, rounds_skipped, seats_skipped, off_optimal = state.counts
        self.rounds += rounds
        self.seats += seats
        self.rounds_skipped += rounds_skipped
        self.seats_skipped += seats_skipped
        self.off_optimal += off_optimal
        for name, counts in state.dealt.items():
            self.dealt_counts[name] += counts

    # --- values --------------------------------------------------------------------------

    def values(self, bets: _Int, decision: _Int, category: _Int) -> npt.NDArray[Any]:
        """Each seat's net result per spot and per outcome against the dealer, in units of
        1/(den * SCALE): shape (seats, spots, 4), outcomes in AGAINST order (a fold, or no bet
        against the dealer, has the same value whatever the dealer holds)."""
        t = self.table
        n = len(bets)
        out = np.zeros((n, len(self.spots), len(AGAINST)), dtype=object)
        for i, spot in enumerate(self.spots):
            st = t.spots[spot]
            scale = self.spot_den // st.denominator
            bet = bets[:, SPOTS[self.game].index(spot)].astype(object)
            for j, outcome in enumerate(AGAINST):
                row = np.where(decision == 2, FOLD, outcome) if spot != "pair_plus" else 0
                num = st.numerators[row, category].astype(object)
                value = bet * num * scale
                if spot == "raise" and outcome == WIN and self.cap_units:
                    capped = t.capped[category] & (decision == 1)
                    value = np.where(capped, np.minimum(value, self.cap_units), value)
                out[:, i, j] = value
        return out

    def optimal_bets(self, bets: _Int, follow: npt.NDArray[np.bool_]) -> tuple[_Int, _Int]:
        """Bets and decision codes had every seat that bet against the dealer decided
        optimally (the raise is raise_multiple antes; values carry the multiple's
        denominator, so the raise is kept in units of 1/(rm.den * SCALE))."""
        spots = SPOTS[self.game]
        stake = bets[:, spots.index("ante" if self.caribbean else "play")]
        decision = np.where(stake > 0, np.where(follow, 1, 2), 0).astype(np.int64)
        out = bets.copy()
        if self.caribbean:
            rm = self.rm
            out[:, spots.index("raise")] = np.where(decision == 1, stake * rm.numerator, 0)
            out[:, spots.index("ante")] = stake * rm.denominator
            if "progressive" in spots:
                out[:, spots.index("progressive")] = 0
        return out, decision

    # --- streaming -----------------------------------------------------------------------

    def add(
        self,
        chunk: RoundChunk,
        dealt_round: npt.NDArray[np.bool_],
        judged_seat: npt.NDArray[np.bool_],
    ) -> None:
        """One chunk: ``dealt_round`` marks the rounds dealt as one deck and not void,
        ``judged_seat`` the seats whose bets matched their decision (the audit's masks)."""
        arrays = chunk.arrays
        seat_round = np.asarray(arrays.seat_round, dtype=np.int64)
        dealt_round = np.asarray(dealt_round, dtype=bool)
        judged = np.asarray(judged_seat, dtype=bool) & dealt_round[seat_round]
        rounds = len(chunk)
        dealer = np.asarray(arrays.dealer, dtype=np.int64)
        players = np.asarray(arrays.seat_cards, dtype=np.int64)
        spots = SPOTS[self.game]
        bets = np.asarray(arrays.bets, dtype=np.int64).reshape(-1, len(spots))
        paid = np.asarray(arrays.paid, dtype=np.int64).reshape(-1, len(spots))
        decision = np.asarray(arrays.decision, dtype=np.int64)
        upcard = np.asarray(arrays.upcard, dtype=np.int64)
        placeholder = np.arange(self.size, dtype=np.int64)

        dk = self._keys(np.where(dealt_round[:, None], dealer, placeholder))
        pk = self._keys(np.where(dealt_round[seat_round][:, None], players, placeholder))
        self._dealt(np.asarray(arrays.seat_number), dealt_round, seat_round, dk, pk)

        analysed = dealt_round & (np.bincount(seat_round[judged], minlength=rounds) > 0)
        self.rounds_skipped += int((~analysed).sum())
        self.seats_skipped += int((~judged).sum())
        self.rounds += int(analysed.sum())
        self.seats += int(judged.sum())
        for spot in self.spots:
            col = spots.index(spot)
            self.wagered[spot] += int(bets[judged, col].sum())
            self.observed[spot] += int(paid[judged, col].sum())
        if not analysed.any():
            return

        # every card dealt to the table in the analysed rounds
        dealt_mask = np.zeros(rounds, dtype=np.uint64)
        bits = np.where(
            players >= 0, np.left_shift(np.uint64(1), np.maximum(players, 0).astype(np.uint64)), 0
        ).astype(np.uint64)
        np.bitwise_or.at(dealt_mask, seat_round, np.bitwise_or.reduce(bits, axis=1))
        fixed = np.full(rounds, NO_CARD, dtype=np.uint8)
        if self.caribbean:
            fixed = np.where(analysed, upcard, NO_CARD).astype(np.uint8)
            dealt_mask |= np.where(
                analysed, np.left_shift(np.uint64(1), np.maximum(upcard, 0).astype(np.uint64)), 0
            ).astype(np.uint64)
        left = 52 - np.bitwise_count(dealt_mask).astype(np.int64)
        completions = np.array([comb(int(x), self.hidden) for x in left.tolist()], dtype=np.int64)

        hands = players[judged]
        ups = upcard[seat_round[judged]]
        follow = self.decide(hands, np.maximum(ups, 0))
        actual = decision[judged]
        opt_bets, opt_decision = self.optimal_bets(bets[judged], follow)
        self.off_optimal += int(((actual != 0) & (actual != opt_decision)).sum())
        category = (pk[judged] >> CATEGORY_SHIFT).astype(np.int64)
        act_bets = bets[judged]
        if self.caribbean:  # the raise multiple's denominator is carried by every value
            act_bets = act_bets * self.rm.denominator
        v_given = self.values(act_bets, actual, category)
        v_opt = self.values(opt_bets, opt_decision, category)

        # thresholds: the qualifier, then each judged seat's key, round by round
        sr = seat_round[judged]
        per_round = np.bincount(sr, minlength=rounds)
        rows = np.flatnonzero(analysed)
        m = per_round[rows] + 1
        offsets = np.zeros(len(rows) + 1, dtype=np.uint64)
        offsets[1:] = np.cumsum(m)
        seat_keys = pk[judged].astype(np.int64)
        order = np.argsort(sr, kind="stable")
        thresholds = np.empty(int(offsets[-1]), dtype=np.uint32)
        starts = offsets[:-1].astype(np.int64)
        thresholds[starts] = self.table.threshold
        pos_in_round = np.arange(len(sr)) - np.searchsorted(sr[order], sr[order])
        rank_of_row = np.searchsorted(rows, sr[order])
        thresholds[starts[rank_of_row] + 1 + pos_in_round] = seat_keys[order]
        below = np.zeros(len(thresholds), dtype=np.uint64)
        equal = np.zeros(len(thresholds), dtype=np.uint64)
        self.kt.dealer_splits(
            np.ascontiguousarray(fixed[rows]),
            np.ascontiguousarray(dealt_mask[rows]),
            offsets,
            thresholds,
            below,
            equal,
        )
        seat_slot = np.empty(len(sr), dtype=np.int64)  # index of each judged seat's row
        seat_slot[order] = np.arange(len(sr))
        for size in np.unique(m).tolist():
            group = np.flatnonzero(m == size)  # indices into rows
            self._group(
                group,
                int(size),
                starts,
                thresholds,
                below,
                equal,
                completions[rows],
                order,
                rank_of_row,
                v_given,
                v_opt,
            )

    def _keys(self, hands: _Int) -> _Int:
        out = np.empty(len(hands), dtype=np.uint32)
        self.kt.keys_into(np.ascontiguousarray(hands, dtype=np.uint8), out)
        return out.astype(np.int64)

    def _dealt(
        self,
        seat_number: _Int,
        dealt_round: npt.NDArray[np.bool_],
        seat_round: _Int,
        dk: _Int,
        pk: _Int,
    ) -> None:
        cats = len(self.order.categories)
        self.dealt_counts["dealer"] += np.bincount(
            dk[dealt_round] >> CATEGORY_SHIFT, minlength=cats
        )[:cats]
        seat_ok = dealt_round[seat_round]
        numbers = seat_number.astype(np.int64)[seat_ok]
        seat_cat = pk[seat_ok] >> CATEGORY_SHIFT
        for n in np.unique(numbers).tolist():
            self.dealt_counts[f"seat {n}"] += np.bincount(seat_cat[numbers == n], minlength=cats)[
                :cats
            ]

    def _group(
        self,
        group: _Int,
        m: int,
        starts: _Int,
        thresholds: npt.NDArray[np.uint32],
        below: npt.NDArray[np.uint64],
        equal: npt.NDArray[np.uint64],
        completions: _Int,
        order: _Int,
        rank_of_row: _Int,
        v_given: npt.NDArray[Any],
        v_opt: npt.NDArray[Any],
    ) -> None:
        """Rounds with ``m - 1`` judged seats: their exact laws from the split counts."""
        idx = starts[group][:, None] + np.arange(m)[None, :]
        th = thresholds[idx].astype(np.int64)
        lo = below[idx].astype(np.int64)
        eq = equal[idx].astype(np.int64)
        n = completions[group]
        sort = np.argsort(th, axis=1, kind="stable")
        th = np.take_along_axis(th, sort, 1)
        lo = np.take_along_axis(lo, sort, 1)
        eq = np.take_along_axis(eq, sort, 1)
        dup = np.zeros_like(th, dtype=bool)
        dup[:, 1:] = th[:, 1:] == th[:, :-1]
        # cells: below x0, =x0, (x0, x1), =x1, ..., =x_{m-1}, above; keys doubled so that a
        # cell strictly between thresholds has an odd representative
        cells = 2 * m + 1
        key = np.empty((len(group), cells), dtype=np.int64)
        count = np.empty((len(group), cells), dtype=np.int64)
        key[:, 0] = 2 * th[:, 0] - 1
        count[:, 0] = lo[:, 0]
        for j in range(m):
            key[:, 2 * j + 1] = 2 * th[:, j]
            count[:, 2 * j + 1] = np.where(dup[:, j], 0, eq[:, j])
            key[:, 2 * j + 2] = 2 * th[:, j] + 1
            upper = lo[:, j + 1] if j + 1 < m else n
            between = upper - lo[:, j] - eq[:, j]
            nxt_dup = dup[:, j + 1] if j + 1 < m else np.zeros(len(group), dtype=bool)
            count[:, 2 * j + 2] = np.where(nxt_dup, 0, between)
        if (count < 0).any() or (count.sum(axis=1) != n).any():
            raise AuditError("internal: dealer completion counts do not add up")
        # seats of these rounds (rows into the judged arrays, in round order)
        seat_rows = np.flatnonzero(np.isin(rank_of_row, group))
        seats_of = order[seat_rows].reshape(len(group), m - 1)
        seat_key = np.empty((len(group), m - 1), dtype=np.int64)
        thresholds_flat = thresholds.astype(np.int64)
        first = starts[group][:, None] + 1 + np.arange(m - 1)[None, :]
        seat_key[:] = thresholds_flat[first]
        qual = key >= 2 * self.table.threshold  # (R, C)
        rel = 2 * seat_key[:, :, None] - key[:, None, :]  # (R, S, C): > 0 player above
        outcome = np.where(
            ~qual[:, None, :],
            0,
            np.where(rel > 0, 1, np.where(rel == 0, 2, 3)),
        )  # AGAINST positions
        for sums, values in ((self.given, v_given), (self.optimal_sums, v_opt)):
            v = values[seats_of]  # (R, S, spots, 4)
            total = np.zeros((len(group), cells), dtype=object)
            for i, spot in enumerate(self.spots):
                per = np.take_along_axis(
                    v[:, :, i, :], outcome.reshape(len(group), m - 1, cells), axis=2
                ).sum(axis=1)  # (R, C)
                weighted = (per * count).sum(axis=1)
                for nn in np.unique(n).tolist():
                    sums.expected[spot][nn] += int(weighted[n == nn].sum())
                total = total + per
            s1 = (total * count).sum(axis=1)
            s2 = (total * total * count).sum(axis=1)
            m2 = n.astype(object) * s2 - s1 * s1
            for nn in np.unique(n).tolist():
                sums.m2[nn] += int(m2[n == nn].sum())
            mean = s1.astype(float) / n
            sums.rho += float(
                (np.abs(total.astype(float) - mean[:, None]) ** 3 * count).sum(axis=1) @ (1 / n)
            )

    # --- judgement -----------------------------------------------------------------------

    def result(self) -> HoldResult:
        from scipy import stats

        p = self.parameters
        unit = self.den * SCALE
        spots = tuple(
            SpotHold(
                s,
                Fraction(self.wagered[s], SCALE),
                Fraction(self.observed[s], SCALE),
                self.given.mean(s) / unit,
                self.optimal_sums.mean(s) / unit,
            )
            for s in self.spots
        )
        observed_hold = -sum((s.observed_net for s in spots), Fraction(0))
        wagered = sum((s.wagered for s in spots), Fraction(0))
        dealt = self._dealt_result()
        p_dealt = dealt.check.p_value
        tests = {}
        for name, sums in (("given", self.given), ("optimal", self.optimal_sums)):
            expected = -sum((sums.mean(s) for s in self.spots), Fraction(0)) / unit
            variance = sums.variance() / (unit * unit)
            z = pv = be = power = None
            if variance > 0:
                sd = sqrt(variance)
                z = float(observed_hold - expected) / sd
                pv = float(2 * stats.norm.sf(abs(z)))
                be = min(1.0, BERRY_ESSEEN_C * sums.rho / float(unit) ** 3 / sd**3)
                # two tests in Holm's family: the first step is at alpha / 2
                crit = float(stats.norm.isf(p.alpha / 4))
                delta = float(p.shift * wagered) / sd
                power = float(stats.norm.sf(crit - delta) + stats.norm.cdf(-crit - delta))
            tests[name] = HoldTest(
                "decisions as logged" if name == "given" else "optimal decisions",
                expected,
                variance,
                observed_hold,
                z,
                pv,
                be,
                power,
            )
        family = {}
        if tests["given"].p_value is not None:
            family["hold"] = tests["given"].p_value
        if p_dealt is not None:
            family["dealt"] = p_dealt
        rejected = holm(family, p.alpha) if family else ()
        return HoldResult(
            self.game,
            self.rounds,
            self.seats,
            self.rounds_skipped,
            self.seats_skipped,
            spots,
            tests["given"],
            tests["optimal"],
            self.off_optimal,
            dealt,
            p,
            tuple(sorted(rejected)),
        )

    def _dealt_result(self) -> DealtHands:
        from scipy import stats

        cats = self.order.categories
        names = sorted(
            (h for h in self.dealt_counts if h != "dealer"), key=lambda h: int(h.split()[1])
        )
        hands = (*names, "dealer")
        total = comb(52, self.size)
        from tablecert import _core

        law = DealtLaw(
            hands,
            tuple(cats),
            tuple(
                Fraction(c, total) for c in _core.category_counts(self.size, self.order.tie_breaks)
            ),
        )
        counts = (
            np.array([self.dealt_counts[h] for h in hands], dtype=np.int64)
            if self.dealt_counts
            else np.zeros((1, len(cats)), dtype=np.int64)
        )
        check = dealt_outcomes(counts, law)
        level = self.parameters.alpha / 2 / len(hands)  # Holm's first step, Bonferroni
        power: dict[str, float | None] = {}
        probs = [float(x) for x in law.probabilities]
        for h, row in zip(hands, counts, strict=True):
            n = int(row.sum())
            o, _ = pool(row, probs)
            df = len(o) - 1
            if n == 0 or df < 1:
                power[h] = None
                continue
            crit = float(stats.chi2.isf(level, df))
            power[h] = float(stats.ncx2.sf(crit, df, n * self.parameters.effect**2))
        return DealtHands(
            {h: row.tolist() for h, row in zip(hands, counts, strict=True)},
            tuple(cats),
            check,
            power,
            self.parameters.effect,
            self.parameters.power,
        )
