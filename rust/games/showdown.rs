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

use std::ops::Range;

use crate::cards::DECK_SIZE;
use crate::cpu::Avx2;
use crate::enumerate::choose;
use crate::games::stud::histogram::add_bits;
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

/// One subset of a hand: its row among the subsets of its size (colex index), its size, and
/// which of the hand's cards it holds (bit `j` = the hand's `j`-th card).
#[derive(Clone, Copy)]
struct Subset {
    row: u32,
    size: u8,
    mask: u8,
}

/// The rows of the subsets of at most `max_subset` cards of a sorted hand, appended to `out`
/// by size (`BY_SIZE`). A subset's colex index is its index without its highest card plus that
/// card's term, so each of the 2^K indices costs one addition.
fn subset_rows<const K: usize>(hand: &[u8; K], max_subset: usize, out: &mut Vec<Subset>) {
    assert!(K <= 5, "hands of at most 5 cards");
    let mut index = [0u32; 32];
    for mask in 1..1 << K {
        let (top, size) = (TOP_CARD[mask] as usize, SUBSET_SIZE[mask] as usize);
        index[mask] = index[mask & !(1 << top)] + choose(hand[top] as usize, size) as u32;
    }
    for &mask in &BY_SIZE {
        let (mask, size) = (mask as usize, SUBSET_SIZE[mask as usize]);
        if mask < 1 << K && size as usize <= max_subset {
            out.push(Subset {
                row: index[mask],
                size,
                mask: mask as u8,
            });
        }
    }
}

/// The 5-bit masks by number of cards (then value): a hand's subsets come out size by size,
/// so a query reads each size's rows in one run.
const BY_SIZE: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut n = 0;
    let mut size = 0;
    while size <= 5 {
        let mut m = 0;
        while m < 32 {
            if (m as u32).count_ones() == size {
                t[n] = m as u8;
                n += 1;
            }
            m += 1;
        }
        size += 1;
    }
    t
};

/// Cards in each 5-bit mask, and its highest bit (a table: the baseline x86-64 target has no
/// population-count instruction).
const SUBSET_SIZE: [u8; 32] = mask_table(false);
const TOP_CARD: [u8; 32] = mask_table(true);

const fn mask_table(top: bool) -> [u8; 32] {
    let mut t = [0u8; 32];
    let mut m = 1;
    while m < 32 {
        t[m] = if top {
            (m as u32).ilog2()
        } else {
            (m as u32).count_ones()
        } as u8;
        m += 1;
    }
    t
}

