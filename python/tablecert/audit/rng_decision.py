"""The verdict on an RNG from the NIST SP 800-22 p-values: PASS, FAIL or INCONCLUSIVE.

The document's final analysis marks single columns (a test, or one template or state of a
test) outside its acceptance region; with 188 columns a perfect generator collects marks by
chance, and with one or two sequences no column can ever be marked, whatever the bits. The
verdict is therefore a family-wise decision over three rules, each at its share of the
family-wise significance level (Bonferroni over the rules that can run at this sequence count):

1. **extreme p-value** (every sequence count, from one sequence on): the stream fails when any
   single p-value, over every column (but the random excursion tests') of every sequence, is
   below alpha_1 / (columns x sequences) (Bonferroni). A constant, alternating, short-period
   or biased stream gives p-values near 0 in at least one test of a single sequence; the rule
   has power when an all-zero or an alternating sequence of the tested length would be
   rejected by it (checked on those two sequences each time).
2. **proportion** (section 4.2.1 made exact): per column, the binomial probability of so few
   passing sequences when each passes with probability 1 - alpha; Holm over the columns at
   alpha_2. It can reject from the smallest count N with alpha^N <= alpha_2 / columns
   (3 sequences at the defaults).
3. **uniformity** (section 4.2.2): per column with at least 55 sequences, the document's
   P-value_T = igamc(9/2, chi2/2) over 10 bins; Holm over those columns at alpha_3.

Only columns of tests run at a length the document recommends for them are judged (section 2's
"input size recommendation"; `judged_from`): below it a test's p-values are shown but their
tails are not trusted (measured: at 10^5 bits the non-overlapping template and linear
complexity p-values fall below 10^-4 two to ten times too often).

FAIL when any rule rejects a column; PASS when none does and at least one rule could reject at
this sequence count and length; INCONCLUSIVE when no rule could (too few bits or sequences to
reject even a constant stream). The per-column marks of the document stay in the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from tablecert import stats
from tablecert.audit import rng as nist
from tablecert.errors import RngAuditError
from tablecert.exact import measured
from tablecert.judgement import Outcome
from tablecert.stats import pvalues

#: Left out of the extreme p-value rule (their tails are approximate; see `decide`).
EXCURSION_TESTS = ("RandomExcursions", "RandomExcursionsVariant")
#: The family-wise significance level of the verdict (the document's per-test alpha is 0.01 too).
FAMILY_ALPHA = 0.01

RuleKey = Literal["extreme", "proportion", "uniformity"]
RULES: tuple[RuleKey, ...] = ("extreme", "proportion", "uniformity")


def check_level(value: float, name: str) -> float:
    """A significance level strictly between 0 and 1 (NaN and infinities refused)."""
    if not (isinstance(value, int | float) and math.isfinite(value) and 0 < value < 1):
        raise RngAuditError(f"{name} {value!r}: must lie strictly between 0 and 1")
    return float(value)


@dataclass(frozen=True)
class RuleResult:
    """One rule of the decision: whether it could run, at which level, what it rejected."""

    key: RuleKey
    statement: str
    min_sequences: int
    can_reject: bool
    reason: str
    alpha: float
    threshold: float | None
    rejected: tuple[str, ...]
    smallest: float | None

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.key,
            "statement": self.statement,
            "min_sequences": self.min_sequences,
            "can_reject": self.can_reject,
            "reason": self.reason,
            "alpha": measured(self.alpha),
            "threshold": measured(self.threshold),
            "rejected": list(self.rejected),
            "smallest": measured(self.smallest),
        }


@dataclass(frozen=True)
class RngDecision:
    """The verdict and the rules behind it."""

    outcome: Outcome
    family_alpha: float
    rules: tuple[RuleResult, ...]
    summary: str
    not_judged: tuple[tuple[str, int], ...] = ()

    @property
    def verdict(self) -> str:
        return self.outcome.word("test")

    @property
    def rejected(self) -> tuple[str, ...]:
        """Every column some rule rejected, each once, in report order of the rules."""
        return tuple(dict.fromkeys(label for r in self.rules for label in r.rejected))

    def rule(self, key: RuleKey) -> RuleResult:
        return next(r for r in self.rules if r.key == key)

    def as_json(self) -> dict[str, Any]:
        return {
            "verdict": self.outcome.value,
            "family_alpha": measured(self.family_alpha),
            "summary": self.summary,
            "rules": [r.as_json() for r in self.rules],
            "rejected": list(self.rejected),
            "not_judged": [{"test": t, "judged_from_bits": b} for t, b in self.not_judged],
        }

    def lines(self) -> list[str]:
        """The decision for people: each rule with its level and what it found."""
        out = [
            f"Decision (family-wise alpha {self.family_alpha:g}, split equally over the rules "
            "that can reject at this sequence count):"
        ]
        for r in self.rules:
            level = f"alpha {r.alpha:.4g}" if r.can_reject else "not run"
            out.append(f"  {r.key:<10} [{level}; from {r.min_sequences} sequence(s)] {r.statement}")
            out.append(f"             {r.reason}")
            if r.can_reject:
                found = ", ".join(r.rejected[:8]) + (" ..." if len(r.rejected) > 8 else "")
                out.append(f"             rejected: {found or 'none'}")
        for test, bits in self.not_judged:
            out.append(
                f"  not judged: {test} (shown above; judged from {bits:,} bits per sequence)"
            )
        out.append(f"verdict: {self.verdict.upper()} ({self.summary})")
        return out


def judged_from(test: str, params: nist.NistParameters) -> int:
    """The shortest sequence (bits) at which the verdict judges `test` with `params`: the
    document's input-size recommendation (section 2.x.7) -- n >= 100 for the frequency, block
    frequency, runs and cumulative sums tests; 128, 6,272 or 750,000 by the longest-run block
    length; 38 M Q for the rank test; 1,000 for the DFT; m < log2(n) - 5 for approximate
    entropy and m < log2(n) - 2 for serial; 10^6 for the overlapping template, linear
    complexity and random excursion tests -- and 10^6 for the non-overlapping templates and
    Universal as well (the document's examples; at 10^5 bits the template p-values are
    measured too small too often)."""
    by_test = {
        "Frequency": 100,
        "BlockFrequency": 100,
        "CumulativeSums": 100,
        "Runs": 100,
        "LongestRun": {0: 128, 8: 128, 128: 6_272}.get(params.longest_run_m, 750_000),
        "Rank": 38 * params.rank_rows * params.rank_cols,
        "FFT": 1_000,
        "ApproximateEntropy": 1 << (params.approximate_entropy_m + 6),
        "Serial": 1 << (params.serial_m + 3),
    }
    return by_test.get(test, 1_000_000)


def judged_columns(report: nist.NistReport) -> list[int]:
    """Indices of the columns the verdict judges (see `judged_from`)."""
    return [
        i
        for i, c in enumerate(report.columns)
        if report.bits >= judged_from(c.test, report.parameters)
    ]


def proportion_tail(c: nist.ColumnResult, alpha: float) -> float | None:
    """P(at most `c.passed` of `c.sample_size` sequences pass) when each passes with
    probability 1 - alpha (the document's alpha); None for a column no sequence applied to."""
    if not c.applicable:
        return None
    return float(pvalues.binom_cdf(c.passed, c.sample_size, 1 - alpha))


def holm(values: Sequence[float | None], alpha: float) -> list[int]:
    """Indices Holm's step-down rejects at family-wise `alpha` (None values take no part),
    in index order (the shuffler battery's procedure)."""
    named = {str(i): v for i, v in enumerate(values) if v is not None}
    return sorted(int(key) for key in stats.holm(named, alpha))


def min_sequences_for_proportion(columns: int, alpha: float, family_alpha: float) -> int:
    """Smallest N at which the proportion rule can reject a column: alpha^N (no sequence of
    N passes) <= its share / columns, the share being family_alpha / 2 (with the extreme
    rule)."""
    share = family_alpha / 2
    n = 1
    while alpha**n > share / max(columns, 1):
        n += 1
    return n


@lru_cache(maxsize=32)
def _probe_min_p(
    n: int, tests: tuple[str, ...], params: nist.NistParameters, alpha: float
) -> tuple[float, str]:
    """The smallest p-value of the judged tests on an all-zero and on an alternating sequence
    of n bits: what the extreme rule would see from a grossly broken stream (cached: the
    calibration runs judge thousands of reports of one shape)."""
    bits = np.zeros(2 * n, dtype=np.uint8)
    bits[n + 1 :: 2] = 1
    probe = nist.run_nist(
        np.packbits(bits).tobytes(),
        bits=n,
        sequences=2,
        tests=list(tests),
        parameters=params,
        alpha=alpha,
    )
    p = np.where(np.isnan(probe.pvalues), np.inf, probe.pvalues)
    row, col = np.unravel_index(int(np.argmin(p)), p.shape)
    which = "an all-zero" if row == 0 else "an alternating"
    return float(p[row, col]), f"{which} sequence in {probe.columns[int(col)].name}"


def _holm_rule(
    key: RuleKey,
    statement: str,
    min_sequences: int,
    reason: str,
    alpha: float | None,
    values: list[float | None],
    cols: list[nist.ColumnResult],
) -> RuleResult:
    """A rule that judges one value per column by Holm at `alpha` (None: it cannot run)."""
    present = [v for v in values if v is not None]
    return RuleResult(
        key=key,
        statement=f"{statement}; Holm over {len(present)} columns",
        min_sequences=min_sequences,
        can_reject=alpha is not None,
        reason=reason,
        alpha=alpha or 0.0,
        threshold=alpha / len(present) if alpha is not None and present else None,
        rejected=tuple(cols[i].name for i in holm(values, alpha)) if alpha is not None else (),
        smallest=min(present) if present else None,
    )


@dataclass(frozen=True)
class _Judged:
    """What the rules look at: the judged columns of a report (their indices in the report,
    the columns), those left out of the extreme rule, and the tests not judged."""

    report: nist.NistReport
    indices: list[int]
    cols: list[nist.ColumnResult]
    #: Positions in ``cols`` of the extreme rule's columns. The random excursion tests are left
    #: out: their p-values rest on a normal (or chi-square) approximation over a few hundred
    #: cycles, measured too small too often below 10^-4 (the variant's six times at 10^6 bits);
    #: the other two rules judge them.
    extreme: list[int]
    not_judged: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, report: nist.NistReport) -> _Judged:
        indices = judged_columns(report)
        cols = [report.columns[i] for i in indices]
        not_judged = sorted(
            {
                (c.test, judged_from(c.test, report.parameters))
                for i, c in enumerate(report.columns)
                if i not in set(indices)
            },
            key=lambda t: nist.TEST_NAMES.index(t[0]),
        )
        extreme = [i for i, c in enumerate(cols) if c.test not in EXCURSION_TESTS]
        return cls(report, indices, cols, extreme, tuple(not_judged))


