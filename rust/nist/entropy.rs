//! 2.11 Serial and 2.12 approximate entropy: overlapping m-bit pattern counts with wrap-around.

use super::special::igamc;
use super::NistError;

/// Counts of all 2^m cyclic m-bit windows (the sequence extended by its first m-1 bits).
fn cyclic_counts(bits: &[u8], m: usize) -> Vec<u64> {
    let n = bits.len();
    let mut counts = vec![0u64; 1 << m];
    if m == 0 {
        counts[0] = n as u64;
        return counts;
    }
    let mask = (1usize << m) - 1;
    let mut v = 0usize;
    for &b in &bits[..m - 1] {
        v = (v << 1) | b as usize;
    }
    for i in 0..n {
        v = ((v << 1) | bits[(i + m - 1) % n] as usize) & mask;
        counts[v] += 1;
    }
    counts
}

/// Counts of (m-1)-bit cyclic windows from the m-bit ones (prefix sums of pairs).
fn fold(counts: &[u64]) -> Vec<u64> {
    counts.chunks_exact(2).map(|c| c[0] + c[1]).collect()
}

fn check_m(test: &'static str, bits: &[u8], m: usize, max: usize) -> Result<(), NistError> {
    if m > max {
        return Err(NistError::Parameter(format!("{test}: m={m} exceeds {max}")));
    }
    if bits.len() < m.max(1) {
        return Err(NistError::TooShort {
            test,
            n: bits.len(),
            need: m.max(1),
        });
    }
    Ok(())
}

/// 2.12 Approximate entropy with block length m: ApEn = φ(m) - φ(m+1),
/// chi2 = 2n(ln 2 - ApEn), p = igamc(2^(m-1), chi2/2).
pub fn approximate_entropy(bits: &[u8], m: usize) -> Result<Vec<f64>, NistError> {
    check_m("approximate entropy", bits, m + 1, 25)?;
    let n = bits.len() as f64;
    let big = cyclic_counts(bits, m + 1);
    let small = fold(&big);
    let phi = |counts: &[u64]| -> f64 {
        counts
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                p * p.ln()
            })
            .sum()
    };
    let ap_en = phi(&small) - phi(&big);
    let chi2 = 2.0 * n * (std::f64::consts::LN_2 - ap_en);
    Ok(vec![igamc(2f64.powi(m as i32 - 1), chi2 / 2.0)])
}

/// 2.11 Serial test with block length m >= 2: [p-value 1 (∇ψ²), p-value 2 (∇²ψ²)].
pub fn serial(bits: &[u8], m: usize) -> Result<Vec<f64>, NistError> {
    if m < 2 {
        return Err(NistError::Parameter(format!("serial: m={m}; need m >= 2")));
    }
    check_m("serial", bits, m, 25)?;
    let n = bits.len() as f64;
    let c0 = cyclic_counts(bits, m);
    let c1 = fold(&c0);
    let c2 = fold(&c1);
    let psi = |counts: &[u64], m: usize| -> f64 {
        if m == 0 {
            return 0.0;
        }
        let s: f64 = counts.iter().map(|&c| (c as f64) * (c as f64)).sum();
        s * 2f64.powi(m as i32) / n - n
    };
    let (p0, p1, p2) = (psi(&c0, m), psi(&c1, m - 1), psi(&c2, m - 2));
    let del1 = p0 - p1;
    let del2 = p0 - 2.0 * p1 + p2;
    Ok(vec![
        igamc(2f64.powi(m as i32 - 2), del1 / 2.0),
        igamc(2f64.powi(m as i32 - 3), del2 / 2.0),
    ])
}
