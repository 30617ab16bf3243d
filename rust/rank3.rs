//! The Q Poker 3-card ordering (Art. 4, Art. 8 of the Q Poker statute).
//!
//! Categories, high to low: straight flush, three of a kind, straight, flush, pair, high
//! card. Straights run A-K-Q down to 4-3-2, and A-2-3 is the lowest (Art. 4(3)). Ties are
//! decided by ranks, then by suit: of the highest card (straights, flushes, high cards) or
//! of the pair's kicker (Art. 8(5)).

use crate::cards::{rank, suit};
use crate::ranking::{pack, AceLowStraightSuit, TieBreaks};

pub const HIGH_CARD: u8 = 0;
pub const PAIR: u8 = 1;
pub const FLUSH: u8 = 2;
pub const STRAIGHT: u8 = 3;
pub const THREE_OF_A_KIND: u8 = 4;
pub const STRAIGHT_FLUSH: u8 = 5;
pub const CATEGORIES: usize = 6;
pub const CATEGORY_NAMES: [&str; CATEGORIES] = [
    "high card",
    "pair",
    "flush",
    "straight",
    "three of a kind",
    "straight flush",
];
/// What each category's key compares, in order: its rank fields, then its suit field (the
/// rule files' `ranking.categories.*` must state exactly these).
pub const CATEGORY_STEPS: [&[&str]; CATEGORIES] = [
    &[
        "highest card",
        "second card",
        "third card",
        "suit of the highest card",
    ],
    &["pair rank", "kicker rank", "the kicker's suit"],
    &[
        "highest card",
        "second card",
        "third card",
        "suit of the flush",
    ],
    &["ranks", "suit of the highest card"],
    &["rank of the three", "(cannot tie in one deck)"],
    &["ranks", "suit"],
];

/// The strength key of a 3-card hand whose cards are sorted by id (ascending).
#[inline]
#[must_use]
pub fn key_sorted(c: &[u8; 3], tb: &TieBreaks) -> u32 {
    let [r0, r1, r2] = [rank(c[0]), rank(c[1]), rank(c[2])];
    match (r0 == r1, r1 == r2) {
        (true, true) => pack(THREE_OF_A_KIND, &[r0], 0),
        (true, false) => pack(PAIR, &[r0, r2], tb.suit(suit(c[2]))),
        (false, true) => pack(PAIR, &[r1, r0], tb.suit(suit(c[0]))),
        (false, false) => {
            let flush = suit(c[0]) == suit(c[1]) && suit(c[1]) == suit(c[2]);
            // A-2-3 ranks below 2-3-4: its top is the 3 (rank field 1 < 2).
            let straight = if r2 - r0 == 2 {
                Some((r2, suit(c[2])))
            } else if r0 == 0 && r1 == 1 && r2 == 12 {
                let s = match tb.ace_low_straight_suit {
                    AceLowStraightSuit::TopOfSequence => suit(c[1]),
                    AceLowStraightSuit::Ace => suit(c[2]),
                };
                Some((1, s))
            } else {
                None
            };
            match (straight, flush) {
                (Some((top, s)), true) => pack(STRAIGHT_FLUSH, &[top], tb.suit(s)),
                (Some((top, s)), false) => pack(STRAIGHT, &[top], tb.suit(s)),
                (None, true) => pack(FLUSH, &[r2, r1, r0], tb.suit(suit(c[2]))),
                (None, false) => pack(HIGH_CARD, &[r2, r1, r0], tb.suit(suit(c[2]))),
            }
        }
    }
}

/// The strength key of any 3 distinct cards.
#[must_use]
pub fn key(cards: [u8; 3], tb: &TieBreaks) -> u32 {
    let mut c = cards;
    c.sort_unstable();
    key_sorted(&c, tb)
}
