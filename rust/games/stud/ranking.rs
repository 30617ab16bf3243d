//! A game's hand ranking as data: which cards make a hand (3, 4 or 5, the best of however
//! many are dealt), the order of its categories, and the tie-break options.
//!
//! The category order is the rule file's; the comparisons within a category are the 3-, 4- and
//! 5-card orderings' (`rank3`, `rank4`, `rank5`), whose keys are re-labelled here: the key's
//! category field becomes the category's place in the game's order (0 lowest), so comparing
//! keys compares hands in the game's order. Every `uses`-card hand's key is tabled once by colex
//! index of its card ids; a hand of more cards takes the best of its `uses`-card subsets.

use crate::enumerate::{choose, colex_index, keys3, keys5};
use crate::games::showdown::all_hands;
use crate::ranking::{pack, TieBreaks, CATEGORY_SHIFT};
use crate::{rank4, rank5};

/// Most cards one hand may be dealt.
pub const MAX_CARDS: usize = 7;
/// Most categories of any vocabulary.
pub const MAX_CATEGORIES: usize = rank5::CATEGORIES;

/// The category names of a `uses`-card hand, by the ordering's own category id.
#[must_use]
pub fn vocabulary(uses: usize) -> Option<&'static [&'static str]> {
    match uses {
        3 => Some(&[
            "high-card",
            "pair",
            "flush",
            "straight",
            "three-of-a-kind",
            "straight-flush",
        ]),
        4 => Some(&[
            "high-card",
            "pair",
            "two-pair",
            "straight",
            "flush",
            "three-of-a-kind",
            "straight-flush",
            "four-of-a-kind",
        ]),
        5 => Some(&[
            "high-card",
            "one-pair",
            "two-pair",
            "three-of-a-kind",
            "straight",
            "flush",
            "full-house",
            "four-of-a-kind",
            "straight-flush",
            "royal-flush",
        ]),
        _ => None,
    }
}

/// One game's ranking, its key table built.
#[derive(Debug)]
pub struct Ranking {
    pub uses: usize,
    pub tie_breaks: TieBreaks,
    /// Category names by place in the game's order, lowest first.
    pub names: Vec<&'static str>,
    /// Every `uses`-card hand's key, by colex index of its card ids.
    table: Vec<u32>,
}

const LOW_BITS: u32 = (1 << CATEGORY_SHIFT) - 1;

impl Ranking {
    /// `categories` highest first: exactly the vocabulary of `uses` (royal flush optional for
    /// five cards). The error names the offending value.
    pub fn new(uses: usize, categories: &[String], tie_breaks: TieBreaks) -> Result<Self, String> {
        let vocab = vocabulary(uses)
            .ok_or_else(|| format!("uses {uses}: a hand counts 3, 4 or 5 cards"))?;
        let mut place = vec![None::<u8>; vocab.len()];
        for (i, name) in categories.iter().rev().enumerate() {
            let id = vocab
                .iter()
                .position(|v| v == name)
                .ok_or_else(|| format!("category {name:?} is not a {uses}-card category"))?;
            if place[id].is_some() {
                return Err(format!("category {name:?} is listed twice"));
            }
            place[id] = Some(i as u8);
        }
        let royal = uses == 5 && place[usize::from(rank5::ROYAL_FLUSH)].is_some();
        for (id, p) in place.iter().enumerate() {
            let optional = uses == 5 && id == usize::from(rank5::ROYAL_FLUSH);
            if p.is_none() && !optional {
                return Err(format!("category {:?} is missing", vocab[id]));
            }
        }
        let mut names = vec![""; categories.len()];
        for (id, p) in place.iter().enumerate() {
            if let Some(p) = p {
                names[usize::from(*p)] = vocab[id];
            }
        }
        let relabel = |key: u32| -> u32 {
            let id = usize::from(crate::ranking::category(key));
            if uses == 5 && !royal && id == usize::from(rank5::ROYAL_FLUSH) {
                // Without its own class a royal flush is the A-high straight flush.
                let sf = place[usize::from(rank5::STRAIGHT_FLUSH)].unwrap_or(0);
                return pack(sf, &[12], key & 3);
            }
            (u32::from(place[id].unwrap_or(0)) << CATEGORY_SHIFT) | (key & LOW_BITS)
        };
        let raw = match uses {
            3 => keys3(&tie_breaks),
            4 => all_hands::<4>()
                .iter()
                .map(|h| rank4::key_sorted(h, &tie_breaks))
                .collect(),
            _ => keys5(&tie_breaks),
        };
        let table = raw.into_iter().map(relabel).collect();
        Ok(Ranking {
            uses,
            tie_breaks,
            names,
            table,
        })
    }

    /// The key of exactly `uses` cards, sorted by id.
    #[inline]
    #[must_use]
    pub fn key_sorted(&self, ids: &[u8]) -> u32 {
        self.table[colex_index(ids) as usize]
    }

