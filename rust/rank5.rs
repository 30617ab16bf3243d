//! The Caribbean Stud 5-card ordering (Art. 4, Art. 8 of the Caribbean Stud statute).
//!
//! Categories, high to low: royal flush (its own class), straight flush (K-high highest,
//! 5-high lowest), four of a kind, full house, flush, straight, three of a kind, two pair,
//! one pair, high card. Cards that "never count" (quads' fifth card, trips' two others) are
//! left out of the key. Ties are decided by ranks, then by suit: of the highest card, or of
//! the (higher) pair.

use crate::cards::{rank, suit};
use crate::ranking::{pack, AceLowStraightSuit, PairSuit, TieBreaks};

pub const HIGH_CARD: u8 = 0;
pub const ONE_PAIR: u8 = 1;
pub const TWO_PAIR: u8 = 2;
pub const THREE_OF_A_KIND: u8 = 3;
pub const STRAIGHT: u8 = 4;
pub const FLUSH: u8 = 5;
pub const FULL_HOUSE: u8 = 6;
pub const FOUR_OF_A_KIND: u8 = 7;
pub const STRAIGHT_FLUSH: u8 = 8;
pub const ROYAL_FLUSH: u8 = 9;
pub const CATEGORIES: usize = 10;
pub const CATEGORY_NAMES: [&str; CATEGORIES] = [
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
];
/// What each category's key compares, in order: its rank fields, then its suit field (the
/// rule files' `ranking.categories.*` must state exactly these).
pub const CATEGORY_STEPS: [&[&str]; CATEGORIES] = [
    &[
        "highest card",
        "second card",
        "third card",
        "fourth card",
        "fifth card",
        "suit of the highest card",
    ],
    &[
        "pair rank",
        "highest kicker",
        "second kicker",
        "third kicker",
        "suit of the pair",
    ],
    &[
        "higher pair",
        "lower pair",
        "kicker",
        "suit of the higher pair",
    ],
    &["rank of the three", "(cannot tie in one deck)"],
    &["ranks", "suit of the highest card"],
    &[
        "highest card",
        "second card",
        "third card",
        "fourth card",
        "fifth card",
        "suit of the flush",
    ],
    &[
        "rank of the three",
        "rank of the pair",
        "(cannot tie in one deck)",
    ],
    &["rank of the four", "(cannot tie in one deck)"],
    &["ranks", "suit"],
    &["suit"],
];

/// The suit field of the pair whose two cards sit at `lo` and `lo + 1` of a sorted hand: the
/// higher (or lower) of its two suits in the rule file's suit order.
#[inline]
fn pair_suit(c: &[u8; 5], lo: usize, tb: &TieBreaks) -> u32 {
    let (a, b) = (tb.suit(suit(c[lo])), tb.suit(suit(c[lo + 1])));
    match tb.pair_suit {
        PairSuit::Higher => a.max(b),
        PairSuit::Lower => a.min(b),
    }
}

/// The strength key of a 5-card hand whose cards are sorted by id (ascending).
#[inline]
#[must_use]
pub fn key_sorted(c: &[u8; 5], tb: &TieBreaks) -> u32 {
    let r = [rank(c[0]), rank(c[1]), rank(c[2]), rank(c[3]), rank(c[4])];
    let pattern = u8::from(r[0] == r[1])
        | u8::from(r[1] == r[2]) << 1
        | u8::from(r[2] == r[3]) << 2
        | u8::from(r[3] == r[4]) << 3;
    match pattern {
        0 => unpaired(c, &r, tb),
        // One pair at positions (p, p+1); kickers high to low.
        0b0001 => pack(ONE_PAIR, &[r[0], r[4], r[3], r[2]], pair_suit(c, 0, tb)),
        0b0010 => pack(ONE_PAIR, &[r[1], r[4], r[3], r[0]], pair_suit(c, 1, tb)),
        0b0100 => pack(ONE_PAIR, &[r[2], r[4], r[1], r[0]], pair_suit(c, 2, tb)),
        0b1000 => pack(ONE_PAIR, &[r[3], r[2], r[1], r[0]], pair_suit(c, 3, tb)),
        // Two pair: higher pair, lower pair, kicker; suit of the higher pair.
        0b0101 => pack(TWO_PAIR, &[r[2], r[0], r[4]], pair_suit(c, 2, tb)),
        0b1001 => pack(TWO_PAIR, &[r[3], r[0], r[2]], pair_suit(c, 3, tb)),
        0b1010 => pack(TWO_PAIR, &[r[3], r[1], r[0]], pair_suit(c, 3, tb)),
        // Three of a kind: the other two cards never count.
        0b0011 => pack(THREE_OF_A_KIND, &[r[0]], 0),
        0b0110 => pack(THREE_OF_A_KIND, &[r[1]], 0),
        0b1100 => pack(THREE_OF_A_KIND, &[r[2]], 0),
        // Full house: rank of the three (then of the pair, which one deck makes moot).
        0b1011 => pack(FULL_HOUSE, &[r[0], r[3]], 0),
        0b1101 => pack(FULL_HOUSE, &[r[2], r[0]], 0),
        // Four of a kind: the fifth card never counts.
        0b0111 => pack(FOUR_OF_A_KIND, &[r[0]], 0),
        0b1110 => pack(FOUR_OF_A_KIND, &[r[1]], 0),
        _ => unreachable!("five cards of one rank in a single deck"),
    }
}

