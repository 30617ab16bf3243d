//! The JSON Lines reader of the shuffler and round audits (`rust/logs/json/mod.rs`, hand-written,
//! a tree borrowing from the line) against `serde_json` with the same rules and against the
//! owned reader it replaced, side by side in one run.
//!
//! Run: `cargo bench --bench json_lines` (`TABLECERT_BENCH_RECORDS` shuffle records, default
//! 200,000, and as many round records; `TABLECERT_BENCH_REPEAT` rounds, default 5, best kept).
//! Instructions, repeatable under load: `TABLECERT_BENCH_ONLY=K` runs only reader K (0-3 in
//! the order below; `none`: none, the cost of making the lines) once, under
//! `valgrind --tool=callgrind` (`scripts/json-lines-instructions.sh` runs each).
//! Readers of each line into a tree of values:
//! - the reader (`json::parse`): every strictness rule the audits need (a key given twice in
//!   any object, NaN and Infinity, control characters and lone surrogate escapes, nesting deeper
//!   than 32 levels are errors naming the column; numbers kept as written); strings without
//!   escapes and numbers are slices of the line;
//! - `serde_json` into the same tree (`Strict` below, a `Deserialize` with its own visitors):
//!   the same rules, strings borrowed when serde can (`visit_borrowed_str`), numbers kept as
//!   written through `serde_json`'s `arbitrary_precision` (a `String` per number; an integer
//!   that fits 64 bits comes as an integer, so `-0` reads as `0`: the one number not kept);
//! - the owned reader it replaced (`rust/logs/json/owned.rs`: a `String` per string and number,
//!   a `BTreeMap` per object), the yardstick;
//! - `serde_json::Value` as it comes: less than the audit may use (a duplicate key silently
//!   keeps the last value), shown for what serde itself costs.

use std::borrow::Cow;
use std::fmt;
use std::time::Instant;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use tablecert_core::logs::json::{self, Members, Value};

#[allow(dead_code, clippy::pedantic)]
#[path = "../../rust/logs/json/owned.rs"]
mod owned;

/// `serde_json`'s name of a number kept as written (`arbitrary_precision`): it hands the number
/// over as a one-member map under this key, a `&'static str`, never a slice of the line (so a
/// line's own key of that spelling is not taken for a number).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A value at a depth, read from `line`.
#[derive(Clone, Copy)]
struct Seed<'de> {
    depth: usize,
    line: &'de str,
}

/// A key: borrowed from the line when it has no escape.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'de> {
    type Value = Value<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        if self.depth > json::MAX_DEPTH {
            return Err(de::Error::custom("nested too deeply"));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'de> {
    type Value = Value<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Value::Bool(v))
    }
    // arbitrary_precision hands integers that fit 64 bits over as integers: written back
    // they are as written, but for `-0` (read as 0).
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Value::Number(Cow::Owned(v.to_string())))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Value::Number(Cow::Owned(v.to_string())))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Value::String(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Value::String(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Value::String(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let inner = Seed {
            depth: self.depth + 1,
            line: self.line,
        };
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let inner = Seed {
            depth: self.depth + 1,
            line: self.line,
        };
        let mut members = Members::default();
        let mut first = true;
        while let Some(key) = map.next_key_seed(Key)? {
            if first {
                first = false;
                if let Cow::Borrowed(k) = key {
                    let inside = self.line.as_bytes().as_ptr_range();
                    if k == NUMBER_TOKEN && !inside.contains(&k.as_ptr()) {
                        let n: String = map.next_value()?;
                        return Ok(Value::Number(Cow::Owned(n)));
                    }
                }
            }
            let v = map.next_value_seed(inner)?;
            members.push(key, v).map_err(de::Error::custom)?;
        }
        Ok(Value::Object(members.finish()))
    }
}

/// One line through `serde_json` with the reader's rules.
fn strict(line: &str) -> Result<Value<'_>, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(line);
    let v = Seed { depth: 0, line }.deserialize(&mut d)?;
    d.end()?;
    Ok(v)
}

fn shuffle_lines(records: usize) -> Vec<String> {
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
            let list = |d: &[&str]| {
                let quoted: Vec<String> = d.iter().map(|c| format!("\"{c}\"")).collect();
                format!("[{}]", quoted.join(", "))
            };
            let all: Vec<&str> = codes.iter().map(String::as_str).collect();
            // As `tablecert simulate shuffler` writes them (`rust/shuffler/simlog.rs`).
            format!(
                "{{\"device_id\": \"SIM-1\", \"timestamp\": {}, \"shuffle_id\": {k}, \
                 \"output\": {}, \"input\": {}}}",
                1_767_225_600 + k * 30,
                list(&deck),
                list(&all)
            )
        })
        .collect()
}

