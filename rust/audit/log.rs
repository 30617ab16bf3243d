//! Reading shuffler logs: CSV/TSV (with a header) and JSON Lines, fed in byte chunks of any
//! size (the caller decompresses), checked record by record, and tallied as it goes.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::deck::DeckKind;
use super::json::{self, Value};
use super::tally::{self, Game, RepeatSampler, Tally};

/// The longest line read (a 136-tile wall with long spellings is a few kilobytes); a longer
/// record is one bad record, a longer header an unreadable file.
pub const MAX_LINE: usize = 1 << 20;
/// Bad records kept with their reasons; all are counted.
pub const MAX_BAD_KEPT: usize = 1000;

/// What each shuffle's output is judged against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    /// The input order logged with the record.
    Logged,
    /// The same device's previous output (the device re-shuffles what was dealt).
    Previous,
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
            let end = b[i..]
                .iter()
                .position(|&c| c == delimiter)
                .map_or(b.len(), |k| i + k);
            out.push(Cow::Borrowed(&line[i..end]));
            if end == b.len() {
                return Ok(());
            }
            i = end + 1;
        }
    }
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
    pub without_input: u64,
    pub events: BTreeMap<String, u64>,
    pub records_with_events: u64,
    /// When set, every accepted order is also appended here for the caller to drain (hooks
    /// that need the orders themselves, such as the mahjong deal).
    pub kept: Option<Vec<u8>>,
    devices: HashMap<String, Vec<u8>>,
    collectors: HashMap<String, tally::Collector>,
    // Per-file reading state.
    line: u64,
    offset: u64,
    line_start: u64,
    file_records: u64,
    partial: Vec<u8>,
    /// Inside a line longer than `MAX_LINE`: its bytes are dropped up to the next newline.
    skipping: bool,
    format: Option<Format>,
    out: Vec<u8>,
    input: Vec<u8>,
    rel: Vec<u8>,
}

struct Record<'a> {
    device: Cow<'a, str>,
    has_input: bool,
    events: Vec<String>,
}

