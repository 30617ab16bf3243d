//! Bindings for mahjong tiles and tile sets.

use pyo3::prelude::*;

use super::TileError;
use crate::mahjong::tiles::{self, TileSet};

impl From<tiles::TileError> for PyErr {
    fn from(err: tiles::TileError) -> PyErr {
        TileError::new_err(err.to_string())
    }
}

pub(crate) fn tile_set(name: &str) -> PyResult<TileSet> {
    match name {
        "traditional" | "mahjong136" => Ok(TileSet::Traditional),
        "simple" | "mahjong112" => Ok(TileSet::Simple),
        other => Err(super::RulesError::new_err(format!(
            "unknown tile set {other:?}: expected \"traditional\" (136 tiles) or \"simple\" (112)"
        ))),
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_tiles, m)?)?;
    m.add_function(wrap_pyfunction!(tile_code, m)?)?;
    m.add_function(wrap_pyfunction!(tile_types, m)?)?;
    m.add_function(wrap_pyfunction!(tile_counts, m)?)?;
    Ok(())
}
