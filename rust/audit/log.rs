//! Reading shuffler logs: CSV/TSV (with a header) and JSON Lines, checked record by record and
//! tallied. The bytes arrive as pieces of whole lines (`stream`): a file the core reads itself
//! (gzip decompressed on its own thread) or chunks of any size fed by the caller. The lines of
//! each group of pieces are parsed in parallel; one thread then puts them in file order (line
//! numbers, bad records, events, device chains, batches, repeated orders); the orders are
//! tallied in parallel by segments that never straddle a batch, and the segment tallies are
//! added in file order. Every count, line number and result is the same whatever the number of
//! threads or the cut of the pieces.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use rayon::prelude::*;

use super::deck::DeckKind;
use super::tally::{self, Filler, Game, RepeatSampler, Tally};
use crate::cpu::{compiled_with, Avx512, Native};
use crate::logs::json::{self, Value};
use crate::logs::stream::{LineCutter, Piece, Pieces, ReadError};

/// The longest line read (a 136-tile wall with long spellings is a few kilobytes); a longer
/// record is one bad record, a longer header an unreadable file.
pub const MAX_LINE: usize = 1 << 20;
/// Bad records kept with their reasons; all are counted.
pub const MAX_BAD_KEPT: usize = 1000;
/// Bytes of lines parsed as one parallel task.
const PARSE_SPAN: usize = 1 << 18;
/// Pieces of about this size come from the reader thread.
const PIECE: usize = 1 << 19;
/// Fewest orders tallied as one parallel task (unless a batch closes first).
const MIN_TASK: usize = 2048;
/// Bytes gathered into one group when more are already waiting.
const GROUP: usize = 4 << 20;

/// What each shuffle's output is judged against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    /// The input order logged with the record.
    Logged,
    /// The same device's previous output (the device re-shuffles what was dealt).
    Previous,
    /// The logged input when the record has one, else the device's previous output.
    Auto,
    None,
}

/// A log that cannot be read at all: names the file, line and byte position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError {
    pub file: String,
    pub line: u64,
    pub byte: u64,
    pub message: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: line {} (byte {}): {}",
            self.file, self.line, self.byte, self.message
        )
    }
}

impl std::error::Error for LogError {}

/// Why reading a file stopped.
#[derive(Debug)]
pub enum ReadFailure<E> {
    /// The bytes could not be had (open, read, gzip): the message names the file.
    Read(ReadError),
    /// The text is not a shuffle log.
    Log(LogError),
    /// The caller's hook between groups failed.
    Hook(E),
}

/// A record that was read but rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    pub file: usize,
    pub line: u64,
    pub reason: String,
}

#[derive(Clone, Debug)]
struct Columns {
    delimiter: u8,
    device: usize,
    timestamp: usize,
    shuffle: usize,
    output: usize,
    input: Option<usize>,
    events: Option<usize>,
    count: usize,
}

#[derive(Clone, Debug)]
enum Format {
    Csv(Columns),
    JsonLines,
}

/// The `format` of a mahjong game record, whose wall a shuffler audit reads.
const GAME_RECORD: &str = "tablecert-mahjong-game/1";

const FIELDS: [(&str, &[&str]); 6] = [
    ("device_id", &["device_id", "device", "machine", "table"]),
    ("timestamp", &["timestamp", "time", "ts", "datetime"]),
    ("shuffle_id", &["shuffle_id", "shuffle", "id", "seq"]),
    (
        "output",
        &["output", "output_order", "order", "cards", "wall"],
    ),
    ("input", &["input", "input_order"]),
    ("events", &["events", "event", "device_events"]),
];

fn field_of(name: &str) -> Option<usize> {
    let name = name.trim().to_ascii_lowercase();
    FIELDS
        .iter()
        .position(|(_, names)| names.contains(&name.as_str()))
}

/// Split one CSV/TSV line into fields; double quotes quote, `""` is a quote.
fn split_csv<'a>(line: &'a str, delimiter: u8, out: &mut Vec<Cow<'a, str>>) -> Result<(), String> {
    out.clear();
    let b = line.as_bytes();
    let mut i = 0;
    loop {
        if b.get(i) == Some(&b'"') {
            let mut s = String::new();
            let mut j = i + 1;
            loop {
                match b.get(j) {
                    None => return Err("unterminated quoted field".into()),
                    Some(b'"') if b.get(j + 1) == Some(&b'"') => {
                        s.push('"');
                        j += 2;
                    }
                    Some(b'"') => break,
                    Some(_) => {
                        let start = j;
                        while j < b.len() && b[j] != b'"' {
                            j += 1;
                        }
                        s.push_str(&line[start..j]);
                    }
                }
            }
            out.push(Cow::Owned(s));
            i = j + 1;
            match b.get(i) {
                None => return Ok(()),
                Some(&c) if c == delimiter => i += 1,
                Some(_) => return Err("text after a closing quote".into()),
            }
        } else {
            let end = memchr::memchr(delimiter, &b[i..]).map_or(b.len(), |k| i + k);
            out.push(Cow::Borrowed(&line[i..end]));
            if end == b.len() {
                return Ok(());
            }
            i = end + 1;
        }
    }
}

/// `split_csv` of a line without double quotes and with at most `out.len()` fields (a header
/// has at most one column per field): the number of fields, or `None` for any other line.
#[inline]
fn split_plain<'a, const K: usize>(
    line: &'a str,
    delimiter: u8,
    out: &mut [&'a str; K],
) -> Option<usize> {
    let b = line.as_bytes();
    let mut start = 0;
    let mut count = 0;
    // One pass for the delimiters and a double quote (which ends it: not a plain line).
    for end in memchr::memchr2_iter(delimiter, b'"', b).chain(std::iter::once(b.len())) {
        if b.get(end) == Some(&b'"') {
            return None;
        }
        *out.get_mut(count)? = &line[start..end];
        count += 1;
        start = end + 1;
    }
    Some(count)
}

/// `s.trim().is_empty()`, answered from the first byte when it is ASCII and not white space
/// (a field or line of a log, almost always).
#[inline]
fn blank(s: &str) -> bool {
    match s.as_bytes().first() {
        Some(&b) if b.is_ascii() && !b.is_ascii_whitespace() && b != 0x0B => false,
        _ => s.trim().is_empty(),
    }
}

