//! The 4-card ordering, for any game whose hands count four cards.
//!
//! Categories, lowest first by id (a game's rule file orders them; see `games::stud`): high
//! card, pair, two pair, straight, flush, three of a kind, straight flush, four of a kind.
//! Within a category hands compare by rank groups (pair rank then kickers, high to low), a
//! straight by its top card with A-2-3-4 the lowest; when suits decide (`TieBreaks`), equal
//! ranks go to the suit of the highest card, of the pair or of the higher pair, as the 3- and
//! 5-card statute orderings do; three and four of a kind cannot tie in one deck.

use crate::cards::{rank, suit};
use crate::ranking::{pack, AceLowStraightSuit, PairSuit, TieBreaks};

pub const HIGH_CARD: u8 = 0;
pub const PAIR: u8 = 1;
pub const TWO_PAIR: u8 = 2;
pub const STRAIGHT: u8 = 3;
pub const FLUSH: u8 = 4;
pub const THREE_OF_A_KIND: u8 = 5;
pub const STRAIGHT_FLUSH: u8 = 6;
pub const FOUR_OF_A_KIND: u8 = 7;
pub const CATEGORIES: usize = 8;
pub const CATEGORY_NAMES: [&str; CATEGORIES] = [
    "high card",
    "pair",
    "two pair",
    "straight",
    "flush",
    "three of a kind",
    "straight flush",
    "four of a kind",
];

/// The suit field of the pair at `lo`, `lo + 1` of a sorted hand.
#[inline]
fn pair_suit(c: &[u8; 4], lo: usize, tb: &TieBreaks) -> u32 {
    let (a, b) = (tb.suit(suit(c[lo])), tb.suit(suit(c[lo + 1])));
    match tb.pair_suit {
        PairSuit::Higher => a.max(b),
        PairSuit::Lower => a.min(b),
    }
}

/// The strength key of a 4-card hand whose cards are sorted by id (ascending).
#[inline]
#[must_use]
pub fn key_sorted(c: &[u8; 4], tb: &TieBreaks) -> u32 {
    let r = [rank(c[0]), rank(c[1]), rank(c[2]), rank(c[3])];
    let pattern =
        u8::from(r[0] == r[1]) | u8::from(r[1] == r[2]) << 1 | u8::from(r[2] == r[3]) << 2;
    match pattern {
        0 => unpaired(c, &r, tb),
        0b001 => pack(PAIR, &[r[0], r[3], r[2]], pair_suit(c, 0, tb)),
        0b010 => pack(PAIR, &[r[1], r[3], r[0]], pair_suit(c, 1, tb)),
        0b100 => pack(PAIR, &[r[2], r[1], r[0]], pair_suit(c, 2, tb)),
        0b101 => pack(TWO_PAIR, &[r[2], r[0]], pair_suit(c, 2, tb)),
        0b011 => pack(THREE_OF_A_KIND, &[r[0], r[3]], 0),
        0b110 => pack(THREE_OF_A_KIND, &[r[1], r[0]], 0),
        0b111 => pack(FOUR_OF_A_KIND, &[r[0]], 0),
        _ => unreachable!("a pattern of three equalities is one of the above"),
    }
}

/// Four distinct ranks: straight flush, flush, straight or high card.
#[inline]
fn unpaired(c: &[u8; 4], r: &[u8; 4], tb: &TieBreaks) -> u32 {
    let s0 = suit(c[0]);
    let flush = s0 == suit(c[1]) && s0 == suit(c[2]) && s0 == suit(c[3]);
    let straight = if r[3] - r[0] == 3 {
        Some((r[3], suit(c[3])))
    } else if r[2] == 2 && r[3] == 12 {
        // 4-3-2-A: the ace counts low, the 4 is the top.
        let s = match tb.ace_low_straight_suit {
            AceLowStraightSuit::TopOfSequence => suit(c[2]),
            AceLowStraightSuit::Ace => suit(c[3]),
        };
        Some((2, s))
    } else {
        None
    };
    match (straight, flush) {
        (Some((top, s)), true) => pack(STRAIGHT_FLUSH, &[top], tb.suit(s)),
        (Some((top, s)), false) => pack(STRAIGHT, &[top], tb.suit(s)),
        (None, true) => pack(FLUSH, &[r[3], r[2], r[1], r[0]], tb.suit(s0)),
        (None, false) => pack(HIGH_CARD, &[r[3], r[2], r[1], r[0]], tb.suit(suit(c[3]))),
    }
}

/// The strength key of any 4 distinct cards.
#[must_use]
pub fn key(cards: [u8; 4], tb: &TieBreaks) -> u32 {
    let mut c = cards;
    c.sort_unstable();
    key_sorted(&c, tb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::card;
    use crate::ranking::category;

    /// Every 4-card hand of one deck by category: the published counts (270,725 in all).
    #[test]
    fn category_counts_of_the_deck() {
        let mut counts = [0u64; CATEGORIES];
        for d in 3..52u8 {
            for c in 2..d {
                for b in 1..c {
                    for a in 0..b {
                        counts[category(key_sorted(&[a, b, c, d], &TieBreaks::RANK_ONLY))
                            as usize] += 1;
                    }
                }
            }
        }
        // high card, pair, two pair, straight, flush, trips, straight flush, quads
        assert_eq!(
            counts,
            [177_408, 82_368, 2_808, 2_772, 2_816, 2_496, 44, 13]
        );
        assert_eq!(counts.iter().sum::<u64>(), 270_725);
    }

    #[test]
    fn ace_low_straight_is_the_lowest() {
        let tb = TieBreaks::RANK_ONLY;
        let wheel = key([card(12, 0), card(0, 1), card(1, 2), card(2, 3)], &tb);
        let five_high = key([card(3, 0), card(0, 1), card(1, 2), card(2, 3)], &tb);
        let ace_high = key([card(12, 0), card(11, 1), card(10, 2), card(9, 3)], &tb);
        assert_eq!(category(wheel), STRAIGHT);
        assert!(wheel < five_high && five_high < ace_high);
    }
}
