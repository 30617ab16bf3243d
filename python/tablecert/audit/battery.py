"""The shuffler test battery: every test judges the streamed tallies against an exact null law
(or a conservative bound), and the whole battery is judged under Holm's family-wise control.

Calibration rules followed throughout: chi-square goodness of fit only on cells pooled to an
expected count of at least 5; Pearson statistics of card-by-position tables scaled by
(N-1)/N, the exact factor for sums of random permutation matrices; maxima over many cells
judged by exact binomial tails with Bonferroni; tests without enough data are skipped, not
passed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, lru_cache
from math import comb, factorial, isfinite, sqrt
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tablecert import _core
from tablecert.audit import exact
from tablecert.audit.decks import DECK_SIZES
from tablecert.equality import ContentEq
from tablecert.errors import AuditError
from tablecert.judgement import Judged, Outcome
from tablecert.stats import (
    DEFAULT_ALPHA,
    MIN_EXPECTED,
    CellLaw,
    CheckResult,
    Counts,
    DealtLaw,
    chi2_result,
    dealt_outcomes,
    gof,
    holm,
    level_of,
    pvalues,
    skipped,
)

DEFAULT_CONFIDENCE = 0.99

# SciPy is imported inside the functions that use it (tablecert.stats.pvalues: scipy.special
# only), so that light commands (`tablecert compare`, `hands`, `--help`) start fast.


@dataclass(frozen=True, eq=False)
class Tally(ContentEq):
    """The streamed tallies of a set of shuffles (see rust/shuffler/tally.rs)."""

    deck: str
    shuffles: int
    referenced: int
    consecutive_pairs: int
    serial_sum: int
    serial_sumsq: int
    tables: dict[str, Counts] = field(repr=False)

    @classmethod
    def from_core(cls, deck: str, raw: dict[str, Any]) -> Tally:
        tables = {}
        for name, value in raw.items():
            if isinstance(value, tuple):
                shape, data = value
                tables[name] = np.frombuffer(data, dtype="<u8").astype(np.int64).reshape(shape)
        return cls(
            deck,
            int(raw["shuffles"]),
            int(raw["referenced"]),
            int(raw["consecutive_pairs"]),
            int(raw["serial_sum"]),
            int(raw["serial_sumsq"]),
            tables,
        )

    @property
    def size(self) -> int:
        return DECK_SIZES[self.deck][0]

    @property
    def symbols(self) -> int:
        return DECK_SIZES[self.deck][1]

    @property
    def copies(self) -> int:
        return DECK_SIZES[self.deck][2]


@dataclass(frozen=True, eq=False)
class BatteryResult(Judged, ContentEq):
    """All tests of one tally, and Holm's family-wise verdict at ``alpha``."""

    shuffles: int
    tests: tuple[CheckResult, ...]
    alpha: float
    rejected: tuple[str, ...]

    @property
    def conclusive(self) -> bool:
        """Enough shuffles for the basic position test (``shuffles_to_conclude``): the test
        every failure mode shows in given enough decks. Below that a battery that rejected
        nothing certifies nothing."""
        return any(t.key == "position" and t.p_value is not None for t in self.tests)

    @property
    def outcome(self) -> Outcome:
        """Fail if Holm rejected any test (at any sample size: a rejection is evidence); else
        pass if the position test ran, inconclusive if it could not."""
        return Outcome.of(bool(self.rejected), judged=self.conclusive)

    def p_values(self) -> dict[str, float]:
        return {t.key: t.p_value for t in self.tests if t.p_value is not None}


