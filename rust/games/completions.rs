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

/// One round's completions: the colex index (into the `hand_size`-card key table) of every
/// dealer hand made of `fixed` (or nothing) and `hidden` cards of `rest` (ascending ids).
fn for_each_completion<F: FnMut(usize)>(rest: &[u8], fixed: u8, hidden: usize, mut visit: F) {
    let n = rest.len();
    let has_fixed = fixed != NO_CARD;
    // weight[t][i]: the colex term of rest[i] as the t-th hidden card (its place in the whole
    // hand is t, or t + 1 above the fixed card); below[i]: rest[i] is below the fixed card.
    let mut weight = [[0usize; DECK_SIZE]; 4];
    let mut below = [0usize; DECK_SIZE];
    for (i, &c) in rest.iter().enumerate() {
        let above = usize::from(has_fixed && c > fixed);
        for (t, row) in weight.iter_mut().enumerate().take(hidden) {
            row[i] = choose(c as usize, t + 1 + above) as usize;
        }
        below[i] = usize::from(has_fixed && c < fixed);
    }
    // The fixed card's own term by the number of hidden cards below it.
    let mut own = [0usize; 5];
    if has_fixed {
        for (k, slot) in own.iter_mut().enumerate() {
            *slot = choose(fixed as usize, k + 1) as usize;
        }
    }
    let [w0, w1, w2, w3] = &weight;
    if hidden == 3 {
        for a in 0..n {
            for b in a + 1..n {
                let (sb, nb) = (w0[a] + w1[b], below[a] + below[b]);
                for c in b + 1..n {
                    visit(sb + w2[c] + own[nb + below[c]]);
                }
            }
        }
        return;
    }
    for a in 0..n {
        for b in a + 1..n {
            let (sb, nb) = (w0[a] + w1[b], below[a] + below[b]);
            for c in b + 1..n {
                let (sc, nc) = (sb + w2[c], nb + below[c]);
                for d in c + 1..n {
                    visit(sc + w3[d] + own[nc + below[d]]);
                }
            }
        }
    }
}

/// One round: `below[j]` / `equal[j]` = completions whose key is below / equal to
/// `thresholds[j]`.
fn split_round(
    keys: &[u32],
    rest: &[u8],
    fixed: u8,
    hidden: usize,
    thresholds: &[u32],
    below: &mut [u64],
    equal: &mut [u64],
) {
    let m = thresholds.len();
    let mut lo = vec![0u64; m];
    let mut eq = vec![0u64; m];
    for_each_completion(rest, fixed, hidden, |index| {
        let key = keys[index];
        for j in 0..m {
            lo[j] += u64::from(key < thresholds[j]);
            eq[j] += u64::from(key == thresholds[j]);
        }
    });
    below.copy_from_slice(&lo);
    equal.copy_from_slice(&eq);
}

/// For each round `r`, the dealer's hand is `fixed[r]` (unless [`NO_CARD`]) plus
/// `hand_size - 1` (or `hand_size`) cards from the deck without `dead[r]` (a 52-bit mask of
/// every card dealt in the round, the fixed card included). For each threshold `j` in
/// `offsets[r]..offsets[r + 1]`, writes the number of those completions whose key (from
/// `keys`, the colex-indexed table of `hand_size`-card hands) is below `thresholds[j]` into
/// `below[j]`, and equal to it into `equal[j]`. Rounds run in parallel on rayon.
///
/// # Errors
/// A hidden-card count other than 3 or 4, a fixed card outside its round's dead cards, a mask
/// beyond the deck, or a round with too few cards left.
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
    let mut rests = Vec::with_capacity(rounds);
    for r in 0..rounds {
        if dead[r] >> DECK_SIZE != 0 {
            return Err(SplitError::Mask { round: r });
        }
        let f = fixed[r];
        if f != NO_CARD && (f as usize >= DECK_SIZE || dead[r] & (1 << f) == 0) {
            return Err(SplitError::Fixed { round: r, card: f });
        }
        let hidden = hand_size - usize::from(f != NO_CARD);
        if !(3..=4).contains(&hidden) {
            return Err(SplitError::Hidden(hidden));
        }
        let rest: Vec<u8> = (0..DECK_SIZE as u8)
            .filter(|&c| dead[r] & (1 << c) == 0)
            .collect();
        if rest.len() < hidden {
            return Err(SplitError::Short {
                round: r,
                left: rest.len(),
            });
        }
        rests.push((rest, hidden));
    }
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
            let (rest, hidden) = &rests[r];
            split_round(
                keys,
                rest,
                fixed[r],
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
            let thresholds: Vec<u32> = vec![
                0,
                table.key(&dead[..hand_size]).unwrap(),
                table.key(&dead[dead.len() - hand_size..]).unwrap(),
                u32::MAX,
            ];
            let (mut lo, mut eq) = (vec![0; 4], vec![0; 4]);
            dealer_splits(
                table.keys(),
                hand_size,
                &[fixed],
                &[m],
                &[0, 4],
                &thresholds,
                &mut lo,
                &mut eq,
            )
            .unwrap();
            let total = choose(rest.len(), hidden);
            assert_eq!(lo[3], total);
            assert_eq!(lo[0] + eq[0], 0);
            for (j, &t) in thresholds.iter().enumerate() {
                assert_eq!(
                    (lo[j], eq[j]),
                    brute(&table, &rest, fixed, hidden, t),
                    "{j}"
                );
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
