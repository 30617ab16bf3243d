use std::io::Write;
use std::sync::atomic::AtomicU64;

use flate2::write::{DeflateEncoder, GzEncoder};
use flate2::{Compression, Crc};

use super::*;

fn gz(data: &[u8], level: Compression) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), level);
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A gzip member by hand: `header`, then `data` deflated and the trailer.
fn member_after(mut m: Vec<u8>, data: &[u8]) -> Vec<u8> {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::fast());
    e.write_all(data).unwrap();
    m.extend(e.finish().unwrap());
    let mut crc = Crc::new();
    crc.update(data);
    m.extend_from_slice(&crc.sum().to_le_bytes());
    m.extend_from_slice(&(data.len() as u32).to_le_bytes());
    m
}

/// A gzip member by hand, with `extra` as its header's extra field (FEXTRA).
fn gz_with_extra(data: &[u8], extra: &[u8]) -> Vec<u8> {
    let mut m = vec![0x1f, 0x8b, 8, 0x04, 0, 0, 0, 0, 0, 255];
    m.extend_from_slice(&(extra.len() as u16).to_le_bytes());
    m.extend_from_slice(extra);
    member_after(m, data)
}

fn text(lines: u32, seed: u32) -> Vec<u8> {
    (0..lines)
        .flat_map(|i| format!("line {i} {}\n", (i + seed) * 7919 % 1000).into_bytes())
        .collect()
}

/// The log as the sequential decoder reads it (every member in turn).
fn sequential(bytes: &[u8]) -> Result<Vec<u8>, ReadError> {
    let mut d = Decoder::new("x.gz", bytes)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = d.read(&mut buf)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// The log written to a file and decoded with `in_flight` candidates ahead; the proven
/// positions handed on never go back and end at the log's size.
fn parallel(
    bytes: &[u8],
    in_flight: usize,
    library: Option<Library>,
) -> (Result<Vec<u8>, ReadError>, Decoded) {
    static FILES: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "tablecert-members-{}-{}.gz",
        std::process::id(),
        FILES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).unwrap();
    let file = File::open(&path).unwrap();
    let mut out = Vec::new();
    let mut last = 0;
    let got = decode_with(file, "x.gz", in_flight, library, |data, used| {
        assert!(used >= last, "{used} after {last}");
        last = used;
        out.extend_from_slice(data);
        true
    });
    std::fs::remove_file(&path).unwrap();
    match got {
        Ok(decoded) => {
            assert_eq!(last, bytes.len() as u64);
            (Ok(out), decoded)
        }
        Err(e) => (Err(e), Decoded::default()),
    }
}

/// The system's libdeflate: these tests need it (Debian's `libdeflate0`, on every machine
/// the project runs on), so that both speculative decoders are tested.
fn system_libdeflate() -> Library {
    libdeflate::library().expect("libdeflate.so.0 (apt-get install libdeflate0)")
}

/// Every number of candidates ahead, speculating with `miniz_oxide` and with libdeflate,
/// decodes `bytes` as the sequential decoder does; how many members the chain accepted from
/// speculation with the most ahead (the same for both decoders).
fn same_as_sequential(bytes: &[u8]) -> Decoded {
    let want = sequential(bytes);
    let mut most = [Decoded::default(); 2];
    for (k, library) in [None, Some(system_libdeflate())].into_iter().enumerate() {
        for in_flight in [0, 1, 2, 5] {
            let (got, decoded) = parallel(bytes, in_flight, library);
            assert_eq!(
                got,
                want,
                "{in_flight} ahead, libdeflate: {}",
                library.is_some()
            );
            if in_flight == 0 {
                assert_eq!(decoded.speculated, 0);
            }
            most[k] = decoded;
        }
    }
    assert_eq!(most[0], most[1], "miniz_oxide, libdeflate");
    most[0]
}

