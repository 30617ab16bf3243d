"""tablecert.audit.pvalues returns exactly (bit for bit) what scipy.stats returns, on grids
that include the support's edges, and the shuffler audit no longer imports scipy.stats."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from tablecert.stats import pvalues

INF, NAN = float("inf"), float("nan")


def same(a: object, b: object) -> bool:
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    return a_arr.shape == b_arr.shape and np.array_equal(a_arr, b_arr, equal_nan=True)


XS = np.array([-1.0, -0.0, 0.0, 1e-300, 1e-9, 0.5, 1.0, 3.3, 51.0, 2650.0, 1e6, INF, NAN])


@pytest.mark.parametrize("df", [1, 2, 3, 51, 2550, 0, -1])
def test_chi2_sf(df: int) -> None:
    assert same(pvalues.chi2_sf(XS, df), stats.chi2.sf(XS, df))
    for x in XS:
        got, want = pvalues.chi2_sf(float(x), df), stats.chi2.sf(float(x), df)
        assert same(got, want), (x, df)
        assert type(got) is type(want)


def test_chi2_sf_per_cell_degrees() -> None:
    x = np.array([0.0, 12.5, 60.0, 1e4])
    df = np.arange(51, 47, -1)
    assert same(pvalues.chi2_sf(x, df), stats.chi2.sf(x, df))
    rng = np.random.default_rng(5)
    x = rng.chisquare(50, 2000)
    assert same(pvalues.chi2_sf(x, 50), stats.chi2.sf(x, 50))


def test_norm_sf() -> None:
    z = np.array([-INF, -40.0, -3.1, -0.0, 0.0, 1e-12, 2.5758, 8.0, 39.0, INF, NAN])
    assert same(pvalues.norm_sf(z), stats.norm.sf(z))
    for v in z:
        assert same(pvalues.norm_sf(float(v)), stats.norm.sf(float(v)))


@pytest.mark.parametrize(("n", "p"), [(1000, 1 / 51), (20, 0.5), (1, 0.3), (50, 0.0), (50, 1.0)])
def test_binom_tails(n: int, p: float) -> None:
    k = np.array([-3, -1, 0, 1, 5, 19, 20, 21, n - 1, n, n + 1, 10**6], dtype=np.int64)
    assert same(pvalues.binom_cdf(k, n, p), stats.binom.cdf(k, n, p))
    assert same(pvalues.binom_sf(k, n, p), stats.binom.sf(k, n, p))
    kf = np.array([-INF, -0.5, 2.5, INF, NAN])
    assert same(pvalues.binom_cdf(kf, n, p), stats.binom.cdf(kf, n, p))
    assert same(pvalues.binom_sf(kf, n, p), stats.binom.sf(kf, n, p))


def test_binom_tails_of_a_successor_table() -> None:
    # The battery's call: a 52 x 52 table of counts, each cell Binomial(n, 1/52).
    rng = np.random.default_rng(3)
    n = 10_000
    o = rng.binomial(n, 1 / 52, size=(52, 52)).astype(np.int64)
    assert same(pvalues.binom_cdf(o, n, 1 / 52), stats.binom.cdf(o, n, 1 / 52))
    assert same(pvalues.binom_sf(o - 1, n, 1 / 52), stats.binom.sf(o - 1, n, 1 / 52))


def test_binom_of_one_trial_without_scipy_is_boosts_value() -> None:
    # n = 1 is computed as 1 - p and p (no SciPy import): Boost's value, bit for bit, for
    # every probability of a grid of decades, the NIST levels and random ones.
    rng = np.random.default_rng(8)
    ps = [0.0, 1.0, 0.5, 0.99, 0.999, 0.9999, 1 - 2.0**-53, 2.0**-1074, 0.01, 0.001]
    ps += [10.0**-e for e in range(1, 300, 7)] + [1 - 10.0**-e for e in range(1, 16)]
    ps += list(rng.random(2000))
    k = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, INF, -INF, NAN])
    for p in ps:
        assert same(pvalues.binom_cdf(k, 1, p), stats.binom.cdf(k, 1, p)), p
        assert same(pvalues.binom_sf(k, 1, p), stats.binom.sf(k, 1, p)), p
        assert same(pvalues.binom_cdf(0, 1, p), stats.binom.cdf(0, 1, p)), p


def test_binom_outside_the_parameters() -> None:
    k = np.array([0, 3])
    for n, p in [(-1, 0.5), (10, 1.5), (10, -0.1)]:
        assert same(pvalues.binom_cdf(k, n, p), stats.binom.cdf(k, n, p))
        assert same(pvalues.binom_sf(k, n, p), stats.binom.sf(k, n, p))


@pytest.mark.parametrize(
    "ps",
    [
        [0.5] * 10,
        [1.0] * 12,
        [0.0] * 10,
        [0.0, 1.0, 0.2, 0.3, 0.99, 0.01, 0.5, 0.5, 0.7, 0.8],
        [0.001 * i for i in range(1, 40)],
        [0.3, 0.2, NAN, 0.1, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
    ],
)
def test_ks_uniform_greater(ps: list[float]) -> None:
    want = stats.kstest(ps, "uniform", alternative="greater")
    got = pvalues.ks_uniform_greater(ps)
    assert same(got[0], want.statistic)
    assert same(got[1], want.pvalue)


def test_ks_uniform_greater_random() -> None:
    rng = np.random.default_rng(11)
    for n in (10, 33, 100, 1000):
        for skew in (1.0, 0.7):
            ps = list(rng.random(n) ** (1 / skew))
            want = stats.kstest(ps, "uniform", alternative="greater")
            assert pvalues.ks_uniform_greater(ps) == (want.statistic, want.pvalue)


def test_shuffler_audit_does_not_import_scipy_stats(tmp_path: object) -> None:
    # scipy.stats costs ~0.6 s CPU of start-up more than scipy.special: the audit's battery
    # (first and second level) runs without it.
    code = (
        "import sys\n"
        "from tablecert.audit import audit_shuffler\n"
        "from tablecert.audit.simulate import write_log\n"
        f"log = write_log({str(tmp_path)!r} + '/fair.csv.gz', 'fair', 3000, seed=1)\n"
        "r = audit_shuffler([log], input_order='logged', game='caribbean-stud', batch_size=300)\n"
        "assert r.integrity.records == 3000\n"
        "assert any(t.key == 'second-level' and t.p_value is not None for t in r.battery.tests)\n"
        "print(sorted(m for m in sys.modules if m.startswith('scipy.stats')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip() == "[]"


# A fresh interpreter: the compiled functions loaded light, their values, then SciPy imported
# for real; prints what a test below checks. {setup} runs first.
LIGHT_PROBE = """
import json, sys, threading
{setup}
from tablecert.stats import pvalues
module = pvalues.special_functions()
light = "scipy.special" not in sys.modules
left = sorted(m for m in sys.modules if m.startswith("scipy.special."))
got = [
    repr(float(pvalues.chi2_sf(3.3, 3))),
    repr(float(pvalues.norm_sf(1.7))),
    repr(float(pvalues.binom_cdf(2, 50, 0.1))),
    repr(pvalues.ks_uniform_greater([0.1, 0.5, 0.7])),
]
import scipy.special
from scipy import stats
want = [
    repr(float(stats.chi2.sf(3.3, 3))),
    repr(float(stats.norm.sf(1.7))),
    repr(float(stats.binom.cdf(2, 50, 0.1))),
    repr(pvalues.ks_uniform_greater([0.1, 0.5, 0.7])),
]
k = stats.kstest([0.1, 0.5, 0.7], "uniform", alternative="greater")
want[3] = repr((float(k.statistic), float(k.pvalue)))
print(json.dumps({{
    "light": light,
    "left": left,
    "same_module": scipy.special._ufuncs is module,
    "same_functions": all(
        getattr(scipy.special, f) is getattr(module, f) for f in ("chdtrc", "ndtr", "smirnov")
    ),
    "got": got,
    "want": want,
}}))
"""


def _light_probe(setup: str = "") -> dict[str, object]:
    import json

    out = subprocess.run(
        [sys.executable, "-c", LIGHT_PROBE.format(setup=setup)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_special_functions_load_without_the_package_init_and_equal_scipy() -> None:
    # The light load: scipy.special's __init__ (~0.15 s of CPU) is not run, and nothing of the
    # stand-in package is left; the later real import reuses the very compiled module, so the
    # values are SciPy's, bit for bit.
    r = _light_probe()
    assert r["light"] is True
    assert "scipy.special._ufuncs" in r["left"]  # type: ignore[operator]
    assert r["same_module"] is True
    assert r["same_functions"] is True
    assert r["got"] == r["want"]


def test_special_functions_import_scipy_special_with_other_threads() -> None:
    # Another Python thread could import scipy.special while the stand-in is in sys.modules:
    # then the package is imported as usual.
    setup = "stop = threading.Event(); threading.Thread(target=stop.wait, daemon=True).start()"
    r = _light_probe(setup)
    assert r["light"] is False
    assert r["same_module"] is True
    assert r["got"] == r["want"]


def test_special_functions_fall_back_when_the_light_load_fails() -> None:
    # A SciPy whose compiled module cannot be found this way: the attempt leaves nothing behind
    # and the package is imported as usual.
    setup = "import scipy; scipy.__path__ = ['/nonexistent']"
    # The real import needs the real path back; the fallback must not depend on the stand-in.
    setup += "\nimport tablecert.stats.pvalues as p\n_l = p._light_ufuncs\n"
    setup += "def _probe():\n    r = _l()\n    assert r is None, r\n"
    setup += "    assert 'scipy.special' not in sys.modules\n"
    setup += "    scipy.__path__ = [scipy.__file__.rsplit('/', 1)[0]]\n    return r\n"
    setup += "p._light_ufuncs = _probe"
    r = _light_probe(setup)
    assert r["light"] is False
    assert r["same_module"] is True
    assert r["got"] == r["want"]
