//! Bindings for the generic stud-poker engine: a game's ranking and deal as data, its exact
//! analysis under the values the rule file's settlement gives.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::cards::TieBreaks;
use super::errors::CoreError;
use super::games::CompactDecisions;
use super::games::Progress;
use crate::games::caribbean;
use crate::games::stud::{self, MAX_CATEGORIES, MAX_DECISIONS, MAX_VALUE, OUTCOMES};

/// A game's ranking: how many cards make a hand, its categories highest first, the tie-breaks.
#[pyclass(frozen, module = "tablecert._core")]
pub struct StudRanking(pub(super) Arc<stud::Ranking>);

#[pymethods]
impl StudRanking {
    #[new]
    fn new(
        py: Python<'_>,
        uses: usize,
        categories: Vec<String>,
        tie_breaks: &TieBreaks,
    ) -> PyResult<Self> {
        let tb = tie_breaks.0;
        let r = py
            .allow_threads(|| stud::Ranking::new(uses, &categories, tb))
            .map_err(CoreError::Rules)?;
        Ok(StudRanking(Arc::new(r)))
    }

    /// Cards that make a hand.
    #[getter]
    fn uses(&self) -> usize {
        self.0.uses
    }

    /// Category names by place, lowest first (the key's category field indexes it).
    #[getter]
    fn categories(&self) -> Vec<&'static str> {
        self.0.names.clone()
    }
}

fn sorted_cards(cards: &[u8], what: &str) -> PyResult<Vec<u8>> {
    crate::cards::check_distinct(cards).map_err(|e| CoreError::Card(format!("{what}: {e}")))?;
    let mut ids = cards.to_vec();
    ids.sort_unstable();
    Ok(ids)
}

/// The key of the best `uses` cards among `cards`; `key >> 22` is the category's place (0
/// lowest), `key & ~3` compares ranks only.
#[pyfunction]
fn stud_key(ranking: &StudRanking, cards: Vec<u8>) -> PyResult<u32> {
    let r = &ranking.0;
    if cards.len() < r.uses || cards.len() > stud::MAX_CARDS {
        return Err(CoreError::Card(format!(
            "{} cards: a hand of this ranking has {} to {}",
            cards.len(),
            r.uses,
            stud::MAX_CARDS
        ))
        .into());
    }
    Ok(r.best(&sorted_cards(&cards, "hand")?))
}

/// How many `cards`-card hands of `deck` have their best hand in each (category place, first
/// rank field).
#[pyfunction]
fn stud_category_counts(
    py: Python<'_>,
    ranking: &StudRanking,
    deck: Vec<u8>,
    cards: usize,
) -> PyResult<Vec<Vec<u64>>> {
    let r = ranking.0.clone();
    let deck = sorted_cards(&deck, "deck")?;
    if cards < r.uses || cards > stud::MAX_CARDS || cards > deck.len() {
        return Err(CoreError::Rules(format!(
            "cards {cards}: expected {} to {} and at most the deck's {}",
            r.uses,
            stud::MAX_CARDS,
            deck.len()
        ))
        .into());
    }
    let counts = py.allow_threads(|| stud::category_counts(&r, &deck, cards));
    Ok(counts.into_iter().map(|row| row.to_vec()).collect())
}

/// A game's deal: deck, cards to the player and to the dealer, upcards, qualifier.
#[pyclass(frozen, module = "tablecert._core")]
pub struct StudGame(stud::Game);

#[pymethods]
impl StudGame {
    #[new]
    #[pyo3(signature = (ranking, deck, player_cards, dealer_cards, upcards, qualifier))]
    fn new(
        ranking: &StudRanking,
        deck: Vec<u8>,
        player_cards: usize,
        dealer_cards: usize,
        upcards: usize,
        qualifier: Option<(String, Vec<u8>)>,
    ) -> PyResult<Self> {
        let r = ranking.0.clone();
        let q = match qualifier {
            Some((category, ranks)) => Some(
                r.qualifier_key(&category, &ranks)
                    .map_err(CoreError::Rules)?,
            ),
            None => None,
        };
        let deck = sorted_cards(&deck, "deck")?;
        let g = stud::Game::new(r, &deck, player_cards, dealer_cards, upcards, q)
            .map_err(CoreError::Rules)?;
        Ok(StudGame(g))
    }

    /// Dealer completions of every situation.
    #[getter]
    fn completions(&self) -> u64 {
        self.0.completions()
    }