/// A line's text, without its CR (and, on a file's first line, a UTF-8 byte-order mark); for
/// UTF-16, a NUL byte or invalid UTF-8, the byte within the line and the message. The usual
/// line, ASCII without a NUL byte, is known in one pass that vectorises (no early exit: the
/// bytes' OR has no high bit and their minimum is not 0); any other by `line_text_checked`.
#[allow(clippy::inline_always)]
#[inline(always)]
fn line_text(raw: &[u8], first: bool) -> Result<&str, (usize, &'static str)> {
    let text = raw.strip_suffix(b"\r").unwrap_or(raw);
    let (or, min) = text
        .iter()
        .fold((0u8, u8::MAX), |(o, m), &b| (o | b, m.min(b)));
    if or < 0x80 && min > 0 {
        // SAFETY: every byte is ASCII, and ASCII is UTF-8 (a byte-order mark is not ASCII).
        return Ok(unsafe { std::str::from_utf8_unchecked(text) });
    }
    line_text_checked(raw, first)
}

/// The line at `data[at..]` when it is `len` bytes long, as the line before it was (the usual
/// case: a log's records are of one width), and plain ASCII text without NUL: `line_text` of
/// it, found and checked in one pass (no search for its end). `None`: another length, or bytes
/// that `line_text` must look at.
#[allow(clippy::inline_always)]
#[inline(always)]
fn same_length_line(data: &[u8], at: usize, len: usize) -> Option<&str> {
    let end = at + len;
    if data.get(end) != Some(&b'\n') {
        return None;
    }
    let raw = &data[at..end];
    let (or, min, newline) = raw.iter().fold((0u8, u8::MAX, u8::MAX), |(o, m, n), &b| {
        (o | b, m.min(b), n.min(b ^ b'\n'))
    });
    if or < 0x80 && min > 0 && newline > 0 {
        let text = raw.strip_suffix(b"\r").unwrap_or(raw);
        // SAFETY: every byte is ASCII, and ASCII is UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(text) });
    }
    None
}

/// `line_text` for any bytes.
fn line_text_checked(raw: &[u8], first: bool) -> Result<&str, (usize, &'static str)> {
    let mut raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if first {
        if raw.starts_with(&[0xFF, 0xFE]) || raw.starts_with(&[0xFE, 0xFF]) {
            return Err((0, "UTF-16 text (byte-order mark): logs must be UTF-8"));
        }
        raw = raw.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(raw);
    }
    if let Some(k) = memchr::memchr(0, raw) {
        return Err((
            k,
            "NUL byte: not a UTF-8 text log (UTF-16, binary, or a corrupt file?)",
        ));
    }
    std::str::from_utf8(raw)
        .map_err(|e| (e.valid_up_to(), "invalid UTF-8: logs must be UTF-8 text"))
}

fn overlong_reason() -> String {
    format!("line longer than {MAX_LINE} bytes")
}

/// The orders of the record being read, and whether each is already known to be a complete
/// deck (checked as it was read).
#[derive(Default)]
struct Scratch {
    out: Vec<u8>,
    input: Vec<u8>,
    out_checked: bool,
    input_checked: bool,
}

struct Record<'a> {
    device: Cow<'a, str>,
    has_input: bool,
    events: Vec<String>,
}

/// What one record line gives.
enum Outcome<'a> {
    /// A complete deck (and a complete input order when one is logged), in the scratch orders.
    Complete(Record<'a>),
    /// Read, but not a complete deck: its events count and its device's chain breaks.
    Incomplete(Record<'a>, String),
    /// Unreadable: the device it names, if that can be read.
    Bad(Option<String>, String),
}

/// Read one record line of a file whose format is known; no state but the scratch orders.
// Always inlined: `Parsed::read_native` compiles it with the CPU's bit instructions.
#[allow(clippy::inline_always)]
#[inline(always)]
fn read_record<'a>(deck: DeckKind, format: &Format, text: &'a str, s: &mut Scratch) -> Outcome<'a> {
    s.out_checked = false;
    s.input_checked = false;
    let parsed = match format {
        Format::JsonLines => parse_json(deck, text, s),
        Format::Csv(cols) => parse_csv(deck, text, cols, s),
    };
    let rec = match parsed {
        Ok(rec) => rec,
        Err(reason) => return Outcome::Bad(device_of(format, text), reason),
    };
    if !s.out_checked {
        if let Err(e) = deck.check_complete(&s.out) {
            return Outcome::Incomplete(rec, format!("output order: {e}"));
        }
    }
    if rec.has_input && !s.input_checked {
        if let Err(e) = deck.check_complete(&s.input) {
            return Outcome::Incomplete(rec, format!("input order: {e}"));
        }
    }
    Outcome::Complete(rec)
}

/// The device a rejected record names, if it can be read (the error path only).
fn device_of(format: &Format, text: &str) -> Option<String> {
    match format {
        Format::Csv(cols) => {
            let mut f = Vec::new();
            split_csv(text, cols.delimiter, &mut f).ok()?;
            f.get(cols.device).map(ToString::to_string)
        }
        Format::JsonLines => match json::parse(text).ok()? {
            Value::Object(m) => FIELDS[0]
                .1
                .iter()
                .find_map(|k| m.get(k).and_then(Value::as_text).map(str::to_string)),
            _ => None,
        },
    }
}

