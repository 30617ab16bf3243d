//! Caribbean Stud ante/raise under optimal play, knowing the dealer's upcard.
//!
//! For each of the 2,598,960 player hands and each of the 47 upcards, the 163,185 dealer
//! completions split into: dealer does not qualify, player wins, push, dealer wins (counted by
//! `showdown::sweep`, never enumerated). The payouts (numerators over one common denominator,
//! from the rule file) decide raise or fold for every situation, and the outcomes of the
//! optimal decision are summed by the player's category.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use crate::cards::DECK_SIZE;
use crate::enumerate::keys5;
pub use crate::games::showdown::qualifier_key;
use crate::games::showdown::{
    outside_inserts, ranks_only, statute_tables, sweep_from, Lanes, NotQualifying,
};
use crate::rank5::CATEGORIES;
use crate::ranking::{category, TieBreaks};

pub mod wire;

/// Dealer completions of one situation (player hand + upcard): C(46, 4).
pub const DEALER_COMPLETIONS: u64 = 163_185;
const COMPLETIONS_I64: i64 = 163_185;
/// Player hands: C(52, 5).
pub const HANDS: usize = 2_598_960;
/// Upcards a player hand can face: 52 - 5.
pub const UPCARDS: u64 = 47;

/// Values of each outcome per ante, as numerators over a common denominator.
#[derive(Clone, Copy, Debug)]
pub struct Payouts {
    /// Folding (the ante is lost: `-den`).
    pub fold: i64,
    /// Raising when the dealer does not qualify.
    pub not_qualifying: i64,
    /// Raising and beating a qualifying dealer, by the player's category (cap applied).
    pub win: [i64; CATEGORIES],
    /// Raising and tying a qualifying dealer (rank-only rules).
    pub tie: i64,
    /// Raising and losing to a qualifying dealer.
    pub loss: i64,
    /// A win with the raise paid 1 to 1: the robustness margin of each category uses it.
    pub win_floor: i64,
}

/// The optimal decision's outcomes over all situations whose player hand is in one category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CategoryTotals {
    /// Situations (player hand, upcard).
    pub situations: u64,
    /// Situations where raising is strictly better than folding.
    pub raised: u64,
    /// Situations where raising and folding are worth exactly the same (counted as folds).
    pub indifferent: u64,
    /// Over raised situations, dealer completions by outcome.
    pub not_qualifying: u64,
    pub won: u64,
    pub tied: u64,
    pub lost: u64,
    /// Of the raised showdowns, those between equal ranks (decided only by suit under the
    /// statute; pushes under rank-only rules), and how many of them the player won.
    pub equal_ranks: u64,
    pub won_on_suit: u64,
    /// Smallest `(EV(raise) - EV(fold)) * 163,185` over the category's situations with wins
    /// valued at `win_floor`: positive means raising stays right whatever a payout >= 1 is.
    pub min_margin_at_floor: i64,
}

impl Default for CategoryTotals {
    fn default() -> Self {
        CategoryTotals {
            situations: 0,
            raised: 0,
            indifferent: 0,
            not_qualifying: 0,
            won: 0,
            tied: 0,
            lost: 0,
            equal_ranks: 0,
            won_on_suit: 0,
            min_margin_at_floor: i64::MAX,
        }
    }
}

impl CategoryTotals {
    /// Add a disjoint shard's totals: counts add, the smallest margin is kept.
    pub fn merge(&mut self, o: &CategoryTotals) {
        self.situations += o.situations;
        self.raised += o.raised;
        self.indifferent += o.indifferent;
        self.not_qualifying += o.not_qualifying;
        self.won += o.won;
        self.tied += o.tied;
        self.lost += o.lost;
        self.equal_ranks += o.equal_ranks;
        self.won_on_suit += o.won_on_suit;
        self.min_margin_at_floor = self.min_margin_at_floor.min(o.min_margin_at_floor);
    }
}

