"""The statistics every audit shares: one test's result, Pearson goodness of fit on pooled
cells, Holm's step-down procedure and the dealt-hand category test. Used by the shuffler
battery (``audit.battery``), the round logs' hold (``rounds.hold``) and the RNG decision.

Calibration rules: chi-square goodness of fit only on cells pooled to an expected count of at
least 5; a test without enough data is skipped (not applicable), never passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cached_property, lru_cache
from math import sqrt
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tablecert.equality import ContentEq
from tablecert.exact import measured
from tablecert.judgement import Judged, Outcome
from tablecert.stats import pvalues

MIN_EXPECTED = 5.0
DEFAULT_ALPHA = 0.01


def level_of(confidence: float) -> float:
    """A test's significance level, 1 - confidence, as the decimal a person wrote (0.99 gives
    0.01, not 0.010000000000000009)."""
    return float(Decimal(1) - Decimal(repr(confidence)))


Counts = NDArray[np.int64]


#: What a battery's "effect" column is, wherever it is printed (the terminal, the report).
EFFECT_MEANING = (
    "each test's effect size (named with the test): how far the data depart from the null "
    "law, whatever their amount; 0 for none"
)


@dataclass(frozen=True, eq=False)
class CheckResult(Judged, ContentEq):
    """One test of the battery: statistic, p-value against the exact null, effect size."""

    key: str
    name: str
    cites: str
    statistic: float | None
    df: int | None
    p_value: float | None
    effect: float | None
    effect_name: str
    detail: str
    level: float = 0.01  # 1 - DEFAULT_CONFIDENCE, written exactly

    @property
    def outcome(self) -> Outcome:
        """Fail if the p-value is below the level; not applicable (skipped) without one."""
        if self.p_value is None:
            return Outcome.NOT_APPLICABLE
        return Outcome.of(self.p_value < self.level)

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "cites": self.cites,
            "statistic": measured(self.statistic),
            "df": self.df,
            "p_value": measured(self.p_value),
            "verdict": self.verdict,
            "effect": measured(self.effect),
            "effect_name": self.effect_name,
            "detail": self.detail,
            "level": measured(self.level),
        }


def chi2_result(
    key: str, name: str, cites: str, x2: float, df: int, scale: float, effect: str, detail: str
) -> CheckResult:
    """A chi-square test's result; the effect size is sqrt(max(x2 - df, 0) / scale)."""
    return CheckResult(
        key,
        name,
        cites,
        x2,
        df,
        float(pvalues.chi2_sf(x2, df)),
        sqrt(max(x2 - df, 0.0) / scale),
        effect,
        detail,
    )


def skipped(key: str, name: str, cites: str, why: str) -> CheckResult:
    return CheckResult(key, name, cites, None, None, None, None, "", f"skipped: {why}")


@dataclass(frozen=True, eq=False)
class CellLaw:
    """Exact cell probabilities (as floats) for :func:`pool` and :func:`gof`. Hashed by
    identity: keep one (the battery caches its laws) and each total's pooling is computed once
    (``_pooling``), not on every test."""

    probs: NDArray[np.float64]
    impossible: NDArray[np.intp]  # the cells of probability zero

    @classmethod
    def of(cls, probs: Sequence[float]) -> CellLaw:
        p = np.array(probs, dtype=np.float64)
        return cls(p, np.flatnonzero(p == 0))


