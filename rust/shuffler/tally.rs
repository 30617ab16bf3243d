//! The battery's streaming tallies: every table and per-shuffle histogram the tests need,
//! filled in one pass over the shuffles and mergeable across batches. Memory depends on the
//! deck size only, never on the number of shuffles.

use super::deck::DeckKind;
use super::guesser::valley_guesser52;
use super::stats::{input_counts, input_stats, relative};
use crate::cards;
use crate::cpu::{compiled_with, Avx512, Native};
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

    /// The category of the hand dealt to hand `h` from the shuffled deck `out`. Always inlined:
    /// the tallies' compilations for the CPU give it the bit-count instructions.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    #[must_use]
    pub fn category(&self, out: &[u8], h: usize) -> usize {
        let k = self.hand_size;
        // Card i of the hand, straight into the evaluator's registers (an array written card by
        // card in memory and read back whole waits for the stores).
        let card = |i: usize| {
            if self.round_robin {
                out[h + i * self.hands]
            } else {
                out[h * k + i]
            }
        };
        if k == 3 {
            let mut h3 = [card(0), card(1), card(2)];
            sort_network(&mut h3, &SORT3);
            ranking::category(rank3::key_sorted(&h3, &self.tie_breaks)) as usize
        } else {
            rank5::category([card(0), card(1), card(2), card(3), card(4)]) as usize
        }
    }
}

/// A sorting network of 3 elements: branch-free, where a general sort's comparisons on random
/// cards mispredict.
const SORT3: [(usize, usize); 3] = [(0, 1), (1, 2), (0, 1)];

