//! A cache-resident form of the key table: rank classes plus one suit rule per class.
//!
//! The exhaustive table (10 MB for five cards) answers any hand with one lookup, but a random
//! lookup in 10 MB waits on memory whenever other work shares the cache. Every key is a rank
//! part (category and rank fields: the same for all hands of one rank multiset, or of one
//! flush rank mask) plus a suit field taken from one card: for each class the key's suit field
//! is the suit of the cards of one rank, the highest or lowest of them by id or by the rule
//! file's suit order, or nothing. That rule is not written here: it is *derived* from the
//! exhaustive table, class by class, and the derivation checks every hand of every class, so
//! the compact form gives exactly the table's keys or is not used at all (see
//! [`CompactKeys::derive`]). Its tables take 115 KB (five cards) and stay in the L2 cache.

use rayon::prelude::*;

use crate::cards::DECK_SIZE;
use crate::enumerate::{choose, hand_at};
use crate::ranking::TieBreaks;

/// How the suit field of one class is found.
const NONE: u8 = 0;
/// Modes 1..=4 come with a rank: the field of the highest / lowest suit id among that rank's
/// cards, or the highest / lowest field among them (`select_table` in that order).
const MODES: u8 = 5;

const SUIT_FIELD: u32 = 3;

/// While deriving, per class: the base key (`u32::MAX`: no hand seen yet) and the candidate
/// suit rules still standing; per table, whether every class's base keys agreed.
type Derivation = (Vec<(u32, u64)>, Vec<(u32, u64)>, bool);

/// One class: its key without the suit field, and where the suit field comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    base: u32,
    rank: u8,
    mode: u8,
}

/// The compact evaluator of one hand size under one ordering.
#[derive(Clone, Debug)]
pub struct CompactKeys {
    hand_size: usize,
    /// Non-flush hands, by the perfect hash of their rank multiset.
    multiset: Vec<Entry>,
    /// Flushes, by their 13-bit rank mask.
    flush: Vec<Entry>,
    /// `select[mode][suits]`: the suit field for a mode and the 4-bit set of suits holding the
    /// class's rank.
    select: [[u8; 16]; MODES as usize],
}

/// `MULTISET_STEP[position][rank]` = C(rank + position, position + 1): the perfect hash of a
/// sorted rank multiset is the sum of one step per card.
const MULTISET_STEP: [[u32; 13]; 5] = {
    let mut t = [[0u32; 13]; 5];
    let mut p = 0;
    while p < 5 {
        let mut r = 0;
        while r < 13 {
            t[p][r] = choose(r + p, p + 1) as u32;
            r += 1;
        }
        p += 1;
    }
    t
};

/// `MULTISET_RUN[position][rank][k]`: the steps of `k` cards of one rank starting at
/// `position`, summed (one lookup per distinct rank instead of one per card).
const MULTISET_RUN: [[[u32; 5]; 13]; 6] = {
    let mut t = [[[0u32; 5]; 13]; 6];
    let mut p = 0;
    while p < 5 {
        let mut r = 0;
        while r < 13 {
            let mut k = 1;
            while k < 5 && p + k <= 5 {
                t[p][r][k] = t[p][r][k - 1] + MULTISET_STEP[p + k - 1][r];
                k += 1;
            }
            r += 1;
        }
        p += 1;
    }
    t
};

/// Sort up to five values in place with a fixed network of compare-exchanges (min/max, no
/// data-dependent branches).
#[inline]
fn sort_network<const N: usize>(v: &mut [u8; N]) {
    #[inline]
    fn exchange<const N: usize>(v: &mut [u8; N], i: usize, j: usize) {
        let (a, b) = (v[i], v[j]);
        v[i] = a.min(b);
        v[j] = a.max(b);
    }
    match N {
        3 => {
            exchange(v, 0, 1);
            exchange(v, 1, 2);
            exchange(v, 0, 1);
        }
        5 => {
            for (i, j) in [
                (0, 1),
                (3, 4),
                (2, 4),
                (2, 3),
                (0, 3),
                (0, 2),
                (1, 4),
                (1, 3),
                (1, 2),
            ] {
                exchange(v, i, j);
            }
        }
        _ => v.sort_unstable(),
    }
}

