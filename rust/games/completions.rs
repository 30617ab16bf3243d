//! The dealer's unseen cards in logged rounds: every completion of the dealer's hand from the
//! cards nobody at the table holds, split by strength key against a few thresholds.
//!
//! Given every card dealt in a round (all seats' hands and, in Caribbean Stud, the dealer's
//! upcard), the dealer's hidden cards are a uniformly random subset of the rest of the deck.
//! Every seat's outcome against the dealer depends only on where the dealer's key falls among
//! the qualifier's key and the seats' keys, so counting, for each such threshold, the
//! completions with a key below it and equal to it gives the exact conditional law of the
//! round's whole result. The completions are enumerated (at most C(46, 4) = 163,185 per round)
//! with their colex index built level by level, one table lookup each.

use rayon::prelude::*;

use crate::cards::DECK_SIZE;
use crate::enumerate::choose;

/// No fixed dealer card (Q Poker deals the dealer's hand face down).
pub const NO_CARD: u8 = u8::MAX;

/// Rounds per rayon task.
const CHUNK_ROUNDS: usize = 64;

/// Why a round cannot be enumerated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SplitError {
    /// Hidden dealer cards other than 3 or 4 (hand size minus the fixed card).
    Hidden(usize),
    /// The fixed card is not a card, or is not among the round's dead cards.
    Fixed { round: usize, card: u8 },
    /// Fewer cards left than the dealer needs.
    Short { round: usize, left: usize },
    /// A dead-card mask with bits beyond the deck.
    Mask { round: usize },
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitError::Hidden(h) => write!(f, "{h} hidden dealer cards (3 or 4 supported)"),
            SplitError::Fixed { round, card } => {
                write!(
                    f,
                    "round {round}: fixed card {card} is not one of its dealt cards"
                )
            }
            SplitError::Short { round, left } => write!(f, "round {round}: only {left} cards left"),
            SplitError::Mask { round } => write!(f, "round {round}: dead-card mask beyond 52"),
        }
    }
}

/// Largest threshold count handled by the vectorised count (the fallback loops over any).
const LANES: usize = 8;

/// The keys of the five-card hands holding the fixed card `u`: `table[i]` is the key of `u`
/// plus the 4 cards whose colex index among the 51 other cards (relabelled `c - (c > u)`) is
/// `i` (C(51, 4) = 249,900 keys, 1 MB), which a colex enumeration of a round's unseen cards
/// reads almost in order. Without a fixed card, the exhaustive key table serves as it is.
fn fixed_table(keys: &[u32], fixed: u8) -> Vec<u32> {
    let others = DECK_SIZE - 1;
    let mut out = Vec::with_capacity(choose(others, 4) as usize);
    let u = fixed as usize;
    // the colex term of relabelled card `x` at place `t` among the hidden cards: its place in
    // the whole hand is one more above the fixed card
    let real = |x: usize| x + usize::from(x >= u);
    let term = |x: usize, t: usize| {
        let c = real(x);
        choose(c, t + 1 + usize::from(c > u)) as usize
    };
    let below = |x: usize| usize::from(real(x) < u);
    for d in 3..others {
        for c in 2..d {
            for b in 1..c {
                for a in 0..b {
                    let n = below(a) + below(b) + below(c) + below(d);
                    let own = choose(u, n + 1) as usize;
                    out.push(keys[term(a, 0) + term(b, 1) + term(c, 2) + term(d, 3) + own]);
                }
            }
        }
    }
    out
}

/// One round's completions in colex order: the index into its table of every `hidden`-subset
/// of `labels` (ascending labels of the unseen cards).
#[inline]
#[allow(clippy::needless_range_loop)] // four parallel weight rows, indexed alike
fn for_each_completion<F: FnMut(usize)>(labels: &[usize], hidden: usize, mut visit: F) {
    let n = labels.len();
    let c1: Vec<usize> = labels.to_vec();
    let c2: Vec<usize> = labels.iter().map(|&l| choose(l, 2) as usize).collect();
    let c3: Vec<usize> = labels.iter().map(|&l| choose(l, 3) as usize).collect();
    if hidden == 3 {
        for c in 2..n {
            for b in 1..c {
                let base = c3[c] + c2[b];
                for &a in &c1[..b] {
                    visit(base + a);
                }
            }
        }
        return;
    }
    let c4: Vec<usize> = labels.iter().map(|&l| choose(l, 4) as usize).collect();
    for d in 3..n {
        for c in 2..d {
            let wc = c4[d] + c3[c];
            for b in 1..c {
                let base = wc + c2[b];
                for &a in &c1[..b] {
                    visit(base + a);
                }
            }
        }
    }
}

