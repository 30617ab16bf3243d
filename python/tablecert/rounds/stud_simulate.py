"""Seeded round logs of a game described by its rule file (``tablecert simulate rounds --game
FILE``): random deals from one deck, random play, every bet settled by the description.

Each round seats one to ``seats`` players; the dealer's cards and every seat's are drawn
together from one shuffled deck (the dealer's first card is the upcard where the game deals
one face up). Each seat stakes an ante from a menu, takes one of the game's decisions at
random (fold, or each allowed raise, or the follow, equally likely: the log exercises every
outcome the game has, it does not play well) and stakes each side bet from a menu (nothing
included); every bet is settled by :meth:`StudSettlement.settle`, the scalar reading of the
tables the round audit reads as arrays. Rounds are one a second from 2026-03-01 10:00 UTC.

Where the file has a ``[progressive]``, every seat then places the progressive bet (the
posted ``progressive.bet``) or not, equally likely, as the dedicated games' simulator does;
the table's meter starts at ``progressive.meter``, and each round's prizes and meter after it
are the file's terms' (``Progressive.pay_round``: the order of the round's winners, the
meter's shares, its restart from the seed and its contributions), settled by the dedicated
simulator's own code (``rounds/progressive_round.py``) and logged in ``meter_before`` and
``meter_after``. Without a progressive nothing of this is drawn or written: the same rounds
and bytes as before the progressive was played.

The rounds are streamed: one round at a time through the writer into the output (CSV, or
JSON Lines when the name has ``.jsonl``; gzip when it ends in ``.gz``, with no time or name in
its header), written atomically; a seed gives the same bytes. Python's ``random.Random`` is
the generator (one call sequence per round, documented by the code below), so that the tests'
generator of planted logs (``tests/support/stud_rounds.py``) draws the same rounds from it.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any, TextIO

from tablecert import _core
from tablecert.errors import AuditError
from tablecert.games.stud_settle import CATEGORY_SHIFT, StudSettlement, stud_settlement
from tablecert.io.outputs import atomic_file
from tablecert.rounds.log import SCALE, amount_text
from tablecert.rounds.progressive_round import settle_progressive
from tablecert.rounds.stud_audit import log_spec
from tablecert.rules import RuleFile

#: The antes a seat stakes, and each side bet's stakes (0: not played), in currency units.
ANTES = (10, 20, 50)
SIDE_STAKES = (0, 5, 10)
#: The most players a simulated round seats by default.
SEATS = 3
START = datetime(2026, 3, 1, 10, tzinfo=UTC)


@dataclass
class StudSeat:
    """One seat as logged: its cards, its decision (a log's name for it), its stakes and its
    net results, by bet id."""

    number: int
    cards: list[int]
    decision: str
    stakes: dict[str, Fraction]
    paid: dict[str, Fraction] = field(default_factory=dict)


@dataclass
class StudRound:
    """One round: its id, the dealer's cards (the upcard first) and its seats; the table's
    meter before and after it where the game has a progressive (None: no meter)."""

    round_id: str
    dealer: list[int]
    seats: list[StudSeat]
    meter_before: Fraction | None = None
    meter_after: Fraction | None = None


class StudPlay:
    """The random source of a simulated table of a described game: how many seats play, the
    deal, each seat's stakes and decision. Its calls draw from one seeded generator in the
    order they are made."""

    def __init__(self, st: StudSettlement, seed: int) -> None:
        self.st = st
        self.rng = random.Random(seed)
        deal = st.description.deal
        self.player_cards = deal.player_cards.value
        self.dealer_cards = deal.dealer_cards.value

    def seat_count(self, seats: int) -> int:
        """How many players this round seats: one to ``seats``, equally likely."""
        return self.rng.randint(1, seats)

    def deal(self, seats: int) -> tuple[list[int], list[list[int]]]:
        """The dealer's cards and each seat's, drawn together from one deck."""
        cards = self.rng.sample(range(52), self.dealer_cards + seats * self.player_cards)
        dealer, rest = cards[: self.dealer_cards], cards[self.dealer_cards :]
        size = self.player_cards
        return dealer, [rest[i * size : (i + 1) * size] for i in range(seats)]

    def play(self, number: int, cards: list[int]) -> StudSeat:
        """A seat's ante, its decision (fold or each decision of the game, equally likely)
        and its side bets' stakes; not yet settled."""
        st = self.st
        ante = Fraction(self.rng.choice(ANTES))
        choice = self.rng.randrange(len(st.decisions))
        stakes = {st.against[0]: ante}
        if "raise" in st.against:
            stakes["raise"] = ante * st.multiples[choice]
        for bet in st.bets[len(st.against) :]:
            stakes[bet] = Fraction(self.rng.choice(SIDE_STAKES))
        return StudSeat(number, cards, st.decisions[choice], stakes)

    def progressive_bet(self, seat: StudSeat) -> None:
        """The seat's progressive bet: the posted bet or none, equally likely (a game with a
        progressive only; drawn after every seat's play)."""
        prog = self.st.progressive
        assert prog is not None
        seat.stakes["progressive"] = prog.bet if self.rng.random() < 0.5 else Fraction(0)


def settle_seat(st: StudSettlement, seat: StudSeat, dealer: list[int]) -> dict[str, Fraction]:
    """Every bet of a seat, settled by the description."""
    decision = st.decisions.index(seat.decision)
    paid = st.settle(seat.cards, dealer, decision, [seat.stakes[b] for b in st.bets])
    return dict(zip(st.bets, paid, strict=True))


def settle_progressive_seats(
    st: StudSettlement, table: list[StudSeat], meter_before: Fraction
) -> Fraction:
    """The round's progressive by the file's terms: each seat's net result on it (in its
    ``paid``, 0 without a bet); returns the table's meter after the round."""
    prog = st.progressive
    assert prog is not None
    categories = st.categories
    seats = [
        (
            seat.number,
            categories[st.player_key(seat.cards) >> CATEGORY_SHIFT].replace("-", " "),
            seat.stakes["progressive"],
        )
        for seat in table
    ]
    payment, nets = settle_progressive(prog, meter_before, seats)
    for seat, net in zip(table, nets, strict=True):
        seat.paid["progressive"] = net
    return payment.meter_after


def simulate(st: StudSettlement, count: int, seed: int, seats: int = SEATS) -> Iterator[StudRound]:
    """``count`` seeded rounds of clean play, one at a time; with a progressive, the table's
    meter runs on from ``progressive.meter`` round by round."""
    play = StudPlay(st, seed)
    prog = st.progressive
    meter = None if prog is None else prog.meter
    for i in range(count):
        dealer, hands = play.deal(play.seat_count(seats))
        table = [play.play(k + 1, hand) for k, hand in enumerate(hands)]
        for seat in table:
            seat.paid = settle_seat(st, seat, dealer)
        if meter is None:
            yield StudRound(str(i + 1), dealer, table)
            continue
        for seat in table:
            play.progressive_bet(seat)
        before, meter = meter, settle_progressive_seats(st, table, meter)
        yield StudRound(str(i + 1), dealer, table, before, meter)


def _amount(value: Fraction) -> str:
    units = value * SCALE
    if units.denominator != 1:
        raise AuditError(f"amount {value} has more than the log's decimal places")
    return amount_text(int(units))


def _cards(cards: Iterable[int]) -> str:
    return " ".join(_core.card_code(c) for c in cards)


def round_record(
    st: StudSettlement, rnd: StudRound, index: int, table_id: str = "T1"
) -> dict[str, Any]:
    """A round as a JSON Lines record (the ``index``-th round of the log: its timestamp).
    Every bet a log holds is written, a bet the seat did not make as 0; the table's meter
    before and after the round where the round has one (a round without one leaves it out:
    not logged, as a table that does not offer the progressive logs it)."""
    upcards = st.description.deal.upcards.value
    meter = (
        {}
        if rnd.meter_before is None or rnd.meter_after is None
        else {"meter_before": _amount(rnd.meter_before), "meter_after": _amount(rnd.meter_after)}
    )
    return {
        "table_id": table_id,
        "round_id": rnd.round_id,
        "timestamp": (START + timedelta(seconds=index)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dealer": _cards(rnd.dealer),
        "upcard": _core.card_code(rnd.dealer[0]) if upcards else "",
        **meter,
        "seats": [
            {
                "seat": s.number,
                "cards": _cards(s.cards),
                "decision": s.decision,
                "bets": {b: _amount(s.stakes.get(b, Fraction(0))) for b in st.columns},
                "paid": {b: _amount(s.paid.get(b, Fraction(0))) for b in st.columns},
            }
            for s in rnd.seats
        ],
    }


def write_records(
    out: TextIO, st: StudSettlement, records: Iterable[dict[str, Any]], *, jsonl: bool
) -> None:
    """Records as a log: JSON Lines, or CSV with the description's columns (one row a seat)."""
    if jsonl:
        for record in records:
            out.write(json.dumps(record) + "\n")
        return
    bets = st.columns
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(log_spec(st).columns)
    for record in records:
        head = [record[k] for k in ("table_id", "round_id", "timestamp", "dealer", "upcard")]
        meter = (record.get("meter_before", ""), record.get("meter_after", ""))
        for seat in record["seats"]:
            writer.writerow(
                [
                    *head,
                    *meter,
                    "",  # events
                    seat["seat"],
                    seat["cards"],
                    seat["decision"],
                    *(seat["bets"][b] for b in bets),
                    *(seat["paid"][b] for b in bets),
                ]
            )


def write_stud_rounds(
    path: str | Path,
    rules: RuleFile,
    rounds: int,
    *,
    seed: int = 0,
    seats: int = SEATS,
    table_id: str = "T1",
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Write ``rounds`` seeded rounds of the game ``rules`` describes to ``path``, streamed
    and atomically; returns the path."""
    path = Path(path)
    st = stud_settlement(rules)
    log_spec(st)  # a game whose bets no log holds is refused before anything is written

    def records() -> Iterator[dict[str, Any]]:
        for i, rnd in enumerate(simulate(st, rounds, seed, seats)):
            yield round_record(st, rnd, i, table_id)
            if progress is not None:
                progress(1)

    jsonl = ".jsonl" in path.name
    with atomic_file(path) as handle:
        packed = (
            gzip.GzipFile(filename="", mode="wb", fileobj=handle, mtime=0)
            if path.name.endswith(".gz")
            else None
        )
        text = io.TextIOWrapper(packed or handle, encoding="utf-8", newline="")
        write_records(text, st, records(), jsonl=jsonl)
        text.flush()
        text.detach()
        if packed is not None:
            packed.close()  # the gzip trailer; the file itself is the atomic writer's
    return path
