//! Bindings for the game math: Q Poker showdown counts and the Caribbean Stud analysis.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyTuple, PyType};

use super::bytes::le_bytes;
use super::cards::TieBreaks;
use super::errors::CoreError;
use crate::games::caribbean::{self, wire};
use crate::games::q_poker;
use crate::rank5;

/// A counter the core advances while it works, for a progress bar in another thread.
#[pyclass(frozen, module = "tablecert._core")]
#[derive(Clone, Default)]
pub struct Progress(pub(crate) Arc<AtomicU64>);

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
/// meet, one LE u32 per column named in `Q_POKER_COUNT_FIELDS` (not qualifying, beaten on
/// ranks, equal ranks, of those won on suit).
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
        .flat_map(q_poker::HandCounts::as_array)
        .collect();
    Ok(le_bytes(py, &flat))
}

/// The totals of one player category under the optimal decision (`caribbean::CategoryTotals`):
/// disjoint shards' rows put together with `merged`.
#[pyclass(frozen, get_all, eq, module = "tablecert._core._testing")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryRow {
    /// Situations (player hand, upcard).
    situations: u64,
    /// Situations where raising is strictly better than folding.
    raised: u64,
    /// Situations where raising and folding are worth exactly the same (counted as folds).
    indifferent: u64,
    /// Over raised situations, dealer completions by outcome.
    not_qualifying: u64,
    won: u64,
    tied: u64,
    lost: u64,
    /// Of the raised showdowns, those between equal ranks, and how many the player won.
    equal_ranks: u64,
    won_on_suit: u64,
    /// Smallest `(EV(raise) - EV(fold)) * 163,185` over the category's situations with wins
    /// valued at `win_floor`.
    min_margin_at_floor: i64,
}

impl From<&caribbean::CategoryTotals> for CategoryRow {
    fn from(t: &caribbean::CategoryTotals) -> Self {
        CategoryRow {
            situations: t.situations,
            raised: t.raised,
            indifferent: t.indifferent,
            not_qualifying: t.not_qualifying,
            won: t.won,
            tied: t.tied,
            lost: t.lost,
            equal_ranks: t.equal_ranks,
            won_on_suit: t.won_on_suit,
            min_margin_at_floor: t.min_margin_at_floor,
        }
    }
}

impl From<&CategoryRow> for caribbean::CategoryTotals {
    fn from(r: &CategoryRow) -> Self {
        caribbean::CategoryTotals {
            situations: r.situations,
            raised: r.raised,
            indifferent: r.indifferent,
            not_qualifying: r.not_qualifying,
            won: r.won,
            tied: r.tied,
            lost: r.lost,
            equal_ranks: r.equal_ranks,
            won_on_suit: r.won_on_suit,
            min_margin_at_floor: r.min_margin_at_floor,
        }
    }
}

type RowFields = (u64, u64, u64, u64, u64, u64, u64, u64, u64, i64);

#[pymethods]
impl CategoryRow {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        situations: u64,
        raised: u64,
        indifferent: u64,
        not_qualifying: u64,
        won: u64,
        tied: u64,
        lost: u64,
        equal_ranks: u64,
        won_on_suit: u64,
        min_margin_at_floor: i64,
    ) -> Self {
        CategoryRow {
            situations,
            raised,
            indifferent,
            not_qualifying,
            won,
            tied,
            lost,
            equal_ranks,
            won_on_suit,
            min_margin_at_floor,
        }
    }

    /// This row and a disjoint shard's row of the same category: counts add, the smallest
    /// margin is kept (the core's own merge).
    fn merged(&self, other: &CategoryRow) -> CategoryRow {
        let mut totals = caribbean::CategoryTotals::from(self);
        totals.merge(&caribbean::CategoryTotals::from(other));
        CategoryRow::from(&totals)
    }

    /// Pickled as its constructor's arguments (a shard's rows travel to the merging process).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, RowFields) {
        let r = slf.get();
        let fields = (
            r.situations,
            r.raised,
            r.indifferent,
            r.not_qualifying,
            r.won,
            r.tied,
            r.lost,
            r.equal_ranks,
            r.won_on_suit,
            r.min_margin_at_floor,
        );
        (slf.get_type(), fields)
    }

    fn __repr__(&self) -> String {
        format!(
            "CategoryRow(situations={}, raised={}, indifferent={}, not_qualifying={}, won={}, \
             tied={}, lost={}, equal_ranks={}, won_on_suit={}, min_margin_at_floor={})",
            self.situations,
            self.raised,
            self.indifferent,
            self.not_qualifying,
            self.won,
            self.tied,
            self.lost,
            self.equal_ranks,
            self.won_on_suit,
            self.min_margin_at_floor
        )
    }
}