/// One round: `below[j]` / `equal[j]` = completions whose key is below / equal to
/// `thresholds[j]`. Each completion's key is placed among the sorted thresholds by a
/// fixed-width count (`p` thresholds below it, `e` = it equals the next): one histogram cell
/// `2p + e`, from whose prefix sums every threshold's counts follow.
fn split_round(
    table: &[u32],
    labels: &[usize],
    hidden: usize,
    thresholds: &[u32],
    below: &mut [u64],
    equal: &mut [u64],
) {
    let m = thresholds.len();
    if m > LANES {
        let mut lo = vec![0u64; m];
        let mut eq = vec![0u64; m];
        for_each_completion(labels, hidden, |index| {
            let key = table[index];
            for j in 0..m {
                lo[j] += u64::from(key < thresholds[j]);
                eq[j] += u64::from(key == thresholds[j]);
            }
        });
        below.copy_from_slice(&lo);
        equal.copy_from_slice(&eq);
        return;
    }
    let mut sorted = [u32::MAX; LANES];
    sorted[..m].copy_from_slice(thresholds);
    sorted[..m].sort_unstable();
    let mut hist = [0u64; 2 * LANES + 2];
    for_each_completion(labels, hidden, |index| {
        let key = table[index];
        let p = sorted.iter().map(|&t| usize::from(t < key)).sum::<usize>();
        let e = usize::from(sorted[p.min(LANES - 1)] == key);
        hist[2 * p + e] += 1;
    });
    for j in 0..m {
        let s = sorted[..m].partition_point(|&t| t < thresholds[j]);
        below[j] = hist[..=2 * s].iter().sum();
        equal[j] = hist[2 * s + 1];
    }
}

