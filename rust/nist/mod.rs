//! NIST SP 800-22 rev1a: the fifteen statistical tests of random bit sequences, with the
//! document's default parameters (all settable), run in parallel over sequences.
//!
//! Sequences are slices of bits, one `u8` (0 or 1) per bit. `Battery` validates the parameters
//! for a sequence length once, then maps each sequence to its row of p-values; NaN marks a
//! p-value of a test that does not apply to that sequence (random excursions with too few
//! cycles).

// Docs quote the document's formulas (φ(m), π_k(x), X_k) as written there; constants are
// printed with the document's digits; exponents and block counts are small (< 2^20).
#![allow(
    clippy::doc_markdown,
    clippy::unreadable_literal,
    clippy::cast_possible_wrap
)]

pub mod entropy;
pub mod excursions;
pub mod fft;
pub mod frequency;
pub mod linear_complexity;
pub mod rank;
pub mod special;
pub mod spectral;
pub mod templates;
pub mod universal;

use rayon::prelude::*;
use std::fmt;

/// Errors of the NIST battery; each names the test and the offending value.
#[derive(Debug, Clone, PartialEq)]
pub enum NistError {
    /// A parameter the document does not allow.
    Parameter(String),
    /// The sequence is shorter than the test needs.
    TooShort {
        test: &'static str,
        n: usize,
        need: usize,
    },
    /// Input data that cannot be split into sequences.
    Input(String),
    /// An unknown test name.
    UnknownTest(String),
}

impl fmt::Display for NistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parameter(msg) | Self::Input(msg) => f.write_str(msg),
            Self::TooShort { test, n, need } => write!(
                f,
                "{test}: a sequence of {n} bits is too short; the test needs at least {need}"
            ),
            Self::UnknownTest(name) => write!(
                f,
                "unknown test {name:?}; expected one of: {}",
                TestKind::ALL.map(TestKind::name).join(", ")
            ),
        }
    }
}

impl std::error::Error for NistError {}

/// N = n / M whole blocks of `size` bits; none is an error naming the test.
pub(crate) fn whole_blocks(test: &'static str, n: usize, size: usize) -> Result<usize, NistError> {
    match n / size {
        0 => Err(NistError::TooShort {
            test,
            n,
            need: size,
        }),
        blocks => Ok(blocks),
    }
}

/// P-value of the chi-square goodness of fit of class counts to probabilities `pi` over
/// N = sum(counts) blocks, with len - 1 degrees of freedom: igamc((len-1)/2, χ²/2).
pub(crate) fn chi_square_p(counts: &[usize], pi: &[f64]) -> f64 {
    let nb = counts.iter().sum::<usize>() as f64;
    let chi2: f64 = counts
        .iter()
        .zip(pi)
        .map(|(&v, &p)| (v as f64 - nb * p).powi(2) / (nb * p))
        .sum();
    special::igamc((pi.len() - 1) as f64 / 2.0, chi2 / 2.0)
}

/// The fifteen tests, in the order of the NIST tool's final analysis report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestKind {
    Frequency,
    BlockFrequency,
    CumulativeSums,
    Runs,
    LongestRun,
    Rank,
    Fft,
    NonOverlappingTemplate,
    OverlappingTemplate,
    Universal,
    ApproximateEntropy,
    RandomExcursions,
    RandomExcursionsVariant,
    Serial,
    LinearComplexity,
}

impl TestKind {
    pub const ALL: [TestKind; 15] = [
        Self::Frequency,
        Self::BlockFrequency,
        Self::CumulativeSums,
        Self::Runs,
        Self::LongestRun,
        Self::Rank,
        Self::Fft,
        Self::NonOverlappingTemplate,
        Self::OverlappingTemplate,
        Self::Universal,
        Self::ApproximateEntropy,
        Self::RandomExcursions,
        Self::RandomExcursionsVariant,
        Self::Serial,
        Self::LinearComplexity,
    ];

    /// The name the NIST tool prints in its final analysis report.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Frequency => "Frequency",
            Self::BlockFrequency => "BlockFrequency",
            Self::CumulativeSums => "CumulativeSums",
            Self::Runs => "Runs",
            Self::LongestRun => "LongestRun",
            Self::Rank => "Rank",
            Self::Fft => "FFT",
            Self::NonOverlappingTemplate => "NonOverlappingTemplate",
            Self::OverlappingTemplate => "OverlappingTemplate",
            Self::Universal => "Universal",
            Self::ApproximateEntropy => "ApproximateEntropy",
            Self::RandomExcursions => "RandomExcursions",
            Self::RandomExcursionsVariant => "RandomExcursionsVariant",
            Self::Serial => "Serial",
            Self::LinearComplexity => "LinearComplexity",
        }
    }

    pub fn from_name(name: &str) -> Result<Self, NistError> {
        Self::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| NistError::UnknownTest(name.to_owned()))
    }
}

