"""Audit of round logs: every deal checked as one deck, every spot re-settled under the statute
(or a submitted configuration), every difference named.

Per chunk of rounds, NumPy arrays and the core's perfect-hash evaluator do the work: the
strength keys of every player and dealer hand, the dealer's qualification (a key threshold),
the outcome of each bet against the dealer, and each spot's due amount as an exact integer
(numerator over the spot's common denominator) compared with what the log says was paid.
Only the differences become Python objects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.distributed import largest_first
from tablecert.games.common import fraction_json
from tablecert.games.progressive import Progressive
from tablecert.games.settle import (
    CATEGORY_SHIFT,
    FOLD,
    LOSS,
    NOT_QUALIFYING,
    OUTCOMES,
    TIE,
    WIN,
    SettlementTable,
    settlement_table,
)
from tablecert.hand_arrays import key_table
from tablecert.judgement import Judged, Outcome, overall
from tablecert.poker import Ordering, ordering
from tablecert.rounds.clock import RoundClock
from tablecert.rounds.hold import HoldAnalysis, HoldParameters, HoldResult, HoldState
from tablecert.rounds.log import (
    SCALE,
    SPOTS,
    RoundArrays,
    RoundChunk,
    amount_text,
    read_rounds,
    void_article,
)
from tablecert.rounds.meter import ChunkMeter, MeterTotals, SeatDues
from tablecert.rules import RuleFile

if TYPE_CHECKING:
    from tablecert.distributed import Executor, ShardProgress

MAX_LISTED = 1000  # findings kept in full; all are counted
_Int = npt.NDArray[np.int64]
_Bool = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Finding:
    """One difference from the statute: where, which spot, what was paid and what was due."""

    kind: str  # deck, settlement, bet, meter
    file: str
    line: int
    table_id: str
    round_id: str
    seat: int  # 0: the round as a whole
    spot: str
    article: str
    rule: str
    paid: Fraction | None
    due: Fraction | None
    detail: str

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "table_id": self.table_id,
            "round_id": self.round_id,
            "seat": self.seat,
            "spot": self.spot,
            "article": self.article,
            "rule": self.rule,
            "paid": None if self.paid is None else _money(self.paid),
            "due": None if self.due is None else _money(self.due),
            "detail": self.detail,
        }

    @property
    def text(self) -> str:
        where = f"{self.file}:{self.line} table {self.table_id} round {self.round_id}"
        seat = f" seat {self.seat}" if self.seat else ""
        spot = f" {self.spot}" if self.spot else ""
        logged = "logged" if self.kind == "meter" else "paid"
        money = (
            f": {logged} {_money(self.paid)}, due {_money(self.due)}"
            if self.paid is not None and self.due is not None
            else ""
        )
        article = f" ({self.article})" if self.article else ""
        return f"{where}{seat}{spot}: {self.kind}{article}{money}; {self.detail}"


def _money(value: Fraction) -> str:
    units = value * SCALE
    if units.denominator == 1:
        return amount_text(int(units))
    return f"{value.numerator}/{value.denominator}"


@dataclass
class ArticleTotal:
    spots: int = 0
    paid: Fraction = Fraction(0)
    due: Fraction = Fraction(0)
    differences: int = 0


@dataclass
class RoundAudit(Judged):
    """The audit of one or more logs under one rule file."""

    game: str
    rules_file: str
    rules_sha256: str
    files: list[str] = field(default_factory=list)
    rounds: int = 0
    void_rounds: int = 0
    seats: int = 0
    bets: dict[str, Fraction] = field(default_factory=dict)
    paid: dict[str, Fraction] = field(default_factory=dict)
    due: dict[str, Fraction] = field(default_factory=dict)
    by_article: dict[str, ArticleTotal] = field(default_factory=lambda: defaultdict(ArticleTotal))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    findings: list[Finding] = field(default_factory=list)
    flagged: set[tuple[str, str]] = field(default_factory=set)
    #: The tables (devices) whose rounds the logs hold.
    tables: set[str] = field(default_factory=set)
    meter: MeterTotals = field(default_factory=MeterTotals)
    #: Caribbean Stud: the progressive under the audit's rules (its long-run return reported)
    progressive: Progressive | None = None
    #: The hold analysis (rounds/hold.py), when asked for: its verdict joins the audit's.
    hold: HoldResult | None = None
    #: The bets of a game described by its rule file, in log column order (a game with an
    #: engine of its own: its SPOTS).
    spot_names: tuple[str, ...] = ()

    def absorb(self, part: RoundAudit) -> None:
        """Add another file's audit (under the same rules) after this one's."""
        self.files.extend(part.files)
        self.rounds += part.rounds
        self.void_rounds += part.void_rounds
        self.seats += part.seats
        for mine, theirs in ((self.bets, part.bets), (self.paid, part.paid), (self.due, part.due)):
            for spot, amount in theirs.items():
                mine[spot] = mine.get(spot, Fraction(0)) + amount
        for name, t in part.by_article.items():
            total = self.by_article[name]
            total.spots += t.spots
            total.paid += t.paid
            total.due += t.due
            total.differences += t.differences
        # the meter between the files, then the later file's own findings
        article = (
            "第十条(八)"
            if self.progressive is None
            else self.progressive.articles_of("progressive.contribution")
        )
        for seam in self.meter.absorb(part.meter):
            self.add(
                Finding(
                    "meter",
                    seam.file,
                    seam.line,
                    seam.table_id,
                    seam.round_id,
                    0,
                    "progressive",
                    article,
                    "",
                    seam.logged,
                    seam.due,
                    seam.detail,
                )
            )
        for kind, n in part.counts.items():
            self.counts[kind] += n
        self.findings.extend(part.findings[: MAX_LISTED - len(self.findings)])
        self.flagged |= part.flagged
        self.tables |= part.tables

    def add(self, finding: Finding) -> None:
        self.counts[finding.kind] += 1
        self.flagged.add((finding.table_id, finding.round_id))
        if len(self.findings) < MAX_LISTED:
            self.findings.append(finding)

    def check_outcome(self, kind: str) -> Outcome:
        """One kind of check: fail on any finding of the kind; pass only when rounds were
        audited and nothing of the kind was left unexamined (the meter's accounting)."""
        unexamined = self.progressive is not None and kind in self.meter.not_examined
        return Outcome.of(self.counts.get(kind, 0) > 0, judged=self.rounds > 0 and not unexamined)

    @property
    def settlement_outcome(self) -> Outcome:
        """Fail on any difference; inconclusive if nothing was audited; pass only when every
        spot of every round was re-settled and agreed (and, in Caribbean Stud, every round's
        meter accounted for)."""
        return Outcome.of(bool(self.counts), judged=self.rounds > 0 and not self.not_examined)

    @property
    def outcome(self) -> Outcome:
        """The settlements' outcome, with the hold's where it was asked for."""
        if self.hold is None:
            return self.settlement_outcome
        return overall((self.settlement_outcome, self.hold.outcome))

    @property
    def not_examined(self) -> list[str]:
        """What the audit could not examine in the logs it read (each makes a verdict that
        would pass inconclusive)."""
        return list(self.meter.not_examined.values()) if self.progressive is not None else []

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules_file": self.rules_file,
            "rules_sha256": self.rules_sha256,
            "files": self.files,
            "verdict": self.verdict,
            "not_examined": self.not_examined,
            "rounds": self.rounds,
            "void_rounds": self.void_rounds,
            "seats": self.seats,
            "rounds_flagged": len(self.flagged),
            "tables": sorted(self.tables),
            "findings_by_kind": dict(sorted(self.counts.items())),
            "spots": {
                s: {
                    "bet": fraction_json(self.bets.get(s, Fraction(0))),
                    "paid": fraction_json(self.paid.get(s, Fraction(0))),
                    "due": fraction_json(self.due.get(s, Fraction(0))),
                }
                for s in self.spot_names or SPOTS[self.game]
            },
            "by_article": {
                a: {
                    "spots": t.spots,
                    "paid": fraction_json(t.paid),
                    "due": fraction_json(t.due),
                    "differences": t.differences,
                }
                for a, t in sorted(self.by_article.items())
            },
            "findings": [f.as_json() for f in self.findings],
            "findings_listed": len(self.findings),
            "hold": None if self.hold is None else self.hold.as_json(),
            **(
                {
                    "progressive": {
                        "meter": self.meter.as_json(),
                        "long_run": self.progressive.long_run_json(),
                    }
                }
                if self.progressive is not None
                else {}
            ),
        }


