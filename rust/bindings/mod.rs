//! The only place that knows `PyO3`: thin wrappers that validate input, release the GIL around
//! heavy work and map core errors to the Python exceptions below.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into PyErr; newer clippy flags that.
// Arguments extracted from Python are owned values even where only borrowed.
#![allow(clippy::useless_conversion, clippy::needless_pass_by_value)]

use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod audit;
mod cards;
mod games;
mod lookup;
mod mahjong;
mod nist;
mod rounds;

pyo3::create_exception!(
    _core,
    CardError,
    pyo3::exceptions::PyValueError,
    "A card code, hand or card array is invalid; the message names the bad value."
);
pyo3::create_exception!(
    _core,
    TileError,
    pyo3::exceptions::PyValueError,
    "A mahjong tile code or tile multiset is invalid; the message names the bad value."
);
pyo3::create_exception!(
    _core,
    RulesError,
    pyo3::exceptions::PyValueError,
    "A rule option passed to the core is not one it knows."
);
pyo3::create_exception!(
    _core,
    LogError,
    pyo3::exceptions::PyValueError,
    "A shuffler log cannot be read; the message names the file, line and byte."
);

pyo3::create_exception!(
    _core,
    NistError,
    pyo3::exceptions::PyValueError,
    "A NIST SP 800-22 parameter, test name or input the battery cannot accept."
);

impl From<crate::cards::CardError> for PyErr {
    fn from(err: crate::cards::CardError) -> PyErr {
        CardError::new_err(err.to_string())
    }
}

/// Little-endian bytes of a table (`N` bytes per value, `le` its `to_le_bytes`), for
/// `numpy.frombuffer(..., "<u4")` and the like.
fn le_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    values: &[T],
    le: fn(T) -> [u8; N],
) -> Bound<'py, PyBytes> {
    PyBytes::new_bound_with(py, values.len() * N, |buf| {
        for (chunk, &v) in buf.chunks_exact_mut(N).zip(values) {
            chunk.copy_from_slice(&le(v));
        }
        Ok(())
    })
    .expect("writing into a fresh bytes object cannot fail")
}

/// Little-endian bytes of a `u32` table.
pub(crate) fn u32_bytes<'py>(py: Python<'py>, values: &[u32]) -> Bound<'py, PyBytes> {
    le_bytes(py, values, u32::to_le_bytes)
}

/// Little-endian bytes of a `u64` table.
pub(crate) fn u64_bytes<'py>(py: Python<'py>, values: &[u64]) -> Bound<'py, PyBytes> {
    le_bytes(py, values, u64::to_le_bytes)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CardError", m.py().get_type_bound::<CardError>())?;
    m.add("TileError", m.py().get_type_bound::<TileError>())?;
    m.add("RulesError", m.py().get_type_bound::<RulesError>())?;
    m.add("NistError", m.py().get_type_bound::<NistError>())?;
    m.add("LogError", m.py().get_type_bound::<LogError>())?;
    cards::register(m)?;
    games::register(m)?;
    lookup::register(m)?;
    mahjong::register(m)?;
    nist::register(m)?;
    audit::register(m)?;
    rounds::register(m)?;
    Ok(())
}
