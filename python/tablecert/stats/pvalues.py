"""The few tail probabilities the shuffler battery needs, from ``scipy.special`` alone.

``import scipy.stats`` costs about 0.6 s of CPU more than ``scipy.special`` (it builds every
distribution and its documentation), a third of a whole 1,000,000-shuffle audit's time beyond
the read. Each function here computes exactly what the named ``scipy.stats`` call returns: the
same special function that ``scipy.stats`` evaluates, with the same handling of the support's
edges (tests/test_audit_pvalues.py checks bit-for-bit equality on a grid with the edges).

Every function comes from ``scipy.special._ufuncs``, the compiled module whose ufuncs
``scipy.special`` itself exports (the same objects). Its package's ``__init__`` costs about
0.15 s of CPU more (SciPy 1.17 wraps every function for the array API on import), half of a
light command's start-up budget: :func:`special_functions` loads the compiled module alone
when it safely can (see there).
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

# SciPy is imported where used: commands that import the battery without running it
# (`tablecert simulate`) need no SciPy at all.

_SPECIAL = "scipy.special"
_UFUNCS = "scipy.special._ufuncs"


@cache
def special_functions() -> Any:
    """``scipy.special._ufuncs``: ``chdtrc``, ``ndtr``, ``smirnov``, and the Boost binomial
    CDF and SF that ``scipy.stats.binom`` calls, the very objects ``scipy.special`` exports.

    When ``scipy.special`` is not imported yet and this is the process's only Python thread
    (the CLI; the core's reader threads run no Python imports), the compiled module is loaded
    under a bare stand-in for its package, which is removed at once: no other thread can see
    the stand-in, and a later ``import scipy.special`` runs the real ``__init__``, which takes
    the already loaded compiled modules from ``sys.modules`` (tests/audit/test_audit_pvalues.py
    checks both, and that the values equal SciPy's). Otherwise, or when the light load fails
    (another SciPy layout), the package is imported as usual."""
    if _SPECIAL not in sys.modules and threading.active_count() == 1:
        light = _light_ufuncs()
        if light is not None:
            return light
    return importlib.import_module(_UFUNCS)


def _light_ufuncs() -> Any | None:
    """The compiled module loaded under a bare package, or None (nothing left behind)."""
    import scipy

    before = set(sys.modules)
    bare = types.ModuleType(_SPECIAL)
    bare.__path__ = [f"{scipy.__path__[0]}/special"]
    bare.__package__ = _SPECIAL
    sys.modules[_SPECIAL] = bare
    try:
        module = importlib.import_module(_UFUNCS)
        for name in ("chdtrc", "ndtr", "smirnov", "_binom_cdf", "_binom_sf"):
            getattr(module, name)
    except Exception:  # any failure: forget the attempt, import as usual
        for name in set(sys.modules) - before:
            if name == _SPECIAL or name.startswith(_SPECIAL + "."):
                del sys.modules[name]
        return None
    finally:
        if sys.modules.get(_SPECIAL) is bare:
            del sys.modules[_SPECIAL]
    return module


def _out(values: NDArray[np.float64]) -> Any:
    return values[()] if values.ndim == 0 else values


def chi2_sf(x: ArrayLike, df: ArrayLike) -> Any:
    """``scipy.stats.chi2.sf(x, df)``: 1 at x <= 0, 0 at x = inf, NaN for NaN or df <= 0."""
    sc = special_functions()
    if isinstance(x, float | int) and isinstance(df, int) and df > 0 and 0 < x < np.inf:
        return sc.chdtrc(df, float(x))  # the common case, without the masks below
    x_a = np.asarray(x, dtype=np.float64)
    df_a = np.asarray(df)
    good_df = df_a > 0
    inside = good_df & (x_a > 0) & (x_a < np.inf)
    out = np.zeros(np.broadcast_shapes(x_a.shape, df_a.shape))
    out[np.broadcast_to(~good_df | np.isnan(x_a), out.shape)] = np.nan
    out[np.broadcast_to(good_df & (x_a <= 0), out.shape)] = 1.0
    if np.any(inside):
        out[inside] = sc.chdtrc(*np.broadcast_arrays(df_a, x_a))[inside]
    return _out(out)


def norm_sf(z: ArrayLike) -> Any:
    """``scipy.stats.norm.sf(z)``."""
    sc = special_functions()
    return _out(np.asarray(sc.ndtr(-np.asarray(z, dtype=np.float64))))


def _binom(k: ArrayLike, n: int, p: float, tail: str) -> Any:
    k_a = np.asarray(k)
    ok = n >= 0 and float(n).is_integer() and 0 <= p <= 1
    out = np.zeros(k_a.shape)
    if not ok:
        out[...] = np.nan
        return _out(out)
    inside = (k_a >= 0) & (k_a < n) & np.isfinite(k_a)
    if tail == "cdf":
        out[k_a >= n] = 1.0
    else:
        out[(k_a < 0) | np.isneginf(k_a)] = 1.0
    out[np.isnan(k_a)] = np.nan
    if n == 1:
        # One trial: the only count inside the support is 0, with P(X <= 0) = 1 - p and
        # P(X > 0) = p, which Boost returns exactly (tests/test_audit_pvalues.py), so a
        # one-sequence decision (`audit rng -N 1`) needs no SciPy.
        out[inside] = 1 - p if tail == "cdf" else p
    elif np.any(inside):
        scu = special_functions()  # scipy.stats.binom's own Boost-backed CDF and SF
        f = scu._binom_cdf if tail == "cdf" else scu._binom_sf
        # Each distinct count once (a successor table's 2,652 cells hold about 100 distinct
        # counts): the function is elementwise, so the values are those of every cell.
        distinct, cell = distinct_values(np.floor(k_a[inside]))
        values = np.clip(f(distinct, np.asarray(n), np.asarray(p)), 0, 1)
        out[inside] = values[cell]
    return _out(out)


def distinct_values(values: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """``np.unique(values, return_inverse=True)`` of whole, finite numbers, the inverse flat:
    by counting when they span a range not much wider than their number (a table's cells of
    one batch), else by ``np.unique``'s sort. The distinct values keep the array's dtype."""
    flat = values.reshape(-1)
    if flat.size:
        low = flat.min()
        span = int(flat.max() - low) + 1
        if span <= 4 * flat.size:
            offsets = (flat - low).astype(np.intp)
            present = np.bincount(offsets, minlength=span) > 0
            rank = np.cumsum(present) - 1
            return np.flatnonzero(present).astype(flat.dtype) + low, rank[offsets]
    distinct, inverse = np.unique(flat, return_inverse=True)
    return distinct, inverse.reshape(-1)


def binom_cdf(k: ArrayLike, n: int, p: float) -> Any:
    """``scipy.stats.binom.cdf(k, n, p)`` for a whole count n and a probability p."""
    return _binom(k, n, p, "cdf")


def binom_sf(k: ArrayLike, n: int, p: float) -> Any:
    """``scipy.stats.binom.sf(k, n, p)`` for a whole count n and a probability p."""
    return _binom(k, n, p, "sf")


def ks_uniform_greater(values: ArrayLike) -> tuple[float, float]:
    """``scipy.stats.kstest(values, "uniform", alternative="greater")``: (D+, p-value)."""
    sc = special_functions()
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = len(x)
    cdf = np.where(x >= 1, 1.0, np.where(x > 0, x, 0.0))
    cdf[np.isnan(x)] = np.nan
    d = (np.arange(1.0, n + 1) / n - cdf)[int(np.argmax(np.arange(1.0, n + 1) / n - cdf))]
    if np.isnan(d):
        p = np.nan
    elif d <= 0:
        p = 1.0
    elif d >= 1:
        p = 0.0
    else:
        p = float(sc.smirnov(n, d))
    return float(d), float(p)