// Always inlined: `Parsed::read_native` compiles it with the CPU's bit instructions.
#[allow(clippy::inline_always)]
#[inline(always)]
fn parse_csv<'a>(
    deck: DeckKind,
    text: &'a str,
    cols: &Columns,
    s: &mut Scratch,
) -> Result<Record<'a>, String> {
    // A line without quotes (the usual one) is split in place; any other by `split_csv`.
    let mut plain = [""; FIELDS.len()];
    let mut quoted = Vec::new();
    let count = if let Some(count) = split_plain(text, cols.delimiter, &mut plain) {
        count
    } else {
        split_csv(text, cols.delimiter, &mut quoted)?;
        quoted.len()
    };
    if count != cols.count {
        return Err(format!("{count} fields, the header has {}", cols.count));
    }
    let f = |i: usize| -> &str { quoted.get(i).map_or(plain[i], |q: &Cow<'_, str>| q) };
    for (name, i) in [
        ("device_id", cols.device),
        ("timestamp", cols.timestamp),
        ("shuffle_id", cols.shuffle),
    ] {
        if blank(f(i)) {
            return Err(format!("missing {name}"));
        }
    }
    s.out_checked = deck
        .parse_text_checked(f(cols.output), &mut s.out)
        .map_err(|e| format!("output order: {e}"))?;
    let has_input = match cols.input {
        Some(i) if !blank(f(i)) => {
            s.input_checked = deck
                .parse_text_checked(f(i), &mut s.input)
                .map_err(|e| format!("input order: {e}"))?;
            true
        }
        _ => false,
    };
    let events = cols.events.map_or_else(Vec::new, |i| {
        f(i).split([';', '|'])
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect()
    });
    let device = if quoted.is_empty() {
        Cow::Borrowed(plain[cols.device])
    } else {
        std::mem::replace(&mut quoted[cols.device], Cow::Borrowed(""))
    };
    Ok(Record {
        device,
        has_input,
        events,
    })
}

fn parse_json<'a>(deck: DeckKind, text: &'a str, s: &mut Scratch) -> Result<Record<'a>, String> {
    let Value::Object(m) = json::parse(text)? else {
        return Err("a JSON Lines record must be an object".into());
    };
    // Each field once, under one of its names; any other key is an error, as a CSV
    // header's unknown column is.
    let mut slots: [Option<(Cow<'a, str>, Value<'a>)>; 6] = Default::default();
    // A mahjong game record (docs/formats/mahjong-records.md) is read for its wall: its
    // other fields belong to the game record, which `mahjong replay` checks.
    let game_record = matches!(m.get("format"), Some(Value::String(f)) if f == GAME_RECORD);
    for (key, value) in m {
        let Some(f) = FIELDS
            .iter()
            .position(|(_, names)| names.contains(&key.as_ref()))
        else {
            if game_record {
                continue;
            }
            return Err(format!(
                "unknown field {key:?} (expected device_id, timestamp, shuffle_id, \
                 output, and optionally input, events)"
            ));
        };
        if let Some((other, _)) = &slots[f] {
            return Err(format!(
                "fields {other:?} and {key:?} both give the {}",
                FIELDS[f].0
            ));
        }
        slots[f] = Some((key, value));
    }
    let mut get = |f: usize| -> Option<Value<'a>> { slots[f].take().map(|(_, v)| v) };
    let mut text_of = |f: usize| -> Result<Cow<'a, str>, String> {
        match get(f) {
            Some(Value::String(t) | Value::Number(t)) if !blank(&t) => Ok(t),
            Some(_) => Err(format!(
                "{} must be a non-empty string or number",
                FIELDS[f].0
            )),
            None => Err(format!("missing {}", FIELDS[f].0)),
        }
    };
    let device = text_of(0)?;
    text_of(1)?;
    text_of(2)?;
    let order = |v: &Value, out: &mut Vec<u8>| -> Result<(), String> {
        match v {
            Value::String(s) => deck.parse_text(s, out),
            Value::Array(items) => {
                if !items.iter().all(|v| v.as_text().is_some()) {
                    return Err("codes must be strings".into());
                }
                deck.parse_list(items.iter().filter_map(Value::as_text), out)
            }
            _ => Err("must be a string or an array of codes".into()),
        }
    };
    match get(3) {
        Some(v) => order(&v, &mut s.out).map_err(|e| format!("output order: {e}"))?,
        None => return Err("missing output".into()),
    }
    let has_input = match get(4) {
        None | Some(Value::Null) => false,
        Some(v) => {
            order(&v, &mut s.input).map_err(|e| format!("input order: {e}"))?;
            true
        }
    };
    let events = match get(5) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s
            .split([';', '|', ','])
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_text()
                    .map(str::to_string)
                    .ok_or("events must be strings")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("events must be a string or an array of strings".into()),
    };
    Ok(Record {
        device,
        has_input,
        events,
    })
}

/// One record line as read without the audit's state.
struct Item {
    /// Line within its span, from 1.
    line: u64,
    events: Vec<String>,
    kind: Kind,
}

enum Kind {
    /// A complete deck of device `names[device]`: its orders are next in `orders`.
    Complete { device: usize, input: bool },
    Rejected {
        device: Option<String>,
        reason: String,
    },
}

/// A span of whole lines of a file whose format is known, read in parallel.
#[derive(Default)]
struct Parsed {
    /// Lines read (up to and including an unreadable one), and the blank ones among them.
    lines: u64,
    blank: u64,
    items: Vec<Item>,
    /// Each complete record's output order, then its input order when one is logged.
    orders: Vec<u8>,
    names: Vec<String>,
    /// Each complete record's `hash128` of its output, and of its permutation relative to its
    /// logged input when that is what it is judged against.
    hashes: Vec<(u128, Option<u128>)>,
    /// An unreadable line: its line within the span, its byte in the file, the message.
    fatal: Option<(u64, u64, &'static str)>,
}

impl Parsed {
    /// A line longer than `MAX_LINE`, dropped by the reader: one bad record.
    fn overlong() -> Parsed {
        Parsed {
            lines: 1,
            items: vec![Item {
                line: 1,
                events: Vec::new(),
                kind: Kind::Rejected {
                    device: None,
                    reason: overlong_reason(),
                },
            }],
            ..Parsed::default()
        }
    }

    fn name(&mut self, device: &str) -> usize {
        if let Some(i) = self.names.iter().rposition(|n| n == device) {
            return i;
        }
        self.names.push(device.to_string());
        self.names.len() - 1
    }

    /// Read the lines of `data` (starting at byte `offset` of the file).
    fn read(deck: DeckKind, mode: InputMode, format: &Format, data: &[u8], offset: u64) -> Parsed {
        #[cfg(target_arch = "x86_64")]
        if Native::detect().is_some() {
            // SAFETY: a `Native` is made only on a CPU that has the features (`Native::detect`).
            return unsafe { Parsed::read_native(deck, mode, format, data, offset) };
        }
        Parsed::read_portable(deck, mode, format, data, offset)
    }