/// Five distinct ranks: straight flush, flush, straight or high card.
#[inline]
fn unpaired(c: &[u8; 5], r: &[u8; 5], tb: &TieBreaks) -> u32 {
    let s0 = suit(c[0]);
    let flush = s0 == suit(c[1]) && s0 == suit(c[2]) && s0 == suit(c[3]) && s0 == suit(c[4]);
    let straight = if r[4] - r[0] == 4 {
        Some((r[4], suit(c[4])))
    } else if r[3] == 3 && r[4] == 12 {
        // 5-4-3-2-A: the ace counts low, the 5 is the top (Art. 4(3)).
        let s = match tb.ace_low_straight_suit {
            AceLowStraightSuit::TopOfSequence => suit(c[3]),
            AceLowStraightSuit::Ace => suit(c[4]),
        };
        Some((3, s))
    } else {
        None
    };
    match (straight, flush) {
        (Some((12, s)), true) => pack(ROYAL_FLUSH, &[], tb.suit(s)),
        (Some((top, s)), true) => pack(STRAIGHT_FLUSH, &[top], tb.suit(s)),
        (Some((top, s)), false) => pack(STRAIGHT, &[top], tb.suit(s)),
        (None, true) => pack(FLUSH, &[r[4], r[3], r[2], r[1], r[0]], tb.suit(s0)),
        (None, false) => pack(
            HIGH_CARD,
            &[r[4], r[3], r[2], r[1], r[0]],
            tb.suit(suit(c[4])),
        ),
    }
}

/// The strength key of any 5 distinct cards.
#[must_use]
pub fn key(cards: [u8; 5], tb: &TieBreaks) -> u32 {
    let mut c = cards;
    c.sort_unstable();
    key_sorted(&c, tb)
}

/// 4-bit fields, one per rank, each holding `x`.
const fn per_rank(x: u64) -> u64 {
    let mut v = 0;
    let mut r = 0;
    while r < 13 {
        v |= x << (4 * r);
        r += 1;
    }
    v
}

/// The category of any 5 distinct cards: `ranking::category(key(cards, tb))`, whatever `tb`
/// (suits break ties within a category, never decide one), without sorting the hand or packing
/// a key, and without a branch on the cards. The dealt-hand tallies of a shuffle audit count
/// categories only. Always inlined: they are compiled with the CPU's bit-count instructions.
#[allow(clippy::inline_always)]
#[inline(always)]
#[must_use]
pub fn category(cards: [u8; 5]) -> u8 {
    // A bit per rank held, a 4-bit count per rank, a bit per suit held.
    let (mut ranks, mut counts, mut suits) = (0u16, 0u64, 0u8);
    for c in cards {
        ranks |= 1 << rank(c);
        counts += 1 << (4 * rank(c));
        suits |= 1 << suit(c);
    }
    // A count of 3 or more (4) plus 5 (4) sets its field's top bit; fields never carry (4 + 5
    // < 16).
    let tops = per_rank(8);
    let three = (counts + per_rank(5)) & tops != 0;
    let four = (counts + per_rank(4)) & tops != 0;
    let flush = suits.is_power_of_two();
    // Five ranks in a row, or 5-4-3-2-A (Art. 4(3)).
    let straight = ranks >> ranks.trailing_zeros() == 0b1_1111 || ranks == 0b1_0000_0000_1111;
    let royal = ranks == 0b1_1111_0000_0000;
    let unpaired = match (straight, flush) {
        (true, true) if royal => ROYAL_FLUSH,
        (true, true) => STRAIGHT_FLUSH,
        (false, true) => FLUSH,
        (true, false) => STRAIGHT,
        (false, false) => HIGH_CARD,
    };
    // The category by the number of distinct ranks (2 to 5), as the bytes of one word: picked
    // by a shift, not read back from a table just written.
    let by_distinct_ranks = u64::from_le_bytes([
        0,
        0,
        if four { FOUR_OF_A_KIND } else { FULL_HOUSE },
        if three { THREE_OF_A_KIND } else { TWO_PAIR },
        ONE_PAIR,
        unpaired,
        0,
        0,
    ]);
    (by_distinct_ranks >> (8 * (ranks.count_ones() & 7))) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking;

    #[test]
    fn category_is_the_keys_category_for_every_hand() {
        let suit_first = TieBreaks {
            suit_rank: [3, 2, 1, 0],
            ..TieBreaks::STATUTE
        };
        let mut counts = [0u64; CATEGORIES];
        let mut c = [0u8; 5];
        for a in 0..52 {
            c[0] = a;
            for b in a + 1..52 {
                c[1] = b;
                for x in b + 1..52 {
                    c[2] = x;
                    for y in x + 1..52 {
                        c[3] = y;
                        for z in y + 1..52 {
                            c[4] = z;
                            let expected = ranking::category(key_sorted(&c, &TieBreaks::STATUTE));
                            assert_eq!(ranking::category(key_sorted(&c, &suit_first)), expected);
                            // In the order dealt: reversed and rotated.
                            assert_eq!(category(c), expected, "{c:?}");
                            assert_eq!(category([z, x, a, y, b]), expected, "{c:?}");
                            counts[usize::from(expected)] += 1;
                        }
                    }
                }
            }
        }
        // The published counts of the 2,598,960 hands (royal flushes apart).
        assert_eq!(
            counts,
            [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 36, 4]
        );
    }
}
