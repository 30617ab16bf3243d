//! 2.7 Non-overlapping and 2.8 overlapping template matching, and the library of aperiodic
//! templates the non-overlapping test runs by default.

use super::special::{igamc, ln_gamma};
use super::{chi_square_p, whole_blocks, NistError};

/// A template of `m` bits (first bit most significant).
fn is_aperiodic(value: u32, m: usize) -> bool {
    // Bifix-free: no proper prefix equals the suffix of the same length.
    (1..m).all(|len| {
        let prefix = value >> (m - len);
        let suffix = value & ((1u32 << len) - 1);
        prefix != suffix
    })
}

/// All aperiodic (bifix-free) templates of length m in increasing order: the NIST tool's
/// template files (148 of them for m = 9).
pub fn aperiodic_templates(m: usize) -> Result<Vec<u32>, NistError> {
    if !(2..=21).contains(&m) {
        return Err(NistError::Parameter(format!(
            "template length m={m}: the tool supports 2..=21"
        )));
    }
    Ok((0..1u32 << m).filter(|&v| is_aperiodic(v, m)).collect())
}

/// Window values: entry i is bits[i..i+m] read most significant first.
fn windows(bits: &[u8], m: usize) -> impl Iterator<Item = u32> + '_ {
    let mask = if m == 32 { u32::MAX } else { (1u32 << m) - 1 };
    let mut value = 0u32;
    bits.iter().enumerate().filter_map(move |(i, &b)| {
        value = ((value << 1) | u32::from(b)) & mask;
        (i + 1 >= m).then_some(value)
    })
}

/// Non-overlapping matches of `template` in `block`: after a hit the scan jumps m bits.
fn count_non_overlapping(block: &[u8], template: u32, m: usize) -> usize {
    let mut count = 0;
    let mut next_allowed = 0usize; // window start index allowed
    for (end, v) in windows(block, m).enumerate() {
        if end >= next_allowed && v == template {
            count += 1;
            next_allowed = end + m;
        }
    }
    count
}

/// 2.7 Non-overlapping template matching: one p-value per template, N blocks of M = n/N bits.
pub fn non_overlapping(
    bits: &[u8],
    m: usize,
    blocks: usize,
    templates: &[u32],
) -> Result<Vec<f64>, NistError> {
    if blocks == 0 {
        return Err(NistError::Parameter(
            "non-overlapping template: number of blocks N must be >= 1".into(),
        ));
    }
    let block_len = bits.len() / blocks;
    if block_len < m {
        return Err(NistError::TooShort {
            test: "non-overlapping template",
            n: bits.len(),
            need: m * blocks,
        });
    }
    let two_m = 2f64.powi(m as i32);
    let mu = (block_len - m + 1) as f64 / two_m;
    let var = block_len as f64 * (1.0 / two_m - (2.0 * m as f64 - 1.0) / (two_m * two_m));
    // Aperiodic templates never overlap themselves, so non-overlapping counts equal plain
    // window counts: one histogram per block serves every template.
    let all_aperiodic = templates.iter().all(|&t| is_aperiodic(t, m));
    let mut counts = vec![vec![0usize; blocks]; templates.len()];
    for (j, block) in bits.chunks_exact(block_len).take(blocks).enumerate() {
        if all_aperiodic && m <= 16 {
            let mut hist = vec![0u32; 1 << m];
            for v in windows(block, m) {
                hist[v as usize] += 1;
            }
            for (row, &t) in counts.iter_mut().zip(templates) {
                row[j] = hist[t as usize] as usize;
            }
        } else {
            for (row, &t) in counts.iter_mut().zip(templates) {
                row[j] = count_non_overlapping(block, t, m);
            }
        }
    }
    Ok(counts
        .iter()
        .map(|w| {
            let chi2: f64 = w.iter().map(|&c| (c as f64 - mu).powi(2) / var).sum();
            igamc(blocks as f64 / 2.0, chi2 / 2.0)
        })
        .collect())
}

/// Probability of u overlapping occurrences of an all-ones m-template in a block (3.8), η = λ/2.
fn overlapping_pr(u: usize, eta: f64) -> f64 {
    if u == 0 {
        return (-eta).exp();
    }
    let uf = u as f64;
    (1..=u)
        .map(|l| {
            let lf = l as f64;
            (-eta - uf * std::f64::consts::LN_2 + lf * eta.ln() - ln_gamma(lf + 1.0) + ln_gamma(uf)
                - ln_gamma(lf)
                - ln_gamma(uf - lf + 1.0))
            .exp()
        })
        .sum()
}

