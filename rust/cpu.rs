//! What this CPU can run beyond the portable x86-64 baseline, detected once per process, and
//! the compilations that use it. A vector or bit-count path is reached only through a proof
//! token (`Native`, `Avx2`, `Avx512`) that is made by detection alone, so no caller can ask
//! for instructions the CPU lacks; `compiled_with!` compiles a portable function again with a
//! token's features, so the feature lists are written here and nowhere else.

use std::sync::OnceLock;

/// The features found on this CPU, detected on first use.
#[derive(Clone, Copy, Debug, Default)]
struct Detected {
    native: bool,
    avx2: bool,
    avx512: bool,
}

/// The detection, done once: `is_x86_feature_detected!` caches each feature, but a token is
/// asked for per deck read and per tally, and the combined answer is one load here.
fn detected() -> Detected {
    static DETECTED: OnceLock<Detected> = OnceLock::new();
    *DETECTED.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::is_x86_feature_detected!("avx2");
            let native = avx2
                && std::is_x86_feature_detected!("popcnt")
                && std::is_x86_feature_detected!("lzcnt")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2");
            let avx512 = native
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512dq")
                && std::is_x86_feature_detected!("avx512cd");
            Detected {
                native,
                avx2,
                avx512,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Detected::default()
    })
}

/// Whether this CPU has the instructions the portable x86-64 baseline lacks (population count,
/// leading and trailing zero counts, 256-bit vectors) that the tallies and the parse are also
/// compiled for: the Lehmer digits and the guesser's unseen labels are bit counts, integers
/// either way.
#[must_use]
pub fn native_features() -> bool {
    detected().native
}

/// Proof that this CPU has the instructions of `native_features` (`compiled_with!(native,
/// ...)`). Made only by `Native::detect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Native(());

impl Native {
    /// The proof, when this CPU has the instructions.
    #[must_use]
    pub fn detect() -> Option<Native> {
        detected().native.then_some(Native(()))
    }
}

/// Proof that this CPU has AVX2 (256-bit integer vectors): the deck read's and the showdown
/// query's vector paths. Made only by `Avx2::detect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2(());

impl Avx2 {
    /// The proof, when this CPU has the instructions.
    #[must_use]
    pub fn detect() -> Option<Avx2> {
        detected().avx2.then_some(Avx2(()))
    }
}

/// Proof that this CPU has the 512-bit vector instructions `valley_guesser52` uses (AVX-512
/// foundation, byte and word, conflict detection: 64-bit lanes, masked byte loads, leading
/// zero counts), the doubleword and quadword ones `hash128_orders` uses (64-bit products),
/// and those of `native_features` (the tallies' AVX-512 compilation has both). Made only by
/// `Avx512::detect`: the vector paths cannot be asked for on a CPU without them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512(());

impl Avx512 {
    /// The proof, when this CPU has the instructions.
    #[must_use]
    pub fn detect() -> Option<Avx512> {
        detected().avx512.then_some(Avx512(()))
    }
}

/// `$vis unsafe fn $name(args) -> ret { $portable(args) }` compiled with the CPU features of
/// a token (`native`: `Native`'s, `avx512`: `Avx512`'s, which include `Native`'s), on x86-64
/// only. `$portable` is inlined into it (mark it `#[inline(always)]`) and so runs with the
/// features: a closure or a function handed to such a compilation is not always inlined, and
/// then runs without them. A caller holds the token for the features before calling it.
macro_rules! compiled_with {
    (native, $($item:tt)*) => {
        $crate::cpu::compiled_with!(@ "popcnt,lzcnt,bmi1,bmi2,avx2", $($item)*);
    };
    (avx512, $($item:tt)*) => {
        $crate::cpu::compiled_with!(
            @ "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512bw,avx512cd,avx512dq",
            $($item)*
        );
    };
    (@ $features:literal, $(#[$meta:meta])* $vis:vis fn $name:ident(
        $($arg:ident: $ty:ty),* $(,)?
    ) $(-> $ret:ty)? = $portable:path) => {
        $(#[$meta])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        $vis unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
            $portable($($arg),*)
        }
    };
}

pub(crate) use compiled_with;

#[cfg(test)]
/// The AVX-512 proof for a test's vector path, or, on a CPU without it, a line on stderr
/// saying which assertions were not checked (a Rust test cannot mark itself ignored at run
/// time, and a silent pass would read as a checked one).
pub(crate) fn avx512_for(what: &str) -> Option<Avx512> {
    let avx512 = Avx512::detect();
    if avx512.is_none() {
        eprintln!("skipped: no AVX-512 on this CPU: {what} not checked");
    }
    avx512
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokens_nest_as_their_features_do() {
        // AVX-512's compilation includes the native features, which include AVX2.
        if Avx512::detect().is_some() {
            assert!(Native::detect().is_some());
        }
        if Native::detect().is_some() {
            assert!(Avx2::detect().is_some());
        }
        assert_eq!(native_features(), Native::detect().is_some());
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(
                Avx2::detect().is_some(),
                std::is_x86_feature_detected!("avx2")
            );
            assert_eq!(
                Avx512::detect().is_some(),
                std::is_x86_feature_detected!("avx512dq")
                    && Native::detect().is_some()
                    && std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512cd")
            );
        }
    }
}
