//! Bindings for mahjong tiles and tile sets.

use pyo3::prelude::*;

use super::errors::CoreError;
use crate::mahjong::decompose::{self, Hand, Meld, SetKind};
use crate::mahjong::enumerate::{enumerate_complete, enumerate_over};
use crate::mahjong::tiles::{self, TileSet};

/// A meld as it crosses to Python: (kind "chow" | "pung" | "kong", lowest tile, exposed).
type PyMeld = (String, u8, bool);
/// A reading as it crosses to Python: (pair, sets).
type PyReading = (u8, Vec<PyMeld>);

fn meld_from_py(m: &PyMeld) -> PyResult<Meld> {
    let kind = match m.0.as_str() {
        "chow" => SetKind::Chow,
        "pung" => SetKind::Pung,
        "kong" => SetKind::Kong,
        other => {
            return Err(CoreError::Tile(format!(
                "unknown meld kind {other:?}: expected chow, pung or kong"
            ))
            .into())
        }
    };
    if m.1 as usize >= tiles::TILE_TYPES {
        return Err(tiles::TileError::OutOfRange(u32::from(m.1)).into());
    }
    Ok(Meld {
        kind,
        tile: m.1,
        exposed: m.2,
    })
}

fn meld_to_py(m: &Meld) -> PyMeld {
    let kind = match m.kind {
        SetKind::Chow => "chow",
        SetKind::Pung => "pung",
        SetKind::Kong => "kong",
    };
    (kind.to_string(), m.tile, m.exposed)
}

/// Check a winning hand (concealed tiles incl. the winning tile, plus declared melds) and read
/// it every way: (is Thirteen Orphans, [(pair, sets)]). Raises `TileError` naming the problem.
#[pyfunction]
fn decompose_hand(
    concealed: Vec<u8>,
    melds: Vec<PyMeld>,
    tile_set: &str,
) -> PyResult<(bool, Vec<PyReading>)> {
    let set = self::tile_set(tile_set)?;
    let melds = melds
        .iter()
        .map(meld_from_py)
        .collect::<PyResult<Vec<_>>>()?;
    let hand = Hand::new(&concealed, melds, set)?;
    let readings = hand
        .decompositions(set)
        .iter()
        .map(|d| (d.pair, d.sets.iter().map(meld_to_py).collect()))
        .collect();
    Ok((hand.is_thirteen_orphans(set), readings))
}

/// The tile-only facts of one reading (bits documented in _core.pyi).
#[pyfunction]
fn hand_signature(pair: u8, sets: Vec<PyMeld>) -> PyResult<u32> {
    let sets = sets
        .iter()
        .map(meld_from_py)
        .collect::<PyResult<Vec<_>>>()?;
    if pair as usize >= tiles::TILE_TYPES {
        return Err(tiles::TileError::OutOfRange(u32::from(pair)).into());
    }
    Ok(decompose::signature(pair, &sets))
}

/// The signature of every Thirteen Orphans hand.
#[pyfunction]
fn thirteen_orphans_signature() -> u32 {
    decompose::thirteen_orphans_signature()
}

/// Enumerate every complete concealed hand of a game: (distinct standard hands, their
/// combinations, distinct Thirteen Orphans, their combinations, [(signatures, distinct,
/// combinations)]).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn enumerate_complete_hands(
    py: Python<'_>,
    tile_set: &str,
) -> PyResult<(u64, u64, u64, u64, Vec<(Vec<u32>, u64, u64)>)> {
    let set = self::tile_set(tile_set)?;
    let e = py.allow_threads(|| enumerate_complete(set));
    let classes = e
        .classes
        .into_iter()
        .map(|c| (c.signatures, c.distinct, c.combinations))
        .collect();
    Ok((
        e.distinct_standard,
        e.combinations_standard,
        e.distinct_orphans,
        e.combinations_orphans,
        classes,
    ))
}

pub(crate) fn tile_set(name: &str) -> PyResult<TileSet> {
    match name {
        "traditional" | "mahjong136" => Ok(TileSet::Traditional),
        "simple" | "mahjong112" => Ok(TileSet::Simple),
        other => Err(PyErr::from(CoreError::Rules(format!(
            "unknown tile set {other:?}: expected \"traditional\" (136 tiles) or \"simple\" (112)"
        )))),
    }
}

/// Parse tile codes (`1m 5p 9s E Rd`, or Chinese names) into tile type ids, in order.
#[pyfunction]
fn parse_tiles(text: &str) -> PyResult<Vec<u8>> {
    Ok(tiles::parse_tiles(text)?)
}

/// The canonical code of a tile type id.
#[pyfunction]
fn tile_code(tile: u32) -> PyResult<String> {
    if tile >= tiles::TILE_TYPES as u32 {
        return Err(tiles::TileError::OutOfRange(tile).into());
    }
    Ok(tiles::code(tile as u8))
}

/// The tile type ids of a tile set ("traditional": 34 types, "simple": 28).
#[pyfunction]
fn tile_types(tile_set: &str) -> PyResult<Vec<u8>> {
    Ok(self::tile_set(tile_set)?.types())
}

/// Count tiles by type (34 entries), checking set membership and at most four of each.
#[pyfunction]
fn tile_counts(tiles: Vec<u8>, tile_set: &str) -> PyResult<Vec<u8>> {
    Ok(tiles::counts(&tiles, self::tile_set(tile_set)?)?.to_vec())
}

/// Distinct complete hands of `sets` sets and a pair over some tile types (four of each), and
/// their physical combinations: (distinct, combinations).
#[pyfunction]
fn count_complete_hands(py: Python<'_>, types: Vec<u8>, sets: usize) -> PyResult<(u64, u64)> {
    if !(1..=4).contains(&sets) {
        return Err(
            CoreError::Rules(format!("{sets} sets: a complete hand has 1 to 4 sets")).into(),
        );
    }
    let mut sorted = types.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != types.len() {
        return Err(CoreError::Tile("tile types must be distinct".into()).into());
    }
    if let Some(&bad) = sorted.iter().find(|&&t| t as usize >= tiles::TILE_TYPES) {
        return Err(tiles::TileError::OutOfRange(u32::from(bad)).into());
    }
    let e = py.allow_threads(|| enumerate_over(&sorted, sets, false));
    Ok((e.distinct_standard, e.combinations_standard))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_tiles, m)?)?;
    m.add_function(wrap_pyfunction!(tile_code, m)?)?;
    m.add_function(wrap_pyfunction!(tile_types, m)?)?;
    m.add_function(wrap_pyfunction!(tile_counts, m)?)?;
    m.add_function(wrap_pyfunction!(decompose_hand, m)?)?;
    m.add_function(wrap_pyfunction!(hand_signature, m)?)?;
    m.add_function(wrap_pyfunction!(thirteen_orphans_signature, m)?)?;
    m.add_function(wrap_pyfunction!(enumerate_complete_hands, m)?)?;
    Ok(())
}

/// The hand counter the tests check against published counts (`_core._testing`).
pub fn register_testing(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count_complete_hands, m)?)?;
    Ok(())
}