/// The whole analysis: totals by player category (lowest first) and the decision table.
pub struct Analysis {
    pub categories: [CategoryTotals; CATEGORIES],
    pub decisions: Decisions,
}

/// The raise decisions of the hands a shard visited, compact (about 1 MB for half the hands
/// instead of a 21 MB table: what a cluster's worker sends back): the hands that raise
/// against every upcard of the shard's range they do not hold as bits, the few whose decision
/// depends on the upcard with their upcard bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decisions {
    /// The shard's upcards (card ids `first..end`).
    pub upcards: (usize, usize),
    /// Bit `i % 64` of word `i / 64` set: hand `i` (colex) raises against every upcard of
    /// the range it does not hold.
    pub every: Vec<u64>,
    /// The other hands that raise against some upcard: (colex index, bit `u` = raise against
    /// upcard `u`).
    pub some: Vec<(u32, u64)>,
}

impl Decisions {
    fn new(upcards: (usize, usize)) -> Self {
        Decisions {
            upcards,
            every: vec![0; HANDS.div_ceil(64)],
            some: Vec::new(),
        }
    }

    /// The upcard bits of the range.
    fn range_mask(&self) -> u64 {
        let (first, end) = self.upcards;
        (u64::MAX >> (64 - (end - first))) << first
    }

    /// Record hand `i`'s decision bits (`held`: its cards).
    #[inline]
    fn record(&mut self, i: usize, held: u64, bits: u64) {
        if bits == 0 {
            return;
        }
        if bits == self.range_mask() & !held {
            self.every[i / 64] |= 1 << (i % 64);
        } else {
            self.some.push((i as u32, bits));
        }
    }

    /// The compact form of a whole decision table over every upcard (one mask per hand in
    /// colex order, bit `u` = raise against upcard `u`), as a shard sends it back.
    ///
    /// # Panics
    /// If the table has not one mask per hand.
    #[must_use]
    pub fn from_table(table: &[u64]) -> Self {
        assert_eq!(table.len(), HANDS, "one mask per hand");
        let mut d = Decisions::new((0, DECK_SIZE));
        for_each_held(|i, held| d.record(i, held, table[i]));
        d
    }

    /// Add another part's decisions over the same upcards (of disjoint hands).
    pub fn merge(&mut self, other: &Decisions) {
        assert_eq!(self.upcards, other.upcards, "decisions of other upcards");
        self.every
            .iter_mut()
            .zip(&other.every)
            .for_each(|(a, b)| *a |= b);
        self.some.extend_from_slice(&other.some);
    }

    /// The decision table: one u64 per hand in colex order, bit `u` = raise against `u`.
    #[must_use]
    pub fn table(&self) -> Vec<u64> {
        let mut bytes = vec![0u8; HANDS * 8];
        write_table(std::slice::from_ref(self), &mut bytes);
        bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect()
    }
}

/// Write the decision table of disjoint shards' decisions (the OR of theirs) into `out`, 8
/// little-endian bytes per hand in colex order (bit `u` = raise against upcard `u`), in one
/// walk over the hands.
pub fn write_table(parts: &[Decisions], out: &mut [u8]) {
    assert_eq!(out.len(), HANDS * 8, "a table of every hand");
    let ranges: Vec<u64> = parts.iter().map(Decisions::range_mask).collect();
    let mut words = out.chunks_exact_mut(8);
    for_each_held(|i, held| {
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        let mut bits = 0;
        for (part, range) in parts.iter().zip(&ranges) {
            if part.every[word] & bit != 0 {
                bits |= range & !held;
            }
        }
        words
            .next()
            .expect("one word per hand")
            .copy_from_slice(&bits.to_le_bytes());
    });
    for part in parts {
        for &(i, bits) in &part.some {
            let word = &mut out[8 * i as usize..8 * i as usize + 8];
            let old = u64::from_le_bytes((&*word).try_into().expect("8 bytes"));
            word.copy_from_slice(&(old | bits).to_le_bytes());
        }
    }
}