/// Members of `sizes` lines each, concatenated, and their text.
fn members(sizes: &[u32], level: Compression) -> (Vec<u8>, Vec<u8>) {
    let (mut log, mut all) = (Vec::new(), Vec::new());
    for (k, &n) in sizes.iter().enumerate() {
        let t = text(n, k as u32);
        log.extend(gz(&t, level));
        all.extend(t);
    }
    (log, all)
}

#[test]
fn many_members_are_proven_by_the_chain() {
    let (log, all) = members(
        &[3000, 0, 1, 2500, 0, 0, 4000, 10, 3000],
        Compression::fast(),
    );
    assert_eq!(sequential(&log).unwrap(), all);
    let decoded = same_as_sequential(&log);
    // The chain took most members from the speculative decodes, not in turn.
    assert!(decoded.speculated >= 6, "{decoded:?}");
}

#[test]
fn one_member_is_decoded_in_turn_alone() {
    let (log, _) = members(&[20_000], Compression::best());
    let decoded = same_as_sequential(&log);
    assert_eq!(decoded.speculated, 0);
    // An empty log of gzip (one empty member) and a lone empty member after text.
    same_as_sequential(&gz(b"", Compression::fast()));
}

#[test]
fn a_false_candidate_costs_time_never_bytes() {
    // Whole members inside the data of stored (uncompressed) deflate blocks and inside a
    // header's extra field: each decodes on its own as a valid member, ending inside the
    // member that holds it, and the chain never lands on it.
    let fake = gz(b"fake line\nnot in the log\n", Compression::fast());
    let mut payload = text(500, 1);
    payload.extend_from_slice(&fake);
    payload.extend_from_slice(&[0x1f, 0x8b, 8, 0]);
    payload.extend(text(500, 2));
    let stored = gz(&payload, Compression::none());
    let (before, before_text) = members(&[800], Compression::fast());
    let mut log = before.clone();
    log.extend(&stored);
    log.extend(gz_with_extra(&text(300, 3), &fake));
    log.extend(gz(&text(900, 4), Compression::fast()));
    let mut want = before_text;
    want.extend(&payload);
    want.extend(text(300, 3));
    want.extend(text(900, 4));
    assert_eq!(sequential(&log).unwrap(), want);
    // The scan does find the false starts (so the test exercises them).
    let at = |needle: &[u8], from: usize| {
        from + log[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };
    let inside_stored = at(&fake, before.len());
    let inside_extra = at(&fake, before.len() + stored.len());
    let path = std::env::temp_dir().join(format!("tablecert-scan-{}.gz", std::process::id()));
    std::fs::write(&path, &log).unwrap();
    let mut scan = Scan {
        file: Arc::new(File::open(&path).unwrap()),
        pos: 1,
        done: false,
        found: VecDeque::new(),
        buf: Vec::new(),
    };
    let mut found = Vec::new();
    let mut after = 0;
    while let Some(c) = scan.next_after(after).unwrap() {
        found.push(c as usize);
        after = c;
    }
    std::fs::remove_file(&path).unwrap();
    for false_start in [inside_stored, inside_extra, inside_stored + fake.len()] {
        assert!(found.contains(&false_start), "{false_start} in {found:?}");
    }
    let decoded = same_as_sequential(&log);
    assert!(decoded.speculated >= 2, "{decoded:?}");
}

#[test]
fn trailing_truncated_and_corrupt_logs_fail_as_in_turn() {
    let (log, _) = members(&[2000, 1500, 0, 2500], Compression::fast());
    for tail in [
        &b"\0\0\0"[..],
        b"garbage",
        b"\x1f",
        b"\x1f\x8b",
        b"\x1f\x8b\x08\x00",
    ] {
        let mut padded = log.clone();
        padded.extend_from_slice(tail);
        assert!(sequential(&padded).is_err());
        same_as_sequential(&padded);
    }
    let first = gz(&text(2000, 0), Compression::fast()).len();
    for cut in [
        5,
        first - 3,
        first,
        first + 11,
        log.len() / 2,
        log.len() - 3,
    ] {
        same_as_sequential(&log[..cut]);
    }
    // A data check and deflate data corrupted in the second member.
    let second = gz(&text(1500, 1), Compression::fast()).len();
    let mut bad_crc = log.clone();
    bad_crc[first + second - 6] ^= 1;
    assert!(sequential(&bad_crc)
        .unwrap_err()
        .0
        .ends_with("incorrect data check"));
    same_as_sequential(&bad_crc);
    let mut flipped = log.clone();
    for b in &mut flipped[first + 30..first + 70] {
        *b ^= 0x5A;
    }
    assert!(sequential(&flipped).is_err());
    same_as_sequential(&flipped);
}

/// A gzip member by hand with a header CRC (FHCRC), right or wrong.
fn gz_with_header_crc(data: &[u8], right: bool) -> Vec<u8> {
    let mut m = vec![0x1f, 0x8b, 8, 0x02, 0, 0, 0, 0, 0, 255];
    let mut crc = Crc::new();
    crc.update(&m);
    let check = (crc.sum() & 0xFFFF) as u16 ^ u16::from(!right);
    m.extend_from_slice(&check.to_le_bytes());
    member_after(m, data)
}

#[test]
fn a_header_crc_is_checked_as_in_turn() {
    // libdeflate skips a header CRC without checking it: such members are left to
    // `miniz_oxide`, so a wrong one fails as the sequential decoder fails.
    for right in [true, false] {
        let (mut log, _) = members(&[2000, 1500], Compression::fast());
        log.extend(gz_with_header_crc(&text(1800, 5), right));
        log.extend(gz(&text(900, 6), Compression::fast()));
        let want = sequential(&log);
        assert_eq!(want.is_ok(), right, "{want:?}");
        if !right {
            assert!(want.unwrap_err().0.ends_with("header crc mismatch"));
        }
        let decoded = same_as_sequential(&log);
        if right {
            assert!(decoded.speculated >= 2, "{decoded:?}");
        }
    }
}

/// Bytes that deflate hardly compresses.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 26) as u8
        })
        .collect()
}

