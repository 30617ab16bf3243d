//! What the two poker orderings share: the tie-break options and the strength-key layout.
//!
//! A strength key is a `u32`: the category in bits 22.., then up to five 4-bit rank fields
//! in the order the statute compares them, then a 2-bit suit field. Comparing keys compares
//! hands. Unused rank fields are 0; under rank-only rules the suit field is 0. The suit field
//! is the suit's place in the rule file's suit order (0 lowest), looked up once per key.

/// Which card's suit decides between two equal ace-low straights (A-2-3, 5-4-3-2-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AceLowStraightSuit {
    /// The highest card of the sequence: the 3 of A-2-3, the 5 of 5-4-3-2-A.
    TopOfSequence,
    /// The ace.
    Ace,
}

/// Which of a pair's two suits is "the suit of the pair".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairSuit {
    Higher,
    Lower,
}

/// The tie-break rules of one ordering; the rule files choose them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TieBreaks {
    /// Statute ordering: equal ranks are decided by suit (Art. 4, Art. 8). False: standard
    /// casino rules, equal ranks push.
    pub suit_decides: bool,
    pub ace_low_straight_suit: AceLowStraightSuit,
    pub pair_suit: PairSuit,
    /// The place of each suit id (diamonds 0, clubs 1, hearts 2, spades 3) in the rule file's
    /// suit order, 0 lowest. The statutes' order (Art. 4) is the identity.
    pub suit_rank: [u8; 4],
}

/// The statutes' suit order (Art. 4): spades > hearts > clubs > diamonds, the order of ids.
pub const STATUTE_SUIT_RANK: [u8; 4] = [0, 1, 2, 3];

impl TieBreaks {
    pub const STATUTE: TieBreaks = TieBreaks {
        suit_decides: true,
        ace_low_straight_suit: AceLowStraightSuit::TopOfSequence,
        pair_suit: PairSuit::Higher,
        suit_rank: STATUTE_SUIT_RANK,
    };
    pub const RANK_ONLY: TieBreaks = TieBreaks {
        suit_decides: false,
        ace_low_straight_suit: AceLowStraightSuit::TopOfSequence,
        pair_suit: PairSuit::Higher,
        suit_rank: STATUTE_SUIT_RANK,
    };

    /// The suit field of a key: the suit's place in the suit order, or 0 when suits never
    /// decide.
    #[inline]
    pub(crate) fn suit(&self, suit: u8) -> u32 {
        if self.suit_decides {
            u32::from(self.suit_rank[usize::from(suit & 3)])
        } else {
            0
        }
    }
}

pub const CATEGORY_SHIFT: u32 = 22;

/// Pack a key: category, rank fields in comparison order, suit field.
#[inline]
#[must_use]
pub fn pack(category: u8, ranks: &[u8], suit: u32) -> u32 {
    let mut key = u32::from(category) << CATEGORY_SHIFT;
    let mut shift = 18;
    for &r in ranks {
        key |= u32::from(r) << shift;
        shift -= 4;
    }
    key | suit
}

/// The category of a key.
#[inline]
#[must_use]
pub const fn category(key: u32) -> u8 {
    (key >> CATEGORY_SHIFT) as u8
}

/// The fields of a key: category, five rank fields (comparison order), suit.
#[must_use]
pub fn fields(key: u32) -> (u8, [u8; 5], u8) {
    let mut ranks = [0u8; 5];
    for (i, r) in ranks.iter_mut().enumerate() {
        *r = ((key >> (18 - 4 * i as u32)) & 0xF) as u8;
    }
    (category(key), ranks, (key & 3) as u8)
}