    /// The deck's cards, ascending (positions index it).
    #[getter]
    fn deck(&self) -> Vec<u8> {
        self.0.deck.clone()
    }

    /// Lanes of the decision table: the deck's positions (one upcard) or one.
    #[getter]
    fn lanes(&self) -> usize {
        self.0.lanes()
    }
}

/// One (category place, decision) over the situations where that decision was chosen.
#[pyclass(frozen, get_all, eq, module = "tablecert._core")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudRow {
    category: usize,
    decision: usize,
    situations: u64,
    indifferent: u64,
    not_qualifying: u64,
    won: u64,
    tied: u64,
    lost: u64,
    equal_ranks: u64,
    won_on_suit: u64,
}

/// The analysis: completions per situation, all situations, rows, and what was asked of the
/// situations (each `None` unless asked).
#[pyclass(frozen, get_all, module = "tablecert._core")]
pub struct StudRun {
    completions: u64,
    situations: u64,
    rows: Vec<StudRow>,
    decisions: Option<Py<PyBytes>>,
    /// LE u64 per player hand in colex order: bit `l` = some raise chosen in lane `l`.
    raise_masks: Option<Py<PyBytes>>,
    /// LE u32 per (player hand, lane) and field of `STUD_COUNT_FIELDS`.
    counts: Option<Py<PyBytes>>,
    /// Per category place: the smallest margin of the best raise over the fold under `floor`
    /// (`None` without a floor; 2^63 - 1 for a category without a situation).
    min_margins: Option<Vec<i64>>,
}

fn core_values(game: &stud::Game, values: &[Vec<Vec<i64>>]) -> PyResult<stud::Values> {
    let categories = game.ranking.categories();
    if values.is_empty() || values.len() > MAX_DECISIONS {
        return Err(CoreError::Rules(format!(
            "{} decisions: expected fold and at most {} raise multiples",
            values.len(),
            MAX_DECISIONS - 1
        ))
        .into());
    }
    let mut out = Vec::with_capacity(values.len());
    for (d, by_outcome) in values.iter().enumerate() {
        if by_outcome.len() != OUTCOMES {
            return Err(CoreError::Rules(format!(
                "values[{d}]: {} outcomes, expected {OUTCOMES}",
                by_outcome.len()
            ))
            .into());
        }
        let mut v = [[0i64; MAX_CATEGORIES]; OUTCOMES];
        for (o, by_category) in by_outcome.iter().enumerate() {
            if by_category.len() != categories {
                return Err(CoreError::Rules(format!(
                    "values[{d}][{o}]: {} categories, expected {categories}",
                    by_category.len()
                ))
                .into());
            }
            for (c, &x) in by_category.iter().enumerate() {
                if x.abs() >= MAX_VALUE {
                    return Err(CoreError::Rules(format!(
                        "values[{d}][{o}][{c}] = {x}: a numerator must stay below 2^31"
                    ))
                    .into());
                }
                v[o][c] = x;
            }
        }
        out.push(v);
    }
    Ok(out)
}

