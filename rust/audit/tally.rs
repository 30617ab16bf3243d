//! The battery's streaming tallies: every table and per-shuffle histogram the tests need,
//! filled in one pass over the shuffles and mergeable across batches. Memory depends on the
//! deck size only, never on the number of shuffles.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::deck::DeckKind;
use crate::cards;
use crate::rank3;
use crate::rank5;
use crate::ranking::{self, TieBreaks};

/// How poker hands are dealt from a shuffled deck: `hands` hands of `hand_size` cards (the
/// seats, then the dealer), in packets (a shuffler's hand-forming mode: hand 0 takes the first
/// `hand_size` cards) or round-robin (one card to each hand in turn).
#[derive(Clone, Copy, Debug)]
pub struct Game {
    pub hand_size: usize,
    pub hands: usize,
    pub round_robin: bool,
    pub tie_breaks: TieBreaks,
}

impl Game {
    #[must_use]
    pub fn categories(&self) -> usize {
        if self.hand_size == 3 {
            rank3::CATEGORIES
        } else {
            rank5::CATEGORIES
        }
    }
}

/// All tallies of a set of shuffles from one kind of deck.
#[derive(Clone, Debug)]
pub struct Tally {
    pub deck: DeckKind,
    pub game: Option<Game>,
    pub shuffles: u64,
    /// `position[s * size + p]`: shuffles with symbol `s` at position `p`.
    pub position: Vec<u64>,
    /// `successor[a * symbols + b]`: times symbol `b` came immediately after symbol `a`.
    pub successor: Vec<u64>,
    /// Permutation decks only: `lehmer[i * size + d]`: shuffles whose Lehmer digit at
    /// position `i` (later cards with a smaller id) is `d`.
    pub lehmer: Vec<u64>,
    /// Joint tables of the digit pairs (2j, 2j+1), concatenated.
    pub lehmer_pairs: Vec<u64>,
    /// Histogram of ascending runs of the output read as card ids.
    pub runs: Vec<u64>,
    /// Sums over shuffles of `T = sum_p id(p) * id(p+1)` and of `T^2` (serial correlation).
    pub serial_sum: u128,
    pub serial_sumsq: u128,
    /// Shuffles that had an input order to compare with.
    pub referenced: u64,
    /// Histograms against the input order: rising sequences, fixed points, preserved
    /// successions, interior valleys, footrule displacement, correct guesses.
    pub rising: Vec<u64>,
    pub fixed: Vec<u64>,
    pub successions: Vec<u64>,
    pub valleys: Vec<u64>,
    pub footrule: Vec<u64>,
    pub guesses: Vec<u64>,
    /// Multiset decks only: histogram of positions holding the same symbol as in the input.
    pub matches: Vec<u64>,
    /// Pairs of consecutive shuffles of one device, and
    /// `consecutive[p * size + q]`: cards at position `p` in one shuffle and `q` in the next.
    pub consecutive_pairs: u64,
    pub consecutive: Vec<u64>,
    /// Coupon collector on the top card: completed collections by the number of shuffles it
    /// took a device to show every symbol on top (the last entry counts longer ones).
    pub coupon: Vec<u64>,
    /// `dealt[h * categories + c]`: hands dealt to hand `h` in category `c`.
    pub dealt: Vec<u64>,
}

/// Coupon-collector histogram length, in multiples of the number of symbols.
pub const COUPON_SPAN: usize = 40;

fn pair_blocks(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n / 2).map(move |j| (n - 2 * j, n - 2 * j - 1))
}

impl Tally {
    #[must_use]
    pub fn new(deck: DeckKind, game: Option<Game>) -> Tally {
        let n = deck.size();
        let t = deck.symbols();
        let perm = deck.distinct();
        let z = |len: usize| vec![0u64; if perm { len } else { 0 }];
        Tally {
            deck,
            game,
            shuffles: 0,
            position: vec![0; t * n],
            successor: vec![0; t * t],
            lehmer: z(n * n),
            lehmer_pairs: z(pair_blocks(n).map(|(a, b)| a * b).sum()),
            runs: z(n + 1),
            serial_sum: 0,
            serial_sumsq: 0,
            referenced: 0,
            rising: z(n + 1),
            fixed: z(n + 1),
            successions: z(n + 1),
            valleys: z(n + 1),
            footrule: z(n * n / 2 + 1),
            guesses: z(n + 1),
            matches: if perm { Vec::new() } else { vec![0; n + 1] },
            consecutive_pairs: 0,
            consecutive: z(n * n),
            coupon: vec![0; COUPON_SPAN * t + 1],
            dealt: game.map_or_else(Vec::new, |g| vec![0; g.hands * g.categories()]),
        }
    }

