//! The (table id, round id) pairs read so far, so that a round logged twice is found: each
//! pair kept as a 128-bit keyed hash, 16 bytes per round whatever the ids' lengths (up to
//! `MAX_ID_BYTES` each), instead of a copy of the ids.
//!
//! The hash is two `SipHash-1-3` keyed with random keys (std's `RandomState`, new keys per
//! reader): a log cannot choose ids that collide, and two distinct pairs of a log of `n`
//! rounds share both halves with probability below n^2 / 2^129 (for 10^9 rounds, 2^-69), the
//! one way a round could be taken for one logged twice. (A hash of 0 is taken as 1: 0 marks
//! an empty slot below; that adds 2^-128 per pair to the same bound.)
//!
//! The set keeps the hashes in two parts, so that its memory is 16 bytes per id plus a
//! bounded overhead and never doubles at once as a hash table's does when it grows:
//!
//! - `sorted`: every hash merged so far, in ascending order, in one mapping of anonymous
//!   memory grown by `mremap` 4,096 hashes at a time (its pages are moved, never copied):
//!   16 bytes per id and at most 64 KiB of slack. A directory of the first index of each
//!   range of the hashes' top `bits` bits (2^bits <= ids / 32: at most 0.25 bytes per id)
//!   finds a hash's range of 32-64 ids, searched from where the hash's next bits place it;
//! - `fresh`: the hashes inserted since the last merge, in ascending order in a table of twice
//!   `batch` slots (and `OVERFLOW` past them) where a hash's home slot is its top bits:
//!   linear probing that keeps each run of occupied slots in order (a hash goes before the
//!   first larger one, moving the rest of its run up by one), at most half full. `batch` is
//!   2^16 (a 2 MiB table) until the set holds 2^22 ids, then the largest power of two up to
//!   ids / 32 (the table at most 1 byte per id). When it holds `batch` hashes (or a run
//!   reaches its end) they are merged, in their order, into `sorted` from its end (in place:
//!   the mapping only grows), and it is emptied.
//!
//! So at most 16.25 bytes per id, plus the fresh table (2 MiB, or at most 1 byte per id), 64
//! KiB of slack and 8 bytes per 4,096 ids of block pointers, with no peak above that: the old
//! directory is freed before the new one is made, a grown fresh table allocated after the old
//! one is freed. A hash table (`std`'s, as before) takes 17 bytes per bucket at a load between
//! 7/16 and 7/8 (19-39 bytes per id), and both tables, old and new, while it doubles. Each
//! merge rewrites `sorted` once; as `batch` grows with the set, a hash is moved about 32 times
//! over a long log's read (for 10^6 ids, 15 merges of 2^16).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// The sorted part grows in steps of this many hashes (64 KiB).
const STEP: usize = 1 << 12;
/// The smallest batch of fresh hashes merged at once (a 2 MiB table).
const MIN_BATCH: usize = 1 << 16;
/// Slots past the last home slot of the fresh table, for the runs that start near its end.
const OVERFLOW: usize = 64;
/// A batch is at most 1/GROWTH of the set, and a directory range holds 32-64 ids on average.
const GROWTH: usize = 32;

/// The hashes merged so far, in ascending order, in one mapping of anonymous memory grown
/// with `mremap` (its pages moved, not copied: no second copy while it grows), `STEP`
/// hashes at a time.
pub(super) struct Sorted {
    ptr: *mut u128,
    pub(super) len: usize,
    cap: usize,
}

// SAFETY: `Sorted` owns its mapping alone (as a `Vec` owns its buffer).
unsafe impl Send for Sorted {}

impl Default for Sorted {
    fn default() -> Self {
        Sorted {
            ptr: std::ptr::NonNull::dangling().as_ptr(),
            len: 0,
            cap: 0,
        }
    }
}

impl Drop for Sorted {
    fn drop(&mut self) {
        if self.cap > 0 {
            // SAFETY: the mapping made by `grow`, of `cap` hashes, unmapped once.
            unsafe { libc::munmap(self.ptr.cast(), self.cap * 16) };
        }
    }
}

