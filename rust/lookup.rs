//! Random-access evaluation by perfect hash: a hand's colex index into the exhaustive key table.
//!
//! `enumerate::keys3` / `keys5` already compute every hand's statute key in colex order (35 ms
//! for the 2,598,960 five-card hands). A hand's colex index is a perfect, minimal hash of its
//! card set, and it needs no sort: set the hand's bits in a 52-bit mask, then walk the set bits
//! from the lowest (`trailing_zeros`), adding `C(card, i + 1)` for the i-th. The same mask
//! checks the cards (each < 52, all distinct: `count_ones` equals the hand size). One lookup in
//! a 10 MB table (it fits the last-level cache) then gives the key, suit tie-break included.

use rayon::prelude::*;

use crate::cards::{CardError, DECK_SIZE};
use crate::compact::CompactKeys;
use crate::enumerate;
use crate::ranking::TieBreaks;

/// Tables larger than this are evaluated through their cache-resident compact form.
const COMPACT_ABOVE_BYTES: usize = 1 << 20;

/// Hands per rayon task: large enough that scheduling does not show, small enough to balance.
const CHUNK_HANDS: usize = 1 << 15;

/// Where a batch of hands failed: the row and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadHand {
    pub row: usize,
    pub error: CardError,
}

/// Every hand's key of one ordering, indexed by colex index: the perfect-hash evaluator.
#[derive(Debug, Clone)]
pub struct KeyTable {
    hand_size: usize,
    keys: Vec<u32>,
    /// The cache-resident form, derived from `keys` and checked hand by hand against it.
    compact: Option<CompactKeys>,
}

impl KeyTable {
    /// Build the table of `hand_size`-card hands (3 or 5) under `tb`.
    ///
    /// # Errors
    /// A hand size other than 3 or 5.
    pub fn new(hand_size: usize, tb: &TieBreaks) -> Result<Self, CardError> {
        let keys = match hand_size {
            3 => enumerate::keys3(tb),
            5 => enumerate::keys5(tb),
            got => return Err(CardError::WrongSize { expected: 5, got }),
        };
        // A table that fits the L2 cache (3 cards: 88 KB) is faster as it is.
        let compact = if keys.len() * 4 > COMPACT_ABOVE_BYTES {
            CompactKeys::derive(&keys, hand_size, tb)
        } else {
            None
        };
        Ok(Self {
            hand_size,
            keys,
            compact,
        })
    }

    #[must_use]
    pub fn hand_size(&self) -> usize {
        self.hand_size
    }

    /// The whole table, indexed by colex index.
    #[must_use]
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The key of one hand (its card ids in any order).
    ///
    /// # Errors
    /// A wrong hand size, a card id of 52 or more, or a repeated card.
    #[inline]
    pub fn key(&self, hand: &[u8]) -> Result<u32, CardError> {
        if hand.len() != self.hand_size {
            return Err(CardError::WrongSize {
                expected: self.hand_size,
                got: hand.len(),
            });
        }
        self.lookup(hand).ok_or_else(|| explain(hand))
    }

    /// Whether evaluation runs on the cache-resident compact form (five cards, whenever the
    /// derivation succeeds: for every bundled ordering) rather than the exhaustive table.
    #[must_use]
    pub fn is_compact(&self) -> bool {
        self.compact.is_some()
    }

    #[inline]
    fn lookup(&self, hand: &[u8]) -> Option<u32> {
        match &self.compact {
            Some(compact) => compact.key(hand),
            None => colex_of_unsorted(hand).map(|index| self.keys[index]),
        }
    }

    /// Keys of consecutive hands (`hand_size` card ids each) into `out`, on one thread.
    ///
    /// # Errors
    /// The first bad hand, with its row.
    pub fn keys_into_sequential(&self, cards: &[u8], out: &mut [u32]) -> Result<(), BadHand> {
        match self.hand_size {
            3 => self.fill::<3>(cards, out, 0),
            _ => self.fill::<5>(cards, out, 0),
        }
    }

    /// Keys of consecutive hands into `out`, in parallel chunks on rayon (same result as
    /// [`KeyTable::keys_into_sequential`], including which bad hand is reported: the first).
    ///
    /// # Errors
    /// The first bad hand, with its row.
    pub fn keys_into(&self, cards: &[u8], out: &mut [u32]) -> Result<(), BadHand> {
        let n = self.hand_size;
        assert_eq!(cards.len(), out.len() * n, "one output key per hand");
        let results: Vec<Result<(), BadHand>> = cards
            .par_chunks(CHUNK_HANDS * n)
            .zip(out.par_chunks_mut(CHUNK_HANDS))
            .enumerate()
            .map(|(chunk, (c, o))| {
                let first_row = chunk * CHUNK_HANDS;
                match n {
                    3 => self.fill::<3>(c, o, first_row),
                    _ => self.fill::<5>(c, o, first_row),
                }
            })
            .collect();
        results.into_iter().collect()
    }

