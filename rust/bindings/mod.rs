//! The only place that knows `PyO3`: thin wrappers that validate input, release the GIL around
//! heavy work and map core errors to Python's through `errors::CoreError`.

// pyo3 0.22's #[pyfunction] expansion converts PyErr into PyErr; newer clippy flags that.
// Arguments extracted from Python are owned values even where only borrowed.
#![allow(clippy::useless_conversion, clippy::needless_pass_by_value)]

use pyo3::prelude::*;

mod audit;
mod bytes;
mod cards;
mod errors;
mod evaluation;
mod games;
mod lookup;
mod mahjong;
mod nist;
mod round_simulation;
mod rounds;
mod stud;
mod testing;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    cards::register(m)?;
    evaluation::register(m)?;
    games::register(m)?;
    lookup::register(m)?;
    mahjong::register(m)?;
    nist::register(m)?;
    audit::register(m)?;
    rounds::register(m)?;
    testing::register(m)?;
    round_simulation::register(m)?;
    stud::register(m)?;
    Ok(())
}
