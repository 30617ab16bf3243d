//! A discrete Fourier transform for any length, in f64: mixed-radix Cooley-Tukey over the
//! factors 4, 2, 3, 5 and other small primes, Bluestein's chirp-z for lengths with a large prime
//! factor, and a half-length transform for real input of even length. `CrateRealFft` is the
//! same real transform through the Debian-packaged realfft/rustfft crates (SIMD butterflies,
//! planned per length); the spectral test uses it where the result provably equals this one's.

use std::f64::consts::PI;
use std::sync::{Arc, Mutex, PoisonError};

use realfft::RealToComplex;

/// A complex number (re, im).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    #[must_use]
    pub const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }
    #[inline]
    fn add(self, o: Self) -> Self {
        Self::new(self.re + o.re, self.im + o.im)
    }
    #[inline]
    fn sub(self, o: Self) -> Self {
        Self::new(self.re - o.re, self.im - o.im)
    }
    #[inline]
    fn mul(self, o: Self) -> Self {
        Self::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
    #[inline]
    fn conj(self) -> Self {
        Self::new(self.re, -self.im)
    }
    #[inline]
    fn scale(self, s: f64) -> Self {
        Self::new(self.re * s, self.im * s)
    }
    /// |z|, without overflow.
    #[must_use]
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
}

/// exp(-2πi k / n), with k reduced mod n first so large k keeps full precision.
fn root(k: u64, n: u64) -> Complex {
    let angle = -2.0 * PI * ((k % n) as f64) / (n as f64);
    Complex::new(angle.cos(), angle.sin())
}

/// Largest prime handled by direct butterflies; larger primes go through Bluestein.
const MAX_DIRECT_PRIME: usize = 61;

fn factorize(mut n: usize) -> Option<Vec<usize>> {
    let mut factors = Vec::new();
    while n.is_multiple_of(4) {
        factors.push(4);
        n /= 4;
    }
    let mut p = 2;
    while n > 1 {
        while n.is_multiple_of(p) {
            factors.push(p);
            n /= p;
        }
        p += 1;
        if p > MAX_DIRECT_PRIME && n > 1 {
            return None;
        }
    }
    Some(factors)
}

/// A prepared forward transform of one length (immutable, shareable between threads).
pub struct Fft {
    n: usize,
    kind: Kind,
}

enum Kind {
    Mixed {
        factors: Vec<usize>,
        twiddles: Vec<Complex>,
        /// Input index of each leaf position: the recursion's reads, done once as a gather.
        order: Vec<u32>,
    },
    Bluestein {
        chirp: Vec<Complex>,
        kernel_hat: Vec<Complex>,
        inner: Box<Fft>,
    },
}

