//! Record formats of a shuffler log: the CSV/TSV header's fields and their spellings, the
//! split of a CSV line, a line's text checks, and one record read as CSV or JSON Lines into its
//! device, orders and events (no state but the scratch orders).

use std::borrow::Cow;

use super::MAX_LINE;
use crate::cpu::Native;
use crate::logs::json::{self, Value};
use crate::shuffler::deck::DeckKind;

#[derive(Clone, Debug)]
pub(super) struct Columns {
    pub(super) delimiter: u8,
    pub(super) device: usize,
    pub(super) timestamp: usize,
    pub(super) shuffle: usize,
    pub(super) output: usize,
    pub(super) input: Option<usize>,
    pub(super) events: Option<usize>,
    pub(super) count: usize,
}

#[derive(Clone, Debug)]
pub(super) enum Format {
    Csv(Columns),
    JsonLines,
}

/// The `format` of a mahjong game record, whose wall a shuffler audit reads.
pub(super) const GAME_RECORD: &str = "tablecert-mahjong-game/1";

pub(super) const FIELDS: [(&str, &[&str]); 6] = [
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

pub(super) fn field_of(name: &str) -> Option<usize> {
    let name = name.trim().to_ascii_lowercase();
    FIELDS
        .iter()
        .position(|(_, names)| names.contains(&name.as_str()))
}

/// Split one CSV/TSV line into fields; double quotes quote, `""` is a quote.
pub(super) fn split_csv<'a>(
    line: &'a str,
    delimiter: u8,
    out: &mut Vec<Cow<'a, str>>,
) -> Result<(), String> {
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
pub(super) fn split_plain<'a, const K: usize>(
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
/// (a field or line of a log, almost always). Always inlined: called for the line and four
/// fields of each record, where a call costs more than the first byte's test.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn blank(s: &str) -> bool {
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
pub(super) fn line_text(raw: &[u8], first: bool) -> Result<&str, (usize, &'static str)> {
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
pub(super) fn same_length_line(data: &[u8], at: usize, len: usize) -> Option<&str> {
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

/// The fields of a plain line: `split_plain` of the line's text, already made.
pub(super) type Split<'a> = ([&'a str; FIELDS.len()], usize);

/// `same_length_line` and then `split_plain` of its text, in one pass over the bytes with
/// AVX2 (given the proof of the native features, which include it): the text and its fields,
/// or `None` where either would answer `None` (or the line is shorter than one vector; a line
/// of more fields than a header can name) and the caller reads the line by them.
#[allow(clippy::inline_always)]
#[inline(always)]
pub(super) fn same_length_fields(
    data: &[u8],
    at: usize,
    len: usize,
    delimiter: u8,
    native: Option<Native>,
) -> Option<(&str, Split<'_>)> {
    #[cfg(target_arch = "x86_64")]
    if native.is_some() {
        // SAFETY: a `Native` is made only on a CPU that has the features, AVX2 and the bit
        // instructions among them (`Native::detect`).
        return unsafe { avx2::same_length_fields(data, at, len, delimiter) };
    }
    let _ = (data, at, len, delimiter, native);
    None
}

/// `line_text` for any bytes.
pub(super) fn line_text_checked(raw: &[u8], first: bool) -> Result<&str, (usize, &'static str)> {
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

pub(super) fn overlong_reason() -> String {
    format!("line longer than {MAX_LINE} bytes")
}

/// The orders of the record being read, and whether each is already known to be a complete
/// deck (checked as it was read).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) out: Vec<u8>,
    pub(super) input: Vec<u8>,
    pub(super) out_checked: bool,
    pub(super) input_checked: bool,
}

pub(super) struct Record<'a> {
    pub(super) device: Cow<'a, str>,
    pub(super) has_input: bool,
    pub(super) events: Vec<String>,
}