/// Every parameter of the battery; `Default` is the document's (and the NIST tool's) choice.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// 2.2 block length M.
    pub block_frequency_m: usize,
    /// 2.4 block length M (8, 128 or 10000; 0 = by n as in the document).
    pub longest_run_m: usize,
    /// Use table 2.4's rounded class probabilities instead of the exact ones.
    pub longest_run_rounded: bool,
    /// 2.5 matrix rows M and columns Q.
    pub rank_rows: usize,
    pub rank_cols: usize,
    /// 2.7 template length m, number of blocks N, templates (None = all aperiodic of length m).
    pub non_overlapping_m: usize,
    pub non_overlapping_blocks: usize,
    pub non_overlapping_templates: Option<Vec<u32>>,
    /// 2.8 template length m, template (None = m ones), block length M, classes K.
    pub overlapping_m: usize,
    pub overlapping_template: Option<u32>,
    pub overlapping_block: usize,
    pub overlapping_k: usize,
    /// Use the document's approximate class probabilities instead of the exact ones.
    pub overlapping_approximate: bool,
    /// 2.9 block length L and initialisation blocks Q (0 = by n as in the document).
    pub universal_l: usize,
    pub universal_q: usize,
    /// 2.10 block length M.
    pub linear_complexity_m: usize,
    /// Use the NIST tool's misprinted π_0 = 0.01047 (to reproduce its output) instead of 1/96.
    pub linear_complexity_tool_pi: bool,
    /// 2.11 and 2.12 block lengths m.
    pub serial_m: usize,
    pub approximate_entropy_m: usize,
    /// 2.14/2.15 minimum number of cycles (None = max(0.005 sqrt(n), 500) as the document).
    pub min_cycles: Option<usize>,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            block_frequency_m: 128,
            longest_run_m: 0,
            longest_run_rounded: false,
            rank_rows: 32,
            rank_cols: 32,
            non_overlapping_m: 9,
            non_overlapping_blocks: 8,
            non_overlapping_templates: None,
            overlapping_m: 9,
            overlapping_template: None,
            overlapping_block: 1032,
            overlapping_k: 5,
            overlapping_approximate: false,
            universal_l: 0,
            universal_q: 0,
            linear_complexity_m: 500,
            linear_complexity_tool_pi: false,
            serial_m: 16,
            approximate_entropy_m: 10,
            min_cycles: None,
        }
    }
}

impl Params {
    /// The values the tests use on n-bit sequences where a parameter is chosen from n
    /// (longest-run M, universal L and Q, the minimum number of cycles): (name, value), with
    /// None where the test does not apply at n.
    #[must_use]
    pub fn resolved(&self, n: usize) -> Vec<(&'static str, Option<usize>)> {
        let longest = if self.longest_run_m == 0 {
            frequency::longest_run_default_m(n).ok()
        } else {
            Some(self.longest_run_m)
        };
        let l = if self.universal_l == 0 {
            universal::default_l(n).ok()
        } else {
            Some(self.universal_l)
        };
        let q = match (self.universal_q, l) {
            (0, Some(l)) if l < usize::BITS as usize - 4 => Some(10 << l),
            (0, _) => None,
            (q, _) => Some(q),
        };
        let cycles = self
            .min_cycles
            .unwrap_or_else(|| excursions::default_min_cycles(n));
        vec![
            ("longest_run_m", longest),
            ("universal_l", l),
            ("universal_q", q),
            ("min_cycles", Some(cycles)),
        ]
    }
}

fn template_label(value: u32, m: usize) -> String {
    (0..m)
        .rev()
        .map(|i| if value >> i & 1 == 1 { '1' } else { '0' })
        .collect()
}

/// The tests to run on sequences of one length, with their validated parameters.
pub struct Battery {
    tests: Vec<TestKind>,
    params: Params,
    n: usize,
    templates: Vec<u32>,
    overlapping_template: u32,
    min_cycles: usize,
    fft: Option<spectral::DftPlan>,
    columns: Vec<(TestKind, String)>,
}

