//! Every distinct complete concealed hand of a game, with its multiplicity (Art. 4, Art. 6).
//!
//! A complete hand is `n` sets and a pair (n = 4 traditional, 1 simple). Sets never cross a
//! suit, so a complete hand is a choice of one complete *part* per group of tiles (each suit,
//! the honours): parts with k sets, one of them with the pair, the k adding up to n. Each
//! group's parts are found once (a few thousand), with every reading of each; the hands are
//! then the combinations of parts, which are distinct by construction, so nothing is sorted or
//! deduplicated. A hand's multiplicity (physical tile combinations) is the product of C(4,
//! count) over its tiles, and so the product over its parts.
//!
//! Each hand is classified by the set of its readings' [`signature`]s; the result is a
//! histogram over those classes, which the Python rules engine scores under any seat/round
//! wind and rule file without re-enumerating.
//!
//! [`signature`]: super::decompose::signature

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use super::decompose::{
    chow_starts, is_thirteen_orphans, readings, sets_in_win, thirteen_orphans_signature, Meld,
    PartialSignature, SetKind, ORPHANS,
};
use super::tiles::{self, TileSet, TILE_TYPES};

const CHOOSE4: [u64; 5] = [1, 4, 6, 4, 1];

/// The sets a concealed hand over these tile types can contain: pungs, then chows.
#[must_use]
pub fn all_sets(types: &[u8]) -> Vec<Meld> {
    let pungs = types.iter().map(|&t| Meld {
        kind: SetKind::Pung,
        tile: t,
        exposed: false,
    });
    let chows = (0..27u8)
        .filter(|&t| chow_starts(t) && (t..t + 3).all(|u| types.contains(&u)))
        .map(|t| Meld {
            kind: SetKind::Chow,
            tile: t,
            exposed: false,
        });
    pungs.chain(chows).collect()
}

/// One class of complete hands: the signatures of a hand's decompositions (sorted, distinct),
/// how many distinct hands (tile multisets) have them, and how many physical tile combinations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandClass {
    pub signatures: Vec<u32>,
    pub distinct: u64,
    pub combinations: u64,
}

/// The result of enumerating one game's complete concealed hands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enumeration {
    /// Distinct complete hands of `n` sets and a pair.
    pub distinct_standard: u64,
    /// Physical combinations (out of C(tiles, 3n+2)) giving one of those.
    pub combinations_standard: u64,
    /// Distinct Thirteen Orphans hands and their combinations (0 in the simple game).
    pub distinct_orphans: u64,
    pub combinations_orphans: u64,
    /// Histogram of hand classes (Thirteen Orphans included, as its own class), sorted by
    /// signatures.
    pub classes: Vec<HandClass>,
}

/// Enumerate every distinct complete concealed hand of the game played with `set`.
#[must_use]
pub fn enumerate_complete(set: TileSet) -> Enumeration {
    enumerate_over(&set.types(), sets_in_win(set), set == TileSet::Traditional)
}

/// One complete part of a hand within one group: its multiplicity and the partial signatures
/// of its readings (distinct).
struct Part {
    combinations: u64,
    readings: Vec<PartialSignature>,
}

/// A group's parts by number of sets (0..=n) and whether they hold the pair.
type PartTable = Vec<[Vec<Part>; 2]>;

/// Every complete part over a group of tile types, for 0..=n sets, with and without the pair.
fn parts(group: &[u8], n: usize) -> PartTable {
    let melds = all_sets(group);
    let mut table: PartTable = (0..=n).map(|_| [Vec::new(), Vec::new()]).collect();
    for (k, row) in table.iter_mut().enumerate() {
        let mut seen: HashSet<[u8; TILE_TYPES]> = HashSet::new();
        for combo in multisets(melds.len(), k) {
            let mut counts = [0u8; TILE_TYPES];
            for &m in &combo {
                for t in melds[m].tiles() {
                    counts[t as usize] += 1;
                }
            }
            let pairs = group.iter().map(Some).chain(std::iter::once(None));
            for pair in pairs {
                let mut c = counts;
                if let Some(&p) = pair {
                    c[p as usize] += 2;
                }
                if c.iter().all(|&x| x <= tiles::COPIES) && seen.insert(c) {
                    let mut read: Vec<PartialSignature> = readings(&c, k, pair.is_some())
                        .iter()
                        .map(|(p, sets)| PartialSignature::of(*p, sets))
                        .collect();
                    read.sort_by_key(|r| (r.any, r.all));
                    read.dedup();
                    row[usize::from(pair.is_some())].push(Part {
                        combinations: c.iter().map(|&x| CHOOSE4[x as usize]).product(),
                        readings: read,
                    });
                }
            }
        }
    }
    table
}