    compiled_with!(
        native,
        fn read_native(
            deck: DeckKind,
            mode: InputMode,
            format: &Format,
            data: &[u8],
            offset: u64,
        ) -> Parsed = Parsed::read_portable
    );

    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn read_portable(
        deck: DeckKind,
        mode: InputMode,
        format: &Format,
        data: &[u8],
        offset: u64,
    ) -> Parsed {
        let mut p = Parsed::default();
        // Room for the usual records (a deck's text is at least twice its length in bytes): the
        // buffers do not grow by copies as the span is read.
        p.orders.reserve(data.len() / 2);
        p.items.reserve(data.len() / 128);
        let mut s = Scratch::default();
        let mut rel = vec![0u8; deck.size()];
        // The orders are hashed after the span is read, several at a time: where each
        // record's output and relative permutation lie in `orders`.
        let mut hash_at: Vec<(usize, Option<usize>)> = Vec::with_capacity(data.len() / 128);
        let mut at = 0;
        // The length of the line before (without its newline).
        let mut width = 0;
        while at < data.len() {
            let start = at;
            p.lines += 1;
            let line = p.lines;
            let text = if let Some(text) = same_length_line(data, start, width) {
                at = start + width + 1;
                text
            } else {
                let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |k| at + k);
                at = end + 1;
                let raw = &data[start..end];
                if raw.len() > MAX_LINE {
                    p.items.push(Item {
                        line,
                        events: Vec::new(),
                        kind: Kind::Rejected {
                            device: None,
                            reason: overlong_reason(),
                        },
                    });
                    continue;
                }
                width = raw.len();
                match line_text(raw, false) {
                    Ok(t) => t,
                    Err((k, message)) => {
                        p.fatal = Some((line, offset + (start + k) as u64, message));
                        break;
                    }
                }
            };
            if blank(text) {
                p.blank += 1;
                continue;
            }
            let (kind, events) = match read_record(deck, format, text, &mut s) {
                Outcome::Complete(rec) => {
                    let device = p.name(&rec.device);
                    let out_at = p.orders.len();
                    p.orders.extend_from_slice(&s.out);
                    if rec.has_input {
                        p.orders.extend_from_slice(&s.input);
                    }
                    let judged = matches!(mode, InputMode::Logged | InputMode::Auto)
                        && rec.has_input
                        && deck.distinct();
                    // The permutation relative to the input: kept for the tally, hashed with
                    // the output after the span.
                    let rel_at = p.orders.len();
                    if judged {
                        tally::relative(&s.out, &s.input, &mut rel);
                        p.orders.extend_from_slice(&rel);
                    }
                    hash_at.push((out_at, judged.then_some(rel_at)));
                    let input = rec.has_input;
                    (Kind::Complete { device, input }, rec.events)
                }
                Outcome::Incomplete(rec, reason) => (
                    Kind::Rejected {
                        device: Some(rec.device.into_owned()),
                        reason,
                    },
                    rec.events,
                ),
                Outcome::Bad(device, reason) => (Kind::Rejected { device, reason }, Vec::new()),
            };
            p.items.push(Item { line, events, kind });
        }
        let avx512 = Avx512::detect();
        tally::hash128_orders(&p.orders, deck.size(), &hash_at, &mut p.hashes, avx512);
        p
    }
}

/// Where a placed order's tally finds an order: in its span's `orders` or in the job's copies
/// of previous orders.
#[derive(Clone, Copy)]
enum At {
    Orders(usize),
    Previous(usize),
}

/// One placed order, to be tallied: its output, the order it is judged against, and its
/// device's previous output.
struct Slot {
    out: usize,
    reference: Option<At>,
    /// The output relative to the reference, when the parse made it (in `orders`).
    relative: Option<usize>,
    previous: Option<At>,
}

/// Orders of one batch (at most) within one span, tallied as one task.
#[derive(Default)]
struct Segment {
    end: usize,
    /// The batch is complete after this segment.
    closes: bool,
    /// Completed coupon collections (histogram indices).
    coupons: Vec<usize>,
}

/// A span's placed orders.
#[derive(Default)]
struct Job {
    slots: Vec<Slot>,
    previous: Vec<u8>,
    segments: Vec<Segment>,
}

/// Where a placed order's device's previous output is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Previous {
    /// It is the order's logged input (a device re-shuffling what it dealt, the usual log):
    /// not copied, and the tally knows the two are one order.
    Input,
    /// Appended to the caller's buffer.
    Appended,
}

/// What the order of an added shuffle decided.
struct Placed {
    /// The device's previous output, when its chain is unbroken.
    previous: Option<Previous>,
    reference: Reference,
    coupon: Option<usize>,
    closes: bool,
}

enum Reference {
    Input,
    Previous,
    None,
}

/// One device: its last output while its chain of orders is unbroken, its coupon collection.
struct Device {
    name: String,
    last: Vec<u8>,
    chained: bool,
    collector: Option<tally::Collector>,
}

/// The streaming audit of one or more log files.
pub struct Audit {
    pub deck: DeckKind,
    pub mode: InputMode,
    pub batch_size: u64,
    pub total: Tally,
    pub batch: Tally,
    pub finished_batches: Vec<Tally>,
    pub repeats: RepeatSampler,
    pub files: Vec<String>,
    pub records: u64,
    /// Every line read, in every file: headers + records + bad records + blank lines.
    pub lines: u64,
    /// CSV/TSV header lines.
    pub header_lines: u64,
    /// Empty or whitespace-only lines (tabs, VT, FF, NBSP ...): not records, but counted.
    pub blank_lines: u64,
    pub bad: Vec<BadRecord>,
    pub bad_count: u64,
    /// Records that log no input order (counted whatever the input mode).
    pub without_input: u64,
    pub events: BTreeMap<String, u64>,
    pub records_with_events: u64,
    /// When set, every accepted order is also appended here for the caller to drain (hooks
    /// that need the orders themselves, such as the mahjong deal).
    pub kept: Option<Vec<u8>>,
    names: HashMap<String, usize>,
    devices: Vec<Device>,
    /// Orders placed in the batch being filled.
    in_batch: u64,
    // Per-file reading state.
    line: u64,
    offset: u64,
    line_start: u64,
    file_records: u64,
    cutter: LineCutter,
    format: Option<Format>,
    scratch: Scratch,
    rel: Vec<u8>,
    /// Hashes placed but not yet offered to `repeats` (kind, hash), in file order: offered
    /// while the orders are tallied.
    offers: Vec<(u8, u128)>,
    /// `read_file` reads groups of at least this many bytes, in pieces of at most as many
    /// (`GROUP`; less in tests, to overlap many groups' tallies with the next parse).
    group: usize,
}

