//! Bindings for cards, the two statute orderings and exhaustive hand enumeration.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::bytes::le_bytes;
use super::errors::CoreError;
use crate::cards::{self, CardError};
use crate::enumerate;
use crate::ranking::{self, AceLowStraightSuit, PairSuit};
use crate::{rank3, rank5};

/// The tie-break rules of one ordering, as the rule files name them.
#[pyclass(frozen, eq, module = "tablecert._core")]
#[derive(Clone, PartialEq)]
pub struct TieBreaks(pub(crate) ranking::TieBreaks);

#[pymethods]
impl TieBreaks {
    #[new]
    #[pyo3(signature = (
        suit_decides,
        ace_low_straight_suit = "top-of-sequence",
        pair_suit = "higher",
        suit_order = "shcd",
    ))]
    fn new(
        suit_decides: bool,
        ace_low_straight_suit: &str,
        pair_suit: &str,
        suit_order: &str,
    ) -> PyResult<Self> {
        let ace_low_straight_suit = match ace_low_straight_suit {
            "top-of-sequence" => AceLowStraightSuit::TopOfSequence,
            "ace" => AceLowStraightSuit::Ace,
            other => {
                return Err(CoreError::Rules(format!(
                    "ace_low_straight_suit {other:?}: expected \"top-of-sequence\" or \"ace\""
                ))
                .into())
            }
        };
        let pair_suit = match pair_suit {
            "higher" => PairSuit::Higher,
            "lower" => PairSuit::Lower,
            other => {
                return Err(CoreError::Rules(format!(
                    "pair_suit {other:?}: expected \"higher\" or \"lower\""
                ))
                .into())
            }
        };
        Ok(TieBreaks(ranking::TieBreaks {
            suit_decides,
            ace_low_straight_suit,
            pair_suit,
            suit_rank: suit_rank(suit_order)?,
        }))
    }

    #[getter]
    fn suit_decides(&self) -> bool {
        self.0.suit_decides
    }

    #[getter]
    fn ace_low_straight_suit(&self) -> &'static str {
        match self.0.ace_low_straight_suit {
            AceLowStraightSuit::TopOfSequence => "top-of-sequence",
            AceLowStraightSuit::Ace => "ace",
        }
    }

    #[getter]
    fn pair_suit(&self) -> &'static str {
        match self.0.pair_suit {
            PairSuit::Higher => "higher",
            PairSuit::Lower => "lower",
        }
    }

    /// The suits from highest to lowest as letters, e.g. `"shcd"` (the statutes' order).
    #[getter]
    fn suit_order(&self) -> String {
        let mut by_place = [' '; 4];
        for (id, &place) in self.0.suit_rank.iter().enumerate() {
            by_place[3 - usize::from(place)] = cards::SUIT_CHARS[id];
        }
        by_place.iter().collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "TieBreaks(suit_decides={}, ace_low_straight_suit={:?}, pair_suit={:?}, suit_order={:?})",
            if self.0.suit_decides { "True" } else { "False" },
            self.ace_low_straight_suit(),
            self.pair_suit(),
            self.suit_order()
        )
    }
}

/// Each suit id's place (0 lowest) in a suit order written highest first as four distinct
/// suit letters (`"shcd"`).
fn suit_rank(order: &str) -> PyResult<[u8; 4]> {
    let bad = || {
        PyErr::from(CoreError::Rules(format!(
            "suit_order {order:?}: expected the four suit letters s h c d, each once, highest first"
        )))
    };
    let letters: Vec<char> = order.chars().collect();
    if letters.len() != 4 {
        return Err(bad());
    }
    let mut rank = [u8::MAX; 4];
    for (place, letter) in (0u8..).zip(&letters) {
        let id = cards::SUIT_CHARS
            .iter()
            .position(|c| c == letter)
            .ok_or_else(bad)?;
        if rank[id] != u8::MAX {
            return Err(bad());
        }
        rank[id] = 3 - place;
    }
    Ok(rank)
}

/// Parse a hand written as card codes into card ids.
#[pyfunction]
fn parse_hand(text: &str) -> PyResult<Vec<u8>> {
    Ok(cards::parse_hand(text)?)
}