/// Call `visit(colex index, card mask)` for every five-card hand, in colex order.
fn for_each_held(mut visit: impl FnMut(usize, u64)) {
    let mut i = 0;
    for c4 in 4..DECK_SIZE {
        for c3 in 3..c4 {
            for c2 in 2..c3 {
                for c1 in 1..c2 {
                    let top = 1u64 << c4 | 1 << c3 | 1 << c2 | 1 << c1;
                    for c0 in 0..c1 {
                        visit(i, top | 1 << c0);
                        i += 1;
                    }
                }
            }
        }
    }
}

/// A shard of the analysis: the situations whose upcard is a card id in `upcards` and whose
/// player hand is in part `part.0` of `part.1` of the sweep's key order (parts of about equal
/// work, see [`hand_parts`]). Disjoint shards' totals add up (`min_margin_at_floor` by
/// minimum) and their decision bits combine by OR, to exactly `analyze`'s answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub upcards: (usize, usize),
    pub part: (usize, usize),
}

impl Shard {
    /// Every situation.
    pub const WHOLE: Shard = Shard {
        upcards: (0, DECK_SIZE),
        part: (0, 1),
    };
}

/// Analyse every situation. `tie_breaks.suit_decides` chooses the statute (suits decide every
/// showdown) or standard rules (equal ranks push). `chunks` threads each sweep a part of the
/// hands; `progress` counts finished player hands (it ends at 2,598,960).
#[must_use]
pub fn analyze(
    tie_breaks: &TieBreaks,
    qualifier: u32,
    pay: &Payouts,
    chunks: usize,
    progress: Option<&AtomicU64>,
) -> Analysis {
    analyze_shard(tie_breaks, qualifier, pay, Shard::WHOLE, chunks, progress)
}

/// Analyse one shard (`upcards` a non-empty range within the deck, `part.0 < part.1`), its
/// hands cut further into `chunks` parts swept by parallel threads. Every thread starts from
/// the histogram of the dealer hands that do not qualify and reads the key table and key
/// order, all three built once and kept in this process ([`tables`], `not_qualifying`), and
/// sweeps its part up or down the key order (see `showdown::sweep_from`).
#[must_use]
pub fn analyze_shard(
    tie_breaks: &TieBreaks,
    qualifier: u32,
    pay: &Payouts,
    shard: Shard,
    chunks: usize,
    progress: Option<&AtomicU64>,
) -> Analysis {
    let (first, end) = shard.upcards;
    assert!(first < end && end <= DECK_SIZE, "upcards {first}..{end}");
    let t = tables(tie_breaks);
    let nq = not_qualifying(tie_breaks, &t, qualifier, (first, end));
    let part = hand_parts(&t, qualifier, 0..t.order.len(), shard.part.1)[shard.part.0].clone();
    let bounds = hand_parts(&t, qualifier, part, chunks.max(1));
    let parts: Vec<([CategoryTotals; CATEGORIES], Decisions)> = bounds
        .into_par_iter()
        .map(|positions| {
            analyze_lanes(
                &t,
                &nq,
                pay,
                tie_breaks.suit_decides,
                (first, end),
                positions,
                progress,
            )
        })
        .collect();
    let mut categories = [CategoryTotals::default(); CATEGORIES];
    let mut decisions = Decisions::new((first, end));
    for (totals, part) in &parts {
        for (a, b) in categories.iter_mut().zip(totals) {
            a.merge(b);
        }
        decisions.merge(part);
    }
    Analysis {
        categories,
        decisions,
    }
}

/// The sweep's inputs for five-card hands (see `showdown::statute_tables`).
pub struct Tables {
    pub keys: Vec<u32>,
    pub hands: Vec<[u8; 5]>,
    pub order: Vec<u32>,
}

/// The tables of the last tie-break rules asked for, kept for the life of the process (about
/// 33 MB): a worker that runs several shards, or several analyses, builds them once.
static TABLES: Mutex<Option<(TieBreaks, Arc<Tables>)>> = Mutex::new(None);