    /// Add one complete order. `reference` is the input order it is judged against (if any),
    /// `previous` the same device's previous output (if any).
    pub fn add(&mut self, out: &[u8], reference: Option<&[u8]>, previous: Option<&[u8]>) {
        let n = self.deck.size();
        let t = self.deck.symbols();
        debug_assert_eq!(out.len(), n);
        self.shuffles += 1;
        for (p, &s) in out.iter().enumerate() {
            self.position[s as usize * n + p] += 1;
        }
        for w in out.windows(2) {
            self.successor[w[0] as usize * t + w[1] as usize] += 1;
        }
        if !self.deck.distinct() {
            if let Some(reference) = reference {
                self.referenced += 1;
                self.matches[out.iter().zip(reference).filter(|(a, b)| a == b).count()] += 1;
            }
            return;
        }
        self.add_permutation(out);
        if let Some(reference) = reference {
            let mut rel = [0u8; cards::DECK_SIZE];
            relative(out, reference, &mut rel[..n]);
            self.add_against_input(&rel[..n]);
        }
        if let Some(prev) = previous {
            let mut pos_prev = [0u8; cards::DECK_SIZE];
            for (p, &c) in prev.iter().enumerate() {
                pos_prev[c as usize] = p as u8;
            }
            self.consecutive_pairs += 1;
            for (q, &c) in out.iter().enumerate() {
                self.consecutive[pos_prev[c as usize] as usize * n + q] += 1;
            }
        }
        if let Some(game) = self.game {
            self.add_dealt(&game, out);
        }
    }

    fn add_permutation(&mut self, out: &[u8]) {
        let n = out.len();
        let mut unseen: u64 = if n == 64 { !0 } else { (1u64 << n) - 1 };
        let mut digits = [0u8; cards::DECK_SIZE];
        for (i, &c) in out.iter().enumerate() {
            let d = (unseen & ((1u64 << c) - 1)).count_ones() as u8;
            unseen &= !(1u64 << c);
            digits[i] = d;
            self.lehmer[i * n + d as usize] += 1;
        }
        let mut offset = 0;
        for (j, (a, b)) in pair_blocks(n).enumerate() {
            let _ = a;
            self.lehmer_pairs[offset + digits[2 * j] as usize * b + digits[2 * j + 1] as usize] +=
                1;
            offset += a * b;
        }
        let descents = out.windows(2).filter(|w| w[1] < w[0]).count();
        self.runs[descents + 1] += 1;
        // At most 63 * 63 * 63 per shuffle, so its square fits in 64 bits.
        let serial: u64 = out
            .windows(2)
            .map(|w| u64::from(w[0]) * u64::from(w[1]))
            .sum();
        self.serial_sum += u128::from(serial);
        self.serial_sumsq += u128::from(serial * serial);
    }

    /// `rel[p]` is the input position of the card at output position `p`.
    // Bitwise on purpose: a lazy `&&` branches on the data and mispredicts.
    #[allow(clippy::needless_bitwise_bool)]
    fn add_against_input(&mut self, rel: &[u8]) {
        let n = rel.len();
        self.referenced += 1;
        let mut pos = [0u8; 64];
        let mut fixed = 0;
        let mut footrule = 0;
        for (p, &r) in rel.iter().enumerate() {
            pos[r as usize & 63] = p as u8;
            fixed += usize::from(p == r as usize);
            footrule += p.abs_diff(r as usize);
        }
        let pos = &pos[..n];
        let rising = 1 + pos.windows(2).filter(|w| w[1] < w[0]).count();
        let successions = rel.windows(2).filter(|w| w[1] == w[0] + 1).count();
        let valleys = rel
            .windows(3)
            .filter(|w| (w[0] > w[1]) & (w[1] < w[2]))
            .count();
        self.rising[rising] += 1;
        self.fixed[fixed] += 1;
        self.successions[successions] += 1;
        self.valleys[valleys] += 1;
        self.footrule[footrule] += 1;
        self.guesses[valley_guesser(rel)] += 1;
    }

    fn add_dealt(&mut self, game: &Game, out: &[u8]) {
        let k = game.hand_size;
        let cats = game.categories();
        for h in 0..game.hands {
            let mut hand = [0u8; 5];
            for (i, slot) in hand[..k].iter_mut().enumerate() {
                *slot = if game.round_robin {
                    out[h + i * game.hands]
                } else {
                    out[h * k + i]
                };
            }
            hand[..k].sort_unstable();
            let key = if k == 3 {
                rank3::key_sorted(&[hand[0], hand[1], hand[2]], &game.tie_breaks)
            } else {
                rank5::key_sorted(&hand, &game.tie_breaks)
            };
            self.dealt[h * cats + ranking::category(key) as usize] += 1;
        }
    }