/// Exact class probabilities π_0..π_K (K meaning "K or more") of the number of overlapping
/// occurrences of `template` (m bits) in a uniformly random block of `block_len` bits: a
/// dynamic programme over the template's matching automaton (KMP) and the capped hit count.
/// For m = 9, M = 1032, K = 5 these are the corrected values of rev1a section 3.8
/// (0.364091, 0.185659, ...), which the older Poisson-type formula (0.367879, ...) misses.
#[must_use]
pub fn overlapping_probabilities_exact(
    template: u32,
    m: usize,
    block_len: usize,
    k: usize,
) -> Vec<f64> {
    let t: Vec<u8> = (0..m).rev().map(|i| (template >> i & 1) as u8).collect();
    // failure[i]: longest proper border of t[..i].
    let mut failure = vec![0usize; m + 1];
    for i in 1..m {
        let mut j = failure[i];
        while j > 0 && t[i] != t[j] {
            j = failure[j];
        }
        failure[i + 1] = if t[i] == t[j] { j + 1 } else { 0 };
    }
    let step = |state: usize, bit: u8| -> usize {
        let mut j = if state == m { failure[m] } else { state };
        loop {
            if t[j] == bit {
                return j + 1;
            }
            if j == 0 {
                return 0;
            }
            j = failure[j];
        }
    };
    let next: Vec<[usize; 2]> = (0..=m).map(|s| [step(s, 0), step(s, 1)]).collect();
    // prob[state][count]
    let mut prob = vec![vec![0.0f64; k + 1]; m + 1];
    prob[0][0] = 1.0;
    for _ in 0..block_len {
        let mut new = vec![vec![0.0f64; k + 1]; m + 1];
        for (s, row) in prob.iter().enumerate() {
            for (c, &p) in row.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                for &ns in &next[s] {
                    let nc = if ns == m { (c + 1).min(k) } else { c };
                    new[ns][nc] += 0.5 * p;
                }
            }
        }
        prob = new;
    }
    (0..=k)
        .map(|c| prob.iter().map(|row| row[c]).sum())
        .collect()
}

/// Class probabilities π_0..π_K by the document's formula (section 2.8.4 / the NIST tool's
/// `Pr`): a Poisson-type approximation for the all-ones template, π_K = 1 - the rest. The worked
/// example 2.8.8 uses these.
#[must_use]
pub fn overlapping_probabilities(m: usize, block_len: usize, k: usize) -> Vec<f64> {
    let lambda = (block_len - m + 1) as f64 / 2f64.powi(m as i32);
    let eta = lambda / 2.0;
    let mut pi: Vec<f64> = (0..k).map(|u| overlapping_pr(u, eta)).collect();
    let rest = 1.0 - pi.iter().sum::<f64>();
    pi.push(rest);
    pi
}

/// 2.8 Overlapping template matching: N = n/M blocks, classes 0..K (K and above lumped).
pub fn overlapping(
    bits: &[u8],
    template: u32,
    m: usize,
    block_len: usize,
    k: usize,
    approximate: bool,
) -> Result<Vec<f64>, NistError> {
    if m == 0 || m > 32 || block_len < m || k == 0 {
        return Err(NistError::Parameter(format!(
            "overlapping template: m={m}, M={block_len}, K={k} (need 1 <= m <= 32, M >= m, K >= 1)"
        )));
    }
    whole_blocks("overlapping template", bits.len(), block_len)?;
    let mut nu = vec![0usize; k + 1];
    for block in bits.chunks_exact(block_len) {
        let hits = windows(block, m).filter(|&v| v == template).count();
        nu[hits.min(k)] += 1;
    }
    let pi = if approximate {
        overlapping_probabilities(m, block_len, k)
    } else {
        overlapping_probabilities_exact(template, m, block_len, k)
    };
    Ok(vec![chi_square_p(&nu, &pi)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_library_sizes() {
        // The NIST tool's template files: template2 .. template10.
        let sizes: Vec<usize> = (2..=10)
            .map(|m| aperiodic_templates(m).unwrap().len())
            .collect();
        assert_eq!(sizes, [2, 4, 6, 12, 20, 40, 74, 148, 284]);
        let t9 = aperiodic_templates(9).unwrap();
        assert_eq!(t9[0], 0b0_0000_0001);
        assert_eq!(*t9.last().unwrap(), 0b1_1111_1110);
    }

    #[test]
    fn overlapping_probabilities_rev1a() {
        // Section 3.8, the corrected values for m = 9, M = 1032, K = 5.
        let pi = overlapping_probabilities_exact(0x1FF, 9, 1032, 5);
        let want = [
            0.364_091,
            0.185_659,
            0.139_381,
            0.100_571,
            0.070_432_3,
            0.139_865,
        ];
        for (p, w) in pi.iter().zip(want) {
            assert!((p - w).abs() < 1e-6, "{pi:?}");
        }
        // The older formula: π_0 = exp(-η) with η = λ/2 = 1.
        let old = overlapping_probabilities(9, 1032, 5);
        assert!((old[0] - (-1.0f64).exp()).abs() < 1e-15);
        // The exact programme agrees with brute force on a small case.
        let (m, len) = (2usize, 10usize);
        let mut counts = vec![0.0; 6];
        for v in 0u32..1 << len {
            let hits = (0..=len - m)
                .filter(|&i| (v >> (len - m - i)) & 3 == 3)
                .count();
            counts[hits.min(5)] += 1.0 / 1024.0;
        }
        let exact = overlapping_probabilities_exact(3, m, len, 5);
        for (a, b) in exact.iter().zip(&counts) {
            assert!((a - b).abs() < 1e-15);
        }
    }
}
