//! The (table id, round id) pairs read so far, so that a round logged twice is found: each
//! pair kept as a 128-bit keyed hash, 16 bytes per round whatever the ids' lengths (up to
//! `MAX_ID_BYTES` each), instead of a copy of the ids.
//!
//! The hash is two `SipHash-1-3` keyed with random keys (std's `RandomState`, new keys per
//! reader): a log cannot choose ids that collide, and two distinct pairs of a log of `n`
//! rounds share both halves with probability below n^2 / 2^129 (for 10^9 rounds, 2^-69), the
//! one way a round could be taken for one logged twice.

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// The set hashes its entries by their low 64 bits: they are keyed hashes already.
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

/// Every (table id, round id) pair read, as its keyed hash.
pub struct RoundIds {
    keys: [std::collections::hash_map::RandomState; 2],
    seen: HashSet<u128, BuildHasherDefault<Low64>>,
}

impl Default for RoundIds {
    fn default() -> Self {
        RoundIds {
            keys: [
                std::collections::hash_map::RandomState::new(),
                std::collections::hash_map::RandomState::new(),
            ],
            seen: HashSet::default(),
        }
    }
}

impl RoundIds {
    /// The bytes kept per round read (the set's own slack aside).
    pub const BYTES_PER_ROUND: usize = std::mem::size_of::<u128>();

    /// The keyed hash of a pair: the table id's length first, so that no other split of the
    /// same bytes is the same pair.
    fn hash(&self, table: &str, round: &str) -> u128 {
        let half = |key: &std::collections::hash_map::RandomState| {
            let mut h = key.build_hasher();
            h.write_u64(table.len() as u64);
            h.write(table.as_bytes());
            h.write(round.as_bytes());
            h.finish()
        };
        (u128::from(half(&self.keys[0])) << 64) | u128::from(half(&self.keys[1]))
    }

    /// Record a pair: false when it was read before.
    pub fn insert(&mut self, table: &str, round: &str) -> bool {
        let h = self.hash(table, round);
        self.seen.insert(h)
    }

    /// Pairs kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no pair was read yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}
