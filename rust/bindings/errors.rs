//! The one error of the bindings and its one conversion to Python.
//!
//! Every failure the core reports crosses as a `CoreError`, whose kind names the exception it
//! becomes. The exceptions are defined in Python, in `tablecert.errors`, under
//! `TableCertError` (each also a `ValueError`), and imported here, so that `except
//! TableCertError` catches a bad card from the core as it catches a bad rule file from Python.

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::PyErr;

use crate::logs::stream::ReadError;
use crate::mahjong::decompose::HandError;
use crate::mahjong::tiles;
use crate::shuffler::log::LogError as LogFailure;

pyo3::import_exception_bound!(tablecert.errors, CardError);
pyo3::import_exception_bound!(tablecert.errors, TileError);
pyo3::import_exception_bound!(tablecert.errors, RulesError);
pyo3::import_exception_bound!(tablecert.errors, LogError);
pyo3::import_exception_bound!(tablecert.errors, NistError);
pyo3::import_exception_bound!(tablecert.errors, CoreArgumentError);

/// A failure of the core or of a value the bindings check; each carries its message, which
/// names the offending value.
#[derive(Debug)]
pub(crate) enum CoreError {
    /// A card code, hand or card array is invalid (`CardError`).
    Card(String),
    /// A mahjong tile, meld or tile multiset is invalid (`TileError`).
    Tile(String),
    /// A rule option (game, deck, model, suit order, ...) the core does not know (`RulesError`).
    Rules(String),
    /// A shuffler or round log cannot be read (`LogError`).
    Log(String),
    /// A NIST SP 800-22 parameter, test or input the battery cannot accept (`NistError`).
    Nist(String),
    /// tablecert's own code passed a value the core cannot take (a buffer of the wrong shape,
    /// a bad range): a bug, not an input (`CoreArgumentError`, reported as an internal error).
    Argument(String),
    /// An argument of the wrong kind (a read-only buffer), as Python's `TypeError`.
    Type(String),
    /// An index outside its sequence, as Python's `IndexError`.
    Index(String),
}

impl From<CoreError> for PyErr {
    fn from(err: CoreError) -> PyErr {
        match err {
            CoreError::Card(m) => CardError::new_err(m),
            CoreError::Tile(m) => TileError::new_err(m),
            CoreError::Rules(m) => RulesError::new_err(m),
            CoreError::Log(m) => LogError::new_err(m),
            CoreError::Nist(m) => NistError::new_err(m),
            CoreError::Argument(m) => CoreArgumentError::new_err(m),
            CoreError::Type(m) => PyTypeError::new_err(m),
            CoreError::Index(m) => PyIndexError::new_err(m),
        }
    }
}

/// Each error of the core becomes the `CoreError` of its kind, and through it a `PyErr`, so that
/// `?` on a core result in a binding raises the one exception the match above chooses.
macro_rules! core_errors {
    ($($source:ty => |$err:ident| $kind:expr;)+) => {$(
        impl From<$source> for CoreError {
            fn from($err: $source) -> CoreError {
                $kind
            }
        }

        impl From<$source> for PyErr {
            fn from(err: $source) -> PyErr {
                CoreError::from(err).into()
            }
        }
    )+};
}

core_errors! {
    crate::cards::CardError => |err| CoreError::Card(err.to_string());
    tiles::TileError => |err| CoreError::Tile(err.to_string());
    HandError => |err| CoreError::Tile(err.to_string());
    crate::nist::NistError => |err| CoreError::Nist(err.to_string());
    LogFailure => |err| CoreError::Log(err.to_string());
    ReadError => |err| CoreError::Log(err.0);
}

/// The exceptions as attributes of `_core` too (`_core.CardError is tablecert.errors.CardError`).
pub(crate) fn register(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
    use pyo3::types::PyModuleMethods;
    let py = m.py();
    m.add("CardError", py.get_type_bound::<CardError>())?;
    m.add("TileError", py.get_type_bound::<TileError>())?;
    m.add("RulesError", py.get_type_bound::<RulesError>())?;
    m.add("NistError", py.get_type_bound::<NistError>())?;
    m.add("LogError", py.get_type_bound::<LogError>())?;
    Ok(())
}
