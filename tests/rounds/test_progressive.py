"""Caribbean Stud's progressive (Art. 10): several winners in one round, the meter's
accounting in round logs, and the long-run return over the meter's cycles."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from math import comb, factorial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablecert.games.progressive import (
    Progressive,
    disjoint_counts,
    meter_hands,
    progressive,
    round_law,
    seat_law,
)
from tablecert.poker import ordering
from tablecert.report.sections.round_audit import check_verdicts
from tablecert.rounds.audit import RoundAudit, audit_rounds
from tablecert.rounds.log import METER_NOT_LOGGED, read_rounds
from tablecert.rules import RULES_DIR

from .reference_log import reference_rounds

ROOT = Path(__file__).resolve().parents[2]
STATUTE = RULES_DIR / "caribbean-stud.macau.toml"

ROYAL = "As Ks Qs Js Ts"
SF_9H = "9h 8h 7h 6h 5h"
SF_5D = "5d 4d 3d 2d Ad"
FLUSH = "2c 5c 7c 9c Jc"
# K-high: the dealer does not qualify (Art. 9(2)): ante paid 1 to 1, the raise returned.
DEALER = "Kd Qc 8c 3s 4s"


def _prog(rules: Path | str = "caribbean-stud.macau") -> Progressive:
    order = ordering("caribbean-stud", rules)
    return progressive(order.rules, order.tie_breaks)


def _rules(tmp_path: Path, **values: str) -> Path:
    """A copy of the statute rule file with some progressive values changed."""
    head, _, text = STATUTE.read_text(encoding="utf-8").partition("[progressive]")
    for key, value in values.items():
        text, n = re.subn(
            rf"(?m)^{key} = {{ value = (\[[^]]*\]|[^,]+),", f"{key} = {{ value = {value},", text
        )
        assert n == 1, key
    path = tmp_path / "variant.toml"
    path.write_text(head + "[progressive]" + text, encoding="utf-8")
    return path


def _seat(seat: int, cards: str, prize: str | int | None) -> dict[str, Any]:
    """A seat that antes 10, raises 20 against a non-qualifying dealer and bets 1 on the
    progressive; ``prize``: its gross progressive prize (None: no progressive bet)."""
    bet = 0 if prize is None else 1
    net = 0 if prize is None else Decimal(str(prize)) - 1
    return {
        "seat": seat,
        "cards": cards,
        "decision": "raise",
        "bets": {"ante": 10, "raise": 20, "progressive": bet},
        "paid": {"ante": 10, "raise": 0, "progressive": str(net)},
    }


def _round(
    number: int, before: str | int, after: str | int, seats: list[dict[str, Any]], **kw: Any
) -> dict[str, Any]:
    return {
        "table_id": kw.get("table", "T1"),
        "round_id": str(number),
        "timestamp": "2026-03-01T10:00:00Z",
        "dealer": kw.get("dealer", DEALER),
        "upcard": kw.get("dealer", DEALER).split()[0],
        "meter_before": str(before),
        "meter_after": str(after),
        "events": kw.get("events", []),
        "seats": seats,
    }


def _audit(tmp_path: Path, rounds: list[dict[str, Any]], rules: Path | None = None) -> RoundAudit:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rounds), encoding="utf-8")
    return audit_rounds([path], ordering("caribbean-stud", rules))


# --- the statute's order, worked by hand -----------------------------------------------------

# Two straight flushes, a royal and a flush; meter 123,456.70.
# Art. 10(6): each straight flush takes 10% of the meter: 12,345.67 each.
# Art. 10(7): straight flushes first; the royal takes what is left, 100% (10(2)(1)):
#   123,456.70 - 2 x 12,345.67 = 98,765.36. The flush: its fixed 50, not from the meter.
# Art. 10(8): the royal empties the meter: it restarts from the seed 50,000, plus this round's
#   contributions 4 x 0.7 = 2.8 (our reading: after the prizes): 50,002.8.
TWO_SF_AND_ROYAL = [
    _seat(1, SF_9H, "12345.67"),
    _seat(2, ROYAL, "98765.36"),
    _seat(4, SF_5D, "12345.67"),
    _seat(6, FLUSH, 50),
]


def test_two_straight_flushes_a_royal_and_a_flush_by_hand(tmp_path: Path) -> None:
    result = _audit(tmp_path, [_round(1, "123456.7", "50002.8", TWO_SF_AND_ROYAL)])
    assert (result.verdict, dict(result.counts)) == ("pass", {})
    assert result.paid["progressive"] == Fraction("12345.67") * 2 + Fraction("98765.36") + 50 - 4
    assert result.meter.rounds_with_meter_prizes == 1
    assert result.meter.several_winners == 1
    assert result.meter.restarts == 1
    assert result.by_article["第十条(七) progressive"].spots == 3  # 2 straight flushes, royal


def test_the_royal_paid_first_is_named(tmp_path: Path) -> None:
    """A table that pays the royal the whole meter before the straight flushes (the old
    test's record): the royal's seat is named with Art. 10(7), and a meter that misses the
    contributions with Art. 10(8)."""
    seats = [_seat(1, ROYAL, 200000), _seat(2, SF_9H, 20000)]
    result = _audit(tmp_path, [_round(1, 200000, 50000, seats)])
    assert result.verdict == "fail"
    settlement = [f for f in result.findings if f.kind == "settlement"]
    meter = [f for f in result.findings if f.kind == "meter"]
    assert [(f.seat, f.spot, f.article, f.paid, f.due) for f in settlement] == [
        (1, "progressive", "第十条(七)", Fraction(199999), Fraction(179999))
    ]
    assert "seat 2 straight flush 20000 (第十条(七))" in settlement[0].detail
    assert [(f.seat, f.article, f.rule, f.paid, f.due) for f in meter] == [
        (0, "第十条(八)", "progressive.seed", Fraction(50000), Fraction("50001.4"))
    ]


def test_two_royals_share_the_meter_rounded_down(tmp_path: Path) -> None:
    """Art. 10(5): 100,000.05 shared by two royals is 50,000.025 each, paid 50,000.02 (our
    reading: prize_unit 1/100, rounded down); the meter is emptied and restarts."""
    seats = [_seat(3, ROYAL, "50000.02"), _seat(5, "Ah Kh Qh Jh Th", "50000.02")]
    result = _audit(tmp_path, [_round(1, "100000.05", "50001.4", seats)])
    assert (result.verdict, dict(result.counts)) == ("pass", {})
    assert result.by_article["第十条(五) progressive"].spots == 2
    wrong = [_seat(3, ROYAL, "100000.05"), _seat(5, "Ah Kh Qh Jh Th", "0")]
    result = _audit(tmp_path, [_round(1, "100000.05", "50001.4", wrong)])
    assert sorted((f.seat, f.article, f.due) for f in result.findings) == [
        (3, "第十条(五)", Fraction("50000.02") - 1),
        (5, "第十条(五)", Fraction("50000.02") - 1),
    ]


def test_a_straight_flush_alone_takes_its_share_and_the_meter_falls(tmp_path: Path) -> None:
    """10% of 200,000.15 is 20,000.015, paid 20,000.01; the meter falls by it and grows by
    one contribution: 180,000.14 + 0.7 = 180,000.84; the next round starts there."""
    first = _round(1, "200000.15", "180000.84", [_seat(2, SF_9H, "20000.01")])
    second = _round(2, "180000.84", "180001.54", [_seat(3, FLUSH, 50)])
    result = _audit(tmp_path, [first, second])
    assert (result.verdict, dict(result.counts)) == ("pass", {})
    assert result.meter.rounds == 2
    assert result.meter.meter_prizes == Fraction("20000.01")


def test_the_readings_drive_the_round(tmp_path: Path) -> None:
    """The same round under other readings of the open points: each straight flush's share of
    what the earlier ones left (in payment order from the dealer's left, or the other way),
    contributions added before the prizes, and the straight flush paid by the house."""
    remaining = _rules(tmp_path, straight_flush_base='"remaining"')
    # seat 1 first: 12,345.67; seat 4: 10% of 111,111.03 = 11,111.10; the royal 99,999.93
    seats = [
        _seat(1, SF_9H, "12345.67"),
        _seat(2, ROYAL, "99999.93"),
        _seat(4, SF_5D, "11111.1"),
        _seat(6, FLUSH, 50),
    ]
    assert _audit(tmp_path, [_round(1, "123456.7", "50002.8", seats)], remaining).verdict == (
        "pass"
    )
    result = _audit(tmp_path, [_round(1, "123456.7", "50002.8", TWO_SF_AND_ROYAL)], remaining)
    assert sorted((f.seat, f.due) for f in result.findings) == [
        (2, Fraction("99998.93")),
        (4, Fraction("11110.1")),
    ]
    prog = _prog(remaining)
    descending = replace(prog, payment_order="descending-seat")
    payment = descending.pay_round(
        Fraction("123456.7"), [(1, "straight flush"), (4, "straight flush")], Fraction(2)
    )
    assert [(p.seat, p.prize) for p in payment.prizes] == [
        (4, Fraction("12345.67")),
        (1, Fraction("11111.1")),
    ]
    before = _prog(_rules(tmp_path, contribution_timing='"before-prizes"'))
    # the contributions 1.4 count: 10% of 200,001.4 = 20,000.14
    payment = before.pay_round(Fraction(200000), [(1, "straight flush"), (2, "flush")], Fraction(2))
    assert [p.prize for p in payment.prizes] == [Fraction("20000.14"), 50]
    assert payment.meter_after == Fraction("180001.26")
    house = _prog(_rules(tmp_path, meter_pays='["royal-flush"]'))
    payment = house.pay_round(Fraction(200000), [(1, "straight flush")], Fraction(1))
    assert payment.meter_after == Fraction("200000.7")


NO_BET = "Ah Kc 9s 8d 2d"  # a seat without a progressive bet
NO_PRIZE = "Kh Qh 9d 3c 2h"


def test_meter_accounting_names_each_discrepancy(tmp_path: Path) -> None:
    """Contributions of 7/10 per progressive bet (10(8)), a void round (11(1): nothing
    contributed, the progressive bets carried over), and each round starting where the
    table's previous round ended."""
    void_seat = {**_seat(1, FLUSH, 0), "paid": {"ante": 0, "raise": 0, "progressive": 0}}
    rounds = [
        _round(1, 1000, "1000.7", [_seat(1, FLUSH, 50), _seat(2, NO_BET, None)]),
        _round(2, "1000.7", "1001.4", [_seat(1, FLUSH, 50)]),
        _round(3, "1001.4", "1001.4", [void_seat], events=["void"]),
        _round(4, "1001.4", "1002.8", [_seat(1, FLUSH, 50), _seat(4, NO_PRIZE, 0)]),
    ]
    assert (_audit(tmp_path, rounds).verdict, _audit(tmp_path, rounds).meter.rounds) == (
        "pass",
        4,
    )
    bad = json.loads(json.dumps(rounds))
    bad[0]["meter_after"] = "1000.8"  # a contribution wrong; round 2 starts where it should
    bad[2]["meter_after"] = "1002.1"  # a void round contributed
    bad[3]["meter_before"], bad[3]["meter_after"] = "1002.1", "1003.5"
    result = _audit(tmp_path, bad)
    found = sorted((f.round_id, f.kind, f.seat, f.article, f.paid, f.due) for f in result.findings)
    assert found == [
        ("1", "meter", 0, "第十条(八)", Fraction("1000.8"), Fraction("1000.7")),
        ("2", "meter", 0, "第十条(八)", Fraction("1000.7"), Fraction("1000.8")),
        ("3", "meter", 0, "第十一条(一)", Fraction("1002.1"), Fraction("1001.4")),
    ]
    details = {f.round_id: f.detail for f in result.findings}
    assert "previous round (1)" in details["2"]
    assert "grows by 7/10 of the round's progressive bets (1)" in details["1"]


def test_a_blank_meter_is_left_unexamined_not_judged_against_zero(tmp_path: Path) -> None:
    """A round whose meter was not logged is not examined (the verdict says inconclusive and
    why), instead of being read as a meter of 0 and failing; the meter's continuity is not
    checked across it, and a prize that is a share of the unknown meter is not settled, while
    the round's fixed prizes still are."""
    rounds = [
        _round(1, 1000, "1000.7", [_seat(1, FLUSH, 50)]),
        _round(2, "", "", [_seat(1, FLUSH, 50)]),
        _round(3, "1001.4", "1002.1", [_seat(1, FLUSH, 50)]),
    ]
    result = _audit(tmp_path, rounds)
    assert (result.verdict, dict(result.counts)) == ("inconclusive", {})
    assert (result.meter.rounds, result.meter.not_logged) == (2, 1)
    assert result.not_examined == [
        "1 rounds with a blank meter_before or meter_after: their meter accounting "
        "(Art. 10) was not examined"
    ]
    assert result.as_json()["not_examined"] == result.not_examined
    rules = ordering("caribbean-stud").rules
    verdicts = {v.requirement.rsplit(".", 1)[1]: v for v in check_verdicts(result, rules, "r")}
    assert {k: v.outcome for k, v in verdicts.items()} == {
        "deck": "pass",
        "bet": "pass",
        "settlement": "pass",
        "meter": "inconclusive",
    }
    assert verdicts["meter"].detail.endswith("was not examined")
    # a royal's share of an unknown meter: not settled; the flush beside it is
    royal = [_seat(2, ROYAL, "98765.36"), _seat(6, FLUSH, 50)]
    result = _audit(tmp_path, [_round(1, "", "50001.4", royal)])
    assert (result.verdict, dict(result.counts)) == ("inconclusive", {})
    assert result.meter.unsettled_prizes == 1
    assert result.not_examined[1] == (
        "1 progressive prizes from the meter not settled: the round's meter_before is blank"
    )
    short = [_seat(2, ROYAL, "98765.36"), _seat(6, FLUSH, 40)]
    result = _audit(tmp_path, [_round(1, "", "50001.4", short)])
    assert result.verdict == "fail"
    assert [(f.kind, f.seat, f.due) for f in result.findings] == [("settlement", 6, Fraction(49))]
    # a logged meter is still judged where it is wrong, whatever is blank elsewhere
    wrong = json.loads(json.dumps(rounds))
    wrong[2]["meter_after"] = "1002.2"
    assert [(f.round_id, f.kind) for f in _audit(tmp_path, wrong).findings] == [("3", "meter")]


def test_a_table_without_the_progressive_needs_no_meter(tmp_path: Path) -> None:
    """No meter logged and no progressive bet in any round: the table does not offer the
    progressive, and there is nothing to examine."""
    result = _audit(tmp_path, [_round(k, "", "", [_seat(1, FLUSH, None)]) for k in (1, 2)])
    assert (result.verdict, dict(result.counts), result.not_examined) == ("pass", {}, [])
    assert result.meter.text.endswith(
        "no meter logged and no progressive bet in 2 rounds: the table does not offer the "
        "progressive"
    )


def test_the_reader_marks_a_blank_meter(tmp_path: Path) -> None:
    """Both formats: a blank, null or absent meter field is METER_NOT_LOGGED, not 0, in the
    core reader and in the reference reader alike."""
    record = _round(1, "", "0", [_seat(1, FLUSH, 50)])
    record.pop("meter_after")
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    for read in (read_rounds, reference_rounds):
        (chunk,) = read(path, "caribbean-stud")
        assert (chunk.meter_before, chunk.meter_after) == ([METER_NOT_LOGGED], [METER_NOT_LOGGED])


def test_a_progressive_bet_without_an_ante_is_named(tmp_path: Path) -> None:
    """Art. 10(1): the progressive needs an accepted ante and progressive bet."""
    seat = {**_seat(1, FLUSH, 50), "decision": ""}
    seat["bets"] = {"ante": 0, "raise": 0, "progressive": 1}
    seat["paid"] = {"ante": 0, "raise": 0, "progressive": 49}
    result = _audit(tmp_path, [_round(1, 1000, "1000.7", [seat])])
    assert [(f.kind, f.seat, f.spot, f.article) for f in result.findings] == [
        ("bet", 1, "progressive", "第十条(一)")
    ]


def test_meter_continuity_across_files_and_tables(tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    two = tmp_path / "two.jsonl"
    one.write_text(
        json.dumps(_round(1, 1000, "1000.7", [_seat(1, FLUSH, 50)]))
        + "\n"
        + json.dumps(_round(1, 5000, "5000.7", [_seat(1, FLUSH, 50)], table="T2"))
        + "\n",
        encoding="utf-8",
    )
    two.write_text(
        json.dumps(_round(2, "1000.7", "1001.4", [_seat(1, FLUSH, 50)]))
        + "\n"
        + json.dumps(_round(2, "5000", "5000.7", [_seat(1, FLUSH, 50)], table="T2"))
        + "\n",
        encoding="utf-8",
    )
    result = audit_rounds([one, two], ordering("caribbean-stud"))
    assert [(f.table_id, f.round_id, f.paid, f.due) for f in result.findings] == [
        ("T2", "2", Fraction(5000), Fraction("5000.7"))
    ]
    assert result.findings[0].detail.endswith("previous round (1, in an earlier file)")
    assert result.findings[0].line == 2

    class InProcess:
        """An executor that runs each shard here, in the given order (as Dask would)."""

        description = "in process"
        parallelism = 1

        def map(self, fn: Any, shards: Any, progress: Any = None) -> list[Any]:
            return [fn(s) for s in shards]

    sharded = audit_rounds([one, two], ordering("caribbean-stud"), executor=InProcess())
    assert sharded.as_json() == result.as_json()


# --- the law of a round's meter hands ---------------------------------------------------------


def _reduced_deck_law() -> tuple[dict[tuple[int, int], Fraction], Any]:
    """A reduced deck (8..A in two suits, 14 cards) and two players: the law of (royals,
    straight flushes) by enumerating every deal, and the hands' bitmasks."""
    cards = [r * 4 + s for r in range(6, 13) for s in range(2)]
    royals = [sum(1 << (4 * r + s) for r in range(8, 13)) for s in range(2)]
    flushes = [sum(1 << (4 * r + s) for r in range(top - 4, top + 1)) for s in range(2)
               for top in (10, 11)]  # fmt: skip
    counts: dict[tuple[int, int], int] = {}
    total = 0
    for first in combinations(cards, 5):
        one = sum(1 << c for c in first)
        rest = [c for c in cards if c not in first]
        for second in combinations(rest, 5):
            two = sum(1 << c for c in second)
            key = (
                int(one in royals) + int(two in royals),
                int(one in flushes) + int(two in flushes),
            )
            counts[key] = counts.get(key, 0) + 1
            total += 1
    return {k: Fraction(v, total) for k, v in counts.items()}, (royals, flushes)


def test_round_law_against_enumeration_and_moments() -> None:
    """The inclusion-exclusion law of (royals, straight flushes) per round: on a reduced deck
    (8..A in two suits, two players: 2 royals, 4 straight flushes 8-Q and 9-K) it equals the
    enumeration of every deal; on the full deck it sums to one, its means are players x 4
    and players x 36 hands in C(52,5), two royals between two players is 4 x 3 / (C(52,5)
    C(47,5)), and it agrees with the royal-sharing distribution of the par sheet."""
    enumerated, (royals, flushes) = _reduced_deck_law()
    assert seat_law(2, disjoint_counts(royals, flushes), 14) == enumerated
    hands = comb(52, 5)
    for n in (1, 2, 7):
        law = round_law(n)
        assert sum(law.values()) == 1
        assert sum(a * q for (a, _), q in law.items()) == Fraction(4 * n, hands)
        assert sum(b * q for (_, b), q in law.items()) == Fraction(36 * n, hands)
    assert round_law(2)[2, 0] == Fraction(4 * 3, hands * comb(47, 5))
    law7 = round_law(7)
    for s in _prog().sharing(players=7):  # P(k royals) = 7 P(royal) P(k - 1 others | royal) / k
        k = s.others + 1
        assert sum(q for (a, _), q in law7.items() if a == k) == (
            7 * Fraction(4, hands) * s.probability / k
        )


# --- the long-run return ----------------------------------------------------------------------


def _walked_counts(royals: list[int], flushes: list[int]) -> dict[tuple[int, int], int]:
    # Every disjoint set of hands, grown one hand at a time from a stack of (next hand, cards
    # used, royals, others): the oracle for disjoint_counts.
    hands = [(m, True) for m in royals] + [(m, False) for m in flushes]
    sets: dict[tuple[int, int], int] = {}
    stack = [(0, 0, 0, 0)]
    while stack:
        start, used, a, b = stack.pop()
        sets[a, b] = sets.get((a, b), 0) + 1
        stack.extend(
            (i + 1, used | mask, a + royal, b + (not royal))
            for i, (mask, royal) in enumerate(hands[start:], start)
            if not mask & used
        )
    return {(a, b): n * factorial(a) * factorial(b) for (a, b), n in sets.items()}


def test_disjoint_counts_by_groups_are_the_walk_over_every_set() -> None:
    # Counted per group of hands that meet and multiplied out, against walking every
    # disjoint set: the full deck's 40 hands (390,625 sets), the reduced deck's, and hands
    # that meet across suits (groups that are not suits).
    assert disjoint_counts(*meter_hands()) == _walked_counts(*meter_hands())
    _, (royals, flushes) = _reduced_deck_law()
    assert disjoint_counts(royals, flushes) == _walked_counts(royals, flushes)
    odd = [0b11, 0b110, 0b1000, 0b1_0000_0001]
    assert disjoint_counts(odd[:2], odd[2:]) == _walked_counts(odd[:2], odd[2:])


def test_long_run_return_closed_form() -> None:
    """Statute file, 7 players: fixed prizes 14,965/64,974 per unit, the contribution 7/10,
    the seed 50,000 once per cycle (a round with a royal), exact."""
    prog = _prog()
    run = prog.long_run()
    law = round_law(7)
    restart = 1 - sum(q for (a, _), q in law.items() if a == 0)
    assert run.restart_probability == restart
    assert run.fixed_per_bet == Fraction(624 * 100 + 3744 * 75 + 5108 * 50, comb(52, 5))
    assert run.prizes_per_bet == run.fixed_per_bet + Fraction(7, 10) + 50000 * restart / 7
    assert f"{float(run.return_per_bet):.6f}" == "0.007276"
    assert f"{float(run.mean_cycle_rounds or 0):,.1f}" == "92,820.5"
    assert run.error_bound == Fraction(1, 100) * Fraction(4, comb(52, 5))
    one = prog.long_run(1)  # one player: the seed once per royal
    assert one.seed_per_bet == 50000 * Fraction(4, comb(52, 5))


def test_long_run_numerical_method_against_an_exact_case(tmp_path: Path) -> None:
    """Straight flushes paid by the house (meter_pays without them): the meter's level
    decides their prizes, so the long run is simulated over royal-to-royal cycles. Here the
    meter between royals grows by a = 7 x 0.7 a round from m0 = seed + a, so the house's part
    per cycle is exact: 0.1 mu (m0 (1-p)/p + a (1-p)^2/p^2) + 0.1 nu (m0 + a (1-p)/p), with p
    = P(royal round), mu and nu the mean straight flushes of a round without / with a royal.
    The simulated figure is within its stated bound of it."""
    prog = _prog(_rules(tmp_path, meter_pays='["royal-flush"]'))
    run = prog.long_run()
    assert run.method.startswith("renewal-reward, the meter's part simulated over 4,000")
    law = round_law(7)
    p = 1 - sum((q for (r, _), q in law.items() if r == 0), Fraction(0))
    mu = sum((b * q for (r, b), q in law.items() if r == 0), Fraction(0)) / (1 - p)
    nu = sum((b * q for (r, b), q in law.items() if r), Fraction(0)) / p
    step = Fraction(49, 10)
    m0 = 50000 + step
    house = Fraction(1, 10) * mu * (m0 * (1 - p) / p + step * (1 - p) ** 2 / p**2)
    house += Fraction(1, 10) * nu * (m0 + step * (1 - p) / p)
    exact = house * p / 7
    assert f"{float(exact):.4f}" == "0.6993"
    assert 0 < run.error_bound < Fraction(3, 100)
    assert abs(run.meter_level_per_bet - exact) <= run.error_bound
    assert run.prizes_per_bet == (
        run.fixed_per_bet + run.contribution_per_bet + run.seed_per_bet + run.meter_level_per_bet
    )


def test_long_run_numerical_method_agrees_with_the_closed_form(tmp_path: Path) -> None:
    """A fixed royal prize of 1 (never above 100% of the meter) sends the computation to the
    numerical method, whose meter term must then be 0 within its bound; a fixed prize paid
    from the meter, or a royal that does not empty it, is refused with the reason."""
    from tablecert.games.common import AnalysisError

    closed = _prog().long_run()
    prog = _prog(_rules(tmp_path, **{"royal-flush": "1"}))
    run = prog.long_run()
    assert "simulated" in run.method
    assert abs(run.meter_level_per_bet) <= run.error_bound + closed.error_bound
    assert abs(run.return_per_bet - closed.return_per_bet) <= run.error_bound + closed.error_bound
    flush_from_meter = _prog(_rules(tmp_path, meter_pays='["royal-flush", "flush"]'))
    with pytest.raises(AnalysisError, match="fixed prizes paid from the meter"):
        flush_from_meter.long_run()
    assert "not_computed" in flush_from_meter.as_json()["long_run"]
    half = _prog(_rules(tmp_path, royal_meter_share='"1/2"'))
    with pytest.raises(AnalysisError, match="a royal that does not empty the meter"):
        half.long_run()


def _simulate(prog: Progressive, rounds: int, seed: int, players: int) -> tuple[float, float]:
    """Deal ``rounds`` rounds of ``players`` hands from shuffled decks (every seat bets),
    pay each round by the statute (pay_round), carry the meter, and return the mean prize
    per bet and its standard error by batch means over 20 batches. A batch's prizes count
    what the meter gained over it as paid (the renewal argument's edge term: the meter left
    at the end was contributed and will be paid), so batches add up to prizes + meter."""
    from tablecert.hand_arrays import key_table

    order = ordering("caribbean-stud")
    rng = np.random.default_rng(seed)
    names = order.categories
    kt = key_table("caribbean-stud", order.rules)
    fixed = [prog.prize_of(c) for c in names]
    fixed_only = [i for i, p in enumerate(fixed) if p is not None and p.meter_share == 0]
    meter_cats = [i for i, p in enumerate(fixed) if p is not None and p.meter_share > 0]
    per_batch = rounds // 20
    step = prog.contribution * prog.bet * players
    meter = prog.seed
    batches = []
    for _ in range(20):
        start = meter
        prizes = Fraction(0)
        done = 0
        while done < per_batch:
            block = min(20_000, per_batch - done)
            decks = np.argsort(rng.random((block, 52)), axis=1)[:, : 5 * players]
            keys = np.empty(block * players, dtype=np.uint32)
            kt.keys_into(np.ascontiguousarray(decks.reshape(-1, 5), dtype=np.uint8), keys)
            cats = (keys >> 22).astype(np.int64).reshape(block, players)
            for i in fixed_only:
                prize = fixed[i]
                assert prize is not None
                prizes += int((cats == i).sum()) * prize.fixed
            last = 0
            for r in np.flatnonzero(np.isin(cats, meter_cats).any(axis=1)).tolist():
                meter += step * (r - last)
                seats = [(s + 1, names[int(c)]) for s, c in enumerate(cats[r])]
                payment = prog.pay_round(meter, seats, prog.bet * players)
                meter = payment.meter_after
                prizes += sum(
                    (
                        p.prize
                        for p in payment.prizes
                        if fixed[names.index(p.category)] in [fixed[i] for i in meter_cats]
                    ),
                    Fraction(0),
                )
                last = r + 1
            meter += step * (block - last)
            done += block
        batches.append(float(prizes + meter - start) / (per_batch * players * float(prog.bet)))
    values = np.array(batches)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def test_long_run_against_a_seeded_simulation_reduced(tmp_path: Path) -> None:
    """Reduced: with a seed of 0 the return has no rare term left (the meter pays exactly
    what flows in), so 300,000 dealt rounds of 7 hands check the fixed prizes and the
    meter's conservation through every straight flush and royal: within 3 standard errors."""
    prog = _prog(_rules(tmp_path, seed="0"))
    run = prog.long_run()
    mean, se = _simulate(prog, 300_000, 20, 7)
    assert se < 0.01
    assert abs(mean - float(run.prizes_per_bet)) <= 3 * se, (mean, se, float(run.prizes_per_bet))


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
@pytest.mark.parametrize(
    "values",
    [{}, {"meter_pays": '["royal-flush"]'}],
    ids=["statute closed form", "straight flushes paid by the house: numerical"],
)
def test_long_run_against_a_seeded_simulation_long(tmp_path: Path, values: dict[str, str]) -> None:
    """The statute file's values (seed 50,000 once per cycle of about 92,820 rounds), and the
    same with straight flushes paid by the house (the numerical method): 30,000,000 dealt
    rounds of 7 hands (about 320 cycles), within 3 standard errors plus the computation's
    own bound."""
    prog = _prog(_rules(tmp_path, **values) if values else "caribbean-stud.macau")
    run = prog.long_run()
    mean, se = _simulate(prog, 30_000_000, 21, 7)
    assert abs(mean - float(run.prizes_per_bet)) <= 3 * se + float(run.error_bound), (
        mean,
        se,
        float(run.prizes_per_bet),
    )


# --- simulated logs ---------------------------------------------------------------------------

METER_KINDS = ("meter-contribution", "meter-restart", "meter-order", "meter-sharing", "meter-carry")


def test_simulated_meter_errors_are_found_and_clean_multi_winner_rounds_pass(
    tmp_path: Path,
) -> None:
    """A seeded log with many clean rounds of several meter winners and every meter error
    kind planted: exactly the planted rounds are flagged, each at its seat with the article."""
    from tablecert.rounds import simulate

    order = ordering("caribbean-stud")
    log = tmp_path / "c.csv.gz"
    side = simulate.write_rounds(
        log, order, 1500, seed=4, share=0.01, kinds=METER_KINDS, multi_share=0.05
    )
    planted = json.loads(side.read_text(encoding="utf-8"))["planted"]
    assert {p["kind"] for p in planted} == set(METER_KINDS)
    result = audit_rounds([log], order)
    assert result.flagged == {(p["table_id"], p["round_id"]) for p in planted}
    assert result.meter.several_winners > 40  # clean rounds of 2-3 meter winners, all passed
    assert result.meter.rounds == 1500
    by_round: dict[str, list[Any]] = {}
    for f in result.findings:
        by_round.setdefault(f.round_id, []).append(f)
    expected = {
        "meter-contribution": ("meter", "第十条(八)", "progressive.contribution"),
        "meter-restart": ("meter", "第十条(八)", "progressive.seed"),
        "meter-carry": ("meter", "第十条(八)", ""),
        "meter-order": ("settlement", "第十条(七)", "progressive.royal_meter_share"),
        "meter-sharing": ("settlement", "第十条(六)", "progressive.straight_flush_meter_share"),
    }
    for p in planted:
        (f,) = by_round[p["round_id"]]
        assert (f.seat, f.spot) == (p["seat"], "progressive"), p
        assert (f.kind, f.article, f.rule) == expected[p["kind"]], (p, f)


@pytest.mark.parametrize("name", ["caribbean-stud.macau", "caribbean-stud.standard"])
def test_every_open_point_of_article_10_is_a_named_reading(name: str) -> None:
    """The points Art. 10 leaves open are rule values marked as readings, citing Art. 10."""
    from tablecert.rules import load_rules

    rules = load_rules(name)
    for key in (
        "payment_order",
        "straight_flush_base",
        "meter_pays",
        "contribution_timing",
        "prize_unit",
    ):
        value = rules.require(f"progressive.{key}")
        assert value.reading, key
        assert value.article.startswith("第十条"), key
        assert value.note, key


def test_a_contribution_with_large_terms_is_exact(tmp_path: Path) -> None:
    """A contribution of 1,234,567/10,000,000 per bet: the meter's due is exact (Python
    integers, not int64), and a log that rounds it to its 4 places is named."""
    rules = _rules(tmp_path, contribution='"1234567/10000000"')
    result = _audit(
        tmp_path, [_round(1, "99999999999", "100000000000.1235", [_seat(1, FLUSH, 50)])], rules
    )
    (f,) = result.findings
    assert (f.kind, f.paid, f.due) == (
        "meter",
        Fraction("100000000000.1235"),
        99999999999 + Fraction(1234567, 10000000),
    )
