//! 2.6 Discrete Fourier transform (spectral) test, rev1a thresholds.
//!
//! The statistic depends on the transform only through N1, the number of magnitudes below the
//! threshold T. The transform is Debian's realfft/rustfft (`CrateRealFft`: the test costs
//! 3.5x less CPU than with the hand-written `RealFft` at 10^6 bits, BENCHMARKS.md), and N1 is
//! taken from it only where it provably equals the hand-written transform's: when no magnitude
//! lies within `margin` of T. Otherwise the sequence is transformed again by `RealFft`, the transform whose
//! counts reproduce NIST assess 2.1.2 on its reference outputs, so no result changes.

use std::sync::OnceLock;

use super::fft::{CrateRealFft, RealFft};
use super::special::erfc;
use super::NistError;

/// Which transform gave a peak count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transform {
    /// The hand-written mixed-radix / Bluestein transform (`fft::RealFft`).
    Hand,
    /// realfft over rustfft (`fft::CrateRealFft`).
    Crate,
}

/// The spectral test's plans for one length: the crate's, and the hand-written one built on
/// first need.
pub struct DftPlan {
    n: usize,
    fast: CrateRealFft,
    exact: OnceLock<RealFft>,
    margin: f64,
}

impl DftPlan {
    #[must_use]
    pub fn new(n: usize) -> Self {
        let nf = n as f64;
        Self {
            n,
            fast: CrateRealFft::new(n),
            exact: OnceLock::new(),
            margin: 1e-12 * nf * nf.log2().max(1.0),
        }
    }

    /// T = sqrt(ln(1/0.05) n).
    #[must_use]
    pub fn threshold(&self) -> f64 {
        ((1.0f64 / 0.05).ln() * self.n as f64).sqrt()
    }

    /// A bound, with a wide safety factor, on how far either transform's magnitude can be from
    /// the exact |X_k| for a ±1 sequence. Floating-point FFTs satisfy
    /// ||X̂ - X||₂ <= log2(n) η ||X||₂ / (1 - log2(n) η) (Higham, Accuracy and Stability of
    /// Numerical Algorithms, 2nd ed., Theorem 24.2; η a few units of roundoff u per stage, up
    /// to p·u for a direct radix-p butterfly), and ||X||₂ = sqrt(n) ||x||₂ = n for ±1 input; one
    /// bin's error is at most the whole vector's. The margin, 10^-12 n log2(n) ≈ 9,000 u n log2(n),
    /// is twice a bound with η = 4,500 u, far above the largest radix (61) or Bluestein's three
    /// passes; measured differences between the two transforms are at most 2.4·10^-12 at
    /// n = 10^6 against a margin of 2·10^-5 (tests/test_nist_battery.py).
    #[must_use]
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// |X_k|, k < n/2, of the ±1 sequence of `bits` by the chosen transform.
    #[must_use]
    pub fn magnitudes(&self, bits: &[u8], transform: Transform) -> Vec<f64> {
        assert_eq!(bits.len(), self.n, "sequence length differs from the plan");
        let value = |i: usize| 2.0 * f64::from(bits[i]) - 1.0;
        match transform {
            Transform::Crate => self.fast.half_magnitudes_of(value),
            Transform::Hand => self
                .exact
                .get_or_init(|| RealFft::new(self.n))
                .half_magnitudes_of(value),
        }
    }

    /// N1 by one transform: magnitudes below T.
    #[must_use]
    pub fn peak_count_by(&self, bits: &[u8], transform: Transform) -> usize {
        let threshold = self.threshold();
        self.magnitudes(bits, transform)
            .iter()
            .filter(|&&m| m < threshold)
            .count()
    }

    /// N1 as the test uses it, and the transform that decided it: the crate's count unless a
    /// magnitude lies within `margin` of T, then the hand-written transform's.
    #[must_use]
    pub fn peak_count(&self, bits: &[u8]) -> (usize, Transform) {
        assert_eq!(bits.len(), self.n, "sequence length differs from the plan");
        let clear = self.fast.with_half_spectrum(
            |i| 2.0 * f64::from(bits[i]) - 1.0,
            |spectrum| {
                count_clear_of(
                    spectrum.iter().map(realfft::num_complex::Complex::norm_sqr),
                    self.threshold(),
                    self.margin,
                )
            },
        );
        match clear {
            Some(count) => (count, Transform::Crate),
            None => (self.peak_count_by(bits, Transform::Hand), Transform::Hand),
        }
    }
}

