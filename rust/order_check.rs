//! Exhaustive check of a vendor's scores against an ordering: every disjoint pair that matters.
//!
//! Given every hand's key under the rule file (colex order) and a vendor evaluator's score of
//! every hand (higher wins, equal pushes), two checks cover every pair of hands that can meet
//! in one deal (no card in common):
//!
//! * **Within a rank class** (hands equal but for suits: the key with its suit field cleared),
//!   every disjoint pair is compared: under the statute these are exactly the suit-decided
//!   pairs; under rank-only rules they must push.
//! * **Across rank classes**, with the classes sorted, if every class's highest score is below
//!   the next class's lowest, every disjoint pair across classes is ordered right (the scores
//!   of the classes then form an increasing chain). Where a boundary fails, a disjoint pair
//!   that the vendor orders wrongly is searched between the two classes and named.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::enumerate::hand_at;
use crate::ranking::CATEGORY_SHIFT;

/// The suit field of a key (cleared: the hand's rank class).
const SUIT_FIELD: u32 = 3;

/// How the vendor answered a pair wrongly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// The other hand wins.
    Reversed,
    /// Equal scores where one hand wins.
    Pushed,
    /// One hand wins where the pair pushes.
    Split,
}

/// The pairs of one category checked within rank classes, and the wrong answers by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CategoryTally {
    pub checked: u64,
    pub reversed: u64,
    pub pushed: u64,
    pub split: u64,
    /// Up to `keep` wrongly answered pairs (colex indices; the first is the winner by rule, or
    /// either one for a push).
    pub examples: Vec<(u32, u32)>,
}

impl CategoryTally {
    fn add(&mut self, other: &CategoryTally, keep: usize) {
        self.checked += other.checked;
        self.reversed += other.reversed;
        self.pushed += other.pushed;
        self.split += other.split;
        let room = keep.saturating_sub(self.examples.len());
        self.examples
            .extend(other.examples.iter().take(room).copied());
    }

    #[must_use]
    pub fn wrong(&self) -> u64 {
        self.reversed + self.pushed + self.split
    }
}

/// One pair of adjacent rank classes whose scores overlap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boundary {
    /// A hand of the lower class and one of the upper class (colex indices).
    pub lower: u32,
    pub upper: u32,
    /// Whether the pair shares no card (a deal can hold both); `false` when the scores overlap
    /// only between hands that share a card.
    pub disjoint: bool,
}

/// The result of checking every hand's score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderCheck {
    /// Per category (index = category of the key).
    pub within: Vec<CategoryTally>,
    /// Number of rank classes (and so `classes - 1` boundaries checked).
    pub classes: u64,
    /// Boundaries where the lower class's best score is not below the upper class's worst.
    pub boundaries: Vec<Boundary>,
}

/// The card mask of every hand, in colex order.
#[must_use]
pub fn masks(n_hands: usize, hand_size: usize) -> Vec<u64> {
    (0..n_hands as u64)
        .into_par_iter()
        .map(|i| hand_at(i, hand_size).iter().fold(0u64, |m, &c| m | 1 << c))
        .collect()
}

fn verdict(expected: Ordering, got: Ordering) -> Option<Wrong> {
    match (expected, got) {
        (e, g) if e == g => None,
        (Ordering::Equal, _) => Some(Wrong::Split),
        (_, Ordering::Equal) => Some(Wrong::Pushed),
        _ => Some(Wrong::Reversed),
    }
}

/// Check every hand's score (`scores[i]` for the hand at colex index i) against `keys`.
///
/// # Panics
/// If `keys`, `scores` and the hand count disagree.
#[must_use]
pub fn check(
    keys: &[u32],
    scores: &[i32],
    hand_size: usize,
    categories: usize,
    keep: usize,
) -> OrderCheck {
    assert_eq!(keys.len(), scores.len(), "one score per hand");
    let masks = masks(keys.len(), hand_size);
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.par_sort_unstable_by_key(|&i| (keys[i as usize], i));
    let class_of = |i: u32| keys[i as usize] & !SUIT_FIELD;
    let mut starts = vec![0usize];
    for w in 1..order.len() {
        if class_of(order[w]) != class_of(order[w - 1]) {
            starts.push(w);
        }
    }
    starts.push(order.len());
    let classes: Vec<&[u32]> = starts.windows(2).map(|w| &order[w[0]..w[1]]).collect();

    let within = classes
        .par_iter()
        .map(|class| {
            let mut tally = CategoryTally::default();
            for (x, &a) in class.iter().enumerate() {
                let (ka, sa, ma) = (keys[a as usize], scores[a as usize], masks[a as usize]);
                for &b in &class[x + 1..] {
                    if ma & masks[b as usize] != 0 {
                        continue;
                    }
                    tally.checked += 1;
                    let (kb, sb) = (keys[b as usize], scores[b as usize]);
                    if let Some(wrong) = verdict(ka.cmp(&kb), sa.cmp(&sb)) {
                        match wrong {
                            Wrong::Reversed => tally.reversed += 1,
                            Wrong::Pushed => tally.pushed += 1,
                            Wrong::Split => tally.split += 1,
                        }
                        if tally.examples.len() < keep {
                            tally.examples.push(if ka >= kb { (a, b) } else { (b, a) });
                        }
                    }
                }
            }
            let category = (keys[class[0] as usize] >> CATEGORY_SHIFT) as usize;
            (category, tally)
        })
        .collect::<Vec<_>>();
    let mut per_category = vec![CategoryTally::default(); categories];
    for (category, tally) in &within {
        per_category[*category].add(tally, keep);
    }

    let bounds: Vec<(i32, i32)> = classes
        .par_iter()
        .map(|class| {
            class.iter().fold((i32::MAX, i32::MIN), |(lo, hi), &i| {
                (lo.min(scores[i as usize]), hi.max(scores[i as usize]))
            })
        })
        .collect();
    let boundaries = (0..classes.len().saturating_sub(1))
        .into_par_iter()
        .filter(|&c| bounds[c].1 >= bounds[c + 1].0)
        .map(|c| witness(classes[c], classes[c + 1], scores, &masks))
        .collect();

    OrderCheck {
        within: per_category,
        classes: classes.len() as u64,
        boundaries,
    }
}

