//! Simulated shufflers, fair and faulty, for power and calibration studies: each model maps an
//! input order to an output order, driven by a small seeded generator (xoshiro256**).

use std::collections::VecDeque;
use std::fmt;

/// xoshiro256** (Blackman and Vigna), seeded through splitmix64.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform on 0..n without bias (Lemire's multiply-and-reject).
    ///
    /// The rejection threshold `2^64 mod n` is below `n`, so a low word of at least `n` is
    /// accepted without computing it (the division runs in about n / 2^64 of the draws); the
    /// draws accepted, and so the stream, are those of the plain form.
    pub fn below(&mut self, n: u64) -> u64 {
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A fair coin with probability `num / den` of true.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

/// A shuffler model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Fisher-Yates with an unbiased generator.
    Fair,
    /// k Gilbert-Shannon-Reeds riffle shuffles.
    Riffle(u32),
    /// One pass of a shelf shuffler with this many shelves (Diaconis, Fulman and Holmes 2013).
    Shelf(u32),
    /// k overhand shuffles (Pemantle's model: a break after each card with probability 1/2,
    /// packets reversed in order).
    Overhand(u32),
    /// Fisher-Yates drawing `j = r mod (i+1)` from an r of this many bits.
    Modulo(u32),
    /// Fisher-Yates with the off-by-one error `j < i` (Sattolo: only cyclic permutations).
    OffByOne,
    /// Fisher-Yates whose generator repeats every this many shuffles.
    ShortPeriod(u32),
    /// Fair, except that the input's last card stays last this many times in a thousand.
    Stuck(u32),
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Model::Fair => write!(f, "fair"),
            Model::Riffle(k) => write!(f, "riffle:{k}"),
            Model::Shelf(m) => write!(f, "shelf:{m}"),
            Model::Overhand(k) => write!(f, "overhand:{k}"),
            Model::Modulo(b) => write!(f, "modulo:{b}"),
            Model::OffByOne => write!(f, "off-by-one"),
            Model::ShortPeriod(p) => write!(f, "short-period:{p}"),
            Model::Stuck(m) => write!(f, "stuck:{m}"),
        }
    }
}

impl Model {
    /// Parse `fair`, `riffle:K`, `shelf:M`, `overhand:K`, `modulo:BITS`, `off-by-one`,
    /// `short-period:P`, `stuck:PER_MILLE`.
    pub fn parse(text: &str) -> Result<Model, String> {
        let (name, arg) = match text.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (text, None),
        };
        let num = |default: u32, lo: u32, hi: u32| -> Result<u32, String> {
            let Some(a) = arg else {
                return Ok(default);
            };
            let in_range = || format!("model {text:?}: parameter must be in {lo}..={hi}");
            let digits = !a.is_empty() && a.bytes().all(|c| c.is_ascii_digit());
            if !digits {
                return Err(format!("model {text:?}: {a:?} is not a whole number"));
            }
            // All digits: too large for u32 is out of range too, not "not a number".
            let v = a.parse::<u32>().map_err(|_| in_range())?;
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err(in_range())
            }
        };
        let plain = |model: Model| -> Result<Model, String> {
            match arg {
                None => Ok(model),
                Some(_) => Err(format!("model {text:?}: {name} takes no parameter")),
            }
        };
        Ok(match name {
            "fair" => plain(Model::Fair)?,
            "riffle" => Model::Riffle(num(7, 1, 64)?),
            "shelf" => Model::Shelf(num(10, 1, 1000)?),
            "overhand" => Model::Overhand(num(1, 1, 100_000)?),
            "modulo" => Model::Modulo(num(8, 1, 32)?),
            "off-by-one" => plain(Model::OffByOne)?,
            "short-period" => Model::ShortPeriod(num(1000, 1, u32::MAX)?),
            "stuck" => Model::Stuck(num(100, 0, 1000)?),
            _ => {
                return Err(format!(
                    "unknown shuffler model {text:?}: expected fair, riffle:K, shelf:M, \
                     overhand:K, modulo:BITS, off-by-one, short-period:P or stuck:PER_MILLE"
                ))
            }
        })
    }
}

/// A simulated device: a model, its generator, and a count of shuffles made.
pub struct Simulator {
    pub model: Model,
    rng: Rng,
    seed: u64,
    count: u64,
}

impl Simulator {
    #[must_use]
    pub fn new(model: Model, seed: u64) -> Simulator {
        Simulator {
            model,
            rng: Rng::new(seed),
            seed,
            count: 0,
        }
    }

    /// Shuffle `deck` in place.
    pub fn shuffle(&mut self, deck: &mut Vec<u8>) {
        let n = deck.len();
        match self.model {
            Model::Fair => fisher_yates(deck, |i| self.rng.below(i as u64 + 1) as usize),
            Model::Riffle(k) => {
                for _ in 0..k {
                    riffle(deck, &mut self.rng);
                }
            }
            Model::Shelf(m) => shelf(deck, m as usize, &mut self.rng),
            Model::Overhand(k) => {
                for _ in 0..k {
                    overhand(deck, &mut self.rng);
                }
            }
            Model::Modulo(bits) => {
                let mask = if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                fisher_yates(deck, |i| {
                    ((self.rng.next_u64() & mask) % (i as u64 + 1)) as usize
                });
            }
            Model::OffByOne => {
                for i in (1..n).rev() {
                    let j = self.rng.below(i as u64) as usize;
                    deck.swap(i, j);
                }
            }
            Model::ShortPeriod(p) => {
                if self.count.is_multiple_of(u64::from(p)) {
                    self.rng = Rng::new(self.seed);
                }
                fisher_yates(deck, |i| self.rng.below(i as u64 + 1) as usize);
            }
            Model::Stuck(per_mille) => {
                let last = deck[n - 1];
                fisher_yates(deck, |i| self.rng.below(i as u64 + 1) as usize);
                if self.rng.chance(u64::from(per_mille), 1000) {
                    let at = deck.iter().position(|&c| c == last).unwrap_or(n - 1);
                    deck.swap(at, n - 1);
                }
            }
        }
        self.count += 1;
    }
}