def extreme_probe(judged: _Judged) -> tuple[float, str]:
    """The smallest p-value a grossly broken stream gets in the extreme rule's tests at this
    length, and where (infinite when the rule has no column)."""
    if not judged.extreme:
        return math.inf, "no judged test"
    report = judged.report
    return _probe_min_p(
        report.bits,
        tuple(dict.fromkeys(judged.cols[i].test for i in judged.extreme)),
        report.parameters,
        report.alpha,
    )


def extreme_rule(judged: _Judged, alpha: float | None, probe: tuple[float, str]) -> RuleResult:
    """Rule 1, extreme p-value: Bonferroni over every p-value of its columns at ``alpha``
    (None: it cannot reject at this length, as ``probe`` shows)."""
    report, cols, extreme = judged.report, judged.cols, judged.extreme
    n_extreme, n_seq = len(extreme), report.sequences
    probe_p, probe_where = probe
    values = report.pvalues[:, [judged.indices[i] for i in extreme]]
    p = np.where(np.isnan(values), np.inf, values)
    smallest = float(p.min()) if p.size and np.isfinite(p.min()) else None
    threshold = alpha / (n_extreme * n_seq) if alpha is not None else None
    rejected: tuple[str, ...] = ()
    if threshold is not None:
        hit = np.flatnonzero((p < threshold).any(axis=0))
        rejected = tuple(cols[extreme[i]].name for i in hit)
    return RuleResult(
        key="extreme",
        statement=(
            "any single p-value below alpha_1 / (columns x sequences) "
            f"= alpha_1 / ({n_extreme} x {n_seq}) (Bonferroni; the judged columns but "
            "the random excursion tests')"
        ),
        min_sequences=1,
        can_reject=alpha is not None,
        reason=(
            f"can reject from 1 sequence: {probe_where} gives p = {probe_p:.3g}"
            if alpha is not None
            else f"cannot reject at {report.bits:,} bits: {probe_where} gives only "
            f"p = {probe_p:.3g}"
        ),
        alpha=alpha or 0.0,
        threshold=threshold,
        rejected=rejected,
        smallest=smallest,
    )