#[test]
fn a_member_longer_than_the_window_is_left_to_miniz_oxide() {
    // A small member sizes the next candidates' windows (about 64 KiB); the large member
    // after it runs past its window: libdeflate does not decide it, the streaming decoder
    // does, and it is still proven by speculation.
    let mut log = gz(&text(10, 0), Compression::fast());
    log.extend(gz(&text(10, 1), Compression::fast()));
    let start = log.len();
    let large = noise(600_000, 7);
    let packed = gz(&large, Compression::fast());
    log.extend(&packed);
    log.extend(gz(&text(10, 2), Compression::fast()));
    let decoded = same_as_sequential(&log);
    assert_eq!(decoded.speculated, 3, "{decoded:?}");
    let path = std::env::temp_dir().join(format!("tablecert-window-{}.gz", std::process::id()));
    std::fs::write(&path, &log).unwrap();
    let file = File::open(&path).unwrap();
    let cancel = AtomicBool::new(false);
    let library = system_libdeflate();
    let small = Hint(AtomicU64::new(1));
    assert!(small.window() < packed.len());
    let left = speculate_whole(&file, library, start as u64, &small, &cancel);
    // With the window the member's size asks for, libdeflate decodes it whole; a false
    // candidate near the end (no more file beyond its window) is not a member, decided.
    let sized = Hint(AtomicU64::new(packed.len() as u64));
    let whole = speculate_whole(&file, library, start as u64, &sized, &cancel);
    let tail = speculate_whole(&file, library, (log.len() - 30) as u64, &sized, &cancel);
    std::fs::remove_file(&path).unwrap();
    assert!(left.is_none());
    match whole {
        Some(Speculated::Member { out, end }) => {
            assert_eq!(out, large);
            assert_eq!(end, (start + packed.len()) as u64);
        }
        _ => panic!("not decoded whole"),
    }
    assert!(matches!(tail, Some(Speculated::Unknown)));
}
