"""A slow, plain-Python transcription of the fifteen SP 800-22 rev1a tests, written straight
from the document's formulas: the oracle for the Rust core and the speed baseline.

It shares no code with the core: special functions come from `math` and SciPy, the DFT from
NumPy, Berlekamp-Massey and GF(2) rank are the textbook loops. Every function takes a list of
0/1 ints and returns a list of p-values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import gammaincc

Bits = Sequence[int]


def igamc(a: float, x: float) -> float:
    return float(gammaincc(a, x))


def frequency(e: Bits) -> list[float]:
    n = len(e)
    s = sum(2 * b - 1 for b in e)
    return [math.erfc(abs(s) / math.sqrt(n) / math.sqrt(2))]


def block_frequency(e: Bits, m: int = 128) -> list[float]:
    blocks = len(e) // m
    chi2 = 4 * m * sum((sum(e[i * m : (i + 1) * m]) / m - 0.5) ** 2 for i in range(blocks))
    return [igamc(blocks / 2, chi2 / 2)]


def cumulative_sums(e: Bits) -> list[float]:
    n = len(e)
    out = []
    for seq in (list(e), list(reversed(e))):
        s, z = 0, 0
        for b in seq:
            s += 2 * b - 1
            z = max(z, abs(s))

        def phi(x: float) -> float:
            return 0.5 * math.erfc(-x / math.sqrt(2))

        r = math.sqrt(n)
        total = 1.0
        for k in range(math.floor((-n / z + 1) / 4), math.floor((n / z - 1) / 4) + 1):
            total -= phi((4 * k + 1) * z / r) - phi((4 * k - 1) * z / r)
        for k in range(math.floor((-n / z - 3) / 4), math.floor((n / z - 1) / 4) + 1):
            total += phi((4 * k + 3) * z / r) - phi((4 * k + 1) * z / r)
        out.append(total)
    return out


def runs(e: Bits) -> list[float]:
    n = len(e)
    pi = sum(e) / n
    if abs(pi - 0.5) >= 2 / math.sqrt(n):
        return [0.0]
    v = 1 + sum(1 for k in range(n - 1) if e[k] != e[k + 1])
    num = abs(v - 2 * n * pi * (1 - pi))
    return [math.erfc(num / (2 * math.sqrt(2 * n) * pi * (1 - pi)))]


LONGEST_RUN = {
    8: (1, 4, [0.2148, 0.3672, 0.2305, 0.1875]),
    128: (4, 9, [0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124]),
    10000: (10, 16, [0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727]),
}


def longest_run(e: Bits, m: int | None = None) -> list[float]:
    n = len(e)
    if m is None:
        m = 8 if n < 6272 else 128 if n < 750000 else 10000
    lo, hi, pi = LONGEST_RUN[m]
    nu = [0] * len(pi)
    blocks = n // m
    for i in range(blocks):
        best = run = 0
        for b in e[i * m : (i + 1) * m]:
            run = run + 1 if b else 0
            best = max(best, run)
        nu[min(max(best, lo), hi) - lo] += 1
    chi2 = sum((nu[i] - blocks * pi[i]) ** 2 / (blocks * pi[i]) for i in range(len(pi)))
    return [igamc((len(pi) - 1) / 2, chi2 / 2)]


def _rank(rows: list[int], cols: int) -> int:
    rows = list(rows)
    rank = 0
    for bit in reversed(range(cols)):
        pivot = next((r for r in range(rank, len(rows)) if rows[r] >> bit & 1), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r] >> bit & 1:
                rows[r] ^= rows[rank]
        rank += 1
    return rank


def _rank_probability(m: int, q: int, r: int) -> float:
    product = 1.0
    for i in range(r):
        product *= (1 - 2.0 ** (i - q)) * (1 - 2.0 ** (i - m)) / (1 - 2.0 ** (i - r))
    return 2.0 ** (r * (q + m - r) - m * q) * product


def rank(e: Bits, m: int = 32, q: int = 32) -> list[float]:
    count = len(e) // (m * q)
    full = min(m, q)
    f = [0, 0, 0]
    for k in range(count):
        block = e[k * m * q : (k + 1) * m * q]
        rows = [int("".join(map(str, block[i * q : (i + 1) * q])), 2) for i in range(m)]
        r = _rank(rows, q)
        f[0 if r == full else 1 if r == full - 1 else 2] += 1
    p = [_rank_probability(m, q, full), _rank_probability(m, q, full - 1)]
    p.append(1 - p[0] - p[1])
    chi2 = sum((f[i] - p[i] * count) ** 2 / (p[i] * count) for i in range(3))
    return [math.exp(-chi2 / 2)]


def dft(e: Bits) -> list[float]:
    n = len(e)
    x = np.array([2 * b - 1 for b in e], dtype=float)
    mags = np.abs(np.fft.fft(x))[: n // 2]
    t = math.sqrt(math.log(1 / 0.05) * n)
    n0 = 0.95 * n / 2
    n1 = float(np.count_nonzero(mags < t))
    d = (n1 - n0) / math.sqrt(n * 0.95 * 0.05 / 4)
    return [math.erfc(abs(d) / math.sqrt(2))]


def aperiodic_templates(m: int) -> list[str]:
    out = []
    for v in range(2**m):
        s = format(v, f"0{m}b")
        if all(s[:k] != s[m - k :] for k in range(1, m)):
            out.append(s)
    return out


def non_overlapping(e: Bits, m: int = 9, blocks: int = 8) -> list[float]:
    n = len(e)
    big_m = n // blocks
    text = "".join(map(str, e))
    mu = (big_m - m + 1) / 2**m
    var = big_m * (1 / 2**m - (2 * m - 1) / 2 ** (2 * m))
    out = []
    for t in aperiodic_templates(m):
        chi2 = 0.0
        for j in range(blocks):
            block = text[j * big_m : (j + 1) * big_m]
            w, i = 0, 0
            while i <= big_m - m:
                if block[i : i + m] == t:
                    w += 1
                    i += m
                else:
                    i += 1
            chi2 += (w - mu) ** 2 / var
        out.append(igamc(blocks / 2, chi2 / 2))
    return out


def overlapping_pi_formula(m: int, big_m: int, k: int) -> list[float]:
    """The document's formula (Poisson-type approximation), used by its worked example."""
    lam = (big_m - m + 1) / 2**m
    eta = lam / 2
    pi = [math.exp(-eta)]
    for u in range(1, k):
        pi.append(
            sum(
                math.exp(-eta) / 2**u * eta**ell / math.factorial(ell) * math.comb(u - 1, ell - 1)
                for ell in range(1, u + 1)
            )
        )
    pi.append(1 - sum(pi))
    return pi