#[inline]
fn sort_network<const K: usize>(v: &mut [u8; K], network: &[(usize, usize)]) {
    for &(a, b) in network {
        let (x, y) = (v[a], v[b]);
        v[a] = x.min(y);
        v[b] = x.max(y);
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
    fn add_against_input(&mut self, rel: &[u8]) {
        self.referenced += 1;
        for (table, at) in [
            &mut self.rising,
            &mut self.fixed,
            &mut self.successions,
            &mut self.valleys,
            &mut self.footrule,
            &mut self.guesses,
        ]
        .into_iter()
        .zip(input_stats(rel))
        {
            table[at] += 1;
        }
    }

    fn add_dealt(&mut self, game: &Game, out: &[u8]) {
        let cats = game.categories();
        for h in 0..game.hands {
            self.dealt[h * cats + game.category(out, h)] += 1;
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

/// An order given to a tally, if any.
type Order<'a> = Option<&'a [u8]>;

/// Counters of the hot tables: 32 bits while a task adds orders, widened into a `Tally` exactly
/// by `Counts52::flush_into` (a task flushes before a counter could overflow).
type Cell = u32;

const N52: usize = cards::DECK_SIZE;

/// `pair_blocks(52)` as constants: each block's start in `lehmer_pairs` and its row width
/// (the loop over them unrolls to constant offsets).
const PAIRS52: [(usize, usize); N52 / 2] = {
    let mut v = [(0, 0); N52 / 2];
    let mut at = 0;
    let mut j = 0;
    while j < N52 / 2 {
        let (a, b) = (N52 - 2 * j, N52 - 2 * j - 1);
        v[j] = (at, b);
        at += a * b;
        j += 1;
    }
    v
};

/// The tallies of 52-card decks as a parallel task fills them: the same counts as
/// `Tally::add`, in tables of half the width laid out with power-of-two rows (a card id masked
/// with 63 indexes them without a bounds check), so one shuffle's ~260 scattered increments
/// touch half the cache lines and run fewer instructions. `flush_into` adds them to a `Tally`.
pub struct Counts52 {
    game: Option<Game>,
    /// Filled by the compilation for `cpu::native_features`.
    native: Option<Native>,
    /// The tallies compiled with AVX-512, the guesser through its vector path.
    avx512: Option<Avx512>,
    shuffles: Cell,
    referenced: Cell,
    consecutive_pairs: Cell,
    serial_sum: u64,
    serial_sumsq: u128,
    /// `position[s][p]`, `successor[a][b]`, `consecutive[p][q]`.
    position: Box<[[Cell; 64]; 64]>,
    successor: Box<[[Cell; 64]; 64]>,
    consecutive: Box<[[Cell; 64]; 64]>,
    /// `Tally::lehmer_pairs`' layout. The pairs (2j, 2j + 1) are every digit, so the table
    /// of single digits is their margins, made at the flush: 52 increments an order fewer.
    lehmer_pairs: Vec<Cell>,
    /// runs, rising, fixed, successions, valleys, guesses.
    small: Box<[[Cell; 64]; 6]>,
    footrule: Box<[Cell; 2048]>,
    dealt: Vec<Cell>,
}

impl Counts52 {
    #[must_use]
    pub fn new(game: Option<Game>) -> Counts52 {
        Counts52 {
            game,
            native: Native::detect(),
            avx512: Avx512::detect(),
            shuffles: 0,
            referenced: 0,
            consecutive_pairs: 0,
            serial_sum: 0,
            serial_sumsq: 0,
            position: Box::new([[0; 64]; 64]),
            successor: Box::new([[0; 64]; 64]),
            consecutive: Box::new([[0; 64]; 64]),
            lehmer_pairs: vec![0; pair_blocks(N52).map(|(a, b)| a * b).sum()],
            small: Box::new([[0; 64]; 6]),
            footrule: Box::new([0; 2048]),
            dealt: game.map_or_else(Vec::new, |g| vec![0; g.hands * g.categories()]),
        }
    }

    /// `add_portable` compiled for this CPU: with AVX-512 (the guesser's vector path), with the
    /// bit-count instructions, or for the baseline. Each compilation is a function of its own
    /// with the features enabled and `add_portable` inlined into it (a closure handed to such a
    /// function is not always inlined, and then runs without them: 21% more instructions).
    #[inline]
    fn add(&mut self, out: &[u8], reference: Order, relative: Order, previous: Order) {
        #[cfg(target_arch = "x86_64")]
        {
            if self.avx512.is_some() {
                // SAFETY: an `Avx512` is made only on a CPU that has the features
                // (`Avx512::detect`).
                return unsafe { self.add_avx512(out, reference, relative, previous) };
            }
            if self.native.is_some() {
                // SAFETY: a `Native` is made only on a CPU that has the features
                // (`Native::detect`).
                return unsafe { self.add_native(out, reference, relative, previous) };
            }
        }
        self.add_portable(out, reference, relative, previous);
    }

    compiled_with!(
        avx512,
        fn add_avx512(
            self: &mut Self,
            out: &[u8],
            reference: Order,
            relative: Order,
            previous: Order,
        ) = Self::add_portable
    );
    compiled_with!(
        native,
        fn add_native(
            self: &mut Self,
            out: &[u8],
            reference: Order,
            relative: Order,
            previous: Order,
        ) = Self::add_portable
    );

    #[allow(clippy::needless_range_loop, clippy::inline_always)]
    #[inline(always)]
    /// `Tally::add` for a 52-card deck (`out`, `reference` and `previous` are permutations of
    /// the 52 cards, as the deck checker ensures), run through `add`.
    fn add_portable(&mut self, out: &[u8], reference: Order, relative: Order, previous: Order) {
        let out: &[u8; N52] = out.try_into().expect("a 52-card order");
        self.shuffles += 1;
        let mut unseen: u64 = (1u64 << N52) - 1;
        let mut digits = [0u8; N52];
        // One pass: each card's position and Lehmer digit, and the successor pair it ends
        // once there is a card before it.
        // Four cards a turn (the loop's own work, a quarter as often); the first card ends no
        // pair: its successor count goes to a row of its own, the unused row 63.
        let mut before = 63;
        for k in 0..N52 / 4 {
            for j in 0..4 {
                let i = 4 * k + j;
                let c = out[i] as usize & 63;
                self.position[c][i] += 1;
                let d = (unseen & ((1u64 << c) - 1)).count_ones() as usize;
                unseen &= !(1u64 << c);
                digits[i] = d as u8;
                self.successor[before][c] += 1;
                before = c;
            }
        }
        // Row 63 is no card's: the first card's count is dropped (it ends no pair).
        self.successor[63][out[0] as usize & 63] -= 1;
        // The descents and the serial products of the 51 pairs, in a loop of their own that
        // vectorises (32-bit lanes: at most 51 * 63 * 63); in the pass above, two scalar
        // operations a card.
        let (mut descents, mut serial) = (0u32, 0u32);
        for i in 0..N52 - 1 {
            let (x, y) = (u32::from(out[i] & 63), u32::from(out[i + 1] & 63));
            descents += u32::from(y < x);
            serial += x * y;
        }
        let (descents, serial) = (descents as usize, u64::from(serial));
        for (j, &(at, b)) in PAIRS52.iter().enumerate() {
            let (d0, d1) = (digits[2 * j] as usize, digits[2 * j + 1] as usize);
            self.lehmer_pairs[at + d0 * b + d1] += 1;
        }
        self.small[0][(descents + 1) & 63] += 1;
        self.serial_sum += serial;
        self.serial_sumsq += u128::from(serial * serial);
        // The relative permutation: the parse's (read where it lies, not copied: the
        // guesser's vector load would wait for the copy's stores), or made here.
        let mut made_here = [0u8; N52];
        let mut rel: &[u8; N52] = &made_here;
        if let Some(reference) = reference {
            if let Some(made) = relative {
                rel = made.try_into().expect("a 52-card order");
            } else {
                let mut pos_in = [0u8; 64];
                for (i, &c) in reference.iter().enumerate() {
                    pos_in[c as usize & 63] = i as u8;
                }
                for (r, &c) in made_here.iter_mut().zip(out) {
                    *r = pos_in[c as usize & 63];
                }
                rel = &made_here;
            }
            self.referenced += 1;
            let stats = input_counts(rel);
            for (row, at) in self.small[1..].iter_mut().zip(stats[..4].iter()) {
                row[at & 63] += 1;
            }
            self.footrule[stats[4] & 2047] += 1;
            self.small[5][valley_guesser52(rel, self.avx512, self.native) & 63] += 1;
        }
        if let Some(prev) = previous {
            self.consecutive_pairs += 1;
            if reference.is_some_and(|r| std::ptr::eq(r, prev)) {
                // The previous output is the reference itself (the place found the logged
                // input equal to it): its positions are `rel`.
                for q in 0..N52 {
                    self.consecutive[rel[q] as usize & 63][q] += 1;
                }
            } else {
                let mut pos_prev = [0u8; 64];
                for (p, &c) in prev.iter().enumerate() {
                    pos_prev[c as usize & 63] = p as u8;
                }
                for q in 0..N52 {
                    let p = pos_prev[out[q] as usize & 63] as usize;
                    self.consecutive[p & 63][q] += 1;
                }
            }
        }
        if let Some(game) = &self.game {
            let cats = game.categories();
            for h in 0..game.hands {
                self.dealt[h * cats + game.category(out, h)] += 1;
            }
        }
    }

    /// Whether another order could overflow a counter: time to flush.
    #[must_use]
    pub fn full(&self) -> bool {
        self.shuffles == Cell::MAX
    }

    /// Add the counts to `t` (a tally of 52-card decks of the same game). (Consumed, not
    /// cleared: its tables are a few hundred kilobytes to zero, and a task's counts are
    /// flushed once, at its end, but for a counter about to overflow.)
    pub fn flush_into(self, t: &mut Tally) {
        fn add<const W: usize>(to: &mut [u64], rows: &[[Cell; W]], width: usize) {
            for (chunk, row) in to.chunks_mut(width).zip(rows) {
                for (x, &y) in chunk.iter_mut().zip(row) {
                    *x += u64::from(y);
                }
            }
        }
        let n = N52;
        debug_assert_eq!(t.deck.size(), n);
        t.shuffles += u64::from(self.shuffles);
        t.referenced += u64::from(self.referenced);
        t.consecutive_pairs += u64::from(self.consecutive_pairs);
        t.serial_sum += u128::from(self.serial_sum);
        t.serial_sumsq += self.serial_sumsq;
        add(&mut t.position, &self.position[..], n);
        add(&mut t.successor, &self.successor[..], n);
        add(&mut t.consecutive, &self.consecutive[..], n);
        for (x, &y) in t.lehmer_pairs.iter_mut().zip(&self.lehmer_pairs) {
            *x += u64::from(y);
        }
        let mut offset = 0;
        for (j, (a, b)) in pair_blocks(n).enumerate() {
            let block = &self.lehmer_pairs[offset..offset + a * b];
            let (even, odd) = t.lehmer[2 * j * n..(2 * j + 2) * n].split_at_mut(n);
            for (d0, row) in block.chunks_exact(b).enumerate() {
                even[d0] += row.iter().map(|&y| u64::from(y)).sum::<u64>();
                for (x, &y) in odd.iter_mut().zip(row) {
                    *x += u64::from(y);
                }
            }
            offset += a * b;
        }
        for (table, row) in [
            &mut t.runs,
            &mut t.rising,
            &mut t.fixed,
            &mut t.successions,
            &mut t.valleys,
            &mut t.guesses,
        ]
        .into_iter()
        .zip(self.small.iter())
        {
            add(table, std::slice::from_ref(row), n + 1);
        }
        add(
            &mut t.footrule,
            std::slice::from_ref(&*self.footrule),
            n * n / 2 + 1,
        );
        for (x, &y) in t.dealt.iter_mut().zip(&self.dealt) {
            *x += u64::from(y);
        }
    }
}

/// A tally filled order by order through the fastest path for its deck: `Counts52` for
/// 52-card decks, `Tally::add` for the others; `add_to` adds it to another tally (no `Tally`
/// of its own is made for 52-card decks: a task's counts go straight into its batch).
pub struct Filler {
    deck: DeckKind,
    game: Option<Game>,
    tally: Option<Tally>,
    fast: Option<Counts52>,
}

impl Filler {
    #[must_use]
    pub fn new(deck: DeckKind, game: Option<Game>) -> Filler {
        let fast = deck == DeckKind::Cards52;
        Filler {
            deck,
            game,
            tally: (!fast).then(|| Tally::new(deck, game)),
            fast: fast.then(|| Counts52::new(game)),
        }
    }

    fn tally(&mut self) -> &mut Tally {
        let (deck, game) = (self.deck, self.game);
        self.tally.get_or_insert_with(|| Tally::new(deck, game))
    }

    /// `Tally::add`; `relative`, when given, is `relative(out, reference)` already made.
    #[inline]
    pub fn add(&mut self, out: &[u8], reference: Order, relative: Order, previous: Order) {
        if let Some(counts) = &mut self.fast {
            if counts.full() {
                // Cleared counts, compiled for the same CPU features.
                let mut cleared = Counts52::new(self.game);
                (cleared.native, cleared.avx512) = (counts.native, counts.avx512);
                let full = std::mem::replace(counts, cleared);
                full.flush_into(self.tally());
            }
        }
        match &mut self.fast {
            Some(counts) => counts.add(out, reference, relative, previous),
            None => self.tally().add(out, reference, previous),
        }
    }

    /// Add every order added to `t` (a tally of the same deck and game).
    pub fn add_to(self, t: &mut Tally) {
        if let Some(counts) = self.fast {
            counts.flush_into(t);
        }
        if let Some(tally) = &self.tally {
            t.merge(tally);
        }
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cpu::avx512_for;
    use crate::shuffler::guesser::tests::slow_guesser;

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

    pub(crate) fn shuffled(rng: &mut crate::shuffler::simulate::Rng, deck: &mut [u8]) {
        for i in (1..deck.len()).rev() {
            deck.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }

    /// Orders with the order each is judged against and its device's previous output.
    type Orders = [(Vec<u8>, Option<Vec<u8>>, Option<Vec<u8>>)];

    /// Every table of a 52-card tally from its definition, one order at a time, by linear
    /// searches (no bit tricks, no shared helpers): the slow reference of the fast path.
    #[allow(clippy::needless_range_loop)]
    fn slow_reference(orders: &Orders, game: Option<Game>) -> Tally {
        let n = 52;
        let mut t = Tally::new(DeckKind::Cards52, game);
        let find = |order: &[u8], c: u8| order.iter().position(|&x| x == c).unwrap();
        for (out, reference, previous) in orders {
            t.shuffles += 1;
            let mut digits = vec![0usize; n];
            for p in 0..n {
                t.position[out[p] as usize * n + p] += 1;
                digits[p] = out[p + 1..].iter().filter(|&&x| x < out[p]).count();
                t.lehmer[p * n + digits[p]] += 1;
            }
            let mut offset = 0;
            for j in 0..n / 2 {
                let (a, b) = (n - 2 * j, n - 2 * j - 1);
                t.lehmer_pairs[offset + digits[2 * j] * b + digits[2 * j + 1]] += 1;
                offset += a * b;
            }
            let mut runs = 1;
            let mut serial = 0u64;
            for p in 1..n {
                t.successor[out[p - 1] as usize * n + out[p] as usize] += 1;
                if out[p] < out[p - 1] {
                    runs += 1;
                }
                serial += u64::from(out[p - 1]) * u64::from(out[p]);
            }
            t.runs[runs] += 1;
            t.serial_sum += u128::from(serial);
            t.serial_sumsq += u128::from(serial) * u128::from(serial);
            if let Some(reference) = reference {
                t.referenced += 1;
                let rel: Vec<u8> = out.iter().map(|&c| find(reference, c) as u8).collect();
                let fixed = (0..n).filter(|&p| rel[p] as usize == p).count();
                let footrule: usize = (0..n).map(|p| (rel[p] as usize).abs_diff(p)).sum();
                // A rising sequence ends where label k + 1 comes before label k.
                let rising = 1
                    + (0..n as u8 - 1)
                        .filter(|&k| find(&rel, k + 1) < find(&rel, k))
                        .count();
                let successions = (1..n).filter(|&p| rel[p] == rel[p - 1] + 1).count();
                let valleys = (1..n - 1)
                    .filter(|&p| rel[p - 1] > rel[p] && rel[p] < rel[p + 1])
                    .count();
                t.fixed[fixed] += 1;
                t.footrule[footrule] += 1;
                t.rising[rising] += 1;
                t.successions[successions] += 1;
                t.valleys[valleys] += 1;
                t.guesses[slow_guesser(&rel)] += 1;
            }
            if let Some(prev) = previous {
                t.consecutive_pairs += 1;
                for q in 0..n {
                    t.consecutive[find(prev, out[q]) * n + q] += 1;
                }
            }
            if let Some(g) = game {
                for h in 0..g.hands {
                    let cards: Vec<u8> = (0..g.hand_size)
                        .map(|i| {
                            if g.round_robin {
                                out[h + i * g.hands]
                            } else {
                                out[h * g.hand_size + i]
                            }
                        })
                        .collect();
                    let key = if g.hand_size == 3 {
                        rank3::key([cards[0], cards[1], cards[2]], &g.tie_breaks)
                    } else {
                        rank5::key(
                            [cards[0], cards[1], cards[2], cards[3], cards[4]],
                            &g.tie_breaks,
                        )
                    };
                    t.dealt[h * g.categories() + ranking::category(key) as usize] += 1;
                }
            }
        }
        t
    }

    fn same(a: &Tally, b: &Tally) {
        assert_eq!(a.shuffles, b.shuffles);
        assert_eq!(a.referenced, b.referenced);
        assert_eq!(a.consecutive_pairs, b.consecutive_pairs);
        assert_eq!(
            (a.serial_sum, a.serial_sumsq),
            (b.serial_sum, b.serial_sumsq)
        );
        for ((name, shape, x), (_, _, y)) in a.tables().iter().zip(b.tables()) {
            assert_eq!(x, &y, "{name} {shape:?}");
        }
        assert_eq!(a.tables().len(), b.tables().len());
    }

    #[test]
    fn fast_tally_matches_the_slow_reference() {
        if Native::detect().is_none() {
            eprintln!("skipped: no AVX2/BMI2 on this CPU: the natively compiled tally not checked");
        }
        let vector = avx512_for("the AVX-512 tally");
        let mut rng = crate::shuffler::simulate::Rng::new(16);
        let games = [
            None,
            Some(Game {
                hand_size: 5,
                hands: 7,
                round_robin: false,
                tie_breaks: TieBreaks::STATUTE,
            }),
            Some(Game {
                hand_size: 5,
                hands: 10,
                round_robin: true,
                tie_breaks: TieBreaks::RANK_ONLY,
            }),
            Some(Game {
                hand_size: 3,
                hands: 17,
                round_robin: false,
                tie_breaks: TieBreaks::STATUTE,
            }),
        ];
        for game in games {
            let mut deck: Vec<u8> = (0..52).collect();
            let mut orders = Vec::new();
            for i in 0..600 {
                let previous = deck.clone();
                // Mostly random orders, some sorted or reversed (extreme statistics), some
                // nearly sorted (few rising sequences).
                match i % 10 {
                    0 => deck.sort_unstable(),
                    1 => deck.sort_unstable_by(|a, b| b.cmp(a)),
                    2 => deck.swap(rng.below(52) as usize, rng.below(52) as usize),
                    _ => shuffled(&mut rng, &mut deck),
                }
                let reference = (i % 3 != 0).then(|| previous.clone());
                let previous = (i % 4 != 1).then_some(previous);
                orders.push((deck.clone(), reference, previous));
            }
            let slow = slow_reference(&orders, game);
            let mut plain = Tally::new(DeckKind::Cards52, game);
            for (out, reference, previous) in &orders {
                plain.add(out, reference.as_deref(), previous.as_deref());
            }
            same(&plain, &slow);
            // The fast path as compiled for this CPU, and the portable one.
            for (native, avx512) in [
                (Native::detect(), vector),
                (Native::detect(), None),
                (None, None),
            ] {
                let mut fast = Filler::new(DeckKind::Cards52, game);
                let counts = fast.fast.as_mut().unwrap();
                (counts.native, counts.avx512) = (native, avx512);
                for (k, (out, reference, previous)) in orders.iter().enumerate() {
                    if k == 250 {
                        // A counter about to overflow: flushed before the next order.
                        let counts = fast.fast.as_mut().unwrap();
                        let added = std::mem::replace(&mut counts.shuffles, Cell::MAX);
                        fast.add(out, reference.as_deref(), None, previous.as_deref());
                        let counts = fast.fast.as_ref().unwrap();
                        assert_eq!((counts.shuffles, counts.native), (1, native));
                        // The flushed tally counted the shuffles the counter was set to.
                        fast.tally().shuffles -= u64::from(Cell::MAX - added);
                        continue;
                    }
                    // Every other order with its relative permutation already made.
                    let mut rel = [0u8; 52];
                    let relative = reference.as_deref().filter(|_| k % 2 == 0).map(|r| {
                        relative(out, r, &mut rel);
                        &rel[..]
                    });
                    // Where the previous output is the reference, every third order gets them
                    // as one slice (as the log's place gives a logged input equal to it).
                    let previous = match (reference, previous) {
                        (Some(r), Some(p)) if r == p && k % 3 == 1 => Some(&r[..]),
                        _ => previous.as_deref(),
                    };
                    fast.add(out, reference.as_deref(), relative, previous);
                }
                let mut t = Tally::new(DeckKind::Cards52, game);
                fast.add_to(&mut t);
                same(&t, &slow);
            }
        }
    }

    #[test]
    fn multiset_decks_fill_as_tally_add() {
        use crate::mahjong::tiles::TileSet;
        let mut rng = crate::shuffler::simulate::Rng::new(7);
        for deck in [
            DeckKind::Mahjong(TileSet::Traditional),
            DeckKind::Mahjong(TileSet::Simple),
        ] {
            let mut wall: Vec<u8> = (0..deck.size()).map(|i| deck.symbol_of_item(i)).collect();
            let mut fast = Filler::new(deck, None);
            let mut slow = Tally::new(deck, None);
            let mut previous = wall.clone();
            for i in 0..200 {
                shuffled(&mut rng, &mut wall);
                let reference = (i % 2 == 0).then_some(&previous[..]);
                fast.add(&wall, reference, None, None);
                // From the definitions: position, successor, matches against the input.
                slow.shuffles += 1;
                for p in 0..wall.len() {
                    slow.position[wall[p] as usize * deck.size() + p] += 1;
                    if p > 0 {
                        slow.successor[wall[p - 1] as usize * deck.symbols() + wall[p] as usize] +=
                            1;
                    }
                }
                if let Some(r) = reference {
                    slow.referenced += 1;
                    slow.matches[(0..wall.len()).filter(|&p| wall[p] == r[p]).count()] += 1;
                }
                previous.clone_from(&wall);
            }
            let mut t = Tally::new(deck, None);
            fast.add_to(&mut t);
            same(&t, &slow);
        }
    }

    #[test]
    fn the_constant_pair_blocks_are_pair_blocks() {
        let mut at = 0;
        let blocks: Vec<(usize, usize)> = pair_blocks(N52)
            .map(|(a, b)| {
                at += a * b;
                (at - a * b, b)
            })
            .collect();
        assert_eq!(PAIRS52[..], blocks[..]);
        assert_eq!((PAIRS52[0], PAIRS52[25]), ((0, 51), (at - 2, 1)));
    }

    #[test]
    fn the_sorting_network_sorts() {
        // Every permutation of 3 distinct values, and (0-1 principle) every 0/1 input.
        for v in [
            [0u8, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ] {
            let mut w = v;
            sort_network(&mut w, &SORT3);
            assert_eq!(w, [0, 1, 2], "{v:?}");
        }
        for bits in 0..8u8 {
            let mut w: [u8; 3] = std::array::from_fn(|i| (bits >> i) & 1);
            let ones = bits.count_ones() as usize;
            sort_network(&mut w, &SORT3);
            let want: [u8; 3] = std::array::from_fn(|i| u8::from(i >= 3 - ones));
            assert_eq!(w, want, "{bits:03b}");
        }
    }
}