/// This process's tables for `tie_breaks` (suits always resolved), built on first use.
#[must_use]
pub fn tables(tie_breaks: &TieBreaks) -> Arc<Tables> {
    let tb = TieBreaks {
        suit_decides: true,
        ..*tie_breaks
    };
    let mut slot = TABLES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((cached, t)) = &*slot {
        if *cached == tb {
            return Arc::clone(t);
        }
    }
    let (keys, hands, order) = statute_tables::<5>(&tb, keys5);
    let t = Arc::new(Tables { keys, hands, order });
    *slot = Some((tb, Arc::clone(&t)));
    t
}

/// Key of the cached histogram of the dealer hands that do not qualify: the tie-break rules
/// (suits resolved), the qualifier and the upcards.
type NotQualifyingKey = (TieBreaks, u32, (usize, usize));

/// The histogram of the dealer hands that do not qualify, last asked for: every shard's
/// sweep starts from it (3.5 MB for all 52 upcards), so a process builds it once.
static NOT_QUALIFYING: Mutex<Option<(NotQualifyingKey, Arc<NotQualifying>)>> = Mutex::new(None);

/// This process's histogram of the dealer hands that do not qualify (see `NOT_QUALIFYING`),
/// over `t` (the tables of `tie_breaks`), built on first use.
fn not_qualifying(
    tie_breaks: &TieBreaks,
    t: &Tables,
    qualifier: u32,
    (start, end): (usize, usize),
) -> Arc<NotQualifying> {
    let key = (
        TieBreaks {
            suit_decides: true,
            ..*tie_breaks
        },
        qualifier,
        (start, end),
    );
    let mut slot = NOT_QUALIFYING
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some((cached, nq)) = &*slot {
        if *cached == key {
            return Arc::clone(nq);
        }
    }
    let nq = Arc::new(NotQualifying::new::<5>(
        &t.hands,
        &t.keys,
        qualifier,
        4,
        Lanes::Cards { start, end },
    ));
    *slot = Some((key, Arc::clone(&nq)));
    nq
}

/// Relative work per hand of a sweep over all lanes (measured, single thread): inserting it,
/// visiting it when it does not qualify (one query, the decisions), visiting it when it
/// qualifies (four queries, the decisions). Only the balance of the parts depends on them.
const INSERT_COST: u64 = 1;
const NOT_QUALIFYING_COST: u64 = 5;
const QUALIFYING_COST: u64 = 15;