/// The two-character code of a card id.
#[pyfunction]
fn card_code(card: u32) -> PyResult<String> {
    if card >= 52 {
        return Err(CardError::OutOfRange(card).into());
    }
    Ok(cards::code(card as u8))
}

fn key_of(hand: &[u8], tb: &ranking::TieBreaks) -> Result<u32, CardError> {
    match hand.len() {
        3 => Ok(rank3::key_sorted(&cards::sorted_hand::<3>(hand)?, tb)),
        5 => Ok(rank5::key_sorted(&cards::sorted_hand::<5>(hand)?, tb)),
        got => Err(CardError::WrongSize {
            expected: if got < 4 { 3 } else { 5 },
            got,
        }),
    }
}

/// The strength key of a 3-card (Q Poker) or 5-card (Caribbean Stud) hand.
#[pyfunction]
fn strength_key(hand: Vec<u8>, tie_breaks: &TieBreaks) -> PyResult<u32> {
    Ok(key_of(&hand, &tie_breaks.0)?)
}

/// The fast path of a showdown between two hands given as text: the sign of key A minus key
/// B; `None` when either text is not a well-formed hand of `hand_size` cards or the hands
/// share a card, so that the caller's full checks can word the error.
#[pyfunction]
fn compare_texts(a: &str, b: &str, hand_size: usize, tie_breaks: &TieBreaks) -> Option<i8> {
    let (hand_a, key_a) = hand_and_key(a, hand_size, &tie_breaks.0)?;
    let (hand_b, key_b) = hand_and_key(b, hand_size, &tie_breaks.0)?;
    if hand_a.iter().any(|c| hand_b.contains(c)) {
        return None;
    }
    Some(match key_a.cmp(&key_b) {
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
    })
}

pub(super) fn hand_and_key(
    text: &str,
    hand_size: usize,
    tb: &ranking::TieBreaks,
) -> Option<(Vec<u8>, u32)> {
    if text.contains('-') {
        return None;
    }
    let hand = cards::parse_hand(text).ok()?;
    if hand.len() != hand_size {
        return None;
    }
    let key = key_of(&hand, tb).ok()?;
    Some((hand, key))
}

/// A key's fields: category, five rank fields in comparison order, suit field.
#[pyfunction]
fn key_fields(key: u32) -> (u8, [u8; 5], u8) {
    ranking::fields(key)
}

/// The category names of the 3- or 5-card ordering, lowest first.
#[pyfunction]
fn category_names(hand_size: usize) -> PyResult<Vec<&'static str>> {
    match hand_size {
        3 => Ok(rank3::CATEGORY_NAMES.to_vec()),
        5 => Ok(rank5::CATEGORY_NAMES.to_vec()),
        got => Err(CardError::WrongSize { expected: 5, got }.into()),
    }
}

/// The tie-break steps each category's key compares, in order (lowest category first): one
/// name per rank field, then the suit step (or why none is needed). The rule files must state
/// exactly these.
#[pyfunction]
fn category_steps(hand_size: usize) -> PyResult<Vec<Vec<&'static str>>> {
    let steps: &[&[&str]] = match hand_size {
        3 => &rank3::CATEGORY_STEPS,
        5 => &rank5::CATEGORY_STEPS,
        got => return Err(CardError::WrongSize { expected: 5, got }.into()),
    };
    Ok(steps.iter().map(|s| s.to_vec()).collect())
}

/// Strength keys of many hands: `cards` holds `hand_size` card ids per hand (any order);
/// returns little-endian u32 keys. The GIL is released and rows are evaluated on rayon.
#[pyfunction]
fn strength_keys<'py>(
    py: Python<'py>,
    cards: &Bound<'py, PyBytes>,
    hand_size: usize,
    tie_breaks: &TieBreaks,
) -> PyResult<Bound<'py, PyBytes>> {
    use rayon::prelude::*;
    let data = cards.as_bytes();
    if hand_size != 3 && hand_size != 5 {
        return Err(CardError::WrongSize {
            expected: 5,
            got: hand_size,
        }
        .into());
    }
    if data.len() % hand_size != 0 {
        return Err(CoreError::Card(format!(
            "card array of {} ids is not a whole number of {hand_size}-card hands",
            data.len()
        ))
        .into());
    }
    let tb = tie_breaks.0;
    let keys: Result<Vec<u32>, (usize, CardError)> = py.allow_threads(|| {
        data.par_chunks(hand_size)
            .enumerate()
            .map(|(row, hand)| key_of(hand, &tb).map_err(|e| (row, e)))
            .collect()
    });
    match keys {
        Ok(keys) => Ok(le_bytes(py, &keys)),
        Err((row, err)) => Err(PyErr::from(CoreError::Card(format!("hand {row}: {err}")))),
    }
}

