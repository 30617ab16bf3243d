//! Bindings for the NIST SP 800-22 battery: parameters in, p-values out as little-endian f64.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

use super::bytes::le_bytes;
use super::errors::CoreError;
use crate::nist::spectral::{DftPlan, Transform};
use crate::nist::{self, Battery, Params, TestKind};

fn as_usize(key: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value).map_err(|_| {
        PyErr::from(CoreError::Nist(format!(
            "parameter {key}={value}: must be a non-negative integer"
        )))
    })
}

/// Build `Params` from the Python keyword dict (keys as in `tablecert.audit.rng.NistParameters`).
fn params_from(values: &HashMap<String, i64>, templates: Option<Vec<u32>>) -> PyResult<Params> {
    let mut p = Params {
        non_overlapping_templates: templates,
        ..Params::default()
    };
    for (key, &v) in values {
        match key.as_str() {
            "block_frequency_m" => p.block_frequency_m = as_usize(key, v)?,
            "longest_run_m" => p.longest_run_m = as_usize(key, v)?,
            "longest_run_rounded" => p.longest_run_rounded = v != 0,
            "rank_rows" => p.rank_rows = as_usize(key, v)?,
            "rank_cols" => p.rank_cols = as_usize(key, v)?,
            "non_overlapping_m" => p.non_overlapping_m = as_usize(key, v)?,
            "non_overlapping_blocks" => p.non_overlapping_blocks = as_usize(key, v)?,
            "overlapping_m" => p.overlapping_m = as_usize(key, v)?,
            "overlapping_template" => {
                p.overlapping_template = if v < 0 {
                    None
                } else {
                    Some(u32::try_from(v).map_err(|_| {
                        PyErr::from(CoreError::Nist(format!(
                            "overlapping_template={v}: above 2^32"
                        )))
                    })?)
                };
            }
            "overlapping_block" => p.overlapping_block = as_usize(key, v)?,
            "overlapping_k" => p.overlapping_k = as_usize(key, v)?,
            "overlapping_approximate" => p.overlapping_approximate = v != 0,
            "universal_l" => p.universal_l = as_usize(key, v)?,
            "universal_q" => p.universal_q = as_usize(key, v)?,
            "linear_complexity_m" => p.linear_complexity_m = as_usize(key, v)?,
            "linear_complexity_tool_pi" => p.linear_complexity_tool_pi = v != 0,
            "serial_m" => p.serial_m = as_usize(key, v)?,
            "approximate_entropy_m" => p.approximate_entropy_m = as_usize(key, v)?,
            "min_cycles" => p.min_cycles = if v < 0 { None } else { Some(as_usize(key, v)?) },
            other => {
                return Err(CoreError::Nist(format!("unknown NIST parameter {other:?}")).into())
            }
        }
    }
    Ok(p)
}

fn kinds(tests: &[String]) -> PyResult<Vec<TestKind>> {
    tests
        .iter()
        .map(|t| TestKind::from_name(t).map_err(PyErr::from))
        .collect()
}

/// The fifteen test names in report order.
#[pyfunction]
fn nist_test_names() -> Vec<&'static str> {
    TestKind::ALL.iter().map(|t| t.name()).collect()
}

/// For each test: None if it applies to n-bit sequences with these parameters, else why not.
#[pyfunction]
#[pyo3(signature = (bits, params, templates=None))]
fn nist_check(
    bits: usize,
    params: HashMap<String, i64>,
    templates: Option<Vec<u32>>,
) -> PyResult<Vec<(String, Option<String>)>> {
    let p = params_from(&params, templates)?;
    Ok(TestKind::ALL
        .iter()
        .map(|&t| {
            let err = Battery::new(&[t], p.clone(), bits)
                .err()
                .map(|e| e.to_string());
            (t.name().to_owned(), err)
        })
        .collect())
}

/// Run the tests on `sequences` consecutive `bits`-bit sequences of the packed stream `data`
/// (MSB first). Returns (columns as (test, label), minimum cycles used, p-values as
/// little-endian f64, row-major). The GIL is released; sequences run in parallel.
#[pyfunction]
#[pyo3(signature = (data, bits, sequences, tests, params, templates=None))]
#[allow(clippy::type_complexity)]
fn nist_run<'py>(
    py: Python<'py>,
    data: &[u8],
    bits: usize,
    sequences: usize,
    tests: Vec<String>,
    params: HashMap<String, i64>,
    templates: Option<Vec<u32>>,
) -> PyResult<(Vec<(String, String)>, usize, Bound<'py, PyBytes>)> {
    let p = params_from(&params, templates)?;
    let kinds = kinds(&tests)?;
    let (battery, values) = py.allow_threads(|| {
        let battery = Battery::new(&kinds, p, bits)?;
        let values = battery.run_packed(data, sequences)?;
        Ok::<_, nist::NistError>((battery, values))
    })?;
    let columns = battery
        .columns()
        .iter()
        .map(|(t, l)| (t.name().to_owned(), l.clone()))
        .collect();
    Ok((columns, battery.min_cycles(), le_bytes(py, &values)))
}

