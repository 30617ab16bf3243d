//! Q Poker "與莊荷博彩" (and Three Card Poker's Ante/Play): for each of the 22,100 player hands,
//! how the 18,424 dealer hands it can meet split into showdown outcomes. The rule file's
//! payouts turn these counts into exact values (in Python); no payout lives here.

use crate::enumerate::keys3;
pub use crate::games::showdown::qualifier_key;
use crate::games::showdown::{statute_tables, sweep, Lanes};
use crate::ranking::TieBreaks;

/// Dealer hands a player hand can meet: C(49, 3).
pub const DEALER_HANDS: u32 = 18_424;

/// The showdown counts of one player hand over the dealer hands disjoint from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandCounts {
    /// Dealer hands that do not qualify.
    pub not_qualifying: u32,
    /// Qualifying dealer hands of lower ranks (the player wins under either ordering).
    pub beaten: u32,
    /// Qualifying dealer hands of equal ranks (a push under rank-only rules).
    pub equal_ranks: u32,
    /// Of `equal_ranks`, those the player beats by the statute's suit tie-break.
    pub won_on_suit: u32,
}

impl HandCounts {
    /// The names of the counts in the order of `as_array` (the columns of the table the
    /// bindings hand to Python).
    pub const FIELDS: [&'static str; 4] =
        ["not_qualifying", "beaten", "equal_ranks", "won_on_suit"];

    /// The counts in the order of `FIELDS`.
    #[must_use]
    pub fn as_array(&self) -> [u32; 4] {
        [
            self.not_qualifying,
            self.beaten,
            self.equal_ranks,
            self.won_on_suit,
        ]
    }
}

/// Showdown counts of every player hand, in colex order. `tie_breaks` gives the statute's
/// suit readings; suits are always resolved here, and `equal_ranks` / `won_on_suit` let the
/// caller apply either ordering.
#[must_use]
pub fn hand_counts(tie_breaks: &TieBreaks, qualifier: u32) -> Vec<HandCounts> {
    hand_counts_range(tie_breaks, qualifier, 0..HANDS)
}

/// Player hands: C(52, 3).
pub const HANDS: usize = 22_100;

/// Showdown counts of the player hands whose colex index is in `range` (a shard of
/// `hand_counts`: every dealer hand is still swept, only these player hands are recorded).
#[must_use]
pub fn hand_counts_range(
    tie_breaks: &TieBreaks,
    qualifier: u32,
    range: std::ops::Range<usize>,
) -> Vec<HandCounts> {
    assert!(
        range.start <= range.end && range.end <= HANDS,
        "hands {range:?}"
    );
    let (keys, hands, order) = statute_tables::<3>(tie_breaks, keys3);
    let mut out = vec![HandCounts::default(); range.len()];
    sweep(
        &hands,
        &keys,
        &order,
        qualifier,
        3,
        Lanes::Count,
        0..order.len(),
        |i, _, c| {
            if !range.contains(&i) {
                return;
            }
            let nq = c.not_qualifying[0] as u32;
            out[i - range.start] = if c.qualifies {
                HandCounts {
                    not_qualifying: nq,
                    beaten: c.below[0] as u32 - nq,
                    equal_ranks: (c.below_or_equal[0] - c.below[0]) as u32,
                    won_on_suit: (c.below_statute[0] - c.below[0]) as u32,
                }
            } else {
                HandCounts {
                    not_qualifying: nq,
                    ..HandCounts::default()
                }
            };
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_hand;
    use crate::enumerate::colex_index;

    fn counts_of(all: &[HandCounts], hand: &str) -> HandCounts {
        let mut h = parse_hand(hand).unwrap();
        h.sort_unstable();
        all[colex_index(&h) as usize]
    }

    /// Each count sits in its named column.
    #[test]
    fn columns_are_in_the_order_of_their_names() {
        let c = HandCounts {
            not_qualifying: 1,
            beaten: 2,
            equal_ranks: 3,
            won_on_suit: 4,
        };
        let named: Vec<(&str, u32)> = HandCounts::FIELDS.into_iter().zip(c.as_array()).collect();
        assert_eq!(
            named,
            [
                ("not_qualifying", 1),
                ("beaten", 2),
                ("equal_ranks", 3),
                ("won_on_suit", 4)
            ]
        );
    }

    /// Shards of player hands put together are the whole table.
    #[test]
    fn ranges_concatenate_to_the_whole_table() {
        let q = qualifier_key(&[10]);
        let all = hand_counts(&TieBreaks::STATUTE, q);
        let mut joined = hand_counts_range(&TieBreaks::STATUTE, q, 0..7_001);
        joined.extend(hand_counts_range(&TieBreaks::STATUTE, q, 7_001..7_001));
        joined.extend(hand_counts_range(&TieBreaks::STATUTE, q, 7_001..HANDS));
        assert_eq!(joined, all);
    }

    #[test]
    fn totals_and_known_hands() {
        let all = hand_counts(&TieBreaks::STATUTE, qualifier_key(&[10]));
        // The best straight flush beats every qualifying dealer hand.
        let best = counts_of(&all, "As Ks Qs");
        assert_eq!(
            best.not_qualifying + best.beaten + best.equal_ranks,
            DEALER_HANDS
        );
        // A hand below Q-high never beats a qualifying dealer.
        assert_eq!(counts_of(&all, "Js 9h 7d").beaten, 0);
        // Dealer hands below Q-high among all C(52,3): 16,440 high cards, of which those
        // with top card 2..J; for a fixed player hand the count depends on its cards only.
        let total_nq: u64 = all.iter().map(|c| u64::from(c.not_qualifying)).sum();
        assert!(total_nq > 0);
        for c in &all {
            assert!(c.not_qualifying + c.beaten + c.equal_ranks <= DEALER_HANDS);
            assert!(c.won_on_suit <= c.equal_ranks);
        }
    }
}
