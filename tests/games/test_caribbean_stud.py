"""Caribbean Stud par sheet: standard rules reproduce Wizard of Odds exactly; the statute."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablecert import _core
from tablecert._core import _testing
from tablecert.distributed import split_range
from tablecert.games import caribbean_stud, common
from tablecert.games.common import AnalysisError
from tablecert.poker import ordering
from tests.reference import game_reference, poker_reference
from tests.support import caribbean_oracle
from tests.support.games_support import caribbean


def test_standard_rules_reproduce_wizard_of_odds() -> None:
    # Wizard of Odds, Caribbean Stud Poker (wizardofodds.com/games/caribbean-stud-poker/):
    # "Strategy Statistics": perfect strategy, total loss 1,041,372,912,372 over all
    # 19,933,230,517,200 combinations, house edge 5.224%, element of risk 2.555%; and the
    # "U.S. Rules Return Table" (combinations per event; also quoted by casinoadvisor.com,
    # "Caribbean Stud Poker Probability", 2008, with 52.23% raise frequency).
    a = caribbean("caribbean-stud.standard")
    assert caribbean_stud.DEALS == 19_933_230_517_200
    assert a.total_loss == 1_041_372_912_372
    assert round(float(a.house_edge), 5) == 0.05224
    assert round(float(a.element_of_risk), 5) == 0.02555
    assert round(float(a.raise_probability), 4) == 0.5223
    counts = {r.event: r.count for r in a.rows}
    assert counts["player wins with royal flush"] == 16_759_740
    assert counts["player wins with straight flush"] == 156_929_720
    assert counts["player wins with four of a kind"] == 2_832_435_800
    assert counts["player wins with full house"] == 16_624_475_280
    assert counts["player wins with flush"] == 21_856_990_280
    assert counts["player wins with straight"] == 43_805_516_100
    assert counts["player wins with three of a kind"] == 234_242_908_320
    assert counts["player wins with two pair"] == 488_012_139_360
    pair_or_less = counts["player wins with one pair"] + counts["player wins with high card"]
    assert pair_or_less == 2_343_248_003_808
    assert counts["dealer does not qualify"] == 4_532_514_033_720
    assert counts["push (equal ranks)"] == 321_623_100
    assert counts["fold"] == 9_523_005_974_460
    assert counts["dealer wins"] == 2_726_592_727_512


def test_statute_has_no_push_and_decides_by_suit() -> None:
    a = caribbean("caribbean-stud.macau")
    standard = caribbean("caribbean-stud.standard")
    assert next(r for r in a.rows if r.event.startswith("push")).count == 0
    assert sum(r.count for r in a.rows) == caribbean_stud.DEALS
    assert sum(r.probability for r in a.rows) == 1
    won_on_suit = sum(c.won_on_suit for c in a.categories)
    assert 0 < won_on_suit < a.suit_decided < a.showdowns
    # Same payouts, suits decide instead of pushing: a different exact edge (5.2241%).
    assert a.house_edge == Fraction(3_337_606_931, 63_888_559_350)
    assert a.house_edge != standard.house_edge
    assert abs(a.house_edge - standard.house_edge) < Fraction(1, 10_000)
    # Pair or better always raises; below A-K never does.
    lines = {c.category: c for c in a.categories}
    assert lines["one pair"].decision == "raise always"
    assert lines["high card"].decision == "depends on the cards and upcard"
    assert not a.raises("Qs Jh 9d 5c 3s", "2h")
    assert a.raises("2s 2h 9d 5c 3s", "Ah")


@pytest.mark.parametrize(
    ("rules", "hand", "upcard"),
    [
        ("caribbean-stud.macau", "As Kd 7c 5h 2s", "7d"),
        ("caribbean-stud.standard", "Ah Kc Qd 5s 2c", "Kd"),
    ],
)
def test_fast_path_agrees_with_plain_enumeration(rules: str, hand: str, upcard: str) -> None:
    """Pure-Python enumeration of all 163,185 dealer completions agrees exactly with the
    core's direct count, and the sweep's decision table picks the better action."""
    a = caribbean(rules)
    suits = rules.endswith("macau")
    nq, won, tied, lost = game_reference.caribbean_counts(hand.split(), upcard, suits)
    s = a.situation(hand, upcard)
    assert (s.not_qualifying, s.won, s.tied, s.lost) == (nq, won, tied, lost)
    assert s.table_raises == (s.raise_value > s.fold_value)


def test_decision_table_agrees_with_direct_enumeration_on_random_situations() -> None:
    a = caribbean("caribbean-stud.macau")
    rng = random.Random(7)
    deck = poker_reference.DECK
    # A-K high hands are the only ones whose decision depends on the cards.
    checked = 0
    while checked < 25:
        cards = rng.sample(deck, 6)
        hand, upcard = cards[:5], cards[5]
        ranks = {c[0] for c in hand}
        if not {"A", "K"} <= ranks:
            continue
        s = a.situation(" ".join(hand), upcard)
        assert s.table_raises == (s.best == "raise"), (hand, upcard)
        checked += 1


def test_royal_option_curve() -> None:
    a = caribbean("caribbean-stud.macau")
    curve = a.royal_curve()
    assert [int(p.value) for p in curve] == list(range(50, 101))
    assert all(p.method == "same decisions" for p in curve)
    edges = [p.house_edge for p in curve]
    assert edges == sorted(edges, reverse=True)
    assert curve[-1].house_edge == a.house_edge
    # Each step of the royal payout moves the edge by 2 * P(player wins with a royal).
    royal_wins = next(r for r in a.rows if r.event == "player wins with royal flush").count
    assert edges[0] - edges[1] == Fraction(2 * royal_wins, caribbean_stud.DEALS)
    with pytest.raises(AnalysisError, match=r"outside the statute's 50\.\.100"):
        caribbean_stud.analyze("caribbean-stud.macau", royal=120)


def test_a_curve_reads_the_sheets_figures_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The return table, house edge, raise probability and wins are kept once computed: the
    royal curve's 51 points read them, not 51 recomputations; the points are unchanged."""
    a = caribbean_stud.analyze("caribbean-stud.macau")  # new figures: nothing kept yet
    want = caribbean("caribbean-stud.macau").royal_curve()
    calls = []
    expected_value = common.expected_value  # what caribbean_stud calls by this name

    def counted(rows: Any) -> Fraction:
        calls.append(1)
        return expected_value(rows)

    monkeypatch.setattr(caribbean_stud, "expected_value", counted)
    assert a.royal_curve() == want
    assert len(calls) == 1
    assert a.royal_curve() == want
    assert len(calls) == 1
    assert a.payouts.win is a.payouts.win


