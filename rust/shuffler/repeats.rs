//! Repeated orders in bounded memory: a distinct sample of order hashes.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::hash::hash128;

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
            // Room for a full sample at once: no growth (a rehash of every hash kept) while
            // it fills.
            set: HashSet::with_capacity_and_hasher(capacity + 1, BuildHasherDefault::default()),
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
