//! `hash128`, the 128-bit hash of an order by which repeated orders are found, one or two
//! orders at a time and, for 52-card orders on a CPU with AVX-512, eight at a time
//! (`avx512.rs`, the same hashes), or with AVX2 four at a time (`avx2.rs`).

use crate::cards::DECK_SIZE as N52;
use crate::cpu::{Avx512, Native};

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
/// lane, else with AVX2 (given the native features' proof, `Native::detect`) four at a time,
/// the others two at a time (`hash128_pair`): the hash is chains of dependent
/// multiplications, which one order at a time leave the multiplier waiting.
pub fn hash128_orders(
    orders: &[u8],
    size: usize,
    at: &[(usize, Option<usize>)],
    hashes: &mut Vec<(u128, Option<u128>)>,
    avx512: Option<Avx512>,
    native: Option<Native>,
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
            let h = unsafe { avx512::eight52(orders, &lanes) };
            for (&(kind, _, i), h) in eight.iter().zip(h) {
                put(&mut hashes[i], kind, h);
            }
        }
        done = jobs.len() / 8 * 8;
    }
    #[cfg(target_arch = "x86_64")]
    if native.is_some() && size == N52 {
        for four in jobs[done..].chunks_exact(4) {
            let lanes: [(u8, usize); 4] = std::array::from_fn(|l| (four[l].0, four[l].1));
            // SAFETY: the CPU has AVX2 (a `Native` is made only by `Native::detect`, on a CPU
            // with the native features, AVX2 among them).
            let h = unsafe { avx2::four52(orders, &lanes) };
            for (&(kind, _, i), h) in four.iter().zip(h) {
                put(&mut hashes[i], kind, h);
            }
        }
        done += (jobs.len() - done) / 4 * 4;
    }
    let _ = (avx512, native);
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
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::avx512_for;

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
        let mut rng = crate::shuffler::simulate::Rng::new(128);
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
        let native = Native::detect();
        if native.is_none() {
            eprintln!("skipped: no AVX2 on this CPU: the AVX2 order hashes not checked");
        }
        let mut rng = crate::shuffler::simulate::Rng::new(8);
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
                for (avx512, native) in [(None, None), (vector, None), (None, native)] {
                    let mut hashes = vec![(1, Some(1)); 3];
                    hash128_orders(&orders, size, &at, &mut hashes, avx512, native);
                    assert_eq!(
                        hashes, expected,
                        "{size}: {count} orders, {avx512:?} {native:?}"
                    );
                }
            }
        }
    }
}