/// Per hand: the rank counts (3 bits per rank), the rank mask of each suit.
#[inline]
fn shape(hand: &[u8]) -> (u64, [u16; 4]) {
    let mut counts = 0u64;
    let mut by_suit = [0u16; 4];
    for &c in hand {
        counts += 1 << (3 * (c >> 2));
        by_suit[usize::from(c & 3)] |= 1 << (c >> 2);
    }
    (counts, by_suit)
}

/// The perfect hash of a rank multiset (combinatorial number system of multisets: the i-th
/// smallest rank plus i is strictly increasing).
#[inline]
fn multiset_index(mut counts: u64) -> usize {
    let mut index = 0u64;
    let mut position = 0usize;
    while counts != 0 {
        let slot = (counts.trailing_zeros() / 3) as usize;
        let k = ((counts >> (3 * slot)) & 7) as usize;
        index += u64::from(MULTISET_RUN[position][slot][k]);
        position += k;
        counts &= !(7 << (3 * slot));
    }
    index as usize
}

/// The class of a hand: `(true, flush mask)` or `(false, multiset index)`.
#[inline]
fn class_of(hand_size: usize, counts: u64, by_suit: &[u16; 4]) -> (bool, usize) {
    for &mask in by_suit {
        if mask.count_ones() as usize == hand_size {
            return (true, usize::from(mask));
        }
    }
    (false, multiset_index(counts))
}

/// The 4-bit set of suits holding rank `r`.
#[inline]
fn suits_of_rank(by_suit: &[u16; 4], r: u8) -> usize {
    usize::from(
        (by_suit[0] >> r) & 1
            | ((by_suit[1] >> r) & 1) << 1
            | ((by_suit[2] >> r) & 1) << 2
            | ((by_suit[3] >> r) & 1) << 3,
    )
}

// `v` is the set of suits as well as the index.
#[allow(clippy::needless_range_loop)]
fn select_table(tb: &TieBreaks) -> [[u8; 16]; MODES as usize] {
    let field = |s: usize| tb.suit(s as u8) as u8;
    let mut select = [[0u8; 16]; MODES as usize];
    for v in 1..16usize {
        let suits: Vec<usize> = (0..4).filter(|s| v >> s & 1 == 1).collect();
        let max_id = *suits.last().expect("non-empty");
        let min_id = suits[0];
        let fields = suits.iter().map(|&s| field(s));
        let chosen = [
            0,
            field(max_id),
            field(min_id),
            fields.clone().max().unwrap_or(0),
            fields.min().unwrap_or(0),
        ];
        for (mode, value) in chosen.into_iter().enumerate() {
            select[mode][v] = value;
        }
    }
    select
}

/// Candidate (rank, mode) pairs as bits: bit 0 is "no suit field", bit 1 + 4 * rank + (mode - 1)
/// the mode with a rank.
fn candidates(key: u32, hand: &[u8], select: &[[u8; 16]; MODES as usize]) -> u64 {
    let (_, by_suit) = shape(hand);
    let field = (key & SUIT_FIELD) as u8;
    let mut bits = u64::from(field == 0);
    let mut ranks = by_suit.iter().fold(0u16, |m, &x| m | x);
    while ranks != 0 {
        let r = ranks.trailing_zeros() as u8;
        let v = suits_of_rank(&by_suit, r);
        for mode in 1..MODES {
            if select[usize::from(mode)][v] == field {
                bits |= 1 << (1 + 4 * u32::from(r) + u32::from(mode - 1));
            }
        }
        ranks &= ranks - 1;
    }
    bits
}

