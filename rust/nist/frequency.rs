//! The counting tests: frequency (monobit), frequency within a block, cumulative sums, runs and
//! the longest run of ones in a block (SP 800-22 rev1a sections 2.1-2.4 and 2.13).

use super::special::{erfc, igamc, normal_cdf};
use super::{chi_square_p, whole_blocks, NistError};
use std::f64::consts::SQRT_2;

fn ones(bits: &[u8]) -> usize {
    bits.iter().map(|&b| b as usize).sum()
}

/// 2.1 Frequency (monobit): p = erfc(|S_n| / sqrt(2n)).
pub fn frequency(bits: &[u8]) -> Result<Vec<f64>, NistError> {
    let n = bits.len();
    if n == 0 {
        return Err(NistError::TooShort {
            test: "frequency",
            n,
            need: 1,
        });
    }
    let s = 2.0 * ones(bits) as f64 - n as f64;
    Ok(vec![erfc(s.abs() / (n as f64).sqrt() / SQRT_2)])
}

/// 2.2 Frequency within a block of `m` bits: chi2 = 4M sum (pi_i - 1/2)^2 over N = n/M blocks.
pub fn block_frequency(bits: &[u8], m: usize) -> Result<Vec<f64>, NistError> {
    if m == 0 {
        return Err(NistError::Parameter(
            "block frequency: block length M must be >= 1".into(),
        ));
    }
    let blocks = whole_blocks("block frequency", bits.len(), m)?;
    let chi2: f64 = bits
        .chunks_exact(m)
        .map(|b| {
            let pi = ones(b) as f64 / m as f64 - 0.5;
            pi * pi
        })
        .sum::<f64>()
        * 4.0
        * m as f64;
    Ok(vec![igamc(blocks as f64 / 2.0, chi2 / 2.0)])
}

/// 2.3 Runs. When the frequency prerequisite |pi - 1/2| >= 2/sqrt(n) fails the document sets
/// the p-value to 0.
pub fn runs(bits: &[u8]) -> Result<Vec<f64>, NistError> {
    let n = bits.len();
    if n < 2 {
        return Err(NistError::TooShort {
            test: "runs",
            n,
            need: 2,
        });
    }
    let nf = n as f64;
    let pi = ones(bits) as f64 / nf;
    if (pi - 0.5).abs() >= 2.0 / nf.sqrt() {
        return Ok(vec![0.0]);
    }
    let v = 1 + bits.windows(2).filter(|w| w[0] != w[1]).count();
    let p = erfc(
        (v as f64 - 2.0 * nf * pi * (1.0 - pi)).abs() / (2.0 * (2.0 * nf).sqrt() * pi * (1.0 - pi)),
    );
    Ok(vec![p])
}

/// The class edges (v_low, v_high) of 2.4 for the document's block lengths, and the class
/// probabilities as the document's table 2.4 prints them (4 decimals).
fn longest_run_table(m: usize) -> Option<(usize, usize, &'static [f64])> {
    match m {
        8 => Some((1, 4, &[0.2148, 0.3672, 0.2305, 0.1875])),
        128 => Some((4, 9, &[0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124])),
        10_000 => Some((
            10,
            16,
            &[0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727],
        )),
        _ => None,
    }
}

/// Exact probability that the longest run of ones in `m` fair bits is at most `v`.
fn longest_run_at_most(m: usize, v: usize) -> f64 {
    // state[r]: probability that the current trailing run has length r (<= v) and no run so
    // far exceeded v.
    let mut state = vec![0.0f64; v + 1];
    state[0] = 1.0;
    for _ in 0..m {
        let total: f64 = state.iter().sum();
        // Shift every run one longer (the run of length v cannot grow), then start a new run.
        state.rotate_right(1);
        for p in &mut state[1..] {
            *p *= 0.5;
        }
        state[0] = 0.5 * total;
    }
    state.iter().sum()
}

/// Exact class probabilities of the longest run for block length m and edges lo..=hi:
/// P(<= lo), P(= lo+1), ..., P(>= hi). For M = 8 these are 55/256, 94/256, 59/256, 48/256,
/// the values the NIST tool uses; table 2.4 prints them rounded.
#[must_use]
pub fn longest_run_probabilities(m: usize, lo: usize, hi: usize) -> Vec<f64> {
    let mut out = vec![longest_run_at_most(m, lo)];
    for v in lo + 1..hi {
        out.push(longest_run_at_most(m, v) - longest_run_at_most(m, v - 1));
    }
    out.push(1.0 - longest_run_at_most(m, hi - 1));
    out
}

/// The document's block length for the longest-run test: 8 below 6272 bits, 128 below
/// 750,000, else 10^4; fewer than 128 bits is not allowed.
pub fn longest_run_default_m(n: usize) -> Result<usize, NistError> {
    match n {
        0..=127 => Err(NistError::TooShort {
            test: "longest run of ones",
            n,
            need: 128,
        }),
        128..=6271 => Ok(8),
        6272..=749_999 => Ok(128),
        _ => Ok(10_000),
    }
}