/// From squared magnitudes q = |X_k|², the count of |X_k| below `threshold`, or None when one
/// may lie within `margin` of it (its side then depends on the transform's rounding). Squares
/// spare a square root per frequency: |m - T| <= margin implies |m² - T²| <= margin (2T + margin),
/// so every magnitude outside that band of squares is more than `margin` from T.
#[must_use]
pub fn count_clear_of(
    squares: impl Iterator<Item = f64>,
    threshold: f64,
    margin: f64,
) -> Option<usize> {
    let t2 = threshold * threshold;
    let band = margin * (2.0 * threshold + margin);
    let mut below = 0;
    for q in squares {
        if (q - t2).abs() <= band {
            return None;
        }
        below += usize::from(q < t2);
    }
    Some(below)
}

/// 2.6: count |DFT| peaks of the ±1 sequence below T = sqrt(ln(1/0.05) n) over the first n/2
/// frequencies; d = (N1 - 0.95 n/2) / sqrt(n 0.95 0.05 / 4).
pub fn dft(bits: &[u8], plan: &DftPlan) -> Result<Vec<f64>, NistError> {
    let n = bits.len();
    if n < 2 {
        return Err(NistError::TooShort {
            test: "discrete Fourier transform",
            n,
            need: 2,
        });
    }
    let (n1, _) = plan.peak_count(bits);
    let nf = n as f64;
    let n0 = 0.95 * nf / 2.0;
    let d = (n1 as f64 - n0) / (nf * 0.95 * 0.05 / 4.0).sqrt();
    Ok(vec![erfc(d.abs() / std::f64::consts::SQRT_2)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg_bits(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (s >> 63) as u8
            })
            .collect()
    }

    #[test]
    fn a_magnitude_within_the_margin_leaves_the_count_to_the_hand_transform() {
        let count = |m: &[f64]| count_clear_of(m.iter().map(|v| v * v), 2.0, 0.1);
        assert_eq!(count(&[1.0, 3.0, 2.5, 0.0]), Some(2));
        assert_eq!(count(&[1.0, 2.09, 2.5]), None);
        assert_eq!(count(&[1.0, 1.91, 2.5]), None);
        assert_eq!(count(&[1.0, 1.89, 2.11]), Some(2));
        assert_eq!(count(&[]), Some(0));
    }

    #[test]
    fn both_transforms_count_the_same_peaks() {
        // Even lengths (half-length transform), odd ones, a prime above the direct radices
        // (Bluestein in the hand transform), and 10^6.
        for (n, seed) in [
            (2, 1),
            (1_000, 2),
            (1_001, 3),
            (10_007, 4),
            (65_536, 5),
            (1_000_000, 6),
        ] {
            let plan = DftPlan::new(n);
            let bits = lcg_bits(n, seed);
            let hand = plan.magnitudes(&bits, Transform::Hand);
            let fast = plan.magnitudes(&bits, Transform::Crate);
            assert_eq!(hand.len(), n / 2);
            assert_eq!(fast.len(), n / 2);
            let worst = hand
                .iter()
                .zip(&fast)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(worst < plan.margin() / 1000.0, "n={n}: {worst}");
            assert_eq!(
                plan.peak_count_by(&bits, Transform::Hand),
                plan.peak_count_by(&bits, Transform::Crate),
                "n={n}"
            );
        }
    }

    #[test]
    fn a_sequence_near_the_threshold_is_counted_by_the_hand_transform() {
        // The ±1 sequence 1, 1, -1, -1 has the spectrum {0, 2 - 2i, 0, 2 + 2i}: |X_0| = 0 and
        // |X_1| = 2 sqrt(2) = 2.83, both below T = sqrt(4 ln 20) = 3.46, so N1 = 2.
        let bits = [1, 1, 0, 0];
        let plan = DftPlan::new(4);
        assert_eq!(plan.peak_count(&bits), (2, Transform::Crate));
        let mags = plan.magnitudes(&bits, Transform::Crate);
        assert!((mags[1] - 8f64.sqrt()).abs() < 1e-12);
        // A margin reaching |X_1| hands the count to the hand-written transform.
        let wide = DftPlan {
            margin: 0.7,
            ..DftPlan::new(4)
        };
        assert_eq!(wide.peak_count(&bits), (2, Transform::Hand));
    }
}
