use std::fmt::Write as _;

use super::*;

fn audit() -> Audit {
    Audit::new(DeckKind::Cards52, InputMode::Previous, None, 0)
}

fn deck_text() -> String {
    (0..52u8)
        .map(crate::cards::code)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn csv_records_any_chunking() {
    let d = deck_text();
    let log = format!(
        "device_id,timestamp,shuffle_id,output\nA,1,1,{d}\nA,2,2,\"{}\"\nA,3,3,{}\n",
        d.replace(' ', ","),
        &d[3..]
    );
    for chunk in [1, 7, 1000] {
        let mut a = audit();
        a.begin_file("x.csv");
        for c in log.as_bytes().chunks(chunk) {
            a.feed(c).unwrap();
        }
        a.end_file().unwrap();
        a.finish();
        assert_eq!(a.records, 2);
        assert_eq!(a.bad_count, 1);
        assert_eq!(a.bad[0].line, 4);
        assert!(a.bad[0].reason.contains("51 items"), "{}", a.bad[0].reason);
        assert!(
            a.bad[0].reason.contains("missing 2d"),
            "{}",
            a.bad[0].reason
        );
        assert_eq!(a.total.fixed[52], 1);
    }
}

#[test]
fn a_bad_record_breaks_its_device_chain() {
    let d = deck_text();
    let log = format!(
        "device_id,timestamp,shuffle_id,output\nA,1,1,{d}\nA,2,2,Xx {}\nA,3,3,{d}\n",
        &d[3..]
    );
    let mut a = audit();
    a.begin_file("x.csv");
    a.feed(log.as_bytes()).unwrap();
    a.end_file().unwrap();
    a.finish();
    assert_eq!((a.records, a.bad_count), (2, 1));
    // Shuffle 3 has no known input: the record before it was unreadable.
    assert_eq!(a.total.referenced, 0);
}

#[test]
fn json_lines_and_events() {
    let d = deck_text();
    let codes: Vec<String> = d.split(' ').map(|c| format!("\"{c}\"")).collect();
    let log = format!(
            "{{\"device_id\":\"A\",\"timestamp\":\"t\",\"shuffle_id\":1,\"output\":\"{d}\",\"events\":[\"jam\"]}}\n\
             {{\"device_id\":\"A\",\"timestamp\":\"t\",\"shuffle_id\":2,\"output\":[{}]}}\n\
             {{\"device_id\":\"A\",\"timestamp\":\"t\",\"output\":\"{d}\"}}\n",
            codes.join(",")
        );
    let mut a = audit();
    a.begin_file("x.jsonl");
    a.feed(log.as_bytes()).unwrap();
    a.end_file().unwrap();
    assert_eq!(a.records, 2);
    assert_eq!(a.events["jam"], 1);
    assert_eq!(a.bad[0].reason, "missing shuffle_id");
}

#[test]
fn unreadable_files_are_named() {
    let mut a = audit();
    a.begin_file("e.csv");
    assert_eq!(
        a.end_file().unwrap_err().to_string(),
        "e.csv: line 0 (byte 0): empty file: no header and no records"
    );
    let mut a = audit();
    a.begin_file("u.csv");
    a.feed(b"device_id,timestamp,shuffle_id,output\nA,1,\xff")
        .unwrap();
    let err = a.end_file().unwrap_err();
    assert_eq!((err.line, err.byte), (2, 42));
    let mut a = audit();
    a.begin_file("h.csv");
    let err = a.feed(b"device,when,output\n").unwrap_err();
    assert!(err.to_string().contains("unknown column \"when\""));
}

fn read_all(log: &[u8], chunk: usize) -> Result<Audit, LogError> {
    let mut a = audit();
    a.begin_file("x.log");
    for c in log.chunks(chunk) {
        a.feed(c)?;
    }
    a.end_file()?;
    a.finish();
    Ok(a)
}

#[test]
fn every_line_is_accounted_for() {
    let d = deck_text();
    let log = format!(
        "device_id,timestamp,shuffle_id,output\n\nA,1,1,{d}\n\t \n\u{b}\n\u{c}\r\n\
             \u{a0}\u{3000}\nA,2,2,{d}\nA,3,3,{}\n   \n",
        &d[3..]
    );
    for chunk in [1, 5, 4096] {
        let a = read_all(log.as_bytes(), chunk).unwrap();
        assert_eq!((a.records, a.bad_count, a.blank_lines), (2, 1, 6));
        assert_eq!(a.header_lines, 1);
        assert_eq!(a.lines, 10);
        assert_eq!(
            a.lines,
            a.header_lines + a.records + a.bad_count + a.blank_lines
        );
    }
}

#[test]
fn json_lines_fields_are_strict() {
    let d = deck_text();
    let log = format!(
            "{{\"device_id\":\"A\",\"timestamp\":1,\"shuffle_id\":1,\"output\":\"{d}\"}}\n\
             {{\"device_id\":\"A\",\"timestamp\":1,\"shuffle_id\":2,\"output\":\"{d}\",\"cards\":\"{d}\"}}\n\
             {{\"device_id\":\"A\",\"device\":\"B\",\"timestamp\":1,\"shuffle_id\":3,\"output\":\"{d}\"}}\n\
             {{\"device_id\":\"A\",\"timestamp\":1,\"shuffle_id\":4,\"output\":\"{d}\",\"Output\":1}}\n"
        );
    let a = read_all(log.as_bytes(), 4096).unwrap();
    assert_eq!((a.records, a.bad_count), (1, 3));
    let reasons: Vec<&str> = a.bad.iter().map(|b| b.reason.as_str()).collect();
    assert_eq!(
        reasons[0],
        "fields \"cards\" and \"output\" both give the output"
    );
    assert_eq!(
        reasons[1],
        "fields \"device\" and \"device_id\" both give the device_id"
    );
    assert!(
        reasons[2].starts_with("unknown field \"Output\""),
        "{}",
        reasons[2]
    );
}

#[test]
fn a_game_record_is_read_for_its_wall_and_only_a_game_record() {
    let d = deck_text();
    let log = format!(
        "{{\"format\":\"tablecert-mahjong-game/1\",\"device_id\":\"A\",\"timestamp\":1,\
             \"shuffle_id\":1,\"output\":\"{d}\",\"dice\":[1,2,3],\"play\":[]}}\n\
             {{\"format\":\"other/1\",\"device_id\":\"A\",\"timestamp\":1,\
             \"shuffle_id\":2,\"output\":\"{d}\",\"dice\":[1,2,3]}}\n\
             {{\"format\":\"tablecert-mahjong-game/1\",\"device_id\":\"A\",\"device\":\"B\",\
             \"timestamp\":1,\"shuffle_id\":3,\"output\":\"{d}\"}}\n"
    );
    let a = read_all(log.as_bytes(), 4096).unwrap();
    // The game record's own fields are its own; a look-alike format is not a game record,
    // and conflicting aliases are refused in a game record too.
    assert_eq!((a.records, a.bad_count), (1, 2));
    assert!(
        a.bad[0].reason.starts_with("unknown field \"dice\""),
        "{}",
        a.bad[0].reason
    );
    assert!(
        a.bad[1].reason.contains("both give the device_id"),
        "{}",
        a.bad[1].reason
    );
}

#[test]
fn an_overlong_line_is_one_bad_record() {
    let d = deck_text();
    let long = "x".repeat(MAX_LINE + 10);
    for tail in ["\n", ""] {
        let log = format!(
                "device_id,timestamp,shuffle_id,output\nA,1,1,{d}\nA,2,2,{long}\nA,3,3,{d}\nA,4,4,{long}{tail}"
            );
        for chunk in [1000, 1 << 20, log.len()] {
            let a = read_all(log.as_bytes(), chunk).unwrap();
            assert_eq!(
                (a.records, a.bad_count, a.lines),
                (2, 2, 5),
                "chunk {chunk}"
            );
            assert_eq!((a.bad[0].line, a.bad[1].line), (3, 5));
            assert_eq!(
                a.bad[0].reason,
                format!("line longer than {MAX_LINE} bytes")
            );
        }
    }
    // Exactly MAX_LINE bytes is still read (and rejected for what it says).
    let log = format!(
        "device_id,timestamp,shuffle_id,output\nA,1,1,{}\n",
        "y".repeat(MAX_LINE - 8)
    );
    let a = read_all(log.as_bytes(), 1000).unwrap();
    assert!(
        a.bad[0].reason.starts_with("output order"),
        "{}",
        a.bad[0].reason
    );
    // Before any header the file cannot be read at all.
    let err = read_all(long.as_bytes(), 1000).err().unwrap();
    assert_eq!((err.line, err.byte), (1, 0));
    assert!(err.message.contains("not a shuffle log"));
}

/// A log of `records` shuffles from three devices with logged inputs, with blank lines,
/// events, bad tokens, incomplete decks and overlong lines mixed in; the expected reading
/// is built record by record on the direct (one order at a time) path.
fn mixed_log(records: u64, mode: InputMode, game: Option<Game>) -> (String, Audit) {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let mut expected = Audit::new(DeckKind::Cards52, mode, game, 97);
    expected.files.push("x.log".into());
    let mut text = String::from("device_id,timestamp,shuffle_id,output,input,events\n");
    let mut lines = 1;
    let mut decks: Vec<Vec<u8>> = vec![(0..52).collect(); 3];
    let codes = |d: &[u8]| {
        d.iter()
            .map(|&c| crate::cards::code(c))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for k in 0..records {
        let dev = next(3) as usize;
        let name = ["A", "B", "C"][dev];
        let input = decks[dev].clone();
        for i in (1..52).rev() {
            decks[dev].swap(i, next(i as u64 + 1) as usize);
        }
        let out = decks[dev].clone();
        let events = if next(10) == 0 { "jam;door" } else { "" };
        lines += 1;
        expected.line = lines;
        match next(40) {
            0 => {
                writeln!(
                    text,
                    "{name},{k},{k},{},{},",
                    codes(&out[1..]),
                    codes(&input)
                )
                .unwrap();
                expected.file_records += 1;
                let e = DeckKind::Cards52.check_complete(&out[1..]).unwrap_err();
                expected.reject(Some(name), format!("output order: {e}"));
            }
            1 => {
                writeln!(
                    text,
                    "{name},{k},{k},Zz {},{},",
                    codes(&out[1..]),
                    codes(&input)
                )
                .unwrap();
                expected.file_records += 1;
                let e = DeckKind::Cards52
                    .parse_text("Zz", &mut Vec::new())
                    .unwrap_err();
                expected.reject(Some(name), format!("output order: {e}"));
            }
            2 => {
                text.push_str(" \t\r\n");
                expected.blank_lines += 1;
            }
            _ => {
                // One record in five logs no input: read as such in every mode.
                let logged = next(5) != 0;
                let shown = if logged { codes(&input) } else { String::new() };
                writeln!(text, "{name},{k},{k},{},{shown},{events}", codes(&out)).unwrap();
                expected.file_records += 1;
                let ev: Vec<String> = events
                    .split(';')
                    .filter(|e| !e.is_empty())
                    .map(String::from)
                    .collect();
                expected.count_events(&ev);
                expected.set_input(&input);
                expected.add_order(name, &out, logged);
            }
        }
    }
    expected.lines = lines;
    expected.header_lines = 1;
    expected.finish();
    (text, expected)
}

/// Everything an audit reports, as text.
fn report(a: &Audit) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{} {} {} {} {} {} {}\n{:?}\n{:?} {:?} {}\n{:?}",
        a.total,
        a.finished_batches,
        a.bad,
        a.records,
        a.bad_count,
        a.lines,
        a.header_lines,
        a.blank_lines,
        a.without_input,
        a.records_with_events,
        a.events,
        a.repeats.offered,
        a.repeats.repeats,
        a.repeats.threshold,
        a.device_ids(),
    )
}

