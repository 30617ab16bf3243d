//! `hash128` of eight 52-card orders at once, one in each 64-bit lane of AVX-512 vectors.

use super::N52;
use std::arch::x86_64::{
    __m512i, _mm512_add_epi64, _mm512_i64gather_epi64, _mm512_mullo_epi64, _mm512_rol_epi64,
    _mm512_set1_epi64, _mm512_srli_epi64, _mm512_storeu_si512, _mm512_xor_si512,
};

#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mix(z: __m512i) -> __m512i {
    let k1 = _mm512_set1_epi64(0xbf58_476d_1ce4_e5b9_u64.cast_signed());
    let k2 = _mm512_set1_epi64(0x94d0_49bb_1331_11eb_u64.cast_signed());
    let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<30>(z)), k1);
    let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<27>(z)), k2);
    _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z))
}

fn lanes(f: impl Fn(usize) -> u64) -> __m512i {
    let v: [u64; 8] = std::array::from_fn(f);
    // SAFETY: 64 bytes read from an array of 64 bytes.
    unsafe { std::ptr::read_unaligned(v.as_ptr().cast()) }
}

/// `hash128(kind, &orders[off..off + 52])` for the eight `(kind, off)`: `Hash128`'s steps
/// in the lanes.
///
/// # Safety
/// Every `off + 52 <= orders.len()`.
// The casts to `i64` are of offsets within an order (at most 52).
#[allow(clippy::cast_possible_wrap)]
#[target_feature(enable = "avx512f,avx512dq")]
pub unsafe fn eight52(orders: &[u8], lanes8: &[(u8, usize); 8]) -> [u128; 8] {
    let mut a = lanes(|l| 0x9e37_79b9_7f4a_7c15 ^ u64::from(lanes8[l].0));
    let mut b = lanes(|l| 0x632b_e59b_d9b4_e019 ^ (u64::from(lanes8[l].0) << 8));
    let offsets = lanes(|l| lanes8[l].1 as u64);
    let add_a = _mm512_set1_epi64(0x9e37_79b9_7f4a_7c15_u64.cast_signed());
    let xor_b = _mm512_set1_epi64(0x5555_5555_5555_5555_u64.cast_signed());
    let base: *const i64 = orders.as_ptr().cast();
    for j in 0..N52.div_ceil(8) {
        let w = if 8 * j + 8 <= N52 {
            // SAFETY: bytes off + 8j .. off + 8j + 8 are inside the order.
            unsafe {
                _mm512_i64gather_epi64::<1>(
                    _mm512_add_epi64(offsets, _mm512_set1_epi64((8 * j) as i64)),
                    base,
                )
            }
        } else {
            // The last 4 bytes, zero-padded: the word ending at the order's end, shifted.
            // SAFETY: bytes off + 44 .. off + 52 are inside the order.
            let tail = unsafe {
                _mm512_i64gather_epi64::<1>(
                    _mm512_add_epi64(offsets, _mm512_set1_epi64((N52 - 8) as i64)),
                    base,
                )
            };
            _mm512_srli_epi64::<32>(tail)
        };
        a = _mm512_add_epi64(mix(_mm512_xor_si512(a, w)), add_a);
        b = mix(_mm512_xor_si512(
            _mm512_xor_si512(_mm512_rol_epi64::<17>(b), w),
            xor_b,
        ));
    }
    let hi = mix(_mm512_xor_si512(a, _mm512_set1_epi64(N52 as i64)));
    let lo = mix(b);
    let (mut his, mut los) = ([0u64; 8], [0u64; 8]);
    // SAFETY: 64-byte stores into arrays of 64 bytes.
    unsafe {
        _mm512_storeu_si512(his.as_mut_ptr().cast(), hi);
        _mm512_storeu_si512(los.as_mut_ptr().cast(), lo);
    }
    std::array::from_fn(|l| (u128::from(his[l]) << 64) | u128::from(los[l]))
}