def shuffles_to_conclude(deck: str) -> int:
    """The smallest number of shuffles at which a battery can PASS: the position test needs
    every card (tile type) to be expected at least 5 times at every position."""
    size, _, copies = DECK_SIZES[deck]
    return -(-int(MIN_EXPECTED) * size // copies)


def check_levels(alpha: float, confidence: float) -> None:
    """Significance level and confidence are probabilities strictly between 0 and 1 (NaN is
    not): a level of 0 or 1 can never or must always reject."""
    for name, value in (("alpha", alpha), ("confidence", confidence)):
        if not 0 < value < 1:
            raise AuditError(f"{name} {value}: must be strictly between 0 and 1")


def _normalized(counts: Sequence[int], total: int, length: int) -> list[float]:
    p = [c / total for c in counts]
    return (p + [0.0] * length)[:length]


@dataclass(frozen=True, eq=False)
class _HistogramLaw:
    cells: CellLaw
    mean: float


@cache
def _laws(n: int) -> dict[str, _HistogramLaw]:
    """Each per-shuffle histogram's exact law for a deck of n, and its mean."""
    nf = factorial(n)
    probs = {
        "rising": [0.0, *_normalized(exact.eulerian(n), nf, n)],
        "runs": [0.0, *_normalized(exact.eulerian(n), nf, n)],
        "fixed": _normalized(exact.rencontres(n), nf, n + 1),
        "successions": _normalized(exact.successions(n), nf, n + 1),
        "valleys": _normalized(exact.interior_peaks(n), nf, n + 1),
    }
    return {
        key: _HistogramLaw(CellLaw.of(p), float(np.dot(np.arange(len(p)), p)))
        for key, p in probs.items()
    }


def _two_sided_normal(z: float) -> float:
    return float(2 * pvalues.norm_sf(abs(z)))


def _fit_result(
    key: str, name: str, cites: str, fit: tuple[float, int, float], count: int, detail: str
) -> CheckResult:
    """A goodness-of-fit test's result from :func:`gof`'s chi-square, degrees of freedom and
    p-value; the effect size is Cohen's w over the ``count`` observations."""
    x2, df, p = fit
    w = sqrt(x2 / count) if isfinite(x2) else None
    return CheckResult(key, name, cites, x2, df, p, w, "Cohen's w", detail)


def _mean_shift_result(
    key: str, name: str, cites: str, z: float, shift: float, detail: str
) -> CheckResult:
    """A two-sided z-test of a mean; the effect size is the mean's shift in standard
    deviations of one observation."""
    return CheckResult(
        key, name, cites, z, None, _two_sided_normal(z), shift, "standardized mean shift", detail
    )


def _symbol_code(deck: str, s: int) -> str:
    if deck == "cards52":
        return _core.card_code(s)
    return _core.tile_code(_tile_types(deck)[s])


@cache
def _tile_types(deck: str) -> tuple[int, ...]:
    return tuple(_core.tile_types("traditional" if deck == "mahjong136" else "simple"))


# --- position and adjacency -------------------------------------------------------------


def position_uniformity(t: Tally) -> CheckResult:
    key, name, cites = "position", "card x position uniformity", "Pearson chi-square, scaled"
    n, size, copies = t.shuffles, t.size, t.copies
    p = copies / size
    if n * p < MIN_EXPECTED:
        return skipped(key, name, cites, f"needs {int(np.ceil(MIN_EXPECTED / p))} shuffles")
    o = t.tables["position"]
    e = n * p
    deviation = o - e
    x2 = float(np.sum(deviation**2) / e)
    # Sum of n random fixed-margin tables: Pearson ~ N/(N-1) * chi2((T-1)(N-1)).
    scaled = x2 * (size - 1) / size
    df = (t.symbols - 1) * (size - 1)
    resid = deviation / sqrt(e * (1 - p))
    worst = _smallest(-np.abs(resid), 3)
    named = ", ".join(
        f"{_symbol_code(t.deck, int(s))}@{int(q) + 1} {resid[s, q]:+.1f}"
        for s, q in (np.unravel_index(w, resid.shape) for w in worst)
    )
    return chi2_result(
        key,
        name,
        cites,
        scaled,
        df,
        n * (t.symbols - 1),
        "Cramér's V (bias-corrected)",
        f"largest standardized residuals: {named}",
    )


def _smallest(values: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """``np.argsort(values, axis=None, kind="stable")[:k]``: equal values in the order of
    their indices (NumPy's default sort orders ties as its version and the CPU's vector
    instructions happen to: NumPy 2.4's named other residuals than 2.3's), without sorting
    every value when it can: if the k + 1 smallest values are distinct (and not NaN), the k
    smallest in order are the only answer, taken one argmin at a time."""
    rest = values.flatten()
    if rest.size > k:
        first = []
        for _ in range(k + 1):
            first.append(int(np.argmin(rest)))  # a NaN, if any, first
            rest[first[-1]] = np.inf
        lowest = values.reshape(-1)[first]
        if bool(np.all(lowest[1:] > lowest[:-1])):
            return np.array(first[:k], dtype=np.intp)
    return np.argsort(values, axis=None, kind="stable")[:k]


def per_position(t: Tally, confidence: float = DEFAULT_CONFIDENCE) -> CheckResult:
    key, name = "per-position", f"chi-square of each dealt position at {confidence:.0%}"
    cites = "regulators' per-position chi-square; Bonferroni over positions"
    n, size, copies = t.shuffles, t.size, t.copies
    e = n * copies / size
    if e < MIN_EXPECTED:
        return skipped(key, name, cites, "too few shuffles")
    o = t.tables["position"]
    x2 = np.sum((o - e) ** 2, axis=0) / e
    df = t.symbols - 1
    ps = pvalues.chi2_sf(x2, df)
    failing = int(np.sum(ps < 1 - confidence))
    worst = int(np.argmin(ps))
    return CheckResult(
        key,
        name,
        cites,
        float(x2[worst]),
        df,
        float(min(1.0, size * float(ps[worst]))),
        failing / size,
        "fraction of positions failing",
        f"{failing} of {size} positions fail at {confidence:.0%} "
        f"(about {size * (1 - confidence):.1f} expected); worst position {worst + 1}",
    )


def _binomial_two_sided(o: Counts, n: int, p: float) -> NDArray[Any]:
    lo = pvalues.binom_cdf(o, n, p)
    hi = pvalues.binom_sf(o - 1, n, p)
    return np.asarray(np.minimum(1.0, 2 * np.minimum(lo, hi)))


@cache
def _off_diagonal(size: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The off-diagonal cells of a size x size table: flat indices, and (row, column) pairs."""
    off = ~np.eye(size, dtype=bool)
    return np.flatnonzero(off), np.argwhere(off)


def adjacency(t: Tally) -> CheckResult:
    key, name, cites = "adjacency", "successor table (card j right after card i)", "exact binomial"
    n, size = t.shuffles, t.size
    if n == 0:
        return skipped(key, name, cites, "no complete shuffles")
    s = t.tables["successor"]
    # Each ordered pair of distinct cards is adjacent in a shuffle with probability 1/N, at
    # most once: every cell is Binomial(n, 1/N) exactly.
    off, pairs = _off_diagonal(size)
    ps = _binomial_two_sided(s.reshape(-1).take(off), n, 1 / size)
    cells = size * (size - 1)
    w = int(np.argmin(ps))
    i, j = pairs[w]
    return CheckResult(
        key,
        name,
        cites,
        float(s[i, j]),
        None,
        float(min(1.0, cells * float(ps[w]))),
        float(s[i, j] / (n / size)),
        "observed / expected of the worst pair",
        f"most extreme pair {_symbol_code(t.deck, int(i))}->{_symbol_code(t.deck, int(j))}: "
        f"{int(s[i, j])} times, {n / size:.1f} expected (Bonferroni over {cells} pairs)",
    )


def consecutive(t: Tally) -> CheckResult:
    key, name, cites = "consecutive", "independence of consecutive shuffles", "Pearson, scaled"
    n, size = t.consecutive_pairs, t.size
    if n / size < MIN_EXPECTED:
        return skipped(key, name, cites, f"needs {MIN_EXPECTED * size:.0f} consecutive pairs")
    o = t.tables["consecutive"]
    e = n / size
    scaled = float(np.sum((o - e) ** 2) / e) * (size - 1) / size
    df = (size - 1) ** 2
    diag = float(np.trace(o)) / n
    return chi2_result(
        key,
        name,
        cites,
        scaled,
        df,
        n * (size - 1),
        "Cramér's V (bias-corrected)",
        f"{n} pairs; cards keeping their position: {diag:.3f} per shuffle (1 expected)",
    )


# --- against the input order ------------------------------------------------------------


# Per-shuffle histograms judged against an exact law: key (= table = law) -> name, citation,
# and whether the statistic is taken against the input order.
HISTOGRAM_TESTS: dict[str, tuple[str, str, bool]] = {
    "rising": ("rising sequences vs input order", "exact Eulerian law (Bayer-Diaconis)", True),
    "fixed": ("fixed points vs input order", "exact rencontres law", True),
    "successions": ("input neighbours still adjacent", "exact successions law (Kaplansky)", True),
    "valleys": ("valleys vs input order", "exact peak law (Diaconis-Fulman-Holmes 2013)", True),
    "runs": ("ascending runs of card ids", "runs test, exact Eulerian law", False),
}


def histogram_test(t: Tally, key: str) -> CheckResult:
    """Goodness of fit of a per-shuffle statistic's histogram to its exact law."""
    name, cites, against_input = HISTOGRAM_TESTS[key]
    count = t.referenced if against_input else t.shuffles
    if count == 0:
        return skipped(key, name, cites, "no shuffle has an input order")
    h = t.tables[key]
    law = _laws(t.size)[key]
    r = gof(h, law.cells)
    if r is None:
        return skipped(key, name, cites, "too few shuffles")
    mean = float(np.dot(np.arange(len(h)), h) / count)
    return _fit_result(
        key, name, cites, r, count, f"mean {mean:.3f} per shuffle, {law.mean:.3f} expected"
    )


def rising_sequences(t: Tally) -> CheckResult:
    return histogram_test(t, "rising")


def fixed_points(t: Tally) -> CheckResult:
    return histogram_test(t, "fixed")


def input_adjacency(t: Tally) -> CheckResult:
    return histogram_test(t, "successions")


def valleys(t: Tally) -> CheckResult:
    return histogram_test(t, "valleys")


def runs(t: Tally) -> CheckResult:
    return histogram_test(t, "runs")


def _mean_z(h: Counts, mean: float, var: float, count: int) -> tuple[float, float]:
    support = np.arange(len(h), dtype=float)
    observed = float(np.dot(support, h)) / count
    return observed, (observed - mean) / sqrt(var / count)


def _moment_test(
    t: Tally,
    key: str,
    name: str,
    table: str,
    moments: tuple[float, float],
    describe: str,
) -> CheckResult:
    """Two-sided z-test of a per-input-order statistic's mean against its exact moments."""
    cites = "exact mean and variance, normal limit of the mean"
    if t.referenced == 0:
        return skipped(key, name, cites, "no shuffle has an input order")
    mean, var = moments
    observed, z = _mean_z(t.tables[table], mean, var, t.referenced)
    return _mean_shift_result(
        key,
        name,
        cites,
        z,
        (observed - mean) / sqrt(var),
        f"{describe} {observed:.3f} per shuffle, {mean:.3f} expected",
    )


@cache
def _footrule_law(size: int) -> tuple[float, float]:
    mean, var = exact.footrule_moments(size)
    return float(mean), float(var)


@cache
def _matches_law(symbols: int, copies: int) -> tuple[float, float]:
    mean, var = exact.matches_moments(symbols, copies)
    return float(mean), float(var)


def displacement(t: Tally) -> CheckResult:
    return _moment_test(
        t,
        "displacement",
        "displacement vs input order (Spearman footrule)",
        "footrule",
        _footrule_law(t.size),
        "total displacement",
    )


def matches(t: Tally) -> CheckResult:
    """Multiset walls: positions holding the same tile type as in the input wall."""
    return _moment_test(
        t,
        "matches",
        "tiles left at their input position",
        "matches",
        _matches_law(t.symbols, t.copies),
        "tiles matching the input wall",
    )


@cache
def _guessing_law(size: int) -> tuple[float, float]:
    """Mean and variance of the correct guesses, a sum of Bernoulli(1/k) for k = 1..size."""
    var = sum(Fraction(1, k) * (1 - Fraction(1, k)) for k in range(1, size + 1))
    return float(exact.harmonic(size)), float(var)


def guessing(t: Tally) -> CheckResult:
    key, name = "guessing", "guessing with feedback (valley-following guesser)"
    cites = "Diaconis-Fulman-Holmes 2013; exact law: sum of Bernoulli(1/k)"
    if t.referenced == 0:
        return skipped(key, name, cites, "no shuffle has an input order")
    mean, var = _guessing_law(t.size)
    h = t.tables["guesses"]
    n = t.referenced
    total = float(np.dot(np.arange(len(h)), h))
    # One-sided: a structured device lets the guesser beat H_n; continuity-corrected.
    z = (total - 0.5 - n * mean) / sqrt(n * var)
    return CheckResult(
        key,
        name,
        cites,
        z,
        None,
        float(pvalues.norm_sf(z)),
        total / n - mean,
        "extra correct guesses per deck",
        f"{total / n:.3f} correct guesses per deck, {mean:.3f} expected for a uniform deck",
    )


# --- card-id structure of the output ------------------------------------------------------


@cache
def _serial_law(size: int) -> tuple[Fraction, Fraction]:
    return exact.serial_moments(tuple(range(size)))


def serial_correlation(t: Tally) -> CheckResult:
    key, name, cites = "serial", "serial correlation of neighbouring card ids", "exact moments"
    n, total = t.shuffles, t.serial_sum
    if n == 0:
        return skipped(key, name, cites, "no shuffles")
    mean, var = _serial_law(t.size)
    # The z-score (total - n mean) / sqrt(n var), with the square root in floating point, and
    # the shift (total / n - mean) / sd, each an exact rational rounded once: Python's int / int
    # is correctly rounded, as float(Fraction) is.
    a, b = mean.numerator, mean.denominator
    root_n, root_d = sqrt(n * var.numerator / var.denominator).as_integer_ratio()
    z = (total * b - n * a) * root_d / (b * root_n)
    shift = (total * b - n * a) / (n * b) / sqrt(float(var))
    return _mean_shift_result(
        key,
        name,
        cites,
        z,
        shift,
        f"lag-1 product sum {total / n:.1f} per deck, {float(mean):.1f} expected",
    )


@dataclass(frozen=True, eq=False)
class _Runs:
    """Runs of a flat table's cells, each with its expected count per cell, for their Pearson
    statistics ``np.sum((run - e) ** 2) / e`` all at once, bit for bit. ``np.sum`` adds the
    pairwise sum of a run to zero, ``np.add.reduceat`` a segment's first value to the pairwise
    sum of the rest: so each run is laid out after a slot holding zero, and one ``reduceat``
    gives each run's own ``np.sum`` (tests/audit/test_audit_battery_golden.py checks it)."""

    cells: NDArray[np.intp]  # the table's flat index of each laid-out slot
    centres: NDArray[np.float64]  # the expected count at each laid-out slot
    zeros: NDArray[np.intp]  # the slot before each run
    expected: NDArray[np.float64]  # each run's expected count per cell
    lengths: NDArray[np.intp]

    @classmethod
    def of(cls, runs: Sequence[tuple[int, int, float]]) -> _Runs:
        """Runs given as (first flat index, length, expected count per cell)."""
        lengths = np.array([length for _, length, _ in runs], dtype=np.intp)
        expected = np.array([e for _, _, e in runs], dtype=np.float64)
        zeros = (np.cumsum(lengths + 1) - (lengths + 1)).astype(np.intp)
        cells = np.zeros(int(np.sum(lengths + 1)), dtype=np.intp)
        for z, (first, length, _) in zip(zeros, runs, strict=True):
            cells[z + 1 : z + 1 + length] = np.arange(first, first + length)
        centres = np.repeat(expected, lengths + 1)
        return cls(cells, centres, zeros, expected, lengths)

    def pearson(self, table: Counts) -> NDArray[np.float64]:
        """Each run's ``np.sum((run - e) ** 2) / e``."""
        laid_out = (table.reshape(-1).take(self.cells) - self.centres) ** 2
        laid_out[self.zeros] = 0.0
        return np.asarray(np.add.reduceat(laid_out, self.zeros) / self.expected)


@lru_cache(maxsize=16)
def _lehmer_digits(size: int, n: int) -> tuple[NDArray[np.int64], _Runs]:
    """Each Lehmer digit's degrees of freedom (digit i takes size - i values), and its row's
    cells expecting n / (size - i) each."""
    ranges = np.arange(size, 1, -1)
    expected = n / ranges
    rows = enumerate(zip(ranges, expected, strict=True))
    runs = [(i * size, int(k), float(e)) for i, (k, e) in rows]
    return ranges - 1, _Runs.of(runs)


@lru_cache(maxsize=16)
def _lehmer_pair_tables(size: int, n: int) -> _Runs:
    """The digit-pair tables (2j, 2j+1) that expect 5 in each cell from n shuffles, as runs of
    the flat table of all pairs."""
    runs, offset = [], 0
    for j in range(size // 2):
        cells = (size - 2 * j) * (size - 2 * j - 1)
        if n / cells >= MIN_EXPECTED:
            runs.append((offset, cells, n / cells))
        offset += cells
    return _Runs.of(runs)


def lehmer_digits(t: Tally) -> CheckResult:
    key, name, cites = (
        "lehmer",
        "Lehmer-code digits uniform",
        "independent digits: summed chi-square",
    )
    n, size = t.shuffles, t.size
    if n / size < MIN_EXPECTED:
        return skipped(key, name, cites, f"needs {MIN_EXPECTED * size:.0f} shuffles")
    dfs, digits = _lehmer_digits(size, n)
    x2s = digits.pearson(t.tables["lehmer"])
    ps = pvalues.chi2_sf(x2s, dfs)
    total, df = float(x2s.sum()), int(dfs.sum())
    worst = int(np.argmin(ps))
    worst_p = float(ps[worst])
    return chi2_result(
        key,
        name,
        cites,
        total,
        df,
        n * (size - 1),
        "Cohen's w per digit",
        f"least uniform digit: position {worst + 1} (p = {worst_p:.3g})",
    )


def lehmer_pairs(t: Tally) -> CheckResult:
    key, name, cites = "lehmer-pairs", "Lehmer-code digit pairs independent", "summed chi-square"
    n, size = t.shuffles, t.size
    tables = _lehmer_pair_tables(size, n)
    used = len(tables.lengths)
    if used == 0:
        return skipped(key, name, cites, "too few shuffles for any pair table")
    total = 0.0
    for x2 in tables.pearson(t.tables["lehmer_pairs"]):
        total += float(x2)  # in table order, as the tables are summed
    df = int(np.sum(tables.lengths - 1))
    return chi2_result(
        key,
        name,
        cites,
        total,
        df,
        n,
        "Cohen's w",
        f"{used} disjoint digit pairs (2j, 2j+1) with at least 5 expected per cell",
    )


def coupon_collector(t: Tally) -> CheckResult:
    key, name = "coupon", "coupon collector on the top card"
    cites = "exact waiting-time law (permutation/coupon-collector family)"
    h = t.tables["coupon"]
    completed = int(h.sum())
    if completed == 0:
        return skipped(key, name, cites, "no device showed every card on top yet")
    r = gof(h, _coupon_law(t.symbols, len(h)))
    if r is None:
        return skipped(key, name, cites, f"too few completed collections ({completed})")
    mean = float(np.dot(np.arange(len(h)), h)) / completed
    expected = t.symbols * float(exact.harmonic(t.symbols))
    return _fit_result(
        key,
        name,
        cites,
        r,
        completed,
        f"{completed} collections, mean {mean:.1f} shuffles, {expected:.1f} expected",
    )


@cache
def _coupon_law(kinds: int, length: int) -> CellLaw:
    return CellLaw.of(exact.coupon_collector(kinds, length))


def repeated_orders(
    t: Tally, offered: int, repeats: int, fraction: float, what: str, orders: int
) -> CheckResult:
    key = "repeats-output" if what == "output" else "repeats-relative"
    name = f"repeated {what} orders"
    cites = "birthday bound (permutation/coupon-collector family)"
    if offered < 2:
        return skipped(key, name, cites, "fewer than two orders")
    # P(any repeat) <= C(n, 2) (1/M + 2^-127) for M equally likely orders and 128-bit hashes.
    p = 1.0 if repeats == 0 else _birthday_bound(offered, orders)
    return CheckResult(
        key,
        name,
        cites,
        float(repeats),
        None,
        p,
        float(repeats),
        "repeats found",
        f"{repeats} repeats among {offered} orders ({fraction:.1%} sampled in bounded memory)",
    )


@cache
def _birthday_bound(offered: int, orders: int) -> float:
    return float(min(Fraction(1), comb(offered, 2) * (Fraction(1, orders) + Fraction(1, 2**127))))


# --- the battery --------------------------------------------------------------------------


@dataclass(frozen=True)
class Repeats:
    offered_output: int
    repeats_output: int
    offered_relative: int
    repeats_relative: int
    sampled_fraction: float


def run_battery(
    t: Tally,
    *,
    repeats: Repeats | None = None,
    dealt_law: DealtLaw | None = None,
    alpha: float = DEFAULT_ALPHA,
    confidence: float = DEFAULT_CONFIDENCE,
    extra: Sequence[CheckResult] = (),
) -> BatteryResult:
    """Every test that applies to the tally's deck; Holm over all that ran."""
    check_levels(alpha, confidence)
    if t.shuffles == 0:  # nothing to test (every record bad, or none): no test runs
        none = skipped("battery", "every test of the battery", "", "no complete shuffle to test")
        return BatteryResult(0, (replace(none, level=level_of(confidence)),), alpha, ())
    tests: list[CheckResult] = [
        position_uniformity(t),
        per_position(t, confidence),
        coupon_collector(t),
    ]
    if t.copies == 1:
        steps: list[Callable[[Tally], CheckResult]] = [
            adjacency,
            rising_sequences,
            fixed_points,
            input_adjacency,
            displacement,
            valleys,
            guessing,
            runs,
            serial_correlation,
            lehmer_digits,
            lehmer_pairs,
            consecutive,
        ]
        tests.extend(step(t) for step in steps)
    else:
        tests.append(matches(t))
    if repeats is not None:
        distinct = exact.multiset_orders(t.copies, t.symbols)
        tests.append(
            repeated_orders(
                t,
                repeats.offered_output,
                repeats.repeats_output,
                repeats.sampled_fraction,
                "output",
                distinct,
            )
        )
        if t.copies == 1:
            tests.append(
                repeated_orders(
                    t,
                    repeats.offered_relative,
                    repeats.repeats_relative,
                    repeats.sampled_fraction,
                    "relative",
                    factorial(t.size),
                )
            )
    if dealt_law is not None and "dealt" in t.tables:
        tests.append(dealt_outcomes(t.tables["dealt"], dealt_law))
    tests.extend(extra)
    level = level_of(confidence)
    tests = [
        CheckResult(**{**r.__dict__, "level": level}) if r.level != level else r for r in tests
    ]
    p_values = {r.key: r.p_value for r in tests if r.p_value is not None}
    return BatteryResult(t.shuffles, tuple(tests), alpha, holm(p_values, alpha))


MIN_BATCHES = 10


def second_level(batches: Sequence[BatteryResult]) -> CheckResult:
    """NIST SP 800-22 style second level: are each test's p-values over batches uniform? One-
    sided Kolmogorov-Smirnov against an excess of small p-values, Bonferroni over tests."""
    key, name, cites = "second-level", "p-value uniformity over batches", "NIST SP 800-22 sec. 4.2"
    if len(batches) < MIN_BATCHES:
        return skipped(key, name, cites, f"needs at least {MIN_BATCHES} full batches")
    by_test: dict[str, list[float]] = {}
    for b in batches:
        for k, p in b.p_values().items():
            if not k.startswith("repeats"):
                by_test.setdefault(k, []).append(p)
    ks = {k: pvalues.ks_uniform_greater(ps) for k, ps in by_test.items() if len(ps) >= MIN_BATCHES}
    if not ks:
        return skipped(key, name, cites, "no test ran on enough batches")
    worst = min(ks, key=lambda k: ks[k][1])
    pw = ks[worst][1]
    passing = [
        sum(1 for p in by_test[k] if p >= 1 - DEFAULT_CONFIDENCE) / len(by_test[k]) for k in ks
    ]
    return CheckResult(
        key,
        name,
        cites,
        ks[worst][0],
        None,
        min(1.0, len(ks) * pw),
        min(passing),
        "lowest pass proportion",
        f"{len(batches)} batches, {len(ks)} tests; least uniform: {worst} (p = {pw:.3g})",
    )