def test_cap_curve() -> None:
    a = caribbean("caribbean-stud.macau")
    # Ante 1: a cap of 100 limits four of a kind (2 x 20 = 40 stays), straight flush
    # (2 x 50 = 100 stays) and the royal (2 x 100 = 200 -> 100).
    none, cap100, cap10 = a.cap_curve([0, 100, 10])
    assert none.house_edge == a.house_edge
    royal_wins = next(r for r in a.rows if r.event == "player wins with royal flush").count
    assert cap100.house_edge - a.house_edge == Fraction(100 * royal_wins, caribbean_stud.DEALS)
    assert cap10.house_edge > cap100.house_edge
    assert {p.method for p in (none, cap100, cap10)} == {"same decisions"}


@pytest.mark.slow
def test_cap_curve_shortcut_equals_full_analysis() -> None:
    a = caribbean("caribbean-stud.macau")
    (point,) = a.cap_curve([10])
    full = caribbean_stud.analyze("caribbean-stud.macau", cap=10, use_cache=False)
    assert point.house_edge == full.house_edge


def test_cache_answer_is_identical_to_a_fresh_one() -> None:
    fresh = caribbean("caribbean-stud.macau")  # computed (and cached) once per session
    again = caribbean_stud.analyze("caribbean-stud.macau")  # read from the cache
    assert again.decisions == fresh.decisions
    assert again.as_json() == fresh.as_json()


def test_progressive_reproduces_published_break_even_meter() -> None:
    # Michael Shackleford, "The Wizard of Odds Analyzes the New Casino Games", Contingencies
    # (Nov/Dec 2000), Caribbean Stud progressive, table 1 (four of a kind $100, full house $75,
    # flush $50, straight flush 10% and royal 100% of the meter): break-even meter $263,205.
    p = caribbean("caribbean-stud.macau").progressive
    assert p.break_even_meter == Fraction(2_000_360 * 10, 76)
    assert int(p.break_even_meter) == 263_205
    assert p.return_at(p.break_even_meter) == 0
    assert p.return_at(p.meter) < 0 < p.return_at(300_000)
    counts = {x.category: x.count for x in p.prizes}
    assert counts == {
        "royal flush": 4,
        "straight flush": 36,
        "four of a kind": 624,
        "full house": 3744,
        "flush": 5108,
    }