/// For each round `r`, the dealer's hand is `fixed[r]` (unless [`NO_CARD`]) plus the rest of
/// a `hand_size` hand from the deck without `dead[r]` (a 52-bit mask of every card dealt in
/// the round, the fixed card included): Caribbean Stud's upcard and 4 hidden cards, or Q
/// Poker's 3 hidden cards. For each threshold `j` in `offsets[r]..offsets[r + 1]`, writes the
/// number of those completions whose key (from `keys`, the colex-indexed table of
/// `hand_size`-card hands) is below `thresholds[j]` into `below[j]`, and equal to it into
/// `equal[j]`. Rounds run in parallel on rayon.
///
/// # Errors
/// A hand other than a fixed card and 4 hidden or no fixed card and 3 hidden, a fixed card
/// outside its round's dead cards, a mask beyond the deck, or too few cards left.
#[allow(clippy::too_many_arguments)]
pub fn dealer_splits(
    keys: &[u32],
    hand_size: usize,
    fixed: &[u8],
    dead: &[u64],
    offsets: &[usize],
    thresholds: &[u32],
    below: &mut [u64],
    equal: &mut [u64],
) -> Result<(), SplitError> {
    let rounds = fixed.len();
    assert_eq!(dead.len(), rounds, "one dead-card mask per round");
    assert_eq!(
        offsets.len(),
        rounds + 1,
        "offsets bound every round's thresholds"
    );
    assert_eq!(below.len(), thresholds.len(), "one count per threshold");
    assert_eq!(equal.len(), thresholds.len(), "one count per threshold");
    let mut labelled = Vec::with_capacity(rounds);
    let mut wanted = [false; DECK_SIZE];
    for r in 0..rounds {
        if dead[r] >> DECK_SIZE != 0 {
            return Err(SplitError::Mask { round: r });
        }
        let f = fixed[r];
        if f != NO_CARD && (f as usize >= DECK_SIZE || dead[r] & (1 << f) == 0) {
            return Err(SplitError::Fixed { round: r, card: f });
        }
        let hidden = hand_size - usize::from(f != NO_CARD);
        if hidden != if f == NO_CARD { 3 } else { 4 } {
            return Err(SplitError::Hidden(hidden));
        }
        let labels: Vec<usize> = (0..DECK_SIZE)
            .filter(|&c| dead[r] & (1 << c) == 0)
            .map(|c| c - usize::from(f != NO_CARD && c > f as usize))
            .collect();
        if labels.len() < hidden {
            return Err(SplitError::Short {
                round: r,
                left: labels.len(),
            });
        }
        if f != NO_CARD {
            wanted[f as usize] = true;
        }
        labelled.push((labels, hidden));
    }
    let tables: Vec<Option<Vec<u32>>> = (0..DECK_SIZE)
        .into_par_iter()
        .map(|u| wanted[u].then(|| fixed_table(keys, u as u8)))
        .collect();
    // Cut the outputs at chunk boundaries so that every chunk owns its rounds' counts.
    let mut parts = Vec::new();
    let (mut lo_rest, mut eq_rest) = (below, equal);
    let mut start = 0;
    while start < rounds {
        let end = (start + CHUNK_ROUNDS).min(rounds);
        let width = offsets[end] - offsets[start];
        let (lo, lo_tail) = lo_rest.split_at_mut(width);
        let (eq, eq_tail) = eq_rest.split_at_mut(width);
        parts.push((start, end, lo, eq));
        (lo_rest, eq_rest) = (lo_tail, eq_tail);
        start = end;
    }
    parts.into_par_iter().for_each(|(start, end, lo, eq)| {
        let base = offsets[start];
        for r in start..end {
            let (a, b) = (offsets[r] - base, offsets[r + 1] - base);
            let (labels, hidden) = &labelled[r];
            let table = match fixed[r] {
                NO_CARD => keys,
                f => tables[f as usize].as_deref().unwrap_or(keys),
            };
            split_round(
                table,
                labels,
                *hidden,
                &thresholds[offsets[r]..offsets[r + 1]],
                &mut lo[a..b],
                &mut eq[a..b],
            );
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup::KeyTable;
    use crate::ranking::TieBreaks;

    /// The slow way: every subset of the rest, sorted, looked up one by one.
    fn brute(table: &KeyTable, rest: &[u8], fixed: u8, hidden: usize, t: u32) -> (u64, u64) {
        let mut out = (0, 0);
        let n = rest.len();
        let mut visit = |cards: Vec<u8>| {
            let mut hand = cards;
            if fixed != NO_CARD {
                hand.push(fixed);
            }
            let key = table.key(&hand).unwrap();
            out.0 += u64::from(key < t);
            out.1 += u64::from(key == t);
        };
        for a in 0..n {
            for b in a + 1..n {
                for c in b + 1..n {
                    if hidden == 3 {
                        visit(vec![rest[a], rest[b], rest[c]]);
                        continue;
                    }
                    for d in c + 1..n {
                        visit(vec![rest[a], rest[b], rest[c], rest[d]]);
                    }
                }
            }
        }
        out
    }

    fn mask(cards: &[u8]) -> u64 {
        cards.iter().fold(0, |m, &c| m | 1 << c)
    }

    #[test]
    fn splits_match_brute_force() {
        let tb = TieBreaks::STATUTE;
        for (hand_size, fixed, dead) in [
            (5usize, 20u8, (0u8..30).collect::<Vec<u8>>()),
            (5, 0, (0u8..26).map(|c| c * 2).collect()),
            (5, 51, (20u8..52).collect()),
            (3, NO_CARD, (0u8..36).collect()),
            (3, NO_CARD, (10u8..46).collect()),
        ] {
            let table = KeyTable::new(hand_size, &tb).unwrap();
            let m = mask(&dead);
            let rest: Vec<u8> = (0..52u8).filter(|c| m & (1 << c) == 0).collect();
            let hidden = hand_size - usize::from(fixed != NO_CARD);
            // thresholds: a few keys of real hands among the dead cards, and extremes
            // keys of real hands among the dead cards (one twice), the extremes, and a list
            // longer than the vectorised width
            let mid = table.key(&dead[..hand_size]).unwrap();
            let few: Vec<u32> = vec![
                mid,
                0,
                table.key(&dead[dead.len() - hand_size..]).unwrap(),
                mid,
                u32::MAX,
            ];
            let many: Vec<u32> = (0..LANES + 3)
                .map(|i| table.keys()[i * 7919 % table.keys().len()])
                .collect();
            let total = choose(rest.len(), hidden);
            for thresholds in [few, many] {
                let n = thresholds.len();
                // the same round twice: the offsets give each its own thresholds
                let both = [thresholds.clone(), thresholds.clone()].concat();
                let (mut lo, mut eq) = (vec![0; 2 * n], vec![0; 2 * n]);
                dealer_splits(
                    table.keys(),
                    hand_size,
                    &[fixed, fixed],
                    &[m, m],
                    &[0, n, 2 * n],
                    &both,
                    &mut lo,
                    &mut eq,
                )
                .unwrap();
                assert_eq!(lo[..n], lo[n..]);
                assert_eq!(eq[..n], eq[n..]);
                for (j, &t) in thresholds.iter().enumerate() {
                    assert_eq!(
                        (lo[j], eq[j]),
                        brute(&table, &rest, fixed, hidden, t),
                        "{j}"
                    );
                    if t == u32::MAX {
                        assert_eq!(lo[j], total);
                    }
                }
            }
        }
    }

    #[test]
    fn bad_rounds_are_refused() {
        let keys = vec![0u32; 22_100];
        let run = |fixed: u8, dead: u64, hand_size: usize| {
            dealer_splits(
                &keys,
                hand_size,
                &[fixed],
                &[dead],
                &[0, 0],
                &[],
                &mut [],
                &mut [],
            )
        };
        assert_eq!(run(3, 0, 5), Err(SplitError::Fixed { round: 0, card: 3 }));
        assert_eq!(run(NO_CARD, 1 << 60, 3), Err(SplitError::Mask { round: 0 }));
        assert_eq!(run(NO_CARD, 0, 5), Err(SplitError::Hidden(5)));
        assert_eq!(
            run(NO_CARD, (1 << 51) - 1, 3),
            Err(SplitError::Short { round: 0, left: 1 })
        );
    }
}