impl Fft {
    /// Plan a forward DFT of length `n` (n >= 1): X_k = sum_j x_j exp(-2πi jk/n).
    #[must_use]
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "FFT length must be positive");
        if let Some(factors) = factorize(n) {
            let twiddles = (0..n as u64).map(|k| root(k, n as u64)).collect();
            let mut order = vec![0u32; n];
            if n > 1 {
                leaf_order(&mut order, 0, 1, &factors);
            }
            return Self {
                n,
                kind: Kind::Mixed {
                    factors,
                    twiddles,
                    order,
                },
            };
        }
        // Bluestein: X_k = conj(w_k) sum_j (x_j conj(w_j)) w_{k-j}, w_j = exp(πi j^2 / n).
        let size = (2 * n - 1).next_power_of_two();
        let two_n = 2 * n as u64;
        let chirp: Vec<Complex> = (0..n as u64)
            .map(|j| root((j * j) % two_n, two_n).conj())
            .collect();
        let mut kernel = vec![Complex::default(); size];
        kernel[0] = chirp[0];
        for j in 1..n {
            kernel[j] = chirp[j];
            kernel[size - j] = chirp[j];
        }
        let inner = Box::new(Fft::new(size));
        let kernel_hat = inner.forward(&kernel);
        Self {
            n,
            kind: Kind::Bluestein {
                chirp,
                kernel_hat,
                inner,
            },
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.n
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Mixed-radix plans only: the input index that must sit at each position before
    /// `forward_in_order` (callers can build the input directly in this order).
    #[must_use]
    pub fn input_order(&self) -> Option<&[u32]> {
        match &self.kind {
            Kind::Mixed { order, .. } => Some(order),
            Kind::Bluestein { .. } => None,
        }
    }

    /// Transform in place data already arranged by `input_order`.
    pub fn forward_in_order(&self, data: &mut [Complex]) {
        let Kind::Mixed {
            factors, twiddles, ..
        } = &self.kind
        else {
            panic!("forward_in_order needs a mixed-radix plan");
        };
        assert_eq!(data.len(), self.n);
        if self.n > 1 {
            let mut scratch = Vec::new();
            work(data, 1, factors, twiddles, self.n, &mut scratch);
        }
    }

    /// The forward transform of `input` (length n).
    #[must_use]
    pub fn forward(&self, input: &[Complex]) -> Vec<Complex> {
        assert_eq!(input.len(), self.n, "input length differs from the plan");
        if self.n == 1 {
            return input.to_vec();
        }
        match &self.kind {
            Kind::Mixed { order, .. } => {
                let mut out: Vec<Complex> = order.iter().map(|&i| input[i as usize]).collect();
                self.forward_in_order(&mut out);
                out
            }
            Kind::Bluestein {
                chirp,
                kernel_hat,
                inner,
            } => {
                let size = inner.len();
                let mut a = vec![Complex::default(); size];
                for j in 0..self.n {
                    a[j] = input[j].mul(chirp[j].conj());
                }
                let a_hat = inner.forward(&a);
                // Inverse transform by conjugation: ifft(x) = conj(fft(conj(x))) / size.
                let prod: Vec<Complex> = a_hat
                    .iter()
                    .zip(kernel_hat)
                    .map(|(x, k)| x.mul(*k).conj())
                    .collect();
                let conv = inner.forward(&prod);
                let s = 1.0 / size as f64;
                (0..self.n)
                    .map(|k| conv[k].conj().scale(s).mul(chirp[k].conj()))
                    .collect()
            }
        }
    }
}

/// The input index read at each position by the decimation-in-time recursion below.
fn leaf_order(out: &mut [u32], offset: usize, stride: usize, factors: &[usize]) {
    let p = factors[0];
    let m = out.len() / p;
    if m == 1 {
        for (j, o) in out.iter_mut().enumerate() {
            *o = (offset + j * stride) as u32;
        }
    } else {
        for j in 0..p {
            leaf_order(
                &mut out[j * m..(j + 1) * m],
                offset + j * stride,
                stride * p,
                &factors[1..],
            );
        }
    }
}

