"""Binary expansions of pi, e, sqrt(2) and sqrt(3) with Python integers, as the NIST tool's
data files hold them: the first n bits of the number written in binary, integer part included
(pi = 11.00100100..., e = 10.1011011..., sqrt 2 = 1.0110101..., sqrt 3 = 1.1011101...).
"""

from __future__ import annotations

import math


def _pi_scaled(frac_bits: int) -> int:
    """floor(pi * 2^frac_bits) by Chudnovsky's series with binary splitting (guard bits added)."""
    guard = 64
    prec = frac_bits + guard
    terms = prec // 47 + 2  # each term adds ~47.11 bits

    def split(a: int, b: int) -> tuple[int, int, int]:
        if b - a == 1:
            if a == 0:
                p = q = 1
            else:
                p = (6 * a - 5) * (2 * a - 1) * (6 * a - 1)
                q = a * a * a * 10939058860032000
            t = p * (13591409 + 545140134 * a)
            if a % 2:
                t = -t
            return p, q, t
        mid = (a + b) // 2
        p1, q1, t1 = split(a, mid)
        p2, q2, t2 = split(mid, b)
        return p1 * p2, q1 * q2, q2 * t1 + p1 * t2

    _, q, t = split(0, terms)
    # pi = 426880 sqrt(10005) Q / T
    sqrt_10005 = math.isqrt(10005 << (2 * prec))
    value = (426880 * sqrt_10005 * q) // t
    return value >> guard


def _e_scaled(frac_bits: int) -> int:
    """floor(e * 2^frac_bits): sum 1/k! by binary splitting."""
    guard = 64
    terms = 2
    log2_fact = 0.0
    while log2_fact < frac_bits + guard + 8:
        terms += 1
        log2_fact += math.log2(terms)

    def split(a: int, b: int) -> tuple[int, int]:
        # returns (P, Q) with sum_{k=a+1}^{b} 1/((a+1)...k) = P/Q
        if b - a == 1:
            return 1, b
        mid = (a + b) // 2
        p1, q1 = split(a, mid)
        p2, q2 = split(mid, b)
        return p1 * q2 + p2, q1 * q2

    p, q = split(0, terms)
    # e = 1 + P/Q
    return (((q + p) << (frac_bits + guard)) // q) >> guard


def expansion_bits(name: str, n: int) -> bytes:
    """The first n bits (n a multiple of 8) of the constant, packed MSB-first."""
    if n % 8:
        raise ValueError("n must be a multiple of 8")
    if name == "pi":
        value = _pi_scaled(n - 2)
    elif name == "e":
        value = _e_scaled(n - 2)
    elif name == "sqrt2":
        value = math.isqrt(2 << (2 * (n - 1)))
    elif name == "sqrt3":
        value = math.isqrt(3 << (2 * (n - 1)))
    else:
        raise ValueError(f"unknown constant {name!r}")
    assert value.bit_length() == n
    return value.to_bytes(n // 8, "big")
