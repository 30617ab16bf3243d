//! `tablecert.Evaluation`: one hand's category and strength key under one ordering, made in
//! the core. A Python dataclass instance is tracked by the garbage collector, and a loop that
//! keeps 10^5 evaluations paid about 1 us a call in collections (BENCHMARKS.md, "Python
//! API"); this object holds no Python container (its cards are bytes here, a tuple on each
//! read), so it is never tracked, and `evaluation_of_text` makes it from text in one call.

use std::hash::{Hash, Hasher};

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::cards::{hand_and_key, TieBreaks};
use super::stud::StudRanking;
use crate::cards;
use crate::ranking;

/// Most cards an evaluation holds (the largest hand a rule file may deal).
const MOST_CARDS: usize = 7;

/// A hand's category and strength key under one ordering (keys compare as the game's rules
/// rank hands). Frozen, compared and hashed by its five fields.
#[pyclass(frozen, module = "tablecert.poker")]
pub struct Evaluation {
    game: Py<PyString>,
    cards: [u8; MOST_CARDS],
    len: u8,
    category: Py<PyString>,
    category_index: u8,
    key: u32,
}

impl Evaluation {
    /// A hand (at most `MOST_CARDS` card ids, as written) with its key, its category named
    /// from `categories` by the key's category field.
    fn of_key(
        game: Py<PyString>,
        hand: &[u8],
        key: u32,
        categories: &Bound<'_, PyTuple>,
    ) -> PyResult<Self> {
        let index = ranking::fields(key).0;
        let category = categories
            .get_item(usize::from(index))?
            .downcast_into::<PyString>()?
            .unbind();
        let mut cards = [0u8; MOST_CARDS];
        cards[..hand.len()].copy_from_slice(hand);
        Ok(Evaluation {
            game,
            cards,
            len: hand.len() as u8,
            category,
            category_index: index,
            key,
        })
    }

    fn cards(&self) -> &[u8] {
        &self.cards[..usize::from(self.len)]
    }

    fn fields<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::new_bound(
            py,
            [
                self.game.clone_ref(py).into_any(),
                PyTuple::new_bound(py, self.cards()).into_any().unbind(),
                self.category.clone_ref(py).into_any(),
                self.category_index.into_py(py),
                self.key.into_py(py),
            ],
        )
    }
}

#[pymethods]
impl Evaluation {
    #[new]
    #[pyo3(signature = (game, cards, category, category_index, key))]
    fn new(
        game: Py<PyString>,
        cards: Vec<u8>,
        category: Py<PyString>,
        category_index: u8,
        key: u32,
    ) -> PyResult<Self> {
        if cards.len() > MOST_CARDS {
            return Err(PyValueError::new_err(format!(
                "an evaluation holds at most {MOST_CARDS} cards, got {}",
                cards.len()
            )));
        }
        if let Some(bad) = cards.iter().find(|&&c| usize::from(c) >= cards::DECK_SIZE) {
            return Err(PyValueError::new_err(format!(
                "card id {bad}: expected 0 to {}",
                cards::DECK_SIZE - 1
            )));
        }
        let mut held = [0u8; MOST_CARDS];
        held[..cards.len()].copy_from_slice(&cards);
        Ok(Evaluation {
            game,
            cards: held,
            len: cards.len() as u8,
            category,
            category_index,
            key,
        })
    }

    #[getter]
    fn game(&self, py: Python<'_>) -> Py<PyString> {
        self.game.clone_ref(py)
    }

    /// The card ids, in the order given.
    #[getter(cards)]
    fn cards_tuple<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::new_bound(py, self.cards())
    }

    #[getter]
    fn category(&self, py: Python<'_>) -> Py<PyString> {
        self.category.clone_ref(py)
    }

    #[getter]
    fn category_index(&self) -> u8 {
        self.category_index
    }

    #[getter]
    fn key(&self) -> u32 {
        self.key
    }

    /// The card codes, highest card first.
    #[getter]
    fn codes(&self) -> String {
        let mut sorted = self.cards().to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        sorted
            .into_iter()
            .map(cards::code)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `category (codes)`.
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "{} ({})",
            self.category.bind(py).to_str()?,
            self.codes()
        ))
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<PyObject> {
        let py = other.py();
        let Ok(other) = other.downcast::<Evaluation>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let same = self.cards() == other.cards()
            && self.category_index == other.category_index
            && self.key == other.key
            && self.game.bind(py).as_any().eq(other.game.bind(py))?
            && self
                .category
                .bind(py)
                .as_any()
                .eq(other.category.bind(py))?;
        Ok(match op {
            CompareOp::Eq => same.into_py(py),
            CompareOp::Ne => (!same).into_py(py),
            _ => py.NotImplemented(),
        })
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        // The fields' own hashes, as equal evaluations have equal fields.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.game.bind(py).hash()?.hash(&mut h);
        self.cards().hash(&mut h);
        self.category.bind(py).hash()?.hash(&mut h);
        (self.category_index, self.key).hash(&mut h);
        Ok(h.finish().cast_signed() as isize)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let cards = PyTuple::new_bound(py, self.cards());
        Ok(format!(
            "Evaluation(game={}, cards={}, category={}, category_index={}, key={})",
            self.game.bind(py).repr()?,
            cards.repr()?,
            self.category.bind(py).repr()?,
            self.category_index,
            self.key
        ))
    }

    /// Pickled (and copied) as its constructor's arguments.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyAny>, Bound<'py, PyTuple>) {
        let py = slf.py();
        (slf.get_type().into_any(), slf.get().fields(py))
    }
}

/// One hand given as text, evaluated in one call: its `Evaluation` under the ordering whose
/// category names are `categories` (by index), or `None` for any text that is not a
/// well-formed hand of `hand_size` cards, so that the caller's full parse can word the error.
#[pyfunction]
fn evaluation_of_text(
    text: &str,
    hand_size: usize,
    tie_breaks: &TieBreaks,
    game: Py<PyString>,
    categories: &Bound<'_, PyTuple>,
) -> PyResult<Option<Evaluation>> {
    let Some((hand, key)) = hand_and_key(text, hand_size, &tie_breaks.0) else {
        return Ok(None);
    };
    if hand.len() > MOST_CARDS {
        return Ok(None);
    }
    Evaluation::of_key(game, &hand, key, categories).map(Some)
}

/// The same for a described game's hand: its best `uses` cards under `ranking`, `None` unless
/// the text is a well-formed hand of one of the dealt sizes `sizes`.
#[pyfunction]
fn stud_evaluation_of_text(
    text: &str,
    ranking: &StudRanking,
    sizes: Vec<usize>,
    game: Py<PyString>,
    categories: &Bound<'_, PyTuple>,
) -> PyResult<Option<Evaluation>> {
    if text.contains('-') {
        return Ok(None);
    }
    let Ok(hand) = cards::parse_hand(text) else {
        return Ok(None);
    };
    let r = &ranking.0;
    let n = hand.len();
    if !sizes.contains(&n) || n < r.uses || n > MOST_CARDS || cards::check_distinct(&hand).is_err()
    {
        return Ok(None);
    }
    let mut sorted = hand.clone();
    sorted.sort_unstable();
    Evaluation::of_key(game, &hand, r.best(&sorted), categories).map(Some)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Evaluation>()?;
    m.add_function(wrap_pyfunction!(evaluation_of_text, m)?)?;
    m.add_function(wrap_pyfunction!(stud_evaluation_of_text, m)?)?;
    Ok(())
}
