"""Seeded round logs: optimal play, settlement by the statute, and a chosen share of planted
errors of each kind, recorded in a side file so that an audit can be checked against them.

Settlement here is the scalar, one-seat-at-a-time reading of ``settle.per_unit`` (the audit
does the same arithmetic on arrays): the two agree on every clean round, which the tests check.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import AuditError
from tablecert.games.progressive import RoundPayment, meter_hands
from tablecert.games.settle import CATEGORY_SHIFT, SettlementTable, per_unit, settlement_table
from tablecert.hand_arrays import key_table
from tablecert.io.outputs import atomic_file, write_atomic
from tablecert.poker import Ordering
from tablecert.rounds.log import SCALE, SPOTS, amount_text, csv_columns
from tablecert.rounds.progressive_round import disjoint_meter_hands, settle_progressive

#: Planted error kinds, by game.
KINDS: dict[str, tuple[str, ...]] = {
    "q-poker": ("straight", "non-qualifying", "suit-tie", "pair-plus", "duplicate", "void-paid"),
    "caribbean-stud": (
        "straight",
        "non-qualifying",
        "suit-tie",
        "cap",
        "progressive",
        "duplicate",
        "void-paid",
        "meter-contribution",
        "meter-restart",
        "meter-order",
        "meter-sharing",
        "meter-carry",
    ),
}
VOID_SHARE = 0.002  # clean void rounds (everything returned), so that voids are exercised
#: Caribbean Stud: clean rounds dealt with several meter prizes (straight flushes and royals
#: together), so that the statute's order and sharing are exercised; and the meter hands each
#: kind is dealt with.
MULTI_SHARE = 0.002
MULTI_DEALS = (
    ("straight flush", "straight flush", "royal flush"),
    ("royal flush", "royal flush"),
    ("straight flush", "straight flush"),
    ("straight flush", "royal flush"),
    ("royal flush",),
    ("straight flush",),
)
METER_DEALS = {
    "meter-restart": ("royal flush",),
    "meter-order": ("straight flush", "royal flush"),
    "meter-sharing": ("straight flush", "straight flush"),
}
START = datetime(2026, 3, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Planted:
    table_id: str
    round_id: str
    kind: str
    seat: int  # 0: the round as a whole
    spot: str

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "round_id": self.round_id,
            "kind": self.kind,
            "seat": self.seat,
            "spot": self.spot,
        }


def colex_indices(hands: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The colex index of each hand (rows of distinct card ids), as ``_core.colex_index``."""
    ordered = np.sort(hands, axis=1)
    table = np.array([[comb(n, k) for k in range(6)] for n in range(53)], dtype=np.int64)
    out: npt.NDArray[np.int64] = np.sum(
        [table[ordered[:, i], i + 1] for i in range(ordered.shape[1])], axis=0
    )
    return out


def optimal_decider(
    order: Ordering,
) -> Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], npt.NDArray[np.bool_]]:
    """The existing strategy as a vector function: (hands, upcards) -> follow/raise."""
    if order.game == "q-poker":
        from tablecert.games import q_poker

        qa = q_poker.analyze(order.rules)
        follows = np.zeros(comb(52, 3), dtype=bool)
        for index in range(len(follows)):
            follows[index] = qa.hand(list(_core.hand_at(index, 3))).decision == "follow"

        def q_decide(
            hands: npt.NDArray[np.int64], upcards: npt.NDArray[np.int64]
        ) -> npt.NDArray[np.bool_]:
            return follows[colex_indices(hands)]

        return q_decide
    from tablecert.games import caribbean_stud

    ca = caribbean_stud.analyze(order.rules)
    bits = np.frombuffer(ca.decisions, dtype="<u8")

    def c_decide(
        hands: npt.NDArray[np.int64], upcards: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.bool_]:
        words = bits[colex_indices(hands)]
        return ((words >> upcards.astype(np.uint64)) & np.uint64(1)).astype(bool)

    return c_decide