#: rev1a section 3.8: the corrected class probabilities for m = 9, M = 1032, K = 5.
OVERLAPPING_PI_REV1A = [0.364091, 0.185659, 0.139381, 0.100571, 0.0704323, 0.139865]


def overlapping(
    e: Bits, m: int = 9, big_m: int = 1032, k: int = 5, pi: Sequence[float] | None = None
) -> list[float]:
    blocks = len(e) // big_m
    text = "".join(map(str, e))
    t = "1" * m
    nu = [0] * (k + 1)
    for j in range(blocks):
        block = text[j * big_m : (j + 1) * big_m]
        hits = sum(1 for i in range(big_m - m + 1) if block[i : i + m] == t)
        nu[min(hits, k)] += 1
    if pi is None:
        pi = OVERLAPPING_PI_REV1A if (m, big_m, k) == (9, 1032, 5) else None
    if pi is None:
        pi = overlapping_pi_formula(m, big_m, k)
    chi2 = sum((nu[i] - blocks * pi[i]) ** 2 / (blocks * pi[i]) for i in range(k + 1))
    return [igamc(k / 2, chi2 / 2)]


UNIVERSAL_TABLE = {
    1: (0.7326495, 0.690),
    2: (1.5374383, 1.338),
    3: (2.4016068, 1.901),
    4: (3.3112247, 2.358),
    5: (4.2534266, 2.705),
    6: (5.2177052, 2.954),
    7: (6.1962507, 3.125),
    8: (7.1836656, 3.238),
    9: (8.1764248, 3.311),
    10: (9.1723243, 3.356),
    11: (10.170032, 3.384),
    12: (11.168765, 3.401),
    13: (12.168070, 3.410),
    14: (13.167693, 3.416),
    15: (14.167488, 3.419),
    16: (15.167379, 3.421),
}


def universal_statistic(e: Bits, big_l: int, q: int) -> float:
    blocks = len(e) // big_l
    last: dict[int, int] = {}
    total = 0.0
    for i in range(1, blocks + 1):
        v = int("".join(map(str, e[(i - 1) * big_l : i * big_l])), 2)
        if i > q:
            total += math.log2(i - last.get(v, 0))
        last[v] = i
    return total / (blocks - q)


def universal(e: Bits, big_l: int | None = None, q: int | None = None) -> list[float]:
    n = len(e)
    if big_l is None:
        limits = [387840, 904960, 2068480, 4654080, 10342400, 22753280, 49643520]
        big_l = 5 + sum(1 for lim in limits if n >= lim)
    if q is None:
        q = 10 * 2**big_l
    k = n // big_l - q
    fn = universal_statistic(e, big_l, q)
    expected, variance = UNIVERSAL_TABLE[big_l]
    c = 0.7 - 0.8 / big_l + (4 + 32 / big_l) * k ** (-3 / big_l) / 15
    sigma = c * math.sqrt(variance / k)
    return [math.erfc(abs(fn - expected) / (math.sqrt(2) * sigma))]


