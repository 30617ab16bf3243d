//! Bindings for the game math: Q Poker showdown counts and the Caribbean Stud analysis.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::cards::TieBreaks;
use super::{u32_bytes, RulesError};
use crate::games::{caribbean, q_poker};
use crate::rank5;

/// A counter the core advances while it works, for a progress bar in another thread.
#[pyclass(frozen, module = "tablecert._core")]
#[derive(Clone, Default)]
pub struct Progress(Arc<AtomicU64>);

#[pymethods]
impl Progress {
    #[new]
    fn new() -> Self {
        Progress::default()
    }

    /// Units of work finished so far.
    #[getter]
    fn done(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

fn check_ranks(ranks: &[u8]) -> PyResult<()> {
    if ranks.is_empty() || ranks.len() > 5 || ranks.iter().any(|&r| r > 12) {
        return Err(RulesError::new_err(format!(
            "dealer qualifier ranks {ranks:?}: expected 1 to 5 ranks 0 (2) .. 12 (A)"
        )));
    }
    Ok(())
}

/// A half-open range `(first, end)` of `0..limit`, non-empty unless `empty_ok`.
fn check_range(
    name: &str,
    (first, end): (usize, usize),
    limit: usize,
    empty_ok: bool,
) -> PyResult<()> {
    if first > end || end > limit || (first == end && !empty_ok) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name} ({first}, {end}): expected a range first < end <= {limit}"
        )));
    }
    Ok(())
}

/// Q Poker: for each player hand (colex order), counts over the 18,424 dealer hands it can
/// meet: not qualifying, beaten on ranks, equal ranks, of those won on suit (4 LE u32 each).
/// `hands = (first, end)` limits the answer to those colex indices (a shard).
#[pyfunction]
#[pyo3(signature = (tie_breaks, qualifier_ranks, hands = None))]
fn q_poker_hand_counts<'py>(
    py: Python<'py>,
    tie_breaks: &TieBreaks,
    qualifier_ranks: Vec<u8>,
    hands: Option<(usize, usize)>,
) -> PyResult<Bound<'py, PyBytes>> {
    check_ranks(&qualifier_ranks)?;
    let (first, end) = hands.unwrap_or((0, q_poker::HANDS));
    check_range("hands", (first, end), q_poker::HANDS, true)?;
    let tb = tie_breaks.0;
    let counts = py.allow_threads(|| {
        q_poker::hand_counts_range(&tb, q_poker::qualifier_key(&qualifier_ranks), first..end)
    });
    let flat: Vec<u32> = counts
        .iter()
        .flat_map(|c| [c.not_qualifying, c.beaten, c.equal_ranks, c.won_on_suit])
        .collect();
    Ok(u32_bytes(py, &flat))
}

type CategoryRow = (u64, u64, u64, u64, u64, u64, u64, u64, u64, i64);

/// Caribbean Stud: optimal raise/fold for every (player hand, upcard). Payouts are numerators
/// over one common denominator. Returns one row per player category (lowest first) with the
/// fields of `caribbean::CategoryTotals` in order, and the decision table (LE u64 per hand,
/// bit `u` = raise against upcard `u`). `upcards = (first, end)` limits the analysis to the
/// situations whose upcard is a card id in that range, `part = (k, n)` to the player hands of
/// part `k` of `n` parts of about equal work (a shard: disjoint shards' rows add up,
/// `min_margin_at_floor` by minimum, and their decision tables combine by OR). `chunks`
/// threads each sweep a part of the shard's hands; `progress` counts the hands finished.
#[pyfunction]
#[pyo3(signature = (tie_breaks, qualifier_ranks, fold, not_qualifying, win, tie, loss, win_floor, chunks = 0, progress = None, upcards = None, part = None))]
#[allow(clippy::too_many_arguments)]
fn caribbean_analyze<'py>(
    py: Python<'py>,
    tie_breaks: &TieBreaks,
    qualifier_ranks: Vec<u8>,
    fold: i64,
    not_qualifying: i64,
    win: Vec<i64>,
    tie: i64,
    loss: i64,
    win_floor: i64,
    chunks: usize,
    progress: Option<Progress>,
    upcards: Option<(usize, usize)>,
    part: Option<(usize, usize)>,
) -> PyResult<(Vec<CategoryRow>, Bound<'py, PyBytes>)> {
    check_ranks(&qualifier_ranks)?;
    let upcards = upcards.unwrap_or((0, crate::cards::DECK_SIZE));
    check_range("upcards", upcards, crate::cards::DECK_SIZE, false)?;
    let part = part.unwrap_or((0, 1));
    if part.0 >= part.1 || part.1 > caribbean::HANDS {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "part {part:?}: expected (k, n) with k < n <= {}",
            caribbean::HANDS
        )));
    }
    let win: [i64; rank5::CATEGORIES] = win.try_into().map_err(|w: Vec<i64>| {
        RulesError::new_err(format!(
            "expected {} win payouts (one per category), got {}",
            rank5::CATEGORIES,
            w.len()
        ))
    })?;
    let pay = caribbean::Payouts {
        fold,
        not_qualifying,
        win,
        tie,
        loss,
        win_floor,
    };
    let tb = tie_breaks.0;
    let chunks = if chunks == 0 {
        rayon::current_num_threads()
    } else {
        chunks
    };
    let analysis = py.allow_threads(|| {
        caribbean::analyze_shard(
            &tb,
            caribbean::qualifier_key(&qualifier_ranks),
            &pay,
            caribbean::Shard { upcards, part },
            chunks,
            progress.as_ref().map(|p| p.0.as_ref()),
        )
    });
    let rows = analysis
        .categories
        .iter()
        .map(|t| {
            (
                t.situations,
                t.raised,
                t.indifferent,
                t.not_qualifying,
                t.won,
                t.tied,
                t.lost,
                t.equal_ranks,
                t.won_on_suit,
                t.min_margin_at_floor,
            )
        })
        .collect();
    let bits = PyBytes::new_bound_with(py, analysis.decisions.len() * 8, |buf| {
        for (chunk, v) in buf.chunks_exact_mut(8).zip(&analysis.decisions) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    })?;
    Ok((rows, bits))
}

/// Caribbean Stud, one situation by direct enumeration of its 163,185 dealer completions:
/// (not qualifying, won, tied, lost, equal ranks, won on suit).
#[pyfunction]
fn caribbean_situation(
    py: Python<'_>,
    tie_breaks: &TieBreaks,
    qualifier_ranks: Vec<u8>,
    hand: Vec<u8>,
    upcard: u8,
) -> PyResult<[u64; 6]> {
    check_ranks(&qualifier_ranks)?;
    let mut all = hand.clone();
    all.push(upcard);
    crate::cards::check_distinct(&all)?;
    let hand: [u8; 5] = crate::cards::sorted_hand::<5>(&hand)?;
    let tb = tie_breaks.0;
    Ok(py.allow_threads(|| {
        caribbean::situation(
            &tb,
            caribbean::qualifier_key(&qualifier_ranks),
            &hand,
            upcard,
        )
    }))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Progress>()?;
    m.add_function(wrap_pyfunction!(q_poker_hand_counts, m)?)?;
    m.add_function(wrap_pyfunction!(caribbean_analyze, m)?)?;
    m.add_function(wrap_pyfunction!(caribbean_situation, m)?)?;
    Ok(())
}
