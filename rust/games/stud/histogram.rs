//! The sweep's histogram: for every card set `S` of at most the player's card count, how many
//! of the dealer hands inserted so far contain `S` (one lane per upcard `u`, counting the hands
//! that also hold `u`; or one lane without an upcard). The dealer hands disjoint from a player
//! hand `P` are then `sum over S ⊆ P of (-1)^|S| row[S]` (inclusion–exclusion).
//!
//! Rows are stored by the size of `S`, each size in the narrowest cells its largest possible
//! count fits (a bit, a byte, 16 or 32 bits): a set of `k` cards is in at most
//! `C(D - k - 1, dealer - k - 1)` dealer hands that also hold a given upcard outside it. Lanes
//! of an upcard inside `S` are never asked (the upcard would be in the player's hand) and never
//! counted, which keeps that bound. So the rows the queries walk at random are a few megabytes,
//! not hundreds.

use std::ops::Range;

use super::MAX_CARDS;
use crate::cpu::Avx2;
use crate::enumerate::choose;

/// A sub-set of a hand's cards: its size, its colex index among the sets of that size (over
/// deck positions) and its cards.
#[derive(Clone, Copy, Default)]
pub struct Subset {
    size: u8,
    index: u32,
    cards: u64,
}

/// Room for the sub-sets of a hand of `MAX_CARDS` cards.
pub type Scratch = [Subset; 1 << MAX_CARDS];

const SUBMASKS: usize = 1 << MAX_CARDS;

/// For each number of cards `n`, the sub-masks of an `n`-card list, fewest cards first.
const BY_SIZE: [[u8; SUBMASKS]; MAX_CARDS + 1] = {
    let mut out = [[0u8; SUBMASKS]; MAX_CARDS + 1];
    let mut n = 0;
    while n <= MAX_CARDS {
        let mut k = 0;
        let mut size = 0;
        while size <= n as u32 {
            let mut s = 0usize;
            while s < 1 << n {
                if s.count_ones() == size {
                    out[n][k] = s as u8;
                    k += 1;
                }
                s += 1;
            }
            size += 1;
        }
        n += 1;
    }
    out
};

/// Where each sub-mask of an `n`-card list is in `BY_SIZE[n]`.
const PLACE: [[u8; SUBMASKS]; MAX_CARDS + 1] = {
    let mut out = [[0u8; SUBMASKS]; MAX_CARDS + 1];
    let mut n = 0;
    while n <= MAX_CARDS {
        let mut k = 0;
        while k < 1 << n {
            out[n][BY_SIZE[n][k] as usize] = k as u8;
            k += 1;
        }
        n += 1;
    }
    out
};

/// Each sub-mask's highest card (its place in the list; 0 for the empty mask).
const HIGHEST: [u8; SUBMASKS] = {
    let mut out = [0u8; SUBMASKS];
    let mut s = 1;
    while s < SUBMASKS {
        out[s] = (usize::BITS - 1 - s.leading_zeros()) as u8;
        s += 1;
    }
    out
};

/// Each sub-mask's number of cards (a table: the portable x86-64 baseline has no population
/// count instruction).
const SIZE: [u8; SUBMASKS] = {
    let mut out = [0u8; SUBMASKS];
    let mut s = 1;
    while s < SUBMASKS {
        out[s] = s.count_ones() as u8;
        s += 1;
    }
    out
};

/// `AT_MOST[n][k]`: how many sub-masks of an `n`-card list have at most `k` cards (the first
/// ones of `BY_SIZE[n]`).
const AT_MOST: [[u8; MAX_CARDS + 1]; MAX_CARDS + 1] = {
    let mut out = [[0u8; MAX_CARDS + 1]; MAX_CARDS + 1];
    let mut n = 0;
    while n <= MAX_CARDS {
        let mut s = 0;
        while s < 1 << n {
            let mut k = SIZE[s] as usize;
            while k <= MAX_CARDS {
                out[n][k] += 1;
                k += 1;
            }
            s += 1;
        }
        n += 1;
    }
    out
};

/// Every sub-set of `mask` (a set of deck positions) with at most `max` cards, fewest cards
/// first, into `out`; returns how many. Each is built from the one without its highest card.
pub fn subsets(mask: u64, max: usize, out: &mut Scratch) -> usize {
    let mut pos = [0u8; MAX_CARDS];
    let mut n = 0;
    let mut m = mask;
    while m != 0 {
        pos[n] = m.trailing_zeros() as u8;
        n += 1;
        m &= m - 1;
    }
    // terms[h][k]: card h's colex term at place k - 1 of a set.
    let mut terms = [[0u32; MAX_CARDS + 1]; MAX_CARDS];
    for (t, &p) in terms.iter_mut().zip(&pos[..n]) {
        for (k, x) in t.iter_mut().enumerate().take(n + 1) {
            *x = choose(usize::from(p), k) as u32;
        }
    }
    out[0] = Subset::default();
    let count = usize::from(AT_MOST[n][max.min(n)]);
    let mut k = 1;
    for &s in &BY_SIZE[n][1..count] {
        let s = usize::from(s);
        let size = usize::from(SIZE[s]);
        let h = usize::from(HIGHEST[s]);
        // The set without its highest card came earlier (it has one card fewer).
        let rest = out[usize::from(PLACE[n][s ^ (1 << h)])];
        out[k] = Subset {
            size: size as u8,
            index: rest.index + terms[h][size],
            cards: rest.cards | 1 << pos[h],
        };
        k += 1;
    }
    k
}

