"""The progressive in a round log (Caribbean Stud's, Art. 10, Art. 11, or a described game's
``[progressive]``): every seat's prize and the meter's accounting, round by round.

Most rounds pay only fixed prizes (four of a kind, full house, flush) and leave the meter to
grow by the contribution of each progressive bet: those are checked on arrays. A round where
the meter pays (a straight flush or a royal, or a category the rule file has paid from the
meter) is settled by ``Progressive.pay_round``, the statute's order in one place: straight
flushes before royals, each straight flush its share, royals sharing the meter, the meter
falling by what it paid and restarting from the seed when emptied. Then, for every table,
``meter_before`` of a round must be the ``meter_after`` of the table's previous round (across
chunks and files, in the order read). Every difference is a finding naming the round, the
seat (0: the round's meter), the article, the amount logged and the amount due.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert.games.common import fraction_json
from tablecert.games.progressive import Progressive, RoundPayment
from tablecert.rounds.log import METER_NOT_LOGGED, SCALE, RoundChunk, amount_text, void_article

_Int = npt.NDArray[np.int64]
_Bool = npt.NDArray[np.bool_]
#: ``finding(kind, seat_row or None, round_index, **fields)``: how a finding is reported.
Report = Callable[..., None]


@dataclass
class MeterTotals:
    """What the meter's accounting covered, over every chunk of an audit."""

    rounds: int = 0
    rounds_with_meter_prizes: int = 0
    several_winners: int = 0
    restarts: int = 0
    contributions: Fraction = Fraction(0)
    meter_prizes: Fraction = Fraction(0)
    #: Rounds whose meter_before or meter_after was left blank: their accounting is not examined.
    not_logged: int = 0
    #: Rounds with a logged meter, and rounds with a progressive bet (a log with neither is a
    #: table without the progressive: its blank meter is not applicable, not unexamined).
    logged: int = 0
    rounds_with_bets: int = 0
    #: Seats whose prize from the meter could not be settled: the round's meter_before is blank.
    unsettled_prizes: int = 0
    #: table id -> (meter_after in 1/SCALE units, round id) of the table's last round read
    last: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: table id -> (meter_before in 1/SCALE units, round id, file, line) of the table's first
    #: round in this stream, whose previous round is in an earlier file (checked by absorb)
    first: dict[str, tuple[int, str, str, int]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        text = (
            f"progressive meter: {self.rounds:,} rounds accounted for, "
            f"{self.rounds_with_meter_prizes:,} with meter prizes ({self.several_winners:,} with "
            f"several winners), {self.restarts:,} restarts from the seed"
        )
        if self.not_logged and not self.applies:
            text += (
                f"; no meter logged and no progressive bet in {self.not_logged:,} rounds: "
                "the table does not offer the progressive"
            )
        return text

    @property
    def applies(self) -> bool:
        """Whether the log plays the progressive: a meter logged or a progressive bet placed."""
        return bool(self.logged or self.rounds_with_bets)

    @property
    def not_examined(self) -> dict[str, str]:
        """Why part of the meter's accounting was not examined, by the round audit's kind of
        check it belongs to (``meter``, ``settlement``); empty when all of it was."""
        reasons = {}
        if self.not_logged and self.applies:
            reasons["meter"] = (
                f"{self.not_logged:,} rounds with a blank meter_before or meter_after: "
                "their meter accounting (Art. 10) was not examined"
            )
        if self.unsettled_prizes:
            reasons["settlement"] = (
                f"{self.unsettled_prizes:,} progressive prizes from the meter not settled: "
                "the round's meter_before is blank"
            )
        return reasons

    def absorb(self, part: MeterTotals) -> list[Seam]:
        """Add a later file's accounting (its tables' last rounds replace this one's) and
        return the seams where a table's first round in it does not start from the meter its
        previous round (in an earlier file) ended with."""
        seams = [
            Seam(
                table, round_id, path, line, Fraction(before, SCALE), Fraction(after, SCALE), prior
            )
            for table, (before, round_id, path, line) in part.first.items()
            for after, prior in [self.last.get(table, (before, ""))]
            if after != before and METER_NOT_LOGGED not in (after, before)
        ]
        for table, start in part.first.items():
            if table not in self.last and table not in self.first:
                self.first[table] = start
        self.rounds += part.rounds
        self.rounds_with_meter_prizes += part.rounds_with_meter_prizes
        self.several_winners += part.several_winners
        self.restarts += part.restarts
        self.contributions += part.contributions
        self.meter_prizes += part.meter_prizes
        self.not_logged += part.not_logged
        self.logged += part.logged
        self.rounds_with_bets += part.rounds_with_bets
        self.unsettled_prizes += part.unsettled_prizes
        self.last.update(part.last)
        return seams

    def as_json(self) -> dict[str, Any]:
        return {
            "rounds_checked": self.rounds,
            "rounds_with_meter_prizes": self.rounds_with_meter_prizes,
            "rounds_with_several_meter_winners": self.several_winners,
            "restarts_from_the_seed": self.restarts,
            "contributions": fraction_json(self.contributions),
            "meter_prizes_due": fraction_json(self.meter_prizes),
            "rounds_meter_not_logged": self.not_logged,
            "prizes_not_settled": self.unsettled_prizes,
            "not_examined": list(self.not_examined.values()),
        }


@dataclass(frozen=True)
class Seam:
    """A table's meter that does not run on between two files: the later file's first round
    of the table starts from another meter than the earlier file's last round ended with."""

    table_id: str
    round_id: str
    file: str
    line: int
    logged: Fraction
    due: Fraction
    prior_round: str

    @property
    def detail(self) -> str:
        return (
            f"meter_before is not the meter_after of the table's previous round "
            f"({self.prior_round}, in an earlier file)"
        )


@dataclass(frozen=True)
class SeatDues:
    """The progressive spot's due amounts of a chunk's seats, in 1/(den * SCALE) units, with
    each seat's deciding rule and article (codes into ``names`` and ``articles``)."""

    due: _Int
    den: int
    codes: _Int
    names: tuple[str, ...]
    articles: tuple[str, ...]


def _money(units: Fraction) -> str:
    """An amount given in 1/SCALE units, exactly (as the log writes amounts)."""
    if units.denominator == 1:
        return amount_text(int(units))
    value = units / SCALE
    return f"{value.numerator}/{value.denominator}"


class ChunkMeter:
    """The progressive's checks on one chunk (seat rows and rounds as the audit holds them)."""

    def __init__(
        self,
        chunk: RoundChunk,
        prog: Progressive,
        categories: tuple[str, ...],
        totals: MeterTotals,
        report: Report,
        void_of: Callable[[int], str] | None = None,
    ) -> None:
        self.c = chunk
        self.prog = prog
        self.categories = categories
        self.totals = totals
        self.report = report
        #: The article under which round r of the chunk is void (the game's own numbering;
        #: by default the statutes' Art. 11 of the chunk's game).
        self.void_of = void_of or (lambda r: void_article(chunk.game, chunk.events[r]))
        arrays = chunk.arrays
        self.seat_round = np.asarray(arrays.seat_round, dtype=np.int64)
        self.seat_number = np.asarray(arrays.seat_number, dtype=np.int64)
        self.meter_before = np.asarray(arrays.meter_before, dtype=np.int64)
        self.meter_after = np.asarray(arrays.meter_after, dtype=np.int64)
        #: rounds whose meter_before / meter_after was logged (not left blank)
        self.before_logged = self.meter_before != METER_NOT_LOGGED
        self.after_logged = self.meter_after != METER_NOT_LOGGED
        #: seat rows whose prize from the meter is not settled (the round's meter_before blank)
        self.unsettled = np.zeros(len(self.seat_round), dtype=bool)
        # round r's seats are rows start[r]:start[r + 1] (every round has a seat)
        self.start = np.searchsorted(self.seat_round, np.arange(len(chunk) + 1))
        prizes = {p.category: p for p in prog.prizes}
        self.fixed = [prizes[c].fixed if c in prizes else Fraction(0) for c in categories]
        #: categories whose prize involves the meter: a share of it, or paid from it
        self.from_meter = np.array(
            [
                c in prizes and (prizes[c].meter_share > 0 or c in prog.meter_pays)
                for c in categories
            ],
            dtype=bool,
        )

    def dues(self, category: _Int, bets: _Int, judged: _Bool, void_seat: _Bool) -> SeatDues:
        """Every seat's due amount on the progressive spot; rounds where the meter pays are
        settled one by one by the statute's order and give their meter's due ``after``."""
        prog = self.prog
        den = lcm(prog.prize_unit.denominator, *(f.denominator for f in self.fixed))
        names = [
            f"progressive.fixed.{name.replace(' ', '-')}" if self.fixed[c] else "progressive.bet"
            for c, name in enumerate(self.categories)
        ]
        articles = [str(prog.articles_of(n)) for n in names]
        fixed = np.array([int(f * den * SCALE) for f in self.fixed], dtype=np.int64)
        betting = (bets > 0) & judged
        due = np.where(betting, fixed[category] - bets * den, 0)
        codes = category.copy()
        self.meter_rows = betting & self.from_meter[category]
        self.payments: dict[int, RoundPayment] = {}
        for r in np.unique(self.seat_round[self.meter_rows]).tolist():
            lo, hi = int(self.start[r]), int(self.start[r + 1])
            if not self.before_logged[r]:  # a share of an unknown meter: not examined
                self.unsettled[lo:hi] = self.meter_rows[lo:hi] & ~void_seat[lo:hi]
                continue
            rows = lo + np.flatnonzero(betting[lo:hi])
            seats = [(int(self.seat_number[i]), self.categories[int(category[i])]) for i in rows]
            contributed = Fraction(int(bets[lo:hi].sum()), SCALE)
            payment = prog.pay_round(Fraction(int(self.meter_before[r]), SCALE), seats, contributed)
            self.payments[r] = payment
            for i in rows.tolist():
                won = payment.of(int(self.seat_number[i]))
                if won is None:
                    continue
                scaled = (won.prize * SCALE - int(bets[i])) * den
                assert scaled.denominator == 1  # prizes are whole prize units or fixed prizes
                due[i] = int(scaled)
                key = (won.rule, won.article)
                if key not in zip(names, articles, strict=True):
                    names.append(won.rule)
                    articles.append(won.article)
                codes[i] = list(zip(names, articles, strict=True)).index(key)
        due = np.where(void_seat, 0, due)
        self.totals.unsettled_prizes += int(self.unsettled.sum())
        return SeatDues(due, den, codes, tuple(names), tuple(articles))

    def describe(self, r: int) -> str:
        """How the statute paid round r's meter prizes, for a finding's detail."""
        payment = self.payments.get(r)
        if payment is None:
            return ""
        paid = ", ".join(
            f"seat {p.seat} {p.category} {_money(p.prize * SCALE)} ({p.article})"
            for p in payment.prizes
        )
        return f"; meter_before {_money(payment.meter_before * SCALE)}, paid in order: {paid}"

    def accounting(self, bets: _Int, void: _Bool, dealt: _Bool) -> None:
        """The meter of every round: after = before + contributions (or as the round's
        prizes left it), void rounds unchanged, and each round starting where the table's
        previous round ended."""
        c, prog, totals = self.c, self.prog, self.totals
        rounds = len(c)
        bet_sum = np.add.reduceat(bets.astype(np.int64), self.start[:-1]) if rounds else bets
        # exact: meter_after * den == meter_before * den + num * bets (in 1/SCALE units)
        num, den = prog.contribution.numerator, prog.contribution.denominator
        logged = self.before_logged & self.after_logged
        totals.not_logged += int((~logged).sum())
        totals.logged += int((self.before_logged | self.after_logged).sum())
        totals.rounds_with_bets += int((bet_sum > 0).sum())
        before = np.where(self.before_logged, self.meter_before, 0)
        after = np.where(self.after_logged, self.meter_after, 0)
        if max(num, den) > 2**20:  # beyond int64's room for 10^16-unit meters: Python integers
            before, after, bet_sum = (x.astype(object) for x in (before, after, bet_sum))
        expected = np.where(void, before * den, before * den + num * bet_sum)
        checked = ~void & dealt & logged
        totals.rounds += int(checked.sum()) + int((void & logged).sum())
        totals.contributions += Fraction(int(bet_sum[checked].sum()), SCALE) * prog.contribution
        special = np.zeros(rounds, dtype=bool)
        special[list(self.payments)] = True
        differs = (void | (dealt & ~special)) & logged & (after * den != expected)
        for r in np.flatnonzero(differs).tolist():
            due = Fraction(int(expected[r]), den * SCALE)
            if void[r]:
                self._meter(
                    r,
                    self.void_of(r),
                    "",
                    due,
                    "void round: the progressive bets carry over, the meter does not change",
                )
            else:
                self._meter(
                    r,
                    prog.articles_of("progressive.contribution"),
                    "progressive.contribution",
                    due,
                    f"no meter prize: the meter grows by {prog.contribution} of the round's "
                    f"progressive bets ({_money(Fraction(int(bet_sum[r])))})",
                )
        for r, payment in self.payments.items():
            if not dealt[r] or void[r] or not self.after_logged[r]:
                continue
            totals.rounds_with_meter_prizes += 1
            winners = [p for p in payment.prizes if p.rule.endswith("meter_share")]
            totals.several_winners += len(winners) > 1
            totals.restarts += payment.emptied
            totals.meter_prizes += sum((p.prize for p in winners), Fraction(0))
            logged = Fraction(int(self.meter_after[r]), SCALE)
            if logged != payment.meter_after:
                paid = ", ".join(
                    f"seat {p.seat} {p.category} {_money(p.prize * SCALE)}" for p in payment.prizes
                )
                rule = "progressive.seed" if payment.emptied else "progressive.contribution"
                what = (
                    f"emptied, restarts from the seed {prog.seed}"
                    if payment.emptied
                    else "falls by what it paid"
                )
                self._meter(
                    r,
                    prog.articles_of(rule),
                    rule,
                    payment.meter_after,
                    f"prizes {paid}: the meter {what}, then grows by the contributions",
                )
        self.continuity()

    def continuity(self) -> None:
        c, totals = self.c, self.totals
        distinct = set(c.table_id)
        if len(distinct) == 1:  # the usual log: one table
            groups = [(distinct.pop(), np.arange(len(c)))]
        else:
            names, codes = np.unique(np.asarray(c.table_id), return_inverse=True)
            groups = [(str(n), np.flatnonzero(codes == k)) for k, n in enumerate(names.tolist())]
        for table, idx in groups:
            before = self.meter_before[idx]
            previous = np.empty_like(before)
            previous[1:] = self.meter_after[idx[:-1]]
            last = totals.last.get(table)
            check = np.ones(len(idx), dtype=bool)
            if last is None:
                check[0] = False
                first = int(idx[0])
                totals.first[table] = (
                    int(self.meter_before[first]),
                    str(c.round_id[first]),
                    c.path,
                    int(c.arrays.line[first]),
                )
            else:
                previous[0] = last[0]
            unknown = (before == METER_NOT_LOGGED) | (previous == METER_NOT_LOGGED)
            for j in np.flatnonzero(check & ~unknown & (before != previous)).tolist():
                r = int(idx[j])
                prior = str(c.round_id[int(idx[j - 1])]) if j else last[1] if last else ""
                self._meter(
                    r,
                    self.prog.articles_of("progressive.contribution"),
                    "",
                    Fraction(int(previous[j]), SCALE),
                    f"meter_before is not the meter_after of the table's previous round ({prior})",
                    logged=Fraction(int(before[j]), SCALE),
                )
            totals.last[table] = (int(self.meter_after[idx[-1]]), str(c.round_id[int(idx[-1])]))

    def _meter(
        self,
        r: int,
        article: str,
        rule: str,
        due: Fraction,
        detail: str,
        logged: Fraction | None = None,
    ) -> None:
        self.report(
            "meter",
            None,
            r,
            spot="progressive",
            article=article,
            rule=rule,
            paid=Fraction(int(self.meter_after[r]), SCALE) if logged is None else logged,
            due=due,
            detail=detail,
        )