def test_progressive_sharing_between_royals() -> None:
    p = caribbean("caribbean-stud.macau").progressive
    shares = p.sharing(players=7)
    assert sum(s.probability for s in shares) == 1
    # Given your royal, another given player holds one with chance 3 / C(47, 5).
    one = p.sharing(players=2)
    assert one[1].probability == Fraction(3, 1_533_939)
    assert p.return_with_sharing(players=1) == p.return_at(p.meter)
    assert p.return_with_sharing(players=7) < p.return_at(p.meter)


def test_strategy_export(tmp_path: Path) -> None:
    a = caribbean("caribbean-stud.macau")
    summary, table, mixed = a.export_strategy(tmp_path)
    text = summary.read_text(encoding="utf-8")
    assert "one pair: raise always" in text
    assert "high card: depends on the cards and upcard" in text
    assert table.stat().st_size == 8 * 2_598_960
    masks = np.fromfile(table, dtype="<u8")
    assert int(np.count_nonzero(masks)) > 1_000_000
    lines = mixed.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "hand,raise_against"
    hand, ups = lines[1].split(",")
    assert all(a.raises(hand, u) for u in ups.split())


def test_progress_reports_from_a_worker_thread() -> None:
    """The core runs in a worker thread while the caller's callback sees its counter of the
    player hands done (a whole run of the generic engine, about 2 s)."""
    canned = caribbean("caribbean-stud.standard")
    seen: list[tuple[int, int]] = []
    again = caribbean_stud.analyze(
        "caribbean-stud.standard", use_cache=False, progress=lambda d, t: seen.append((d, t))
    )
    assert len(seen) >= 3
    assert seen[-1] == (seen[-1][1], 2_598_960)
    assert again.as_json() == canned.as_json()


def test_parts_of_the_hands_merge_to_exactly_one_run() -> None:
    """Shards over parts of the player hands (swept up or down the key order), also crossed
    with ranges of upcards, merge to exactly one core run over the same upcards, whatever
    the number of parts; the core's threads (parts of a part) too. Reduced: 3 upcards."""
    order = ordering("caribbean-stud", "caribbean-stud.macau")
    (whole,) = caribbean_oracle.upcard_shards(order, caribbean_stud.payouts(order), 1)
    one = replace(whole, upcards=(20, 23))
    expected = caribbean_oracle.merge_upcard_shards([one], [caribbean_oracle.run_upcard_shard(one)])
    situations = 3 * comb(51, 5)
    assert sum(r[0] for r in expected[0]) == situations
    assert 0 < sum(r[1] for r in expected[0]) < situations
    for parts, upcard_ranges in ((2, 1), (3, 2), (5, 1)):
        plan = [
            replace(whole, upcards=r, part=(k, parts))
            for r in split_range(20, 23, upcard_ranges)
            for k in range(parts)
        ]
        merged = caribbean_oracle.merge_upcard_shards(
            plan, [caribbean_oracle.run_upcard_shard(s) for s in plan]
        )
        assert merged == expected, (parts, upcard_ranges)
    args = (_core.TieBreaks(*whole.tie_breaks), list(whole.qualifier), whole.payouts)
    threaded = _testing.caribbean_analyze(*args, chunks=3, upcards=(20, 23))
    single = _testing.caribbean_analyze(*args, chunks=1, upcards=(20, 23))
    assert threaded == single
    with pytest.raises(ValueError, match="part"):
        _testing.caribbean_analyze(*args, upcards=(20, 23), part=(2, 2))


