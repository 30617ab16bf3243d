//! Reading round logs of Q Poker and Caribbean Stud tables (docs/formats/round-logs.md) strictly
//! into columns: CSV with a header and one row per occupied seat, or JSON Lines with one object
//! per round, fed in byte chunks of any size (the caller decompresses). Every check of the
//! format is made here and a failure names the file, the line and the field, as
//! `FILE:LINE: FIELD: message`; the first failure stops the read (nothing is skipped).
//!
//! Lines end at `\n`, `\r\n` or `\r`, and CSV follows Python's `csv` module (strict): a quoted
//! field may span lines, and a row is numbered by its last line.

/// The longest CSV field, in characters (Python's `csv.field_size_limit()`).
const FIELD_LIMIT: usize = 131_072;
/// Amounts are exact decimals with at most this many places, held as integers of 1/10^PLACES.
const PLACES: usize = 4;
const SCALE: i64 = 10_000;
/// Currency units: anything larger is a typo, not a bet.
const MAX_AMOUNT: i64 = 1_000_000_000_000;
/// The longest table or round id, in UTF-8 bytes (`rounds.log.MAX_ID_BYTES`): the audit keeps
/// one per round to find a round logged twice, so an id's length bounds its memory.
const MAX_ID_BYTES: usize = 256;
/// JSON integers longer than this are refused (as `tablecert.strict_json` does).
const MAX_INT_DIGITS: usize = 30;
/// A meter field left blank (or absent, or null): the meter was not logged for the round.
/// No amount can be this (amounts stay within `MAX_AMOUNT` units), so the accounting can tell
/// "not logged" from 0 and leave the round unexamined instead of judging it against 0.
pub const METER_NOT_LOGGED: i64 = i64::MIN;
/// The fields of a round and of a seat (docs/formats/round-logs.md); Python reads them from here.
pub const ROUND_FIELDS: [&str; 8] = [
    "table_id",
    "round_id",
    "timestamp",
    "dealer",
    "upcard",
    "meter_before",
    "meter_after",
    "events",
];
pub const SEAT_FIELDS: [&str; 3] = ["seat", "cards", "decision"];

/// What a game's log holds: its hand sizes (a seat's, the dealer's), spots, decisions (the
/// first is "no decision") and irregularity events (the first `void_events` make a round void).
#[derive(Clone, Debug)]
pub struct Spec {
    pub game: String,
    /// Cards dealt to a seat.
    pub hand_size: usize,
    /// Cards dealt to the dealer (a described game may deal the dealer more than a seat).
    pub dealer_size: usize,
    pub spots: Vec<String>,
    pub decisions: Vec<String>,
    pub events: Vec<String>,
    pub void_events: usize,
    /// Caribbean Stud deals one dealer card face up: the upcard is required.
    pub upcard_required: bool,
    pub rounds_per_chunk: usize,
}

/// Up to `rounds_per_chunk` rounds as columns; round r's seats are consecutive seat rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    pub table_id: Vec<String>,
    pub round_id: Vec<String>,
    pub timestamp: Vec<String>,
    /// Indices into `Spec::events`, per round.
    pub events: Vec<Vec<u8>>,
    pub line: Vec<i64>,
    /// rounds x `dealer_size`, -1 where a void round logged fewer cards.
    pub dealer: Vec<i16>,
    pub upcard: Vec<i16>,
    pub meter_before: Vec<i64>,
    pub meter_after: Vec<i64>,
    pub void: Vec<bool>,
    pub seat_round: Vec<i64>,
    pub seat_number: Vec<i64>,
    pub seat_line: Vec<i64>,
    /// seats x `hand_size`.
    pub seat_cards: Vec<i16>,
    pub decision: Vec<i64>,
    /// seats x spots.
    pub bets: Vec<i64>,
    pub paid: Vec<i64>,
}

impl Columns {
    #[must_use]
    pub fn rounds(&self) -> usize {
        self.round_id.len()
    }

    /// Empty columns with room for as many rounds and seats as these hold and a sixteenth
    /// more (the chunks of a log are alike): the next chunk's columns grow without copying.
    fn sized_like(&self) -> Columns {
        fn room<T>(v: &[T]) -> Vec<T> {
            Vec::with_capacity(v.len() + v.len() / 16)
        }
        Columns {
            table_id: room(&self.table_id),
            round_id: room(&self.round_id),
            timestamp: room(&self.timestamp),
            events: room(&self.events),
            line: room(&self.line),
            dealer: room(&self.dealer),
            upcard: room(&self.upcard),
            meter_before: room(&self.meter_before),
            meter_after: room(&self.meter_after),
            void: room(&self.void),
            seat_round: room(&self.seat_round),
            seat_number: room(&self.seat_number),
            seat_line: room(&self.seat_line),
            seat_cards: room(&self.seat_cards),
            decision: room(&self.decision),
            bets: room(&self.bets),
            paid: room(&self.paid),
        }
    }
}

mod csv;
mod fields;
pub mod ids;
mod json_lines;
mod python;
pub mod simulate;

use csv::{CsvLayout, CsvState};
use ids::RoundIds;

#[derive(Clone, Copy, Debug)]
enum Format {
    Csv(CsvLayout),
    JsonLines,
}

/// The most spots a game has (Caribbean Stud: ante, raise, progressive).
pub const MAX_SPOTS: usize = 4;