#: Each card's bit in a hand's 52-bit mask, and none for -1 (a card a void round did not log).
_CARD_BITS = np.array([1 << card for card in range(52)] + [0], dtype=np.uint64)


def _masks(cards: npt.NDArray[np.int16]) -> npt.NDArray[np.uint64]:
    """Each hand's cards as a 52-bit mask (a card dealt twice counted once)."""
    bits = _CARD_BITS[cards]
    out: npt.NDArray[np.uint64] = bits[:, 0].copy()
    for i in range(1, bits.shape[1]):
        out |= bits[:, i]
    return out


def one_deck(arrays: RoundArrays) -> tuple[_Bool, _Int]:
    """Per round of a chunk: whether every card dealt (the dealer's and every seat's) is a
    different card, and how many seats were dealt."""
    rounds = len(arrays.line)
    round_mask = _masks(arrays.dealer)
    np.bitwise_or.at(round_mask, arrays.seat_round, _masks(arrays.seat_cards))
    seats: _Int = np.bincount(arrays.seat_round, minlength=rounds).astype(np.int64)
    cards = arrays.dealer.shape[1] + arrays.seat_cards.shape[1] * seats
    distinct: _Bool = np.bitwise_count(round_mask).astype(np.int64) == cards
    return distinct, seats


def dealt_twice(arrays: RoundArrays, r: int) -> list[str]:
    """The codes of the cards dealt more than once in round ``r`` of a chunk."""
    dealt = arrays.dealer[r].tolist()
    for row in np.flatnonzero(arrays.seat_round == r):
        dealt.extend(arrays.seat_cards[row].tolist())
    dealt = [x for x in dealt if x >= 0]
    return sorted({_core.card_code(x) for x in dealt if dealt.count(x) > 1})