/// Every hand's strength key in colex order (`C(52, hand_size)` keys), as little-endian u32.
#[pyfunction]
fn all_strength_keys<'py>(
    py: Python<'py>,
    hand_size: usize,
    tie_breaks: &TieBreaks,
) -> PyResult<Bound<'py, PyBytes>> {
    let tb = tie_breaks.0;
    let keys = match hand_size {
        3 => py.allow_threads(|| enumerate::keys3(&tb)),
        5 => py.allow_threads(|| enumerate::keys5(&tb)),
        got => return Err(CardError::WrongSize { expected: 5, got }.into()),
    };
    Ok(le_bytes(py, &keys))
}

/// Exact count of hands in each category (lowest category first), by full enumeration.
#[pyfunction]
fn category_counts(py: Python<'_>, hand_size: usize, tie_breaks: &TieBreaks) -> PyResult<Vec<u64>> {
    let tb = tie_breaks.0;
    match hand_size {
        3 => Ok(py.allow_threads(|| {
            enumerate::category_counts(&enumerate::keys3(&tb), rank3::CATEGORIES)
        })),
        5 => Ok(py.allow_threads(|| {
            enumerate::category_counts(&enumerate::keys5(&tb), rank5::CATEGORIES)
        })),
        got => Err(CardError::WrongSize { expected: 5, got }.into()),
    }
}

/// The sorted hand at a colex index among all `hand_size`-card hands.
#[pyfunction]
fn hand_at(index: u64, hand_size: usize) -> PyResult<Vec<u8>> {
    if hand_size > 7 || index >= enumerate::choose(52, hand_size) {
        return Err(
            CoreError::Index(format!("no {hand_size}-card hand at colex index {index}")).into(),
        );
    }
    Ok(enumerate::hand_at(index, hand_size))
}

/// Every 3- or 5-card hand in colex order, `hand_size` sorted card ids each (the batch form
/// of `hand_at`: 13 MB for the 2,598,960 five-card hands).
#[pyfunction]
fn all_hands(py: Python<'_>, hand_size: usize) -> PyResult<Bound<'_, PyBytes>> {
    if hand_size != 3 && hand_size != 5 {
        return Err(CardError::WrongSize {
            expected: 5,
            got: hand_size,
        }
        .into());
    }
    let hands = py.allow_threads(|| crate::lookup::all_hands(hand_size));
    Ok(PyBytes::new_bound(py, &hands))
}

/// The colex index of a hand (its cards in any order).
#[pyfunction]
fn colex_index(mut hand: Vec<u8>) -> PyResult<u64> {
    cards::check_distinct(&hand)?;
    hand.sort_unstable();
    Ok(enumerate::colex_index(&hand))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TieBreaks>()?;
    m.add_function(wrap_pyfunction!(parse_hand, m)?)?;
    m.add_function(wrap_pyfunction!(card_code, m)?)?;
    m.add_function(wrap_pyfunction!(strength_key, m)?)?;
    m.add_function(wrap_pyfunction!(key_fields, m)?)?;
    m.add_function(wrap_pyfunction!(all_hands, m)?)?;
    m.add_function(wrap_pyfunction!(compare_texts, m)?)?;
    m.add_function(wrap_pyfunction!(category_names, m)?)?;
    m.add_function(wrap_pyfunction!(category_steps, m)?)?;
    m.add_function(wrap_pyfunction!(strength_keys, m)?)?;
    m.add_function(wrap_pyfunction!(all_strength_keys, m)?)?;
    m.add_function(wrap_pyfunction!(category_counts, m)?)?;
    m.add_function(wrap_pyfunction!(hand_at, m)?)?;
    m.add_function(wrap_pyfunction!(colex_index, m)?)?;
    Ok(())
}