class _Simulator:
    def __init__(
        self,
        order: Ordering,
        seed: int,
        share: float,
        kinds: tuple[str, ...],
        multi_share: float = MULTI_SHARE,
    ) -> None:
        self.order = order
        self.table: SettlementTable = settlement_table(order)
        self.rng = np.random.default_rng(seed)
        self.share = share
        self.multi_share = multi_share
        self.kinds = kinds
        self.size = order.hand_size
        self.spots = SPOTS[order.game]
        self.kt = key_table(order.game, order.rules)
        self.decide = optimal_decider(order)
        self.players = order.rules.value_of("table.seats", int) - 1
        self.prog = self.table.progressive
        self.meter = Fraction(0) if self.prog is None else self.prog.meter
        self.forced: tuple[int, ...] = ()  # seat rows dealt meter hands: progressive bets

    def keys(self, hands: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        out = np.empty(len(hands), dtype=np.uint32)
        self.kt.keys_into(np.ascontiguousarray(hands, dtype=np.uint8), out)
        return out.astype(np.int64)

    def deal(self, kind: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int] | None:
        """(dealer, seats' hands, target seat row) for a planted kind, or a plain deal."""
        size, rng = self.size, self.rng
        n = int(rng.integers(1, self.players + 1))
        self.forced = ()
        if kind in METER_DEALS or kind == "multi":
            hands = METER_DEALS.get(kind) or MULTI_DEALS[int(rng.integers(len(MULTI_DEALS)))]
            return self.meter_deal(hands, max(n, len(hands)))
        if not kind:
            deck = rng.permutation(52).astype(np.int64)
            return deck[:size], deck[size : size + n * size].reshape(n, size), 0
        for _ in range(200):
            decks = np.argsort(rng.random((512, 52)), axis=1)
            dealer = decks[:, :size]
            first = decks[:, size : 2 * size]
            dk, pk = self.keys(dealer), self.keys(first)
            qual = dk >= self.table.threshold
            cat = pk >> CATEGORY_SHIFT
            names = self.order.categories
            ups = dealer[:, 0]
            follows = self.decide(first, ups)
            if kind == "straight":
                ok = (cat == names.index("straight")) & qual & (pk > dk) & follows
            elif kind == "non-qualifying":
                ok = ~qual & follows
            elif kind == "suit-tie":
                ok = np.zeros(len(decks), dtype=bool)
                for i in range(len(decks)):
                    built = self.suit_twin(first[i], decks[i])
                    if built is not None:
                        d_key = int(self.keys(built[None, :])[0])
                        if d_key >= self.table.threshold and bool(
                            self.decide(first[i : i + 1], built[:1])[0]
                        ):
                            rest = [c for c in decks[i] if c not in built and c not in first[i]]
                            deck = np.array([*built, *first[i], *rest], dtype=np.int64)
                            decks[i] = deck
                            ok[i] = True
                            break
            elif kind == "cap":
                return self.four_of_a_kind(n)
            elif kind in ("pair-plus", "progressive"):
                paying = (
                    cat >= names.index("pair")
                    if kind == "pair-plus"
                    else np.isin(
                        cat, [names.index(c) for c in ("flush", "full house", "four of a kind")]
                    )
                )
                ok = paying
            else:
                ok = np.ones(len(decks), dtype=bool)
            hits = np.flatnonzero(ok)
            if len(hits):
                deck = decks[int(hits[0])]
                seats = deck[size : size + n * size].reshape(n, size)
                return deck[:size].copy(), seats.copy(), 0
        return None

    def meter_deal(
        self, categories: tuple[str, ...], n: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
        """A deal where random seats hold disjoint hands of the given categories (royal or
        straight flush), the rest of the deck shuffled to the dealer and the other seats."""
        rng, size = self.rng, self.size
        used, chosen = disjoint_meter_hands(categories, lambda n: int(rng.integers(n)))
        rest = np.array([c for c in rng.permutation(52) if not used >> int(c) & 1])
        rows = sorted(rng.choice(n, len(chosen), replace=False).tolist())
        spare = (len(rest) - size) // size * size
        others = iter(rest[size : size + spare].reshape(-1, size).tolist())
        hands = np.array(
            [rng.permutation(chosen.pop(0)) if i in rows else next(others) for i in range(n)],
            dtype=np.int64,
        )
        self.forced = tuple(rows)
        return rest[:size].astype(np.int64), hands, rows[0]

    def suit_twin(
        self, hand: npt.NDArray[np.int64], deck: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64] | None:
        """A hand of the same ranks in other suits, disjoint from ``hand``."""
        for shift in (1, 2, 3):
            twin = (hand // 4) * 4 + (hand % 4 + shift) % 4
            if not set(twin.tolist()) & set(hand.tolist()):
                return twin
        return None

    def four_of_a_kind(self, n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
        rng, size = self.rng, self.size
        while True:
            rank = int(rng.integers(13))
            quad = [rank * 4 + s for s in range(4)]
            rest = np.array([c for c in rng.permutation(52) if c not in quad], dtype=np.int64)
            hand = np.array([*quad, rest[0]], dtype=np.int64)
            dealer = rest[1 : 1 + size]
            if int(self.keys(dealer[None, :])[0]) >= self.table.threshold:
                others = rest[1 + size : 1 + size + (n - 1) * size].reshape(n - 1, size)
                return dealer, np.vstack([hand[None, :], others]), 0

    def bets(self, kind: str) -> dict[str, Fraction]:
        rng = self.rng
        if self.order.game == "q-poker":
            pair_plus = Fraction(int(rng.choice([0, 5, 10, 25])))
            if kind == "pair-plus":
                pair_plus = Fraction(10)
            play = Fraction(int(rng.choice([0, 10, 15, 20, 50, 100])))
            if kind in ("straight", "non-qualifying", "suit-tie") and play == 0:
                play = Fraction(10)
            return {"pair_plus": pair_plus, "play": play}
        ante = Fraction(int(rng.choice([10, 25, 50, 100])))
        if kind == "cap":
            ante = Fraction(self.table.maximum_payout // 20 + 50)
        prog = (
            self.table.progressive_bet
            if (rng.random() < 0.5 or kind == "progressive")
            else Fraction(0)
        )
        return {"ante": ante, "raise": Fraction(0), "progressive": prog}

    def settle(
        self,
        player_key: int,
        dealer_key: int,
        decision: str,
        bets: dict[str, Fraction],
    ) -> dict[str, Fraction]:
        """One seat's net results by the statute (scalar reading of per_unit)."""
        order, t = self.order, self.table
        category = order.categories[player_key >> CATEGORY_SHIFT]
        if decision == "fold":
            outcome = "fold"
        elif dealer_key < t.threshold:
            outcome = "dealer does not qualify"
        else:
            outcome = (
                "win" if player_key > dealer_key else "loss" if player_key < dealer_key else "tie"
            )
        out = {}
        for spot in self.spots:
            bet = bets[spot]
            if spot == "progressive":  # the round's prizes together: pay_round
                out[spot] = Fraction(0)
                continue
            if bet == 0 or (spot != "pair_plus" and not decision):
                out[spot] = Fraction(0)
                continue
            value = bet * per_unit(order, spot, outcome, category)[0]
            if (
                spot == "raise"
                and outcome == "win"
                and t.maximum_payout > 0
                and t.capped[player_key >> CATEGORY_SHIFT]
            ):
                value = min(value, t.maximum_payout)
            out[spot] = value
        return out

    def rounds(self, count: int, table_id: str) -> Iterator[tuple[dict[str, Any], list[Planted]]]:
        rng = self.rng
        planted_kinds = list(self.kinds)
        for r in range(1, count + 1):
            kind = ""
            draw = rng.random()
            if planted_kinds and draw < self.share * len(planted_kinds):
                kind = planted_kinds[int(draw / self.share) % len(planted_kinds)]
            elif draw < self.share * len(planted_kinds) + VOID_SHARE:
                kind = "void"
            elif self.prog is not None and draw < (
                self.share * len(planted_kinds) + VOID_SHARE + self.multi_share
            ):
                kind = "multi"  # clean: several meter prizes settled by the statute
            dealt = self.deal(
                kind if kind not in ("duplicate", "void-paid", "void", "meter-carry") else ""
            )
            if dealt is None:
                raise AuditError(f"could not deal a round for the planted kind {kind!r}")
            yield self.round(r, table_id, kind, *dealt)

    def round(
        self,
        number: int,
        table_id: str,
        kind: str,
        dealer: npt.NDArray[np.int64],
        hands: npt.NDArray[np.int64],
        target: int,
    ) -> tuple[dict[str, Any], list[Planted]]:
        rng = self.rng
        game = self.order.game
        dk = int(self.keys(dealer[None, :])[0])
        pks = self.keys(hands)
        upcard = int(dealer[0])
        follows = self.decide(hands, np.full(len(hands), upcard))
        seat_numbers = sorted(
            rng.choice(np.arange(1, self.players + 1), len(hands), replace=False).tolist()
        )
        void = kind in ("void", "void-paid")
        if kind == "meter-carry" and number == 1:
            kind = ""  # the first round has no previous round to differ from
        if kind == "meter-carry":  # the table's meter jumps between two rounds
            self.meter += 100
        if kind == "meter-contribution":
            self.forced = (target,)
        meter_before = self.meter
        round_id = str(number)
        all_bets, all_paid, decisions = [], [], []
        for i in range(len(hands)):
            bets = self.bets("progressive" if i in self.forced else (kind if i == target else ""))
            stake = "play" if game == "q-poker" else "ante"
            decision = ""
            if bets[stake]:
                decision = ("follow" if game == "q-poker" else "raise") if follows[i] else "fold"
            if game == "caribbean-stud" and decision == "raise":
                bets["raise"] = bets["ante"] * self.table.raise_multiple
            if (
                kind in ("straight", "non-qualifying", "suit-tie", "cap")
                and i == target
                and not decision
            ):
                decision = "follow" if game == "q-poker" else "raise"
            paid = (
                {s: Fraction(0) for s in self.spots}
                if void
                else self.settle(int(pks[i]), dk, decision, bets)
            )
            all_bets.append(bets)
            all_paid.append(paid)
            decisions.append(decision)
        meter_after = meter_before
        contributed = Fraction(0)
        if self.prog is not None and not void:
            contributed = self.prog.contribution * sum(
                (b["progressive"] for b in all_bets), Fraction(0)
            )
            payment, nets = settle_progressive(
                self.prog,
                meter_before,
                [
                    (
                        seat_numbers[i],
                        self.order.categories[int(pks[i]) >> CATEGORY_SHIFT],
                        b["progressive"],
                    )
                    for i, b in enumerate(all_bets)
                ],
            )
            for i, b in enumerate(all_bets):
                if b["progressive"]:
                    all_paid[i]["progressive"] = nets[i]
            meter_after = payment.meter_after
            target = self.meter_target(kind, payment, seat_numbers, target)
        planted: list[Planted] = []
        if kind and kind not in ("void", "multi"):
            spot = self.plant(kind, all_paid[target], all_bets[target], int(pks[target]), dk)
            if kind.startswith("meter-"):
                meter_after = self.plant_meter(kind, all_paid[target], payment, contributed)
                spot = "progressive"
            if kind == "duplicate":
                hands[target][0] = dealer[int(rng.integers(self.size))]
            whole_round = kind in (
                "duplicate",
                "meter-contribution",
                "meter-restart",
                "meter-carry",
            )
            planted.append(
                Planted(table_id, round_id, kind, 0 if whole_round else seat_numbers[target], spot)
            )
        self.meter = meter_after
        seats = [
            {
                "seat": seat_numbers[i],
                "cards": " ".join(_core.card_code(int(c)) for c in hand),
                "decision": decisions[i],
                "bets": {s: _amount(v) for s, v in all_bets[i].items()},
                "paid": {s: _amount(v) for s, v in all_paid[i].items()},
            }
            for i, hand in enumerate(hands)
        ]
        record: dict[str, Any] = {
            "table_id": table_id,
            "round_id": round_id,
            "timestamp": (START + timedelta(seconds=45 * number)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "dealer": " ".join(_core.card_code(int(c)) for c in dealer),
            "upcard": _core.card_code(upcard) if game == "caribbean-stud" else "",
            "meter_before": _amount(meter_before) if game == "caribbean-stud" else "",
            "meter_after": _amount(meter_after) if game == "caribbean-stud" else "",
            "events": ["void"] if void else [],
            "seats": seats,
        }
        return record, planted

    def meter_target(
        self, kind: str, payment: RoundPayment, seat_numbers: list[int], target: int
    ) -> int:
        """The seat row a meter kind goes wrong at: the royal paid before the straight flush
        (meter-order), the second straight flush in payment order (meter-sharing)."""
        if kind == "meter-order":
            royal = next(p for p in payment.prizes if p.category == "royal flush")
            return seat_numbers.index(royal.seat)
        if kind == "meter-sharing":
            second = [p for p in payment.prizes if p.category == "straight flush"][1]
            return seat_numbers.index(second.seat)
        return target

    def plant_meter(
        self,
        kind: str,
        paid: dict[str, Fraction],
        payment: RoundPayment,
        contributed: Fraction,
    ) -> Fraction:
        """A meter error the way a table gets it wrong; returns the round's meter_after.
        meter-contribution: the contributions never added; meter-restart: an emptied meter
        restarted from 0, not the seed; meter-order: the royal paid the whole meter as if
        before the straight flush; meter-sharing: the target straight flush paid its share
        of the other base than the rule file's reading (meter before the round / what the
        earlier straight flushes left)."""
        prog = self.prog
        assert prog is not None
        after = payment.meter_after
        if kind == "meter-contribution":
            return after - contributed
        if kind == "meter-restart":
            return after - prog.seed
        if kind == "meter-order":
            paid["progressive"] += prog.down(payment.meter_before) - payment.prizes[-1].prize
        elif kind == "meter-sharing":
            first, second = [p for p in payment.prizes if p.category == "straight flush"][:2]
            share = prog.prize_of("straight flush")
            assert share is not None
            base = payment.meter_before
            if prog.straight_flush_base == "meter-before":
                base -= first.prize
            wrong = max(share.fixed, prog.down(share.meter_share * base))
            paid["progressive"] += (wrong - second.prize) or prog.prize_unit
        return after

    def plant(
        self, kind: str, paid: dict[str, Fraction], bets: dict[str, Fraction], pk: int, dk: int
    ) -> str:
        """Change one seat's settlement the way the kind goes wrong; the spot it changed."""
        order = self.order
        q_poker = order.game == "q-poker"
        spot = "play" if q_poker else "raise"
        category = order.categories[pk >> CATEGORY_SHIFT]
        if kind == "straight":  # paid as an ordinary win (1 to 1)
            paid[spot] = bets[spot] if q_poker else bets["raise"]
            if not q_poker:
                paid[spot] = bets["raise"] * 2
        elif kind == "non-qualifying":  # a non-qualifying dealer's round paid as a win
            paid[spot] = bets[spot] * per_unit(order, spot, "win", category)[0]
            if (
                spot == "play"
                and paid[spot]
                == bets[spot] * per_unit(order, spot, "dealer does not qualify", category)[0]
            ):
                paid[spot] += bets[spot]
        elif kind == "suit-tie":  # the suit tie-break decided the other way
            other = "loss" if pk > dk else "win"
            paid[spot] = bets[spot] * per_unit(order, spot, other, category)[0]
            if not q_poker:
                paid["ante"] = bets["ante"] * per_unit(order, "ante", other, category)[0]
        elif kind == "cap":  # the raise paid in full, above the per-round maximum
            paid[spot] = bets["raise"] * per_unit(order, "raise", "win", category)[0]
        elif kind == "pair-plus":  # 多寶 paid one step low
            spot = "pair_plus"
            paid[spot] -= bets[spot]
        elif kind == "progressive":  # the fixed prize paid without deducting the bet... plus one
            spot = "progressive"
            paid[spot] += bets[spot]
        elif kind == "duplicate":
            spot = ""
        elif kind.startswith("meter-"):  # plant_meter
            spot = "progressive"
        elif kind == "void-paid":  # a void round's stake taken
            spot = "pair_plus" if q_poker else "ante"
            paid[spot] = -bets[spot] if bets[spot] else Fraction(-1)
            if not bets[spot]:
                bets[spot] = Fraction(1)
        return spot


def _amount(value: Fraction) -> str:
    return amount_text(_units(value, "amount"))


def write_rounds(
    path: str | Path,
    order: Ordering,
    rounds: int,
    *,
    seed: int = 0,
    share: float = 0.0,
    multi_share: float = MULTI_SHARE,
    kinds: tuple[str, ...] | None = None,
    table_id: str = "T1",
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Write a seeded round log (JSON Lines if the name has ``.jsonl``, else CSV; gzip if it
    ends in ``.gz``) and its planted errors to ``<path>.planted.json``; returns that path."""
    path = Path(path)
    known = KINDS[order.game]
    chosen = known if kinds is None else kinds
    for k in chosen:
        if k not in known:
            raise AuditError(
                f"unknown planted error kind {k!r} for {order.game} (known: {', '.join(known)})"
            )
    if (
        "cap" in chosen
        and order.game == "caribbean-stud"
        and not settlement_table(order).maximum_payout
    ):
        chosen = tuple(k for k in chosen if k != "cap")  # no cap in force: nothing to exceed
    if not 0 <= share * max(len(chosen), 1) <= 0.5:
        raise AuditError(f"error share {share} x {len(chosen)} kinds must be within 0..0.5")
    if not 0 <= multi_share <= 0.5:
        raise AuditError(
            f"the share of rounds with several meter winners {multi_share} must be within 0..0.5"
        )
    jsonl = ".jsonl" in path.name
    planted: list[Planted] = []
    if share == 0 or not chosen:
        _write_in_core(path, order, rounds, seed, multi_share, table_id, jsonl, progress)
    else:
        sim = _Simulator(order, seed, share, chosen, multi_share)
        buffer = io.StringIO()
        _write(buffer, sim, rounds, table_id, jsonl, planted, progress)
        data = buffer.getvalue().encode()
        if path.name.endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        write_atomic(path, data)
    side = path.with_name(path.name + ".planted.json")
    side_doc = {
        "game": order.game,
        "seed": seed,
        "rounds": rounds,
        "share": share,
        **({"multi_share": multi_share} if order.game == "caribbean-stud" else {}),
        "kinds": list(chosen),
        "planted": [p.as_json() for p in planted],
    }
    write_atomic(side, (json.dumps(side_doc, indent=1, ensure_ascii=False) + "\n").encode())
    return side


#: Rounds per block the core writes at a time (progress is reported per block).
CORE_BLOCK = 65_536
#: The gzip level of the core's members: miniz_oxide's fastest, as `simulate shuffler` writes.
CORE_GZIP_LEVEL = 1


def _units(value: Fraction, what: str) -> int:
    units = value * SCALE
    if units.denominator != 1:
        raise AuditError(f"{what} {value} has more than the log's decimal places")
    return int(units)


def core_simulator(
    order: Ordering,
    seed: int,
    *,
    multi_share: float = MULTI_SHARE,
    table_id: str = "T1",
    jsonl: bool = False,
) -> _core.RoundSimulator:
    """The core's simulator of clean play under ``order``'s rule file: the key table, the
    optimal strategy, the settlement table, the cap and the progressive handed over as data."""
    table = settlement_table(order)
    caribbean = order.game == "caribbean-stud"
    keys = key_table(order.game, order.rules).table()
    if caribbean:
        from tablecert.games import caribbean_stud

        strategy = caribbean_stud.analyze(order.rules).decisions
    else:
        hands = np.frombuffer(_core.all_hands(3), dtype=np.uint8).reshape(-1, 3).astype(np.int64)
        follows = optimal_decider(order)(hands, np.zeros(len(hands), dtype=np.int64))
        strategy = follows.astype(np.uint8).tobytes()
    spot_names = ("ante", "raise") if caribbean else ("pair_plus", "play")
    spots = [
        (
            [int(v) for v in table.spots[name].numerators.reshape(-1)],
            int(table.spots[name].denominator),
        )
        for name in spot_names
    ]
    menus = (
        ([u * SCALE for u in (10, 25, 50, 100)], [])
        if caribbean
        else ([u * SCALE for u in (0, 5, 10, 25)], [u * SCALE for u in (0, 10, 15, 20, 50, 100)])
    )
    meter = None
    prog = table.progressive
    if prog is not None:
        cats = order.categories
        royals, flushes = meter_hands()
        prizes: list[tuple[int, int, int] | None] = []
        for category in cats:
            prize = prog.prize_of(category)
            prizes.append(
                None
                if prize is None
                else (
                    _units(prize.fixed, "a fixed prize"),
                    prize.meter_share.numerator,
                    prize.meter_share.denominator,
                )
            )
        meter = _core.RoundMeter(
            bet=_units(table.progressive_bet, "the progressive bet"),
            start=_units(prog.meter, "the meter"),
            seed=_units(prog.seed, "the meter's seed"),
            contribution=(prog.contribution.numerator, prog.contribution.denominator),
            before_prizes=prog.contribution_timing == "before-prizes",
            descending=prog.payment_order == "descending-seat",
            straight_flush_on_meter_before=prog.straight_flush_base == "meter-before",
            pays_royal="royal flush" in prog.meter_pays,
            pays_straight_flush="straight flush" in prog.meter_pays,
            unit=_units(prog.prize_unit, "the prize unit"),
            prizes=prizes,
            royal=cats.index("royal flush"),
            straight_flush=cats.index("straight flush"),
            royals=royals,
            straight_flushes=flushes,
            multi_deals=[[c == "royal flush" for c in deal] for deal in MULTI_DEALS],
            multi_ppm=round(multi_share * 1_000_000),
        )
    return _core.RoundSimulator(
        hand_size=order.hand_size,
        players=order.rules.value_of("table.seats", int) - 1,
        threshold=table.threshold,
        keys=keys,
        strategy=strategy,
        caribbean=caribbean,
        spots=spots,
        menus=menus,
        raise_multiple=(table.raise_multiple.numerator, table.raise_multiple.denominator),
        maximum_payout=_units(table.maximum_payout, "the maximum payout"),
        capped=[bool(c) for c in table.capped],
        meter=meter,
        void_ppm=round(VOID_SHARE * 1_000_000),
        table_id=table_id,
        json_lines=jsonl,
        start=int(START.timestamp()),
        step=45,
        seed=seed,
    )


def _write_in_core(
    path: Path,
    order: Ordering,
    rounds: int,
    seed: int,
    multi_share: float,
    table_id: str,
    jsonl: bool,
    progress: Callable[[int], None] | None,
) -> None:
    """A log of clean play written by the core, block by block, atomically."""
    sim = core_simulator(order, seed, multi_share=multi_share, table_id=table_id, jsonl=jsonl)
    level = CORE_GZIP_LEVEL if path.name.endswith(".gz") else None
    with atomic_file(path) as out:
        left = rounds
        while left:
            take = min(left, CORE_BLOCK)
            out.write(sim.block(take, level))
            left -= take
            if progress is not None:
                progress(take)


def _write(
    out: TextIO,
    sim: _Simulator,
    rounds: int,
    table_id: str,
    jsonl: bool,
    planted: list[Planted],
    progress: Callable[[int], None] | None,
) -> None:
    import csv

    game = sim.order.game
    writer = None if jsonl else csv.writer(out, lineterminator="\n")
    columns = csv_columns(game)
    if writer is not None:
        writer.writerow(columns)
    for record, planted_here in sim.rounds(rounds, table_id):
        planted.extend(planted_here)
        if jsonl:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            assert writer is not None
            events = ";".join(record["events"])
            for seat in record["seats"]:
                row = {k: record[k] for k in columns if k in record}
                row["events"] = events
                row.update(
                    {"seat": seat["seat"], "cards": seat["cards"], "decision": seat["decision"]}
                )
                for s in SPOTS[game]:
                    row[f"{s}_bet"] = seat["bets"][s]
                    row[f"{s}_paid"] = seat["paid"][s]
                writer.writerow([row[c] for c in columns])
        if progress is not None:
            progress(1)
