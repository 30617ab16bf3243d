//! The JSON Lines reader of the shuffler audit (`rust/audit/json.rs`, hand-written) against
//! `serde_json` on the same records, side by side in one run (issue 16, item 5).
//!
//! Run: `cargo bench --bench json_lines` (`TABLECERT_BENCH_RECORDS` records, default 200,000).
//! Three readers of each line into a tree of values:
//! - the hand-written reader, with every strictness rule the audit needs (duplicate keys are
//!   errors naming the key and column; numbers kept as written, so huge ones are not rounded);
//! - `serde_json` into `serde_json::Value` as it comes: faster work than the audit may use
//!   (a duplicate key silently keeps the last value; numbers become f64 or integers);
//! - `serde_json` into a map that refuses duplicate keys (a custom visitor), the least serde
//!   would need to keep the duplicate-key rule.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use tablecert_core::audit::json;

/// A JSON object whose keys are each given once (serde's `Value` keeps the last of two).
struct Strict(#[allow(dead_code)] BTreeMap<String, serde_json::Value>);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Strict;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
                let mut out = BTreeMap::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    if out.contains_key(&k) {
                        return Err(serde::de::Error::custom(format!("duplicate key {k:?}")));
                    }
                    out.insert(k, v);
                }
                Ok(Strict(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn lines(records: usize) -> Vec<String> {
    let codes: Vec<String> = (0..52u8).map(tablecert_core::cards::code).collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..records)
        .map(|k| {
            let mut deck: Vec<&str> = codes.iter().map(String::as_str).collect();
            for i in (1..52).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                deck.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let list: Vec<String> = deck.iter().map(|c| format!("\"{c}\"")).collect();
            // Half the records give the order as one string, half as an array of codes.
            let output = if k % 2 == 0 {
                format!("\"{}\"", deck.join(" "))
            } else {
                format!("[{}]", list.join(","))
            };
            format!(
                "{{\"device_id\":\"SIM-1\",\"timestamp\":{},\"shuffle_id\":{k},\"output\":{output},\
                 \"input\":\"{}\",\"events\":[]}}",
                1_767_225_600 + k * 30,
                codes.join(" ")
            )
        })
        .collect()
}

fn best<T>(rounds: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let records: usize = std::env::var("TABLECERT_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let data = lines(records);
    let bytes: usize = data.iter().map(|l| l.len() + 1).sum();
    // Every reader accepts every line, and the strict ones refuse a duplicate key.
    assert!(data.iter().all(|l| json::parse(l).is_ok()));
    assert!(data
        .iter()
        .all(|l| serde_json::from_str::<Strict>(l).is_ok()));
    let dup = r#"{"device_id":"A","device_id":"B"}"#;
    assert!(json::parse(dup).unwrap_err().contains("duplicate key"));
    assert!(serde_json::from_str::<Strict>(dup).is_err());
    assert!(serde_json::from_str::<serde_json::Value>(dup).is_ok());
    let rounds = 5;
    let hand = best(rounds, || {
        data.iter().filter(|l| json::parse(l).is_ok()).count()
    });
    let lax = best(rounds, || {
        data.iter()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            .count()
    });
    let strict = best(rounds, || {
        data.iter()
            .filter(|l| serde_json::from_str::<Strict>(l).is_ok())
            .count()
    });
    println!("{records} JSON Lines records, {bytes} bytes, best of {rounds}, one thread:");
    for (name, s) in [
        ("hand-written (rust/audit/json.rs), strict", hand),
        ("serde_json::Value, duplicate keys kept silently", lax),
        ("serde_json, duplicate keys refused", strict),
    ] {
        println!(
            "  {name:50} {:7.3} s  {:6.0} MB/s  {:5.2}x the hand-written",
            s,
            bytes as f64 / s / 1e6,
            s / hand
        );
    }
}
