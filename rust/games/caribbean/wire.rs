//! The wire format of a shard's compact decisions: what a cluster's worker sends back and the
//! merge reads, as three little-endian byte strings (the bits of the hands raising against
//! every upcard of the range they do not hold, u64 words; the colex indices of the others
//! that raise somewhere, u32; their upcard bits, u64). Bytes from another process are checked
//! before they are used: a wrong length, a hand index out of range or an empty upcard range
//! is refused, naming the part.

use std::fmt;

use super::{Decisions, HANDS};
use crate::cards::DECK_SIZE;

/// Why one part's bytes are not a shard's decisions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The upcard range is empty or leaves the deck.
    Upcards((usize, usize)),
    /// The byte strings have the wrong lengths: (every, index, bits).
    Sizes(usize, usize, usize),
    /// A listed hand's colex index is not below `HANDS`.
    Hand(u32),
}

/// A fault of part `part` (its position among the parts merged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    pub part: usize,
    pub fault: Fault,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = self.part;
        match self.fault {
            Fault::Upcards((first, end)) => write!(
                f,
                "upcards ({first}, {end}): expected a range first < end <= {DECK_SIZE}"
            ),
            Fault::Sizes(every, index, bits) => write!(
                f,
                "part {part}: expected {} bytes of bits and 4 + 8 bytes per other hand, got \
                 {every}, {index} and {bits}",
                WORDS * 8
            ),
            Fault::Hand(i) => write!(f, "part {part}: hand {i} is not below {HANDS}"),
        }
    }
}

impl std::error::Error for WireError {}

/// Words of the `every` bits: one bit per hand.
const WORDS: usize = HANDS.div_ceil(64);

/// A shard's decisions as they travel: `every`, `index` and `bits`, little-endian.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireDecisions {
    pub every: Vec<u8>,
    pub index: Vec<u8>,
    pub bits: Vec<u8>,
}

fn le64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}

impl Decisions {
    /// The decisions in the wire format (the upcard range travels beside them).
    #[must_use]
    pub fn to_le_bytes(&self) -> WireDecisions {
        WireDecisions {
            every: self.every.iter().flat_map(|w| w.to_le_bytes()).collect(),
            index: self
                .some
                .iter()
                .flat_map(|&(i, _)| i.to_le_bytes())
                .collect(),
            bits: self
                .some
                .iter()
                .flat_map(|&(_, b)| b.to_le_bytes())
                .collect(),
        }
    }

    /// The decisions of a shard over `upcards` from the wire format, checked.
    ///
    /// # Errors
    /// The fault, if the range is not a non-empty part of the deck, the lengths do not fit
    /// (`every` one bit per hand, 4 index and 8 bit bytes per listed hand) or a listed index
    /// is not a hand's.
    pub fn from_le_bytes(
        upcards: (usize, usize),
        every: &[u8],
        index: &[u8],
        bits: &[u8],
    ) -> Result<Decisions, Fault> {
        let (first, end) = upcards;
        if first >= end || end > DECK_SIZE {
            return Err(Fault::Upcards(upcards));
        }
        if every.len() != WORDS * 8
            || !index.len().is_multiple_of(4)
            || bits.len() != index.len() * 2
        {
            return Err(Fault::Sizes(every.len(), index.len(), bits.len()));
        }
        let mut some = Vec::with_capacity(index.len() / 4);
        for (i, b) in index.chunks_exact(4).zip(bits.chunks_exact(8)) {
            let i = u32::from_le_bytes(i.try_into().expect("4 bytes"));
            if i as usize >= HANDS {
                return Err(Fault::Hand(i));
            }
            some.push((i, le64(b)));
        }
        Ok(Decisions {
            upcards,
            every: every.chunks_exact(8).map(le64).collect(),
            some,
        })
    }
}

