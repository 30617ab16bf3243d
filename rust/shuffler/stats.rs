//! The statistics of one order against the order it is judged against (its input, or its
//! device's previous output): the relative permutation and the histogram indices every tally
//! fills from it.

use super::guesser::valley_guesser;

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
    let mut pos = [0u8; 64];
    // Byte and 16-bit counters (n <= 64, footrule <= 64 * 64 / 2): the loops vectorise.
    let (mut fixed, mut footrule) = (0u8, 0u16);
    for (p, &r) in rel.iter().enumerate() {
        pos[r as usize & 63] = p as u8;
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