/// Two reports are equal; else the first difference, in context.
fn same(got: &str, want: &str, what: &str) {
    if got != want {
        let k = got
            .bytes()
            .zip(want.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let from = k.saturating_sub(100);
        panic!(
            "{what}: differs at {k}:\n got ...{}|{}\nwant ...{}|{}",
            &got[from..k],
            &got[k..(k + 300).min(got.len())],
            &want[from..k],
            &want[k..(k + 300).min(want.len())]
        );
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn game() -> Game {
    Game {
        hand_size: 5,
        hands: 7,
        round_robin: false,
        tie_breaks: crate::ranking::TieBreaks::STATUTE,
    }
}

#[test]
fn parallel_reading_is_the_sequential_reading() {
    for mode in [InputMode::Logged, InputMode::Previous, InputMode::Auto] {
        let (log, expected) = mixed_log(3000, mode, Some(game()));
        let want = report(&expected);
        assert!(expected.bad_count > 50 && expected.blank_lines > 50);
        assert!(expected.without_input > 300 && expected.without_input < 900);
        assert!(expected.finished_batches.len() > 20);
        for threads in [1, 2] {
            // Pieces cut mid-line and mid-record, one line at a time, and whole.
            for chunk in [1, 777, 65_536, log.len()] {
                let got = pool(threads).install(|| {
                    let mut a = Audit::new(DeckKind::Cards52, mode, Some(game()), 97);
                    a.begin_file("x.log");
                    for c in log.as_bytes().chunks(chunk) {
                        a.feed(c).unwrap();
                    }
                    a.end_file().unwrap();
                    a.finish();
                    a
                });
                same(
                    &report(&got),
                    &want,
                    &format!("{mode:?}, {threads} threads, chunk {chunk}"),
                );
            }
        }
    }
}

#[test]
fn unbatched_parallel_tallies_total_the_batched_ones() {
    // Without batches, orders of several spans are tallied as one task: the totals are
    // those of the order-by-order reading in batches.
    let (log, expected) = mixed_log(8000, InputMode::Logged, Some(game()));
    for threads in [1, 2] {
        let got = pool(threads).install(|| {
            let mut a = Audit::new(DeckKind::Cards52, InputMode::Logged, Some(game()), 0);
            a.begin_file("x.log");
            a.feed(log.as_bytes()).unwrap();
            a.end_file().unwrap();
            a.finish();
            a
        });
        assert!(got.finished_batches.is_empty());
        assert_eq!(got.total.shuffles, expected.total.shuffles);
        assert_eq!(got.total.serial_sum, expected.total.serial_sum);
        assert_eq!(got.total.serial_sumsq, expected.total.serial_sumsq);
        assert_eq!(
            got.total.tables(),
            expected.total.tables(),
            "{threads} threads"
        );
    }
}

fn gzip_members(data: &[u8], cuts: &[usize]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    let mut start = 0;
    for &end in cuts.iter().chain([data.len()].iter()) {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&data[start..end]).unwrap();
        out.extend(e.finish().unwrap());
        start = end;
    }
    out
}

#[test]
fn a_file_read_in_the_core_is_read_as_fed() {
    let (log, expected) = mixed_log(6000, InputMode::Logged, Some(game()));
    let want = report(&expected);
    let dir = std::env::temp_dir().join(format!("tablecert-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("x.log");
    std::fs::write(&plain, &log).unwrap();
    // Members cut mid-line (as a simulator writing one member per chunk may not).
    let gz = dir.join("x.log.gz");
    std::fs::write(&gz, gzip_members(log.as_bytes(), &[10, 100_001, 777_777])).unwrap();
    for path in [&plain, &gz] {
        // Groups of the usual size, and small ones: each group's tallies are made while
        // the next group is parsed, batches closing in either.
        for (threads, group) in [(1, GROUP), (2, GROUP), (1, 1), (2, 1)] {
            let mut calls = Vec::new();
            let got = pool(threads).install(|| {
                let mut a = Audit::new(DeckKind::Cards52, InputMode::Logged, Some(game()), 97);
                a.group = group;
                a.read_file(
                    path.to_str().unwrap(),
                    |_, used, size| (used, size),
                    |taken| {
                        calls.push(taken);
                        Ok::<(), ()>(())
                    },
                )
                .unwrap();
                a.finish();
                a
            });
            let size = std::fs::metadata(path).unwrap().len();
            assert_eq!(calls.last(), Some(&(size, Some(size))));
            if group == 1 {
                assert!(calls.len() > 3, "{} groups", calls.len());
            }
            // The file is named by its path.
            assert_eq!(got.files, vec![path.to_str().unwrap().to_string()]);
            same(
                &report(&got),
                &want,
                &format!("{path:?}, {threads} threads, groups of {group} bytes"),
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_of_a_file_read_in_the_core_name_it() {
    let dir = std::env::temp_dir().join(format!("tablecert-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (log, _) = mixed_log(2000, InputMode::Logged, None);
    let read = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let mut a = Audit::new(DeckKind::Cards52, InputMode::Logged, None, 0);
        match a.read_file(path.to_str().unwrap(), |_, _, _| (), |()| Ok::<(), ()>(())) {
            Ok(()) => "ok".to_string(),
            Err(ReadFailure::Read(e)) => e.0.replace(dir.to_str().unwrap(), "D"),
            Err(ReadFailure::Log(e)) => e.to_string().replace(dir.to_str().unwrap(), "D"),
            Err(ReadFailure::Hook(())) => "hook".to_string(),
        }
    };
    let gz = gzip_members(log.as_bytes(), &[]);
    assert_eq!(read("a.gz", &gz), "ok");
    let mut padded = gz.clone();
    padded.extend_from_slice(&[0; 512]);
    assert_eq!(
        read("p.gz", &padded),
        format!(
            "D/p.gz: the bytes after the gzip data (from compressed byte {}) are not a gzip \
                 member: trailing garbage or padding",
            gz.len()
        )
    );
    let cut = gz.len() / 2;
    assert_eq!(
        read("c.gz", &gz[..cut]),
        format!(
            "D/c.gz: corrupt or truncated gzip data: the file ends inside a member at \
                 compressed byte {cut}"
        )
    );
    // An invalid line deep in the file: its line and byte, after every piece before it.
    let at = log.len() - 2000;
    let line = log[..at].matches('\n').count() + 1;
    let start = log[..at].rfind('\n').unwrap() + 1;
    let mut bad = log.clone().into_bytes();
    bad[start + 3] = 0xff;
    assert_eq!(
        read("u.log", &bad),
        format!(
            "D/u.log: line {line} (byte {}): invalid UTF-8: logs must be UTF-8 text",
            start + 3
        )
    );
    assert_eq!(
        read("e.log", b""),
        "D/e.log: line 0 (byte 0): empty file: no header and no records"
    );
    let mut a = Audit::new(DeckKind::Cards52, InputMode::Logged, None, 0);
    let Err(ReadFailure::Read(e)) =
        a.read_file(dir.to_str().unwrap(), |_, _, _| (), |()| Ok::<(), ()>(()))
    else {
        panic!("a directory is refused")
    };
    assert!(e.0.ends_with("is a directory, not a log file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