/// Recursive decimation in time (the structure of kissfft), in place on data already gathered
/// in `leaf_order`: `out` becomes the DFT of its sub-sequence.
#[allow(clippy::too_many_lines)] // one match arm per specialised butterfly
fn work(
    out: &mut [Complex],
    stride: usize,
    factors: &[usize],
    tw: &[Complex],
    n_total: usize,
    scratch: &mut Vec<Complex>,
) {
    let p = factors[0];
    let m = out.len() / p;
    if m > 1 {
        for j in 0..p {
            work(
                &mut out[j * m..(j + 1) * m],
                stride * p,
                &factors[1..],
                tw,
                n_total,
                scratch,
            );
        }
    }
    // Twiddle step between the sub-transforms: root index stride * q * k.
    match p {
        2 => {
            for k in 0..m {
                let t = out[k + m].mul(tw[stride * k]);
                let a = out[k];
                out[k] = a.add(t);
                out[k + m] = a.sub(t);
            }
        }
        4 => {
            for k in 0..m {
                let a0 = out[k];
                let a1 = out[k + m].mul(tw[stride * k]);
                let a2 = out[k + 2 * m].mul(tw[2 * stride * k]);
                let a3 = out[k + 3 * m].mul(tw[3 * stride * k]);
                let s02 = a0.add(a2);
                let d02 = a0.sub(a2);
                let s13 = a1.add(a3);
                let d13 = a1.sub(a3);
                // -i * d13
                let rot = Complex::new(d13.im, -d13.re);
                out[k] = s02.add(s13);
                out[k + m] = d02.add(rot);
                out[k + 2 * m] = s02.sub(s13);
                out[k + 3 * m] = d02.sub(rot);
            }
        }
        5 => {
            let ya = tw[n_total / 5];
            let yb = tw[2 * n_total / 5];
            for u in 0..m {
                let s0 = out[u];
                let s1 = out[u + m].mul(tw[stride * u]);
                let s2 = out[u + 2 * m].mul(tw[2 * stride * u]);
                let s3 = out[u + 3 * m].mul(tw[3 * stride * u]);
                let s4 = out[u + 4 * m].mul(tw[4 * stride * u]);
                let s7 = s1.add(s4);
                let s10 = s1.sub(s4);
                let s8 = s2.add(s3);
                let s9 = s2.sub(s3);
                out[u] = s0.add(s7).add(s8);
                let s5 = Complex::new(
                    s0.re + s7.re * ya.re + s8.re * yb.re,
                    s0.im + s7.im * ya.re + s8.im * yb.re,
                );
                let s6 = Complex::new(
                    s10.im * ya.im + s9.im * yb.im,
                    -(s10.re * ya.im) - s9.re * yb.im,
                );
                out[u + m] = s5.sub(s6);
                out[u + 4 * m] = s5.add(s6);
                let s11 = Complex::new(
                    s0.re + s7.re * yb.re + s8.re * ya.re,
                    s0.im + s7.im * yb.re + s8.im * ya.re,
                );
                let s12 = Complex::new(
                    -(s10.im * yb.im) + s9.im * ya.im,
                    s10.re * yb.im - s9.re * ya.im,
                );
                out[u + 2 * m] = s11.add(s12);
                out[u + 3 * m] = s11.sub(s12);
            }
        }
        _ => {
            scratch.clear();
            scratch.resize(2 * p, Complex::default());
            let step = n_total / p; // roots of unity of order p: tw[step * j]
            for j in 0..p {
                scratch[p + j] = tw[step * j];
            }
            for k in 0..m {
                for q in 0..p {
                    scratch[q] = out[k + q * m].mul(tw[stride * q * k]);
                }
                for q2 in 0..p {
                    let mut acc = scratch[0];
                    let mut idx = 0;
                    for q1 in 1..p {
                        idx += q2;
                        if idx >= p {
                            idx -= p;
                        }
                        acc = acc.add(scratch[q1].mul(scratch[p + idx]));
                    }
                    out[k + q2 * m] = acc;
                }
            }
        }
    }
}

/// Plan for real input: a half-length complex transform when n is even.
pub struct RealFft {
    n: usize,
    half: Option<(Fft, Vec<Complex>)>,
    full: Option<Fft>,
}

impl RealFft {
    #[must_use]
    pub fn new(n: usize) -> Self {
        if n >= 2 && n.is_multiple_of(2) {
            let h = n / 2;
            let w = (0..h as u64).map(|k| root(k, n as u64)).collect();
            Self {
                n,
                half: Some((Fft::new(h), w)),
                full: None,
            }
        } else {
            Self {
                n,
                half: None,
                full: Some(Fft::new(n)),
            }
        }
    }

    /// |X_k| for k < n/2 (rounded down) of the real sequence `x`.
    #[must_use]
    pub fn half_magnitudes(&self, x: &[f64]) -> Vec<f64> {
        assert_eq!(x.len(), self.n);
        self.half_magnitudes_of(|i| x[i])
    }

