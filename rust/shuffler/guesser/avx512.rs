//! The valley guesser eight cards at a time. Its guesses do not depend on each other: the guess
//! after card `i` is decided by card `i`, the card before it and the labels unseen after it,
//! and those are a prefix union of one-bit masks, computed in the lanes by doubling steps. Then
//! every lane computes the scalar loop's step at once (the trailing zero count of the labels
//! above as the leading zero count of their lowest bit) and compares its guess with the card
//! after. 7 vectors of 8 steps stand for 51 scalar steps of about 17 instructions each.

use super::N52;
use std::arch::x86_64::{
    __m512i, _mm512_alignr_epi64, _mm512_and_si512, _mm512_andnot_si512, _mm512_cmpeq_epi64_mask,
    _mm512_cmpgt_epu64_mask, _mm512_cvtepu8_epi64, _mm512_extracti32x4_epi32, _mm512_lzcnt_epi64,
    _mm512_mask_blend_epi64, _mm512_maskz_loadu_epi8, _mm512_or_si512, _mm512_permutexvar_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_sllv_epi64, _mm512_sub_epi64,
    _mm512_test_epi64_mask, _mm_unpackhi_epi64,
};

/// The 52 labels as 7 vectors of eight 64-bit lanes (zeros past the last), and a zero
/// vector after them. One load of the whole order: eight-byte loads of an order written
/// byte by byte just before would each wait for the stores.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn lanes(rel: &[u8; N52]) -> [__m512i; 8] {
    // SAFETY: the mask reads the 52 bytes of `rel` only (masked-out bytes are not read).
    let all = unsafe { _mm512_maskz_loadu_epi8((1u64 << N52) - 1, rel.as_ptr().cast()) };
    let quarters = [
        _mm512_extracti32x4_epi32::<0>(all),
        _mm512_extracti32x4_epi32::<1>(all),
        _mm512_extracti32x4_epi32::<2>(all),
        _mm512_extracti32x4_epi32::<3>(all),
    ];
    let mut v = [_mm512_setzero_si512(); 8];
    for (k, q) in quarters.into_iter().enumerate() {
        v[2 * k] = _mm512_cvtepu8_epi64(q);
        if 2 * k + 1 < 7 {
            v[2 * k + 1] = _mm512_cvtepu8_epi64(_mm_unpackhi_epi64(q, q));
        }
    }
    v
}

#[target_feature(enable = "popcnt,avx512f,avx512bw,avx512cd")]
pub fn valley_guesser52(rel: &[u8; N52]) -> usize {
    let cards = lanes(rel);
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi64(1);
    let top = _mm512_set1_epi64(63);
    let last_lane = _mm512_set1_epi64(7);
    let deck = _mm512_set1_epi64(((1u64 << N52) - 1).cast_signed());
    // Labels seen up to the previous vector, in every lane.
    let mut seen_before = zero;
    // The first guess (label 0) is right when the first card is label 0.
    let mut hits = u64::from(rel[0] == 0);
    // Lanes 8v..8v+7 are the guesses after cards 8v..8v+7; cards 0..=50 are followed by
    // one (51 guesses).
    let mut previous = zero;
    for v in 0..7 {
        let a = cards[v];
        // The card before each (a 0 before the first) and the card after each.
        let before = _mm512_alignr_epi64::<7>(a, previous);
        let next = _mm512_alignr_epi64::<1>(cards[v + 1], a);
        previous = a;
        let bit = _mm512_sllv_epi64(one, a);
        // Prefix union over the lanes: shift by 1, 2, 4 lanes and or.
        let mut seen = _mm512_or_si512(bit, _mm512_alignr_epi64::<7>(bit, zero));
        seen = _mm512_or_si512(seen, _mm512_alignr_epi64::<6>(seen, zero));
        seen = _mm512_or_si512(seen, _mm512_alignr_epi64::<4>(seen, zero));
        seen = _mm512_or_si512(seen, seen_before);
        seen_before = _mm512_permutexvar_epi64(last_lane, seen);
        // Unseen labels of the deck below and above the card.
        let unseen = _mm512_andnot_si512(seen, deck);
        let below = _mm512_and_si512(unseen, _mm512_sub_epi64(bit, one));
        let above = _mm512_andnot_si512(below, unseen);
        // An ascent: the card is above the one before. The first card (the 0 before it)
        // is one unless it is label 0, and then no label is below it: the guess is above
        // all the same.
        let up = _mm512_cmpgt_epu64_mask(a, before);
        let has_above = _mm512_test_epi64_mask(above, above);
        let has_below = _mm512_test_epi64_mask(below, below);
        let pick_above = has_above & (up | !has_below);
        let lowest_above = _mm512_and_si512(above, _mm512_sub_epi64(zero, above));
        let smallest_above = _mm512_sub_epi64(top, _mm512_lzcnt_epi64(lowest_above));
        let largest_below = _mm512_sub_epi64(top, _mm512_lzcnt_epi64(_mm512_or_si512(below, one)));
        let guess = _mm512_mask_blend_epi64(pick_above, largest_below, smallest_above);
        let right = _mm512_cmpeq_epi64_mask(guess, next);
        hits |= u64::from(right) << (8 * v + 1);
    }
    // Bit 0: the first guess; bit i + 1: the guess after card i, for i < 51.
    (hits & ((1u64 << N52) - 1)).count_ones() as usize
}
