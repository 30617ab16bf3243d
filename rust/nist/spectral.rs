//! 2.6 Discrete Fourier transform (spectral) test, rev1a thresholds.

use super::fft::RealFft;
use super::special::erfc;
use super::NistError;

/// 2.6: count |DFT| peaks of the ±1 sequence below T = sqrt(ln(1/0.05) n) over the first n/2
/// frequencies; d = (N1 - 0.95 n/2) / sqrt(n 0.95 0.05 / 4).
pub fn dft(bits: &[u8], plan: &RealFft) -> Result<Vec<f64>, NistError> {
    let n = bits.len();
    if n < 2 {
        return Err(NistError::TooShort {
            test: "discrete Fourier transform",
            n,
            need: 2,
        });
    }
    let mags = plan.half_magnitudes_of(|i| 2.0 * f64::from(bits[i]) - 1.0);
    let nf = n as f64;
    let threshold = ((1.0f64 / 0.05).ln() * nf).sqrt();
    let n0 = 0.95 * nf / 2.0;
    let n1 = mags.iter().filter(|&&m| m < threshold).count() as f64;
    let d = (n1 - n0) / (nf * 0.95 * 0.05 / 4.0).sqrt();
    Ok(vec![erfc(d.abs() / std::f64::consts::SQRT_2)])
}