    /// The key of the best `uses` cards of `ids` (sorted by id, `uses <= len <= MAX_CARDS`).
    #[must_use]
    pub fn best(&self, ids: &[u8]) -> u32 {
        let n = ids.len();
        if n == self.uses {
            return self.key_sorted(ids);
        }
        let mut best = 0;
        let mut pick = [0u8; 5];
        for mask in 0u32..1 << n {
            if mask.count_ones() as usize != self.uses {
                continue;
            }
            let mut k = 0;
            for (i, &c) in ids.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    pick[k] = c;
                    k += 1;
                }
            }
            best = best.max(self.key_sorted(&pick[..k]));
        }
        best
    }

    /// The ranks-only threshold key of a qualifier: `category` with these leading rank fields.
    pub fn qualifier_key(&self, category: &str, ranks: &[u8]) -> Result<u32, String> {
        let place = self
            .names
            .iter()
            .position(|n| *n == category)
            .ok_or_else(|| format!("qualifier category {category:?} is not one of the game's"))?;
        if ranks.len() > 5 || ranks.iter().any(|&r| r > 12) {
            return Err(format!(
                "qualifier ranks {ranks:?}: expected at most 5 ranks 0 (2) .. 12 (A)"
            ));
        }
        Ok(pack(place as u8, ranks, 0))
    }

    /// Categories in the game's order, lowest first.
    #[must_use]
    pub fn categories(&self) -> usize {
        self.names.len()
    }
}

/// Every `k`-subset of `0..n` as a bit mask, in colex order (index = position in the list).
#[must_use]
pub fn combinations(n: usize, k: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(choose(n, k) as usize);
    if k > n {
        return out;
    }
    let mut c: Vec<usize> = (0..k).collect();
    loop {
        out.push(c.iter().fold(0u64, |m, &x| m | 1 << x));
        let mut i = 0;
        while i < k {
            let limit = if i + 1 < k { c[i + 1] } else { n };
            if c[i] + 1 < limit {
                c[i] += 1;
                for (j, x) in c.iter_mut().enumerate().take(i) {
                    *x = j;
                }
                break;
            }
            i += 1;
        }
        if i == k {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::category;

    fn names(uses: usize) -> Vec<String> {
        vocabulary(uses)
            .unwrap()
            .iter()
            .rev()
            .map(|s| (*s).to_string())
            .collect()
    }

    /// In their own order the 3- and 5-card rankings are today's keys exactly.
    #[test]
    fn default_orders_are_todays_keys() {
        for tb in [TieBreaks::STATUTE, TieBreaks::RANK_ONLY] {
            let r3 = Ranking::new(3, &names(3), tb).unwrap();
            assert_eq!(r3.table, keys3(&tb));
            let r5 = Ranking::new(5, &names(5), tb).unwrap();
            assert_eq!(r5.table, keys5(&tb));
        }
        assert_eq!(crate::rank3::CATEGORIES, 6);
        assert_eq!(rank4::CATEGORIES, 8);
    }

    /// A permuted 4-card order (flush above straight, trips above both); best four of six.
    #[test]
    fn a_permuted_order_and_best_of_six() {
        let order: Vec<String> = [
            "four-of-a-kind",
            "straight-flush",
            "three-of-a-kind",
            "flush",
            "straight",
            "two-pair",
            "pair",
            "high-card",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        let r = Ranking::new(4, &order, TieBreaks::RANK_ONLY).unwrap();
        let k = |t: &str| {
            let mut ids = crate::cards::parse_hand(t).unwrap();
            ids.sort_unstable();
            r.best(&ids)
        };
        // trips beat a flush, a flush beats a straight
        assert!(k("2c 2d 2h 9s") > k("3h 7h 9h Kh"));
        assert!(k("3h 7h 9h Kh") > k("9c Td Js Qh"));
        assert_eq!(
            r.names[usize::from(category(k("2c 2d 2h 9s")))],
            "three-of-a-kind"
        );
        // best four of six: the four aces inside
        assert_eq!(
            r.names[usize::from(category(k("Ac Ad Ah As 2c 7d")))],
            "four-of-a-kind"
        );
    }

    #[test]
    fn refusals_name_the_value() {
        let mut bad = names(4);
        bad[0] = "five-of-a-kind".into();
        assert!(Ranking::new(4, &bad, TieBreaks::RANK_ONLY)
            .unwrap_err()
            .contains("five-of-a-kind"));
        let mut short = names(3);
        short.pop();
        assert!(Ranking::new(3, &short, TieBreaks::RANK_ONLY)
            .unwrap_err()
            .contains("high-card"));
        let mut twice = names(3);
        twice[1] = "straight-flush".into();
        assert!(Ranking::new(3, &twice, TieBreaks::RANK_ONLY)
            .unwrap_err()
            .contains("twice"));
        assert!(Ranking::new(6, &names(3), TieBreaks::RANK_ONLY).is_err());
    }

    #[test]
    fn combinations_in_colex_order() {
        let c = combinations(5, 2);
        assert_eq!(c.len(), 10);
        assert_eq!(&c[..4], &[0b11, 0b101, 0b110, 0b1001]);
    }
}
