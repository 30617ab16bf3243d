//! 2.5 Binary matrix rank: GF(2) elimination of M x Q matrices filled row by row.

use super::special::igamc;
use super::NistError;

/// Rank over GF(2) of a matrix given as rows of at most 64 bits.
#[must_use]
pub fn gf2_rank(rows: &mut [u64]) -> usize {
    let mut rank = 0;
    for bit in (0..64).rev() {
        let mask = 1u64 << bit;
        let Some(pivot) = (rank..rows.len()).find(|&r| rows[r] & mask != 0) else {
            continue;
        };
        rows.swap(rank, pivot);
        let p = rows[rank];
        for r in rows.iter_mut().skip(rank + 1) {
            if *r & mask != 0 {
                *r ^= p;
            }
        }
        rank += 1;
        if rank == rows.len() {
            break;
        }
    }
    rank
}

/// Probability that a random M x Q GF(2) matrix has rank r (section 3.5).
#[must_use]
pub fn rank_probability(m: usize, q: usize, r: usize) -> f64 {
    let (mf, qf, rf) = (m as f64, q as f64, r as f64);
    let mut product = 1.0;
    for i in 0..r {
        let i = i as f64;
        product *=
            (1.0 - 2f64.powf(i - qf)) * (1.0 - 2f64.powf(i - mf)) / (1.0 - 2f64.powf(i - rf));
    }
    2f64.powf(rf * (qf + mf - rf) - mf * qf) * product
}

/// 2.5 Binary matrix rank with M rows and Q columns (document: 32 x 32).
pub fn binary_matrix_rank(bits: &[u8], rows: usize, cols: usize) -> Result<Vec<f64>, NistError> {
    if !(2..=64).contains(&rows) || !(2..=64).contains(&cols) {
        return Err(NistError::Parameter(format!(
            "binary matrix rank: M={rows}, Q={cols}; both must be in 2..=64"
        )));
    }
    let size = rows * cols;
    let count = bits.len() / size;
    if count == 0 {
        return Err(NistError::TooShort {
            test: "binary matrix rank",
            n: bits.len(),
            need: size,
        });
    }
    let full = rows.min(cols);
    let (mut f_full, mut f_minus) = (0usize, 0usize);
    let mut matrix = vec![0u64; rows];
    for block in bits.chunks_exact(size) {
        for (row, chunk) in matrix.iter_mut().zip(block.chunks_exact(cols)) {
            *row = chunk.iter().fold(0u64, |acc, &b| (acc << 1) | u64::from(b));
        }
        let r = gf2_rank(&mut matrix);
        if r == full {
            f_full += 1;
        } else if r + 1 == full {
            f_minus += 1;
        }
    }
    let p_full = rank_probability(rows, cols, full);
    let p_minus = rank_probability(rows, cols, full - 1);
    let p_rest = 1.0 - p_full - p_minus;
    let nf = count as f64;
    let f_rest = (count - f_full - f_minus) as f64;
    let chi2 = (f_full as f64 - p_full * nf).powi(2) / (p_full * nf)
        + (f_minus as f64 - p_minus * nf).powi(2) / (p_minus * nf)
        + (f_rest - p_rest * nf).powi(2) / (p_rest * nf);
    Ok(vec![igamc(1.0, chi2 / 2.0)])
}
