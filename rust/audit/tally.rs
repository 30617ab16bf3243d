//! The battery's streaming tallies: every table and per-shuffle histogram the tests need,
//! filled in one pass over the shuffles and mergeable across batches. Memory depends on the
//! deck size only, never on the number of shuffles.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::deck::DeckKind;
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
        let mut descents = 0;
        let mut serial = 0u64;
        // One pass: each card's position and Lehmer digit, and the pair it ends (successor,
        // descent, serial product) once there is a card before it.
        let mut before = out[0] as usize & 63;
        for i in 0..N52 {
            let c = out[i] as usize & 63;
            self.position[c][i] += 1;
            let d = (unseen & ((1u64 << c) - 1)).count_ones() as usize;
            unseen &= !(1u64 << c);
            digits[i] = d as u8;
            if i > 0 {
                self.successor[before][c] += 1;
                descents += usize::from(c < before);
                serial += (before * c) as u64;
            }
            before = c;
        }
        let mut offset = 0;
        for (j, (a, b)) in pair_blocks(N52).enumerate() {
            let (d0, d1) = (digits[2 * j] as usize, digits[2 * j + 1] as usize);
            self.lehmer_pairs[offset + d0 * b + d1] += 1;
            offset += a * b;
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
            self.small[5][valley_guesser52(rel, self.avx512) & 63] += 1;
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

    /// Add the counts to `t` (a tally of 52-card decks of the same game) and clear them.
    pub fn flush_into(&mut self, t: &mut Tally) {
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
        let (native, avx512) = (self.native, self.avx512);
        *self = Counts52::new(self.game);
        (self.native, self.avx512) = (native, avx512);
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
                let mut counts = std::mem::replace(counts, Counts52::new(self.game));
                counts.flush_into(self.tally());
                self.fast = Some(counts);
            }
        }
        match &mut self.fast {
            Some(counts) => counts.add(out, reference, relative, previous),
            None => self.tally().add(out, reference, previous),
        }
    }

    /// Add every order added to `t` (a tally of the same deck and game).
    pub fn add_to(self, t: &mut Tally) {
        if let Some(mut counts) = self.fast {
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
fn input_counts(rel: &[u8]) -> [usize; 5] {
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

/// `valley_guesser` of a 52-card order, with AVX-512 when given its proof.
#[allow(clippy::inline_always)]
#[inline(always)]
#[must_use]
pub fn valley_guesser52(rel: &[u8; N52], avx512: Option<Avx512>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if avx512.is_some() {
        // SAFETY: an `Avx512` is made only on a CPU that has the features (`Avx512::detect`).
        return unsafe { guesser_avx512::valley_guesser52(rel) };
    }
    let _ = avx512;
    valley_guesser(rel)
}

/// The valley guesser eight cards at a time. Its guesses do not depend on each other: the guess
/// after card `i` is decided by card `i`, the card before it and the labels unseen after it,
/// and those are a prefix union of one-bit masks, computed in the lanes by doubling steps. Then
/// every lane computes the scalar loop's step at once (the trailing zero count of the labels
/// above as the leading zero count of their lowest bit) and compares its guess with the card
/// after. 7 vectors of 8 steps stand for 51 scalar steps of about 17 instructions each.
#[cfg(target_arch = "x86_64")]
mod guesser_avx512 {
    use super::N52;
    use std::arch::x86_64::{
        __m512i, _mm512_alignr_epi64, _mm512_and_si512, _mm512_andnot_si512,
        _mm512_cmpeq_epi64_mask, _mm512_cmpgt_epu64_mask, _mm512_cvtepu8_epi64,
        _mm512_extracti32x4_epi32, _mm512_lzcnt_epi64, _mm512_mask_blend_epi64,
        _mm512_maskz_loadu_epi8, _mm512_or_si512, _mm512_permutexvar_epi64, _mm512_set1_epi64,
        _mm512_setzero_si512, _mm512_sllv_epi64, _mm512_sub_epi64, _mm512_test_epi64_mask,
        _mm_unpackhi_epi64,
    };

    /// The 52 labels as 7 vectors of eight 64-bit lanes (zeros past the last), and a zero
    /// vector after them. One load of the whole order: eight-byte loads of an order written
    /// byte by byte just before would each wait for the stores.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn lanes(rel: &[u8; N52]) -> [__m512i; 8] {
        // SAFETY: the mask reads the 52 bytes of `rel` only (masked-out bytes are not read).
        let all = unsafe { _mm512_maskz_loadu_epi8((1u64 << N52) - 1, rel.as_ptr().cast()) };
        let quarters = [
            _mm512_extracti32x4_epi32::<0>(all),
            _mm512_extracti32x4_epi32::<1>(all),
            _mm512_extracti32x4_epi32::<2>(all),
            _mm512_extracti32x4_epi32::<3>(all),
        ];
        let mut v = [_mm512_setzero_si512(); 8];
        for (k, q) in quarters.into_iter().enumerate() {
            v[2 * k] = _mm512_cvtepu8_epi64(q);
            if 2 * k + 1 < 7 {
                v[2 * k + 1] = _mm512_cvtepu8_epi64(_mm_unpackhi_epi64(q, q));
            }
        }
        v
    }

    #[target_feature(enable = "popcnt,avx512f,avx512bw,avx512cd")]
    pub fn valley_guesser52(rel: &[u8; N52]) -> usize {
        let cards = lanes(rel);
        let zero = _mm512_setzero_si512();
        let one = _mm512_set1_epi64(1);
        let top = _mm512_set1_epi64(63);
        let last_lane = _mm512_set1_epi64(7);
        let deck = _mm512_set1_epi64(((1u64 << N52) - 1).cast_signed());
        // Labels seen up to the previous vector, in every lane.
        let mut seen_before = zero;
        // The first guess (label 0) is right when the first card is label 0.
        let mut hits = u64::from(rel[0] == 0);
        // Lanes 8v..8v+7 are the guesses after cards 8v..8v+7; cards 0..=50 are followed by
        // one (51 guesses).
        let mut previous = zero;
        for v in 0..7 {
            let a = cards[v];
            // The card before each (a 0 before the first) and the card after each.
            let before = _mm512_alignr_epi64::<7>(a, previous);
            let next = _mm512_alignr_epi64::<1>(cards[v + 1], a);
            previous = a;
            let bit = _mm512_sllv_epi64(one, a);
            // Prefix union over the lanes: shift by 1, 2, 4 lanes and or.
            let mut seen = _mm512_or_si512(bit, _mm512_alignr_epi64::<7>(bit, zero));
            seen = _mm512_or_si512(seen, _mm512_alignr_epi64::<6>(seen, zero));
            seen = _mm512_or_si512(seen, _mm512_alignr_epi64::<4>(seen, zero));
            seen = _mm512_or_si512(seen, seen_before);
            seen_before = _mm512_permutexvar_epi64(last_lane, seen);
            // Unseen labels of the deck below and above the card.
            let unseen = _mm512_andnot_si512(seen, deck);
            let below = _mm512_and_si512(unseen, _mm512_sub_epi64(bit, one));
            let above = _mm512_andnot_si512(below, unseen);
            // An ascent: the card is above the one before. The first card (the 0 before it)
            // is one unless it is label 0, and then no label is below it: the guess is above
            // all the same.
            let up = _mm512_cmpgt_epu64_mask(a, before);
            let has_above = _mm512_test_epi64_mask(above, above);
            let has_below = _mm512_test_epi64_mask(below, below);
            let pick_above = has_above & (up | !has_below);
            let lowest_above = _mm512_and_si512(above, _mm512_sub_epi64(zero, above));
            let smallest_above = _mm512_sub_epi64(top, _mm512_lzcnt_epi64(lowest_above));
            let largest_below =
                _mm512_sub_epi64(top, _mm512_lzcnt_epi64(_mm512_or_si512(below, one)));
            let guess = _mm512_mask_blend_epi64(pick_above, largest_below, smallest_above);
            let right = _mm512_cmpeq_epi64_mask(guess, next);
            hits |= u64::from(right) << (8 * v + 1);
        }
        // Bit 0: the first guess; bit i + 1: the guess after card i, for i < 51.
        (hits & ((1u64 << N52) - 1)).count_ones() as usize
    }
}

/// The state of `hash128` over the words of one order.
struct Hash128 {
    a: u64,
    b: u64,
}

#[allow(clippy::inline_always)]
impl Hash128 {
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[inline(always)]
    fn new(kind: u8) -> Hash128 {
        Hash128 {
            a: 0x9e37_79b9_7f4a_7c15 ^ u64::from(kind),
            b: 0x632b_e59b_d9b4_e019 ^ (u64::from(kind) << 8),
        }
    }

    #[inline(always)]
    fn step(&mut self, w: u64) {
        self.a = Hash128::mix(self.a ^ w).wrapping_add(0x9e37_79b9_7f4a_7c15);
        self.b = Hash128::mix(self.b.rotate_left(17) ^ w ^ 0x5555_5555_5555_5555);
    }

    #[inline(always)]
    fn finish(&self, len: usize) -> u128 {
        (u128::from(Hash128::mix(self.a ^ len as u64)) << 64) | u128::from(Hash128::mix(self.b))
    }

    /// The words of `data`, little-endian: whole words as loads, a last part word padded
    /// with zeros.
    #[inline(always)]
    fn words(data: &[u8]) -> impl Iterator<Item = u64> + '_ {
        data.chunks(8).map(|part| {
            let mut w = [0u8; 8];
            if let Ok(word) = part.try_into() {
                w = word;
            } else {
                w[..part.len()].copy_from_slice(part);
            }
            u64::from_le_bytes(w)
        })
    }
}

/// 128-bit hash of an order, for spotting repeated orders.
#[must_use]
pub fn hash128(kind: u8, data: &[u8]) -> u128 {
    let mut h = Hash128::new(kind);
    for w in Hash128::words(data) {
        h.step(w);
    }
    h.finish(data.len())
}

/// `(hash128(kinds.0, first), hash128(kinds.1, second))`, the two chains of multiplications
/// interleaved (each word waits on the one before: one hash at a time leaves the multiplier
/// idle most of the time).
#[must_use]
pub fn hash128_pair(kinds: (u8, u8), first: &[u8], second: &[u8]) -> (u128, u128) {
    if first.len() != second.len() {
        return (hash128(kinds.0, first), hash128(kinds.1, second));
    }
    let (mut h0, mut h1) = (Hash128::new(kinds.0), Hash128::new(kinds.1));
    for (w0, w1) in Hash128::words(first).zip(Hash128::words(second)) {
        h0.step(w0);
        h1.step(w1);
    }
    (h0.finish(first.len()), h1.finish(second.len()))
}

/// `hash128` of orders of `size` bytes: `hashes[i] = (hash128(0, out), rel.map(|r| hash128(1,
/// r)))` for `at[i] = (out, rel)`, the offsets of the orders in `orders`. 52-byte orders with
/// AVX-512 (given its proof, `Avx512::detect`) are hashed eight at a time, one in each 64-bit
/// lane, the others two at a time (`hash128_pair`): the hash is chains of dependent
/// multiplications, which one order at a time leave the multiplier waiting.
pub fn hash128_orders(
    orders: &[u8],
    size: usize,
    at: &[(usize, Option<usize>)],
    hashes: &mut Vec<(u128, Option<u128>)>,
    avx512: Option<Avx512>,
) {
    fn put(slot: &mut (u128, Option<u128>), kind: u8, h: u128) {
        if kind == 0 {
            slot.0 = h;
        } else {
            slot.1 = Some(h);
        }
    }
    hashes.clear();
    hashes.resize(at.len(), (0, None));
    let mut jobs: Vec<(u8, usize, usize)> = Vec::with_capacity(2 * at.len());
    for (i, &(out, rel)) in at.iter().enumerate() {
        assert!(out + size <= orders.len(), "an order inside the buffer");
        jobs.push((0, out, i));
        if let Some(r) = rel {
            assert!(r + size <= orders.len(), "an order inside the buffer");
            jobs.push((1, r, i));
        }
    }
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if avx512.is_some() && size == N52 {
        for eight in jobs.chunks_exact(8) {
            let lanes: [(u8, usize); 8] = std::array::from_fn(|l| (eight[l].0, eight[l].1));
            // SAFETY: the CPU has the features (an `Avx512` is made only by `Avx512::detect`);
            // the orders are inside the buffer (asserted above).
            let h = unsafe { hash_avx512::eight52(orders, &lanes) };
            for (&(kind, _, i), h) in eight.iter().zip(h) {
                put(&mut hashes[i], kind, h);
            }
        }
        done = jobs.len() / 8 * 8;
    }
    let _ = avx512;
    let order = |off: usize| &orders[off..off + size];
    for two in jobs[done..].chunks(2) {
        if let [(k0, o0, i0), (k1, o1, i1)] = *two {
            let (h0, h1) = hash128_pair((k0, k1), order(o0), order(o1));
            put(&mut hashes[i0], k0, h0);
            put(&mut hashes[i1], k1, h1);
        } else {
            for &(kind, off, i) in two {
                put(&mut hashes[i], kind, hash128(kind, order(off)));
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod hash_avx512 {
    use super::N52;
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_i64gather_epi64, _mm512_mullo_epi64, _mm512_rol_epi64,
        _mm512_set1_epi64, _mm512_srli_epi64, _mm512_storeu_si512, _mm512_xor_si512,
    };

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn mix(z: __m512i) -> __m512i {
        let k1 = _mm512_set1_epi64(0xbf58_476d_1ce4_e5b9_u64.cast_signed());
        let k2 = _mm512_set1_epi64(0x94d0_49bb_1331_11eb_u64.cast_signed());
        let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<30>(z)), k1);
        let z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64::<27>(z)), k2);
        _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z))
    }

    fn lanes(f: impl Fn(usize) -> u64) -> __m512i {
        let v: [u64; 8] = std::array::from_fn(f);
        // SAFETY: 64 bytes read from an array of 64 bytes.
        unsafe { std::ptr::read_unaligned(v.as_ptr().cast()) }
    }

    /// `hash128(kind, &orders[off..off + 52])` for the eight `(kind, off)`: `Hash128`'s steps
    /// in the lanes.
    ///
    /// # Safety
    /// Every `off + 52 <= orders.len()`.
    // The casts to `i64` are of offsets within an order (at most 52).
    #[allow(clippy::cast_possible_wrap)]
    #[target_feature(enable = "avx512f,avx512dq")]
    pub unsafe fn eight52(orders: &[u8], lanes8: &[(u8, usize); 8]) -> [u128; 8] {
        let mut a = lanes(|l| 0x9e37_79b9_7f4a_7c15 ^ u64::from(lanes8[l].0));
        let mut b = lanes(|l| 0x632b_e59b_d9b4_e019 ^ (u64::from(lanes8[l].0) << 8));
        let offsets = lanes(|l| lanes8[l].1 as u64);
        let add_a = _mm512_set1_epi64(0x9e37_79b9_7f4a_7c15_u64.cast_signed());
        let xor_b = _mm512_set1_epi64(0x5555_5555_5555_5555_u64.cast_signed());
        let base: *const i64 = orders.as_ptr().cast();
        for j in 0..N52.div_ceil(8) {
            let w = if 8 * j + 8 <= N52 {
                // SAFETY: bytes off + 8j .. off + 8j + 8 are inside the order.
                unsafe {
                    _mm512_i64gather_epi64::<1>(
                        _mm512_add_epi64(offsets, _mm512_set1_epi64((8 * j) as i64)),
                        base,
                    )
                }
            } else {
                // The last 4 bytes, zero-padded: the word ending at the order's end, shifted.
                // SAFETY: bytes off + 44 .. off + 52 are inside the order.
                let tail = unsafe {
                    _mm512_i64gather_epi64::<1>(
                        _mm512_add_epi64(offsets, _mm512_set1_epi64((N52 - 8) as i64)),
                        base,
                    )
                };
                _mm512_srli_epi64::<32>(tail)
            };
            a = _mm512_add_epi64(mix(_mm512_xor_si512(a, w)), add_a);
            b = mix(_mm512_xor_si512(
                _mm512_xor_si512(_mm512_rol_epi64::<17>(b), w),
                xor_b,
            ));
        }
        let hi = mix(_mm512_xor_si512(a, _mm512_set1_epi64(N52 as i64)));
        let lo = mix(b);
        let (mut his, mut los) = ([0u64; 8], [0u64; 8]);
        // SAFETY: 64-byte stores into arrays of 64 bytes.
        unsafe {
            _mm512_storeu_si512(his.as_mut_ptr().cast(), hi);
            _mm512_storeu_si512(los.as_mut_ptr().cast(), lo);
        }
        std::array::from_fn(|l| (u128::from(his[l]) << 64) | u128::from(los[l]))
    }
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

    /// The AVX-512 proof for a test's vector path, or, on a CPU without it, a line on stderr
    /// saying which assertions were not checked (a Rust test cannot mark itself ignored at run
    /// time, and a silent pass would read as a checked one).
    fn avx512_for(what: &str) -> Option<Avx512> {
        let avx512 = Avx512::detect();
        if avx512.is_none() {
            eprintln!("skipped: no AVX-512 on this CPU: {what} not checked");
        }
        avx512
    }

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

    fn shuffled(rng: &mut crate::audit::simulate::Rng, deck: &mut [u8]) {
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

    /// The valley guesser as its definition reads, on a set of unseen labels.
    fn slow_guesser(rel: &[u8]) -> usize {
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
        let mut rng = crate::audit::simulate::Rng::new(16);
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
    fn the_guesser_eight_cards_at_a_time_guesses_as_the_definition() {
        let mut rng = crate::audit::simulate::Rng::new(52);
        let mut rel: Vec<u8> = (0..52).collect();
        let vector = avx512_for("the AVX-512 guesser");
        let mut checked = 0;
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
            assert_eq!(valley_guesser52(order, None), expected, "{rel:?}");
            if let Some(avx512) = vector {
                assert_eq!(valley_guesser52(order, Some(avx512)), expected, "{rel:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, if vector.is_some() { 20_000 } else { 0 });
        // The identity: every guess is right.
        rel.sort_unstable();
        assert_eq!(
            valley_guesser52(rel.as_slice().try_into().unwrap(), vector),
            52
        );
    }

    #[test]
    fn multiset_decks_fill_as_tally_add() {
        use crate::mahjong::tiles::TileSet;
        let mut rng = crate::audit::simulate::Rng::new(7);
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

    #[test]
    fn hash128_reads_words_as_the_byte_by_byte_padding_does() {
        // The hash as first written: every part of 8 bytes copied into a zeroed word.
        fn reference(kind: u8, data: &[u8]) -> u128 {
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
        let mut rng = crate::audit::simulate::Rng::new(128);
        let data: Vec<u8> = (0..80).map(|_| rng.below(256) as u8).collect();
        for len in 0..=data.len() {
            for kind in [0, 1] {
                assert_eq!(
                    hash128(kind, &data[..len]),
                    reference(kind, &data[..len]),
                    "{len}"
                );
            }
        }
        for (a, b) in [(0, 0), (52, 52), (13, 52), (80, 3)] {
            assert_eq!(
                hash128_pair((0, 1), &data[..a], &data[data.len() - b..]),
                (hash128(0, &data[..a]), hash128(1, &data[data.len() - b..])),
                "{a} {b}"
            );
        }
        // A value pinned (computed apart, in Python): the repeated-order sample does not move
        // between versions.
        let identity: Vec<u8> = (0..52).collect();
        assert_eq!(
            hash128(0, &identity),
            0x0717_b538_7268_0b61_7d0e_b49f_106f_f58e
        );
    }

    #[test]
    fn hash128_of_many_orders_is_hash128_of_each() {
        let vector = avx512_for("the AVX-512 order hashes");
        let mut rng = crate::audit::simulate::Rng::new(8);
        let orders: Vec<u8> = (0..52 * 40).map(|_| rng.below(256) as u8).collect();
        // 52-card orders (eight at a time with AVX-512) and mahjong walls (two at a time).
        for size in [52, 136] {
            let anywhere = orders.len() as u64 - size as u64 + 1;
            for count in 0..=20 {
                // Orders anywhere in the buffer (the last one ending at its end), some relative.
                let at: Vec<(usize, Option<usize>)> = (0..count)
                    .map(|i| {
                        let out = if i == 0 {
                            orders.len() - size
                        } else {
                            rng.below(anywhere) as usize
                        };
                        (out, (i % 3 != 1).then(|| rng.below(anywhere) as usize))
                    })
                    .collect();
                let expected: Vec<(u128, Option<u128>)> = at
                    .iter()
                    .map(|&(o, r)| {
                        (
                            hash128(0, &orders[o..o + size]),
                            r.map(|r| hash128(1, &orders[r..r + size])),
                        )
                    })
                    .collect();
                for avx512 in [None, vector] {
                    let mut hashes = vec![(1, Some(1)); 3];
                    hash128_orders(&orders, size, &at, &mut hashes, avx512);
                    assert_eq!(hashes, expected, "{size}: {count} orders, {avx512:?}");
                }
            }
        }
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