/// `range` (positions in the key order) cut into `parts` contiguous ranges of about equal
/// sweep work (fewer only if the range has fewer hands), each range's work counting the
/// hands it inserts without visiting them. Deterministic: the same cuts in every process.
#[must_use]
pub fn hand_parts(
    t: &Tables,
    qualifier: u32,
    range: Range<usize>,
    parts: usize,
) -> Vec<Range<usize>> {
    let split = t
        .order
        .partition_point(|&i| ranks_only(t.keys[i as usize]) < qualifier);
    let visits = |p: usize| {
        let nq = p.min(split) as u64;
        nq * NOT_QUALIFYING_COST + (p.max(split) - split) as u64 * QUALIFYING_COST
    };
    // Work of sweeping the range a..b: its own qualifying hands and those on its cheaper side
    // are inserted (those that do not qualify are in the cached histogram it starts from),
    // the range's hands are visited.
    let n = t.order.len();
    let work = |a: usize, b: usize| {
        let inserted = (b.max(split) - a.max(split)) + outside_inserts(&(a..b), split, n);
        inserted as u64 * INSERT_COST + visits(b) - visits(a)
    };
    let parts = parts.clamp(1, range.len().max(1));
    // The largest end from `a` whose work stays within `budget`.
    let reach = |a: usize, budget: u64| {
        let (mut lo, mut hi) = (a, range.end);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if work(a, mid) <= budget {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    };
    // The smallest budget with which `parts` ranges cover the whole range.
    let covers = |budget: u64| {
        let mut a = range.start;
        for _ in 0..parts {
            a = reach(a, budget);
        }
        a == range.end
    };
    let (mut lo, mut hi) = (0, work(range.start, range.end));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if covers(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let mut cuts = Vec::with_capacity(parts);
    let mut a = range.start;
    for p in 0..parts {
        let b = if p + 1 == parts {
            range.end
        } else {
            reach(a, lo)
        };
        cuts.push(a..b);
        a = b;
    }
    cuts
}

fn analyze_lanes(
    t: &Tables,
    nq: &NotQualifying,
    pay: &Payouts,
    suit_decides: bool,
    (start, end): (usize, usize),
    positions: Range<usize>,
    progress: Option<&AtomicU64>,
) -> ([CategoryTotals; CATEGORIES], Decisions) {
    let keys = &t.keys;
    let mut totals = [CategoryTotals::default(); CATEGORIES];
    let mut decisions = Decisions::new((start, end));
    let total = COMPLETIONS_I64;
    let fold = pay.fold * total;
    let mut visited = 0u64;
    sweep_from(&t.hands, keys, &t.order, nq, positions, |i, hand, c| {
        let cat = category(keys[i]) as usize;
        let t = &mut totals[cat];
        let held = hand.iter().fold(0u64, |m, &card| m | 1 << card);
        let mut bits = 0u64;
        for lane in 0..end - start {
            let u = start + lane;
            if held & (1 << u) != 0 {
                continue;
            }
            let nq = i64::from(c.not_qualifying[lane]);
            let (won, tied) = if !c.qualifies {
                (0, 0)
            } else if suit_decides {
                (i64::from(c.below_statute[lane]) - nq, 0)
            } else {
                (
                    i64::from(c.below[lane]) - nq,
                    i64::from(c.below_or_equal[lane] - c.below[lane]),
                )
            };
            let lost = total - nq - won - tied;
            let base = nq * pay.not_qualifying + tied * pay.tie + lost * pay.loss;
            let raise = base + won * pay.win[cat];
            t.situations += 1;
            t.min_margin_at_floor = t.min_margin_at_floor.min(base + won * pay.win_floor - fold);
            if raise > fold {
                bits |= 1 << u;
                t.raised += 1;
                t.not_qualifying += nq as u64;
                t.won += won as u64;
                t.tied += tied as u64;
                t.lost += lost as u64;
                if c.qualifies {
                    let equal = i64::from(c.below_or_equal[lane] - c.below[lane]);
                    t.equal_ranks += equal as u64;
                    if suit_decides {
                        t.won_on_suit += i64::from(c.below_statute[lane] - c.below[lane]) as u64;
                    }
                }
            } else if raise == fold {
                t.indifferent += 1;
            }
        }
        decisions.record(i, held, bits);
        visited += 1;
        if visited.is_multiple_of(4096) {
            if let Some(p) = progress {
                p.fetch_add(4096, Ordering::Relaxed);
            }
        }
    });
    if let Some(p) = progress {
        p.fetch_add(visited % 4096, Ordering::Relaxed);
    }
    (totals, decisions)
}

/// One situation by direct enumeration of its 163,185 dealer completions (an independent path
/// for checking the sweep and for explaining a single decision): not qualifying, player wins,
/// push, dealer wins, equal-rank showdowns, and of those won on suit. `hand` must hold five
/// distinct cards and not the upcard.
#[must_use]
pub fn situation(tie_breaks: &TieBreaks, qualifier: u32, hand: &[u8; 5], upcard: u8) -> [u64; 6] {
    let tb = TieBreaks {
        suit_decides: true,
        ..*tie_breaks
    };
    let mut sorted = *hand;
    sorted.sort_unstable();
    let player = crate::rank5::key_sorted(&sorted, &tb);
    let held = hand.iter().fold(1u64 << upcard, |m, &c| m | 1 << c);
    let rest: Vec<u8> = (0..DECK_SIZE as u8)
        .filter(|c| held & (1 << c) == 0)
        .collect();
    let mut out = [0u64; 6];
    let n = rest.len();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    let mut dealer = [rest[a], rest[b], rest[c], rest[d], upcard];
                    dealer.sort_unstable();
                    let key = crate::rank5::key_sorted(&dealer, &tb);
                    let (ro_d, ro_p) = (showdown_ranks(key), showdown_ranks(player));
                    if ro_d < qualifier {
                        out[0] += 1;
                        continue;
                    }
                    let equal = ro_d == ro_p;
                    out[4] += u64::from(equal);
                    let wins = if tie_breaks.suit_decides || !equal {
                        key < player
                    } else {
                        false
                    };
                    if equal && key < player {
                        out[5] += 1;
                    }
                    if wins {
                        out[1] += 1;
                    } else if equal && !tie_breaks.suit_decides {
                        out[2] += 1;
                    } else {
                        out[3] += 1;
                    }
                }
            }
        }
    }
    out
}

