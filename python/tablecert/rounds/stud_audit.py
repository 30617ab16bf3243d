"""Audit of the round logs of a game described by its rule file: every round re-settled by
the description, every difference named with the article that decides it.

The log is read by the same strict reader as the dedicated games' (``rounds.log``: CSV or
JSON Lines, a round logged twice refused, rounds of a table in time order), with the columns
the description gives: a seat's cards and the dealer's in the deal's counts, the decision
(``fold``, or ``raise Nx`` for each allowed multiple; ``follow`` in the statutes'
one-decision layout), and each bet's stake and net payout (``games.stud_settle``: the bets
against the dealer, then each side bet by its id, then the progressive where the file has
one, with the round's meter). Per chunk of rounds, the core's
``stud_key`` gives the key of every hand (one call per hand); NumPy settles every bet of every
seat as an exact integer and compares it with what was paid. What the audit keeps per round
id is what the reader keeps (a 16-byte hash, to find a round logged twice) and, per table,
the last round's timestamp: memory is flat in the log's length otherwise.

A progressive (``[progressive]``) is audited by the dedicated Caribbean Stud audit's own
accounting (``rounds.meter``): every seat's prize by the order of the round's winners, the
meter's contributions, restarts and continuity per table, within a log and across logs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import RoundLogError, RuleFileError
from tablecert.games.stud_settle import (
    CATEGORY_SHIFT,
    FIRST_RANK_SHIFT,
    FOLDED,
    OUTCOMES,
    RANKS_ONLY,
    BetTable,
    StudSettlement,
    stud_settlement,
)
from tablecert.rounds.audit import ChunkChecks, RoundAudit, dealt_twice, one_deck
from tablecert.rounds.clock import RoundClock
from tablecert.rounds.log import METER_NOT_LOGGED, SCALE, LogSpec, RoundChunk, read_log
from tablecert.rounds.meter import ChunkMeter
from tablecert.rules import RuleFile
from tablecert.rules.stud import LOST, NOT_QUALIFYING, RANK_NAMES, TIED, WON

#: The most bets a round log holds per seat (the core reader's limit).
MAX_BETS = 4
_Int = npt.NDArray[np.int64]
_Bool = npt.NDArray[np.bool_]


def log_spec(st: StudSettlement) -> LogSpec:
    """What a described game's round log holds: the deal's card counts, its bets and its
    decisions (refused, naming the file, when it has more bets than a log holds)."""
    deal = st.description.deal
    if len(st.columns) > MAX_BETS:
        raise RuleFileError(
            f"{st.rules.path.name}: {len(st.columns)} bets ({', '.join(st.columns)}); a round "
            f"log holds at most {MAX_BETS} per seat"
        )
    return LogSpec(
        game=st.rules.path.stem,
        hand_size=deal.player_cards.value,
        dealer_size=deal.dealer_cards.value,
        spots=st.columns,
        decisions=("", *st.decisions),
        upcard_required=deal.upcards.value == 1,
    )


class _StudChunkAudit(ChunkChecks):
    """One chunk of a described game's rounds, re-settled."""

    def __init__(self, chunk: RoundChunk, st: StudSettlement, audit: RoundAudit) -> None:
        super().__init__(chunk, audit)
        self.st = st
        self.arrays = chunk.arrays
        prog = st.progressive
        #: The progressive and its meter, checked as the dedicated Caribbean audit checks them
        #: (rounds/meter.py), its prizes by the categories of the game's own ranking.
        self.meter = (
            None
            if prog is None
            else ChunkMeter(
                chunk,
                prog,
                tuple(name.replace("-", " ") for name in st.categories),
                audit.meter,
                self.finding,
                self.void_article,
            )
        )

    def void_article(self, r: int) -> str:
        return "void round"

    def check_fields(self) -> None:
        """What the reader reads for every game and a described game has not: a meter (no
        progressive), an upcard where every dealer card is dealt face down. Either is an
        input error naming the line and the field."""
        arrays, deal = self.arrays, self.st.description.deal
        for name in () if self.meter is not None else ("meter_before", "meter_after"):
            logged = np.flatnonzero(getattr(arrays, name) != METER_NOT_LOGGED)
            if len(logged):
                line = int(arrays.line[logged[0]])
                raise RoundLogError(
                    f"{self.c.path}:{line}: {name}: the game has no progressive meter: "
                    "leave it empty"
                )
        if deal.upcards.value == 0:
            up = np.flatnonzero(arrays.upcard >= 0)
            if len(up):
                line = int(arrays.line[up[0]])
                raise RoundLogError(
                    f"{self.c.path}:{line}: upcard: "
                    f"{_core.card_code(int(arrays.upcard[up[0]]))!r}: the game deals no dealer "
                    f"card face up ({deal.upcards.key} = 0, {deal.upcards.article}): leave it "
                    "empty"
                )

    def deck(self) -> _Bool:
        """Rounds whose cards are all different (void rounds are not judged here)."""
        distinct, _ = one_deck(self.arrays)
        bad = ~distinct & ~self.void
        deal = self.st.description.deal
        for r in np.flatnonzero(bad).tolist():
            self.finding(
                "deck",
                None,
                r,
                article=deal.dealer_cards.article,
                rule="deal",
                detail=f"not one deck: {', '.join(dealt_twice(self.arrays, r))} dealt twice",
            )
        good: _Bool = ~bad
        return good

    def check_bets(self, judged: _Bool) -> None:
        """Stakes consistent with the decision: a bet against the dealer exactly when a
        decision is logged; the raise exactly the decision's multiple of the ante."""
        st, arrays = self.st, self.arrays
        stake = arrays.bets[:, 0]
        decided = arrays.decision != 0
        bad = decided != (stake > 0)
        expected = "a decision exactly when the first bet against the dealer is staked"
        if "raise" in st.against:
            raised = arrays.bets[:, st.bets.index("raise")]
            d = np.maximum(arrays.decision - 1, 0)
            num = np.array([m.numerator for m in st.multiples], dtype=np.int64)[d]
            den = np.array([m.denominator for m in st.multiples], dtype=np.int64)[d]
            bad |= (raised != stake * num // den) | (stake * num % den != 0)
            shown = ", ".join(f"{m}x" for m in st.multiples[1:])
            expected += (
                f", a raise of the decision's multiple of the ante ({shown}), none on a fold"
            )
        rule = st.description.raises[0]
        for row in np.flatnonzero(bad & judged).tolist():
            self.finding(
                "bet",
                row,
                int(self.seat_round[row]),
                article=rule.article,
                rule=rule.key,
                detail=f"bets do not match the decision: expected {expected}",
            )
            judged[row] = False
        if st.progressive is not None:
            self.check_progressive_bets(judged)

    def check_progressive_bets(self, judged: _Bool) -> None:
        """The progressive bet: none, or exactly the posted bet, and only beside an accepted
        bet against the dealer (a seat that does not match is not judged)."""
        st, arrays = self.st, self.arrays
        assert st.progressive is not None
        prog = st.progressive
        stake = arrays.bets[:, st.columns.index("progressive")]
        posted = prog.bet * SCALE
        wrong = (stake != 0) & (stake * posted.denominator != posted.numerator)
        orphan = (stake > 0) & (arrays.bets[:, 0] == 0)
        article = prog.articles_of("progressive.bet")
        for row in np.flatnonzero((wrong | orphan) & judged).tolist():
            detail = (
                f"bets do not match the decision: expected a progressive bet of 0 or {prog.bet}"
                if wrong[row]
                else f"a progressive bet without a bet on {st.against[0]} is not accepted"
            )
            self.finding(
                "bet",
                row,
                int(self.seat_round[row]),
                spot="progressive",
                article=article,
                rule="progressive.bet",
                detail=detail,
            )
            judged[row] = False

    def keys(self, hands: list[list[int]], judged: Sequence[bool], ranking: Any) -> _Int:
        key = _core.stud_key
        return np.array(
            [key(ranking, h) if ok else 0 for h, ok in zip(hands, judged, strict=True)],
            dtype=np.int64,
        )

    def run(self) -> None:
        c, st, a, arrays = self.c, self.st, self.a, self.arrays
        a.rounds += len(c)
        a.void_rounds += int(self.void.sum())
        a.seats += c.seats
        self.check_fields()
        dealt = self.deck()
        judged_round = dealt & ~self.void
        judged = judged_round[self.seat_round]
        self.check_bets(judged)
        void_seat = self.void[self.seat_round]
        seat_hands = arrays.seat_cards.tolist()
        dealer_hands = arrays.dealer.tolist()
        dk = self.keys(dealer_hands, judged_round.tolist(), st.ranking)[self.seat_round]
        pk = self.keys(seat_hands, judged.tolist(), st.ranking)
        category = pk >> CATEGORY_SHIFT
        ranks_mask = -1 if st.suit_decides else RANKS_ONLY
        p, d = pk & ranks_mask, dk & ranks_mask
        qualifies = (dk & RANKS_ONLY) >= st.threshold
        outcome = np.where(
            ~qualifies,
            NOT_QUALIFYING,
            np.where(p > d, WON, np.where(p < d, LOST, TIED)),
        ).astype(np.int64)
        decision = arrays.decision - 1  # the engine's d: 0 fold, 1.. the raises; -1 none
        examined = judged | void_seat
        for i, bet in enumerate(st.bets):
            table = st.tables[bet]
            if bet == st.against[0]:
                row = np.where(decision <= 0, 0, 1 + 4 * (decision - 1) + outcome)
                column = category
            elif bet == "raise":
                row = np.where(decision <= 0, FOLDED, outcome)
                column = category
            else:
                hands = st.side_bets[i - len(st.against)]
                if hands.with_dealer:
                    rows = self.seat_round.tolist()
                    bet_hands = [seat_hands[s] + dealer_hands[r] for s, r in enumerate(rows)]
                else:
                    bet_hands = seat_hands
                bk = self.keys(bet_hands, judged.tolist(), hands.ranking)
                row = (bk >> FIRST_RANK_SHIFT) & 0xF
                column = bk >> CATEGORY_SHIFT
            self.settle(bet, i, table, row, column, examined, void_seat)
        if self.meter is not None:
            self.progressive(category, judged, void_seat, dealt)

    def progressive(self, category: _Int, judged: _Bool, void_seat: _Bool, dealt: _Bool) -> None:
        """The progressive bet of every seat and the meter of every round, by the statute's
        order of the round's prizes and the meter's accounting (rounds/meter.py)."""
        meter = self.meter
        assert meter is not None
        i = self.st.columns.index("progressive")
        stake = self.arrays.bets[:, i]
        dues = meter.dues(category, stake, judged, void_seat)

        def detail(row: int) -> str:
            name = meter.categories[int(category[row])]
            return f"the player's {name}{meter.describe(int(self.seat_round[row]))}"

        examined = (judged | void_seat) & ~meter.unsettled
        self.check_spot(
            "progressive", i, dues, examined, void_seat, detail, "paid on a bet without a stake"
        )
        meter.accounting(stake, self.void, dealt)

    def settle(
        self,
        bet: str,
        i: int,
        table: BetTable,
        row: _Int,
        column: _Int,
        examined: _Bool,
        void_seat: _Bool,
    ) -> None:
        """One bet of every seat of the chunk: due against paid, totals, findings."""
        st, a, arrays = self.st, self.a, self.arrays
        stake, paid = arrays.bets[:, i], arrays.paid[:, i]
        numerators, den = table.numerators, table.denominator
        cap = st.maximum_payout * SCALE * den
        if bet == "raise" and st.cap_rule is not None and cap.denominator != 1:
            numerators, den = numerators * cap.denominator, den * cap.denominator
            cap *= cap.denominator
        due = stake * numerators[row, column]
        codes = table.codes[row, column]
        if bet == "raise" and st.cap_rule is not None:
            capped = np.array(st.capped, dtype=bool)[column] & (numerators[row, column] > 0)
            due = np.where(capped, np.minimum(due, int(cap)), due)
        due = np.where(void_seat, 0, due)
        a.bets[bet] = a.bets.get(bet, Fraction(0)) + Fraction(int(stake.sum()), SCALE)
        a.paid[bet] = a.paid.get(bet, Fraction(0)) + Fraction(int(paid.sum()), SCALE)
        a.due[bet] = a.due.get(bet, Fraction(0)) + Fraction(int(due[examined].sum()), den * SCALE)
        differs = examined & (paid * den != due)
        articles = tuple(r.article for r in table.rules)
        self.totals(
            bet,
            examined & ((stake != 0) | (paid != 0)),
            differs,
            paid,
            due,
            den,
            codes,
            articles,
            void_seat,
        )
        for seat_row in np.flatnonzero(differs).tolist():
            r = int(self.seat_round[seat_row])
            rule = table.rules[int(codes[seat_row])]
            if void_seat[seat_row]:
                article, key = self.void_article(r), ""
                detail = f"void round ({', '.join(self.c.events[r])}): bets void, nothing paid"
            else:
                article, key = rule.article, rule.key
                if stake[seat_row] == 0:
                    detail = "paid on a bet without a stake"
                else:
                    detail = self.describe(bet, int(row[seat_row]), int(column[seat_row]), i)
                    if bet == "raise" and st.cap_rule is not None and due[seat_row] == int(cap):
                        article = f"{article}; {st.cap_rule.article}"
            self.finding(
                "settlement",
                seat_row,
                r,
                spot=bet,
                article=article,
                rule=key,
                paid=Fraction(int(paid[seat_row]), SCALE),
                due=Fraction(int(due[seat_row]), den * SCALE),
                detail=detail,
            )

    def describe(self, bet: str, row: int, column: int, i: int) -> str:
        """What decided a seat's bet, in words."""
        st = self.st
        if i >= len(st.against):
            side = st.side_bets[i - len(st.against)]
            names = side.bet.categories
            whose = "the player's and the dealer's cards" if side.with_dealer else "the player's"
            text = f"{side.bet.name.value}: {whose} {names[len(names) - 1 - column]}"
            minimum = side.bet.minimum_rank.get(column)
            if minimum is not None and row < minimum.value:
                text += f", below the minimum rank {RANK_NAMES[minimum.value]} (it loses)"
            return text
        name = st.categories[column]
        if bet == "raise":
            if row == FOLDED:
                return f"folded (player's {name})"
            outcome = row
        elif row == 0:
            return f"folded (player's {name})"
        else:
            outcome = (row - 1) % 4
            decision = st.decisions[1 + (row - 1) // 4]
            name = f"{name}, {decision}"
        if outcome == TIED and st.description.settlement.tie is None:
            return f"tie, which goes to the player (player's {name})"
        return f"{OUTCOMES[outcome]} (player's {name})"


def audit_stud_file(
    path: str | Path,
    st: StudSettlement,
    progress: Callable[[int], None] | None = None,
) -> RoundAudit:
    """One log of a described game, audited as one stream."""
    audit = RoundAudit(st.rules.path.stem, str(st.rules.path), st.rules.sha256)
    audit.spot_names = st.columns
    audit.files.append(str(path))
    clock = RoundClock(str(path))
    for chunk in read_log(path, log_spec(st)):
        clock.check(chunk)
        audit.tables.update(chunk.table_id)
        _StudChunkAudit(chunk, st, audit).run()
        if progress is not None:
            progress(len(chunk))
    return audit


def audit_stud_rounds(
    paths: Sequence[str | Path],
    rules: RuleFile,
    progress: Callable[[int], None] | None = None,
) -> RoundAudit:
    """Audit every round of the logs of the game ``rules`` describes: each log on its own,
    the results added up in file order (every total exact)."""
    st = stud_settlement(rules)
    log_spec(st)  # a game whose bets no log holds is refused before any file is read
    audit = RoundAudit(rules.path.stem, str(rules.path), rules.sha256)
    audit.spot_names = st.columns
    audit.progressive = st.progressive
    for path in paths:
        audit.absorb(audit_stud_file(path, st, progress))
    return audit