class ChunkChecks:
    """What every audit of a chunk of rounds does with what it finds: each finding named by
    file, line, table, round and seat, and each settled group of spots added to the total of
    the article that decides it."""

    def __init__(self, chunk: RoundChunk, audit: RoundAudit) -> None:
        self.c = chunk
        self.a = audit
        self.seat_round = chunk.arrays.seat_round
        self.void = chunk.arrays.void

    def finding(self, kind: str, seat_row: int | None, round_index: int, **kw: Any) -> None:
        c, arrays = self.c, self.c.arrays
        line = int(arrays.seat_line[seat_row] if seat_row is not None else arrays.line[round_index])
        seat = int(arrays.seat_number[seat_row]) if seat_row is not None else 0
        self.a.add(
            Finding(
                kind=kind,
                file=c.path,
                line=line,
                table_id=c.table_id[round_index],
                round_id=c.round_id[round_index],
                seat=seat,
                spot=kw.get("spot", ""),
                article=kw.get("article", ""),
                rule=kw.get("rule", ""),
                paid=kw.get("paid"),
                due=kw.get("due"),
                detail=kw.get("detail", ""),
            )
        )

    def void_article(self, r: int) -> str:
        """The article under which round ``r`` (of the chunk) is void."""
        raise NotImplementedError

    def totals(
        self,
        spot: str,
        settled: npt.NDArray[np.bool_],
        differs: npt.NDArray[np.bool_],
        paid: _Int,
        due_scaled: _Int,
        den: int,
        codes: _Int,
        articles: tuple[str, ...],
        void_seat: npt.NDArray[np.bool_],
    ) -> None:
        rows = np.flatnonzero(settled)
        if not len(rows):
            return
        # group by deciding rule (few distinct values: one stable sort, then a Python pass
        # over the groups only); the rows of void rounds (rare) by the article their round's
        # events void it under
        group = np.where(void_seat[rows], -1, codes[rows])
        # a stable sort of 16-bit keys is a radix sort: the usual case, a few hundred rules
        keys = group.astype(np.int16) if len(articles) < 2**15 else group
        order = np.argsort(keys, kind="stable")
        ranked = group[order]
        starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
        ends = np.r_[starts[1:], len(ranked)]
        judged = ranked[starts] >= 0
        sel_rows = rows[order]
        sums: list[Any] = [
            np.add.reduceat(values[sel_rows], starts[judged]) if judged.any() else []
            for values in (paid, due_scaled, differs.astype(np.int64))
        ]
        for code, start, end, paid_sum, due_sum, differ_sum in zip(
            ranked[starts][judged].tolist(),
            starts[judged].tolist(),
            ends[judged].tolist(),
            *(list(map(int, s)) for s in sums),
            strict=True,
        ):
            self.add_total(
                f"{articles[code]} {spot}", end - start, paid_sum, due_sum, den, differ_sum
            )
        voided: dict[str, list[int]] = {}
        for i in rows[group < 0].tolist():
            voided.setdefault(self.void_article(int(self.seat_round[i])), []).append(i)
        for article, listed in voided.items():
            sel = np.array(listed)
            self.add_total(
                f"{article} {spot}",
                len(sel),
                int(paid[sel].sum()),
                int(due_scaled[sel].sum()),
                den,
                int(differs[sel].sum()),
            )

    def check_spot(
        self,
        spot: str,
        i: int,
        dues: SeatDues,
        examined: _Bool,
        void_seat: _Bool,
        detail: Callable[[int], str],
        unstaked: str,
    ) -> None:
        """One spot (log column ``i``) of every seat of the chunk settled by ``dues``: its
        totals, and a finding for every examined seat paid otherwise than due (void rounds:
        nothing due; ``detail(row)`` says what decided a staked seat's due, ``unstaked`` is
        the finding's detail for a payment on a spot without a stake)."""
        a, c = self.a, self.c
        bet, paid = c.arrays.bets[:, i], c.arrays.paid[:, i]
        a.bets[spot] = a.bets.get(spot, Fraction(0)) + Fraction(int(bet.sum()), SCALE)
        a.paid[spot] = a.paid.get(spot, Fraction(0)) + Fraction(int(paid.sum()), SCALE)
        den, codes, names = dues.den, dues.codes, dues.names
        # void rounds: bets void (returned), the progressive carried over: nothing paid
        due_scaled = np.where(void_seat, 0, dues.due)
        a.due[spot] = a.due.get(spot, Fraction(0)) + Fraction(
            int(due_scaled[examined].sum()), den * SCALE
        )
        differs = examined & (paid * den != due_scaled)
        self.totals(
            spot,
            examined & ((bet != 0) | (paid != 0)),
            differs,
            paid,
            due_scaled,
            den,
            codes,
            dues.articles,
            void_seat,
        )
        for row in np.flatnonzero(differs).tolist():
            r = int(self.seat_round[row])
            rule = "" if void_seat[row] else names[int(codes[row])]
            article = self.void_article(r) if void_seat[row] else dues.articles[int(codes[row])]
            if void_seat[row]:
                text = f"void round ({', '.join(c.events[r])}): bets void, nothing paid"
            elif bet[row] == 0:
                text = unstaked
            else:
                text = detail(row)
            self.finding(
                "settlement",
                row,
                r,
                spot=spot,
                article=article,
                rule=rule,
                paid=Fraction(int(paid[row]), SCALE),
                due=Fraction(int(due_scaled[row]), den * SCALE),
                detail=text,
            )

    def add_total(
        self, name: str, spots: int, paid: int, due_scaled: int, den: int, differences: int
    ) -> None:
        """Add a group of settled spots to the total of its article and spot."""
        total = self.a.by_article[name]
        total.spots += spots
        total.paid += Fraction(paid, SCALE)
        total.due += Fraction(due_scaled, den * SCALE)
        total.differences += differences