    #[inline]
    fn fill<const N: usize>(
        &self,
        cards: &[u8],
        out: &mut [u32],
        first_row: usize,
    ) -> Result<(), BadHand> {
        for (row, (hand, key)) in cards.chunks_exact(N).zip(out.iter_mut()).enumerate() {
            let hand: &[u8; N] = hand.try_into().expect("chunks of N");
            let found = match &self.compact {
                Some(compact) => compact.key_array(hand),
                None => colex_of_unsorted(hand).map(|index| self.keys[index]),
            };
            match found {
                Some(k) => *key = k,
                None => {
                    return Err(BadHand {
                        row: first_row + row,
                        error: explain(hand),
                    })
                }
            }
        }
        Ok(())
    }
}

/// Every `hand_size`-card hand in colex order (sorted card ids, `hand_size` bytes each).
///
/// # Panics
/// For a hand size other than 3 or 5 (the sizes a key table holds).
#[must_use]
pub fn all_hands(hand_size: usize) -> Vec<u8> {
    match hand_size {
        3 => crate::games::showdown::all_hands::<3>().concat(),
        5 => crate::games::showdown::all_hands::<5>().concat(),
        _ => panic!("all_hands: {hand_size}-card hands are not tabled (3 or 5)"),
    }
}

/// The colex index of a hand given in any order, or `None` when a card is out of range or
/// repeated.
#[inline]
#[must_use]
pub fn colex_of_unsorted(hand: &[u8]) -> Option<usize> {
    let mut mask = 0u64;
    let mut high = 0u8;
    for &c in hand {
        mask |= 1u64 << (c & 63);
        high |= c;
    }
    // Any card >= 64 sets bit 6 or 7 of `high`; 52..63 set bits 52..63 of the mask.
    if high >= 64 || mask >> DECK_SIZE != 0 || mask.count_ones() as usize != hand.len() {
        return None;
    }
    let mut index = 0u64;
    for i in 1..=hand.len() {
        let c = mask.trailing_zeros() as usize;
        index += enumerate::choose(c, i);
        mask &= mask - 1;
    }
    Some(index as usize)
}

/// Why a hand that has no colex index is bad (the cold path).
#[cold]
fn explain(hand: &[u8]) -> CardError {
    match crate::cards::check_distinct(hand) {
        Err(e) => e,
        Ok(()) => CardError::WrongSize {
            expected: hand.len(),
            got: hand.len(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{rank3, rank5};

    fn lcg_hands(n: usize, size: usize, mut seed: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(n * size);
        for _ in 0..n {
            let mut deck: Vec<u8> = (0..52).collect();
            for i in 0..size {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let j = i + ((seed >> 33) as usize % (52 - i));
                deck.swap(i, j);
                out.push(deck[i]);
            }
        }
        out
    }

    #[test]
    fn lookup_agrees_with_direct_evaluation() {
        for tb in [TieBreaks::STATUTE, TieBreaks::RANK_ONLY] {
            let t5 = KeyTable::new(5, &tb).unwrap();
            let t3 = KeyTable::new(3, &tb).unwrap();
            let h5 = lcg_hands(20_000, 5, 7);
            let h3 = lcg_hands(20_000, 3, 9);
            for hand in h5.chunks_exact(5) {
                let mut sorted: [u8; 5] = hand.try_into().unwrap();
                sorted.sort_unstable();
                assert_eq!(t5.key(hand).unwrap(), rank5::key_sorted(&sorted, &tb));
            }
            for hand in h3.chunks_exact(3) {
                let mut sorted: [u8; 3] = hand.try_into().unwrap();
                sorted.sort_unstable();
                assert_eq!(t3.key(hand).unwrap(), rank3::key_sorted(&sorted, &tb));
            }
        }
    }

    #[test]
    fn colex_of_unsorted_is_the_sorted_colex_index() {
        let hands = lcg_hands(5_000, 5, 11);
        for hand in hands.chunks_exact(5) {
            let mut sorted = hand.to_vec();
            sorted.sort_unstable();
            assert_eq!(
                colex_of_unsorted(hand),
                Some(enumerate::colex_index(&sorted) as usize)
            );
        }
    }

    #[test]
    fn bad_hands_are_refused_with_their_row() {
        let t = KeyTable::new(5, &TieBreaks::STATUTE).unwrap();
        for bad in [
            [0, 1, 2, 3, 52],
            [0, 1, 2, 3, 63],
            [0, 1, 2, 3, 64],
            [0, 1, 2, 3, 255],
            [0, 1, 2, 3, 3],
            [7, 7, 7, 7, 7],
        ] {
            assert!(colex_of_unsorted(&bad).is_none(), "{bad:?}");
            let mut cards = lcg_hands(100_000, 5, 3);
            cards[5 * 70_001..5 * 70_002].copy_from_slice(&bad);
            let mut out = vec![0u32; 100_000];
            let err = t.keys_into(&cards, &mut out).unwrap_err();
            assert_eq!(err.row, 70_001);
            let err = t.keys_into_sequential(&cards, &mut out).unwrap_err();
            assert_eq!(err.row, 70_001);
        }
    }

    #[test]
    fn parallel_equals_sequential() {
        let t = KeyTable::new(5, &TieBreaks::STATUTE).unwrap();
        let cards = lcg_hands(200_003, 5, 5);
        let mut a = vec![0u32; 200_003];
        let mut b = vec![0u32; 200_003];
        t.keys_into(&cards, &mut a).unwrap();
        t.keys_into_sequential(&cards, &mut b).unwrap();
        assert_eq!(a, b);
    }
}
