//! `hash128` of four 52-byte orders at a time with AVX2 (a CPU without AVX-512): the four
//! orders' first chains in one vector, their second chains in another. AVX2 has no 64-bit
//! product: each is three 32-bit products (`x * c mod 2^64` by the low and high halves), still
//! fewer instructions than four scalar chains, whose products wait on each other.

use super::N52;
use std::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_mul_epu32, _mm256_or_si256, _mm256_set1_epi64x,
    _mm256_set_epi64x, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_xor_si256,
};

/// `x * c` (mod 2^64) in each lane.
#[inline]
#[target_feature(enable = "avx2")]
fn times(x: __m256i, c: u64) -> __m256i {
    let low = _mm256_set1_epi64x(i64::from(c as u32));
    let high = _mm256_set1_epi64x(i64::from((c >> 32) as u32));
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), low),
        _mm256_mul_epu32(x, high),
    );
    _mm256_add_epi64(_mm256_mul_epu32(x, low), _mm256_slli_epi64::<32>(cross))
}

/// `Hash128::mix` in each lane.
#[inline]
#[target_feature(enable = "avx2")]
fn mix(z: __m256i) -> __m256i {
    let z = times(
        _mm256_xor_si256(z, _mm256_srli_epi64::<30>(z)),
        0xbf58_476d_1ce4_e5b9,
    );
    let z = times(
        _mm256_xor_si256(z, _mm256_srli_epi64::<27>(z)),
        0x94d0_49bb_1331_11eb,
    );
    _mm256_xor_si256(z, _mm256_srli_epi64::<31>(z))
}

/// Four 64-bit values, lane `l` from `f(l)`.
#[inline]
#[target_feature(enable = "avx2")]
fn lanes(f: impl Fn(usize) -> u64) -> __m256i {
    let v = |l: usize| f(l).cast_signed();
    _mm256_set_epi64x(v(3), v(2), v(1), v(0))
}

#[inline]
#[target_feature(enable = "avx2")]
fn unpack(v: __m256i) -> [u64; 4] {
    let mut out = [0u64; 4];
    // SAFETY: `out` has room for the 32 bytes.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
    out
}

/// `hash128(kind, &orders[at..at + 52])` for the four `(kind, at)`; every order inside
/// `orders` (else a panic).
#[target_feature(enable = "avx2")]
pub fn four52(orders: &[u8], jobs: &[(u8, usize); 4]) -> [u128; 4] {
    let order = |l: usize| -> &[u8; N52] {
        let at = jobs[l].1;
        orders[at..at + N52].try_into().expect("52 bytes")
    };
    let kind = |l: usize| u64::from(jobs[l].0);
    let mut a = lanes(|l| 0x9e37_79b9_7f4a_7c15 ^ kind(l));
    let mut b = lanes(|l| 0x632b_e59b_d9b4_e019 ^ (kind(l) << 8));
    let golden = _mm256_set1_epi64x(0x9e37_79b9_7f4a_7c15_u64.cast_signed());
    let fives = _mm256_set1_epi64x(0x5555_5555_5555_5555);
    // Six whole words and a last one of 4 bytes, padded with zeros.
    for k in 0..7 {
        let w = lanes(|l| {
            let o = order(l);
            if k < 6 {
                u64::from_le_bytes(o[8 * k..8 * k + 8].try_into().expect("8 bytes"))
            } else {
                u64::from(u32::from_le_bytes(o[48..52].try_into().expect("4 bytes")))
            }
        });
        a = _mm256_add_epi64(mix(_mm256_xor_si256(a, w)), golden);
        let rotated = _mm256_or_si256(_mm256_slli_epi64::<17>(b), _mm256_srli_epi64::<47>(b));
        b = mix(_mm256_xor_si256(_mm256_xor_si256(rotated, w), fives));
    }
    let len = _mm256_set1_epi64x((N52 as u64).cast_signed());
    let (high, low) = (unpack(mix(_mm256_xor_si256(a, len))), unpack(mix(b)));
    std::array::from_fn(|l| (u128::from(high[l]) << 64) | u128::from(low[l]))
}