fn fisher_yates(deck: &mut [u8], mut pick: impl FnMut(usize) -> usize) {
    for i in (1..deck.len()).rev() {
        let j = pick(i);
        deck.swap(i, j);
    }
}

/// One Gilbert-Shannon-Reeds riffle: a binomial cut, then cards drop from each packet with
/// probability proportional to its size.
fn riffle(deck: &mut Vec<u8>, rng: &mut Rng) {
    let n = deck.len();
    let cut = (0..n).filter(|_| rng.next_u64() >> 63 == 1).count();
    let (mut a, mut b) = (0, cut);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let left = (cut - a) as u64;
        let right = (n - b) as u64;
        if rng.below(left + right) < left {
            out.push(deck[a]);
            a += 1;
        } else {
            out.push(deck[b]);
            b += 1;
        }
    }
    *deck = out;
}

/// A shelf shuffler: each card in turn goes to a random shelf, on top or below what is there;
/// the shelves are then stacked in order.
fn shelf(deck: &mut Vec<u8>, shelves: usize, rng: &mut Rng) {
    let mut piles: Vec<VecDeque<u8>> = vec![VecDeque::new(); shelves];
    for &c in deck.iter() {
        let pile = &mut piles[rng.below(shelves as u64) as usize];
        if rng.next_u64() >> 63 == 1 {
            pile.push_front(c);
        } else {
            pile.push_back(c);
        }
    }
    deck.clear();
    for pile in piles {
        deck.extend(pile);
    }
}

/// One overhand shuffle: the deck breaks into packets whose order is reversed.
fn overhand(deck: &mut Vec<u8>, rng: &mut Rng) {
    let n = deck.len();
    let mut out = Vec::with_capacity(n);
    let mut end = n;
    for start in (0..n).rev() {
        if start == 0 || rng.next_u64() >> 63 == 1 {
            out.extend_from_slice(&deck[start..end]);
            end = start;
        }
    }
    *deck = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_perm(d: &[u8]) -> bool {
        let mut s = d.to_vec();
        s.sort_unstable();
        s.iter().enumerate().all(|(i, &c)| i == c as usize)
    }

    #[test]
    fn models_permute() {
        for m in [
            "fair",
            "riffle:3",
            "shelf:10",
            "overhand:2",
            "modulo:8",
            "off-by-one",
            "short-period:5",
            "stuck:500",
        ] {
            let model = Model::parse(m).unwrap();
            assert_eq!(model.to_string(), m);
            let mut sim = Simulator::new(model, 7);
            let mut deck: Vec<u8> = (0..52).collect();
            for _ in 0..20 {
                sim.shuffle(&mut deck);
                assert!(is_perm(&deck), "{m}");
            }
        }
        assert!(Model::parse("riffle:0").is_err());
        assert!(Model::parse("nonsense").is_err());
        let err = |m: &str| Model::parse(m).unwrap_err();
        assert_eq!(
            err("riffle:99999999999"),
            "model \"riffle:99999999999\": parameter must be in 1..=64"
        );
        assert_eq!(
            err("riffle:x"),
            "model \"riffle:x\": \"x\" is not a whole number"
        );
        assert!(err("riffle:-1").contains("not a whole number"));
        assert_eq!(err("fair:3"), "model \"fair:3\": fair takes no parameter");
        assert!(err("off-by-one:").contains("takes no parameter"));
    }

    #[test]
    fn off_by_one_has_no_fixed_points() {
        let mut sim = Simulator::new(Model::OffByOne, 1);
        for _ in 0..100 {
            let mut deck: Vec<u8> = (0..52).collect();
            sim.shuffle(&mut deck);
            assert!(deck.iter().enumerate().all(|(i, &c)| i != c as usize));
        }
    }

    #[test]
    fn one_riffle_has_at_most_two_rising_sequences() {
        let mut sim = Simulator::new(Model::Riffle(1), 3);
        let mut deck: Vec<u8> = (0..52).collect();
        sim.shuffle(&mut deck);
        let mut pos = [0usize; 52];
        for (p, &c) in deck.iter().enumerate() {
            pos[c as usize] = p;
        }
        assert!((0..51).filter(|&i| pos[i + 1] < pos[i]).count() <= 1);
    }

    #[test]
    fn below_draws_what_the_plain_rejection_form_draws() {
        // Lemire's method as first written: the threshold computed before every draw.
        fn plain(rng: &mut Rng, n: u64) -> u64 {
            let threshold = n.wrapping_neg() % n;
            loop {
                let m = u128::from(rng.next_u64()) * u128::from(n);
                if (m as u64) >= threshold {
                    return (m >> 64) as u64;
                }
            }
        }
        for n in [
            1,
            2,
            3,
            7,
            52,
            136,
            1000,
            1 << 40,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let (mut a, mut b) = (Rng::new(n), Rng::new(n));
            for _ in 0..2000 {
                assert_eq!(a.below(n), plain(&mut b, n), "n = {n}");
            }
            assert_eq!(
                a.next_u64(),
                b.next_u64(),
                "n = {n}: the streams stay in step"
            );
        }
    }

    #[test]
    fn generator_is_deterministic_and_unbiased_enough() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[a.below(3) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)));
    }
}