/// Every situation's best decision under `values[d][o][c]` and its outcomes by category.
/// `shard = (k, n)`: only part `k` of the work cut into `n` parts (the same cut in every
/// process); the rows of the `n` shards add up to the whole run's, and their decision tables
/// combine where they are not 255.
/// `masks`: the decisions as `raise_masks`; `counts`: every situation's
/// counts (at most 2^24 cells); `floor`: values of the same shape as `values` under which each
/// category's smallest margin of raising is kept.
#[pyfunction]
#[pyo3(signature = (game, values, *, decisions = false, masks = false, counts = false, floor = None, threads = 0, progress = None, shard = (0, 1)))]
#[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
fn stud_analyze(
    py: Python<'_>,
    game: &StudGame,
    values: Vec<Vec<Vec<i64>>>,
    decisions: bool,
    masks: bool,
    counts: bool,
    floor: Option<Vec<Vec<Vec<i64>>>>,
    threads: usize,
    progress: Option<Progress>,
    shard: (usize, usize),
) -> PyResult<StudRun> {
    if shard.0 >= shard.1 {
        return Err(
            CoreError::Argument(format!("shard {shard:?}: expected (k, n) with k < n")).into(),
        );
    }
    let g = &game.0;
    let v = core_values(g, &values)?;
    let floor = match floor {
        Some(f) if f.len() != values.len() => {
            return Err(CoreError::Rules(format!(
                "floor: {} decisions, expected {} as in values",
                f.len(),
                values.len()
            ))
            .into())
        }
        Some(f) => Some(core_values(g, &f)?),
        None => None,
    };
    // A deck holds at most 52 cards: a lane mask always fits 64 bits.
    let cells = g.player_hands() * g.lanes();
    if counts && cells > stud::MAX_COUNTED {
        return Err(CoreError::Argument(format!(
            "counts: {cells} situations, at most {} are kept",
            stud::MAX_COUNTED
        ))
        .into());
    }
    let has_floor = floor.is_some();
    let want = stud::Want {
        decisions,
        masks,
        counts,
        floor,
    };
    let run = py.allow_threads(|| {
        stud::analyze(
            g,
            &v,
            &want,
            threads,
            progress.as_ref().map(|p| p.0.as_ref()),
            shard,
        )
    });
    let raise_masks = match run.raise_masks.as_ref() {
        Some(m) => Some(words_le_bytes(py, m)?),
        None => None,
    };
    let counts = run
        .counts
        .as_ref()
        .map(|c| le_bytes(py, c.iter().flatten().flat_map(|x| x.to_le_bytes())));
    let mut rows = Vec::new();
    for (category, by_decision) in run.rows.iter().enumerate() {
        for (decision, r) in by_decision.iter().enumerate() {
            if r.situations == 0 {
                continue;
            }
            rows.push(StudRow {
                category,
                decision,
                situations: r.situations,
                indifferent: r.indifferent,
                not_qualifying: r.not_qualifying,
                won: r.won,
                tied: r.tied,
                lost: r.lost,
                equal_ranks: r.equal_ranks,
                won_on_suit: r.won_on_suit,
            });
        }
    }
    Ok(StudRun {
        completions: run.completions,
        situations: run.situations,
        rows,
        decisions: run.decisions.map(|d| PyBytes::new_bound(py, &d).unbind()),
        raise_masks,
        counts,
        min_margins: has_floor.then_some(run.min_margins),
    })
}

/// The words as LE bytes, written straight into the bytes object (no list of bytes first).
fn words_le_bytes(py: Python<'_>, words: &[u64]) -> PyResult<Py<PyBytes>> {
    let bytes = PyBytes::new_bound_with(py, words.len() * 8, |out| {
        for (o, w) in out.chunks_exact_mut(8).zip(words) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        Ok(())
    })?;
    Ok(bytes.unbind())
}

fn le_bytes(py: Python<'_>, bytes: impl Iterator<Item = u8>) -> Py<PyBytes> {
    PyBytes::new_bound(py, &bytes.collect::<Vec<u8>>()).unbind()
}

/// The compact form of a whole 5-card decision table over every upcard (LE u64 per hand in
/// colex order, as `StudRun.raise_masks`): what a shard of a one-upcard game of the full deck
/// sends back, put together by `caribbean_decision_table`.
#[pyfunction]
fn compact_decisions(py: Python<'_>, table: &[u8]) -> PyResult<CompactDecisions> {
    if table.len() != caribbean::HANDS * 8 {
        return Err(CoreError::Argument(format!(
            "{} bytes: expected 8 per hand, {}",
            table.len(),
            caribbean::HANDS * 8
        ))
        .into());
    }
    let masks: Vec<u64> = table
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let d = py.allow_threads(|| caribbean::Decisions::from_table(&masks));
    let wire = d.to_le_bytes();
    let bytes = |b: &[u8]| PyBytes::new_bound(py, b).unbind();
    Ok(CompactDecisions::new(
        d.upcards,
        bytes(&wire.every),
        bytes(&wire.index),
        bytes(&wire.bits),
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<StudRanking>()?;
    m.add_class::<StudGame>()?;
    m.add_class::<StudRow>()?;
    m.add_class::<StudRun>()?;
    m.add_function(wrap_pyfunction!(stud_key, m)?)?;
    m.add_function(wrap_pyfunction!(stud_category_counts, m)?)?;
    m.add_function(wrap_pyfunction!(stud_analyze, m)?)?;
    m.add_function(wrap_pyfunction!(compact_decisions, m)?)?;
    m.add("STUD_COUNT_FIELDS", stud::COUNT_FIELDS.to_vec())?;
    Ok(())
}