impl Audit {
    /// The ids of the devices whose records were accepted, sorted (for the report's
    /// identification of what was examined).
    #[must_use]
    pub fn device_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .devices
            .iter()
            .filter(|d| d.collector.is_some())
            .map(|d| d.name.clone())
            .collect();
        ids.sort_unstable();
        ids
    }

    #[must_use]
    pub fn new(deck: DeckKind, mode: InputMode, game: Option<Game>, batch_size: u64) -> Audit {
        Audit {
            deck,
            mode,
            batch_size,
            total: Tally::new(deck, game),
            batch: Tally::new(deck, game),
            finished_batches: Vec::new(),
            repeats: RepeatSampler::new(1 << 18),
            files: Vec::new(),
            records: 0,
            lines: 0,
            header_lines: 0,
            blank_lines: 0,
            bad: Vec::new(),
            bad_count: 0,
            without_input: 0,
            events: BTreeMap::new(),
            records_with_events: 0,
            kept: None,
            names: HashMap::new(),
            devices: Vec::new(),
            in_batch: 0,
            line: 0,
            offset: 0,
            line_start: 0,
            file_records: 0,
            cutter: LineCutter::new(0, MAX_LINE),
            format: None,
            scratch: Scratch::default(),
            rel: Vec::new(),
            offers: Vec::new(),
            group: GROUP,
        }
    }

    fn fatal(&self, byte: u64, message: impl Into<String>) -> LogError {
        LogError {
            file: self.files.last().cloned().unwrap_or_default(),
            line: self.line,
            byte,
            message: message.into(),
        }
    }

    /// Start reading a file (its name appears in every message about it).
    pub fn begin_file(&mut self, name: &str) {
        self.files.push(name.to_string());
        self.line = 0;
        self.offset = 0;
        self.file_records = 0;
        self.cutter = LineCutter::new(0, MAX_LINE);
        self.format = None;
    }

    /// Feed the next bytes of the current file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), LogError> {
        let mut pieces = Vec::new();
        self.cutter.push(chunk, &mut pieces);
        self.process(&pieces)
    }

    /// Read one whole file in the core (plain or gzip, a FIFO too): decompressed on a reader
    /// thread while the lines already read are parsed and tallied in parallel; `between` is
    /// called after each group of lines with the file bytes used so far and the size on disk
    /// (`None` for a FIFO), for progress and for draining batches.
    pub fn read_file<E>(
        &mut self,
        path: &str,
        mut between: impl FnMut(&mut Audit, u64, Option<u64>) -> Result<(), E>,
    ) -> Result<(), ReadFailure<E>> {
        let mut pieces =
            Pieces::open(path, PIECE.min(self.group), MAX_LINE).map_err(ReadFailure::Read)?;
        self.begin_file(path);
        // A group's lines are placed and tallied while the next group is parsed.
        let mut pending = Vec::new();
        let result = self.read_groups(&mut pieces, &mut pending, &mut between);
        // Its own errors first: the last group's lines come before a read error's.
        self.place_and_tally(pending).map_err(ReadFailure::Log)?;
        result?;
        self.end_file().map_err(ReadFailure::Log)
    }

    /// `read_file`'s groups of lines; the last group's lines are left in `pending`, parsed.
    fn read_groups<E>(
        &mut self,
        pieces: &mut Pieces,
        pending: &mut Vec<Parsed>,
        between: &mut impl FnMut(&mut Audit, u64, Option<u64>) -> Result<(), E>,
    ) -> Result<(), ReadFailure<E>> {
        while let Some(first) = pieces.next_batch() {
            let mut group = first.map_err(ReadFailure::Read)?;
            let mut failed = None;
            while group_bytes(&group) < self.group {
                match pieces.try_next() {
                    Some(Ok(more)) => group.extend(more),
                    Some(Err(e)) => {
                        failed = Some(e);
                        break;
                    }
                    None => break,
                }
            }
            // The lines before a read error are read first: their own errors come first.
            self.process_after(&group, pending)
                .map_err(ReadFailure::Log)?;
            pieces.recycle(group);
            if let Some(e) = failed {
                return Err(ReadFailure::Read(e));
            }
            between(self, pieces.consumed(), pieces.size).map_err(ReadFailure::Hook)?;
        }
        Ok(())
    }

    /// A line longer than `MAX_LINE` before the header is known: an unreadable file.
    fn overlong_first_line(&mut self) -> LogError {
        self.line += 1;
        self.lines += 1;
        self.fatal(
            self.line_start,
            format!(
                "{} before a header or first record: not a shuffle log",
                overlong_reason()
            ),
        )
    }

    /// Finish the current file: read a last line without a newline; an empty file is an error.
    pub fn end_file(&mut self) -> Result<(), LogError> {
        let mut pieces = Vec::new();
        self.cutter.finish(&mut pieces);
        self.process(&pieces)?;
        if self.file_records == 0 {
            return Err(self.fatal(
                self.offset,
                if self.offset == 0 {
                    "empty file: no header and no records"
                } else {
                    "no shuffle records in the file"
                },
            ));
        }
        Ok(())
    }

    /// Finish the audit: the partial last batch joins the total.
    pub fn finish(&mut self) {
        if self.batch.shuffles > 0 {
            self.total.merge(&self.batch);
            self.batch = Tally::new(self.deck, self.total.game);
        }
        self.in_batch = 0;
    }

    /// Read pieces of whole lines of the current file, in order: the lines before the format
    /// is known one by one, the rest in parallel, and tally them.
    fn process(&mut self, pieces: &[Piece]) -> Result<(), LogError> {
        let mut parsed = Vec::new();
        self.process_after(pieces, &mut parsed)?;
        self.place_and_tally(parsed)
    }

    /// `process`, with the lines parsed before (`pending`) placed and tallied while these
    /// pieces are parsed; these pieces' lines are left in `pending`, parsed, for the caller
    /// (to place and tally with the next pieces' parse, or alone). Placing is in file order
    /// and the tallies are integer sums: the same whichever parse they overlap. (Lines are read
    /// one by one before the file's format is known, and only then: `pending` is empty.)
    fn process_after(
        &mut self,
        pieces: &[Piece],
        pending: &mut Vec<Parsed>,
    ) -> Result<(), LogError> {
        enum Span<'a> {
            Lines(&'a [u8], u64),
            Overlong,
        }
        let mut spans = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Overlong { offset } => {
                    if self.format.is_none() {
                        self.line_start = *offset;
                        return Err(self.overlong_first_line());
                    }
                    spans.push(Span::Overlong);
                }
                Piece::Lines { data, offset } => {
                    let mut at = 0;
                    while self.format.is_none() && at < data.len() {
                        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |k| at + k);
                        self.line_start = offset + at as u64;
                        if end - at > MAX_LINE {
                            return Err(self.overlong_first_line());
                        }
                        self.process_line(&data[at..end])?;
                        at = end + 1;
                    }
                    while at < data.len() {
                        let mut end = (at + PARSE_SPAN).min(data.len());
                        if end < data.len() {
                            end = memchr::memchr(b'\n', &data[end..])
                                .map_or(data.len(), |k| end + k + 1);
                        }
                        spans.push(Span::Lines(&data[at..end], offset + at as u64));
                        at = end;
                    }
                    self.offset = offset + data.len() as u64;
                }
            }
        }
        let Some(format) = self.format.clone() else {
            return Ok(());
        };
        let (deck, mode) = (self.deck, self.mode);
        let read = |span: &Span<'_>| match span {
            Span::Lines(data, offset) => Parsed::read(deck, mode, &format, data, *offset),
            Span::Overlong => Parsed::overlong(),
        };
        let before = std::mem::take(pending);
        let (parsed, placed) = rayon::join(
            || -> Vec<Parsed> {
                if spans.len() > 1 {
                    spans.par_iter().map(read).collect()
                } else {
                    spans.iter().map(read).collect()
                }
            },
            || self.place_and_tally(before),
        );
        placed?;
        *pending = parsed;
        Ok(())
    }

    /// Place parsed spans in file order, up to an unreadable line, and tally their orders.
    fn place_and_tally(&mut self, mut parsed: Vec<Parsed>) -> Result<(), LogError> {
        let mut jobs = Vec::with_capacity(parsed.len());
        let mut failed = None;
        for p in &mut parsed {
            match self.place_span(p) {
                Ok(job) => jobs.push(job),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        self.tally_jobs(&parsed, &jobs);
        failed.map_or(Ok(()), Err)
    }

    /// Put a parsed span in file order: line numbers, events, bad records, device chains,
    /// batches and repeated orders; its orders are tallied later.
    fn place_span(&mut self, p: &mut Parsed) -> Result<Job, LogError> {
        let n = self.deck.size();
        let mut job = Job::default();
        job.segments.push(Segment::default());
        let mut ids: Vec<Option<usize>> = vec![None; p.names.len()];
        let base = self.line;
        let mut cursor = 0;
        let mut hashes = p.hashes.iter();
        for item in std::mem::take(&mut p.items) {
            self.line = base + item.line;
            self.file_records += 1;
            self.count_events(&item.events);
            match item.kind {
                Kind::Complete { device, input } => {
                    let d = if let Some(d) = ids[device] {
                        d
                    } else {
                        let d = self.device(&p.names[device]);
                        ids[device] = Some(d);
                        d
                    };
                    let hashes = hashes.next().copied();
                    let mut next = || {
                        cursor += n;
                        cursor - n
                    };
                    let out = next();
                    let input = input.then(&mut next);
                    // Kept after the input when its hash was made in the parse.
                    let relative = hashes.and_then(|(_, against)| against).map(|_| next());
                    let at = job.previous.len();
                    let placed = self.place(
                        d,
                        &p.orders[out..out + n],
                        input.map(|i| &p.orders[i..i + n]),
                        &mut job.previous,
                        hashes,
                    );
                    let previous = placed.previous.and_then(|was| match was {
                        Previous::Input => input.map(At::Orders),
                        Previous::Appended => Some(At::Previous(at)),
                    });
                    let (reference, relative) = match placed.reference {
                        Reference::Input => (input.map(At::Orders), relative),
                        Reference::Previous => (previous, None),
                        Reference::None => (None, None),
                    };
                    job.slots.push(Slot {
                        out,
                        reference,
                        relative,
                        previous,
                    });
                    let segment = job.segments.last_mut().expect("one segment at least");
                    segment.coupons.extend(placed.coupon);
                    if placed.closes {
                        segment.end = job.slots.len();
                        segment.closes = true;
                        job.segments.push(Segment::default());
                    }
                }
                Kind::Rejected { device, reason } => self.reject(device.as_deref(), reason),
            }
        }
        if let Some(last) = job.segments.last_mut() {
            last.end = job.slots.len();
        }
        self.line = base + p.lines;
        self.lines += p.lines;
        self.blank_lines += p.blank;
        if let Some((line, byte, message)) = p.fatal {
            self.line = base + line;
            return Err(self.fatal(byte, message));
        }
        Ok(job)
    }

    /// Tally the placed orders by segments in parallel, then add the segment tallies to the
    /// batches in file order. Consecutive segments of one batch (across spans) are tallied as
    /// one task of at least `MIN_TASK` orders: a tally is a few hundred kilobytes to clear and
    /// merge, and integer sums do not depend on how the orders are grouped.
    fn tally_jobs(&mut self, parsed: &[Parsed], jobs: &[Job]) {
        /// One task: segments `(job, start, segment)` tallied together, the last maybe closing
        /// its batch.
        type Task<'a> = Vec<(usize, usize, &'a Segment)>;
        let n = self.deck.size();
        let (deck, game) = (self.deck, self.total.game);
        let total: usize = jobs.iter().map(|job| job.slots.len()).sum();
        let size = (total / (2 * rayon::current_num_threads())).max(MIN_TASK);
        let mut tasks: Vec<Task<'_>> = vec![Vec::new()];
        let mut filled = 0;
        for (j, job) in jobs.iter().enumerate() {
            let mut start = 0;
            for segment in &job.segments {
                let task = tasks.last_mut().expect("one task at least");
                task.push((j, start, segment));
                filled += segment.end - start;
                start = segment.end;
                if segment.closes || filled >= size {
                    tasks.push(Vec::new());
                    filled = 0;
                }
            }
        }
        let tally = |task: &Task<'_>| {
            let mut t = Filler::new(deck, game);
            for &(j, start, segment) in task {
                let (orders, job) = (&parsed[j].orders, &jobs[j]);
                let order = |at: At| match at {
                    At::Orders(a) => &orders[a..a + n],
                    At::Previous(a) => &job.previous[a..a + n],
                };
                for slot in &job.slots[start..segment.end] {
                    let previous = slot.previous.map(order);
                    t.add(
                        &orders[slot.out..slot.out + n],
                        slot.reference.map(order),
                        slot.relative.map(|r| &orders[r..r + n]),
                        previous,
                    );
                }
            }
            t
        };
        let mut offers = std::mem::take(&mut self.offers);
        let repeats = &mut self.repeats;
        // The repeated-order sample is a large hash set filled in file order: on its own thread
        // while the tallies run on the others.
        let (tallies, ()) = rayon::join(
            || -> Vec<Filler> {
                if tasks.len() > 1 {
                    tasks.par_iter().map(tally).collect()
                } else {
                    tasks.iter().map(tally).collect()
                }
            },
            || {
                for (kind, h) in offers.drain(..) {
                    repeats.offer_hash(kind, h);
                }
            },
        );
        self.offers = offers;
        for (task, t) in tasks.iter().zip(tallies) {
            if task.iter().any(|(_, start, segment)| segment.end > *start) {
                t.add_to(&mut self.batch);
            }
            for (_, _, segment) in task {
                for &c in &segment.coupons {
                    self.batch.coupon[c] += 1;
                }
            }
            if task.last().is_some_and(|(_, _, segment)| segment.closes) {
                self.close_batch();
            }
        }
    }

    /// Offer the placed hashes to the repeated-order sample, in file order.
    fn offer_placed(&mut self) {
        for (kind, h) in self.offers.drain(..) {
            self.repeats.offer_hash(kind, h);
        }
    }

    fn close_batch(&mut self) {
        let done = std::mem::replace(&mut self.batch, Tally::new(self.deck, self.total.game));
        self.total.merge(&done);
        self.finished_batches.push(done);
    }

    fn count_events(&mut self, events: &[String]) {
        for e in events {
            *self.events.entry(e.clone()).or_insert(0) += 1;
        }
        if !events.is_empty() {
            self.records_with_events += 1;
        }
    }

    /// A line read before the format is known: blank, the CSV header, or a first JSON record.
    fn process_line(&mut self, raw: &[u8]) -> Result<(), LogError> {
        self.line += 1;
        self.lines += 1;
        let text = match line_text(raw, self.line == 1) {
            Ok(t) => t,
            Err((k, message)) => return Err(self.fatal(self.line_start + k as u64, message)),
        };
        if text.trim().is_empty() {
            self.blank_lines += 1;
            return Ok(());
        }
        self.read_header(text)
    }

    fn read_header(&mut self, text: &str) -> Result<(), LogError> {
        if text.trim_start().starts_with('{') {
            self.format = Some(Format::JsonLines);
            self.process_first_json(text);
            return Ok(());
        }
        self.header_lines += 1;
        let delimiter = if text.contains('\t') { b'\t' } else { b',' };
        let mut fields = Vec::new();
        split_csv(text, delimiter, &mut fields)
            .map_err(|e| self.fatal(self.line_start, format!("CSV header: {e}")))?;
        let mut idx: [Option<usize>; 6] = [None; 6];
        for (i, name) in fields.iter().enumerate() {
            match field_of(name) {
                Some(f) if idx[f].is_none() => idx[f] = Some(i),
                Some(f) => {
                    return Err(self.fatal(
                        self.line_start,
                        format!("CSV header names {} twice", FIELDS[f].0),
                    ))
                }
                None => {
                    return Err(self.fatal(
                        self.line_start,
                        format!(
                            "CSV header: unknown column {:?} (expected device_id, timestamp, \
                             shuffle_id, output, and optionally input, events)",
                            name.as_ref()
                        ),
                    ))
                }
            }
        }
        let need = |f: usize| {
            idx[f].ok_or_else(|| {
                self.fatal(
                    self.line_start,
                    format!("CSV header lacks the {} column", FIELDS[f].0),
                )
            })
        };
        self.format = Some(Format::Csv(Columns {
            delimiter,
            device: need(0)?,
            timestamp: need(1)?,
            shuffle: need(2)?,
            output: need(3)?,
            input: idx[4],
            events: idx[5],
            count: fields.len(),
        }));
        Ok(())
    }

    fn process_first_json(&mut self, text: &str) {
        self.file_records += 1;
        let mut s = std::mem::take(&mut self.scratch);
        match read_record(self.deck, &Format::JsonLines, text, &mut s) {
            Outcome::Complete(rec) => {
                self.count_events(&rec.events);
                self.add_direct(&rec.device, &s.out, rec.has_input.then_some(&s.input[..]));
            }
            Outcome::Incomplete(rec, reason) => {
                self.count_events(&rec.events);
                self.reject(Some(&rec.device), reason);
            }
            Outcome::Bad(device, reason) => self.reject(device.as_deref(), reason),
        }
        self.scratch = s;
    }

    fn reject(&mut self, device: Option<&str>, reason: String) {
        if let Some(&d) = device.and_then(|d| self.names.get(d)) {
            // The device's chain of orders is broken: the next shuffle has no known input.
            self.devices[d].chained = false;
        }
        self.bad_count += 1;
        if self.bad.len() < MAX_BAD_KEPT {
            self.bad.push(BadRecord {
                file: self.files.len() - 1,
                line: self.line,
                reason,
            });
        }
    }

    /// The index of a device, known from now on.
    fn device(&mut self, name: &str) -> usize {
        if let Some(&d) = self.names.get(name) {
            return d;
        }
        self.devices.push(Device {
            name: name.to_string(),
            last: Vec::new(),
            chained: false,
            collector: None,
        });
        self.names.insert(name.to_string(), self.devices.len() - 1);
        self.devices.len() - 1
    }

    /// Everything about one complete order of device `d` that depends on the orders before
    /// it (counts, its device's chain and coupon collection, repeated orders, batches); the
    /// device's previous output, if any and not the same as `input`, is appended to
    /// `previous`. The tally is the caller's.
    fn place(
        &mut self,
        d: usize,
        out: &[u8],
        input: Option<&[u8]>,
        previous: &mut Vec<u8>,
        hashes: Option<(u128, Option<u128>)>,
    ) -> Placed {
        self.records += 1;
        if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(out);
        }
        let symbols = self.deck.symbols();
        let device = &mut self.devices[d];
        let chained = device.chained;
        let at = previous.len();
        let was = chained.then(|| {
            if input == Some(&device.last[..]) {
                Previous::Input
            } else {
                previous.extend_from_slice(&device.last);
                Previous::Appended
            }
        });
        let coupon = device
            .collector
            .get_or_insert_with(tally::Collector::default)
            .add(out[0], symbols);
        device.last.clear();
        device.last.extend_from_slice(out);
        device.chained = true;
        if input.is_none() {
            self.without_input += 1; // in every mode: whether the log states inputs is news
        }
        let reference = match self.mode {
            InputMode::Logged | InputMode::Auto if input.is_some() => Reference::Input,
            InputMode::Previous | InputMode::Auto if chained => Reference::Previous,
            InputMode::Logged | InputMode::Previous | InputMode::Auto | InputMode::None => {
                Reference::None
            }
        };
        let (hash, relative) = hashes.unwrap_or_else(|| (tally::hash128(0, out), None));
        self.offers.push((0, hash));
        let against = match reference {
            Reference::Input => input,
            Reference::Previous if was == Some(Previous::Input) => input,
            Reference::Previous => Some(&previous[at..]),
            Reference::None => None,
        };
        if let (Some(against), true) = (against, self.deck.distinct()) {
            let h = relative.unwrap_or_else(|| {
                self.rel.resize(out.len(), 0);
                tally::relative(out, against, &mut self.rel);
                tally::hash128(1, &self.rel)
            });
            self.offers.push((1, h));
        }
        self.in_batch += 1;
        let closes = self.batch_size > 0 && self.in_batch >= self.batch_size;
        if closes {
            self.in_batch = 0;
        }
        Placed {
            previous: was,
            reference,
            coupon,
            closes,
        }
    }

    /// Place and tally one complete order at once.
    fn add_direct(&mut self, device: &str, out: &[u8], input: Option<&[u8]>) {
        let d = self.device(device);
        let mut previous = Vec::new();
        let placed = self.place(d, out, input, &mut previous, None);
        let previous = placed.previous.map(|was| match was {
            Previous::Input => input.expect("an input equal to the previous output"),
            Previous::Appended => &previous[..],
        });
        let reference = match placed.reference {
            Reference::Input => input,
            Reference::Previous => previous,
            Reference::None => None,
        };
        self.offer_placed();
        self.batch.add(out, reference, previous);
        if let Some(c) = placed.coupon {
            self.batch.coupon[c] += 1;
        }
        if placed.closes {
            self.close_batch();
        }
    }

    /// Tally one complete order of `device` (the simulator's direct path); with `has_input`,
    /// its input order is the one last given to `set_input`.
    pub fn add_order(&mut self, device: &str, out: &[u8], has_input: bool) {
        let input = std::mem::take(&mut self.scratch.input);
        self.add_direct(device, out, has_input.then_some(&input[..]));
        self.scratch.input = input;
    }

    /// Set the logged input order used by the next `add_order` call.
    pub fn set_input(&mut self, input: &[u8]) {
        self.scratch.input.clear();
        self.scratch.input.extend_from_slice(input);
    }
}

