"""Calibration and power of the shuffler battery.

Calibration: a fair shuffler's rejection rate over independent batches must be within
binomial tolerance of the nominal level (no test anti-conservative). Power: each failure model
is rejected at the deck count the documentation states (measured with `python
scripts/power-tables.py`: 99 or more of 100 seeded trials)."""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from scipy import stats

from tablecert import _core
from tablecert.audit.battery import (
    Repeats,
    Tally,
    check_levels,
    run_battery,
    second_level,
    shuffles_to_conclude,
)
from tablecert.audit.power import DECKS_FOR_POWER, detectable, simulated_battery
from tablecert.errors import AuditError

# decks at which the power study (100 trials, alpha 0.01) failed the device at least 99 times
POWER = {
    model: DECKS_FOR_POWER[model]
    for model in (
        "riffle:1",
        "riffle:4",
        "riffle:6",
        "riffle:7",
        "riffle:8",
        "shelf:10",
        "overhand:100",
        "modulo:8",
        "off-by-one",
        "short-period:1000",
        "stuck:50",
    )
}


def _calibration(batches: int, decks: int, seed: int) -> tuple[int, Counter[str], Counter[str]]:
    holm_rejections = 0
    small: Counter[str] = Counter()
    ran: Counter[str] = Counter()
    for i in range(batches):
        result = simulated_battery("fair", decks, seed + i)
        holm_rejections += bool(result.rejected)
        for key, p in result.p_values().items():
            ran[key] += 1
            small[key] += p < 0.05
    return holm_rejections, small, ran


def _check_calibration(batches: int, decks: int, seed: int) -> None:
    holm_rejections, small, ran = _calibration(batches, decks, seed)
    # Family-wise: at most alpha = 1% of batches, within binomial tolerance (0.999 quantile).
    assert holm_rejections <= stats.binom.ppf(0.999, batches, 0.01)
    # Each test alone at the 5% level: not above the binomial tolerance.
    limit = stats.binom.ppf(0.9995, batches, 0.05)
    for key, count in small.items():
        assert count <= limit, (key, count, ran[key])


def test_fair_shuffler_is_calibrated() -> None:
    _check_calibration(batches=40, decks=300, seed=10_000)


slow = pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)


@pytest.mark.slow
@slow
def test_fair_shuffler_is_calibrated_long() -> None:
    for decks in (20, 200, 5_000):
        _check_calibration(batches=1_000, decks=decks, seed=20_000 + decks)


def test_calibrated_with_an_independent_generator() -> None:
    """Python's Mersenne Twister, through the whole text path: the battery's rejection rate
    does not depend on the simulator's generator."""
    rng = random.Random(2013)
    rejections, batches = 0, 25
    for b in range(batches):
        audit = _core.ShuffleAudit("cards52", "previous")
        audit.begin_file(f"mt-{b}.csv")
        deck = list(range(52))
        lines = ["device_id,timestamp,shuffle_id,output\n"]
        for k in range(300):
            rng.shuffle(deck)
            lines.append(f"MT,{k},{k},{' '.join(_core.card_code(c) for c in deck)}\n")
        audit.feed("".join(lines).encode())
        audit.end_file()
        audit.finish()
        result = run_battery(
            Tally.from_core("cards52", audit.tally()), repeats=Repeats(*audit.repeats())
        )
        assert result.conclusive
        rejections += bool(result.rejected)
    assert rejections <= stats.binom.ppf(0.999, batches, 0.01)


@pytest.mark.parametrize(("model", "decks"), sorted(POWER.items()))
def test_failure_models_are_rejected(model: str, decks: int) -> None:
    for seed in range(2):
        assert simulated_battery(model, decks, 500 + seed).verdict == "fail", (model, seed)


@pytest.mark.slow
@slow
@pytest.mark.parametrize(("model", "decks"), sorted(POWER.items()))
def test_failure_models_99_percent_power(model: str, decks: int) -> None:
    rejected = sum(simulated_battery(model, decks, 9_000 + s).verdict == "fail" for s in range(100))
    assert rejected >= 97  # 99% power measured on other seeds; binomial slack for 100 trials


def test_what_each_model_breaks() -> None:
    """The tests that see each failure are the ones its structure predicts."""
    assert "fixed" in simulated_battery("off-by-one", 200, 1).rejected
    assert "rising" in simulated_battery("riffle:4", 50, 1).rejected
    shelf = simulated_battery("shelf:10", 50, 1)
    assert {"valleys", "guessing"} <= set(shelf.rejected)
    guess = next(t for t in shelf.tests if t.key == "guessing")
    # Diaconis, Fulman and Holmes (2013) report about 9.3 correct guesses for 10 shelves.
    assert 8.5 < guess.effect + 4.538 < 10.0  # type: ignore[operator]
    assert "repeats-relative" in simulated_battery("short-period:100", 300, 1).rejected
    assert "fixed" in simulated_battery("stuck:200", 3_000, 1).rejected