    /// As `half_magnitudes`, reading element i as `value(i)` (no n-element input array).
    pub fn half_magnitudes_of(&self, value: impl Fn(usize) -> f64) -> Vec<f64> {
        let count = self.n / 2;
        if let Some((fft, w)) = &self.half {
            let h = self.n / 2;
            let zh = if let Some(order) = fft.input_order() {
                let mut z: Vec<Complex> = order
                    .iter()
                    .map(|&j| Complex::new(value(2 * j as usize), value(2 * j as usize + 1)))
                    .collect();
                fft.forward_in_order(&mut z);
                z
            } else {
                let z: Vec<Complex> = (0..h)
                    .map(|j| Complex::new(value(2 * j), value(2 * j + 1)))
                    .collect();
                fft.forward(&z)
            };
            (0..count)
                .map(|k| {
                    let a = zh[k];
                    let b = zh[(h - k) % h].conj();
                    let even = a.add(b).scale(0.5);
                    let diff = a.sub(b).scale(0.5);
                    // odd = -i * diff
                    let odd = Complex::new(diff.im, -diff.re);
                    even.add(odd.mul(w[k])).abs()
                })
                .collect()
        } else {
            let fft = self.full.as_ref().expect("odd length has a full plan");
            let z: Vec<Complex> = (0..self.n).map(|i| Complex::new(value(i), 0.0)).collect();
            fft.forward(&z)[..count].iter().map(|c| c.abs()).collect()
        }
    }
}

/// The real transform of `RealFft` through realfft 3.4 / rustfft 6.2 (Debian's crates).
pub struct CrateRealFft {
    n: usize,
    plan: Arc<dyn RealToComplex<f64>>,
    /// Work buffers returned by finished calls: fresh 8 MB buffers per 10^6-point call would
    /// cost more in page faults than the transform itself.
    pool: Mutex<Vec<Buffers>>,
}

struct Buffers {
    input: Vec<f64>,
    spectrum: Vec<realfft::num_complex::Complex<f64>>,
    scratch: Vec<realfft::num_complex::Complex<f64>>,
}