#[inline]
fn showdown_ranks(key: u32) -> u32 {
    crate::games::showdown::ranks_only(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::showdown::sweep;

    /// The sweep's per-upcard counts equal direct enumeration (`situation`) on sample hands.
    #[test]
    fn sweep_matches_direct_enumeration() {
        let tb = TieBreaks::STATUTE;
        let (keys, hands, order) = statute_tables::<5>(&tb, keys5);
        let qualifier = qualifier_key(&[12, 11]);
        let picks = [0usize, 1_000_003, 2_000_029, 2_598_959, 1_712_345];
        sweep(
            &hands,
            &keys,
            &order,
            qualifier,
            4,
            Lanes::Cards { start: 44, end: 52 },
            0..order.len(),
            |i, hand, c| {
                if !picks.contains(&i) {
                    return;
                }
                for lane in 0..8 {
                    let u = 44 + lane as u8;
                    if hand.contains(&u) {
                        continue;
                    }
                    let d = situation(&tb, qualifier, hand, u);
                    assert_eq!(u64::try_from(c.not_qualifying[lane]).unwrap(), d[0]);
                    if c.qualifies {
                        let won = c.below_statute[lane] - c.not_qualifying[lane];
                        assert_eq!(u64::try_from(won).unwrap(), d[1], "hand {i} upcard {u}");
                        let equal = c.below_or_equal[lane] - c.below[lane];
                        assert_eq!(u64::try_from(equal).unwrap(), d[4]);
                    } else {
                        assert_eq!(d[1], 0);
                    }
                }
            },
        );
    }

    /// Compact decisions (hands raising against every open upcard as bits, the others
    /// listed) give back exactly the table they were recorded from, for any upcard range.
    #[test]
    fn compact_decisions_give_back_the_table() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            state >> 11
        };
        for upcards in [(0, DECK_SIZE), (3, 40), (51, 52)] {
            let mut d = Decisions::new(upcards);
            let range = d.range_mask();
            let mut expected = vec![0u64; HANDS];
            let mut held_of = vec![0u64; HANDS];
            for_each_held(|i, held| held_of[i] = held);
            for (i, &held) in held_of.iter().enumerate() {
                let bits = match next() % 4 {
                    0 => 0,
                    1 => range & !held,
                    _ => next() & range & !held,
                };
                d.record(i, held, bits);
                expected[i] = bits;
            }
            // One upcard: a hand raises against it or not, never in part.
            assert_eq!(d.some.is_empty(), upcards.1 - upcards.0 == 1);
            assert!(d.every.iter().any(|&w| w != 0));
            assert_eq!(d.table(), expected, "{upcards:?}");
            if upcards == (0, DECK_SIZE) {
                assert_eq!(Decisions::from_table(&expected), d);
            }
        }
        // The colex walk gives each index its own hand.
        let hands = crate::games::showdown::all_hands::<5>();
        let mut seen = 0;
        for_each_held(|i, held| {
            assert_eq!(held, hands[i].iter().fold(0, |m, &c| m | 1 << c));
            seen += 1;
        });
        assert_eq!(seen, HANDS);
    }

    /// Shards read the cached histogram of their own qualifier and upcards: interleaved
    /// analyses with other qualifiers and upcards equal sweeps from a fresh histogram.
    #[test]
    fn the_cached_histogram_is_the_one_asked_for() {
        let tb = TieBreaks::STATUTE;
        let pay = Payouts {
            fold: -1,
            not_qualifying: 1,
            win: [3; CATEGORIES],
            tie: 0,
            loss: -3,
            win_floor: 3,
        };
        let t = tables(&tb);
        let fresh = |qualifier: u32, upcards: (usize, usize)| {
            let lanes = Lanes::Cards {
                start: upcards.0,
                end: upcards.1,
            };
            let nq = NotQualifying::new::<5>(&t.hands, &t.keys, qualifier, 4, lanes);
            analyze_lanes(&t, &nq, &pay, true, upcards, 0..HANDS, None)
        };
        let (ak, queen) = (qualifier_key(&[12, 11]), qualifier_key(&[10]));
        for (qualifier, upcards) in [
            (ak, (20, 22)),
            (queen, (20, 22)),
            (ak, (30, 31)),
            (ak, (20, 22)),
        ] {
            let shard = Shard {
                upcards,
                part: (0, 1),
            };
            let a = analyze_shard(&tb, qualifier, &pay, shard, 2, None);
            let (totals, decisions) = fresh(qualifier, upcards);
            assert_eq!(a.categories, totals, "{qualifier} {upcards:?}");
            assert_eq!(a.decisions.table(), decisions.table());
        }
    }

    /// Standard rules (ties push, 1-2-3-4-5-7-20-50-100, dealer qualifies with A-K): the
    /// outcome counts Wizard of Odds publishes (wizardofodds.com/games/caribbean-stud-poker/,
    /// return table "U.S. Rules", 19,933,230,517,200 combinations).
    #[test]
    #[ignore = "full analysis: run with --ignored (the Python suite checks it too)"]
    fn standard_rules_reproduce_published_counts() {
        let pays = [1, 1, 2, 3, 4, 5, 7, 20, 50, 100];
        let pay = Payouts {
            fold: -1,
            not_qualifying: 1,
            win: pays.map(|p| 1 + 2 * p),
            tie: 0,
            loss: -3,
            win_floor: 3,
        };
        let a = analyze(
            &TieBreaks::RANK_ONLY,
            qualifier_key(&[12, 11]),
            &pay,
            2,
            None,
        );
        let c = &a.categories;
        assert_eq!(c[9].won, 16_759_740);
        assert_eq!(c[8].won, 156_929_720);
        assert_eq!(c[7].won, 2_832_435_800);
        assert_eq!(c[6].won, 16_624_475_280);
        assert_eq!(c[5].won, 21_856_990_280);
        assert_eq!(c[4].won, 43_805_516_100);
        assert_eq!(c[3].won, 234_242_908_320);
        assert_eq!(c[2].won, 488_012_139_360);
        assert_eq!(c[1].won + c[0].won, 2_343_248_003_808);
        let nq: u64 = c.iter().map(|t| t.not_qualifying).sum();
        let tied: u64 = c.iter().map(|t| t.tied).sum();
        let lost: u64 = c.iter().map(|t| t.lost).sum();
        let folded: u64 = c.iter().map(|t| t.situations - t.raised).sum();
        assert_eq!(nq, 4_532_514_033_720);
        assert_eq!(tied, 321_623_100);
        assert_eq!(lost, 2_726_592_727_512);
        assert_eq!(folded * DEALER_COMPLETIONS, 9_523_005_974_460);
    }
}