impl Battery {
    /// Validate `params` for sequences of `n` bits: a test whose parameters the document
    /// forbids, or that needs more bits than n, is an error naming it.
    pub fn new(tests: &[TestKind], params: Params, n: usize) -> Result<Self, NistError> {
        if n == 0 {
            return Err(NistError::Input(
                "sequence length must be at least 1 bit".into(),
            ));
        }
        if tests.is_empty() {
            return Err(NistError::Parameter("no test selected".into()));
        }
        let templates = match &params.non_overlapping_templates {
            Some(list) => {
                let m = params.non_overlapping_m;
                if !(1..=21).contains(&m) || list.is_empty() || list.iter().any(|&t| t >> m != 0) {
                    return Err(NistError::Parameter(format!(
                        "non-overlapping template: templates must be non-empty values below 2^m (m={m})"
                    )));
                }
                list.clone()
            }
            None if tests.contains(&TestKind::NonOverlappingTemplate) => {
                templates::aperiodic_templates(params.non_overlapping_m)?
            }
            None => Vec::new(),
        };
        let om = params.overlapping_m;
        if !(1..=32).contains(&om) {
            return Err(NistError::Parameter(format!(
                "overlapping template: m={om}; need 1..=32"
            )));
        }
        let ones = if om == 32 { u32::MAX } else { (1u32 << om) - 1 };
        let overlapping_template = params.overlapping_template.unwrap_or(ones);
        if overlapping_template & !ones != 0 {
            return Err(NistError::Parameter(format!(
                "overlapping template {overlapping_template:#b} is longer than m={om} bits"
            )));
        }
        let min_cycles = params
            .min_cycles
            .unwrap_or_else(|| excursions::default_min_cycles(n));
        let fft = tests
            .contains(&TestKind::Fft)
            .then(|| spectral::DftPlan::new(n));
        let mut battery = Self {
            tests: Vec::new(),
            params,
            n,
            templates,
            overlapping_template,
            min_cycles,
            fft,
            columns: Vec::new(),
        };
        // Parameter checks are those of the tests themselves: run each once on zeros.
        let zeros = vec![0u8; n];
        for &t in tests {
            if battery.tests.contains(&t) {
                continue;
            }
            let count = battery.run_test(t, &zeros)?.len();
            let labels = battery.labels(t);
            debug_assert_eq!(labels.len(), count);
            battery.columns.extend(labels.into_iter().map(|l| (t, l)));
            battery.tests.push(t);
        }
        Ok(battery)
    }

    fn labels(&self, t: TestKind) -> Vec<String> {
        match t {
            TestKind::CumulativeSums => vec!["forward".into(), "backward".into()],
            TestKind::Serial => vec!["1".into(), "2".into()],
            TestKind::NonOverlappingTemplate => self
                .templates
                .iter()
                .map(|&v| template_label(v, self.params.non_overlapping_m))
                .collect(),
            TestKind::RandomExcursions => [-4, -3, -2, -1, 1, 2, 3, 4]
                .iter()
                .map(|x| format!("x = {x:+}"))
                .collect(),
            TestKind::RandomExcursionsVariant => (-9i32..=9)
                .filter(|&x| x != 0)
                .map(|x| format!("x = {x:+}"))
                .collect(),
            _ => vec![String::new()],
        }
    }

    /// The p-value columns: (test, label) per column, in row order.
    #[must_use]
    pub fn columns(&self) -> &[(TestKind, String)] {
        &self.columns
    }

    #[must_use]
    pub fn sequence_bits(&self) -> usize {
        self.n
    }

    #[must_use]
    pub fn min_cycles(&self) -> usize {
        self.min_cycles
    }

    fn run_test(&self, t: TestKind, bits: &[u8]) -> Result<Vec<f64>, NistError> {
        let p = &self.params;
        match t {
            TestKind::Frequency => frequency::frequency(bits),
            TestKind::BlockFrequency => frequency::block_frequency(bits, p.block_frequency_m),
            TestKind::CumulativeSums => frequency::cumulative_sums(bits),
            TestKind::Runs => frequency::runs(bits),
            TestKind::LongestRun => {
                frequency::longest_run(bits, p.longest_run_m, p.longest_run_rounded)
            }
            TestKind::Rank => rank::binary_matrix_rank(bits, p.rank_rows, p.rank_cols),
            TestKind::Fft => spectral::dft(bits, self.fft.as_ref().expect("planned in new")),
            TestKind::NonOverlappingTemplate => templates::non_overlapping(
                bits,
                p.non_overlapping_m,
                p.non_overlapping_blocks,
                &self.templates,
            ),
            TestKind::OverlappingTemplate => templates::overlapping(
                bits,
                self.overlapping_template,
                p.overlapping_m,
                p.overlapping_block,
                p.overlapping_k,
                p.overlapping_approximate,
            ),
            TestKind::Universal => universal::universal(bits, p.universal_l, p.universal_q),
            TestKind::ApproximateEntropy => {
                entropy::approximate_entropy(bits, p.approximate_entropy_m)
            }
            TestKind::RandomExcursions => excursions::random_excursions(bits, self.min_cycles),
            TestKind::RandomExcursionsVariant => {
                excursions::random_excursions_variant(bits, self.min_cycles)
            }
            TestKind::Serial => entropy::serial(bits, p.serial_m),
            TestKind::LinearComplexity if p.linear_complexity_tool_pi => {
                linear_complexity::linear_complexity_with(
                    bits,
                    p.linear_complexity_m,
                    &linear_complexity::PI_NIST_TOOL,
                )
            }
            TestKind::LinearComplexity => {
                linear_complexity::linear_complexity(bits, p.linear_complexity_m)
            }
        }
    }