    /// Add another tally of the same deck and game.
    pub fn merge(&mut self, other: &Tally) {
        fn add(a: &mut [u64], b: &[u64]) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        self.shuffles += other.shuffles;
        self.referenced += other.referenced;
        self.consecutive_pairs += other.consecutive_pairs;
        self.serial_sum += other.serial_sum;
        self.serial_sumsq += other.serial_sumsq;
        add(&mut self.position, &other.position);
        add(&mut self.successor, &other.successor);
        add(&mut self.lehmer, &other.lehmer);
        add(&mut self.lehmer_pairs, &other.lehmer_pairs);
        add(&mut self.runs, &other.runs);
        add(&mut self.rising, &other.rising);
        add(&mut self.fixed, &other.fixed);
        add(&mut self.successions, &other.successions);
        add(&mut self.valleys, &other.valleys);
        add(&mut self.footrule, &other.footrule);
        add(&mut self.guesses, &other.guesses);
        add(&mut self.matches, &other.matches);
        add(&mut self.consecutive, &other.consecutive);
        add(&mut self.coupon, &other.coupon);
        add(&mut self.dealt, &other.dealt);
    }

    /// Every table by name with its shape, for export.
    #[must_use]
    pub fn tables(&self) -> Vec<(&'static str, Vec<usize>, &[u64])> {
        let n = self.deck.size();
        let t = self.deck.symbols();
        let mut v: Vec<(&'static str, Vec<usize>, &[u64])> = vec![
            ("position", vec![t, n], &self.position),
            ("successor", vec![t, t], &self.successor),
            ("coupon", vec![self.coupon.len()], &self.coupon),
        ];
        if self.deck.distinct() {
            v.extend([
                ("lehmer", vec![n, n], &self.lehmer[..]),
                (
                    "lehmer_pairs",
                    vec![self.lehmer_pairs.len()],
                    &self.lehmer_pairs[..],
                ),
                ("runs", vec![n + 1], &self.runs[..]),
                ("rising", vec![n + 1], &self.rising[..]),
                ("fixed", vec![n + 1], &self.fixed[..]),
                ("successions", vec![n + 1], &self.successions[..]),
                ("valleys", vec![n + 1], &self.valleys[..]),
                ("footrule", vec![self.footrule.len()], &self.footrule[..]),
                ("guesses", vec![n + 1], &self.guesses[..]),
                ("consecutive", vec![n, n], &self.consecutive[..]),
            ]);
        }
        if !self.deck.distinct() {
            v.push(("matches", vec![n + 1], &self.matches));
        }
        if let Some(g) = self.game {
            v.push(("dealt", vec![g.hands, g.categories()], &self.dealt));
        }
        v
    }
}

/// One device's coupon collection in progress: symbols seen on top, shuffles so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct Collector {
    seen: u64,
    shuffles: usize,
}

impl Collector {
    /// Record the top symbol of the next shuffle (of a deck of `symbols` symbols): a completed
    /// collection gives its index in the coupon histogram.
    pub fn add(&mut self, top: u8, symbols: usize) -> Option<usize> {
        self.seen |= 1u64 << top;
        self.shuffles += 1;
        if self.seen == (1u64 << symbols) - 1 {
            let at = self.shuffles.min(COUPON_SPAN * symbols);
            *self = Collector::default();
            return Some(at);
        }
        None
    }
}

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

/// Correct guesses, with feedback, of a guesser who follows valleys (Diaconis, Fulman and
/// Holmes 2013): after an ascent guess the smallest unseen label above the last card, after a
/// descent the largest unseen below it, falling back to the other side; the first guess is the
/// smallest label. Every guess is an unseen label, so under uniformity the count of correct
/// guesses is a sum of independent Bernoulli(1/k), k = 1..n.
#[must_use]
#[allow(clippy::needless_bitwise_bool)]
pub fn valley_guesser(rel: &[u8]) -> usize {
    let n = rel.len();
    let mut unseen: u64 = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let mut guess = 0u8;
    let mut correct = 0;
    let mut last = 0u8;
    for (p, &a) in rel.iter().enumerate() {
        // Branch-free: which side is guessed depends on the data, so a branch mispredicts.
        correct += usize::from(a == guess);
        unseen &= !(1u64 << a);
        if unseen == 0 {
            break;
        }
        let above = unseen & !((2u64 << a).wrapping_sub(1));
        let below = unseen & ((1u64 << a) - 1);
        let up = (p == 0) | (a > last);
        last = a;
        // After an ascent the smallest unseen label above, else the largest below; each falls
        // back to the other side when its own is empty (both empty only when all are seen).
        let pick_above = (above != 0) & (up | (below == 0));
        let smallest_above = above.trailing_zeros() as u8;
        let largest_below = 63 - (below | 1).leading_zeros() as u8;
        let mask = 0u8.wrapping_sub(u8::from(pick_above));
        guess = (smallest_above & mask) | (largest_below & !mask);
    }
    correct
}