impl Audit {
    /// The ids of the devices whose records were accepted, sorted (for the report's
    /// identification of what was examined).
    #[must_use]
    pub fn device_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.collectors.keys().cloned().collect();
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
            devices: HashMap::new(),
            collectors: HashMap::new(),
            line: 0,
            offset: 0,
            line_start: 0,
            file_records: 0,
            partial: Vec::new(),
            skipping: false,
            format: None,
            out: Vec::new(),
            input: Vec::new(),
            rel: Vec::new(),
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
        self.partial.clear();
        self.skipping = false;
        self.format = None;
    }

    /// Feed the next bytes of the current file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), LogError> {
        let mut rest = chunk;
        while !rest.is_empty() {
            let newline = rest.iter().position(|&c| c == b'\n');
            let piece = &rest[..newline.unwrap_or(rest.len())];
            if self.partial.is_empty() && !self.skipping {
                self.line_start = self.offset;
            }
            if !self.skipping && self.partial.len() + piece.len() > MAX_LINE {
                self.partial.clear();
                self.skipping = true;
            }
            self.offset += piece.len() as u64;
            let Some(k) = newline else {
                if !self.skipping {
                    self.partial.extend_from_slice(piece);
                }
                break;
            };
            self.offset += 1;
            rest = &rest[k + 1..];
            if self.skipping {
                self.skipping = false;
                self.overlong_line()?;
            } else if self.partial.is_empty() {
                self.process_line(piece)?;
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(piece);
                self.process_line(&line)?;
                line.clear();
                self.partial = line;
            }
        }
        Ok(())
    }

    /// A line longer than `MAX_LINE`: one bad record (its device unknown), or, before the
    /// header is known, an unreadable file.
    fn overlong_line(&mut self) -> Result<(), LogError> {
        self.line += 1;
        self.lines += 1;
        let reason = format!("line longer than {MAX_LINE} bytes");
        if self.format.is_none() {
            return Err(self.fatal(
                self.line_start,
                format!("{reason} before a header or first record: not a shuffle log"),
            ));
        }
        self.file_records += 1;
        self.reject(None, reason);
        Ok(())
    }

    /// Finish the current file: read a last line without a newline; an empty file is an error.
    pub fn end_file(&mut self) -> Result<(), LogError> {
        if self.skipping {
            self.skipping = false;
            self.overlong_line()?;
        } else if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.process_line(&line)?;
        }
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
    }

    fn process_line(&mut self, raw: &[u8]) -> Result<(), LogError> {
        self.line += 1;
        self.lines += 1;
        let mut raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if self.line == 1 {
            if raw.starts_with(&[0xFF, 0xFE]) || raw.starts_with(&[0xFE, 0xFF]) {
                return Err(self.fatal(0, "UTF-16 text (byte-order mark): logs must be UTF-8"));
            }
            raw = raw.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(raw);
        }
        if let Some(k) = raw.iter().position(|&c| c == 0) {
            return Err(self.fatal(
                self.line_start + k as u64,
                "NUL byte: not a UTF-8 text log (UTF-16, binary, or a corrupt file?)",
            ));
        }
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                return Err(self.fatal(
                    self.line_start + e.valid_up_to() as u64,
                    "invalid UTF-8: logs must be UTF-8 text",
                ))
            }
        };
        if text.trim().is_empty() {
            self.blank_lines += 1;
            return Ok(());
        }
        if self.format.is_none() {
            return self.read_header(text);
        }
        self.file_records += 1;
        let parsed = match self.format.clone() {
            Some(Format::JsonLines) => self.parse_json(text),
            Some(Format::Csv(cols)) => self.parse_csv(text, &cols),
            None => unreachable!(),
        };
        match parsed {
            Ok(rec) => self.accept(&rec),
            Err(reason) => {
                let device = self.device_of(text);
                self.reject(device.as_deref(), reason);
            }
        }
        Ok(())
    }

    /// The device a rejected record names, if it can be read (the error path only).
    fn device_of(&self, text: &str) -> Option<String> {
        match &self.format {
            Some(Format::Csv(cols)) => {
                let mut f = Vec::new();
                split_csv(text, cols.delimiter, &mut f).ok()?;
                f.get(cols.device).map(ToString::to_string)
            }
            Some(Format::JsonLines) => match json::parse(text).ok()? {
                Value::Object(m) => FIELDS[0]
                    .1
                    .iter()
                    .find_map(|k| m.get(*k).and_then(Value::as_text).map(str::to_string)),
                _ => None,
            },
            None => None,
        }
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
        match self.parse_json(text) {
            Ok(rec) => self.accept(&rec),
            Err(reason) => {
                let device = self.device_of(text);
                self.reject(device.as_deref(), reason);
            }
        }
    }

    fn parse_csv<'a>(&mut self, text: &'a str, cols: &Columns) -> Result<Record<'a>, String> {
        let mut f = Vec::with_capacity(cols.count);
        split_csv(text, cols.delimiter, &mut f)?;
        if f.len() != cols.count {
            return Err(format!("{} fields, the header has {}", f.len(), cols.count));
        }
        for (name, i) in [
            ("device_id", cols.device),
            ("timestamp", cols.timestamp),
            ("shuffle_id", cols.shuffle),
        ] {
            if f[i].trim().is_empty() {
                return Err(format!("missing {name}"));
            }
        }
        self.deck
            .parse_text(&f[cols.output], &mut self.out)
            .map_err(|e| format!("output order: {e}"))?;
        let has_input = match cols.input {
            Some(i) if !f[i].trim().is_empty() => {
                self.deck
                    .parse_text(&f[i], &mut self.input)
                    .map_err(|e| format!("input order: {e}"))?;
                true
            }
            _ => false,
        };
        let events = cols.events.map_or_else(Vec::new, |i| {
            f[i].split([';', '|'])
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect()
        });
        let device = std::mem::replace(&mut f[cols.device], Cow::Borrowed(""));
        Ok(Record {
            device,
            has_input,
            events,
        })
    }

    fn parse_json(&mut self, text: &str) -> Result<Record<'static>, String> {
        let Value::Object(m) = json::parse(text)? else {
            return Err("a JSON Lines record must be an object".into());
        };
        // Each field once, under one of its names; any other key is an error, as a CSV
        // header's unknown column is.
        let mut slots: [Option<(String, Value)>; 6] = Default::default();
        // A mahjong game record (README, "Whole hands replayed") is read for its wall: its
        // other fields belong to the game record, which `mahjong replay` checks.
        let game_record = matches!(m.get("format"), Some(Value::String(f)) if f == GAME_RECORD);
        for (key, value) in m {
            let Some(f) = FIELDS
                .iter()
                .position(|(_, names)| names.contains(&key.as_str()))
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
        let mut get = |f: usize| -> Option<Value> { slots[f].take().map(|(_, v)| v) };
        let mut text_of = |f: usize| -> Result<String, String> {
            match get(f) {
                Some(v) => match v.as_text() {
                    Some(t) if !t.trim().is_empty() => Ok(t.to_string()),
                    _ => Err(format!(
                        "{} must be a non-empty string or number",
                        FIELDS[f].0
                    )),
                },
                None => Err(format!("missing {}", FIELDS[f].0)),
            }
        };
        let device = text_of(0)?;
        text_of(1)?;
        text_of(2)?;
        let deck = self.deck;
        let order = |v: Value, out: &mut Vec<u8>| -> Result<(), String> {
            match v {
                Value::String(s) => deck.parse_text(&s, out),
                Value::Array(items) => {
                    let texts: Option<Vec<&str>> = items.iter().map(Value::as_text).collect();
                    let texts = texts.ok_or("codes must be strings")?;
                    deck.parse_list(texts.into_iter(), out)
                }
                _ => Err("must be a string or an array of codes".into()),
            }
        };
        match get(3) {
            Some(v) => order(v, &mut self.out).map_err(|e| format!("output order: {e}"))?,
            None => return Err("missing output".into()),
        }
        let has_input = match get(4) {
            None | Some(Value::Null) => false,
            Some(v) => {
                order(v, &mut self.input).map_err(|e| format!("input order: {e}"))?;
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
            device: Cow::Owned(device),
            has_input,
            events,
        })
    }

    fn reject(&mut self, device: Option<&str>, reason: String) {
        if let Some(d) = device {
            // The device's chain of orders is broken: the next shuffle has no known input.
            self.devices.remove(d);
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

    fn accept(&mut self, rec: &Record<'_>) {
        for e in &rec.events {
            *self.events.entry(e.clone()).or_insert(0) += 1;
        }
        if !rec.events.is_empty() {
            self.records_with_events += 1;
        }
        if let Err(e) = self.deck.check_complete(&self.out) {
            return self.reject(Some(&rec.device), format!("output order: {e}"));
        }
        if rec.has_input {
            if let Err(e) = self.deck.check_complete(&self.input) {
                return self.reject(Some(&rec.device), format!("input order: {e}"));
            }
        }
        let out = std::mem::take(&mut self.out);
        self.add_order(&rec.device, &out, rec.has_input);
        self.out = out;
    }

    /// Tally one complete order of `device` (also the simulator's direct path).
    pub fn add_order(&mut self, device: &str, out: &[u8], has_input: bool) {
        self.records += 1;
        if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(out);
        }
        let previous = self.devices.get(device).map(Vec::as_slice);
        let reference = match self.mode {
            InputMode::Logged if has_input => Some(self.input.as_slice()),
            InputMode::Logged => {
                self.without_input += 1;
                None
            }
            InputMode::Previous => previous,
            InputMode::None => None,
        };
        self.batch.add(out, reference, previous);
        if !self.collectors.contains_key(device) {
            self.collectors
                .insert(device.to_string(), tally::Collector::default());
        }
        if let Some(c) = self.collectors.get_mut(device) {
            c.add(out[0], &mut self.batch);
        }
        self.repeats.offer(0, out);
        if let (Some(reference), true) = (reference, self.deck.distinct()) {
            self.rel.resize(out.len(), 0);
            tally::relative(out, reference, &mut self.rel);
            self.repeats.offer(1, &self.rel);
        }
        match self.devices.get_mut(device) {
            Some(prev) => prev.copy_from_slice(out),
            None => {
                self.devices.insert(device.to_string(), out.to_vec());
            }
        }
        if self.batch_size > 0 && self.batch.shuffles >= self.batch_size {
            let done = std::mem::replace(&mut self.batch, Tally::new(self.deck, self.total.game));
            self.total.merge(&done);
            self.finished_batches.push(done);
        }
    }

    /// Set the logged input order used by the next `add_order` call.
    pub fn set_input(&mut self, input: &[u8]) {
        self.input.clear();
        self.input.extend_from_slice(input);
    }
}

#[cfg(test)]
mod tests {
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
}
