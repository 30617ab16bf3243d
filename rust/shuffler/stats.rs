//! The statistics of one order against the order it is judged against (its input, or its
//! device's previous output): the relative permutation and the histogram indices every tally
//! fills from it.

use super::guesser::valley_guesser;
use crate::cards::DECK_SIZE as N52;
use crate::cpu::Native;

/// `rel[p]` = position in `reference` of the card at position `p` of `out` (both permutations).
pub fn relative(out: &[u8], reference: &[u8], rel: &mut [u8]) {
    let mut pos_in = [0u8; 256];
    for (i, &c) in reference.iter().enumerate() {
        pos_in[c as usize] = i as u8;
    }
    for (r, &c) in rel.iter_mut().zip(out) {
        *r = pos_in[c as usize];
    }
}

/// `relative` of two 52-card orders (permutations of the card ids 0..52, as a complete deck
/// is), the look-ups with AVX2 when given the native features' proof: the 52 input places
/// are a 64-byte table, and each output card's place is four 16-byte `vpshufb` look-ups
/// (one per quarter of the table) of which its id's quarter is kept; 32 cards a vector.
#[allow(clippy::inline_always)]
#[inline(always)]
pub fn relative52(
    out: &[u8; N52],
    reference: &[u8; N52],
    rel: &mut [u8; N52],
    native: Option<Native>,
) {
    #[cfg(target_arch = "x86_64")]
    if native.is_some() {
        // SAFETY: a `Native` is made only on a CPU that has the features, AVX2 among them
        // (`Native::detect`).
        unsafe { avx2::relative52(out, reference, rel) };
        return;
    }
    let _ = native;
    relative(out, reference, rel);
}

