//! The valley guesser four cards at a time, with AVX2 (a CPU without AVX-512: no 64-bit
//! leading zero count in the lanes). As in `avx512.rs`, the guess after card `i` is decided by
//! card `i`, the card before it and the labels unseen after it (a prefix union of one-bit
//! masks, by lane shifts); but the guess itself is never computed: only whether it is the card
//! after, `next`, which is unseen. After an ascent the guess is the lowest label above the
//! card: it is `next` when the lowest set bit of `above` is `next`'s bit; else the highest
//! label below: `next` when `below >> next` is 1. 13 vectors of 4 steps stand for 51 scalar
//! steps of about 24 instructions each.

use super::N52;
use std::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8,
    _mm256_castsi256_pd, _mm256_cmpeq_epi64, _mm256_cvtepu8_epi64, _mm256_movemask_pd,
    _mm256_or_si256, _mm256_permute2x128_si256, _mm256_permute4x64_epi64, _mm256_set1_epi64x,
    _mm256_setzero_si256, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm256_sub_epi64,
    _mm_cvtsi32_si128,
};

/// Four labels from `padded[at..at + 4]` in the four 64-bit lanes. (Masked to 0..=63, as
/// labels of a 52-card order are: the shifts by them are then known not to overflow, and
/// compile to one instruction each.)
#[inline]
#[target_feature(enable = "avx2")]
fn four(padded: &[u8; 56], at: usize) -> __m256i {
    let word = u32::from_le_bytes(padded[at..at + 4].try_into().expect("4 bytes"));
    let labels = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(word.cast_signed()));
    _mm256_and_si256(labels, _mm256_set1_epi64x(63))
}

/// `x` moved up by one 64-bit lane (lane 0 gets 0).
#[inline]
#[target_feature(enable = "avx2")]
fn up_one_lane(x: __m256i) -> __m256i {
    // [0, x0 x1] by 128-bit halves, then each half's bytes 8 up from the pair below it.
    _mm256_alignr_epi8::<8>(x, _mm256_permute2x128_si256::<0x08>(x, x))
}

#[target_feature(enable = "popcnt,avx2")]
pub fn valley_guesser52(rel: &[u8; N52]) -> usize {
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    let deck = _mm256_set1_epi64x(((1u64 << N52) - 1).cast_signed());
    // Labels seen up to the previous vector, in every lane.
    let mut seen_before = zero;
    // The first guess (label 0) is right when the first card is label 0.
    let mut hits = u64::from(rel[0] == 0);
    // The order after a 0, with 0s after it: the card before the first and after the last.
    let mut padded = [0u8; 56];
    padded[1..=N52].copy_from_slice(rel);
    for v in 0..13 {
        let at = 4 * v;
        let a = four(&padded, at + 1);
        // The card before each (a 0 before the first) and the card after each (a 0 after the
        // last card, whose lane is dropped below).
        let before = four(&padded, at);
        let next = four(&padded, at + 2);
        let bit = _mm256_sllv_epi64(one, a);
        // Prefix union over the lanes: shift by 1 and 2 lanes and or.
        let mut seen = _mm256_or_si256(bit, up_one_lane(bit));
        seen = _mm256_or_si256(seen, _mm256_permute2x128_si256::<0x08>(seen, seen));
        seen = _mm256_or_si256(seen, seen_before);
        seen_before = _mm256_permute4x64_epi64::<0xFF>(seen);
        // Unseen labels of the deck below and above the card.
        let unseen = _mm256_andnot_si256(seen, deck);
        let below = _mm256_and_si256(unseen, _mm256_sub_epi64(bit, one));
        let above = _mm256_andnot_si256(below, unseen);
        // A descent: the card before is not below the card. The first card (the 0 before it)
        // is an ascent unless it is label 0, and then no label is below it: the guess is above
        // all the same. The guess is below after a descent when there is a label below, and
        // when there is none above.
        let below_card =
            _mm256_and_si256(_mm256_sllv_epi64(one, before), _mm256_sub_epi64(bit, one));
        let down = _mm256_cmpeq_epi64(below_card, zero);
        let no_above = _mm256_cmpeq_epi64(above, zero);
        let no_below = _mm256_cmpeq_epi64(below, zero);
        let pick_below = _mm256_or_si256(no_above, _mm256_andnot_si256(no_below, down));
        // Whether the guess on each side is the next card.
        let lowest_above = _mm256_and_si256(above, _mm256_sub_epi64(zero, above));
        let next_above = _mm256_cmpeq_epi64(lowest_above, _mm256_sllv_epi64(one, next));
        let next_below = _mm256_cmpeq_epi64(_mm256_srlv_epi64(below, next), one);
        let right = _mm256_blendv_epi8(next_above, next_below, pick_below);
        let right = u64::from(_mm256_movemask_pd(_mm256_castsi256_pd(right)).cast_unsigned());
        hits |= right << (at + 1);
    }
    // Bit 0: the first guess; bit i + 1: the guess after card i, for i < 51.
    (hits & ((1u64 << N52) - 1)).count_ones() as usize
}