impl CrateRealFft {
    /// Plan a forward real DFT of length `n` (n >= 1).
    #[must_use]
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "FFT length must be positive");
        let plan = realfft::RealFftPlanner::<f64>::new().plan_fft_forward(n);
        Self {
            n,
            plan,
            pool: Mutex::new(Vec::new()),
        }
    }

    /// Call `f` with X_k for k < n/2 (rounded down) of the real sequence whose element i is
    /// `value(i)`.
    pub fn with_half_spectrum<R>(
        &self,
        value: impl Fn(usize) -> f64,
        f: impl FnOnce(&[realfft::num_complex::Complex<f64>]) -> R,
    ) -> R {
        let taken = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut b = taken.unwrap_or_else(|| Buffers {
            input: self.plan.make_input_vec(),
            spectrum: self.plan.make_output_vec(),
            scratch: self.plan.make_scratch_vec(),
        });
        for (i, v) in b.input.iter_mut().enumerate() {
            *v = value(i);
        }
        self.plan
            .process_with_scratch(&mut b.input, &mut b.spectrum, &mut b.scratch)
            .expect("buffers made by the plan have its lengths");
        let result = f(&b.spectrum[..self.n / 2]);
        self.pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(b);
        result
    }

    /// |X_k| for k < n/2 (rounded down) of the real sequence `x`.
    #[must_use]
    pub fn half_magnitudes(&self, x: &[f64]) -> Vec<f64> {
        assert_eq!(x.len(), self.n);
        self.half_magnitudes_of(|i| x[i])
    }

    /// As `half_magnitudes`, reading element i as `value(i)`.
    pub fn half_magnitudes_of(&self, value: impl Fn(usize) -> f64) -> Vec<f64> {
        self.with_half_spectrum(value, |s| s.iter().map(|c| c.re.hypot(c.im)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[Complex]) -> Vec<Complex> {
        let n = x.len() as u64;
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .fold(Complex::default(), |acc, (j, v)| {
                        acc.add(v.mul(root(j as u64 * k, n)))
                    })
            })
            .collect()
    }

    fn sample(n: usize) -> Vec<Complex> {
        let mut s = 12_345u64;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let a = ((s >> 11) as f64) / (1u64 << 53) as f64 - 0.5;
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let b = ((s >> 11) as f64) / (1u64 << 53) as f64 - 0.5;
                Complex::new(a, b)
            })
            .collect()
    }

    #[test]
    fn matches_naive_dft_for_many_lengths() {
        for n in [
            1, 2, 3, 4, 5, 6, 7, 8, 12, 30, 64, 97, 100, 127, 210, 243, 1000, 1031,
        ] {
            let x = sample(n);
            let got = Fft::new(n).forward(&x);
            let want = naive(&x);
            for (g, w) in got.iter().zip(&want) {
                assert!(g.sub(*w).abs() < 1e-9 * (n as f64), "n={n}");
            }
        }
    }

    #[test]
    fn real_transform_matches_complex() {
        for n in [2, 10, 100, 101, 1000, 1030] {
            let x: Vec<f64> = sample(n).iter().map(|c| c.re).collect();
            let z: Vec<Complex> = x.iter().map(|&v| Complex::new(v, 0.0)).collect();
            let want = naive(&z);
            let got = RealFft::new(n).half_magnitudes(&x);
            assert_eq!(got.len(), n / 2);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w.abs()).abs() < 1e-9 * (n as f64), "n={n}");
            }
        }
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    fn min_of<T>(runs: usize, mut f: impl FnMut() -> T) -> std::time::Duration {
        (0..runs)
            .map(|_| {
                let t = std::time::Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .min()
            .unwrap()
    }

    #[test]
    #[ignore = "timing probe, run by hand"]
    fn time_half_million() {
        let n = 1_000_000;
        let x: Vec<f64> = (0..n)
            .map(|i| f64::from((i * 7919 % 13) as u8) - 6.0)
            .collect();
        let hand = RealFft::new(n);
        let fast = CrateRealFft::new(n);
        eprintln!(
            "hand magnitudes: {:?}",
            min_of(15, || hand.half_magnitudes(&x))
        );
        eprintln!(
            "crate magnitudes: {:?}",
            min_of(15, || fast.half_magnitudes(&x))
        );
        let (h, _) = hand.half.as_ref().unwrap();
        let z: Vec<Complex> = (0..n / 2)
            .map(|j| Complex::new(x[2 * j], x[2 * j + 1]))
            .collect();
        eprintln!("hand complex 500k: {:?}", min_of(15, || h.forward(&z)));
        let mut input = x.clone();
        let mut out = fast.plan.make_output_vec();
        let mut scratch = fast.plan.make_scratch_vec();
        eprintln!(
            "crate real 1e6 (buffers reused): {:?}",
            min_of(15, || {
                input.copy_from_slice(&x);
                fast.plan
                    .process_with_scratch(&mut input, &mut out, &mut scratch)
                    .unwrap();
            })
        );
        eprintln!(
            "crate squared magnitudes (pooled): {:?}",
            min_of(15, || fast.with_half_spectrum(
                |i| x[i],
                |s| s
                    .iter()
                    .map(realfft::num_complex::Complex::norm_sqr)
                    .sum::<f64>()
            ))
        );
        eprintln!(
            "hypot 500k: {:?}",
            min_of(15, || out
                .iter()
                .map(|c| c.re.hypot(c.im))
                .collect::<Vec<_>>())
        );
        eprintln!(
            "norm_sqr 500k: {:?}",
            min_of(15, || out
                .iter()
                .map(|c| c.re * c.re + c.im * c.im)
                .collect::<Vec<_>>())
        );
    }
}
