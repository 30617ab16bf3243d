use super::fields::amount_units;
use super::python::{py_int, py_str};
use super::*;

fn q_poker() -> Spec {
    Spec {
        game: "q-poker".into(),
        hand_size: 3,
        dealer_size: 3,
        spots: vec!["pair_plus".into(), "play".into()],
        decisions: vec![String::new(), "follow".into(), "fold".into()],
        events: ["void", "misdeal", "shuffler-failure", "exposed-card"]
            .map(String::from)
            .to_vec(),
        void_events: 3,
        upcard_required: false,
        rounds_per_chunk: 2,
    }
}

const HEADER: &str = "table_id,round_id,timestamp,dealer,upcard,meter_before,meter_after,events,seat,cards,decision,pair_plus_bet,play_bet,pair_plus_paid,play_paid\n";

fn read(text: &str, feed: usize) -> Result<Vec<Columns>, String> {
    let mut r = RoundReader::new(q_poker(), "q.csv");
    for piece in text.as_bytes().chunks(feed) {
        r.feed(piece)?;
    }
    r.finish()?;
    Ok(r.take())
}

#[test]
fn csv_rows_grouped_into_rounds_and_chunks_at_any_feed_size() {
    let rows = "T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\r\n\
                    T,1,t,Qs 7d 3c,,,,,2,\"Ks,Qh,Jd\",fold,0,10,0,-5\r\n\
                    T,2,t,Qs 7d,,,,misdeal,1,9h 9d,follow,10,20,0,0\r\
                    T,3,t,As Ad Ah,,,,,1,2s 2d 2h,,2.5,0,,\n";
    let whole = read(&format!("{HEADER}{rows}"), 1 << 20).unwrap();
    for feed in [1, 2, 7] {
        assert_eq!(read(&format!("{HEADER}{rows}"), feed).unwrap(), whole);
    }
    assert_eq!(whole.len(), 2);
    let c = &whole[0];
    assert_eq!(c.round_id, ["1", "2"]);
    assert_eq!(c.line, [2, 4]);
    assert_eq!(c.seat_line, [2, 3, 4]);
    assert_eq!(c.seat_round, [0, 0, 1]);
    assert_eq!(c.dealer[3..], [43, 20, -1]);
    assert_eq!(c.void, [false, true]);
    assert_eq!(c.decision, [1, 2, 1]);
    assert_eq!(c.paid[..4], [100_000, 200_000, 0, -50_000]);
    assert_eq!(whole[1].bets, [25_000, 0]);
}

#[test]
fn errors_name_file_line_and_field() {
    let cases = [
            ("T,1,t,Qs 7d 3c,,,,,1,9h 9x 4s,follow,10,20,10,20\n", "q.csv:2: cards: '9x' is not a card"),
            ("T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,2.00001\n", "q.csv:2: play_paid: '2.00001' is not an amount"),
            ("T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,2000000000000.5\n", "q.csv:2: play_paid: 2000000000000.5 is larger than"),
            ("T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,stand,10,20,10,20\n", "q.csv:2: decision: 'stand' is not a decision"),
            ("T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\nT,1,t,Qs 7d 3d,,,,,2,9s 8d 4s,follow,10,20,10,20\n", "q.csv:3: dealer: differs"),
            ("T,1,t,Qs 7d 3c,,,,,100,9h 9d 4s,follow,10,20,10,20\n", "q.csv:2: seat: seat '100' is out of range"),
            ("T,1,t,Qs 7d 3c,,,,,1,\"9h 9d 4s,follow,10,20,10,20\n", "q.csv:2: unreadable CSV row: unexpected end of data"),
            ("T,1,t,Qs 7d 3c,,,,,1,\"9h\"x,follow,10,20,10,20\n", "q.csv:2: unreadable CSV row: ',' expected after '\"'"),
            ("T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10\n", "q.csv:2: 14 fields, the header has 15"),
        ];
    for (rows, message) in cases {
        let err = read(&format!("{HEADER}{rows}"), 5).unwrap_err();
        assert!(err.starts_with(message), "{err} / {message}");
    }
    assert_eq!(read("", 5).unwrap_err(), "q.csv: empty file");
    assert_eq!(read(HEADER, 5).unwrap_err(), "q.csv: no rounds");
}

