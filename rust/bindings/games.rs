//! Bindings for the game math: Q Poker showdown counts and the Caribbean Stud analysis.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::cards::TieBreaks;
use super::errors::CoreError;
use super::{u32_bytes, u64_bytes};
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
        return Err(CoreError::Rules(format!(
            "dealer qualifier ranks {ranks:?}: expected 1 to 5 ranks 0 (2) .. 12 (A)"
        ))
        .into());
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
        return Err(CoreError::Argument(format!(
            "{name} ({first}, {end}): expected a range first < end <= {limit}"
        ))
        .into());
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
/// `compact=True` returns the decisions as a shard sends them back instead of the table:
/// (bits of the hands raising against every upcard of the range they do not hold, LE u64
/// words; the colex indices of the others that raise somewhere, LE u32; their upcard bits,
/// LE u64), for `caribbean_decision_table`.
#[pyfunction]
#[pyo3(signature = (tie_breaks, qualifier_ranks, fold, not_qualifying, win, tie, loss, win_floor, chunks = 0, progress = None, upcards = None, part = None, compact = false))]
#[allow(clippy::too_many_arguments)]
fn caribbean_analyze(
    py: Python<'_>,
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
    compact: bool,
) -> PyResult<(Vec<CategoryRow>, PyObject)> {
    check_ranks(&qualifier_ranks)?;
    let upcards = upcards.unwrap_or((0, crate::cards::DECK_SIZE));
    check_range("upcards", upcards, crate::cards::DECK_SIZE, false)?;
    let part = part.unwrap_or((0, 1));
    if part.0 >= part.1 || part.1 > caribbean::HANDS {
        return Err(CoreError::Argument(format!(
            "part {part:?}: expected (k, n) with k < n <= {}",
            caribbean::HANDS
        ))
        .into());
    }
    let win: [i64; rank5::CATEGORIES] = win.try_into().map_err(|w: Vec<i64>| {
        PyErr::from(CoreError::Rules(format!(
            "expected {} win payouts (one per category), got {}",
            rank5::CATEGORIES,
            w.len()
        )))
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
    let d = &analysis.decisions;
    if compact {
        let index: Vec<u32> = d.some.iter().map(|&(i, _)| i).collect();
        let bits: Vec<u64> = d.some.iter().map(|&(_, b)| b).collect();
        let parts = (
            u64_bytes(py, &d.every),
            u32_bytes(py, &index),
            u64_bytes(py, &bits),
        );
        return Ok((rows, parts.into_py(py)));
    }
    Ok((
        rows,
        decision_table(py, std::slice::from_ref(d))?.into_py(py),
    ))
}

/// The decision table of disjoint shards' decisions as Python bytes (written in place).
fn decision_table<'py>(
    py: Python<'py>,
    parts: &[caribbean::Decisions],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_bound_with(py, caribbean::HANDS * 8, |buf| {
        py.allow_threads(|| caribbean::write_table(parts, buf));
        Ok(())
    })
}

/// A shard's compact decisions: (upcards, every, index, bits) as `caribbean_analyze` with
/// `compact=True` returns them.
type CompactDecisions<'py> = (
    (usize, usize),
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

/// Caribbean Stud: the decision table (LE u64 per hand in colex order) of shards' compact
/// decisions put together (disjoint shards' tables combine by OR).
#[pyfunction]
fn caribbean_decision_table<'py>(
    py: Python<'py>,
    parts: Vec<CompactDecisions<'py>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bad = |what: String| PyErr::from(CoreError::Argument(what));
    let mut shards = Vec::with_capacity(parts.len());
    for (k, (upcards, every, index, bits)) in parts.iter().enumerate() {
        check_range("upcards", *upcards, crate::cards::DECK_SIZE, false)?;
        let words = caribbean::HANDS.div_ceil(64);
        let (every, index, bits) = (every.as_bytes(), index.as_bytes(), bits.as_bytes());
        if every.len() != words * 8 || index.len() % 4 != 0 || bits.len() != index.len() * 2 {
            return Err(bad(format!(
                "part {k}: expected {} bytes of bits and 4 + 8 bytes per other hand, got {}, \
                 {} and {}",
                words * 8,
                every.len(),
                index.len(),
                bits.len()
            )));
        }
        let le64 = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let mut some = Vec::with_capacity(index.len() / 4);
        for (i, b) in index.chunks_exact(4).zip(bits.chunks_exact(8)) {
            let i = u32::from_le_bytes(i.try_into().expect("4 bytes"));
            if i as usize >= caribbean::HANDS {
                return Err(bad(format!(
                    "part {k}: hand {i} is not below {}",
                    caribbean::HANDS
                )));
            }
            some.push((i, le64(b)));
        }
        shards.push(caribbean::Decisions {
            upcards: *upcards,
            every: every.chunks_exact(8).map(le64).collect(),
            some,
        });
    }
    // Parts over the same upcards put together first: fewer to look up per hand.
    let mut merged: Vec<caribbean::Decisions> = Vec::new();
    for shard in shards {
        match merged.iter_mut().find(|m| m.upcards == shard.upcards) {
            Some(m) => m.merge(&shard),
            None => merged.push(shard),
        }
    }
    decision_table(py, &merged)
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
    m.add_function(wrap_pyfunction!(caribbean_decision_table, m)?)?;
    m.add_function(wrap_pyfunction!(caribbean_situation, m)?)?;
    Ok(())
}