/// A streaming strict reader of one round log.
pub struct RoundReader {
    spec: Spec,
    path: String,
    /// Bytes not yet processed (an incomplete last line).
    pending: Vec<u8>,
    /// Physical lines read so far.
    line: u64,
    format: Option<Format>,
    started: bool,
    // CSV record being parsed
    state: CsvState,
    record: String,
    ends: Vec<usize>,
    field_start: usize,
    header_done: bool,
    /// The current round's raw round fields, each length-prefixed (CSV: the rows of a round
    /// must agree; a row is compared with them where it lies).
    current: Vec<u8>,
    /// Every (table id, round id) read, as a 16-byte keyed hash: a round is logged once.
    /// The reader's one state that grows with the log (`ids`).
    seen: RoundIds,
    round_seats: [u64; 2],
    /// A hand being read (the dealer's, a seat's): one buffer for every round.
    hand: Vec<i16>,
    pub rounds: u64,
    chunk: Columns,
    ready: Vec<Columns>,
    bet_names: Vec<String>,
    paid_names: Vec<String>,
}

/// The first failure, as `FILE:LINE: FIELD: message`.
pub type ReadError = String;
/// A field's name as a prefix and a name, joined only when an error names it.
type Name<'a> = (&'a str, &'a str);

impl RoundReader {
    #[must_use]
    pub fn new(spec: Spec, path: &str) -> Self {
        RoundReader {
            bet_names: spec.spots.iter().map(|s| format!("{s}_bet")).collect(),
            paid_names: spec.spots.iter().map(|s| format!("{s}_paid")).collect(),
            spec,
            path: path.to_string(),
            pending: Vec::new(),
            line: 0,
            format: None,
            started: false,
            state: CsvState::StartRecord,
            record: String::new(),
            ends: Vec::new(),
            field_start: 0,
            header_done: false,
            current: Vec::new(),
            seen: RoundIds::default(),
            round_seats: [0; 2],
            hand: Vec::new(),
            rounds: 0,
            chunk: Columns::default(),
            ready: Vec::new(),
        }
    }

    /// An error in the field `prefix` + `name` (JSON Lines seats: `seats[i].`).
    fn error_in(&self, line: u64, (prefix, name): Name, message: &str) -> ReadError {
        self.error(line, &format!("{prefix}{name}"), message)
    }

    fn error(&self, line: u64, field: &str, message: &str) -> ReadError {
        if field.is_empty() {
            format!("{}:{line}: {message}", self.path)
        } else {
            format!("{}:{line}: {field}: {message}", self.path)
        }
    }

    /// The chunk being read is complete: it is handed on, the next one made room for.
    fn complete_chunk(&mut self) {
        let next = self.chunk.sized_like();
        let chunk = std::mem::replace(&mut self.chunk, next);
        self.ready.push(chunk);
    }

    /// Whether a chunk is complete.
    #[must_use]
    pub fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The error for a line longer than `max` bytes (the next line).
    #[must_use]
    pub fn overlong(&self, max: usize) -> ReadError {
        self.error(
            self.line + 1,
            "",
            &format!("a line longer than {max} bytes (a round is a few kilobytes)"),
        )
    }

    /// Chunks completed so far.
    pub fn take(&mut self) -> Vec<Columns> {
        std::mem::take(&mut self.ready)
    }

    /// Read the next bytes of the file.
    pub fn feed(&mut self, data: &[u8]) -> Result<(), ReadError> {
        if self.pending.is_empty() {
            // The usual feed, whole lines: read where they lie, only a part line kept.
            let used = self.lines(data)?;
            self.pending.extend_from_slice(&data[used..]);
            return Ok(());
        }
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(data);
        let used = self.lines(&buf)?;
        buf.drain(..used);
        self.pending = buf;
        Ok(())
    }

    /// Read the complete lines at the start of `buf`: the bytes they take.
    fn lines(&mut self, buf: &[u8]) -> Result<usize, ReadError> {
        let mut start = 0;
        while let Some(k) = memchr::memchr2(b'\n', b'\r', &buf[start..]) {
            let mut end = start + k;
            if buf[end] == b'\r' {
                if end + 1 == buf.len() {
                    break; // a \r\n may be split across feeds
                }
                if buf[end + 1] == b'\n' {
                    end += 1;
                }
            }
            self.physical_line(&buf[start..=end])?;
            start = end + 1;
        }
        Ok(start)
    }

    /// The end of the file: the last line, the last chunk, and the checks on the whole.
    pub fn finish(&mut self) -> Result<(), ReadError> {
        let rest = std::mem::take(&mut self.pending);
        if !rest.is_empty() {
            self.physical_line(&rest)?;
        }
        if !self.started {
            return Err(format!("{}: empty file", self.path));
        }
        if !matches!(self.format, Some(Format::JsonLines)) && self.state == CsvState::InQuoted {
            return Err(self.csv_error("unexpected end of data"));
        }
        if self.rounds == 0 {
            return Err(format!("{}: no rounds", self.path));
        }
        if self.chunk.rounds() > 0 {
            let chunk = std::mem::take(&mut self.chunk);
            self.ready.push(chunk);
        }
        Ok(())
    }

    fn physical_line(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        self.line += 1;
        let text = std::str::from_utf8(bytes).map_err(|e| {
            self.error(
                self.line,
                "",
                &format!("invalid UTF-8 at byte {} of the line", e.valid_up_to() + 1),
            )
        })?;
        let text = if self.line == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text) // a byte order mark is no part of it
        } else {
            text
        };
        if !self.started {
            if text.is_empty() {
                return Ok(()); // a file of a byte order mark alone is still empty
            }
            self.started = true;
            if text.starts_with('{') {
                self.format = Some(Format::JsonLines);
            }
        }
        match self.format {
            Some(Format::JsonLines) => self.json_line(text),
            _ => self.csv_line(text),
        }
    }

    // ---- CSV ----
}

#[cfg(test)]
mod tests;
