//! Bindings for the perfect-hash evaluator: random-access statute keys from `NumPy` arrays.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::bytes::le_bytes;
use super::cards::TieBreaks;
use super::errors::CoreError;
use crate::games::completions;
use crate::lookup;
use crate::order_check;

/// One category's pairs of hands within rank classes (`order_check::CategoryTally`): the
/// disjoint pairs checked and those the scores reverse, push or split, with up to `keep`
/// wrongly answered pairs (colex indices; the first is the winner by rule, or either one for
/// a push).
#[pyclass(frozen, get_all, module = "tablecert._core")]
pub struct CategoryTally {
    checked: u64,
    reversed: u64,
    pushed: u64,
    split: u64,
    examples: Vec<(u32, u32)>,
}

/// A pair of adjacent rank classes whose scores overlap (`order_check::Boundary`): a hand of
/// the lower class and one of the upper (colex indices), and whether the pair shares no card
/// (`false` when the scores overlap only between hands that share a card).
#[pyclass(frozen, get_all, module = "tablecert._core")]
pub struct ClassBoundary {
    lower: u32,
    upper: u32,
    disjoint: bool,
}

/// What `KeyTable.check_scores` found: the tallies per category (lowest first), the number
/// of rank classes, and the failing boundaries.
#[pyclass(frozen, get_all, module = "tablecert._core")]
pub struct ScoreCheck {
    within: Vec<Py<CategoryTally>>,
    classes: u64,
    boundaries: Vec<Py<ClassBoundary>>,
}

/// Every hand's key of one ordering, indexed by colex index; evaluates arrays of hands by
/// perfect hash (no per-hand Python work, the GIL released, rayon across cores).
#[pyclass(frozen, module = "tablecert._core")]
pub struct KeyTable(lookup::KeyTable);

fn bad_hand(err: &lookup::BadHand) -> PyErr {
    PyErr::from(CoreError::Card(format!("hand {}: {}", err.row, err.error)))
}

/// A C-contiguous buffer's bytes, borrowed for as long as `buffer` lives.
fn contiguous<'b, T: pyo3::buffer::Element>(
    buffer: &'b PyBuffer<T>,
    what: &str,
) -> PyResult<&'b [T]> {
    if !buffer.is_c_contiguous() {
        return Err(CoreError::Argument(format!("{what} must be C-contiguous")).into());
    }
    // SAFETY: the buffer is C-contiguous and holds item_count() items of T (checked by
    // PyBuffer::get_bound's format check); the PyBuffer keeps the exporter alive.
    Ok(unsafe { std::slice::from_raw_parts(buffer.buf_ptr().cast::<T>(), buffer.item_count()) })
}

#[pymethods]
impl KeyTable {
    #[new]
    fn new(py: Python<'_>, hand_size: usize, tie_breaks: &TieBreaks) -> PyResult<Self> {
        let tb = tie_breaks.0;
        let table = py.allow_threads(|| lookup::KeyTable::new(hand_size, &tb))?;
        Ok(Self(table))
    }

    #[getter]
    fn hand_size(&self) -> usize {
        self.0.hand_size()
    }

    fn __len__(&self) -> usize {
        self.0.keys().len()
    }

    /// The key of one hand (card ids in any order).
    fn key(&self, hand: Vec<u8>) -> PyResult<u32> {
        Ok(self.0.key(&hand)?)
    }

