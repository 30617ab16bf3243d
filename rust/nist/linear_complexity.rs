//! 2.10 Linear complexity: Berlekamp-Massey over GF(2) on bit-packed blocks.

use super::{chi_square_p, whole_blocks, NistError};

/// Linear complexity of `block` (bits 0/1) by Berlekamp-Massey, with the connection
/// polynomials packed 64 coefficients to a word and the block reversed and packed so that each
/// discrepancy is an AND + popcount.
#[must_use]
pub fn berlekamp_massey(block: &[u8]) -> usize {
    let n = block.len();
    let words = n / 64 + 2;
    // rev bit i = block[n - 1 - i]
    let mut rev = vec![0u64; words + 1];
    for (i, &b) in block.iter().rev().enumerate() {
        rev[i / 64] |= u64::from(b) << (i % 64);
    }
    let mut c = vec![0u64; words];
    let mut b = vec![0u64; words];
    let mut t = vec![0u64; words];
    c[0] = 1;
    b[0] = 1;
    let (mut l, mut m) = (0usize, -1i64);
    for step in 0..n {
        // d = sum_{i=0..=L} c_i s_{step-i}; s_{step-i} = rev bit (n-1-step+i).
        let base = n - 1 - step;
        let mut acc = 0u64;
        for (w, cw) in c.iter().enumerate().take(l / 64 + 1) {
            let pos = base + 64 * w;
            let (q, r) = (pos / 64, pos % 64);
            let lo = rev[q] >> r;
            let hi = if r == 0 { 0 } else { rev[q + 1] << (64 - r) };
            let mut word = lo | hi;
            if w == l / 64 {
                let keep = l % 64 + 1;
                if keep < 64 {
                    word &= (1u64 << keep) - 1;
                }
            }
            acc ^= cw & word;
        }
        if acc.count_ones() % 2 == 1 {
            let shift = (step as i64 - m) as usize;
            // Degrees stay below step + 2: only those words change.
            let used = ((step + 2) / 64 + 1).min(words);
            if l <= step / 2 {
                t[..used].copy_from_slice(&c[..used]);
                xor_shifted(&mut c[..used], &b, shift);
                l = step + 1 - l;
                m = step as i64;
                b[..used].copy_from_slice(&t[..used]);
            } else {
                xor_shifted(&mut c[..used], &b, shift);
            }
        }
    }
    l
}

/// c ^= b << shift (as polynomials), truncated to c's length.
fn xor_shifted(c: &mut [u64], b: &[u64], shift: usize) {
    let (q, r) = (shift / 64, shift % 64);
    for i in (q..c.len()).rev() {
        let src = i - q;
        let mut v = b[src] << r;
        if r != 0 && src > 0 {
            v |= b[src - 1] >> (64 - r);
        }
        c[i] ^= v;
    }
}

/// Class probabilities π_0..π_6 of T (section 3.10): 1/96, 1/32, 1/8, 1/2, 1/4, 1/16, 1/48,
/// printed as 0.010417 ... 0.020833 in section 2.10.4.
const PI: [f64; 7] = [
    1.0 / 96.0,
    1.0 / 32.0,
    1.0 / 8.0,
    1.0 / 2.0,
    1.0 / 4.0,
    1.0 / 16.0,
    1.0 / 48.0,
];

/// The NIST tool's table (sts-2.1.2 linearComplexity.c), with the misprint π_0 = 0.01047 for
/// 0.010417; the document's Appendix B values were computed with it.
pub const PI_NIST_TOOL: [f64; 7] = [0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833];

/// 2.10 Linear complexity with block length M (document: 500 <= M <= 5000), K = 6 classes.
pub fn linear_complexity(bits: &[u8], m: usize) -> Result<Vec<f64>, NistError> {
    linear_complexity_with(bits, m, &PI)
}

/// 2.10 with explicit class probabilities (the NIST tool's π_0 = 0.01047 reproduces its output).
pub fn linear_complexity_with(bits: &[u8], m: usize, pi: &[f64; 7]) -> Result<Vec<f64>, NistError> {
    if m < 2 {
        return Err(NistError::Parameter(format!(
            "linear complexity: M={m}; need M >= 2 (document: 500..=5000)"
        )));
    }
    whole_blocks("linear complexity", bits.len(), m)?;
    let mf = m as f64;
    let sign = if m.is_multiple_of(2) { 1.0 } else { -1.0 }; // (-1)^M
    let mu = mf / 2.0 + (9.0 - sign) / 36.0 - (mf / 3.0 + 2.0 / 9.0) / 2f64.powf(mf);
    let mut nu = [0usize; 7];
    for block in bits.chunks_exact(m) {
        let l = berlekamp_massey(block) as f64;
        let t = sign * (l - mu) + 2.0 / 9.0;
        let class = if t <= -2.5 {
            0
        } else if t <= -1.5 {
            1
        } else if t <= -0.5 {
            2
        } else if t <= 0.5 {
            3
        } else if t <= 1.5 {
            4
        } else if t <= 2.5 {
            5
        } else {
            6
        };
        nu[class] += 1;
    }
    Ok(vec![chi_square_p(&nu, pi)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_bm(s: &[u8]) -> usize {
        let n = s.len();
        let (mut c, mut b) = (vec![0u8; n + 1], vec![0u8; n + 1]);
        c[0] = 1;
        b[0] = 1;
        let (mut l, mut m) = (0usize, -1i64);
        for step in 0..n {
            let mut d = s[step];
            for i in 1..=l {
                d ^= c[i] & s[step - i];
            }
            if d == 1 {
                let t = c.clone();
                let shift = (step as i64 - m) as usize;
                for j in 0..=n - shift {
                    c[j + shift] ^= b[j];
                }
                if l <= step / 2 {
                    l = step + 1 - l;
                    m = step as i64;
                    b = t;
                }
            }
        }
        l
    }

    #[test]
    fn document_example_2_10_4() {
        // ε = 1101011110001: L = 4.
        let s: Vec<u8> = "1101011110001".bytes().map(|c| c - b'0').collect();
        assert_eq!(berlekamp_massey(&s), 4);
    }

    #[test]
    fn packed_matches_naive() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for len in [1, 2, 63, 64, 65, 127, 128, 200, 500, 1000] {
            for _ in 0..5 {
                let s: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x & 1) as u8
                    })
                    .collect();
                assert_eq!(berlekamp_massey(&s), naive_bm(&s), "len {len}");
            }
        }
        // An LFSR sequence of degree 5 has complexity 5.
        let mut s = vec![1u8, 0, 0, 1, 0];
        for i in 5..300 {
            let v = s[i - 5] ^ s[i - 3];
            s.push(v);
        }
        assert_eq!(berlekamp_massey(&s), 5);
    }
}