def proportion_rule(judged: _Judged, alpha: float | None, min_sequences: int) -> RuleResult:
    """Rule 2, proportion of passing sequences: the exact binomial tail per column, Holm over
    the judged columns at ``alpha`` (None: too few sequences to reject)."""
    report, cols = judged.report, judged.cols
    tails = [
        float(pvalues.binom_cdf(c.passed, c.sample_size, 1 - report.alpha))
        if c.sample_size
        else None
        for c in cols
    ]
    return _holm_rule(
        "proportion",
        f"per column, the binomial probability of so few sequences with p >= "
        f"{report.alpha:g} when each has it with probability {1 - report.alpha:g}",
        min_sequences,
        (
            f"can reject from {min_sequences} sequences ({report.alpha:g}^N <= alpha_2 / "
            f"{len(cols)} columns)"
            if alpha is not None
            else f"cannot reject with {report.sequences} sequence(s): needs at least "
            f"{min_sequences}"
        ),
        alpha,
        tails,
        cols,
    )


def uniformity_rule(judged: _Judged, alpha: float | None) -> RuleResult:
    """Rule 3, uniformity of the p-values: section 4.2.2's P-value_T per column, Holm over
    the judged columns at ``alpha`` (None: no column has enough sequences)."""
    uni_min = nist.MIN_SEQUENCES_FOR_UNIFORMITY
    uniform = [c.uniformity_p for c in judged.cols]
    assessed = sum(u is not None for u in uniform)
    return _holm_rule(
        "uniformity",
        f"per column with at least {uni_min} sequences, P-value_T = igamc(9/2, chi2/2) "
        "over 10 bins",
        uni_min,
        (
            f"can reject: {assessed} column(s) have at least {uni_min} sequences"
            if alpha is not None
            else f"cannot run with {judged.report.sequences} sequence(s): needs at least {uni_min}"
        ),
        alpha,
        uniform,
        judged.cols,
    )


