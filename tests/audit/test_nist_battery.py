"""The NIST battery as a lab uses it: bad generators fail the tests they should, a good one
passes at the nominal rate, bad input is refused clearly, the second level follows section 4.2,
and the Rust core agrees with the plain-Python oracle on random input."""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablecert import _core
from tablecert._core import _testing
from tablecert.audit.rng import (
    NistParameters,
    permutation_rank,
    permutations_to_bits,
    read_bits,
    run_nist,
    second_level,
    split_sequences,
)
from tablecert.errors import RngAuditError
from tests.reference import nist_reference as ref

N_BITS = 100_000


def sha_stream(nbytes: int, seed: bytes = b"tablecert") -> bytes:
    """A deterministic good generator: SHA-256 in counter mode."""
    out = bytearray()
    counter = 0
    while len(out) < nbytes:
        out += hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
    return bytes(out[:nbytes])


def failing_tests(data: bytes, sequences: int, bits: int = N_BITS) -> set[str]:
    report = run_nist(data, bits=bits, sequences=sequences)
    return set(report.tests_failed())


def test_good_generator_fails_only_by_chance() -> None:
    """With 60 sequences a column is flagged when 3 or more p-values fall below 0.01, which a
    good generator does with probability ~0.022 per column: about 4 of the 188 columns."""
    data = sha_stream(60 * N_BITS // 8)
    report = run_nist(data, bits=N_BITS, sequences=60)
    lo = report.columns[0].proportion_bounds[0]
    max_fail = 60 - math.ceil(lo * 60)
    p_flag = 1 - sum(math.comb(60, k) * 0.01**k * 0.99 ** (60 - k) for k in range(max_fail + 1))
    expected = p_flag * len(report.columns)
    assert len(report.failures) < expected + 5 * math.sqrt(expected) + 2
    assert all(c.uniformity_ok for c in report.columns if c.sample_size >= 55)
    # Universal needs 387,840 bits; the rest apply at 10^5 bits.
    assert [name for name, _ in report.skipped] == ["Universal"]


def test_os_urandom_passes_at_the_nominal_rate() -> None:
    """Over all p-values of 50 sequences the rejection rate at α = 0.01 is within a generous
    binomial bound (p-values of one sequence are correlated, so 6 sigma)."""
    sequences = 50
    report = run_nist(os.urandom(sequences * N_BITS // 8), bits=N_BITS, sequences=sequences)
    p = report.pvalues[~np.isnan(report.pvalues)]
    rejected = int(np.count_nonzero(p < 0.01))
    mean = 0.01 * p.size
    assert abs(rejected - mean) < 6 * math.sqrt(mean * 0.99) + 1


def test_biased_bits_fail_frequency() -> None:
    rng = np.random.default_rng(1)
    bits = (rng.random(30 * N_BITS) < 0.51).astype(np.uint8)
    failed = failing_tests(np.packbits(bits).tobytes(), 30)
    assert {"Frequency", "CumulativeSums", "Runs"} <= failed


def test_stuck_bit_fails_pattern_tests() -> None:
    """Bit 0 of every byte stuck at 1 (a stuck output line)."""
    data = bytes(b | 0x80 for b in sha_stream(30 * N_BITS // 8, b"stuck"))
    failed = failing_tests(data, 30)
    assert {"Frequency", "Runs", "FFT", "Serial", "ApproximateEntropy"} <= failed


def lcg_bits(modulus_bits: int, bit: int, count: int) -> bytes:
    """Bit `bit` of x -> 69069 x + 1 mod 2^modulus_bits, one bit per step."""
    x, mask = 12345, (1 << modulus_bits) - 1
    out = np.empty(count, dtype=np.uint8)
    for i in range(min(count, 1 << modulus_bits)):
        x = (69069 * x + 1) & mask
        out[i] = (x >> bit) & 1
    period = min(count, 1 << modulus_bits)
    return np.packbits(np.resize(out[:period], count)).tobytes()


def test_short_period_lcg_fails_pattern_tests() -> None:
    """The top bit of a 16-bit LCG: period 65,536 bits, balanced but patterned."""
    failed = failing_tests(lcg_bits(16, 15, 30 * N_BITS), 30)
    assert {"Rank", "FFT", "ApproximateEntropy", "Serial", "OverlappingTemplate"} <= failed
    assert "Frequency" not in failed


def test_lcg_low_bit_fails_runs_and_linear_complexity() -> None:
    """The lowest bit of a power-of-two LCG alternates 0101...: perfectly balanced, so the
    frequency tests pass, but runs and linear complexity (L = 2) fail."""
    failed = failing_tests(lcg_bits(32, 0, 30 * N_BITS), 30)
    assert {"Runs", "LinearComplexity", "Serial"} <= failed
    assert not {"Frequency", "BlockFrequency"} & failed


def test_excursions_use_only_sequences_with_enough_cycles() -> None:
    data = sha_stream(20 * N_BITS // 8, b"cycles")
    report = run_nist(data, bits=N_BITS, sequences=20, tests=["RandomExcursions"])
    assert report.min_cycles == 500
    col = report.column("RandomExcursions", "x = +1")
    applicable = int(np.count_nonzero(~np.isnan(report.pvalues[:, 4])))
    assert col.sample_size == applicable < 20
    # With min_cycles lowered every sequence counts.
    low = run_nist(
        data,
        bits=N_BITS,
        sequences=20,
        tests=["RandomExcursions"],
        parameters=NistParameters(min_cycles=1),
    )
    assert low.column("RandomExcursions", "x = +1").sample_size == 20


# --- second level (section 4.2) ---


def test_second_level_proportion_and_uniformity() -> None:
    pvals = [(i + 0.5) / 1000 for i in range(1000)]
    col = second_level("T", "", pvals, 0.01)
    assert col.histogram == (100,) * 10
    assert col.passed == 990
    lo, hi = col.proportion_bounds
    assert (round(lo, 7), round(hi, 7)) == (0.9805607, 0.9994393)
    assert col.uniformity_p == pytest.approx(1.0)
    assert col.ok
    skewed = second_level("T", "", [0.05] * 100, 0.01)
    # chi2 = 900 on 9 degrees of freedom: P-value_T = igamc(4.5, 450)
    assert skewed.uniformity_p == pytest.approx(_core.igamc(4.5, 450.0))
    assert skewed.uniformity_ok is False
    few = second_level("T", "", [0.5] * 54, 0.01)
    assert few.uniformity_p is None
    assert few.uniformity_ok is None
    assert few.ok
    nan = second_level("T", "", [math.nan, 0.001, 0.5], 0.01)
    assert (nan.sample_size, nan.passed, nan.proportion_ok) == (2, 1, False)
    none = second_level("T", "", [math.nan] * 3, 0.01)
    assert (none.applicable, none.ok, none.as_json()["proportion"]) == (False, True, None)


# --- bad input ---


def test_bad_input_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(RngAuditError, match="empty"):
        read_bits([empty])
    with pytest.raises(RngAuditError, match="fewer than one sequence"):
        split_sequences(1000, 2000, None)
    with pytest.raises(RngAuditError, match="need 3,000 bits"):
        split_sequences(2500, 1000, 3)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"0101 0110\n012\n")
    with pytest.raises(RngAuditError, match="only '0', '1'"):
        read_bits([bad], "ascii")
    ascii_file = tmp_path / "a.txt"
    ascii_file.write_bytes(b"0101\n")
    binary_file = tmp_path / "b.bin"
    binary_file.write_bytes(b"\x00\xff")
    with pytest.raises(RngAuditError, match="mix"):
        read_bits([ascii_file, binary_file])
    with pytest.raises(RngAuditError, match="cannot read"):
        read_bits([tmp_path / "missing.bin"])


@pytest.mark.parametrize(
    ("params", "test", "message"),
    [
        ({"longest_run_m": 100}, "LongestRun", "M=100"),
        ({"universal_l": 17}, "Universal", "L=17"),
        ({"block_frequency_m": 0}, "BlockFrequency", "M must be >= 1"),
        ({"rank_rows": 65}, "Rank", "M=65"),
        ({"serial_m": 1}, "Serial", "m=1"),
        ({"non_overlapping_m": 30}, "NonOverlappingTemplate", "m=30"),
        ({}, "Universal", "needs at least 387840"),
        ({"overlapping_template": 1 << 12}, "OverlappingTemplate", "longer than m=9"),
    ],
)
def test_forbidden_parameters(params: dict[str, int], test: str, message: str) -> None:
    data = sha_stream(N_BITS // 8)
    with pytest.raises(RngAuditError, match=message):
        run_nist(
            data,
            bits=N_BITS,
            sequences=1,
            tests=[test],
            parameters=NistParameters(**params),  # type: ignore[arg-type]
        )


def test_unknown_test_and_short_data() -> None:
    with pytest.raises(RngAuditError, match='unknown test "Poker"'):
        run_nist(b"\x00" * 100, bits=800, sequences=1, tests=["Poker"])
    with pytest.raises(RngAuditError, match="2 sequences of 800 bits need 1600 bits"):
        run_nist(b"\x00" * 100, bits=800, sequences=2, tests=["Frequency"])
    with pytest.raises(RngAuditError, match="alpha"):
        run_nist(b"\x00" * 100, bits=800, sequences=1, alpha=1.5)


def test_ascii_and_binary_give_the_same_bits(tmp_path: Path) -> None:
    raw = sha_stream(1000, b"fmt")
    binary = tmp_path / "x.bin"
    binary.write_bytes(raw)
    text = "".join(format(b, "08b") for b in raw)
    ascii_file = tmp_path / "x.txt"
    ascii_file.write_text("\n".join(text[i : i + 64] for i in range(0, len(text), 64)) + "\n")
    a, b = read_bits([binary]), read_bits([ascii_file])
    assert (a.format, b.format) == ("binary", "ascii")
    assert a.data == b.data
    assert a.total_bits == b.total_bits == 8000
    # An explicit format overrides detection: the ASCII file read as binary is 8x longer.
    assert read_bits([ascii_file], "binary").total_bits == 8 * ascii_file.stat().st_size


# --- permutations from shuffler logs ---


def test_permutation_rank_is_lexicographic() -> None:
    for k in (1, 2, 3, 5):
        ranks = [permutation_rank(p) for p in itertools.permutations(range(k))]
        assert ranks == list(range(math.factorial(k)))
    with pytest.raises(RngAuditError, match="not a permutation"):
        permutation_rank([0, 0, 1])


def test_permutations_to_bits_is_unbiased() -> None:
    """4! = 16 + 8: the 24 permutations of 4 give every 4-bit pattern once and every 3-bit
    pattern once, so each bit is fair; 7 bits per pair of shuffles on average."""
    perms = list(itertools.permutations(range(4)))
    # Repeat 8 times so the total is a whole number of bytes: 24 perms give 16*4 + 8*3 = 88 bits.
    data = permutations_to_bits(perms)
    bits = "".join(format(b, "08b") for b in data)
    assert len(bits) == 88
    four = [bits[4 * i : 4 * i + 4] for i in range(16)]
    three = [bits[64 + 3 * i : 64 + 3 * i + 3] for i in range(8)]
    assert sorted(four) == [format(v, "04b") for v in range(16)]
    assert sorted(three) == [format(v, "03b") for v in range(8)]
    with pytest.raises(RngAuditError, match="5 items in a log of 4-item"):
        permutations_to_bits([[0, 1, 2, 3], [0, 1, 2, 3, 4]])


def test_shuffled_decks_pass_frequency() -> None:
    rng = np.random.default_rng(7)
    decks = [rng.permutation(52).tolist() for _ in range(2000)]
    data = permutations_to_bits(decks)
    n = len(data) * 8
    assert n >= 2000 * 224
    report = run_nist(data, bits=n, sequences=1, tests=["Frequency", "Runs", "BlockFrequency"])
    assert all(p >= 0.001 for p in report.pvalues[0])


# --- the core against the oracle and the special functions ---


@settings(max_examples=25, deadline=None)
@given(st.floats(0.01, 400), st.floats(0.0, 800))
def test_igamc_matches_scipy(a: float, x: float) -> None:
    assert _core.igamc(a, x) == pytest.approx(ref.igamc(a, x), rel=1e-10, abs=1e-300)


@settings(max_examples=50, deadline=None)
@given(st.floats(-6, 26))
def test_erfc_matches_math(x: float) -> None:
    # Far in the tail (erfc(26) ~ 1e-296) the exponent's rounding limits relative precision.
    rel = 1e-13 if x < 6 else 1e-11
    assert _testing.erfc(x) == pytest.approx(math.erfc(x), rel=rel, abs=1e-300)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=1, max_size=3000))
def test_dft_matches_numpy(values: list[float]) -> None:
    want = np.abs(np.fft.fft(values))[: len(values) // 2]
    for fft in ("hand", "crate"):
        got = np.array(_testing.dft_magnitudes(values, fft))
        assert np.allclose(got, want, atol=1e-9 * len(values)), fft


@pytest.mark.parametrize("n", [2, 3, 1000, 1001, 10_007, 65_536, 99_991, 1_000_000])
def test_hand_and_crate_transforms_agree_on_random_sequences(n: int) -> None:
    """The spectral test's two transforms (the hand-written mixed-radix / Bluestein FFT and
    realfft/rustfft) on a random ±1 sequence: every magnitude within 10^-15 n log2(n), a
    thousandth of the margin the battery keeps from the threshold before trusting the crate
    (measured: at most 2.4e-12 at n = 10^6, 1.2e-7 of the margin), and the same peak count."""
    values = (2.0 * np.random.default_rng(n).integers(0, 2, n) - 1.0).tolist()
    hand = np.array(_testing.dft_magnitudes(values, "hand"))
    fast = np.array(_testing.dft_magnitudes(values, "crate"))
    assert len(hand) == len(fast) == n // 2
    assert np.abs(hand - fast).max() <= 1e-15 * n * max(math.log2(n), 1.0)
    threshold = math.sqrt(math.log(1 / 0.05) * n)
    assert np.count_nonzero(hand < threshold) == np.count_nonzero(fast < threshold)


def test_peak_counts_by_either_transform_are_identical() -> None:
    """N1 of 300 random 10^4-bit and 40 random 10^5-bit sequences, and of an odd length, by
    the hand-written transform, the crate's and the battery's choice: identical."""
    rng = np.random.default_rng(5)
    for bits, sequences in [(10_000, 300), (100_000, 40), (30_011, 20)]:
        data = rng.integers(0, 256, bits * sequences // 8 + 1, dtype=np.uint8).tobytes()
        hand = _testing.dft_peak_counts(data, bits, sequences, "hand")
        fast = _testing.dft_peak_counts(data, bits, sequences, "crate")
        test = _testing.dft_peak_counts(data, bits, sequences, "test")
        assert [c for c, _ in hand] == [c for c, _ in fast] == [c for c, _ in test]
        assert {t for _, t in hand} == {"hand"}
        assert {t for _, t in fast} == {"crate"}


def test_dft_peak_counts_refuses_what_it_cannot_count() -> None:
    with pytest.raises(_core.NistError, match='fft="fftw"'):
        _testing.dft_peak_counts(b"\0" * 8, 64, 1, "fftw")  # type: ignore[arg-type]
    with pytest.raises(
        _core.NistError, match="2 sequences of 64 bits need 128 bits; the input has 64"
    ):
        _testing.dft_peak_counts(b"\0" * 8, 64, 2, "test")
    with pytest.raises(_core.NistError, match="bits=1"):
        _testing.dft_peak_counts(b"\0" * 8, 1, 1, "test")


@settings(max_examples=8, deadline=None)
@given(st.binary(min_size=2500, max_size=2500), st.sampled_from([0.3, 0.5, 0.55]))
def test_core_matches_the_oracle(raw: bytes, bias: float) -> None:
    """All tests on 20,000-bit sequences (hypothesis picks the bits; a threshold skews them)
    with parameters scaled to the length, against the plain-Python transcription."""
    u = np.frombuffer(hashlib.shake_256(raw).digest(20_000), dtype=np.uint8)
    bits = (u < int(bias * 256)).astype(np.uint8)
    eps = bits.tolist()
    params = NistParameters(
        block_frequency_m=100,
        non_overlapping_m=5,
        overlapping_m=4,
        overlapping_block=100,
        overlapping_k=5,
        overlapping_approximate=True,
        universal_l=4,
        universal_q=160,
        linear_complexity_m=100,
        serial_m=5,
        approximate_entropy_m=4,
        min_cycles=1,
    )
    report = run_nist(np.packbits(bits).tobytes(), bits=20_000, sequences=1, parameters=params)
    got = report.pvalues[0]
    want = [
        *ref.frequency(eps),
        *ref.block_frequency(eps, 100),
        *ref.cumulative_sums(eps),
        *ref.runs(eps),
        *ref.longest_run(eps),  # M = 128 at this length
        *ref.rank(eps),
        *ref.dft(eps),
        *ref.non_overlapping(eps, 5, 8),
        *ref.overlapping(eps, 4, 100, 5),
        *ref.universal(eps, 4, 160),
        *ref.approximate_entropy(eps, 4),
        *ref.random_excursions(eps, 1),
        *ref.random_excursions_variant(eps, 1),
        *ref.serial(eps, 5),
        *ref.linear_complexity(eps, 100),
    ]
    labels = [f"{c.test} {c.label}" for c in report.columns]
    assert len(want) == len(got)
    for label, g, w in zip(labels, got, want, strict=True):
        if math.isnan(w):
            assert math.isnan(g), label
        elif label.startswith("LongestRun"):
            # The oracle uses table 2.4's rounded probabilities, the core the exact ones.
            assert g == pytest.approx(w, abs=2e-3), label
        else:
            assert g == pytest.approx(w, rel=1e-7, abs=1e-12), label


def test_linear_complexity_matches_oracle_bm() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 7, 64, 65, 130, 333):
        s = rng.integers(0, 2, n).astype(np.uint8)
        assert _testing.linear_complexity_of(s.tobytes()) == ref.berlekamp_massey(s.tolist())


def test_template_library() -> None:
    t9 = _testing.aperiodic_templates(9)
    assert len(t9) == 148
    assert [format(t, "09b") for t in t9] == ref.aperiodic_templates(9)


def test_sequences_split_at_any_bit_offset() -> None:
    """Three sequences of 20,001 bits (not byte-aligned) give the p-values of each sequence
    run on its own."""
    n = 20_001
    data = sha_stream((3 * n + 7) // 8, b"split")
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8))
    tests = ["Frequency", "Runs", "LongestRun", "FFT", "Serial", "LinearComplexity"]
    together = run_nist(data, bits=n, sequences=3, tests=tests).pvalues
    for i in range(3):
        alone = np.packbits(bits[i * n : (i + 1) * n]).tobytes()
        single = run_nist(alone, bits=n, sequences=1, tests=tests).pvalues[0]
        assert np.array_equal(together[i], single)


def test_excursions_count_cycles_like_the_nist_tool_when_the_walk_ends_at_zero() -> None:
    """A walk that ends at 0 is not padded with a further (empty) cycle: J counts its zeros,
    as the NIST tool does (``if (S_k[n-1] != 0) J++``)."""
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2, size=20_000).astype(np.uint8)
    ones = int(bits.sum())
    # Flip zeros to ones (or back) until the walk ends at 0: as many ones as zeros.
    order = rng.permutation(20_000)
    for i in order:
        if ones == 10_000:
            break
        if ones < 10_000 and bits[i] == 0:
            bits[i], ones = 1, ones + 1
        elif ones > 10_000 and bits[i] == 1:
            bits[i], ones = 0, ones - 1
    eps = bits.tolist()
    params = NistParameters(min_cycles=1)
    report = run_nist(
        np.packbits(bits).tobytes(),
        bits=20_000,
        sequences=1,
        parameters=params,
        tests=["RandomExcursions"],
    )
    assert report.pvalues[0] == pytest.approx(ref.random_excursions(eps, 1), abs=1e-9)