/// The rows of one set size.
#[derive(Clone)]
enum Cells {
    /// No dealer hand can be counted here.
    Empty,
    /// At most one hand per lane: a bit per lane, a word per row.
    Bits(Vec<u64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Cells {
    fn new(rows: usize, width: usize, most: u64) -> Self {
        match most {
            0 => Cells::Empty,
            1 => Cells::Bits(vec![0; rows]),
            2..=0xFF => Cells::U8(vec![0; rows * width]),
            0x100..=0xFFFF => Cells::U16(vec![0; rows * width]),
            _ => Cells::U32(vec![0; rows * width]),
        }
    }
}

/// Add one to each lane of `lanes` in a row of `cells`.
#[inline]
fn bump<T: Copy + std::ops::AddAssign + From<u8>>(cells: &mut [T], mut lanes: u64) {
    while lanes != 0 {
        cells[lanes.trailing_zeros() as usize] += T::from(1);
        lanes &= lanes - 1;
    }
}

/// A cell's count as a lane sum's term (every count is far below 2^31).
trait Cell: Copy {
    fn term(self) -> i32;
}

impl Cell for u8 {
    #[inline]
    fn term(self) -> i32 {
        i32::from(self)
    }
}

impl Cell for u16 {
    #[inline]
    fn term(self) -> i32 {
        i32::from(self)
    }
}

impl Cell for u32 {
    #[inline]
    fn term(self) -> i32 {
        self.cast_signed()
    }
}

/// Add (or subtract) a row to the lane sums.
#[allow(clippy::inline_always)]
#[inline(always)]
fn gather<T: Cell>(out: &mut [i32], row: &[T], subtract: bool) {
    if subtract {
        for (o, &c) in out.iter_mut().zip(row) {
            *o -= c.term();
        }
    } else {
        for (o, &c) in out.iter_mut().zip(row) {
            *o += c.term();
        }
    }
}

/// Eight lanes' 0/1 values for each 8-bit pattern (bit `j` = lane `j`).
const BYTE_LANES: [[i32; 8]; 256] = {
    let mut t = [[0i32; 8]; 256];
    let mut n = 0;
    while n < 256 {
        let mut j = 0;
        while j < 8 {
            t[n][j] = ((n >> j) & 1) as u8 as i32;
            j += 1;
        }
        n += 1;
    }
    t
};

/// Dealer hands by the card sets they contain, for the lanes (deck positions) of one task.
#[derive(Clone)]
pub struct Histogram {
    levels: Vec<Cells>,
    max: usize,
    lanes: Range<usize>,
    upcard: bool,
    avx2: Option<Avx2>,
}

impl Histogram {
    /// Sets of at most `max` cards of a `deck`-card deck, for dealer hands of `dealer` cards.
    pub fn new(deck: usize, dealer: usize, max: usize, lanes: Range<usize>, upcard: bool) -> Self {
        let width = lanes.len();
        let levels = (0..=max)
            .map(|k| {
                let most = if !upcard {
                    choose(deck - k, dealer - k)
                } else if dealer > k {
                    choose(deck - k - 1, dealer - k - 1)
                } else {
                    0
                };
                Cells::new(choose(deck, k) as usize, width, most)
            })
            .collect();
        Histogram {
            levels,
            max,
            lanes,
            upcard,
            avx2: Avx2::detect(),
        }
    }

    /// Add another histogram of the same shape (hands counted in either).
    pub fn add(&mut self, other: &Histogram) {
        for (a, b) in self.levels.iter_mut().zip(&other.levels) {
            match (a, b) {
                (Cells::Bits(x), Cells::Bits(y)) => {
                    // Each cell holds at most one hand of the two together.
                    x.iter_mut().zip(y).for_each(|(p, q)| *p |= q);
                }
                (Cells::U8(x), Cells::U8(y)) => x.iter_mut().zip(y).for_each(|(p, q)| *p += q),
                (Cells::U16(x), Cells::U16(y)) => x.iter_mut().zip(y).for_each(|(p, q)| *p += q),
                (Cells::U32(x), Cells::U32(y)) => x.iter_mut().zip(y).for_each(|(p, q)| *p += q),
                (Cells::Empty, Cells::Empty) => {}
                _ => unreachable!("histograms of one shape"),
            }
        }
    }

    /// The task's lanes a hand's cards give (its own upcards), relative to the first lane.
    #[inline]
    fn own_lanes(&self, cards: u64) -> u64 {
        if self.upcard {
            let width = self.lanes.len();
            (cards >> self.lanes.start) & (u64::MAX >> (64 - width))
        } else {
            1
        }
    }

    /// Count a dealer hand (a set of deck positions).
    pub fn insert(&mut self, mask: u64, scratch: &mut Scratch) {
        if self.own_lanes(mask) == 0 {
            return;
        }
        let n = subsets(mask, self.max, scratch);
        self.insert_subsets(mask, &scratch[..n]);
    }

    /// Count a dealer hand whose sub-sets of at most `max` cards ([`subsets`]) are known.
    pub fn insert_subsets(&mut self, mask: u64, subs: &[Subset]) {
        let lanes = self.own_lanes(mask);
        if lanes == 0 {
            return;
        }
        let width = self.lanes.len();
        for s in subs {
            // An upcard inside the set is never asked for.
            let here = if self.upcard {
                lanes & !self.own_lanes(s.cards)
            } else {
                lanes
            };
            if here == 0 {
                continue;
            }
            let row = s.index as usize;
            match &mut self.levels[usize::from(s.size)] {
                Cells::Empty => unreachable!("a level no hand reaches was reached"),
                Cells::Bits(words) => {
                    debug_assert_eq!(words[row] & here, 0, "two hands in a one-hand cell");
                    words[row] |= here;
                }
                Cells::U8(c) => bump(&mut c[row * width..(row + 1) * width], here),
                Cells::U16(c) => bump(&mut c[row * width..(row + 1) * width], here),
                Cells::U32(c) => bump(&mut c[row * width..(row + 1) * width], here),
            }
        }
    }

    /// Per lane: the counted hands disjoint from the hand whose sub-sets (smallest first, as
    /// [`subsets`] gives them) are `subs`, and holding the lane's upcard. Lanes of the hand's
    /// own cards are left meaningless. Where the processor has AVX2 the same code runs
    /// compiled for it; the answer is the same integers either way.
    pub fn query(&self, subs: &[Subset], out: &mut [i32]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2.is_some() {
            // SAFETY: an `Avx2` is made only on a CPU that has AVX2 (`Avx2::detect`).
            unsafe { self.query_avx2(subs, out) };
            return;
        }
        self.query_lanes(subs, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn query_avx2(&self, subs: &[Subset], out: &mut [i32]) {
        self.query_lanes(subs, out);
    }

    // Inlined into the AVX2 copy too: a call would run the portable code.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn query_lanes(&self, subs: &[Subset], out: &mut [i32]) {
        let width = self.lanes.len();
        let out = &mut out[..width];
        out.fill(0);
        let mut rest = subs;
        while let Some(first) = rest.first() {
            let same = rest.iter().take_while(|s| s.size == first.size).count();
            let (run, tail) = rest.split_at(same);
            rest = tail;
            let odd = first.size % 2 == 1;
            match &self.levels[usize::from(first.size)] {
                Cells::Empty => {}
                Cells::Bits(words) => {
                    // Added up lane-parallel in bit planes (as many as the run's length
                    // needs: a run has at most C(7, 3) = 35 rows), then spread into the lanes
                    // eight at a time.
                    let used = (usize::BITS - run.len().leading_zeros()) as usize;
                    let mut planes = [0u64; 6];
                    for s in run {
                        let mut carry = words[s.index as usize];
                        for plane in &mut planes[..used] {
                            let next = *plane & carry;
                            *plane ^= carry;
                            carry = next;
                        }
                    }
                    for (shift, &plane) in planes[..used].iter().enumerate() {
                        if plane != 0 {
                            add_bits(out, plane, shift, odd);
                        }
                    }
                }
                Cells::U8(c) => run.iter().for_each(|s| gather(out, row(c, s, width), odd)),
                Cells::U16(c) => run.iter().for_each(|s| gather(out, row(c, s, width), odd)),
                Cells::U32(c) => run.iter().for_each(|s| gather(out, row(c, s, width), odd)),
            }
        }
    }
}

/// `out` += `plane`'s bits (bit `j` = lane `j`) times 2^`shift` (`-=` when `subtract`), eight
/// lanes at a time.
#[allow(clippy::inline_always)] // inlined into the AVX2 copies of the queries
#[inline(always)]
pub(crate) fn add_bits(out: &mut [i32], plane: u64, shift: usize, subtract: bool) {
    for (j, lanes) in out.chunks_mut(8).enumerate() {
        let bits = &BYTE_LANES[(plane >> (8 * j)) as usize & 255];
        if subtract {
            lanes
                .iter_mut()
                .zip(bits)
                .for_each(|(o, &b)| *o -= b << shift);
        } else {
            lanes
                .iter_mut()
                .zip(bits)
                .for_each(|(o, &b)| *o += b << shift);
        }
    }
}

/// The cells of one sub-set's row.
#[allow(clippy::inline_always)]
#[inline(always)]
fn row<'c, T>(cells: &'c [T], s: &Subset, width: usize) -> &'c [T] {
    let r = s.index as usize;
    &cells[r * width..(r + 1) * width]
}
