//! Exact showdown counts for every player hand against every dealer hand it can meet, without
//! enumerating the pairs.
//!
//! All hands are visited once in strength-key order. For every card set `S` of at most
//! `max_subset` cards, a histogram row counts the hands seen so far that contain `S` (per
//! "lane": one lane for a plain count, or one lane per card `u` counting the hands that also
//! hold `u`, for Caribbean Stud's dealer upcard). The number of dealer hands disjoint from a
//! player hand `P` (and holding `u`) that rank below `P` is then, by inclusion–exclusion over
//! the subsets of `P`, `sum over S ⊆ P of (-1)^|S| * row[S][u]`. Hands with equal keys always
//! share a card under the statute, so they cancel out of that sum; rank-only ties between
//! disjoint hands are found by querying before and after each group of equal ranks.

use crate::cards::DECK_SIZE;
use crate::enumerate::choose;
use crate::ranking::TieBreaks;

/// The statute key with its suit field cleared: the standard rank-only comparison.
#[inline]
#[must_use]
pub const fn ranks_only(key: u32) -> u32 {
    key & !3
}

/// The lowest rank-only key with which the dealer qualifies: a high card with these top ranks
/// (0 = 2 .. 12 = A; Q-high is `[10]`, A-K is `[12, 11]`). High card is category 0 in both
/// orderings.
#[must_use]
pub fn qualifier_key(top_ranks: &[u8]) -> u32 {
    crate::ranking::pack(0, top_ranks, 0)
}

/// Every `k`-card hand as sorted card ids, in colex order (the order of `enumerate::keys3/5`).
#[must_use]
pub fn all_hands<const K: usize>() -> Vec<[u8; K]> {
    let mut hands = Vec::with_capacity(choose(DECK_SIZE, K) as usize);
    let mut c: [u8; K] = std::array::from_fn(|i| i as u8);
    loop {
        hands.push(c);
        // Colex successor: raise the lowest card that can rise, reset the ones below it.
        let mut i = 0;
        while i < K {
            let limit = if i + 1 < K { c[i + 1] } else { DECK_SIZE as u8 };
            if c[i] + 1 < limit {
                c[i] += 1;
                for (j, card) in c.iter_mut().enumerate().take(i) {
                    *card = j as u8;
                }
                break;
            }
            i += 1;
        }
        if i == K {
            return hands;
        }
    }
}

/// Where each subset size starts in the histogram: size 0 at row 0, then all singletons, ...
fn size_offsets(max_subset: usize) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(max_subset + 2);
    let mut total = 0usize;
    for size in 0..=max_subset {
        offsets.push(total);
        total += choose(DECK_SIZE, size) as usize;
    }
    offsets.push(total);
    offsets
}

/// The histogram rows (and inclusion–exclusion signs) of the subsets of a sorted hand.
fn subset_rows<const K: usize>(
    hand: &[u8; K],
    offsets: &[usize],
    max_subset: usize,
    out: &mut Vec<(usize, bool)>,
) {
    out.clear();
    for mask in 0u32..(1 << K) {
        let size = mask.count_ones() as usize;
        if size > max_subset {
            continue;
        }
        let mut index = 0u64;
        let mut position = 0;
        for (i, &card) in hand.iter().enumerate() {
            if mask & (1 << i) != 0 {
                position += 1;
                index += choose(card as usize, position);
            }
        }
        out.push((offsets[size] + index as usize, size % 2 == 1));
    }
}

/// What the histogram counts per subset row.
#[derive(Clone, Copy, Debug)]
pub enum Lanes {
    /// One lane: how many hands contain the subset.
    Count,
    /// One lane per card id in `start..end`: how many hands contain the subset and that card.
    Cards { start: usize, end: usize },
}

impl Lanes {
    fn width(self) -> usize {
        match self {
            Lanes::Count => 1,
            Lanes::Cards { start, end } => end - start,
        }
    }
}