impl CompactKeys {
    /// Derive the compact form from the exhaustive table `keys` (colex order) of `hand_size`
    /// cards under `tb`, checking every hand; `None` when some class's keys differ in more than
    /// the suit field or follow no single suit rule (the exhaustive table is then used).
    #[must_use]
    pub fn derive(keys: &[u32], hand_size: usize, tb: &TieBreaks) -> Option<Self> {
        let select = select_table(tb);
        let multisets = choose(13 + hand_size - 1, hand_size) as usize;
        // Per class: the base key (u32::MAX: not seen yet) and the candidates still standing.
        let fold = |mut acc: Derivation, index: usize| {
            let hand = hand_at(index as u64, hand_size);
            let key = keys[index];
            let (counts, by_suit) = shape(&hand);
            let (flush, class) = class_of(hand_size, counts, &by_suit);
            let slot = if flush {
                &mut acc.1[class]
            } else {
                &mut acc.0[class]
            };
            let base = key & !SUIT_FIELD;
            if slot.0 == u32::MAX {
                slot.0 = base;
            } else if slot.0 != base {
                acc.2 = false;
            }
            slot.1 &= candidates(key, &hand, &select);
            acc
        };
        let empty = || {
            (
                vec![(u32::MAX, u64::MAX); multisets],
                vec![(u32::MAX, u64::MAX); 8192],
                true,
            )
        };
        let merge = |mut a: Derivation, b: Derivation| {
            for (x, y) in a.0.iter_mut().zip(&b.0).chain(a.1.iter_mut().zip(&b.1)) {
                if x.0 == u32::MAX {
                    x.0 = y.0;
                } else if y.0 != u32::MAX && y.0 != x.0 {
                    a.2 = false;
                }
                x.1 &= y.1;
            }
            a.2 &= b.2;
            a
        };
        let (multiset, flush, consistent) = (0..keys.len())
            .into_par_iter()
            .fold(empty, fold)
            .reduce(empty, merge);
        if !consistent {
            return None;
        }
        let entry = |(base, bits): (u32, u64)| -> Option<Entry> {
            if base == u32::MAX {
                return Some(Entry::default()); // no hand has this class
            }
            if bits == 0 {
                return None;
            }
            let bit = bits.trailing_zeros();
            Some(if bit == 0 {
                Entry {
                    base,
                    rank: 0,
                    mode: NONE,
                }
            } else {
                Entry {
                    base,
                    rank: ((bit - 1) / 4) as u8,
                    mode: ((bit - 1) % 4 + 1) as u8,
                }
            })
        };
        let multiset: Option<Vec<Entry>> = multiset.into_iter().map(entry).collect();
        let flush: Option<Vec<Entry>> = flush.into_iter().map(entry).collect();
        let compact = Self {
            hand_size,
            multiset: multiset?,
            flush: flush?,
            select,
        };
        // The derivation already checked every hand; this check runs the evaluation path
        // itself over every hand, making the equality with the table a fact of every build,
        // not of the derivation's logic.
        let same = (0..keys.len())
            .into_par_iter()
            .all(|index| compact.key(&hand_at(index as u64, hand_size)) == Some(keys[index]));
        same.then_some(compact)
    }

