//! 2.9 Maurer's "universal statistical" test.

use super::special::erfc;
use super::NistError;

/// Expected value and variance of f_n for L = 1..=16 (table of section 2.9.4 step 5).
const EXPECTED: [(f64, f64); 16] = [
    (0.732_649_5, 0.690),
    (1.537_438_3, 1.338),
    (2.401_606_8, 1.901),
    (3.311_224_7, 2.358),
    (4.253_426_6, 2.705),
    (5.217_705_2, 2.954),
    (6.196_250_7, 3.125),
    (7.183_665_6, 3.238),
    (8.176_424_8, 3.311),
    (9.172_324_3, 3.356),
    (10.170_032, 3.384),
    (11.168_765, 3.401),
    (12.168_070, 3.410),
    (13.167_693, 3.416),
    (14.167_488, 3.419),
    (15.167_379, 3.421),
];

/// The document's block length L for n bits (table of section 2.9.7), from 387,840 bits (L = 6).
pub fn default_l(n: usize) -> Result<usize, NistError> {
    const LIMITS: [(usize, usize); 11] = [
        (1_059_061_760, 16),
        (496_435_200, 15),
        (231_669_760, 14),
        (107_560_960, 13),
        (49_643_520, 12),
        (22_753_280, 11),
        (10_342_400, 10),
        (4_654_080, 9),
        (2_068_480, 8),
        (904_960, 7),
        (387_840, 6),
    ];
    LIMITS
        .iter()
        .find(|(limit, _)| n >= *limit)
        .map(|&(_, l)| l)
        .ok_or(NistError::TooShort {
            test: "universal",
            n,
            need: 387_840,
        })
}

/// 2.9 Universal test with block length L (0: the document's L for n) and Q initialisation
/// blocks (0: 10 * 2^L). The document requires Q >= 10 * 2^L.
pub fn universal(bits: &[u8], l: usize, q: usize) -> Result<Vec<f64>, NistError> {
    let l = if l == 0 { default_l(bits.len())? } else { l };
    if !(1..=16).contains(&l) {
        return Err(NistError::Parameter(format!(
            "universal: L={l}; the table covers 1..=16"
        )));
    }
    let q = if q == 0 { 10 << l } else { q };
    let blocks = bits.len() / l;
    if blocks <= q {
        return Err(NistError::TooShort {
            test: "universal",
            n: bits.len(),
            need: (q + 1) * l,
        });
    }
    let k = blocks - q;
    let mut last = vec![0usize; 1 << l];
    let mut sum = 0.0;
    for (i, block) in bits.chunks_exact(l).take(blocks).enumerate() {
        let v = block.iter().fold(0usize, |acc, &b| (acc << 1) | b as usize);
        let index = i + 1;
        if index > q {
            sum += ((index - last[v]) as f64).log2();
        }
        last[v] = index;
    }
    let kf = k as f64;
    let fn_ = sum / kf;
    let (expected, variance) = EXPECTED[l - 1];
    let lf = l as f64;
    let c = 0.7 - 0.8 / lf + (4.0 + 32.0 / lf) * kf.powf(-3.0 / lf) / 15.0;
    let sigma = c * (variance / kf).sqrt();
    Ok(vec![erfc(
        (fn_ - expected).abs() / (std::f64::consts::SQRT_2 * sigma),
    )])
}