/// Caribbean Stud payouts per ante as numerators over one common denominator: folding, the
/// dealer not qualifying, a win by each player category (lowest first), a push, a loss, and
/// the smallest win payout (the floor the decision margin is measured at).
#[pyclass(frozen, get_all, eq, hash, module = "tablecert._core._testing")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CaribbeanPayouts {
    fold: i64,
    not_qualifying: i64,
    win: [i64; rank5::CATEGORIES],
    tie: i64,
    loss: i64,
    win_floor: i64,
}

#[pymethods]
impl CaribbeanPayouts {
    #[new]
    fn new(
        fold: i64,
        not_qualifying: i64,
        win: Vec<i64>,
        tie: i64,
        loss: i64,
        win_floor: i64,
    ) -> PyResult<Self> {
        let win: [i64; rank5::CATEGORIES] = win.try_into().map_err(|w: Vec<i64>| {
            PyErr::from(CoreError::Rules(format!(
                "expected {} win payouts (one per category), got {}",
                rank5::CATEGORIES,
                w.len()
            )))
        })?;
        Ok(CaribbeanPayouts {
            fold,
            not_qualifying,
            win,
            tie,
            loss,
            win_floor,
        })
    }

    /// Pickled as its constructor's arguments (a shard carries its payouts to a worker).
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (Bound<'py, PyType>, (i64, i64, Vec<i64>, i64, i64, i64)) {
        let p = slf.get();
        let args = (
            p.fold,
            p.not_qualifying,
            p.win.to_vec(),
            p.tie,
            p.loss,
            p.win_floor,
        );
        (slf.get_type(), args)
    }
}

impl CaribbeanPayouts {
    fn core(&self) -> caribbean::Payouts {
        caribbean::Payouts {
            fold: self.fold,
            not_qualifying: self.not_qualifying,
            win: self.win,
            tie: self.tie,
            loss: self.loss,
            win_floor: self.win_floor,
        }
    }
}

/// A shard's raise decisions as it sends them back (`caribbean::wire`): the shard's upcard
/// range and three little-endian byte strings, for `caribbean_decision_table`. Checked when
/// they are put together, not here (they may come from another process).
#[pyclass(frozen, get_all, module = "tablecert._core")]
pub struct CompactDecisions {
    /// The shard's upcards (card ids `first..end`).
    upcards: (usize, usize),
    /// Bits of the hands raising against every upcard of the range they do not hold (u64).
    every: Py<PyBytes>,
    /// The colex indices of the other hands that raise somewhere (u32).
    index: Py<PyBytes>,
    /// Their upcard bits (u64, bit `u` = raise against upcard `u`).
    bits: Py<PyBytes>,
}

#[pymethods]
impl CompactDecisions {
    #[new]
    pub(super) fn new(
        upcards: (usize, usize),
        every: Py<PyBytes>,
        index: Py<PyBytes>,
        bits: Py<PyBytes>,
    ) -> Self {
        CompactDecisions {
            upcards,
            every,
            index,
            bits,
        }
    }