/// The parameters chosen from n (longest-run M, universal L and Q, minimum cycles) as the
/// tests use them on `bits`-bit sequences; None where the test does not apply.
#[pyfunction]
#[pyo3(signature = (bits, params, templates=None))]
fn nist_resolved(
    bits: usize,
    params: HashMap<String, i64>,
    templates: Option<Vec<u32>>,
) -> PyResult<Vec<(&'static str, Option<usize>)>> {
    Ok(params_from(&params, templates)?.resolved(bits))
}

/// All aperiodic templates of length m (148 for m = 9), as integers MSB-first.
#[pyfunction]
fn aperiodic_templates(m: usize) -> PyResult<Vec<u32>> {
    Ok(nist::templates::aperiodic_templates(m)?)
}

/// Regularized upper incomplete gamma Q(a, x).
#[pyfunction]
fn igamc(a: f64, x: f64) -> f64 {
    nist::special::igamc(a, x)
}

/// Complementary error function.
#[pyfunction]
fn erfc(x: f64) -> f64 {
    nist::special::erfc(x)
}

fn transform_named(fft: &str) -> PyResult<Option<Transform>> {
    match fft {
        "hand" => Ok(Some(Transform::Hand)),
        "crate" => Ok(Some(Transform::Crate)),
        "test" => Ok(None),
        other => Err(PyErr::from(CoreError::Nist(format!(
            "fft={other:?}: expected \"hand\", \"crate\" or \"test\""
        )))),
    }
}

fn transform_name(t: Transform) -> &'static str {
    match t {
        Transform::Hand => "hand",
        Transform::Crate => "crate",
    }
}

/// |DFT| of a real sequence at frequencies 0 .. n/2 - 1 (the spectral test's magnitudes), by
/// the hand-written transform or the crate's.
#[pyfunction]
#[pyo3(signature = (values, fft="hand"))]
fn dft_magnitudes(py: Python<'_>, values: Vec<f64>, fft: &str) -> PyResult<Vec<f64>> {
    if values.is_empty() {
        return Err(CoreError::Nist("DFT of an empty sequence".into()).into());
    }
    match transform_named(fft)? {
        Some(Transform::Hand) => {
            Ok(py.allow_threads(|| nist::fft::RealFft::new(values.len()).half_magnitudes(&values)))
        }
        Some(Transform::Crate) => Ok(py
            .allow_threads(|| nist::fft::CrateRealFft::new(values.len()).half_magnitudes(&values))),
        None => Err(PyErr::from(CoreError::Nist(
            "fft=\"test\" chooses per bit sequence; use dft_peak_counts".into(),
        ))),
    }
}

/// The spectral test's N1 (magnitudes below T) of `sequences` consecutive `bits`-bit
/// sequences of a packed stream, in parallel, with the transform that gave each: "hand" or
/// "crate" forces one, "test" is the test's own choice.
#[pyfunction]
fn dft_peak_counts(
    py: Python<'_>,
    data: &[u8],
    bits: usize,
    sequences: usize,
    fft: &str,
) -> PyResult<Vec<(usize, &'static str)>> {
    let forced = transform_named(fft)?;
    if bits < 2 {
        return Err(
            CoreError::Nist(format!("bits={bits}: the spectral test needs at least 2")).into(),
        );
    }
    let needed = sequences as u128 * bits as u128;
    if sequences == 0 || needed > data.len() as u128 * 8 {
        return Err(CoreError::Nist(format!(
            "{sequences} sequences of {bits} bits need {needed} bits; the input has {}",
            data.len() as u128 * 8
        ))
        .into());
    }
    Ok(py.allow_threads(|| {
        let plan = DftPlan::new(bits);
        (0..sequences)
            .into_par_iter()
            .map(|i| {
                let seq = nist::unpack_bits(data, i * bits, bits);
                let (count, t) = match forced {
                    Some(t) => (plan.peak_count_by(&seq, t), t),
                    None => plan.peak_count(&seq),
                };
                (count, transform_name(t))
            })
            .collect()
    }))
}

/// Linear complexity of a bit sequence (bytes 0/1) by Berlekamp-Massey.
#[pyfunction]
fn linear_complexity_of(bits: &[u8]) -> PyResult<usize> {
    if bits.iter().any(|&b| b > 1) {
        return Err(CoreError::Nist("bits must be 0 or 1".into()).into());
    }
    Ok(nist::linear_complexity::berlekamp_massey(bits))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nist_test_names, m)?)?;
    m.add_function(wrap_pyfunction!(nist_check, m)?)?;
    m.add_function(wrap_pyfunction!(nist_run, m)?)?;
    m.add_function(wrap_pyfunction!(nist_resolved, m)?)?;
    m.add_function(wrap_pyfunction!(igamc, m)?)?;
    Ok(())
}

/// The battery's inner steps the tests check against references (`_core._testing`).
pub fn register_testing(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(aperiodic_templates, m)?)?;
    m.add_function(wrap_pyfunction!(erfc, m)?)?;
    m.add_function(wrap_pyfunction!(dft_magnitudes, m)?)?;
    m.add_function(wrap_pyfunction!(dft_peak_counts, m)?)?;
    m.add_function(wrap_pyfunction!(linear_complexity_of, m)?)?;
    Ok(())
}