/// A pair (lower-class hand, upper-class hand) that the scores order wrongly, disjoint if any.
fn witness(lower: &[u32], upper: &[u32], scores: &[i32], masks: &[u64]) -> Boundary {
    let mut overlapping = None;
    for &a in lower {
        for &b in upper {
            if scores[a as usize] >= scores[b as usize] {
                if masks[a as usize] & masks[b as usize] == 0 {
                    return Boundary {
                        lower: a,
                        upper: b,
                        disjoint: true,
                    };
                }
                overlapping.get_or_insert((a, b));
            }
        }
    }
    let (a, b) = overlapping.expect("an overlapping boundary has a pair out of order");
    Boundary {
        lower: a,
        upper: b,
        disjoint: false,
    }
}

/// The number of disjoint pairs within rank classes whose keys differ (the suit-decided pairs
/// under a statute ordering), counted without any scores.
#[must_use]
pub fn suit_decided_pairs(keys: &[u32], hand_size: usize) -> u64 {
    let scores: Vec<i32> = keys
        .iter()
        .map(|&k| i32::try_from(k).expect("keys are below 2^26"))
        .collect();
    check(keys, &scores, hand_size, 16, 0)
        .within
        .iter()
        .map(|t| t.checked)
        .sum()
}

#[cfg(test)]
#[allow(clippy::cast_possible_wrap)]
mod tests {
    use super::*;
    use crate::enumerate::{keys3, keys5};
    use crate::ranking::TieBreaks;

    fn scores_of(keys: &[u32]) -> Vec<i32> {
        keys.iter().map(|&k| k as i32).collect()
    }

    #[test]
    fn the_statute_keys_pass_their_own_check() {
        let keys = keys3(&TieBreaks::STATUTE);
        let result = check(&keys, &scores_of(&keys), 3, 6, 5);
        assert!(result.boundaries.is_empty());
        assert!(result.within.iter().all(|t| t.wrong() == 0));
        // Rank classes of 3 cards: 274 high cards, 274 flushes, 156 pairs, 12 straights,
        // 13 threes of a kind, 12 straight flushes.
        assert_eq!(result.classes, 741);
    }

    /// Brute force over every pair of 3-card hands: the within-class disjoint pairs.
    #[test]
    fn three_card_pair_count_matches_brute_force() {
        let keys = keys3(&TieBreaks::STATUTE);
        let masks = masks(keys.len(), 3);
        let mut brute = 0u64;
        for a in 0..keys.len() {
            for b in a + 1..keys.len() {
                if masks[a] & masks[b] == 0 && keys[a] & !3 == keys[b] & !3 {
                    assert_ne!(
                        keys[a], keys[b],
                        "disjoint hands never tie under the statute"
                    );
                    brute += 1;
                }
            }
        }
        assert_eq!(suit_decided_pairs(&keys, 3), brute);
    }

    #[test]
    fn rank_only_scores_push_every_suit_decided_pair() {
        let keys = keys3(&TieBreaks::STATUTE);
        let rank_only = keys3(&TieBreaks::RANK_ONLY);
        let result = check(&keys, &scores_of(&rank_only), 3, 6, 3);
        let pairs = suit_decided_pairs(&keys, 3);
        let pushed: u64 = result.within.iter().map(|t| t.pushed).sum();
        assert_eq!(pushed, pairs);
        assert!(result.boundaries.is_empty());
        assert_eq!(result.within[1].examples.len(), 3);
    }

    #[test]
    fn a_category_swap_is_found_at_its_boundary() {
        // Score flushes below straights: the boundary between the best straight and the
        // worst flush (and between the best flush and the worst straight) fails, disjointly.
        let keys = keys5(&TieBreaks::STATUTE);
        let swapped: Vec<i32> = keys
            .iter()
            .map(|&k| {
                let c = k >> CATEGORY_SHIFT;
                let c = match c {
                    4 => 5,
                    5 => 4,
                    c => c,
                };
                ((c << CATEGORY_SHIFT) | (k & ((1 << CATEGORY_SHIFT) - 1))) as i32
            })
            .collect();
        let result = check(&keys, &swapped, 5, 10, 3);
        assert!(result.within.iter().all(|t| t.wrong() == 0));
        assert!(!result.boundaries.is_empty());
        assert!(result.boundaries.iter().any(|b| b.disjoint));
        for b in &result.boundaries {
            assert!(swapped[b.lower as usize] >= swapped[b.upper as usize]);
            assert!(keys[b.lower as usize] < keys[b.upper as usize]);
        }
    }
}