def _merged(expected: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Merge neighbouring cells until each expects at least 5: the first cell of each merged
    cell and its expected count, the cells left over added to the last. The expected counts
    are running sums restarted at each merged cell, added in cell order (``add.accumulate``
    adds one cell at a time, as ``acc_e += n * p`` would), so every float is that loop's; each
    is taken over a window of cells that grows until it reaches 5 (or the last cell)."""
    starts: list[int] = []
    sums: list[float] = []
    rest, i, cells = 0.0, 0, len(expected)
    while i < cells:
        window = 64
        while True:
            run = np.add.accumulate(expected[i : i + window])
            j = int(np.argmax(run >= MIN_EXPECTED))
            if run[j] >= MIN_EXPECTED or i + window >= cells:
                break
            window *= 4
        if not run[j] >= MIN_EXPECTED:
            rest = float(run[-1])
            break
        starts.append(i)
        sums.append(float(run[j]))
        i += j + 1
    if sums:
        sums[-1] += rest
    return np.array(starts, dtype=np.intp), np.array(sums, dtype=np.float64)


@lru_cache(maxsize=1024)
def _pooling(law: CellLaw, total: int) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """:func:`_merged` for ``total`` observations of ``law``: it depends on nothing else."""
    return _merged(float(total) * law.probs)


def pool(
    obs: Sequence[int] | Counts, probs: Sequence[float] | NDArray[np.float64] | CellLaw
) -> tuple[Counts, NDArray[Any]]:
    """Merge neighbouring cells (in the given order) until each expects at least 5; the cells
    left over join the last. Returns the merged observed and expected counts."""
    obs_a = np.asarray(obs, dtype=np.int64)
    law = probs if isinstance(probs, CellLaw) else None
    p = law.probs if law is not None else np.asarray(probs, dtype=np.float64)
    if obs_a.shape != p.shape:
        raise ValueError(f"{len(obs_a)} observed cells for {len(p)} probabilities")
    total = int(obs_a.sum())
    starts, e = _pooling(law, total) if law is not None else _merged(float(total) * p)
    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64), e
    return np.add.reduceat(obs_a, starts), e


def gof(
    obs: Sequence[int] | Counts, probs: Sequence[float] | CellLaw
) -> tuple[float, int, float] | None:
    """Pearson goodness of fit against exact cell probabilities, cells pooled to E >= 5.
    An observation in a cell of probability zero gives p = 0; too few cells gives None."""
    law = probs if isinstance(probs, CellLaw) else CellLaw.of(probs)
    obs_a = np.asarray(obs, dtype=np.int64)
    if obs_a.shape == law.probs.shape and (obs_a[law.impossible] > 0).any():
        return float("inf"), 0, 0.0
    o, e = pool(obs_a, probs if isinstance(probs, CellLaw) else law.probs)  # cache kept laws only
    if len(o) < 2:
        return None
    x2 = float(((o - e) ** 2 / e).sum())
    df = len(o) - 1
    return x2, df, float(pvalues.chi2_sf(x2, df))


@dataclass(frozen=True)
class DealtLaw:
    """Exact category probabilities (lowest category first) of one dealt hand; ``per_hand``,
    when given, holds each hand's own probabilities (hands of different sizes, as mahjong's
    dealer with one tile more)."""

    hand_names: tuple[str, ...]
    categories: tuple[str, ...]
    probabilities: tuple[Fraction, ...]
    per_hand: tuple[tuple[Fraction, ...], ...] = ()

    def of_hand(self, h: int) -> tuple[Fraction, ...]:
        return self.per_hand[h] if self.per_hand else self.probabilities

    @cached_property
    def cell_laws(self) -> tuple[CellLaw, ...]:
        """Each hand's law as floats, converted once however many batches are tested."""
        return tuple(
            CellLaw.of([float(p) for p in self.of_hand(h)]) for h in range(len(self.hand_names))
        )


def dealt_outcomes(dealt: Counts, law: DealtLaw) -> CheckResult:
    key, name, cites = "dealt", "dealt hand categories per seat", "exact category probabilities"
    worst, worst_p, results = "", 1.0, []
    for h, hand in enumerate(law.hand_names):
        r = gof(dealt[h], law.cell_laws[h])
        if r is None:
            continue
        results.append(r)
        if r[2] <= worst_p:
            worst, worst_p = hand, r[2]
    if not results:
        return skipped(key, name, cites, "too few shuffles")
    n = int(dealt[0].sum())
    p = min(1.0, len(results) * worst_p)
    return CheckResult(
        key,
        name,
        cites,
        max(r[0] for r in results),
        None,
        p,
        sqrt(max(r[0] for r in results) / n) if n else None,
        "Cohen's w of the worst hand",
        f"{len(results)} hands tested (Bonferroni); least typical: {worst} (p = {worst_p:.3g})",
    )


def holm(p_values: dict[str, float], alpha: float) -> tuple[str, ...]:
    """Names of the hypotheses Holm's step-down procedure rejects at family-wise level alpha."""
    order = sorted(p_values.items(), key=lambda kv: kv[1])
    m = len(order)
    rejected = []
    for i, (key, p) in enumerate(order):
        if p <= alpha / (m - i):
            rejected.append(key)
        else:
            break
    return tuple(rejected)


__all__ = [
    "DEFAULT_ALPHA",
    "MIN_EXPECTED",
    "CellLaw",
    "CheckResult",
    "Counts",
    "DealtLaw",
    "chi2_result",
    "dealt_outcomes",
    "gof",
    "holm",
    "level_of",
    "pool",
    "pvalues",
    "skipped",
]