    /// All p-values of one sequence of exactly n bits, in column order.
    pub fn run(&self, bits: &[u8]) -> Result<Vec<f64>, NistError> {
        if bits.len() != self.n {
            return Err(NistError::Input(format!(
                "sequence has {} bits, the battery was prepared for {}",
                bits.len(),
                self.n
            )));
        }
        let mut row = Vec::with_capacity(self.columns.len());
        for &t in &self.tests {
            row.extend(self.run_test(t, bits)?);
        }
        Ok(row)
    }

    /// p-values of `sequences` consecutive n-bit sequences of a packed bit stream (most
    /// significant bit of each byte first, as the NIST tool reads binary files), in parallel:
    /// row-major, one row per sequence.
    pub fn run_packed(&self, data: &[u8], sequences: usize) -> Result<Vec<f64>, NistError> {
        let available = data.len() as u128 * 8;
        let needed = sequences as u128 * self.n as u128;
        if sequences == 0 || needed > available {
            return Err(NistError::Input(format!(
                "{sequences} sequences of {} bits need {needed} bits; the input has {available}",
                self.n
            )));
        }
        let rows: Result<Vec<Vec<f64>>, NistError> = (0..sequences)
            .into_par_iter()
            .map(|i| self.run(&unpack_bits(data, i * self.n, self.n)))
            .collect();
        Ok(rows?.concat())
    }
}

/// `count` bits starting at bit `offset` of a packed stream, one `u8` (0/1) per bit.
#[must_use]
pub fn unpack_bits(data: &[u8], offset: usize, count: usize) -> Vec<u8> {
    let mut bits = Vec::with_capacity(count);
    let mut pos = offset;
    // Leading partial byte.
    while !pos.is_multiple_of(8) && bits.len() < count {
        bits.push((data[pos / 8] >> (7 - pos % 8)) & 1);
        pos += 1;
    }
    while count - bits.len() >= 8 {
        let byte = data[pos / 8];
        bits.extend((0..8).rev().map(|k| (byte >> k) & 1));
        pos += 8;
    }
    while bits.len() < count {
        bits.push((data[pos / 8] >> (7 - pos % 8)) & 1);
        pos += 1;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(s: &str) -> Vec<u8> {
        s.bytes().map(|c| c - b'0').collect()
    }

    const EPS100: &str = "1100100100001111110110101010001000100001011010001100001000110100110001001100011001100010100010111000";

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 5e-7, "got {got}, want {want}");
    }

    #[test]
    fn worked_examples_of_section_2() {
        close(
            frequency::frequency(&bits("1011010101")).unwrap()[0],
            0.527_089,
        );
        close(frequency::frequency(&bits(EPS100)).unwrap()[0], 0.109_599);
        close(
            frequency::block_frequency(&bits("0110011010"), 3).unwrap()[0],
            0.801_252,
        );
        close(
            frequency::block_frequency(&bits(EPS100), 10).unwrap()[0],
            0.706_438,
        );
        close(frequency::runs(&bits("1001101011")).unwrap()[0], 0.147_232);
        close(frequency::runs(&bits(EPS100)).unwrap()[0], 0.500_798);
        let cusum = frequency::cumulative_sums(&bits(EPS100)).unwrap();
        close(cusum[0], 0.219_194);
        close(cusum[1], 0.114_866);
    }

    #[test]
    fn unpack_is_msb_first() {
        assert_eq!(unpack_bits(&[0b1010_0000, 0xFF], 1, 9), bits("010000011"));
        assert_eq!(unpack_bits(&[0x80], 0, 8), bits("10000000"));
    }

    #[test]
    fn battery_validates() {
        let err = Battery::new(&[TestKind::Universal], Params::default(), 1000).err();
        assert!(matches!(err, Some(NistError::TooShort { .. })));
        let b = Battery::new(&TestKind::ALL[..5], Params::default(), 1000).unwrap();
        assert_eq!(b.columns().len(), 6);
    }
}
