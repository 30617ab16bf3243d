//! The valley guesser: correct guesses, with feedback, of a guesser who follows valleys, one
//! card at a time (`valley_guesser`, any order) and, for 52-card orders on a CPU with AVX-512,
//! eight cards at a time (`avx512.rs`, the same count), and on a CPU with AVX2 four at a time
//! (`avx2.rs`).

use crate::cards::DECK_SIZE as N52;
use crate::cpu::{Avx512, Native};

/// Correct guesses, with feedback, of a guesser who follows valleys (Diaconis, Fulman and
/// Holmes 2013): after an ascent guess the smallest unseen label above the last card, after a
/// descent the largest unseen below it, falling back to the other side; the first guess is the
/// smallest label. Every guess is an unseen label, so under uniformity the count of correct
/// guesses is a sum of independent Bernoulli(1/k), k = 1..n. `rel` is a permutation of `0..n`.
#[must_use]
#[inline(always)]
#[allow(clippy::needless_bitwise_bool, clippy::inline_always)]
pub fn valley_guesser(rel: &[u8]) -> usize {
    let n = rel.len();
    let mut unseen: u64 = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let Some((&end, rel)) = rel.split_last() else {
        return 0;
    };
    let mut guess = 0u8;
    let mut correct = 0;
    // One more than the last label (0 before the first card, so that it counts as an ascent).
    let mut after_last = 0u8;
    // Every card but the last leaves an unseen label to guess.
    for &a in rel {
        correct += usize::from(a == guess);
        unseen &= !(1u64 << a);
        // Label `a` is seen: every unseen label is below it or above it.
        let below = unseen & ((1u64 << a) - 1);
        let above = unseen ^ below;
        let up = a >= after_last;
        after_last = a + 1;
        // After an ascent the smallest unseen label above, else the largest below; each falls
        // back to the other side when its own is empty. Both are computed and one selected:
        // which side is guessed depends on the data, so a branch would mispredict.
        let pick_above = (above != 0) & (up | (below == 0));
        let smallest_above = above.trailing_zeros() as u8;
        let largest_below = 63 - (below | 1).leading_zeros() as u8;
        guess = if pick_above {
            smallest_above
        } else {
            largest_below
        };
    }
    correct + usize::from(end == guess)
}

/// `valley_guesser` of a 52-card order, with AVX-512 when given its proof, else with AVX2
/// when given the native features' (which include it).
#[allow(clippy::inline_always)]
#[inline(always)]
#[must_use]
pub fn valley_guesser52(rel: &[u8; N52], avx512: Option<Avx512>, native: Option<Native>) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if avx512.is_some() {
            // SAFETY: an `Avx512` is made only on a CPU that has the features
            // (`Avx512::detect`).
            return unsafe { avx512::valley_guesser52(rel) };
        }
        if native.is_some() {
            // SAFETY: a `Native` is made only on a CPU that has the features, AVX2 and
            // population count among them (`Native::detect`).
            return unsafe { avx2::valley_guesser52(rel) };
        }
    }
    let _ = (avx512, native);
    valley_guesser(rel)
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cpu::avx512_for;
    use crate::shuffler::tally::tests::shuffled;

    /// The valley guesser as its definition reads, on a set of unseen labels.
    pub(crate) fn slow_guesser(rel: &[u8]) -> usize {
        let mut unseen: std::collections::BTreeSet<u8> = rel.iter().copied().collect();
        let mut guess = *unseen.first().unwrap();
        let mut correct = 0;
        for (p, &a) in rel.iter().enumerate() {
            if a == guess {
                correct += 1;
            }
            unseen.remove(&a);
            let above = unseen.range(a..).next().copied();
            let below = unseen.range(..a).next_back().copied();
            let ascent = p == 0 || a > rel[p - 1];
            let (first, second) = if ascent {
                (above, below)
            } else {
                (below, above)
            };
            match first.or(second) {
                Some(g) => guess = g,
                None => break,
            }
        }
        correct
    }

    #[test]
    fn the_guesser_eight_cards_at_a_time_guesses_as_the_definition() {
        let mut rng = crate::shuffler::simulate::Rng::new(52);
        let mut rel: Vec<u8> = (0..52).collect();
        let vector = avx512_for("the AVX-512 guesser");
        let native = Native::detect();
        if native.is_none() {
            eprintln!("skipped: no AVX2 on this CPU: the AVX2 guesser not checked");
        }
        let (mut checked, mut checked_avx2) = (0, 0);
        for i in 0..20_000 {
            match i % 8 {
                0 => rel.sort_unstable(),
                1 => rel.sort_unstable_by(|a, b| b.cmp(a)),
                // Runs up and down (many valleys), and nearly sorted orders (many correct
                // guesses, where a lane's error would show).
                2 => {
                    rel.sort_unstable();
                    let k = 1 + rng.below(51) as usize;
                    rel[..k].reverse();
                    rel[k..].rotate_left(rng.below(52 - k as u64) as usize);
                }
                3 => rel.swap(rng.below(52) as usize, rng.below(52) as usize),
                _ => shuffled(&mut rng, &mut rel),
            }
            let order: &[u8; 52] = rel.as_slice().try_into().unwrap();
            let expected = slow_guesser(&rel);
            assert_eq!(valley_guesser(&rel), expected, "{rel:?}");
            assert_eq!(valley_guesser52(order, None, None), expected, "{rel:?}");
            if let Some(avx512) = vector {
                assert_eq!(
                    valley_guesser52(order, Some(avx512), None),
                    expected,
                    "{rel:?}"
                );
                checked += 1;
            }
            if native.is_some() {
                assert_eq!(valley_guesser52(order, None, native), expected, "{rel:?}");
                checked_avx2 += 1;
            }
        }
        assert_eq!(checked, if vector.is_some() { 20_000 } else { 0 });
        assert_eq!(checked_avx2, if native.is_some() { 20_000 } else { 0 });
        // The identity: every guess is right; the reversed order: only the last.
        rel.sort_unstable();
        for (avx512, native) in [(vector, None), (None, native), (None, None)] {
            let order: &[u8; 52] = rel.as_slice().try_into().unwrap();
            assert_eq!(valley_guesser52(order, avx512, native), 52);
            let reversed: Vec<u8> = rel.iter().rev().copied().collect();
            let expected = slow_guesser(&reversed);
            assert_eq!(
                valley_guesser52(reversed.as_slice().try_into().unwrap(), avx512, native),
                expected
            );
        }
    }
}