    /// Pickled as its constructor's arguments (it crosses from a worker to the merge).
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (
        Bound<'py, PyType>,
        ((usize, usize), Py<PyBytes>, Py<PyBytes>, Py<PyBytes>),
    ) {
        let py = slf.py();
        let d = slf.get();
        let args = (
            d.upcards,
            d.every.clone_ref(py),
            d.index.clone_ref(py),
            d.bits.clone_ref(py),
        );
        (slf.get_type(), args)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyObject {
        let py = other.py();
        let Ok(other) = other.downcast::<CompactDecisions>() else {
            return py.NotImplemented();
        };
        let o = other.get();
        let same = self.upcards == o.upcards
            && self.every.as_bytes(py) == o.every.as_bytes(py)
            && self.index.as_bytes(py) == o.index.as_bytes(py)
            && self.bits.as_bytes(py) == o.bits.as_bytes(py);
        equality(py, op, same)
    }
}

/// `==` and `!=` of two values found `same` or not; no order.
fn equality(py: Python<'_>, op: CompareOp, same: bool) -> PyObject {
    match op {
        CompareOp::Eq => same.into_py(py),
        CompareOp::Ne => (!same).into_py(py),
        _ => py.NotImplemented(),
    }
}

/// One `caribbean_analyze` run: the totals of each player category (lowest first) and the
/// decisions, as the table (`bytes`, LE u64 per hand in colex order, bit `u` = raise against
/// upcard `u`) or compact (`CompactDecisions`).
#[pyclass(frozen, get_all, module = "tablecert._core._testing")]
pub struct CaribbeanRun {
    categories: Vec<CategoryRow>,
    decisions: PyObject,
}

#[pymethods]
impl CaribbeanRun {
    #[new]
    fn new(categories: Vec<CategoryRow>, decisions: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !(decisions.is_instance_of::<PyBytes>()
            || decisions.is_instance_of::<CompactDecisions>())
        {
            return Err(CoreError::Type(
                "decisions must be the table (bytes) or CompactDecisions".into(),
            )
            .into());
        }
        Ok(CaribbeanRun {
            categories,
            decisions: decisions.clone().unbind(),
        })
    }

    /// Pickled as its constructor's arguments.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (Bound<'py, PyType>, (Vec<CategoryRow>, PyObject)) {
        let r = slf.get();
        (
            slf.get_type(),
            (r.categories.clone(), r.decisions.clone_ref(slf.py())),
        )
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<PyObject> {
        let py = other.py();
        let Ok(other) = other.downcast::<CaribbeanRun>() else {
            return Ok(py.NotImplemented());
        };
        let o = other.get();
        let same =
            self.categories == o.categories && self.decisions.bind(py).eq(o.decisions.bind(py))?;
        Ok(equality(py, op, same))
    }
}

/// Caribbean Stud: optimal raise/fold for every (player hand, upcard) under `payouts`: the
/// totals of each player category and the decisions. `upcards = (first, end)` limits the
/// analysis to the situations whose upcard is a card id in that range, `part = (k, n)` to the
/// player hands of part `k` of `n` parts of about equal work (a shard: disjoint shards' rows
/// merge with `CategoryRow.merged`, their decisions with `caribbean_decision_table`).
/// `chunks` threads each sweep a part of the shard's hands; `progress` counts the hands
/// finished. `compact=True` returns the decisions as a shard sends them back
/// (`CompactDecisions`) instead of the table.
#[pyfunction]
#[pyo3(signature = (tie_breaks, qualifier_ranks, payouts, chunks = 0, progress = None, upcards = None, part = None, compact = false))]
#[allow(clippy::too_many_arguments)]
fn caribbean_analyze(
    py: Python<'_>,
    tie_breaks: &TieBreaks,
    qualifier_ranks: Vec<u8>,
    payouts: &CaribbeanPayouts,
    chunks: usize,
    progress: Option<Progress>,
    upcards: Option<(usize, usize)>,
    part: Option<(usize, usize)>,
    compact: bool,
) -> PyResult<CaribbeanRun> {
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
    let pay = payouts.core();
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
    let categories = analysis.categories.iter().map(CategoryRow::from).collect();
    let d = &analysis.decisions;
    let decisions = if compact {
        let wire = d.to_le_bytes();
        let bytes = |b: &[u8]| PyBytes::new_bound(py, b).unbind();
        Py::new(
            py,
            CompactDecisions::new(
                d.upcards,
                bytes(&wire.every),
                bytes(&wire.index),
                bytes(&wire.bits),
            ),
        )?
        .into_any()
    } else {
        decision_table(py, std::slice::from_ref(d))?
            .into_any()
            .unbind()
    };
    Ok(CaribbeanRun {
        categories,
        decisions,
    })
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

/// Caribbean Stud: the decision table (LE u64 per hand in colex order) of shards' compact
/// decisions put together (disjoint shards' tables combine by OR); parts that do not fit
/// are refused, naming the part.
#[pyfunction]
fn caribbean_decision_table<'py>(
    py: Python<'py>,
    parts: Vec<PyRef<'py, CompactDecisions>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let merged = wire::merge_parts(parts.iter().map(|d| {
        (
            d.upcards,
            d.every.as_bytes(py),
            d.index.as_bytes(py),
            d.bits.as_bytes(py),
        )
    }))
    .map_err(|e| PyErr::from(CoreError::Argument(e.to_string())))?;
    decision_table(py, &merged)
}