def _cyclic_counts(e: Bits, m: int) -> dict[str, int]:
    n = len(e)
    text = "".join(map(str, e))
    ext = text + text[: m - 1] if m > 1 else text
    counts: dict[str, int] = {}
    for i in range(n):
        w = ext[i : i + m]
        counts[w] = counts.get(w, 0) + 1
    return counts


def approximate_entropy(e: Bits, m: int = 10) -> list[float]:
    n = len(e)

    def phi(mm: int) -> float:
        if mm == 0:
            return 0.0
        return sum(c / n * math.log(c / n) for c in _cyclic_counts(e, mm).values())

    ap_en = phi(m) - phi(m + 1)
    chi2 = 2 * n * (math.log(2) - ap_en)
    return [igamc(2 ** (m - 1), chi2 / 2)]


def serial(e: Bits, m: int = 16) -> list[float]:
    n = len(e)

    def psi(mm: int) -> float:
        if mm <= 0:
            return 0.0
        squares = sum(c * c for c in _cyclic_counts(e, mm).values())
        return float(2**mm * squares / n - n)

    d1 = psi(m) - psi(m - 1)
    d2 = psi(m) - 2 * psi(m - 1) + psi(m - 2)
    return [igamc(2 ** (m - 2), d1 / 2), igamc(2 ** (m - 3), d2 / 2)]


def _cycles(e: Bits) -> tuple[list[int], list[list[int]]]:
    """The walk's cycles. The walk is closed by an appended 0 only when it does not already end
    at 0, as the NIST tool counts J (``if (S_k[n-1] != 0) J++``), which Appendix B follows;
    padding a walk that ends at 0 with a further 0 would add an empty cycle."""
    walk = [0]
    for b in e:
        walk.append(walk[-1] + 2 * b - 1)
    if walk[-1] != 0:
        walk.append(0)
    cycles: list[list[int]] = []
    current: list[int] = []
    for s in walk[1:]:
        if s == 0:
            cycles.append(current)
            current = []
        else:
            current.append(s)
    return walk[1:-1], cycles


def random_excursions(e: Bits, min_cycles: int | None = None) -> list[float]:
    n = len(e)
    _, cycles = _cycles(e)
    j = len(cycles)
    if min_cycles is None:
        min_cycles = max(math.ceil(0.005 * math.sqrt(n)), 500)
    if j < max(min_cycles, 1):
        return [math.nan] * 8
    out = []
    for x in (-4, -3, -2, -1, 1, 2, 3, 4):
        a = 1 / (2 * abs(x))
        pi = [1 - a] + [a * a * (1 - a) ** (k - 1) for k in range(1, 5)] + [a * (1 - a) ** 4]
        nu = [0] * 6
        for c in cycles:
            nu[min(c.count(x), 5)] += 1
        chi2 = sum((nu[k] - j * pi[k]) ** 2 / (j * pi[k]) for k in range(6))
        out.append(igamc(2.5, chi2 / 2))
    return out


def random_excursions_variant(e: Bits, min_cycles: int | None = None) -> list[float]:
    n = len(e)
    walk, cycles = _cycles(e)
    j = len(cycles)
    if min_cycles is None:
        min_cycles = max(math.ceil(0.005 * math.sqrt(n)), 500)
    if j < max(min_cycles, 1):
        return [math.nan] * 18
    out = []
    for x in [*range(-9, 0), *range(1, 10)]:
        xi = walk.count(x)
        out.append(math.erfc(abs(xi - j) / math.sqrt(2 * j * (4 * abs(x) - 2))))
    return out


def berlekamp_massey(s: Bits) -> int:
    n = len(s)
    c = [1] + [0] * n
    b = [1] + [0] * n
    ell, m = 0, -1
    for step in range(n):
        d = s[step]
        for i in range(1, ell + 1):
            d ^= c[i] & s[step - i]
        if d:
            t = c[:]
            shift = step - m
            for j in range(n + 1 - shift):
                c[j + shift] ^= b[j]
            if ell <= step // 2:
                ell, m, b = step + 1 - ell, step, t
    return ell


#: Class probabilities of T: 1/96, 1/32, 1/8, 1/2, 1/4, 1/16, 1/48 (section 3.10).
LINEAR_COMPLEXITY_PI = [1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48]


def linear_complexity(
    e: Bits, m: int = 500, pi: Sequence[float] = LINEAR_COMPLEXITY_PI
) -> list[float]:
    blocks = len(e) // m
    mu = m / 2 + (9 + (-1) ** (m + 1)) / 36 - (m / 3 + 2 / 9) / 2**m
    nu = [0] * 7
    edges = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
    for i in range(blocks):
        ell = berlekamp_massey(e[i * m : (i + 1) * m])
        t = (-1) ** m * (ell - mu) + 2 / 9
        nu[sum(1 for edge in edges if t > edge)] += 1
    chi2 = sum((nu[i] - blocks * pi[i]) ** 2 / (blocks * pi[i]) for i in range(7))
    return [igamc(3, chi2 / 2)]