/// Multisets of `k` indices into `0..m`, as non-decreasing index lists.
fn multisets(m: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for _ in 0..k {
        out = out
            .into_iter()
            .flat_map(|v| {
                let from = v.last().copied().unwrap_or(0);
                (from..m).map(move |i| {
                    let mut w = v.clone();
                    w.push(i);
                    w
                })
            })
            .collect();
    }
    out
}

/// Counts gathered while combining parts.
#[derive(Default)]
struct Histogram {
    distinct: u64,
    combinations: u64,
    single: HashMap<u32, (u64, u64)>,
    multiple: HashMap<Vec<u32>, (u64, u64)>,
}

impl Histogram {
    fn record(&mut self, readings: &[PartialSignature], combinations: u64) {
        self.distinct += 1;
        self.combinations += combinations;
        let entry = if let [one] = readings {
            self.single.entry(one.finish()).or_default()
        } else {
            let mut sigs: Vec<u32> = readings.iter().map(|r| r.finish()).collect();
            sigs.sort_unstable();
            sigs.dedup();
            if let [one] = sigs[..] {
                self.single.entry(one).or_default()
            } else {
                self.multiple.entry(sigs).or_default()
            }
        };
        entry.0 += 1;
        entry.1 += combinations;
    }

    fn merge(mut self, other: Histogram) -> Histogram {
        self.distinct += other.distinct;
        self.combinations += other.combinations;
        for (k, v) in other.single {
            let e = self.single.entry(k).or_default();
            e.0 += v.0;
            e.1 += v.1;
        }
        for (k, v) in other.multiple {
            let e = self.multiple.entry(k).or_default();
            e.0 += v.0;
            e.1 += v.1;
        }
        self
    }
}

/// Combine one part from each group `g..`, given what the earlier groups hold.
struct Combiner<'a> {
    tables: &'a [PartTable],
    /// Reading lists per depth, reused so the inner loops never allocate.
    scratch: Vec<Vec<PartialSignature>>,
    hist: Histogram,
}

impl Combiner<'_> {
    fn descend(&mut self, g: usize, sets_left: usize, pair_left: bool, combinations: u64) {
        let tables = self.tables;
        if g == tables.len() {
            if sets_left == 0 && !pair_left {
                let (done, _) = self.scratch.split_at(g + 1);
                self.hist.record(&done[g], combinations);
            }
            return;
        }
        let last = g + 1 == tables.len();
        for (k, by_pair) in tables[g].iter().enumerate().take(sets_left + 1) {
            for with_pair in [false, true] {
                if (with_pair && !pair_left) || (last && (k != sets_left || with_pair != pair_left))
                {
                    continue;
                }
                for part in &by_pair[usize::from(with_pair)] {
                    let (before, after) = self.scratch.split_at_mut(g + 1);
                    let next = &mut after[0];
                    next.clear();
                    for a in &before[g] {
                        next.extend(part.readings.iter().map(|b| a.join(*b)));
                    }
                    self.descend(
                        g + 1,
                        sets_left - k,
                        pair_left && !with_pair,
                        combinations * part.combinations,
                    );
                }
            }
        }
    }
}