def test_mahjong_battery() -> None:
    for deck in ("mahjong136", "mahjong112"):
        fair = simulated_battery("fair", 600, 3, deck=deck)
        assert fair.conclusive
        keys = [t.key for t in fair.tests]
        assert keys == ["position", "per-position", "coupon", "matches", "repeats-output"]
        assert not fair.rejected
        assert "matches" in simulated_battery("riffle:1", 300, 3, deck=deck).rejected


def test_second_level_flags_excess_small_p_values() -> None:
    fair = [simulated_battery("fair", 300, 40 + i) for i in range(12)]
    assert second_level(fair).verdict == "pass"
    assert second_level(fair[:5]).verdict == "skipped"
    biased = [simulated_battery("stuck:150", 300, 40 + i) for i in range(12)]
    assert second_level(biased).verdict == "fail"


def test_position_residuals_name_the_stuck_card() -> None:
    """A device that leaves the ace of spades on top 10% of the time: the residuals name it."""
    rng = random.Random(7)
    audit = _core.ShuffleAudit("cards52", "none")
    audit.begin_file("stuck.csv")
    lines = ["device_id,timestamp,shuffle_id,output\n"]
    deck = list(range(52))
    for k in range(2_000):
        rng.shuffle(deck)
        if rng.random() < 0.1:
            i = deck.index(51)
            deck[0], deck[i] = deck[i], deck[0]
        lines.append(f"D,{k},{k},{' '.join(_core.card_code(c) for c in deck)}\n")
    audit.feed("".join(lines).encode())
    audit.end_file()
    audit.finish()
    result = run_battery(Tally.from_core("cards52", audit.tally()))
    position = next(t for t in result.tests if t.key == "position")
    assert position.detail.startswith("largest standardized residuals: As@1 +")
    assert {"position", "per-position"} <= set(result.rejected)


def test_a_rejection_fails_at_any_sample_size() -> None:
    """Below the position test's floor a rejected battery is FAIL, not INCONCLUSIVE; a fair
    battery there is INCONCLUSIVE, and from the floor on it can PASS."""
    floor = shuffles_to_conclude("cards52")
    assert (floor, shuffles_to_conclude("mahjong136"), shuffles_to_conclude("mahjong112")) == (
        260,
        170,
        140,
    )
    riffled = simulated_battery("riffle:1", 10, 1)
    assert not riffled.conclusive
    assert riffled.rejected
    assert riffled.verdict == "fail"
    small = simulated_battery("fair", floor - 1, 3)
    assert (small.conclusive, small.rejected, small.verdict) == (False, (), "inconclusive")
    enough = simulated_battery("fair", floor, 3)
    assert (enough.conclusive, enough.verdict) == (True, "pass")


def test_levels_are_probabilities() -> None:
    """alpha nan or -1 used to pass a one-riffle shuffler whose table showed rising p=0."""
    for alpha in (float("nan"), -1.0, 0.0, 1.0):
        with pytest.raises(AuditError, match=r"alpha .*strictly between 0 and 1"):
            simulated_battery("riffle:1", 20, 1, alpha=alpha)
    for confidence in (0.0, 1.0, 5.0, float("nan")):
        with pytest.raises(AuditError, match=r"confidence .*strictly between 0 and 1"):
            check_levels(0.01, confidence)


def test_what_the_audit_can_detect_at_its_size() -> None:
    small = detectable("cards52", 100)
    assert "a fair cards52 log can pass from 260 shuffles (this one has 100" in small
    assert "riffle:7" in small.split("more shuffles")[0]
    assert "riffle:8 (500)" in small.split("more shuffles")[1]
    large = detectable("cards52", 50_000)
    assert "more shuffles" not in large
    assert "no power table is measured for mahjong136" in detectable("mahjong136", 1_000)


def test_the_documented_power_table_is_the_one_the_audit_cites() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "methodology" / "shuffler.md"
    rows = re.findall(
        r"^\| `([a-z:0-9-]+)` \| ([\d,]+) \| (\d+)/100 \|$", page.read_text("utf-8"), re.M
    )
    assert len(rows) >= 10
    assert {m: int(d.replace(",", "")) for m, d, _ in rows} == DECKS_FOR_POWER
    assert all(int(fails) >= 99 for _, _, fails in rows)