/// 128-bit hash of an order, for spotting repeated orders.
#[must_use]
pub fn hash128(kind: u8, data: &[u8]) -> u128 {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let mut a = 0x9e37_79b9_7f4a_7c15 ^ u64::from(kind);
    let mut b = 0x632b_e59b_d9b4_e019 ^ (u64::from(kind) << 8);
    for chunk in data.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        a = mix(a ^ w).wrapping_add(0x9e37_79b9_7f4a_7c15);
        b = mix(b.rotate_left(17) ^ w ^ 0x5555_5555_5555_5555);
    }
    (u128::from(mix(a ^ data.len() as u64)) << 64) | u128::from(mix(b))
}

/// The set of sampled hashes hashes them by their low 64 bits: they are hashes already.
#[derive(Default)]
struct Low64(u64);

impl Hasher for Low64 {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, h: u128) {
        self.0 = h as u64;
    }
}

/// Repeated orders, in bounded memory: a distinct sample of order hashes (an order is kept when
/// its hash falls below a threshold that halves whenever the sample is full), so two identical
/// orders are either both sampled or both not, and a repeat among the sample is a repeat.
#[derive(Clone, Debug)]
pub struct RepeatSampler {
    pub threshold: u64,
    pub capacity: usize,
    pub offered: [u64; 2],
    pub repeats: [u64; 2],
    set: HashSet<u128, BuildHasherDefault<Low64>>,
}

impl RepeatSampler {
    #[must_use]
    pub fn new(capacity: usize) -> RepeatSampler {
        RepeatSampler {
            threshold: u64::MAX,
            capacity,
            offered: [0; 2],
            repeats: [0; 2],
            set: HashSet::default(),
        }
    }

    /// Offer an order: kind 0 is an output order, kind 1 a permutation relative to the input.
    pub fn offer(&mut self, kind: u8, order: &[u8]) {
        self.offer_hash(kind, hash128(kind, order));
    }

    /// Offer an order by its `hash128(kind, order)`.
    pub fn offer_hash(&mut self, kind: u8, h: u128) {
        self.offered[kind as usize] += 1;
        if (h >> 64) as u64 > self.threshold {
            return;
        }
        if !self.set.insert(h) {
            self.repeats[kind as usize] += 1;
        }
        while self.set.len() > self.capacity {
            self.threshold /= 2;
            let th = self.threshold;
            self.set.retain(|h| (h >> 64) as u64 <= th);
        }
    }

    /// Fraction of orders sampled, as threshold / 2^64.
    #[must_use]
    pub fn sampled_fraction(&self) -> f64 {
        (self.threshold as f64 + 1.0) / 18_446_744_073_709_551_616.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_against_itself() {
        let id: Vec<u8> = (0..52).collect();
        let mut t = Tally::new(DeckKind::Cards52, None);
        t.add(&id, Some(&id), Some(&id));
        assert_eq!(t.rising[1], 1);
        assert_eq!(t.fixed[52], 1);
        assert_eq!(t.successions[51], 1);
        assert_eq!(t.valleys[0], 1);
        assert_eq!(t.footrule[0], 1);
        assert_eq!(t.guesses[52], 1);
        assert_eq!(t.runs[1], 1);
        assert_eq!(t.consecutive[0], 1);
        assert_eq!(t.lehmer[0], 1);
        let rev: Vec<u8> = (0..52).rev().collect();
        t.add(&rev, Some(&id), None);
        assert_eq!(t.rising[52], 1);
        assert_eq!(t.runs[52], 1);
        assert_eq!(t.lehmer[51], 1);
    }

    #[test]
    fn repeats_survive_subsampling() {
        let mut s = RepeatSampler::new(64);
        for i in 0..10_000u32 {
            s.offer(0, &i.to_le_bytes());
        }
        assert!(s.threshold < u64::MAX / 64);
        assert_eq!(s.repeats[0], 0);
        for i in 0..10_000u32 {
            s.offer(0, &i.to_le_bytes());
        }
        assert!(s.repeats[0] > 0);
    }
}