fn group_bytes(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Lines { data, .. } => data.len(),
            Piece::Overlong { .. } => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

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
    fn the_ascii_line_pass_agrees_with_the_checked_reading() {
        // Each byte value at the start, middle and end of a usual line, with and without a CR,
        // as a first line and not; byte-order marks; valid and invalid multi-byte text.
        let base = b"SIM-1,1767225630,1,Qd 2c As,2d 2c 2h".to_vec();
        let mut lines = vec![
            Vec::new(),
            b"\r".to_vec(),
            b"\xEF\xBB\xBFdevice_id,output".to_vec(),
            b"\xFF\xFEd\x00e".to_vec(),
            "caf\u{e9},\u{a0}x".as_bytes().to_vec(),
            b"ab\xC3".to_vec(),
            b"a\xED\xA0\x80b".to_vec(),
        ];
        for v in 0..=255u8 {
            for at in [0, base.len() / 2, base.len()] {
                let mut line = base.clone();
                line.insert(at, v);
                lines.push(line.clone());
                line.push(b'\r');
                lines.push(line);
            }
        }
        for line in &lines {
            for first in [false, true] {
                assert_eq!(
                    line_text(line, first),
                    line_text_checked(line, first),
                    "{line:?}, first {first}"
                );
            }
        }
    }

    #[test]
    fn a_line_of_the_width_before_reads_as_the_searched_line() {
        // Each byte value (a newline among them) at the start, middle and end of a usual line,
        // with and without a CR; guessed widths around the line's and beyond the data.
        let base = b"SIM-1,1767225630,1,Qd 2c As,2d 2c 2h".to_vec();
        let mut found = 0;
        for v in 0..=255u8 {
            for at in [0, base.len() / 2, base.len()] {
                let mut line = base.clone();
                line.insert(at, v);
                for cr in [false, true] {
                    let mut data = line.clone();
                    if cr {
                        data.push(b'\r');
                    }
                    let width = data.len();
                    data.extend_from_slice(b"\nnext,line\n");
                    let end = memchr::memchr(b'\n', &data).unwrap();
                    let searched = line_text(&data[..end], false);
                    for guess in [0, width - 1, width, width + 1, data.len()] {
                        if let Some(text) = same_length_line(&data, 0, guess) {
                            assert_eq!((guess, Ok(text)), (end, searched), "{data:?}");
                            found += 1;
                        }
                    }
                    // A plain ASCII line of the guessed width is always found.
                    if v != 0 && v != b'\n' && v < 0x80 {
                        assert!(same_length_line(&data, 0, width).is_some(), "{data:?}");
                    }
                }
            }
        }
        // Every plain line at its width (126 byte values, 3 places, CR or not), and 3 where the
        // inserted newline ends the line at a guessed width (at 0, twice, and at the end).
        assert_eq!(found, 126 * 3 * 2 + 3);
    }

    #[test]
    fn blank_is_trim_is_empty() {
        let mut texts: Vec<String> = (0..=127u8).map(|b| format!("{}x", b as char)).collect();
        texts.extend((0..=127u8).map(|b| (b as char).to_string()));
        for s in [
            "",
            " \t\x0B\x0C\r\n",
            "\u{a0}",
            "\u{a0}x",
            "\u{2003} ",
            "\u{85}",
            "é",
            " x ",
        ] {
            texts.push(s.to_string());
        }
        for s in &texts {
            assert_eq!(blank(s), s.trim().is_empty(), "{s:?}");
        }
    }

    #[test]
    fn plain_lines_split_as_split_csv_does() {
        let lines = [
            "A,1,2,As Kh,2d",
            ",,,,",
            "A,1,2,3,4,5",
            "A,1,2,3,4,5,6",
            "A\t1\t2",
            "A,\"1,2\",3",
            "A,x\"y,3",
            "",
            "one",
        ];
        for line in lines {
            for delimiter in [b',', b'\t'] {
                let mut plain = [""; FIELDS.len()];
                let mut quoted = Vec::new();
                let whole = split_csv(line, delimiter, &mut quoted);
                match split_plain(line, delimiter, &mut plain) {
                    Some(k) => {
                        assert!(whole.is_ok(), "{line:?}");
                        let quoted: Vec<&str> = quoted.iter().map(AsRef::as_ref).collect();
                        assert_eq!(&plain[..k], &quoted[..], "{line:?}");
                    }
                    // Only quoted lines and lines of more fields than a header can name.
                    None => assert!(
                        line.contains('"') || quoted.len() > FIELDS.len(),
                        "{line:?}"
                    ),
                }
            }
        }
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
                    a.read_file(path.to_str().unwrap(), |_, used, size| {
                        calls.push((used, size));
                        Ok::<(), ()>(())
                    })
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
            match a.read_file(path.to_str().unwrap(), |_, _, _| Ok::<(), ()>(())) {
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
            a.read_file(dir.to_str().unwrap(), |_, _, _| Ok::<(), ()>(()))
        else {
            panic!("a directory is refused")
        };
        assert!(e.0.ends_with("is a directory, not a log file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