    /// The key of a hand of a size known at compile time, or `None` when a card is out of
    /// range or repeated. Distinct cards below 52: the bits 1 << card, OR-ed and added, agree
    /// (no carry) and stay below bit 52 (no popcount: the core is built for baseline x86-64).
    /// Branch-free but for the validity and flush tests (the ranks sorted by a sorting network, no loops over
    /// counts), so random hands cost no mispredicted branches.
    #[inline]
    #[must_use]
    pub fn key_array<const N: usize>(&self, hand: &[u8; N]) -> Option<u32> {
        let (mut or, mut sum, mut high, mut suits, mut rank_mask) = (0u64, 0u64, 0u8, 0u8, 0u16);
        let mut ranks = [0u8; N];
        for (r, &c) in ranks.iter_mut().zip(hand) {
            let bit = 1u64 << (c & 63);
            or |= bit;
            sum = sum.wrapping_add(bit);
            high |= c;
            suits |= 1 << (c & 3);
            *r = (c >> 2) & 15;
            rank_mask |= 1 << *r;
        }
        if high >= 64 || or != sum || or >> DECK_SIZE != 0 || N != self.hand_size {
            return None;
        }
        let e = if suits.is_power_of_two() {
            self.flush[usize::from(rank_mask & 0x1fff)]
        } else {
            sort_network(&mut ranks);
            let mut index = 0u32;
            for (position, &r) in ranks.iter().enumerate() {
                index += MULTISET_STEP[position][usize::from(r)];
            }
            self.multiset[index as usize]
        };
        if e.mode == NONE {
            return Some(e.base);
        }
        let mut v = 0usize;
        for &c in hand {
            v |= usize::from((c >> 2) == e.rank) << (c & 3);
        }
        Some(e.base | u32::from(self.select[usize::from(e.mode)][v]))
    }

    /// The key of a hand, or `None` when a card is out of range or repeated or the hand has
    /// the wrong size (the path [`CompactKeys::key_array`] takes, for any slice).
    #[inline]
    #[must_use]
    pub fn key(&self, hand: &[u8]) -> Option<u32> {
        match hand.len() {
            3 => self.key_array::<3>(hand.try_into().ok()?),
            5 => self.key_array::<5>(hand.try_into().ok()?),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enumerate::{keys3, keys5};
    use crate::ranking::{AceLowStraightSuit, PairSuit};

    fn every_rule_variant() -> Vec<TieBreaks> {
        let mut out = vec![];
        for suit_decides in [true, false] {
            for ace_low_straight_suit in
                [AceLowStraightSuit::TopOfSequence, AceLowStraightSuit::Ace]
            {
                for pair_suit in [PairSuit::Higher, PairSuit::Lower] {
                    for suit_rank in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
                        out.push(TieBreaks {
                            suit_decides,
                            ace_low_straight_suit,
                            pair_suit,
                            suit_rank,
                        });
                    }
                }
            }
        }
        out
    }

    #[test]
    fn derived_for_every_rule_variant_and_equal_to_the_table() {
        // `derive` itself checks every hand against the table; here it must also succeed.
        for tb in every_rule_variant() {
            let k3 = keys3(&tb);
            assert!(CompactKeys::derive(&k3, 3, &tb).is_some(), "3 cards {tb:?}");
        }
        for tb in [TieBreaks::STATUTE, TieBreaks::RANK_ONLY] {
            let k5 = keys5(&tb);
            let compact = CompactKeys::derive(&k5, 5, &tb).expect("5 cards");
            assert_eq!(compact.key(&[51, 48, 50, 49, 47]), Some(k5[2_598_959]));
            let royal = crate::enumerate::colex_index(&[35, 39, 43, 47, 51]) as usize;
            assert_eq!(compact.key(&[51, 47, 43, 39, 35]), Some(k5[royal]));
            assert_eq!(compact.key(&[0, 1, 2, 3, 3]), None);
            assert_eq!(compact.key(&[0, 1, 2, 3, 52]), None);
        }
    }

    #[test]
    fn a_table_no_suit_rule_explains_is_refused() {
        let tb = TieBreaks::STATUTE;
        let mut k3 = keys3(&tb);
        // Give one hand a suit field no card of its class explains consistently.
        k3[1_000] ^= 1;
        assert!(CompactKeys::derive(&k3, 3, &tb).is_none());
        let mut k3 = keys3(&tb);
        k3[2_000] += 1 << 18; // a rank field that differs within a class
        assert!(CompactKeys::derive(&k3, 3, &tb).is_none());
    }
}
