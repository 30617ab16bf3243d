"""The RNG verdict: grossly broken streams FAIL at every sequence count from one on, a good
generator is rejected at no more than the family-wise alpha (calibration over seeded runs,
within binomial tolerance), and every rule says whether it could reject and from how many
sequences."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import numpy as np
import pytest
from scipy.stats import binom

from tablecert.audit.rng import TEST_NAMES, NistParameters, NistReport, run_nist, second_level
from tablecert.audit.rng_decision import (
    RULES,
    check_level,
    decide,
    holm,
    judged_columns,
    judged_from,
    min_sequences_for_proportion,
    proportion_tail,
)
from tablecert.errors import RngAuditError

N_BITS = 100_000


def good(n_bits: int, seed: int) -> bytes:
    return np.random.default_rng(seed).bytes((n_bits + 7) // 8)


def zeros(n_bits: int) -> bytes:
    return bytes((n_bits + 7) // 8)


def alternating(n_bits: int) -> bytes:
    return b"\x55" * ((n_bits + 7) // 8)


def repeated_block(n_bits: int) -> bytes:
    """A short period: 1,000 random bytes (8,000 bits) over and over."""
    block = np.random.default_rng(3).bytes(1000)
    return (block * (n_bits // 8000 + 1))[: (n_bits + 7) // 8]


def lcg_high_byte(n_bits: int) -> bytes:
    """The high byte of a 16-bit LCG (period 65,536 outputs): balanced, patterned."""
    out = bytearray()
    x = 1
    for _ in range((n_bits + 7) // 8):
        x = (69069 * x + 1) & 0xFFFF
        out.append(x >> 8)
    return bytes(out)


def low_bit_biased(n_bits: int) -> bytes:
    """The lowest bit of every byte is 1 with probability 0.6; the other bits are fair."""
    rng = np.random.default_rng(4)
    b = rng.integers(0, 256, (n_bits + 7) // 8, dtype=np.uint8)
    low = (rng.random(b.size) < 0.6).astype(np.uint8)
    return bytes((b & 0xFE) | low)


BROKEN = {
    "all zeros": zeros,
    "alternating": alternating,
    "short period (8,000 bits)": repeated_block,
    "16-bit LCG high byte": lcg_high_byte,
    "low bit biased": low_bit_biased,
}


@pytest.mark.parametrize("name", list(BROKEN))
@pytest.mark.parametrize("sequences", [1, 2, 3, 10, 55])
def test_gross_failures_fail_at_every_sequence_count(name: str, sequences: int) -> None:
    """No proportion can fall outside its interval with one or two sequences, so the
    proportion rule alone would pass a single sequence of zeros; every sequence count fails."""
    report = run_nist(BROKEN[name](sequences * N_BITS), bits=N_BITS, sequences=sequences)
    decision = decide(report)
    assert decision.verdict == "fail", decision.summary
    extreme = decision.rule("extreme")
    assert extreme.can_reject
    assert extreme.rejected
    assert decision.rule("proportion").can_reject == (sequences >= 2)
    assert decision.rule("uniformity").can_reject == (sequences >= 55)


def test_gross_failures_fail_one_sequence_of_a_million_bits() -> None:
    for make in (zeros, lcg_high_byte):
        decision = decide(run_nist(make(1_000_000), bits=1_000_000, sequences=1))
        assert decision.verdict == "fail", decision.summary
        # every test is judged at the document's length
        assert decision.not_judged == ()


def test_a_good_generator_passes_and_the_rules_say_why() -> None:
    report = run_nist(good(3 * N_BITS, 1), bits=N_BITS, sequences=3)
    decision = decide(report)
    assert decision.verdict == "pass"
    extreme, proportion, uniformity = decision.rules
    assert [r.key for r in decision.rules] == list(RULES)
    # 9 judged columns at 10^5 bits: Frequency, BlockFrequency, 2 CumulativeSums, Runs,
    # LongestRun, Rank, FFT, ApproximateEntropy; the other tests are shown, not judged.
    assert len(judged_columns(report)) == 9
    assert [t for t, _ in decision.not_judged] == [
        "NonOverlappingTemplate",
        "OverlappingTemplate",
        "RandomExcursions",
        "RandomExcursionsVariant",
        "Serial",
        "LinearComplexity",
    ]
    # Two rules can reject: each gets half the family-wise alpha.
    assert extreme.alpha == proportion.alpha == pytest.approx(0.005)
    assert extreme.threshold == pytest.approx(0.005 / (9 * 3))
    assert "all-zero sequence in Frequency gives p = 0" in extreme.reason
    assert (proportion.min_sequences, proportion.can_reject) == (2, True)
    assert (uniformity.min_sequences, uniformity.can_reject, uniformity.alpha) == (55, False, 0)
    assert "needs at least 55" in uniformity.reason
    lines = "\n".join(decision.lines())
    assert "verdict: PASS" in lines
    assert "not judged: Serial (shown above; judged from 524,288 bits per sequence)" in lines


def test_inconclusive_only_when_no_rule_can_reject() -> None:
    # Linear complexity is judged from 10^6 bits: at 10^5 no column is judged.
    report = run_nist(zeros(2 * N_BITS), bits=N_BITS, sequences=2, tests=["LinearComplexity"])
    decision = decide(report)
    assert decision.verdict == "inconclusive"
    assert not any(r.can_reject for r in decision.rules)
    assert "no test is judged at 100,000 bits" in decision.summary


def test_smallest_sequence_counts() -> None:
    # 188 columns at alpha 0.01: 0.01^3 = 1e-6 <= 0.005 / 188 = 2.7e-5 < 0.01^2.
    assert min_sequences_for_proportion(188, 0.01, 0.01) == 3
    assert min_sequences_for_proportion(9, 0.01, 0.01) == 2
    assert min_sequences_for_proportion(1, 0.01, 0.01) == 2
    assert min_sequences_for_proportion(188, 0.05, 0.01) == 4


def test_document_lengths() -> None:
    p = NistParameters()
    assert judged_from("Frequency", p) == 100
    assert judged_from("Rank", p) == 38 * 32 * 32
    assert judged_from("ApproximateEntropy", p) == 1 << 16
    assert judged_from("Serial", p) == 1 << 19
    assert judged_from("LongestRun", NistParameters(longest_run_m=10_000)) == 750_000
    for test in ("OverlappingTemplate", "LinearComplexity", "RandomExcursions", "Universal"):
        assert judged_from(test, p) == 1_000_000


def test_holm_and_tails() -> None:
    column = second_level("T", "", [0.5, 0.5, 0.5, 0.001], 0.01)
    # 3 of 4 pass when each passes with probability 0.99: 1 - 0.99^4.
    assert proportion_tail(column, 0.01) == pytest.approx(1 - 0.99**4)
    assert holm([0.001, 0.02, None, 0.004], 0.01) == [0, 3]
    assert holm([0.006, 0.006], 0.01) == []
    for bad in (0.0, 1.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(RngAuditError, match="strictly between 0 and 1"):
            check_level(bad, "--alpha")


# --- calibration: a good generator is rejected at no more than alpha ---

LEVELS = (0.01, 0.1, 0.3)


def per_run(big: NistReport, runs: int, sequences: int) -> Iterator[NistReport]:
    """Split one report of runs x sequences into `runs` reports of `sequences` each."""
    for k in range(runs):
        rows = big.pvalues[k * sequences : (k + 1) * sequences]
        columns = tuple(
            second_level(c.test, c.label, rows[:, i], big.alpha) for i, c in enumerate(big.columns)
        )
        yield dataclasses.replace(big, sequences=sequences, columns=columns, pvalues=rows)


def calibration(runs: int, sequences: int, bits: int, seed: int) -> dict[float, int]:
    """FAIL counts per family-wise level over `runs` seeded runs of a good generator (PCG64),
    only the tests judged at `bits` (the others do not enter the verdict)."""
    params = NistParameters()
    tests = [t for t in TEST_NAMES if judged_from(t, params) <= bits]
    data = np.random.default_rng(seed).bytes(runs * sequences * bits // 8 + 1)
    big = run_nist(data, bits=bits, sequences=runs * sequences, tests=tests)
    fails = dict.fromkeys(LEVELS, 0)
    for report in per_run(big, runs, sequences):
        for level in LEVELS:
            fails[level] += decide(report, level).verdict == "fail"
    return fails


def assert_calibrated(fails: dict[float, int], runs: int) -> None:
    """Each FAIL count within the binomial tolerance of its level: above the 1 - 10^-4
    quantile of Binomial(runs, level) a rule would be rejecting a good generator too often."""
    for level, count in fails.items():
        bound = int(binom.ppf(1 - 1e-4, runs, level))
        assert count <= bound, f"{count} of {runs} runs failed at alpha {level} (bound {bound})"


def test_calibration_reduced() -> None:
    """300 runs of one 10^5-bit sequence (extreme rule) and 60 runs of 55 sequences of
    2 x 10^4 bits (all three rules)."""
    assert_calibrated(calibration(300, 1, N_BITS, seed=11), 300)
    assert_calibrated(calibration(60, 55, 20_000, seed=12), 60)


def test_calibration_can_fail() -> None:
    """The tolerance is not vacuous: judging each column at the level without a family-wise
    correction (what the per-column marks do) exceeds it."""
    runs, level = 200, 0.1
    big = run_nist(good(runs * N_BITS, 13), bits=N_BITS, sequences=runs)
    judged = big.pvalues[:, judged_columns(big)]
    naive = int(np.count_nonzero((judged < level).any(axis=1)))
    assert naive > int(binom.ppf(1 - 1e-4, runs, level))


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
def test_calibration_full() -> None:
    """1,000 seeded runs of one 10^6-bit sequence through all fifteen tests (the extreme rule
    at the document's length), and 1,000 runs of 60 sequences of 2 x 10^4 bits (all three
    rules). About 2 minutes of CPU."""
    assert_calibrated(calibration(1000, 1, 1_000_000, seed=21), 1000)
    assert_calibrated(calibration(1000, 60, 20_000, seed=22), 1000)