    /// Keys of `n` hands given as any buffer of `n * hand_size` uint8 card ids (bytes, a `NumPy`
    /// array), as little-endian u32 bytes.
    fn keys<'py>(
        &self,
        py: Python<'py>,
        cards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let buffer = PyBuffer::<u8>::get_bound(cards)?;
        let data = contiguous(&buffer, "cards")?;
        let n = self.0.hand_size();
        if data.len() % n != 0 {
            return Err(CoreError::Card(format!(
                "card array of {} ids is not a whole number of {n}-card hands",
                data.len()
            ))
            .into());
        }
        let mut out = vec![0u32; data.len() / n];
        py.allow_threads(|| self.0.keys_into(data, &mut out))
            .map_err(|e| bad_hand(&e))?;
        Ok(le_bytes(py, &out))
    }

    /// Write the keys of the hands in `cards` (uint8 buffer, `n * hand_size` ids) into `out`
    /// (a writable, C-contiguous uint32 buffer of `n` items): no copy, no allocation.
    /// `threads=False` evaluates on the calling thread only.
    #[pyo3(signature = (cards, out, threads = true))]
    fn keys_into(
        &self,
        py: Python<'_>,
        cards: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        threads: bool,
    ) -> PyResult<()> {
        let cards_buffer = PyBuffer::<u8>::get_bound(cards)?;
        let data = contiguous(&cards_buffer, "cards")?;
        let out_buffer = PyBuffer::<u32>::get_bound(out)?;
        if out_buffer.readonly() {
            return Err(CoreError::Type("out must be a writable uint32 buffer".into()).into());
        }
        let written = contiguous(&out_buffer, "out")?;
        let n = self.0.hand_size();
        if data.len() != written.len() * n {
            return Err(CoreError::Argument(format!(
                "{} card ids for {} output keys: expected {} ({n} per hand)",
                data.len(),
                written.len(),
                written.len() * n
            ))
            .into());
        }
        // SAFETY: `out` is a writable, C-contiguous buffer of `written.len()` u32 items that
        // stays alive (held by `out_buffer`) for the whole call; nothing else is given it.
        let target = unsafe {
            std::slice::from_raw_parts_mut(out_buffer.buf_ptr().cast::<u32>(), written.len())
        };
        let result = py.allow_threads(|| {
            if threads {
                self.0.keys_into(data, target)
            } else {
                self.0.keys_into_sequential(data, target)
            }
        });
        result.map_err(|e| bad_hand(&e))
    }

    /// Check a vendor's score of every hand (an int32 buffer in colex order, higher wins,
    /// equal pushes) against the table: every disjoint pair within each rank class, and every
    /// boundary between adjacent rank classes (see `order_check`). Keeps up to `keep` example
    /// pairs per category.
    #[pyo3(signature = (scores, keep = 20))]
    fn check_scores(
        &self,
        py: Python<'_>,
        scores: &Bound<'_, PyAny>,
        keep: usize,
    ) -> PyResult<ScoreCheck> {
        let buffer = PyBuffer::<i32>::get_bound(scores)?;
        let scores = contiguous(&buffer, "scores")?;
        let keys = self.0.keys();
        if scores.len() != keys.len() {
            return Err(CoreError::Argument(format!(
                "{} scores for {} hands",
                scores.len(),
                keys.len()
            ))
            .into());
        }
        let categories = 16;
        let result = py.allow_threads(|| {
            order_check::check(keys, scores, self.0.hand_size(), categories, keep)
        });
        let within = result
            .within
            .into_iter()
            .map(|t| {
                let tally = CategoryTally {
                    checked: t.checked,
                    reversed: t.reversed,
                    pushed: t.pushed,
                    split: t.split,
                    examples: t.examples,
                };
                Py::new(py, tally)
            })
            .collect::<PyResult<_>>()?;
        let boundaries = result
            .boundaries
            .into_iter()
            .map(|b| {
                let boundary = ClassBoundary {
                    lower: b.lower,
                    upper: b.upper,
                    disjoint: b.disjoint,
                };
                Py::new(py, boundary)
            })
            .collect::<PyResult<_>>()?;
        Ok(ScoreCheck {
            within,
            classes: result.classes,
            boundaries,
        })
    }

    /// The number of disjoint pairs of hands equal but for suits whose keys differ: the
    /// suit-decided pairs under a statute ordering (0 under rank-only rules).
    fn suit_decided_pairs(&self, py: Python<'_>) -> u64 {
        py.allow_threads(|| order_check::suit_decided_pairs(self.0.keys(), self.0.hand_size()))
    }

    /// Every hand's card ids in colex order (the order of the table), `hand_size` bytes each.
    fn hands<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let n = self.0.hand_size();
        let hands = py.allow_threads(|| lookup::all_hands(n));
        PyBytes::new_bound(py, &hands)
    }

    /// The dealer's unseen cards of logged rounds (see `games::completions::dealer_splits`):
    /// for round `r` the dealer holds `fixed[r]` (255: none) and the rest of a `hand_size` hand
    /// from the cards outside `dead[r]` (52-bit masks); for each threshold `j` in
    /// `offsets[r]..offsets[r + 1]` the completions whose key is below / equal to
    /// `thresholds[j]` are written to `below[j]` / `equal[j]` (writable uint64 buffers).
    /// Buffers: `fixed` uint8, `dead` and `offsets` uint64, `thresholds` uint32.
    #[allow(clippy::too_many_arguments)]
    fn dealer_splits(
        &self,
        py: Python<'_>,
        fixed: &Bound<'_, PyAny>,
        dead: &Bound<'_, PyAny>,
        offsets: &Bound<'_, PyAny>,
        thresholds: &Bound<'_, PyAny>,
        below: &Bound<'_, PyAny>,
        equal: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let fixed_buffer = PyBuffer::<u8>::get_bound(fixed)?;
        let fixed = contiguous(&fixed_buffer, "fixed")?;
        let dead_buffer = PyBuffer::<u64>::get_bound(dead)?;
        let dead = contiguous(&dead_buffer, "dead")?;
        let offsets_buffer = PyBuffer::<u64>::get_bound(offsets)?;
        let offsets: Vec<usize> = contiguous(&offsets_buffer, "offsets")?
            .iter()
            .map(|&o| o as usize)
            .collect();
        let thresholds_buffer = PyBuffer::<u32>::get_bound(thresholds)?;
        let thresholds = contiguous(&thresholds_buffer, "thresholds")?;
        let rounds = fixed.len();
        if dead.len() != rounds || offsets.len() != rounds + 1 {
            return Err(CoreError::Argument(format!(
                "{rounds} fixed cards, {} dead-card masks and {} offsets: expected one mask per \
                 round and one offset more than rounds",
                dead.len(),
                offsets.len()
            ))
            .into());
        }
        if offsets[0] != 0
            || offsets.windows(2).any(|w| w[0] > w[1])
            || offsets[rounds] != thresholds.len()
        {
            return Err(CoreError::Argument(format!(
                "offsets must rise from 0 to the {} thresholds",
                thresholds.len()
            ))
            .into());
        }
        let mut outs = Vec::new();
        for (buffer, name) in [(below, "below"), (equal, "equal")] {
            let out = PyBuffer::<u64>::get_bound(buffer)?;
            if out.readonly() {
                return Err(
                    CoreError::Type(format!("{name} must be a writable uint64 buffer")).into(),
                );
            }
            if contiguous(&out, name)?.len() != thresholds.len() {
                return Err(CoreError::Argument(format!(
                    "{name} must hold one count per threshold ({})",
                    thresholds.len()
                ))
                .into());
            }
            outs.push(out);
        }
        // SAFETY: each output is a writable, C-contiguous buffer of `thresholds.len()` u64
        // items kept alive by `outs` for the whole call; the two are distinct buffers (checked
        // below), and nothing else is given them.
        if outs[0].buf_ptr() == outs[1].buf_ptr() {
            return Err(
                CoreError::Argument("below and equal must be distinct buffers".into()).into(),
            );
        }
        let (lo, eq) = unsafe {
            (
                std::slice::from_raw_parts_mut(outs[0].buf_ptr().cast::<u64>(), thresholds.len()),
                std::slice::from_raw_parts_mut(outs[1].buf_ptr().cast::<u64>(), thresholds.len()),
            )
        };
        let keys = self.0.keys();
        let size = self.0.hand_size();
        py.allow_threads(|| {
            completions::dealer_splits(keys, size, fixed, dead, &offsets, thresholds, lo, eq)
        })
        .map_err(|e| PyErr::from(CoreError::Argument(e.to_string())))
    }

    /// The whole table as little-endian u32 bytes (colex order).
    fn table<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        le_bytes(py, self.0.keys())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<KeyTable>()?;
    m.add_class::<CategoryTally>()?;
    m.add_class::<ClassBoundary>()?;
    m.add_class::<ScoreCheck>()?;
    Ok(())
}