/// Enumerate every distinct complete hand of `n` sets (n <= 4) and a pair over some tile
/// types (four of each), adding the Thirteen Orphans when asked.
#[must_use]
pub fn enumerate_over(types: &[u8], n: usize, thirteen_orphans: bool) -> Enumeration {
    assert!((1..=4).contains(&n), "1 to 4 sets");
    let groups: Vec<Vec<u8>> = [Some(0), Some(1), Some(2), None]
        .iter()
        .map(|&suit| {
            types
                .iter()
                .copied()
                .filter(|&t| tiles::suit(t) == suit)
                .collect::<Vec<u8>>()
        })
        .filter(|g| !g.is_empty())
        .collect();
    let tables: Vec<PartTable> = groups.iter().map(|g| parts(g, n)).collect();

    // Parallel over the first group's parts; the rest combine depth-first.
    let first: Vec<(usize, bool, &Part)> = (0..=n)
        .flat_map(|k| {
            let tables = &tables;
            [false, true].into_iter().flat_map(move |p| {
                tables[0][k][usize::from(p)]
                    .iter()
                    .map(move |part| (k, p, part))
            })
        })
        .collect();
    let hist = first
        .par_iter()
        .map(|&(k, with_pair, part)| {
            let mut c = Combiner {
                tables: &tables,
                scratch: vec![Vec::new(); tables.len() + 1],
                hist: Histogram::default(),
            };
            c.scratch[1].clone_from(&part.readings);
            if tables.len() == 1 {
                if k == n && with_pair {
                    c.hist.record(&part.readings, part.combinations);
                }
            } else {
                c.descend(1, n - k, !with_pair, part.combinations);
            }
            c.hist
        })
        .reduce(Histogram::default, Histogram::merge);

    let mut classes: Vec<HandClass> = hist
        .single
        .into_iter()
        .map(|(s, v)| (vec![s], v))
        .chain(hist.multiple)
        .map(|(signatures, (distinct, combinations))| HandClass {
            signatures,
            distinct,
            combinations,
        })
        .collect();

    let (distinct_orphans, combinations_orphans) = if thirteen_orphans {
        let mut d = 0;
        let mut c = 0;
        for &extra in &ORPHANS {
            let mut counts = [0u8; TILE_TYPES];
            for &t in &ORPHANS {
                counts[t as usize] = 1;
            }
            counts[extra as usize] += 1;
            debug_assert!(is_thirteen_orphans(&counts));
            d += 1;
            c += counts.iter().map(|&k| CHOOSE4[k as usize]).product::<u64>();
        }
        classes.push(HandClass {
            signatures: vec![thirteen_orphans_signature()],
            distinct: d,
            combinations: c,
        });
        (d, c)
    } else {
        (0, 0)
    };
    classes.sort_by(|a, b| a.signatures.cmp(&b.signatures));
    Enumeration {
        distinct_standard: hist.distinct,
        combinations_standard: hist.combinations,
        distinct_orphans,
        combinations_orphans,
        classes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_game_small_counts() {
        let e = enumerate_complete(TileSet::Simple);
        // Checked independently by brute force over all 5-tile multisets in the Python tests.
        assert!(e.distinct_standard > 0);
        assert_eq!(e.distinct_orphans, 0);
        let total: u64 = e.classes.iter().map(|c| c.distinct).sum();
        assert_eq!(total, e.distinct_standard);
    }

    #[test]
    fn traditional_game_published_count() {
        // 11,498,658 complete four-sets-and-a-pair forms (see tests/test_mahjong_enumeration.py
        // for the source).
        let e = enumerate_complete(TileSet::Traditional);
        assert_eq!(e.distinct_standard, 11_498_658);
        assert_eq!(e.distinct_orphans, 13);
    }

    /// Brute force: every multiset of `size` tiles over `types`, read by the decomposer.
    fn brute_force_classes(types: &[u8], n: usize) -> Vec<HandClass> {
        fn rec(
            types: &[u8],
            at: usize,
            left: usize,
            counts: &mut [u8; TILE_TYPES],
            n: usize,
            hist: &mut HashMap<Vec<u32>, (u64, u64)>,
        ) {
            if at == types.len() {
                if left == 0 {
                    let mut sigs: Vec<u32> = super::super::decompose::decompositions(counts, n)
                        .iter()
                        .map(|d| super::super::decompose::signature(d.pair, &d.sets))
                        .collect();
                    sigs.sort_unstable();
                    sigs.dedup();
                    if !sigs.is_empty() {
                        let mult: u64 = counts.iter().map(|&c| CHOOSE4[c as usize]).product();
                        let e = hist.entry(sigs).or_default();
                        e.0 += 1;
                        e.1 += mult;
                    }
                }
                return;
            }
            let t = types[at] as usize;
            for c in 0..=left.min(4) {
                counts[t] = c as u8;
                rec(types, at + 1, left - c, counts, n, hist);
            }
            counts[t] = 0;
        }
        let mut hist = HashMap::new();
        rec(types, 0, 3 * n + 2, &mut [0; TILE_TYPES], n, &mut hist);
        let mut classes: Vec<HandClass> = hist
            .into_iter()
            .map(|(signatures, (distinct, combinations))| HandClass {
                signatures,
                distinct,
                combinations,
            })
            .collect();
        classes.sort_by(|a, b| a.signatures.cmp(&b.signatures));
        classes
    }

    #[test]
    fn classes_match_brute_force() {
        // Two suits' worth of mixed shapes and honours, small enough to brute-force.
        let types: Vec<u8> = (0..9).chain([9, 10, 11, 27, 28, 31, 32]).collect();
        for n in 1..=2 {
            let e = enumerate_over(&types, n, false);
            assert_eq!(e.classes, brute_force_classes(&types, n), "n = {n}");
        }
        let e = enumerate_over(&(0..9).collect::<Vec<u8>>(), 3, false);
        assert_eq!(
            e.classes,
            brute_force_classes(&(0..9).collect::<Vec<u8>>(), 3)
        );
    }

    #[test]
    fn project_euler_696_figures() {
        // Project Euler problem 696 "Mahjong": w(4,1,1) = 20, w(9,1,4) = 13,259,
        // w(9,3,4) = 5,237,550 (suits only, no honours).
        assert_eq!(
            enumerate_over(&[0, 1, 2, 3], 1, false).distinct_standard,
            20
        );
        let one_suit: Vec<u8> = (0..9).collect();
        assert_eq!(
            enumerate_over(&one_suit, 4, false).distinct_standard,
            13_259
        );
        let three_suits: Vec<u8> = (0..27).collect();
        assert_eq!(
            enumerate_over(&three_suits, 4, false).distinct_standard,
            5_237_550
        );
    }
}