class _ChunkAudit(ChunkChecks):
    """The arrays of one chunk and the checks run on them."""

    def __init__(self, chunk: RoundChunk, table: SettlementTable, audit: RoundAudit) -> None:
        super().__init__(chunk, audit)
        self.t = table
        self.order: Ordering = table.order
        self.size = self.order.hand_size
        self.spots = SPOTS[chunk.game]
        arrays = chunk.arrays
        self.bets = arrays.bets
        self.paid = arrays.paid
        self.decision = arrays.decision
        # what the hold analysis may use: rounds dealt as one deck and not void, and the seats
        # of those whose bets matched their decision (set by run)
        self.judged_rounds: npt.NDArray[np.bool_] = np.zeros(len(chunk), dtype=bool)
        self.judged_seats: npt.NDArray[np.bool_] = np.zeros(chunk.seats, dtype=bool)
        self.meter = (
            None
            if table.progressive is None
            else ChunkMeter(
                chunk, table.progressive, self.order.categories, audit.meter, self.finding
            )
        )

    def deck(self) -> npt.NDArray[np.bool_]:
        """Rounds whose deal is one deck with the statute's card counts (void rounds are not
        dealt hands and are not judged here)."""
        distinct, seats = one_deck(self.c.arrays)
        # table.seats counts the dealer's seat. Where the statute sets it as a minimum (Q Poker
        # Art. 2(1): eight seats or more) it bounds nothing from above: only the deck does.
        players_allowed = self.order.rules.value_of("table.seats", int) - 1
        too_many = seats > players_allowed
        if self.order.rules.require("table.seats").at_least:
            too_many[:] = False
        bad = (~distinct | too_many) & ~self.void
        for r in np.flatnonzero(bad).tolist():
            if too_many[r]:
                detail = f"{seats[r]} player seats; the table has {players_allowed} (table.seats)"
                rule = "table.seats"
            else:
                detail = f"not one deck: {', '.join(dealt_twice(self.c.arrays, r))} dealt twice"
                rule = "game.hand_size"
            self.finding(
                "deck",
                None,
                r,
                article=str(self.order.rules.require(rule).article),
                rule=rule,
                detail=detail,
            )
        good: npt.NDArray[np.bool_] = ~bad
        return good

    def run(self) -> None:
        c, t, a = self.c, self.t, self.a
        rounds, seats = len(c), c.seats
        a.rounds += rounds
        a.void_rounds += int(self.void.sum())
        a.seats += seats
        dealer = c.arrays.dealer
        players = c.arrays.seat_cards
        dealt = self.deck()
        judged_round = dealt & ~self.void
        judged = judged_round[self.seat_round]
        placeholder = np.arange(self.size, dtype=np.int16)
        kt = key_table(self.order.game, self.order.rules)
        dk = np.empty(rounds, dtype=np.uint32)
        pk = np.empty(seats, dtype=np.uint32)
        kt.keys_into(
            np.ascontiguousarray(
                np.where(judged_round[:, None], dealer, placeholder), dtype=np.uint8
            ),
            dk,
        )
        kt.keys_into(
            np.ascontiguousarray(np.where(judged[:, None], players, placeholder), dtype=np.uint8),
            pk,
        )
        category = (pk >> np.uint32(CATEGORY_SHIFT)).astype(np.int64)
        dealer_key = dk[self.seat_round].astype(np.int64)
        player_key = pk.astype(np.int64)
        qualifies = dealer_key >= t.threshold
        outcome = np.where(
            self.decision == 2,
            FOLD,
            np.where(
                ~qualifies,
                NOT_QUALIFYING,
                np.where(
                    player_key > dealer_key, WIN, np.where(player_key < dealer_key, LOSS, TIE)
                ),
            ),
        ).astype(np.int64)
        self.check_bets(judged)
        self.judged_rounds, self.judged_seats = judged_round, judged.copy()
        void_seat = self.void[self.seat_round]
        for i, spot in enumerate(self.spots):
            bet = self.bets[:, i]
            if spot == "progressive":
                dues = self.progressive(category, bet, judged, void_seat)
            else:
                dues = self.against(spot, outcome, category)

            def detail(row: int, spot: str = spot) -> str:
                text = self.describe(spot, int(outcome[row]), int(category[row]))
                if spot == "progressive" and self.meter is not None:
                    text += self.meter.describe(int(self.seat_round[row]))
                if (
                    spot not in ("pair_plus", "progressive")
                    and outcome[row] in (WIN, LOSS)
                    and player_key[row] >> 2 == dealer_key[row] >> 2
                ):
                    article_of = self.order.articles[int(category[row])]
                    text += f"; equal ranks, decided by suit ({article_of})"
                return text

            examined = judged | void_seat
            if spot == "progressive":
                assert self.meter is not None
                examined &= ~self.meter.unsettled
            self.check_spot(
                spot, i, dues, examined, void_seat, detail, "paid on a spot without a bet"
            )
        if self.meter is not None:
            self.meter.accounting(self.bets[:, self.spots.index("progressive")], self.void, dealt)

    def void_article(self, r: int) -> str:
        """The article under which round ``r`` (of the chunk) is void."""
        return void_article(self.order.game, self.c.events[r])

    def against(self, spot: str, outcome: _Int, category: _Int) -> SeatDues:
        """Due amounts in 1/(den*SCALE) units of a spot settled by the player's category and
        the outcome against the dealer, and each seat's deciding rule (a code into names)."""
        t = self.t
        st = t.spots[spot]
        bet = self.bets[:, self.spots.index(spot)]
        row = np.zeros_like(outcome) if spot == "pair_plus" else outcome
        due = bet * st.numerators[row, category]
        den = st.denominator
        if spot == "raise" and t.maximum_payout > 0:
            cap = t.maximum_payout * SCALE * den
            assert cap.denominator == 1
            capped = t.capped[category] & (outcome == WIN)
            due = np.where(capped, np.minimum(due, int(cap)), due)

        names = tuple(key for by_category in st.keys for key in by_category)
        articles = tuple(t.article(n) for n in names)
        return SeatDues(due, den, row * len(st.keys[0]) + category, names, articles)

    def progressive(
        self, category: _Int, bet: _Int, judged: npt.NDArray[np.bool_], void_seat: _Bool
    ) -> SeatDues:
        """Caribbean Stud's progressive (Art. 10): every seat's prize by the statute's order
        (rounds/meter.py), less the bet."""
        assert self.meter is not None
        return self.meter.dues(category, bet, judged, void_seat)

    def check_bets(self, judged: npt.NDArray[np.bool_]) -> None:
        """Bets consistent with the decision: a bet against the dealer exactly when a decision
        is logged; Caribbean Stud's raise exactly raise_multiple antes; the progressive bet
        exactly the posted bet."""
        c, t = self.c, self.t
        spots = self.spots
        decided = self.decision != 0
        if c.game == "q-poker":
            stake = self.bets[:, spots.index("play")]
            bad = decided != (stake > 0)
            rule = "play.initial_bet"
            text = "a follow/fold decision exactly when 與莊荷博彩 has a bet"
        else:
            ante = self.bets[:, spots.index("ante")]
            raised = self.bets[:, spots.index("raise")]
            rm = t.raise_multiple
            want = np.where(self.decision == 1, ante * rm.numerator // rm.denominator, 0)
            prog = self.bets[:, spots.index("progressive")]
            pbet = int(t.progressive_bet * SCALE)
            bad = (decided != (ante > 0)) | (raised != want) | ((prog != 0) & (prog != pbet))
            bad |= (self.decision == 1) & (ante * rm.numerator % rm.denominator != 0)
            rule = "play.raise_multiple"
            text = (
                f"a raise of exactly {rm} x the ante when raising, none on folding, a decision "
                f"exactly when the ante is bet, a progressive bet of 0 or {t.progressive_bet}"
            )
        for row in np.flatnonzero(bad & judged).tolist():
            self.finding(
                "bet",
                row,
                int(self.seat_round[row]),
                article=t.article(rule),
                rule=rule,
                detail=f"bets do not match the decision: expected {text}",
            )
            judged[row] = False
        if c.game == "caribbean-stud":
            # Art. 10(1): the progressive needs an accepted ante as well
            prog = self.bets[:, spots.index("progressive")]
            orphan = (prog > 0) & (self.bets[:, spots.index("ante")] == 0) & judged
            for row in np.flatnonzero(orphan).tolist():
                self.finding(
                    "bet",
                    row,
                    int(self.seat_round[row]),
                    spot="progressive",
                    article=t.article("progressive.bet"),
                    rule="progressive.bet",
                    detail="a progressive bet without an ante is not accepted (Art. 10(1))",
                )
                judged[row] = False

    def describe(self, spot: str, outcome: int, category: int) -> str:
        name = self.order.categories[category]
        if spot in ("pair_plus", "progressive"):
            return f"the player's {name}"
        if outcome == WIN:
            return f"win with {name} against a qualifying dealer"
        return f"{OUTCOMES[outcome]} (player's {name})"


@dataclass(frozen=True)
class RoundShard:
    """One log and the audit's options as plain values (sent to a worker)."""

    path: str
    game: str
    rules: RuleFile
    hold: HoldParameters | None


@dataclass
class FileAudit:
    """What one log's audit returns: its totals, findings and meter accounting (no long-run
    return, no hold verdict) and the hold analysis's exact sums."""

    audit: RoundAudit
    hold: HoldState | None


def _audit_file(
    path: str | Path,
    order: Ordering,
    table: SettlementTable,
    hold: HoldParameters | None,
    last: dict[str, tuple[int, str]],
    progress: Callable[[int], None] | None = None,
) -> FileAudit:
    """One log, from the meter state ``last`` (table id -> its last round's meter)."""
    audit = RoundAudit(order.game, str(order.rules.path), order.rules.sha256)
    audit.files.append(str(path))
    audit.meter.last = last
    analysis = None if hold is None else HoldAnalysis(order, hold)
    clock = RoundClock(str(path))
    for chunk in read_rounds(path, order.game):
        clock.check(chunk)
        audit.tables.update(chunk.table_id)
        checked = _ChunkAudit(chunk, table, audit)
        checked.run()
        if analysis is not None:
            analysis.add(chunk, checked.judged_rounds, checked.judged_seats)
        if progress is not None:
            progress(len(chunk))
        del chunk, checked  # not kept while the next chunk is read: memory stays at a few
    return FileAudit(audit, None if analysis is None else analysis.state())


def audit_shard(shard: RoundShard) -> FileAudit:
    """One log audited where it runs (a Dask worker reads the file itself), as its own
    stream: the meter's continuity starts afresh at the file's first round of each table."""
    order = ordering(shard.game, shard.rules)
    return _audit_file(shard.path, order, settlement_table(order), shard.hold, {})


def _merge(
    order: Ordering, table: SettlementTable, parts: Sequence[FileAudit], hold: HoldParameters | None
) -> RoundAudit:
    """The files' audits added up in file order (every total is exact: integers and
    fractions; the first MAX_LISTED findings in file order are listed)."""
    audit = RoundAudit(order.game, str(order.rules.path), order.rules.sha256)
    audit.progressive = table.progressive
    analysis = None if hold is None else HoldAnalysis(order, hold)
    for part in parts:
        audit.absorb(part.audit)
        if analysis is not None and part.hold is not None:
            analysis.absorb(part.hold)
    if analysis is not None:
        audit.hold = analysis.result()
    return audit


def audit_rounds(
    paths: Sequence[str | Path],
    order: Ordering,
    progress: Callable[[int], None] | None = None,
    hold: HoldParameters | None = None,
    executor: Executor | None = None,
    shard_progress: ShardProgress | None = None,
) -> RoundAudit:
    """Audit every round of the logs under the ordering's rule file; with ``hold``, also the
    observed hold against its exact expectation and the dealt-hand frequencies.

    Each log is audited on its own (locally, or with ``executor`` on a Dask cluster: one
    shard per log, largest first, read where it runs) and the results are added up in file
    order; the meter's continuity between files is checked as they are added (a table's
    first round in a file against its last round in the files before), so the two answers
    are identical."""
    table = settlement_table(order)
    if executor is None:
        parts = [_audit_file(path, order, table, hold, {}, progress) for path in paths]
    else:
        shards = [RoundShard(str(p), order.game, order.rules, hold) for p in paths]
        ranked = largest_first(paths)
        done = executor.map(audit_shard, [shards[i] for i in ranked], shard_progress)
        parts = [done[ranked.index(i)] for i in range(len(shards))]  # back in file order
    return _merge(order, table, parts, hold)
