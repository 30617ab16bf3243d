//! `tablecert._core._testing`: functions only the tests call (the core's inner steps, checked
//! against references and published counts), kept out of the public module so that its stub
//! lists only the API.

use pyo3::prelude::*;

/// The submodule's full name, as `import` finds it.
const NAME: &str = "tablecert._core._testing";

/// Add `_testing` to the core module and make it importable by its full name (an extension
/// module is not a package, so `import tablecert._core._testing` finds it in `sys.modules`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let testing = PyModule::new_bound(py, NAME)?;
    super::games::register_testing(&testing)?;
    super::mahjong::register_testing(&testing)?;
    super::nist::register_testing(&testing)?;
    m.add("_testing", &testing)?;
    py.import_bound("sys")?
        .getattr("modules")?
        .set_item(NAME, &testing)?;
    Ok(())
}