/// Per lane, the counts of dealer hands disjoint from the player hand (and holding the lane's
/// card): `not_qualifying`; `below` (rank-only key below the player's); `below_or_equal`;
/// `below_statute` (statute key below). For a player hand that does not itself qualify only
/// `not_qualifying` is filled (every qualifying dealer hand beats it).
pub struct Counts<'a> {
    pub qualifies: bool,
    pub not_qualifying: &'a [i32],
    pub below: &'a [i32],
    pub below_or_equal: &'a [i32],
    pub below_statute: &'a [i32],
}

struct Histogram {
    lanes: Lanes,
    width: usize,
    rows: Vec<i32>,
}

impl Histogram {
    fn new(lanes: Lanes, rows: usize) -> Self {
        let width = lanes.width();
        Histogram {
            lanes,
            width,
            rows: vec![0; rows * width],
        }
    }

    fn insert<const K: usize>(&mut self, hand: &[u8; K], subsets: &[(usize, bool)]) {
        let w = self.width;
        for &(row, _) in subsets {
            let r = &mut self.rows[row * w..(row + 1) * w];
            match self.lanes {
                Lanes::Count => r[0] += 1,
                Lanes::Cards { start, end } => {
                    for &c in hand {
                        let c = c as usize;
                        if (start..end).contains(&c) {
                            r[c - start] += 1;
                        }
                    }
                }
            }
        }
    }

    fn query(&self, subsets: &[(usize, bool)], out: &mut [i32]) {
        let w = self.width;
        out.fill(0);
        for &(row, odd) in subsets {
            let r = &self.rows[row * w..(row + 1) * w];
            if odd {
                out.iter_mut().zip(r).for_each(|(o, x)| *o -= x);
            } else {
                out.iter_mut().zip(r).for_each(|(o, x)| *o += x);
            }
        }
    }
}