#[test]
fn json_lines_read_like_csv() {
    let line = r#"{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": ["Qs", "7d", "3c"], "seats": [{"seat": 1, "cards": "9h 9d 4s", "decision": "follow", "bets": {"pair_plus": 10, "play": 25.0}, "paid": {"play": "-5"}}]}"#;
    let mut r = RoundReader::new(q_poker(), "q.jsonl");
    r.feed(line.as_bytes()).unwrap();
    r.finish().unwrap();
    let c = &r.take()[0];
    assert_eq!(c.round_id, ["1"]);
    assert_eq!(c.bets, [100_000, 250_000]);
    assert_eq!(c.paid, [0, -50_000]);
    for (written, shown) in [
        ("2.00001", "'2.00001'"),
        ("2.5e1", "'2.5e1'"),
        ("1E1", "'1E1'"),
        ("0.1e2", "'0.1e2'"),
        ("25e0", "'25e0'"),
    ] {
        let bad = line.replace("25.0", written);
        let mut r = RoundReader::new(q_poker(), "q.jsonl");
        r.feed(bad.as_bytes()).unwrap();
        let err = r.finish().unwrap_err();
        let want = format!("q.jsonl:1: seats[0].play_bet: {shown} is not an amount");
        assert!(err.starts_with(&want), "{err}");
    }
}

#[test]
fn python_spellings() {
    assert_eq!(py_str("a'b"), "\"a'b\"");
    assert_eq!(py_str("x\u{1b}"), "'x\\x1b'");
    assert_eq!(py_int(" +1_0 "), Some(10));
    assert_eq!(py_int("1__0"), None);
    assert_eq!(amount_units("-0.5"), Ok(-5000));
    assert_eq!(amount_units("01"), Err(true));
}

/// What the reader keeps of the rounds it has read and handed on: one 16-byte hash per
/// (table, round) pair, whatever the ids' lengths, and no chunk or line once taken.
#[test]
fn what_is_kept_per_round_is_one_hash() {
    let long = "x".repeat(200);
    let mut r = RoundReader::new(q_poker(), "q.csv");
    r.feed(HEADER.as_bytes()).unwrap();
    let mut taken = 0;
    for round in 0..5000 {
        let table = if round % 2 == 0 { "T" } else { &long };
        let row = format!("{table},{long}{round},t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n");
        r.feed(row.as_bytes()).unwrap();
        if round % 100 == 99 {
            taken += r.take().iter().map(Columns::rounds).sum::<usize>();
            assert!(!r.has_ready());
            assert!(r.pending.is_empty(), "no line kept once read");
        }
    }
    r.finish().unwrap();
    taken += r.take().iter().map(Columns::rounds).sum::<usize>();
    assert_eq!(taken, 5000);
    assert_eq!((r.rounds, r.seen.len()), (5000, 5000));
    assert_eq!(RoundIds::BYTES_PER_ROUND, 16);
    // The same ids again are found by their hashes.
    let mut again = RoundReader::new(q_poker(), "q.csv");
    let row = |id: u32| format!("{long},{long}{id},t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n");
    let err = read(&format!("{HEADER}{}{}{}", row(7), row(8), row(7)), 1 << 20).unwrap_err();
    assert!(err.ends_with("is logged twice"), "{err}");
    again.feed(HEADER.as_bytes()).unwrap();
    assert!(again.seen.is_empty());
}

/// The card separators' table is `py_space`, a comma and a semicolon, on every ASCII byte.
#[test]
fn card_separators_are_python_spaces_commas_and_semicolons() {
    for b in 0..128u8 {
        let c = char::from(b);
        let want = c == ',' || c == ';' || super::python::py_space(c);
        assert_eq!(
            super::fields::CARD_SEPARATOR[usize::from(b)],
            want,
            "{b:#04x}"
        );
    }
}