def test_compact_shard_decisions_are_checked_when_put_together() -> None:
    """A shard's compact decisions (what a worker sends back) that do not fit are refused,
    naming the part; the empty ones give an empty table."""
    words = b"\0" * (8 * ((comb(52, 5) + 63) // 64))
    compact = _core.CompactDecisions
    empty = _core.caribbean_decision_table([compact((0, 52), words, b"", b"")])
    assert empty == b"\0" * (8 * comb(52, 5))
    one = _core.caribbean_decision_table(
        [compact((0, 52), words, (7).to_bytes(4, "little"), (1 << 40).to_bytes(8, "little"))]
    )
    assert int.from_bytes(one[56:64], "little") == 1 << 40
    bad = [
        compact((0, 52), words[:-8], b"", b""),
        compact((0, 52), words, b"\0\0\0", b""),
        compact((0, 52), words, b"\0" * 4, b"\0" * 4),
        compact((0, 52), words, comb(52, 5).to_bytes(4, "little"), b"\0" * 8),
        compact((3, 3), words, b"", b""),
    ]
    for part in bad:
        with pytest.raises(ValueError, match=r"part 1|upcards"):
            _core.caribbean_decision_table([compact((0, 52), words, b"", b""), part])


def test_strategy_summary_of_the_statute() -> None:
    # The high-card lines of the statute's optimal strategy (the A-K counts come from the
    # whole-table arrays; figures as the per-hand computation gave them).
    lines = caribbean("caribbean-stud.macau").strategy_summary()
    assert lines[-4:] == [
        "weakest high-card hand ever raised: Ad Kd 4d 3d 2c",
        "high-card hands raised against some upcard: 167,280",
        "A-K high, upcard pairs one of your ranks: raise in 78.57% of situations",
        "A-K high, upcard pairs none of your ranks: raise in 16.64% of situations",
    ]


def test_the_summary_tables_and_the_progressive_are_made_beside_the_sweep() -> None:
    """``analyze`` makes what does not need the sweep on threads while it runs: the strategy
    summary's hand tables are there before any summary is asked for, and equal to their
    definition; an error on such a thread is raised where the work is collected."""
    caribbean("caribbean-stud.standard")  # the sweep's answer in the test cache
    caribbean_stud.high_card_tables.cache_clear()
    result = caribbean_stud.analyze("caribbean-stud.standard")
    assert caribbean_stud.high_card_tables.cache_info().currsize == 1
    keys, high_card, ak, held, ranks = caribbean_stud.high_card_tables()
    assert len(keys) == len(high_card) == caribbean_stud.HANDS
    assert int(high_card.sum()) == 1_302_540  # the high-card hands of 52 cards
    assert bool(high_card[ak].all())
    # A-K high: 164 rank sets (C(11, 3) less A-K-Q-J-T) in 4^5 - 4 suitings, no flush.
    assert len(ak) == 164 * (4**5 - 4) == 167_280
    first = _core.hand_at(int(ak[0]), 5)
    assert int(held[0]) == sum(1 << c for c in first)
    assert int(ranks[0]) == sum(0xF << (c // 4 * 4) for c in set(first))
    assert all(bin(int(h)).count("1") == 5 for h in held[:1000])
    assert result.strategy_summary()[-2:] == [
        "A-K high, upcard pairs one of your ranks: raise in 78.57% of situations",
        "A-K high, upcard pairs none of your ranks: raise in 16.64% of situations",
    ]
    assert caribbean_stud._Beside(lambda: 6 * 7).result() == 42
    with pytest.raises(ZeroDivisionError):
        caribbean_stud._Beside(lambda: 1 // 0).result()


def test_colex_hands_are_the_core_hands_at_those_ranks() -> None:
    """``colex_hands`` unranks as the core orders its hands: every 5-card hand, and the A-K
    high hands the summary reads (their cards and masks without the 13 MB of all hands)."""
    every = np.frombuffer(_core.all_hands(5), dtype=np.uint8).reshape(-1, 5)
    ranks = np.arange(caribbean_stud.HANDS)
    assert np.array_equal(caribbean_stud.colex_hands(ranks, 5), every)
    assert caribbean_stud.colex_hands([0, 2_598_959], 5).tolist() == [
        [0, 1, 2, 3, 4],
        [47, 48, 49, 50, 51],
    ]
    assert caribbean_stud.colex_hands([0, 1, 21_999], 3).tolist() == [
        [0, 1, 2],
        [0, 1, 3],
        list(_core.hand_at(21_999, 3)),
    ]
    keys, _, ak, held, _ = caribbean_stud.high_card_tables()
    category, first, second = keys >> 22, (keys >> 18) & 0xF, (keys >> 14) & 0xF
    assert np.array_equal(ak, np.flatnonzero((category == 0) & (first == 12) & (second == 11)))
    want = np.zeros(len(ak), dtype=np.uint64)
    for column in every[ak].T.astype(np.uint64):
        want |= np.uint64(1) << column
    assert np.array_equal(held, want)
