//! Reading shuffler logs: CSV/TSV (with a header) and JSON Lines, checked record by record and
//! tallied. The bytes arrive as pieces of whole lines (`stream`): a file the core reads itself
//! (gzip decompressed on its own thread) or chunks of any size fed by the caller. The lines of
//! each group of pieces are parsed in parallel; one thread then puts them in file order (line
//! numbers, bad records, events, device chains, batches, repeated orders); the orders are
//! tallied in parallel by segments that never straddle a batch, and the segment tallies are
//! added in file order. Every count, line number and result is the same whatever the number of
//! threads or the cut of the pieces.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use rayon::prelude::*;

use format::{field_of, line_text, overlong_reason, read_record, split_csv, Columns, Format};
use format::{Outcome, Scratch, FIELDS};
use parse::Parsed;
use place::Device;

use super::deck::DeckKind;
use super::repeats::RepeatSampler;
use super::tally::{Game, Tally};
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

mod format;
mod parse;
mod place;

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
    /// thread while the lines already read are parsed and tallied in parallel. After each
    /// group of lines, `take` is given the audit with the file bytes used so far and the size
    /// on disk (`None` for a FIFO), to take what the caller wants of it (finished batches,
    /// kept orders, progress); `call` is then given what `take` took, on this thread, while
    /// the next group is parsed and tallied on the pool: a caller's slow work on the batches
    /// (the battery, in Python) does not hold the read up.
    pub fn read_file<H, E>(
        &mut self,
        path: &str,
        mut take: impl FnMut(&mut Audit, u64, Option<u64>) -> H,
        mut call: impl FnMut(H) -> Result<(), E>,
    ) -> Result<(), ReadFailure<E>> {
        let mut pieces =
            Pieces::open(path, PIECE.min(self.group), MAX_LINE).map_err(ReadFailure::Read)?;
        self.begin_file(path);
        // A group's lines are placed and tallied while the next group is parsed.
        let mut pending = Vec::new();
        let result = self.read_groups(&mut pieces, &mut pending, &mut take, &mut call);
        // Its own errors first: the last group's lines come before a read error's.
        self.place_and_tally(pending).map_err(ReadFailure::Log)?;
        result?;
        self.end_file().map_err(ReadFailure::Log)
    }

    /// `read_file`'s groups of lines; the last group's lines are left in `pending`, parsed.
    fn read_groups<H, E>(
        &mut self,
        pieces: &mut Pieces,
        pending: &mut Vec<Parsed>,
        take: &mut impl FnMut(&mut Audit, u64, Option<u64>) -> H,
        call: &mut impl FnMut(H) -> Result<(), E>,
    ) -> Result<(), ReadFailure<E>> {
        let mut taken = None;
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
            // The lines before a read error are read first: their own errors come first. The
            // caller's work on the group before runs here meanwhile.
            let (mut processed, mut called) = (Ok(()), Ok(()));
            rayon::in_place_scope(|s| {
                s.spawn(|_| processed = self.process_after(&group, pending));
                if let Some(t) = taken.take() {
                    called = call(t);
                }
            });
            called.map_err(ReadFailure::Hook)?;
            processed.map_err(ReadFailure::Log)?;
            pieces.recycle(group);
            if let Some(e) = failed {
                return Err(ReadFailure::Read(e));
            }
            taken = Some(take(self, pieces.consumed(), pieces.size));
        }
        taken.map_or(Ok(()), call).map_err(ReadFailure::Hook)
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
        match read_record(self.deck, &Format::JsonLines, text, None, &mut s) {
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
mod tests;