/// `relative`, through `relative52` for 52-card orders (which must then be complete decks, as
/// the parse has checked).
#[allow(clippy::inline_always)]
#[inline(always)]
pub fn relative_native(out: &[u8], reference: &[u8], rel: &mut [u8], native: Option<Native>) {
    match (
        <&[u8; N52]>::try_from(out),
        <&[u8; N52]>::try_from(reference),
        <&mut [u8; N52]>::try_from(&mut *rel),
    ) {
        (Ok(out), Ok(reference), Ok(rel)) => relative52(out, reference, rel, native),
        _ => relative(out, reference, rel),
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::N52;
    use std::arch::x86_64::{
        __m256i, _mm256_blendv_epi8, _mm256_broadcastsi128_si256, _mm256_cmpgt_epi8,
        _mm256_loadu_si256, _mm256_set1_epi8, _mm256_shuffle_epi8, _mm256_storeu_si256,
        _mm_loadu_si128,
    };

    #[target_feature(enable = "avx2")]
    pub(super) fn relative52(out: &[u8; N52], reference: &[u8; N52], rel: &mut [u8; N52]) {
        // Card ids of a complete deck are below 52: the table's first 64 places are looked
        // up (256 places: a byte indexes them without a mask). Four cards a turn: each a load
        // and a store.
        let mut place = [0u8; 256];
        for (k, four) in reference.chunks_exact(4).enumerate() {
            for (j, &c) in four.iter().enumerate() {
                place[c as usize] = (4 * k + j) as u8;
            }
        }
        let quarter = |q: usize| -> __m256i {
            // SAFETY: the 16 bytes from 16 q are inside `place`.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(place[16 * q..].as_ptr().cast()) })
        };
        let tables = [quarter(0), quarter(1), quarter(2), quarter(3)];
        let above = |k: i8| _mm256_set1_epi8(16 * k - 1);
        // Bytes 0..32 and 20..52 (overlapping: the 52 bytes, read and written in place).
        for at in [0, N52 - 32] {
            // SAFETY: the 32 bytes from `at` are inside `out` and inside `rel`.
            let ids = unsafe { _mm256_loadu_si256(out[at..].as_ptr().cast()) };
            // `vpshufb` takes the low four bits of each id (its high bit is 0: ids < 52); the
            // id's quarter picks the table.
            let mut places = _mm256_shuffle_epi8(tables[0], ids);
            for (k, table) in tables.iter().enumerate().skip(1) {
                let looked = _mm256_shuffle_epi8(*table, ids);
                let mask = _mm256_cmpgt_epi8(ids, above(k as i8));
                places = _mm256_blendv_epi8(places, looked, mask);
            }
            unsafe { _mm256_storeu_si256(rel[at..].as_mut_ptr().cast(), places) };
        }
    }
}

/// The statistics of one order against its input order (`rel[p]`: the input position of the
/// card at output position `p`), as indices into the histograms rising sequences, fixed
/// points, preserved successions, interior valleys, footrule displacement, correct guesses.
// Bitwise on purpose: a lazy `&&` branches on the data and mispredicts.
// Always inlined: the tallies' compilations for the CPU (`Counts52::add`) give it the
// bit-count instructions.
#[allow(clippy::needless_bitwise_bool, clippy::inline_always)]
#[inline(always)]
#[must_use]
pub fn input_stats(rel: &[u8]) -> [usize; 6] {
    let [rising, fixed, successions, valleys, footrule] = input_counts(rel);
    [
        rising,
        fixed,
        successions,
        valleys,
        footrule,
        valley_guesser(rel),
    ]
}

/// `input_stats` but the guesser's.
#[allow(clippy::needless_bitwise_bool, clippy::inline_always)]
#[inline(always)]
#[must_use]
pub(crate) fn input_counts(rel: &[u8]) -> [usize; 5] {
    // Index loops over one slice whose length the optimiser knows: no bounds checks, and the
    // counting loops vectorise (a fold over `windows` does neither).
    let rel = &rel[..rel.len().min(64)];
    let n = rel.len();
    // Each label's place (256 places: a byte indexes them without a mask), four labels a
    // turn, in a loop of its own: the counting loop below vectorises.
    let mut pos = [0u8; 256];
    let (fours, rest) = rel.split_at(n / 4 * 4);
    for (k, four) in fours.chunks_exact(4).enumerate() {
        for (j, &r) in four.iter().enumerate() {
            pos[r as usize] = (4 * k + j) as u8;
        }
    }
    for (j, &r) in rest.iter().enumerate() {
        pos[r as usize] = (fours.len() + j) as u8;
    }
    // Byte and 16-bit counters (n <= 64, footrule <= 64 * 64 / 2): the loops vectorise.
    let (mut fixed, mut footrule) = (0u8, 0u16);
    for (p, &r) in rel.iter().enumerate() {
        fixed += u8::from(p == r as usize);
        footrule += u16::from((p as u8).abs_diff(r));
    }
    let (mut rising, mut successions, mut valleys) = (1u8, 0u8, 0u8);
    for p in 1..n {
        rising += u8::from(pos[p] < pos[p - 1]);
        successions += u8::from(rel[p] == rel[p - 1].wrapping_add(1));
    }
    for p in 2..n {
        valleys += u8::from((rel[p - 2] > rel[p - 1]) & (rel[p - 1] < rel[p]));
    }
    let [rising, fixed, successions, valleys] =
        [rising, fixed, successions, valleys].map(usize::from);
    [rising, fixed, successions, valleys, usize::from(footrule)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shuffler::tally::tests::shuffled;

    #[test]
    fn relative52_is_relative() {
        let native = Native::detect();
        if native.is_none() {
            eprintln!("skipped: no AVX2 on this CPU: the AVX2 relative52 not checked");
        }
        let mut rng = crate::shuffler::simulate::Rng::new(5);
        let identity: Vec<u8> = (0..52).collect();
        let mut out = identity.clone();
        let mut reference = identity.clone();
        for i in 0..5_000 {
            match i % 4 {
                0 => out.clone_from(&identity),
                1 => reference.reverse(),
                _ => shuffled(&mut rng, &mut out),
            }
            shuffled(&mut rng, &mut reference);
            let mut want = [0u8; 52];
            relative(&out, &reference, &mut want);
            let (o, r) = (
                out.as_slice().try_into().unwrap(),
                reference.as_slice().try_into().unwrap(),
            );
            for native in [None, native] {
                let mut got = [7u8; 52];
                relative52(o, r, &mut got, native);
                assert_eq!(got, want, "{out:?} {reference:?} {native:?}");
            }
        }
    }
}