impl Sorted {
    fn as_slice(&self) -> &[u128] {
        // SAFETY: `ptr` holds `len` initialised hashes (anonymous pages are zeroed).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [u128] {
        // SAFETY: as `as_slice`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Room for `more` hashes after the last (zero until written).
    fn grow(&mut self, more: usize) {
        let len = self.len + more;
        if len > self.cap {
            let cap = len.div_ceil(STEP) * STEP;
            // SAFETY: a new private anonymous mapping, or the one this owns remapped (moved,
            // when it must be, by the kernel); the result is checked.
            let ptr = unsafe {
                if self.cap == 0 {
                    libc::mmap(
                        std::ptr::null_mut(),
                        cap * 16,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                } else {
                    libc::mremap(
                        self.ptr.cast(),
                        self.cap * 16,
                        cap * 16,
                        libc::MREMAP_MAYMOVE,
                    )
                }
            };
            assert!(ptr != libc::MAP_FAILED, "out of memory for {cap} round ids");
            self.ptr = ptr.cast();
            self.cap = cap;
        }
        self.len = len;
    }

    /// Whether `h` is among the hashes at `lo..hi`, all of them with h's top `bits` bits: the
    /// search starts where h's next bits place it in the range (the hashes are uniform in
    /// it, so it is a few places from where it lies) and walks to it.
    fn contains(&self, lo: usize, hi: usize, h: u128, bits: u32) -> bool {
        let range = &self.as_slice()[lo..hi];
        if range.is_empty() {
            return false;
        }
        let mut i = start(range.len(), h, bits);
        if range[i] < h {
            while i + 1 < range.len() && range[i + 1] < h {
                i += 1;
            }
            i + 1 < range.len() && range[i + 1] == h
        } else {
            while i > 0 && range[i] > h {
                i -= 1;
            }
            range[i] == h
        }
    }

    fn heap_bytes(&self) -> usize {
        self.cap * 16
    }
}

/// Where in a range of `len` sorted hashes sharing their top `bits` bits the search for `h`
/// starts: where its next bits place it (the hashes are uniform within the range).
fn start(len: usize, h: u128, bits: u32) -> usize {
    let within = ((h << bits) >> 64) as u64; // h's place in its range, in 1/2^64
    ((u128::from(within) * len as u128) >> 64) as usize
}

/// Every (table id, round id) pair read, as its keyed hash.
pub struct RoundIds {
    keys: [RandomState; 2],
    pub(super) sorted: Sorted,
    /// `dir[b]..dir[b + 1]`: the indices in `sorted` of the hashes whose top `bits` bits are b.
    dir: Vec<usize>,
    bits: u32,
    /// The hashes inserted since the last merge, in ascending order: 2 * `batch` slots (and
    /// `OVERFLOW` past them), a hash's home slot its top bits, 0 where empty.
    fresh: Vec<u128>,
    /// 128 - log2(2 * `batch`): a hash's home slot is `h >> fresh_shift`.
    fresh_shift: u32,
    pub(super) fresh_len: usize,
    pub(super) batch: usize,
    /// The smallest batch (`MIN_BATCH`; smaller in tests, to merge often).
    min_batch: usize,
}

impl Default for RoundIds {
    fn default() -> Self {
        Self::with_min_batch(MIN_BATCH)
    }
}

impl RoundIds {
    /// The bytes kept per round read in the sorted part (the bounded overheads aside: see the
    /// module's documentation and `heap_bytes`).
    pub const BYTES_PER_ROUND: usize = std::mem::size_of::<u128>();

    /// A set that merges its fresh hashes `min_batch` (a power of two) at a time at first.
    #[must_use]
    pub fn with_min_batch(min_batch: usize) -> Self {
        assert!(min_batch.is_power_of_two());
        RoundIds {
            keys: [RandomState::new(), RandomState::new()],
            sorted: Sorted::default(),
            dir: vec![0, 0],
            bits: 0,
            fresh: vec![0; 2 * min_batch + OVERFLOW],
            fresh_shift: 128 - (2 * min_batch).ilog2(),
            fresh_len: 0,
            batch: min_batch,
            min_batch,
        }
    }

    /// The keyed hash of a pair: the table id's length first, so that no other split of the
    /// same bytes is the same pair; never 0 (an empty slot).
    #[must_use]
    pub fn hash(&self, table: &str, round: &str) -> u128 {
        let half = |key: &RandomState| {
            let mut h = key.build_hasher();
            h.write_u64(table.len() as u64);
            h.write(table.as_bytes());
            h.write(round.as_bytes());
            h.finish()
        };
        let h = (u128::from(half(&self.keys[0])) << 64) | u128::from(half(&self.keys[1]));
        h.max(1)
    }

    /// Ask the processor for the memory a later `insert_hash(h)` looks in (its fresh slot and
    /// where its search in the sorted part starts): a hint, so that those loads overlap the
    /// caller's work instead of stalling it.
    pub fn prefetch(&self, h: u128) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = ((h >> self.fresh_shift) as usize).min(self.fresh.len() - 1);
            let (lo, hi) = self.range_of(h);
            let sorted = self.sorted.as_slice();
            let at = if lo < hi {
                sorted[lo + start(hi - lo, h, self.bits)..].as_ptr()
            } else {
                sorted.as_ptr()
            };
            // SAFETY: a prefetch only hints at an address (here within the fresh table and
            // within, or at the start of, the sorted slice); it reads nothing into the
            // program and cannot fault.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(self.fresh[slot..].as_ptr().cast());
                _mm_prefetch::<_MM_HINT_T0>(at.cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// Record a pair: false when it was read before.
    pub fn insert(&mut self, table: &str, round: &str) -> bool {
        let h = self.hash(table, round);
        self.insert_hash(h)
    }

    /// Record a hash (not 0): false when it was recorded before.
    pub fn insert_hash(&mut self, h: u128) -> bool {
        debug_assert!(h != 0, "0 marks an empty slot");
        loop {
            // the first slot from h's home holding 0 or a larger hash: where h belongs
            let mut slot = (h >> self.fresh_shift) as usize;
            while slot < self.fresh.len() && self.fresh[slot] != 0 && self.fresh[slot] < h {
                slot += 1;
            }
            if slot < self.fresh.len() && self.fresh[slot] == h {
                return false;
            }
            // the end of the run of occupied slots that h moves up by one
            let mut free = slot;
            while free < self.fresh.len() && self.fresh[free] != 0 {
                free += 1;
            }
            if free == self.fresh.len() {
                // the run reaches the table's end (rarely: the table is at most half full)
                if self.in_sorted(h) {
                    return false;
                }
                self.merge();
                continue;
            }
            if self.in_sorted(h) {
                return false;
            }
            self.fresh.copy_within(slot..free, slot + 1);
            self.fresh[slot] = h;
            self.fresh_len += 1;
            if self.fresh_len == self.batch {
                self.merge();
            }
            return true;
        }
    }

    /// The indices in `sorted` of the hashes with h's top `bits` bits.
    fn range_of(&self, h: u128) -> (usize, usize) {
        let b = if self.bits == 0 {
            0
        } else {
            (h >> (128 - self.bits)) as usize
        };
        (self.dir[b], self.dir[b + 1])
    }

    fn in_sorted(&self, h: u128) -> bool {
        let (lo, hi) = self.range_of(h);
        self.sorted.contains(lo, hi, h, self.bits)
    }

    /// The fresh hashes (in ascending order in their table) merged into `sorted` (from its
    /// end, in place), the directory rebuilt for the new size, and the fresh table emptied
    /// (grown with the set).
    fn merge(&mut self) {
        let mut fresh = std::mem::take(&mut self.fresh);
        let (old, added) = (self.sorted.len, self.fresh_len);
        self.sorted.grow(added);
        let a = self.sorted.as_mut_slice();
        let (mut i, mut w) = (old, old + added);
        for &h in fresh.iter().rev().filter(|&&h| h != 0) {
            // the old hashes above h move up, past the fresh ones still to come
            let mut p = i;
            while p > 0 && a[p - 1] > h {
                p -= 1;
            }
            a.copy_within(p..i, w - (i - p));
            w -= i - p + 1;
            a[w] = h;
            i = p;
        }
        debug_assert_eq!(w, i);
        self.update_directory(&fresh, added);
        let total = self.sorted.len;
        self.fresh_len = 0;
        let batch = self
            .min_batch
            .max(1 << (total / GROWTH).max(1).ilog2())
            .max(self.batch);
        if batch == self.batch {
            fresh.fill(0);
            self.fresh = fresh;
        } else {
            drop(fresh);
            self.batch = batch;
            self.fresh = vec![0; 2 * batch + OVERFLOW];
            self.fresh_shift = 128 - (2 * batch).ilog2();
        }
    }

    /// The directory of `sorted`'s top-bit ranges (2^bits <= len / GROWTH of them) after
    /// `added` hashes of the fresh table (in ascending order) were merged: each range's start
    /// moved up by the fresh hashes below it, or, when the number of ranges changes, all of
    /// them found again.
    fn update_directory(&mut self, fresh: &[u128], added: usize) {
        let len = self.sorted.len;
        let bits = (len / GROWTH).max(1).ilog2();
        let ranges = 1usize << bits;
        let top = |h: u128| {
            if bits == 0 {
                0
            } else {
                (h >> (128 - bits)) as usize
            }
        };
        if bits == self.bits {
            let mut below = 0; // fresh hashes in the ranges before b
            let mut fresh = fresh.iter().filter(|&&h| h != 0).peekable();
            for b in 0..ranges {
                self.dir[b] += below;
                while fresh.next_if(|&&h| top(h) == b).is_some() {
                    below += 1;
                }
            }
            debug_assert_eq!(below, added);
            self.dir[ranges] = len;
            return;
        }
        self.bits = bits;
        self.dir = Vec::new(); // the old one freed before the new one is made
        let mut dir = Vec::with_capacity(ranges + 1);
        let sorted = self.sorted.as_slice();
        let mut i = 0;
        for b in 0..ranges {
            while i < len && top(sorted[i]) < b {
                i += 1;
            }
            dir.push(i);
        }
        dir.push(len);
        self.dir = dir;
    }

    /// Pairs kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sorted.len + self.fresh_len
    }

    /// Whether no pair was read yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the set holds (its mapping, directory and fresh table).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.sorted.heap_bytes()
            + self.dir.capacity() * std::mem::size_of::<usize>()
            + self.fresh.capacity() * std::mem::size_of::<u128>()
    }
}
