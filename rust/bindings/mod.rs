//! The only place that knows `PyO3`: thin wrappers that validate input, release the GIL around
//! heavy work and map core errors to Python's through `errors::CoreError`.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into PyErr; newer clippy flags that.
// Arguments extracted from Python are owned values even where only borrowed.
#![allow(clippy::useless_conversion, clippy::needless_pass_by_value)]

use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod audit;
mod cards;
mod errors;
mod games;
mod lookup;
mod mahjong;
mod nist;
mod rounds;

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
    errors::register(m)?;
    cards::register(m)?;
    games::register(m)?;
    lookup::register(m)?;
    mahjong::register(m)?;
    nist::register(m)?;
    audit::register(m)?;
    rounds::register(m)?;
    Ok(())
}