def combine(rules: Sequence[RuleResult], judged: _Judged) -> tuple[Outcome, str]:
    """The verdict of the rules: FAIL when any rejected a column; PASS when none did and one
    could; INCONCLUSIVE when none could (or no test is judged at this length)."""
    failed = [r for r in rules if r.rejected]
    if failed:
        return Outcome.FAIL, "; ".join(
            f"{r.key} rule rejected {len(r.rejected)} column(s): {', '.join(r.rejected[:5])}"
            + (" ..." if len(r.rejected) > 5 else "")
            for r in failed
        )
    if any(r.can_reject for r in rules):
        return Outcome.PASS, "no rule rejected a column; rules that could: " + ", ".join(
            r.key for r in rules if r.can_reject
        )
    if not judged.cols:
        bits = judged.report.bits
        return (
            Outcome.INCONCLUSIVE,
            f"no test is judged at {bits:,} bits (each needs the length below)",
        )
    return Outcome.INCONCLUSIVE, "no rule can reject at this length and sequence count: " + (
        "; ".join(f"{r.key}: {r.reason}" for r in rules)
    )


def decide(report: nist.NistReport, family_alpha: float = FAMILY_ALPHA) -> RngDecision:
    """The family-wise verdict on `report` (see the module docstring for the rules): each rule
    that can reject at this sequence count and length gets an equal share of the level."""
    family_alpha = check_level(family_alpha, "family-wise alpha")
    judged = _Judged.of(report)
    n_seq = report.sequences
    prop_min = min_sequences_for_proportion(len(judged.cols), report.alpha, family_alpha)
    runs_prop = bool(judged.cols) and n_seq >= prop_min
    runs_uni = any(c.sample_size >= nist.MIN_SEQUENCES_FOR_UNIFORMITY for c in judged.cols)
    shares = int(runs_prop) + int(runs_uni)
    probe = extreme_probe(judged)
    runs_extreme = bool(judged.extreme) and probe[0] < family_alpha / (shares + 1) / (
        len(judged.extreme) * n_seq
    )
    shares += int(runs_extreme)
    share = family_alpha / shares if shares else 0.0
    rules = (
        extreme_rule(judged, share if runs_extreme else None, probe),
        proportion_rule(judged, share if runs_prop else None, prop_min),
        uniformity_rule(judged, share if runs_uni else None),
    )
    outcome, summary = combine(rules, judged)
    return RngDecision(
        outcome=outcome,
        family_alpha=family_alpha,
        rules=rules,
        summary=summary,
        not_judged=judged.not_judged,
    )


__all__ = [
    "FAMILY_ALPHA",
    "RULES",
    "RngDecision",
    "RuleResult",
    "check_level",
    "decide",
    "holm",
    "judged_columns",
    "judged_from",
    "min_sequences_for_proportion",
    "proportion_tail",
]
