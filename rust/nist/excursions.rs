//! 2.14 Random excursions and 2.15 random excursions variant: cycles of the ±1 random walk.

use super::special::{erfc, igamc};
use super::NistError;

/// The document's rule: with fewer than max(0.005 sqrt(n), 500) cycles the test does not apply.
#[must_use]
pub fn default_min_cycles(n: usize) -> usize {
    ((0.005 * (n as f64).sqrt()).ceil() as usize).max(500)
}

/// The walk's cycles: visits to states -9..=9 per cycle are counted by `visit`; returns J.
fn walk_cycles(bits: &[u8], mut visit: impl FnMut(i64)) -> usize {
    let mut s = 0i64;
    let mut cycles = 0usize;
    for &b in bits {
        s += 2 * i64::from(b) - 1;
        if s == 0 {
            cycles += 1;
        }
        visit(s);
    }
    if s != 0 {
        // The walk is closed by the appended 0.
        cycles += 1;
        visit(0);
    }
    cycles
}

/// π_k(x), k = 0..=5 (5 meaning "5 or more"), section 3.14.
fn excursion_probabilities(x: i64) -> [f64; 6] {
    let a = 1.0 / (2.0 * x.abs() as f64);
    let mut pi = [0.0; 6];
    pi[0] = 1.0 - a;
    for (k, p) in pi.iter_mut().enumerate().take(5).skip(1) {
        *p = a * a * (1.0 - a).powi(k as i32 - 1);
    }
    pi[5] = a * (1.0 - a).powi(4);
    pi
}

/// 2.14 Random excursions: p-values for x = -4..-1, 1..4, or NaN for all eight when the walk
/// has fewer than `min_cycles` cycles (test not applicable).
pub fn random_excursions(bits: &[u8], min_cycles: usize) -> Result<Vec<f64>, NistError> {
    if bits.is_empty() {
        return Err(NistError::TooShort {
            test: "random excursions",
            n: 0,
            need: 1,
        });
    }
    // visits[state][cycle-count-bucket]
    let mut nu = [[0usize; 6]; 8];
    let mut current = [0usize; 8];
    let j = walk_cycles(bits, |s| {
        if s == 0 {
            for (state, c) in current.iter_mut().enumerate() {
                nu[state][(*c).min(5)] += 1;
                *c = 0;
            }
        } else if (-4..=4).contains(&s) {
            let idx = if s < 0 {
                (s + 4) as usize
            } else {
                (s + 3) as usize
            };
            current[idx] += 1;
        }
    });
    if j < min_cycles.max(1) {
        return Ok(vec![f64::NAN; 8]);
    }
    let jf = j as f64;
    Ok([-4i64, -3, -2, -1, 1, 2, 3, 4]
        .iter()
        .enumerate()
        .map(|(idx, &x)| {
            let pi = excursion_probabilities(x);
            let chi2: f64 = (0..6)
                .map(|k| (nu[idx][k] as f64 - jf * pi[k]).powi(2) / (jf * pi[k]))
                .sum();
            igamc(2.5, chi2 / 2.0)
        })
        .collect())
}

/// 2.15 Random excursions variant: p-values for x = -9..-1, 1..9 (NaN when not applicable).
pub fn random_excursions_variant(bits: &[u8], min_cycles: usize) -> Result<Vec<f64>, NistError> {
    if bits.is_empty() {
        return Err(NistError::TooShort {
            test: "random excursions variant",
            n: 0,
            need: 1,
        });
    }
    let mut xi = [0usize; 19];
    let j = walk_cycles(bits, |s| {
        if (-9..=9).contains(&s) {
            xi[(s + 9) as usize] += 1;
        }
    });
    if j < min_cycles.max(1) {
        return Ok(vec![f64::NAN; 18]);
    }
    let jf = j as f64;
    Ok((-9i64..=9)
        .filter(|&x| x != 0)
        .map(|x| {
            let count = xi[(x + 9) as usize] as f64;
            erfc((count - jf).abs() / (2.0 * jf * (4.0 * x.abs() as f64 - 2.0)).sqrt())
        })
        .collect())
}