/// 2.4 Longest run of ones in a block (M = 8, 128 or 10^4; 0 picks the document's M for n).
/// All N = n/M blocks are used, as the NIST tool does. Class probabilities are exact unless
/// `rounded` asks for table 2.4's four-decimal values (which Appendix B used for M = 10^4).
pub fn longest_run(bits: &[u8], m: usize, rounded: bool) -> Result<Vec<f64>, NistError> {
    let m = if m == 0 {
        longest_run_default_m(bits.len())?
    } else {
        m
    };
    let (lo, hi, table) = longest_run_table(m).ok_or_else(|| {
        NistError::Parameter(format!(
            "longest run: block length M={m} has no class table; the document defines M = 8, 128, 10000"
        ))
    })?;
    whole_blocks("longest run of ones", bits.len(), m)?;
    let pi: Vec<f64> = if rounded {
        table.to_vec()
    } else {
        longest_run_probabilities(m, lo, hi)
    };
    let mut nu = vec![0usize; pi.len()];
    for block in bits.chunks_exact(m) {
        let (mut run, mut best) = (0usize, 0usize);
        for &b in block {
            if b == 1 {
                run += 1;
                best = best.max(run);
            } else {
                run = 0;
            }
        }
        nu[best.clamp(lo, hi) - lo] += 1;
    }
    Ok(vec![chi_square_p(&nu, &pi)])
}

/// The cumulative-sums p-value for maximal excursion z of a walk of n steps (2.13.4 step 4).
fn cusum_p(n: usize, z: i64) -> f64 {
    if z == 0 {
        return 1.0;
    }
    let nf = n as f64;
    let zf = z as f64;
    let sq = nf.sqrt();
    let mut sum1 = 0.0;
    let start = ((-nf / zf + 1.0) / 4.0).floor() as i64;
    let end = ((nf / zf - 1.0) / 4.0).floor() as i64;
    for k in start..=end {
        let k = k as f64;
        sum1 += normal_cdf((4.0 * k + 1.0) * zf / sq) - normal_cdf((4.0 * k - 1.0) * zf / sq);
    }
    let mut sum2 = 0.0;
    let start = ((-nf / zf - 3.0) / 4.0).floor() as i64;
    for k in start..=end {
        let k = k as f64;
        sum2 += normal_cdf((4.0 * k + 3.0) * zf / sq) - normal_cdf((4.0 * k + 1.0) * zf / sq);
    }
    1.0 - sum1 + sum2
}

/// 2.13 Cumulative sums: [forward, backward] p-values.
pub fn cumulative_sums(bits: &[u8]) -> Result<Vec<f64>, NistError> {
    let n = bits.len();
    if n == 0 {
        return Err(NistError::TooShort {
            test: "cumulative sums",
            n,
            need: 1,
        });
    }
    let (mut s, mut sup, mut inf) = (0i64, 0i64, 0i64);
    for &b in bits {
        s += 2 * i64::from(b) - 1;
        sup = sup.max(s);
        inf = inf.min(s);
    }
    let forward = sup.max(-inf);
    // Backward: partial sums from the end are s - S_k, k = n-1 .. 0 (S_0 = 0).
    let backward = (s - inf).max(sup - s).max(s.abs());
    Ok(vec![cusum_p(n, forward), cusum_p(n, backward)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_run_probabilities_are_exact() {
        let p8 = longest_run_probabilities(8, 1, 4);
        for (p, k) in p8.iter().zip([55.0, 94.0, 59.0, 48.0]) {
            assert!((p - k / 256.0).abs() < 1e-15);
        }
        // Table 2.4 to its printed digits (it prints 0.2493 for 0.249363 at M = 128). The NIST
        // tool's ten-digit values for M = 128 follow.
        let p128 = longest_run_probabilities(128, 4, 9);
        let tool = [
            0.117_403_578_8,
            0.242_955_959,
            0.249_363_483,
            0.175_177_06,
            0.102_701_071,
            0.112_398_847,
        ];
        for (p, t) in p128.iter().zip(tool) {
            assert!((p - t).abs() < 1e-9, "{p} vs {t}");
        }
        // For M = 10^4 table 2.4 holds an asymptotic approximation: off by up to 0.0016.
        for (m, tol) in [(128, 1e-4), (10_000, 2e-3)] {
            let (lo, hi, table) = longest_run_table(m).unwrap();
            let exact = longest_run_probabilities(m, lo, hi);
            assert!((exact.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            for (p, t) in exact.iter().zip(table) {
                assert!((p - t).abs() < tol, "M={m}: {p} vs {t}");
            }
        }
    }
}
