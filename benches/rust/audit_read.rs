//! The core's read of a shuffle log (parse, check, tally; no battery), alone in its process:
//! for `valgrind --tool=callgrind` / `cachegrind` instruction and cache-miss counts, and CPU
//! time, which stay repeatable on a loaded machine (the target: >= 1 GB/s on 2 cores).
//!
//! Run: `cargo bench --bench audit_read -- LOG [--game]` (a CSV or JSON Lines log, plain or
//! gzip, e.g. one written by `tablecert simulate shuffler --model fair`); `--game` adds the
//! Caribbean Stud dealt-hand tally (6 seats and the dealer, statute tie-breaks), as the
//! `audit shuffler --input-order logged --game caribbean-stud --seats 6` run does. Prints
//! wall and CPU seconds and GB/s of log text. The Python side-by-side figure is
//! `benches/bench_audit.py -k side_by_side`.

use std::time::Instant;

use tablecert_core::ranking::TieBreaks;
use tablecert_core::shuffler::deck::DeckKind;
use tablecert_core::shuffler::log::{Audit, InputMode};
use tablecert_core::shuffler::tally::Game;

fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &raw mut usage) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench --bench audit_read -- LOG [--game]");
        std::process::exit(2);
    };
    let game = args.iter().any(|a| a == "--game").then_some(Game {
        hand_size: 5,
        hands: 7,
        round_robin: false,
        tie_breaks: TieBreaks::STATUTE,
    });
    let size = std::fs::metadata(path).expect("the log").len();
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let mut audit = Audit::new(DeckKind::Cards52, InputMode::Logged, game, 10_000);
    audit
        .read_file(path, |_, _, _| (), |()| Ok::<(), ()>(()))
        .unwrap_or_else(|_| panic!("{path}: not readable"));
    audit.finish();
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "{path}: {} records, {size} bytes, {} threads, game {}: {wall:.3} s wall \
         ({:.2} GB/s), {cpu:.3} CPU-s ({:.3} us CPU per record); checksum {}",
        audit.records,
        rayon::current_num_threads(),
        game.is_some(),
        size as f64 / wall / 1e9,
        cpu * 1e6 / audit.records as f64,
        audit.total.lehmer_pairs.iter().sum::<u64>() + audit.total.dealt.iter().sum::<u64>(),
    );
}
