//! Exhaustive enumeration of every 3- and 5-card hand, in colex order, on rayon.
//!
//! Colex order puts hand {c0 < c1 < .. < c(k-1)} at index `sum C(ci, i+1)`, so all hands
//! whose highest card is `m` form the contiguous block `C(m, k) .. C(m+1, k)`: each rayon task
//! fills one block of the key table, with no synchronisation.

use rayon::prelude::*;

use crate::cards::DECK_SIZE;
use crate::ranking::{category, TieBreaks};
use crate::{rank3, rank5};

/// Binomial coefficients C(n, k) for n <= 52, k <= 7.
pub const BINOMIAL: [[u64; 8]; DECK_SIZE + 1] = {
    let mut t = [[0u64; 8]; DECK_SIZE + 1];
    let mut n = 0;
    while n <= DECK_SIZE {
        t[n][0] = 1;
        let mut k = 1;
        while k < 8 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

#[inline]
#[must_use]
pub const fn choose(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
}

/// The colex index of a sorted hand.
#[must_use]
pub fn colex_index(sorted: &[u8]) -> u64 {
    sorted
        .iter()
        .enumerate()
        .map(|(i, &c)| choose(c as usize, i + 1))
        .sum()
}

/// Every 3-card hand's strength key, indexed by colex index (22,100 entries).
#[must_use]
pub fn keys3(tb: &TieBreaks) -> Vec<u32> {
    let mut keys = vec![0u32; choose(DECK_SIZE, 3) as usize];
    let mut blocks = split_blocks(&mut keys, 3);
    blocks.par_iter_mut().for_each(|(top, block)| {
        let c2 = *top;
        let mut i = 0;
        for c1 in 1..c2 {
            for c0 in 0..c1 {
                block[i] = rank3::key_sorted(&[c0, c1, c2], tb);
                i += 1;
            }
        }
    });
    keys
}

/// Every 5-card hand's strength key, indexed by colex index (2,598,960 entries).
#[must_use]
pub fn keys5(tb: &TieBreaks) -> Vec<u32> {
    let mut keys = vec![0u32; choose(DECK_SIZE, 5) as usize];
    let mut blocks = split_blocks(&mut keys, 5);
    blocks.par_iter_mut().for_each(|(top, block)| {
        let c4 = *top;
        let mut i = 0;
        for c3 in 3..c4 {
            for c2 in 2..c3 {
                for c1 in 1..c2 {
                    for c0 in 0..c1 {
                        block[i] = rank5::key_sorted(&[c0, c1, c2, c3, c4], tb);
                        i += 1;
                    }
                }
            }
        }
    });
    keys
}

/// Split a colex-ordered table of k-card hands into one block per highest card.
fn split_blocks(table: &mut [u32], k: usize) -> Vec<(u8, &mut [u32])> {
    let mut blocks = Vec::with_capacity(DECK_SIZE);
    let mut rest = table;
    for top in (k - 1)..DECK_SIZE {
        let len = choose(top, k - 1) as usize;
        let (block, tail) = rest.split_at_mut(len);
        blocks.push((top as u8, block));
        rest = tail;
    }
    blocks
}

/// How many keys fall in each category.
#[must_use]
pub fn category_counts(keys: &[u32], categories: usize) -> Vec<u64> {
    keys.par_chunks(1 << 16)
        .map(|chunk| {
            let mut counts = vec![0u64; categories];
            for &k in chunk {
                counts[category(k) as usize] += 1;
            }
            counts
        })
        .reduce(
            || vec![0u64; categories],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// The hand at a colex index, as sorted card ids (the inverse of `colex_index`).
#[must_use]
pub fn hand_at(mut index: u64, k: usize) -> Vec<u8> {
    let mut hand = vec![0u8; k];
    for i in (0..k).rev() {
        let mut c = i;
        while choose(c + 1, i + 1) <= index {
            c += 1;
        }
        hand[i] = c as u8;
        index -= choose(c, i + 1);
    }
    hand
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::TieBreaks;

    #[test]
    fn five_card_category_counts() {
        let counts = category_counts(&keys5(&TieBreaks::STATUTE), rank5::CATEGORIES);
        assert_eq!(
            counts,
            [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 36, 4]
        );
    }

    #[test]
    fn three_card_category_counts() {
        let counts = category_counts(&keys3(&TieBreaks::STATUTE), rank3::CATEGORIES);
        assert_eq!(counts, [16_440, 3_744, 1_096, 720, 52, 48]);
    }

    #[test]
    fn colex_round_trip() {
        for index in [0u64, 1, 2, 1000, 2_598_959] {
            assert_eq!(colex_index(&hand_at(index, 5)), index);
        }
        assert_eq!(hand_at(0, 3), vec![0, 1, 2]);
        assert_eq!(hand_at(22_099, 3), vec![49, 50, 51]);
    }

    /// Hands with equal keys must share a card: no two disjoint hands ever tie.
    fn assert_no_disjoint_ties(keys: &[u32], k: usize) {
        let mut entries: Vec<(u32, u64)> = keys
            .iter()
            .enumerate()
            .map(|(i, &key)| {
                (
                    key,
                    hand_at(i as u64, k).iter().fold(0u64, |m, &c| m | 1 << c),
                )
            })
            .collect();
        entries.sort_unstable();
        let mut start = 0;
        while start < entries.len() {
            let mut end = start + 1;
            while end < entries.len() && entries[end].0 == entries[start].0 {
                end += 1;
            }
            for a in start..end {
                for b in a + 1..end {
                    assert_ne!(
                        entries[a].1 & entries[b].1,
                        0,
                        "disjoint hands tie on key {:#x}",
                        entries[a].0
                    );
                }
            }
            start = end;
        }
    }

    #[test]
    fn no_two_disjoint_three_card_hands_tie_under_the_statute() {
        assert_no_disjoint_ties(&keys3(&TieBreaks::STATUTE), 3);
    }

    #[test]
    fn no_two_disjoint_five_card_hands_tie_under_the_statute() {
        assert_no_disjoint_ties(&keys5(&TieBreaks::STATUTE), 5);
    }

    /// Diamonds first (the reverse of the statutes' order): the same categories, still no
    /// disjoint ties, and the suit that decides a pair's kicker follows the order.
    #[test]
    fn a_suit_order_from_the_rule_file_decides() {
        let reversed = TieBreaks {
            suit_rank: [3, 2, 1, 0],
            ..TieBreaks::STATUTE
        };
        let keys = keys3(&reversed);
        assert_eq!(
            category_counts(&keys, rank3::CATEGORIES),
            [16_440, 3_744, 1_096, 720, 52, 48]
        );
        assert_no_disjoint_ties(&keys, 3);
        let (a, b) = ([31, 30, 12], [29, 28, 15]); // 9s 9h 5d, 9c 9d 5s
        assert!(rank3::key(a, &TieBreaks::STATUTE) < rank3::key(b, &TieBreaks::STATUTE));
        assert!(rank3::key(a, &reversed) > rank3::key(b, &reversed));
        // Caribbean Stud: the suit of a pair is its higher suit in the file's order.
        let (p, q) = ([31, 28, 12, 4, 0], [30, 29, 13, 5, 1]); // 9s 9d .. vs 9h 9c ..
        assert!(rank5::key(p, &TieBreaks::STATUTE) > rank5::key(q, &TieBreaks::STATUTE));
        assert!(rank5::key(p, &reversed) > rank5::key(q, &reversed));
        let hearts_first = TieBreaks {
            suit_rank: [0, 1, 3, 2],
            ..TieBreaks::STATUTE
        };
        assert!(rank5::key(p, &hearts_first) < rank5::key(q, &hearts_first));
    }

    #[test]
    fn rank_only_rules_do_tie() {
        let keys = keys3(&TieBreaks::RANK_ONLY);
        let a = keys[colex_index(&[0, 4, 8]) as usize]; // 2d 3d 4d
        let b = keys[colex_index(&[1, 5, 9]) as usize]; // 2c 3c 4c
        assert_eq!(a, b);
    }
}