/// What one record line gives.
pub(super) enum Outcome<'a> {
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
pub(super) fn read_record<'a>(
    deck: DeckKind,
    format: &Format,
    text: &'a str,
    split: Option<Split<'a>>,
    s: &mut Scratch,
) -> Outcome<'a> {
    s.out_checked = false;
    s.input_checked = false;
    let parsed = match format {
        Format::JsonLines => parse_json(deck, text, s),
        Format::Csv(cols) => parse_csv(deck, text, split, cols, s),
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
pub(super) fn device_of(format: &Format, text: &str) -> Option<String> {
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
pub(super) fn parse_csv<'a>(
    deck: DeckKind,
    text: &'a str,
    split: Option<Split<'a>>,
    cols: &Columns,
    s: &mut Scratch,
) -> Result<Record<'a>, String> {
    // A line without quotes (the usual one) is split in place (or was, by the caller: `split`
    // is `split_plain`'s answer); any other by `split_csv`.
    let mut plain = [""; FIELDS.len()];
    let mut quoted = Vec::new();
    let count = if let Some((fields, count)) = split {
        plain = fields;
        count
    } else if let Some(count) = split_plain(text, cols.delimiter, &mut plain) {
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

pub(super) fn parse_json<'a>(
    deck: DeckKind,
    text: &'a str,
    s: &mut Scratch,
) -> Result<Record<'a>, String> {
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

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    };

    use super::{Split, FIELDS};

    /// `super::same_length_fields` with AVX2. Each 32 bytes of the line (the last 32 for the
    /// end, overlapping): every byte in 1..=127 (ASCII, no NUL), no newline and no double
    /// quote, and the delimiters' places by a mask; the fields are cut when the line is known
    /// to be plain.
    #[target_feature(enable = "avx2,bmi1")]
    pub(super) fn same_length_fields(
        data: &[u8],
        at: usize,
        len: usize,
        delimiter: u8,
    ) -> Option<(&str, Split<'_>)> {
        const K: usize = FIELDS.len();
        let end = at.checked_add(len)?;
        if len < 32 || data.get(end) != Some(&b'\n') || delimiter == b'\r' {
            return None;
        }
        let raw = &data[at..end];
        let chunk = |o: usize| -> __m256i {
            let bytes: &[u8; 32] = raw[o..o + 32].try_into().expect("32 bytes");
            // SAFETY: the 32 bytes are inside `raw`.
            unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
        };
        let (zero, newline) = (
            _mm256_setzero_si256(),
            _mm256_set1_epi8(b'\n'.cast_signed()),
        );
        let quote = _mm256_set1_epi8(b'"'.cast_signed());
        let delim = _mm256_set1_epi8(delimiter.cast_signed());
        // All ones while every byte is in 1..=127 (above 0 as a signed byte); any newline or
        // double quote.
        let mut ascii = _mm256_cmpeq_epi8(zero, zero);
        let mut other = zero;
        // The delimiters' places, in order.
        let mut cuts = [0usize; K];
        let mut count = 0;
        let mut o = 0;
        loop {
            // The 32 bytes at `base` (the last 32 for the end), of which the places of
            // `keep`'s bits are new.
            let base = o.min(len - 32);
            let keep = u32::MAX << (o - base);
            let v = chunk(base);
            ascii = _mm256_and_si256(ascii, _mm256_cmpgt_epi8(v, zero));
            other = _mm256_or_si256(
                other,
                _mm256_or_si256(_mm256_cmpeq_epi8(v, newline), _mm256_cmpeq_epi8(v, quote)),
            );
            let mut bits = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, delim)).cast_unsigned() & keep;
            while bits != 0 {
                // One field more than a header can name: not `split_plain`'s line.
                *cuts.get_mut(count)? = base + bits.trailing_zeros() as usize;
                count += 1;
                bits &= bits - 1;
            }
            o = base + 32;
            if o == len {
                break;
            }
        }
        if _mm256_movemask_epi8(ascii) != -1 || _mm256_movemask_epi8(other) != 0 {
            return None;
        }
        // The last field ends the text, before a CR (not a delimiter).
        let text_len = if raw[len - 1] == b'\r' { len - 1 } else { len };
        // SAFETY (each `from_utf8_unchecked`): every byte is ASCII, and ASCII is UTF-8.
        let text = unsafe { std::str::from_utf8_unchecked(&raw[..text_len]) };
        let mut fields = [""; K];
        let mut start = 0;
        for (field, &cut) in fields.iter_mut().zip(&cuts[..count]) {
            *field = unsafe { std::str::from_utf8_unchecked(&raw[start..cut]) };
            start = cut + 1;
        }
        // The field after the last delimiter.
        *fields.get_mut(count)? = unsafe { std::str::from_utf8_unchecked(&raw[start..text_len]) };
        Some((text, (fields, count + 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// `same_length_line` then `split_plain`: the answer `same_length_fields` must give
    /// whenever it gives one.
    fn line_then_split(data: &[u8], len: usize, delimiter: u8) -> Option<(&str, Split<'_>)> {
        let text = same_length_line(data, 0, len)?;
        let mut fields = [""; FIELDS.len()];
        let count = split_plain(text, delimiter, &mut fields)?;
        Some((text, (fields, count)))
    }

    #[test]
    fn the_one_pass_split_is_the_line_check_then_the_split() {
        let Some(native) = Native::detect() else {
            eprintln!("skipped: no AVX2 on this CPU: the one-pass split not checked");
            return;
        };
        // Lines of 1 to 8 fields, of widths around one and two vectors and a log's (the cuts
        // at every place of a vector), with each byte value at the start, at a cut, within a
        // field and at the end, CR or not, read at guessed widths around theirs.
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for fields in 1..=8usize {
            for width in [31, 32, 33, 40, 63, 64, 65, 95, 96, 97, 334] {
                let mut line: Vec<u8> = (0..width).map(|i| b'a' + (i % 26) as u8).collect();
                for f in 1..fields {
                    let cut = f * width / fields;
                    if cut > 0 && cut < width {
                        line[cut] = b',';
                    }
                }
                lines.push(line.clone());
                for v in 0..=255u8 {
                    for place in [0, width / 3, width / 2, width - 1] {
                        let mut changed = line.clone();
                        changed[place] = v;
                        lines.push(changed);
                    }
                }
            }
        }
        let (mut found, mut plain) = (0, 0);
        for line in &lines {
            for cr in [false, true] {
                for delimiter in [b',', b'\t'] {
                    let mut data = line.clone();
                    if cr {
                        data.push(b'\r');
                    }
                    let width = data.len();
                    data.extend_from_slice(b"\nnext,line\n");
                    for guess in [width - 1, width, width + 1] {
                        let want = line_then_split(&data, guess, delimiter);
                        let got = same_length_fields(&data, 0, guess, delimiter, Some(native));
                        if let Some(got) = got {
                            assert_eq!(Some(got), want, "{data:?} {guess}");
                            found += 1;
                        }
                        // Every plain line of a vector or more at its width is split.
                        if want.is_some() && guess >= 32 {
                            assert!(got.is_some(), "{data:?} {guess}");
                            plain += 1;
                        }
                        assert_eq!(same_length_fields(&data, 0, guess, delimiter, None), None);
                    }
                }
            }
        }
        assert_eq!(found, plain);
        assert!(plain > 100_000, "{plain}");
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
}