/// One Caribbean Stud situation's 163,185 dealer completions by outcome, by direct
/// enumeration (`caribbean_situation`).
#[pyclass(frozen, get_all, module = "tablecert._core")]
pub struct SituationCounts {
    not_qualifying: u64,
    won: u64,
    tied: u64,
    lost: u64,
    /// Showdowns of equal ranks (decided by suit or pushed).
    equal_ranks: u64,
    /// Of those, won by the player on suit.
    won_on_suit: u64,
}

/// Caribbean Stud, one situation by direct enumeration of its 163,185 dealer completions.
#[pyfunction]
fn caribbean_situation(
    py: Python<'_>,
    tie_breaks: &TieBreaks,
    qualifier_ranks: Vec<u8>,
    hand: Vec<u8>,
    upcard: u8,
) -> PyResult<SituationCounts> {
    check_ranks(&qualifier_ranks)?;
    let mut all = hand.clone();
    all.push(upcard);
    crate::cards::check_distinct(&all)?;
    let hand: [u8; 5] = crate::cards::sorted_hand::<5>(&hand)?;
    let tb = tie_breaks.0;
    let [not_qualifying, won, tied, lost, equal_ranks, won_on_suit] = py.allow_threads(|| {
        caribbean::situation(
            &tb,
            caribbean::qualifier_key(&qualifier_ranks),
            &hand,
            upcard,
        )
    });
    Ok(SituationCounts {
        not_qualifying,
        won,
        tied,
        lost,
        equal_ranks,
        won_on_suit,
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Progress>()?;
    m.add_class::<CompactDecisions>()?;
    m.add_class::<SituationCounts>()?;
    m.add_function(wrap_pyfunction!(caribbean_decision_table, m)?)?;
    m.add_function(wrap_pyfunction!(caribbean_situation, m)?)?;
    Ok(())
}

/// The dedicated Q Poker and Caribbean Stud engines: the games run on the generic stud
/// engine, and these stay as its oracles (the tests compare them bit for bit).
pub fn register_testing(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CategoryRow>()?;
    m.add_class::<CaribbeanPayouts>()?;
    m.add_class::<CaribbeanRun>()?;
    let fields = PyTuple::new_bound(m.py(), q_poker::HandCounts::FIELDS);
    m.add("Q_POKER_COUNT_FIELDS", fields)?;
    m.add_function(wrap_pyfunction!(q_poker_hand_counts, m)?)?;
    m.add_function(wrap_pyfunction!(caribbean_analyze, m)?)?;
    Ok(())
}