/// Q Poker rounds as `tablecert simulate rounds` writes them (1-7 seats, nested objects).
fn round_lines(records: usize) -> Vec<String> {
    (0..records)
        .map(|k| {
            let seats: Vec<String> = (1..=1 + k % 7)
                .map(|s| {
                    format!(
                        "{{\"seat\": {s}, \"cards\": \"9d 2h 6c\", \"decision\": \"fold\", \
                         \"bets\": {{\"pair_plus\": \"5\", \"play\": \"50\"}}, \
                         \"paid\": {{\"pair_plus\": \"-5\", \"play\": \"-25\"}}}}"
                    )
                })
                .collect();
            format!(
                "{{\"table_id\": \"T1\", \"round_id\": \"{k}\", \
                 \"timestamp\": \"2026-03-01T00:00:{:02}Z\", \"dealer\": \"Jh Kd 9h\", \
                 \"upcard\": \"\", \"meter_before\": \"\", \"meter_after\": \"\", \
                 \"events\": [], \"seats\": [{}]}}",
                k % 60,
                seats.join(", ")
            )
        })
        .collect()
}

/// A reader: whether it accepts a line.
type Reads = dyn Fn(&str) -> bool;

fn best<T>(repeat: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Every reader accepts every line and reads the same tree; the strict ones refuse what the
/// reader refuses.
fn check(data: &[String]) {
    for l in data {
        let v = json::parse(l).unwrap();
        assert_eq!(strict(l).unwrap(), v);
        assert!(owned::parse(l).is_ok());
    }
    for bad in [
        r#"{"device_id":"A","device_id":"B"}"#,
        r#"{"a":{"b":[{"c":1,"\u0063":2}]}}"#,
        r#"{"a":NaN}"#,
        r#""\ud800""#,
        &format!("{}{}", "[".repeat(40), "]".repeat(40)),
    ] {
        assert!(json::parse(bad).is_err(), "{bad}");
        assert!(strict(bad).is_err(), "{bad}");
    }
    assert!(serde_json::from_str::<serde_json::Value>(r#"{"a":1,"a":2}"#).is_ok());
    // A line's own key spelled as serde_json's number token is an object, not a number.
    let forged = format!(r#"{{"{NUMBER_TOKEN}":"12"}}"#);
    assert_eq!(strict(&forged).unwrap(), json::parse(&forged).unwrap());
    assert_eq!(
        strict("[12345678901234567890123456789012345, 1e999, -0.0]").unwrap(),
        json::parse("[12345678901234567890123456789012345, 1e999, -0.0]").unwrap()
    );
}

fn main() {
    let records: usize = std::env::var("TABLECERT_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let mut repeat: usize = std::env::var("TABLECERT_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let only = std::env::var("TABLECERT_BENCH_ONLY").ok();
    if only.is_some() {
        repeat = 1;
    }
    // `TABLECERT_BENCH_DATA=shuffles` or `rounds`: one kind of records only.
    let kinds = std::env::var("TABLECERT_BENCH_DATA").unwrap_or_default();
    for (what, kind, make) in [
        (
            "shuffle records",
            "shuffles",
            shuffle_lines as fn(usize) -> Vec<String>,
        ),
        ("Q Poker round records", "rounds", round_lines),
    ] {
        if !kinds.is_empty() && kinds != kind {
            continue;
        }
        let data = make(records);
        if only.is_none() {
            check(&data);
        }
        let bytes: usize = data.iter().map(|l| l.len() + 1).sum();
        let runs: [(&str, &Reads); 4] = [
            ("owned reader, the old allocating one (yardstick)", &|l| {
                owned::parse(l).is_ok()
            }),
            ("reader (rust/logs/json), borrowed", &|l| {
                json::parse(l).is_ok()
            }),
            ("serde_json, same rules, borrowed", &|l| strict(l).is_ok()),
            ("serde_json::Value (duplicate keys kept)", &|l| {
                serde_json::from_str::<serde_json::Value>(l).is_ok()
            }),
        ];
        let mut times = [f64::INFINITY; 4];
        // Interleaved: each round runs every reader once.
        for _ in 0..repeat {
            for (k, (t, (_, run))) in times.iter_mut().zip(&runs).enumerate() {
                if only.as_ref().is_some_and(|o| *o != k.to_string()) {
                    continue;
                }
                *t = t.min(best(1, || data.iter().filter(|l| run(l)).count()));
            }
        }
        println!("{records} {what}, {bytes} bytes, best of {repeat}, one thread:");
        for ((name, _), s) in runs.iter().zip(times) {
            println!(
                "  {name:42} {s:7.3} s  {:6.0} MB/s  {:5.2}x the yardstick's speed",
                bytes as f64 / s / 1e6,
                times[0] / s
            );
        }
    }
}