/// Visit every hand (as player hand) with its showdown counts, in key order.
///
/// `keys` are statute keys in colex order, `order` the colex indices sorted by key,
/// `qualifier` the lowest rank-only key with which the dealer qualifies, `max_subset` the
/// largest subset that can be contained in a dealer hand disjoint from the player (and its
/// upcard). `visit(colex_index, hand, counts)` is called once per hand.
pub fn sweep<const K: usize, F>(
    hands: &[[u8; K]],
    keys: &[u32],
    order: &[u32],
    qualifier: u32,
    max_subset: usize,
    lanes: Lanes,
    mut visit: F,
) where
    F: FnMut(usize, &[u8; K], &Counts<'_>),
{
    let offsets = size_offsets(max_subset);
    let mut hist = Histogram::new(lanes, offsets[max_subset + 1]);
    let w = hist.width;
    let mut subsets = Vec::with_capacity(1 << K);
    let split = order.partition_point(|&i| ranks_only(keys[i as usize]) < qualifier);

    // Dealer hands that do not qualify, then a snapshot of their histogram.
    for &i in &order[..split] {
        let hand = &hands[i as usize];
        subset_rows(hand, &offsets, max_subset, &mut subsets);
        hist.insert(hand, &subsets);
    }
    let not_qualifying = Histogram {
        lanes,
        width: w,
        rows: hist.rows.clone(),
    };
    let zeros = vec![0i32; w];
    let mut nq = vec![0i32; w];
    for &i in &order[..split] {
        let hand = &hands[i as usize];
        subset_rows(hand, &offsets, max_subset, &mut subsets);
        not_qualifying.query(&subsets, &mut nq);
        let counts = Counts {
            qualifies: false,
            not_qualifying: &nq,
            below: &zeros,
            below_or_equal: &zeros,
            below_statute: &zeros,
        };
        visit(i as usize, hand, &counts);
    }

    // Qualifying hands, one group of equal ranks at a time.
    let mut start = split;
    let mut below = Vec::new();
    let mut statute = Vec::new();
    let mut upper = vec![0i32; w];
    while start < order.len() {
        let group_key = ranks_only(keys[order[start] as usize]);
        let mut end = start + 1;
        while end < order.len() && ranks_only(keys[order[end] as usize]) == group_key {
            end += 1;
        }
        let group = &order[start..end];
        below.resize(group.len() * w, 0);
        statute.resize(group.len() * w, 0);
        for (g, &i) in group.iter().enumerate() {
            subset_rows(&hands[i as usize], &offsets, max_subset, &mut subsets);
            hist.query(&subsets, &mut below[g * w..(g + 1) * w]);
        }
        for (g, &i) in group.iter().enumerate() {
            let hand = &hands[i as usize];
            subset_rows(hand, &offsets, max_subset, &mut subsets);
            hist.query(&subsets, &mut statute[g * w..(g + 1) * w]);
            hist.insert(hand, &subsets);
        }
        for (g, &i) in group.iter().enumerate() {
            let hand = &hands[i as usize];
            subset_rows(hand, &offsets, max_subset, &mut subsets);
            hist.query(&subsets, &mut upper);
            not_qualifying.query(&subsets, &mut nq);
            let counts = Counts {
                qualifies: true,
                not_qualifying: &nq,
                below: &below[g * w..(g + 1) * w],
                below_or_equal: &upper,
                below_statute: &statute[g * w..(g + 1) * w],
            };
            visit(i as usize, hand, &counts);
        }
        start = end;
    }
}

/// The sweep's inputs for `k`-card hands: statute keys with suits always resolved (callers
/// apply rank-only rules from the counts), every hand in colex order, and the key order.
#[must_use]
pub fn statute_tables<const K: usize>(
    tie_breaks: &TieBreaks,
    keys_of: fn(&TieBreaks) -> Vec<u32>,
) -> (Vec<u32>, Vec<[u8; K]>, Vec<u32>) {
    let tb = TieBreaks {
        suit_decides: true,
        ..*tie_breaks
    };
    let keys = keys_of(&tb);
    let order = key_order(&keys);
    (keys, all_hands::<K>(), order)
}

/// Colex indices of all hands sorted by key (ties by index, so the order is deterministic).
#[must_use]
pub fn key_order(keys: &[u32]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (keys[i as usize], i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enumerate::{colex_index, keys3};

    #[test]
    fn all_hands_are_in_colex_order() {
        let hands = all_hands::<3>();
        assert_eq!(hands.len(), 22_100);
        for (i, h) in hands.iter().enumerate().step_by(97) {
            assert_eq!(colex_index(h) as usize, i);
        }
    }

    /// The sweep's counts equal a direct pairwise count on every 3-card hand.
    #[test]
    fn sweep_matches_pairwise_counts() {
        let keys = keys3(&TieBreaks::STATUTE);
        let hands = all_hands::<3>();
        let order = key_order(&keys);
        let qualifier = crate::ranking::pack(0, &[10], 0);
        let mask = |h: &[u8; 3]| h.iter().fold(0u64, |m, &c| m | 1 << c);
        let mut checked = 0;
        sweep(
            &hands,
            &keys,
            &order,
            qualifier,
            3,
            Lanes::Count,
            |i, h, c| {
                if i % 211 != 0 {
                    return;
                }
                let (mut nq, mut below, mut le, mut st) = (0, 0, 0, 0);
                for (j, d) in hands.iter().enumerate() {
                    if mask(d) & mask(h) != 0 {
                        continue;
                    }
                    let (kd, kp) = (keys[j], keys[i]);
                    nq += i32::from(ranks_only(kd) < qualifier);
                    below += i32::from(ranks_only(kd) < ranks_only(kp));
                    le += i32::from(ranks_only(kd) <= ranks_only(kp));
                    st += i32::from(kd < kp);
                }
                assert_eq!(c.not_qualifying[0], nq);
                if c.qualifies {
                    assert_eq!(
                        (c.below[0], c.below_or_equal[0], c.below_statute[0]),
                        (below, le, st)
                    );
                }
                checked += 1;
            },
        );
        assert_eq!(checked, 22_100_usize.div_ceil(211));
    }
}