/// What the histogram counts per subset row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

    /// The most `K`-card hands one row of a `size`-card subset can count in one lane.
    fn most<const K: usize>(self, size: usize) -> u64 {
        match self {
            Lanes::Count => choose(DECK_SIZE - size, K - size),
            Lanes::Cards { .. } => choose(DECK_SIZE - size - 1, K - size - 1),
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

/// The rows of one subset size, in the narrowest integer that holds the most hands a row can
/// count: the sweep's reads are scattered over the rows, and their size decides whether they
/// stay in the processor's caches (five-card hands with card lanes: 3.5 MB instead of 31 MB).
#[derive(Clone)]
enum Rows {
    /// At most one hand per row and lane (the largest subsets): a bit per lane.
    Bits(Vec<u64>),
    /// At most 255 hands.
    Bytes(Vec<u8>),
    /// At most 65,535 hands.
    Words(Vec<u16>),
}

/// Counts per subset and lane: the empty subset's row (every hand holds it) in `empty`, the
/// rows of each larger size in `rows[size - 1]`.
#[derive(Clone)]
struct Histogram {
    lanes: Lanes,
    width: usize,
    empty: Vec<i32>,
    rows: Vec<Rows>,
    /// Queries run compiled for AVX2, given its proof.
    avx2: Option<Avx2>,
}

impl Histogram {
    fn new<const K: usize>(lanes: Lanes, max_subset: usize) -> Self {
        let width = lanes.width();
        // With card lanes a row counts hands holding its subset and one more card.
        let largest = if lanes == Lanes::Count { K } else { K - 1 };
        assert!(
            max_subset <= largest,
            "subsets of {max_subset} cards with {lanes:?}"
        );
        let rows = (1..=max_subset)
            .map(|size| {
                let n = choose(DECK_SIZE, size) as usize;
                let most = lanes.most::<K>(size);
                if most == 1 && width <= 64 {
                    // A query adds up to C(K, size) such bits per lane in 4 bit planes.
                    assert!(choose(K, size) < 16, "too many bit rows per hand");
                    Rows::Bits(vec![0; n])
                } else if u8::try_from(most).is_ok() {
                    Rows::Bytes(vec![0; n * width])
                } else {
                    assert!(
                        u16::try_from(most).is_ok(),
                        "{K}-card hands overflow 16-bit rows"
                    );
                    Rows::Words(vec![0; n * width])
                }
            })
            .collect();
        Histogram {
            lanes,
            width,
            empty: vec![0; width],
            rows,
            avx2: Avx2::detect(),
        }
    }

    /// Count `hand` in the rows of its subsets. With card lanes, a row's lane for a card of
    /// the subset itself is left out: a query only reads lanes of cards outside the player hand
    /// (whose subsets the rows are), and zeroes the others. A hand is inserted at most once,
    /// so a bit row's lane is never set twice.
    fn insert<const K: usize>(&mut self, hand: &[u8; K], subsets: &[Subset]) {
        let w = self.width;
        // The hand's cards among the lanes, as (bit in the hand, lane); one lane counting
        // every subset without a card lanes.
        let mut lanes = [(0u8, 0usize); K];
        let mut n = 0;
        match self.lanes {
            Lanes::Count => n = 1,
            Lanes::Cards { start, end } => {
                for (j, &c) in hand.iter().enumerate() {
                    let c = c as usize;
                    if (start..end).contains(&c) {
                        lanes[n] = (1 << j, c - start);
                        n += 1;
                    }
                }
            }
        }
        let lanes = &lanes[..n];
        for s in subsets {
            let i = s.row as usize;
            let outside = lanes.iter().filter(|&&(bit, _)| s.mask & bit == 0);
            if s.size == 0 {
                outside.for_each(|&(_, lane)| self.empty[lane] += 1);
                continue;
            }
            match &mut self.rows[s.size as usize - 1] {
                Rows::Bits(r) => outside.for_each(|&(_, lane)| {
                    debug_assert!(r[i] & 1 << lane == 0, "a bit row counts one hand");
                    r[i] |= 1 << lane;
                }),
                Rows::Bytes(r) => outside.for_each(|&(_, lane)| r[i * w + lane] += 1),
                Rows::Words(r) => outside.for_each(|&(_, lane)| r[i * w + lane] += 1),
            }
        }
    }

    /// Insert the hands (colex order) for which `pick(colex index)` holds, in colex order:
    /// inserts commute, and colex neighbours share most of their subsets' rows (the key order
    /// scatters them over the histogram).
    fn insert_colex<const K: usize>(
        &mut self,
        hands: &[[u8; K]],
        max_subset: usize,
        pick: impl Fn(usize) -> bool,
    ) {
        let mut subsets = Vec::with_capacity(1 << K);
        for (i, hand) in hands.iter().enumerate() {
            if pick(i) {
                subsets.clear();
                subset_rows(hand, max_subset, &mut subsets);
                self.insert(hand, &subsets);
            }
        }
    }

    /// `out` = the inclusion–exclusion sum over the hand's subsets (odd sizes subtract).
    /// Where the processor has AVX2 the same code runs compiled for it (twice the lanes per
    /// instruction); the answer is the same integers either way.
    fn query<const K: usize>(&self, hand: &[u8; K], subsets: &[Subset], out: &mut [i32]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2.is_some() {
            // SAFETY: an `Avx2` is made only on a CPU that has AVX2 (`Avx2::detect`).
            unsafe { self.query_avx2(hand, subsets, out) };
            return;
        }
        self.query_lanes(hand, subsets, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn query_avx2<const K: usize>(
        &self,
        hand: &[u8; K],
        subsets: &[Subset],
        out: &mut [i32],
    ) {
        self.query_lanes(hand, subsets, out);
    }

    // Inlined into the AVX2 copy too: a call would run the portable code.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn query_lanes<const K: usize>(&self, hand: &[u8; K], subsets: &[Subset], out: &mut [i32]) {
        let w = self.width;
        out.fill(0);
        // Bit rows are added up first, lane-parallel, in four bit planes per sign. The
        // subsets come size by size: one look-up of the rows and the sign per size.
        let mut planes = [[0u64; 4]; 2];
        let mut rest = subsets;
        while let Some(&first) = rest.first() {
            let same = rest.iter().take_while(|s| s.size == first.size).count();
            let (run, tail) = rest.split_at(same);
            rest = tail;
            let odd = first.size % 2 == 1;
            if first.size == 0 {
                // The empty subset: even, added.
                for _ in run {
                    out.iter_mut().zip(&self.empty).for_each(|(o, x)| *o += x);
                }
                continue;
            }
            match &self.rows[first.size as usize - 1] {
                Rows::Bits(r) => {
                    let planes = &mut planes[usize::from(odd)];
                    for s in run {
                        let mut carry = r[s.row as usize];
                        for plane in planes.iter_mut() {
                            let next = *plane & carry;
                            *plane ^= carry;
                            carry = next;
                        }
                    }
                }
                Rows::Bytes(r) => {
                    for s in run {
                        let i = s.row as usize;
                        add_row(out, &r[i * w..(i + 1) * w], odd);
                    }
                }
                Rows::Words(r) => {
                    for s in run {
                        let i = s.row as usize;
                        add_row(out, &r[i * w..(i + 1) * w], odd);
                    }
                }
            }
        }
        for (sign, planes) in planes.iter().enumerate() {
            for (shift, &plane) in planes.iter().enumerate() {
                if plane != 0 {
                    add_bits(out, plane, shift, sign == 1);
                }
            }
        }
        self.zero_own_cards(hand, out);
    }

    /// `out` = `total` - `out`, lane by lane (the player's own cards' lanes stay 0).
    fn complement<const K: usize>(&self, hand: &[u8; K], total: i32, out: &mut [i32]) {
        for x in out.iter_mut() {
            *x = total - *x;
        }
        self.zero_own_cards(hand, out);
    }

    /// No dealer hand disjoint from the player holds one of the player's cards.
    fn zero_own_cards<const K: usize>(&self, hand: &[u8; K], out: &mut [i32]) {
        if let Lanes::Cards { start, end } = self.lanes {
            for &c in hand {
                let c = c as usize;
                if (start..end).contains(&c) {
                    out[c - start] = 0;
                }
            }
        }
    }
}

/// `out` += `row` lane by lane (`-=` when `subtract`).
#[allow(clippy::inline_always)] // see `query_lanes`
#[inline(always)]
fn add_row<T: Copy + Into<i32>>(out: &mut [i32], row: &[T], subtract: bool) {
    if subtract {
        out.iter_mut().zip(row).for_each(|(o, &x)| *o -= x.into());
    } else {
        out.iter_mut().zip(row).for_each(|(o, &x)| *o += x.into());
    }
}

/// Whether a sweep of `positions` runs down the key order from the top (see [`sweep`]): when
/// fewer qualifying hands lie above the range than below it. `split` is the position of the
/// first qualifying hand, `hands` the number of hands.
#[must_use]
pub fn sweeps_down(positions: &Range<usize>, split: usize, hands: usize) -> bool {
    positions.start.saturating_sub(split) > hands - positions.end
}

/// The qualifying hands outside `positions` that a sweep of them must insert without
/// visiting: those below the range (sweeping up) or above it (sweeping down).
#[must_use]
pub fn outside_inserts(positions: &Range<usize>, split: usize, hands: usize) -> usize {
    positions
        .start
        .saturating_sub(split)
        .min(hands - positions.end)
}

/// The dealer hands that do not qualify, counted in the histogram every sweep starts from:
/// the same for every range of one game, so a process builds it once and sweeps any number
/// of ranges from it ([`sweep_from`]).
#[derive(Clone)]
pub struct NotQualifying {
    hist: Histogram,
    qualifier: u32,
    max_subset: usize,
}

impl NotQualifying {
    /// The histogram of the hands (colex order, statute `keys`) whose rank-only key is below
    /// `qualifier`, over subsets of at most `max_subset` cards, with `lanes`.
    #[must_use]
    pub fn new<const K: usize>(
        hands: &[[u8; K]],
        keys: &[u32],
        qualifier: u32,
        max_subset: usize,
        lanes: Lanes,
    ) -> Self {
        let mut hist = Histogram::new::<K>(lanes, max_subset);
        hist.insert_colex(hands, max_subset, |i| ranks_only(keys[i]) < qualifier);
        NotQualifying {
            hist,
            qualifier,
            max_subset,
        }
    }
}

/// Visit the hands at `positions` of the key order (as player hands) with their showdown
/// counts.
///
/// `keys` are statute keys in colex order, `order` the colex indices sorted by key,
/// `qualifier` the lowest rank-only key with which the dealer qualifies, `max_subset` the
/// largest subset that can be contained in a dealer hand disjoint from the player (and its
/// upcard). `visit(colex_index, hand, counts)` is called once per hand in `positions`
/// (`0..order.len()`: every hand), in no promised order.
#[allow(clippy::too_many_arguments)]
pub fn sweep<const K: usize, F>(
    hands: &[[u8; K]],
    keys: &[u32],
    order: &[u32],
    qualifier: u32,
    max_subset: usize,
    lanes: Lanes,
    positions: Range<usize>,
    visit: F,
) where
    F: FnMut(usize, &[u8; K], &Counts<'_>),
{
    let nq = NotQualifying::new(hands, keys, qualifier, max_subset, lanes);
    sweep_from(hands, keys, order, &nq, positions, visit);
}

/// [`sweep`] from a histogram of the hands that do not qualify built beforehand (for the same
/// `hands` and `keys`).
///
/// The hands that do not qualify are visited against that histogram. A range is then swept
/// up the key order (the qualifying hands below it only inserted: their histogram is what
/// "below" reads) or, when fewer lie above it, down from the top (those above only inserted,
/// and the counts taken as complements of "above": every dealer hand disjoint from the player
/// is below, equal or above). Either way disjoint ranges visit disjoint hands with exactly the
/// counts a whole sweep gives them, and a range costs its own hands plus the fewer of the two
/// sides.
#[allow(clippy::too_many_lines)]
pub fn sweep_from<const K: usize, F>(
    hands: &[[u8; K]],
    keys: &[u32],
    order: &[u32],
    not_qualifying: &NotQualifying,
    positions: Range<usize>,
    mut visit: F,
) where
    F: FnMut(usize, &[u8; K], &Counts<'_>),
{
    let n = order.len();
    assert!(
        positions.start <= positions.end && positions.end <= n,
        "positions {positions:?} of {n}"
    );
    if positions.is_empty() {
        return;
    }
    let (qualifier, max_subset) = (not_qualifying.qualifier, not_qualifying.max_subset);
    let not_qualifying = &not_qualifying.hist;
    let lanes = not_qualifying.lanes;
    let ranks = |p: usize| ranks_only(keys[order[p] as usize]);
    let w = not_qualifying.width;
    let mut subsets = Vec::with_capacity(1 << K);
    let split = order.partition_point(|&i| ranks_only(keys[i as usize]) < qualifier);

    // The visits of the hands in the range that do not qualify, against the dealer hands
    // that do not qualify (all of them: every count reads them).
    let zeros = vec![0i32; w];
    let mut nq = vec![0i32; w];
    for &i in &order[positions.start.min(split)..positions.end.min(split)] {
        let hand = &hands[i as usize];
        subsets.clear();
        subset_rows(hand, max_subset, &mut subsets);
        not_qualifying.query(hand, &subsets, &mut nq);
        let counts = Counts {
            qualifies: false,
            not_qualifying: &nq,
            below: &zeros,
            below_or_equal: &zeros,
            below_statute: &zeros,
        };
        visit(i as usize, hand, &counts);
    }
    if positions.end <= split {
        return;
    }

    // The groups of equal ranks that the range reaches: positions low..high.
    let mut low = positions.start.max(split);
    while low > split && ranks(low - 1) == ranks(low) {
        low -= 1;
    }
    let mut high = positions.end;
    while high < n && ranks(high) == ranks(high - 1) {
        high += 1;
    }
    // The qualifying hands outside them, only inserted (in colex order: inserts commute).
    // Position `p` is before position `b` exactly when (key, colex index) is smaller.
    let down = sweeps_down(&positions, split, n);
    let mut hist = if down {
        Histogram::new::<K>(lanes, max_subset)
    } else {
        not_qualifying.clone()
    };
    let at = |p: usize| (keys[order[p] as usize], order[p]);
    if down && high < n {
        let bound = at(high);
        hist.insert_colex(hands, max_subset, |i| (keys[i], i as u32) >= bound);
    } else if !down && low > split {
        let bound = at(low);
        hist.insert_colex(hands, max_subset, |i| {
            ranks_only(keys[i]) >= qualifier && (keys[i], i as u32) < bound
        });
    }
    // Sweeping down, counts are complements of this total: the dealer hands disjoint from
    // the player (and holding the lane's card).
    let total = match lanes {
        Lanes::Count => choose(DECK_SIZE - K, K),
        Lanes::Cards { .. } => choose(DECK_SIZE - K - 1, K - 1),
    } as i32;

    // One group of equal ranks at a time, each hand's subset rows computed once for the
    // group's three passes: before the group's inserts (strictly below / above its ranks),
    // each member before its own insert (statute key below / above), after them all.
    let per_hand = (0..=max_subset.min(K))
        .map(|s| choose(K, s) as usize)
        .sum::<usize>();
    let mut outer = Vec::new();
    let mut statute = Vec::new();
    let mut inner = vec![0i32; w];
    let mut cursor = if down { high } else { low };
    loop {
        let (start, end) = if down {
            if cursor <= low {
                break;
            }
            let mut start = cursor - 1;
            while start > low && ranks(start - 1) == ranks(cursor - 1) {
                start -= 1;
            }
            (start, cursor)
        } else {
            if cursor >= high {
                break;
            }
            let mut end = cursor + 1;
            while end < high && ranks(end) == ranks(cursor) {
                end += 1;
            }
            (cursor, end)
        };
        cursor = if down { start } else { end };
        let group = &order[start..end];
        subsets.clear();
        for &i in group {
            subset_rows(&hands[i as usize], max_subset, &mut subsets);
        }
        let rows = |g: usize| &subsets[g * per_hand..(g + 1) * per_hand];
        let hand = |g: usize| &hands[group[g] as usize];
        let visited = positions.start.max(start) - start..positions.end.min(end) - start;
        outer.resize(group.len() * w, 0);
        statute.resize(group.len() * w, 0);
        for g in visited.clone() {
            hist.query(hand(g), rows(g), &mut outer[g * w..(g + 1) * w]);
        }
        for step in 0..group.len() {
            let g = if down { group.len() - 1 - step } else { step };
            if visited.contains(&g) {
                hist.query(hand(g), rows(g), &mut statute[g * w..(g + 1) * w]);
            }
            hist.insert(hand(g), rows(g));
        }
        for g in visited {
            hist.query(hand(g), rows(g), &mut inner);
            not_qualifying.query(hand(g), rows(g), &mut nq);
            let (outer, statute) = (
                &mut outer[g * w..(g + 1) * w],
                &mut statute[g * w..(g + 1) * w],
            );
            if down {
                // above -> below: strictly above the ranks -> below or equal; above or equal
                // -> strictly below; statute key above -> below.
                for x in [&mut *outer, &mut *statute, &mut inner[..]] {
                    hist.complement(hand(g), total, x);
                }
            }
            let (below, below_or_equal) = if down {
                (&inner[..], &outer[..])
            } else {
                (&outer[..], &inner[..])
            };
            let counts = Counts {
                qualifies: true,
                not_qualifying: &nq,
                below,
                below_or_equal,
                below_statute: statute,
            };
            visit(group[g] as usize, hand(g), &counts);
        }
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
    use std::ops::Range;

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
            0..order.len(),
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

    /// The query compiled for AVX2 and the portable one give the same integers (five-card
    /// hands with all 52 card lanes: bit, byte and 16-bit rows; three-card hands with one
    /// lane). On a processor without AVX2 both are the portable query, and the test says so.
    #[test]
    fn the_avx2_query_gives_the_portable_answer() {
        fn check<const K: usize>(lanes: Lanes, max_subset: usize, every: usize) {
            let hands = all_hands::<K>();
            let mut hist = Histogram::new::<K>(lanes, max_subset);
            let mut subsets = Vec::new();
            for hand in hands.iter().step_by(3) {
                subsets.clear();
                subset_rows(hand, max_subset, &mut subsets);
                hist.insert(hand, &subsets);
            }
            let w = hist.width;
            let (mut fast, mut portable) = (vec![0; w], vec![0; w]);
            let mut nonzero = 0;
            for hand in hands.iter().step_by(every) {
                subsets.clear();
                subset_rows(hand, max_subset, &mut subsets);
                hist.avx2 = Avx2::detect();
                hist.query(hand, &subsets, &mut fast);
                hist.avx2 = None;
                hist.query(hand, &subsets, &mut portable);
                assert_eq!(fast, portable, "{hand:?}");
                nonzero += usize::from(fast.iter().any(|&x| x != 0));
            }
            assert!(nonzero > 0);
        }
        if Avx2::detect().is_none() {
            eprintln!("skipped: no AVX2 on this CPU: the AVX2 query not checked");
        }
        check::<5>(Lanes::Cards { start: 0, end: 52 }, 4, 997);
        check::<3>(Lanes::Count, 3, 7);
        check::<3>(Lanes::Cards { start: 3, end: 40 }, 2, 7);
    }

    /// Every hand's counts (not qualifying, below, below or equal, statute below; per lane)
    /// from sweeps of the given position ranges, checking each hand is visited once.
    fn swept_counts(lanes: Lanes, max_subset: usize, ranges: &[Range<usize>]) -> Vec<Vec<i32>> {
        let keys = keys3(&TieBreaks::STATUTE);
        let hands = all_hands::<3>();
        let order = key_order(&keys);
        let qualifier = crate::ranking::pack(0, &[10], 0);
        let mut out = vec![Vec::new(); hands.len()];
        for range in ranges {
            sweep(
                &hands,
                &keys,
                &order,
                qualifier,
                max_subset,
                lanes,
                range.clone(),
                |i, _, c| {
                    assert!(out[i].is_empty(), "hand {i} visited twice");
                    out[i] =
                        [c.not_qualifying, c.below, c.below_or_equal, c.below_statute].concat();
                    out[i].push(i32::from(c.qualifies));
                },
            );
        }
        assert!(out.iter().all(|c| !c.is_empty()), "a hand was not visited");
        out
    }

    /// Ranges of the key order, swept up or down, give every hand exactly the counts of one
    /// whole sweep: cuts inside groups of equal ranks, below and above the qualifier, ranges
    /// nearer the top (swept down) and the bottom (swept up), with one lane and card lanes.
    #[test]
    fn ranges_of_the_key_order_give_the_whole_sweeps_counts() {
        let keys = keys3(&TieBreaks::STATUTE);
        let order = key_order(&keys);
        let qualifier = crate::ranking::pack(0, &[10], 0);
        let split = order.partition_point(|&i| ranks_only(keys[i as usize]) < qualifier);
        let n = order.len();
        // A cut inside a group of equal ranks (the high-card group above the split).
        let mid_group = (split + 1..n)
            .find(|&p| {
                ranks_only(keys[order[p] as usize]) == ranks_only(keys[order[p - 1] as usize])
            })
            .unwrap();
        let cuts: Vec<Vec<usize>> = vec![
            vec![
                0,
                split / 2,
                split,
                split + 7,
                mid_group,
                n - 1000,
                n - 3,
                n,
            ],
            vec![0, 5000, 15_000, 21_000, n],
            vec![0, 11_050, n],
            vec![0, mid_group, n],
        ];
        for (lanes, max_subset) in [(Lanes::Count, 3), (Lanes::Cards { start: 3, end: 40 }, 2)] {
            let whole = swept_counts(lanes, max_subset, std::slice::from_ref(&(0..n)));
            for cut in &cuts {
                let mut cut = cut.clone();
                cut.sort_unstable();
                cut.dedup();
                let ranges: Vec<Range<usize>> = cut.windows(2).map(|c| c[0]..c[1]).collect();
                assert!(ranges.iter().any(|r| sweeps_down(r, split, n)));
                assert!(ranges.iter().any(|r| !sweeps_down(r, split, n)));
                assert_eq!(swept_counts(lanes, max_subset, &ranges), whole, "{cut:?}");
            }
        }
    }
}