/// The decisions of disjoint shards, read from the wire in order and put together for
/// `write_table`: parts over the same upcards are merged first (fewer to look up per hand).
///
/// # Errors
/// The first part that is not a shard's decisions, with its position.
pub fn merge_parts<'a>(
    parts: impl IntoIterator<Item = ((usize, usize), &'a [u8], &'a [u8], &'a [u8])>,
) -> Result<Vec<Decisions>, WireError> {
    let mut merged: Vec<Decisions> = Vec::new();
    for (part, (upcards, every, index, bits)) in parts.into_iter().enumerate() {
        let shard = Decisions::from_le_bytes(upcards, every, index, bits)
            .map_err(|fault| WireError { part, fault })?;
        match merged.iter_mut().find(|m| m.upcards == shard.upcards) {
            Some(m) => m.merge(&shard),
            None => merged.push(shard),
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::caribbean::write_table;

    fn table_of(parts: &[Decisions]) -> Vec<u8> {
        let mut out = vec![0u8; HANDS * 8];
        write_table(parts, &mut out);
        out
    }

    fn sample(upcards: (usize, usize), every: &[usize], some: &[(u32, u64)]) -> Decisions {
        let mut d = Decisions::new(upcards);
        for &i in every {
            d.every[i / 64] |= 1 << (i % 64);
        }
        d.some = some.to_vec();
        d
    }

    fn wire(d: &Decisions) -> ((usize, usize), WireDecisions) {
        (d.upcards, d.to_le_bytes())
    }

    #[test]
    fn decisions_cross_the_wire_unchanged() {
        let d = sample(
            (3, 40),
            &[0, 63, 64, HANDS - 1],
            &[(7, 1 << 5), (HANDS as u32 - 2, 9)],
        );
        let w = d.to_le_bytes();
        assert_eq!(w.every.len(), WORDS * 8);
        assert_eq!(
            w.index,
            [7u32.to_le_bytes(), (HANDS as u32 - 2).to_le_bytes()].concat()
        );
        assert_eq!(
            w.bits,
            [(1u64 << 5).to_le_bytes(), 9u64.to_le_bytes()].concat()
        );
        assert_eq!(w.every[0], 1);
        assert_eq!(w.every[7], 0x80);
        assert_eq!(w.every[8], 1);
        let back = Decisions::from_le_bytes((3, 40), &w.every, &w.index, &w.bits).unwrap();
        assert_eq!(back, d);
    }

    /// A part's upcards and bytes, and the fault they should be refused with.
    type Case<'a> = ((usize, usize), &'a [u8], &'a [u8], &'a [u8], Fault);

    #[test]
    fn faults_are_named_with_their_part() {
        let good = sample((0, 52), &[], &[]).to_le_bytes();
        let words = &good.every[..];
        let seven = 7u32.to_le_bytes();
        let past = (HANDS as u32).to_le_bytes();
        let eight = [0u8; 8];
        let cases: [Case<'_>; 6] = [
            (
                (0, 52),
                &words[8..],
                b"",
                b"",
                Fault::Sizes(WORDS * 8 - 8, 0, 0),
            ),
            (
                (0, 52),
                words,
                &seven[..3],
                b"",
                Fault::Sizes(WORDS * 8, 3, 0),
            ),
            (
                (0, 52),
                words,
                &seven,
                &eight[..4],
                Fault::Sizes(WORDS * 8, 4, 4),
            ),
            ((0, 52), words, &past, &eight, Fault::Hand(HANDS as u32)),
            ((3, 3), words, b"", b"", Fault::Upcards((3, 3))),
            ((50, 53), words, b"", b"", Fault::Upcards((50, 53))),
        ];
        for (upcards, every, index, bits, fault) in cases {
            let parts = [
                ((0, 52), words, &b""[..], &b""[..]),
                (upcards, every, index, bits),
            ];
            let err = merge_parts(parts).unwrap_err();
            assert_eq!(
                err,
                WireError {
                    part: 1,
                    fault: fault.clone()
                }
            );
        }
        let err = WireError {
            part: 1,
            fault: Fault::Hand(HANDS as u32),
        };
        assert_eq!(err.to_string(), "part 1: hand 2598960 is not below 2598960");
        let err = WireError {
            part: 4,
            fault: Fault::Sizes(1, 2, 3),
        };
        assert_eq!(
            err.to_string(),
            "part 4: expected 324872 bytes of bits and 4 + 8 bytes per other hand, got 1, 2 and 3"
        );
        let err = WireError {
            part: 0,
            fault: Fault::Upcards((3, 3)),
        };
        assert_eq!(
            err.to_string(),
            "upcards (3, 3): expected a range first < end <= 52"
        );
    }

    /// Parts over the same upcards are merged before the table is written, parts over other
    /// upcards kept apart; the table is the OR of the parts' tables either way.
    #[test]
    fn merged_parts_write_the_table_of_all_of_them() {
        let a = sample((0, 20), &[1, 100], &[(5, 1 << 3)]);
        let b = sample((0, 20), &[2], &[(6, 1 << 4)]);
        let c = sample((20, 52), &[1], &[(5, 1 << 30)]);
        let wires = [wire(&a), wire(&b), wire(&c)];
        let merged = merge_parts(
            wires
                .iter()
                .map(|(u, w)| (*u, &w.every[..], &w.index[..], &w.bits[..])),
        )
        .unwrap();
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].upcards, (0, 20));
        assert_eq!(merged[0].some, [(5, 1 << 3), (6, 1 << 4)]);
        assert_eq!(merged[1], c);
        let expected = table_of(&[a, b, c]);
        assert_eq!(table_of(&merged), expected);
        // Hand 5 raises against upcards 3 (part a) and 30 (part c).
        assert_eq!(le64(&expected[40..48]), 1 << 3 | 1 << 30);
        assert!(merge_parts(std::iter::empty()).unwrap().is_empty());
    }
}