/// A small xorshift generator: the tests' hashes, repeatable.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The id set against `std`'s `HashSet`: random hashes, and again hashes inserted before
/// (in the fresh table, merged into the sorted blocks one or several merges ago, just before
/// and after a merge), hashes sharing their top bits (one directory range) or their low bits
/// (one probe chain), and the extremes; every insert answers as the reference does.
#[test]
fn round_ids_find_every_repeat_as_a_hash_set_does() {
    use std::collections::HashSet;
    for (seed, min_batch) in [(1u64, 4usize), (2, 8), (3, 64), (4, 1024)] {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ seed);
        let mut ids = RoundIds::with_min_batch(min_batch);
        let mut reference: HashSet<u128> = HashSet::new();
        let mut inserted: Vec<u128> = Vec::new();
        let (mut repeats, mut found) = (0, 0);
        for step in 0..60_000 {
            let h = match rng.below(10) {
                // a repeat of any earlier hash, or of one of the last few (around a merge)
                0 | 1 if !inserted.is_empty() => inserted[rng.below(inserted.len())],
                2 if !inserted.is_empty() => {
                    inserted[inserted.len() - 1 - rng.below(inserted.len().min(2 * min_batch))]
                }
                // one directory range, one probe chain, the extremes
                3 => (u128::from(rng.next() & 3) << 126) | u128::from(rng.next() & 0xff) | 1,
                4 => (u128::from(rng.next()) << 64) | 0x10,
                5 => [1, 2, u128::MAX, u128::MAX - 1, 1 << 127][rng.below(5)],
                _ => (u128::from(rng.next()) << 64) | u128::from(rng.next()) | 1,
            };
            let want = reference.insert(h);
            let got = ids.insert_hash(h);
            assert_eq!(got, want, "seed {seed}, step {step}: {h:#x}");
            if !want {
                repeats += 1;
                found += usize::from(!got);
            }
            if want {
                inserted.push(h);
            }
            assert_eq!(ids.len(), reference.len());
        }
        assert!(repeats > 10_000 && found == repeats, "{repeats} repeats");
        // every hash is still found once the last batch is merged
        assert!(ids.sorted.len > 0 && ids.fresh_len < ids.batch);
        for h in &inserted {
            assert!(!ids.insert_hash(*h), "{h:#x} was inserted");
        }
    }
}

/// The id set's memory: 16 bytes per id in its sorted blocks, plus at most 0.25 bytes per id
/// of directory, the fresh table (2 MiB, then at most 1 byte per id) and one block's slack.
#[test]
fn round_ids_take_sixteen_bytes_an_id_and_a_bounded_overhead() {
    let mut rng = XorShift(7);
    let mut ids = RoundIds::default();
    let mut most = 0f64;
    for n in 1..=3_000_000usize {
        assert!(ids.insert_hash(u128::from(rng.next()) << 64 | u128::from(rng.next()) | 1));
        if n % 100_000 == 0 {
            let bound = 16 * n + n / 4 + (2 << 20).max(n) + 64 * 1024 + 16 * n / 4096 + 64;
            assert!(
                ids.heap_bytes() <= bound,
                "{n}: {} > {bound}",
                ids.heap_bytes()
            );
            if n >= 1_000_000 {
                most = most.max((ids.heap_bytes() - (2 << 20)) as f64 / n as f64);
            }
        }
    }
    assert!(most < 16.5, "{most} bytes per id beyond the fresh table");
}

/// A round logged twice is the error named even when a later field of the repeat is wrong
/// too (its ids are looked up after its other fields are read); a wrong field of a new round
/// is named as before.
#[test]
fn a_repeat_is_named_before_its_other_faults() {
    let first = "T,1,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n\
                 T,2,t,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n";
    for repeat in [
        "T,1,t,Qs 7d,,,,,1,9h 9d 4s,follow,10,20,10,20\n",
        "T,1,t,Qs 7d 3c,,,,bogus,1,9h 9d 4s,follow,10,20,10,20\n",
        "T,1,t,Qs 7d 3c,,x,,,1,9h 9d 4s,follow,10,20,10,20\n",
    ] {
        let err = read(&format!("{HEADER}{first}{repeat}"), 1 << 20).unwrap_err();
        assert_eq!(
            err,
            "q.csv:4: round_id: round '1' of table 'T' is logged twice"
        );
    }
    let err = read(
        &format!("{HEADER}{first}T,3,t,Qs 7d,,,,,1,9h 9d 4s,follow,10,20,10,20\n"),
        1 << 20,
    )
    .unwrap_err();
    assert_eq!(err, "q.csv:4: dealer: a q-poker hand has 3 cards, got 2");
}
