//! Reading round logs of Q Poker and Caribbean Stud tables (docs/formats/round-logs.md) strictly
//! into columns: CSV with a header and one row per occupied seat, or JSON Lines with one object
//! per round, fed in byte chunks of any size (the caller decompresses). Every check of the
//! format is made here and a failure names the file, the line and the field, as
//! `FILE:LINE: FIELD: message`; the first failure stops the read (nothing is skipped).
//!
//! Lines end at `\n`, `\r\n` or `\r`, and CSV follows Python's `csv` module (strict): a quoted
//! field may span lines, and a row is numbered by its last line.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::cards;
use crate::logs::json::{self, Object, Value};

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

/// What a game's log holds: its hand size, spots, decisions (the first is "no decision") and
/// irregularity events (the first `void_events` make a round void).
#[derive(Clone, Debug)]
pub struct Spec {
    pub game: String,
    pub hand_size: usize,
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
    /// rounds x `hand_size`, -1 where a void round logged fewer cards.
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
}

/// A value as read: a CSV field is always text; a JSON value keeps its type.
#[derive(Clone, Copy)]
enum In<'a> {
    Missing,
    Text(&'a str),
    Json(&'a Value<'a>),
}

impl<'a> In<'a> {
    fn of(v: Option<&'a Value<'a>>) -> Self {
        match v {
            None => In::Missing,
            Some(Value::String(s)) => In::Text(s.as_ref()),
            Some(v) => In::Json(v),
        }
    }

    /// None, null or "": the field is absent.
    fn absent(self) -> bool {
        match self {
            In::Missing | In::Json(Value::Null) => true,
            In::Text(s) => s.is_empty(),
            In::Json(_) => false,
        }
    }

    fn repr(self) -> String {
        match self {
            In::Missing => "None".into(),
            In::Text(s) => py_str(s),
            In::Json(v) => py_value(v),
        }
    }

    /// Python's `str(value)` of the value.
    fn to_text(self) -> String {
        match self {
            In::Missing => "None".into(),
            In::Text(s) => s.to_string(),
            In::Json(v @ Value::Number(_)) => py_number(v),
            In::Json(v) => py_value(v),
        }
    }
}

/// A count or line number as the i64 the arrays hold (never near the limit).
fn wide<T: TryInto<i64>>(x: T) -> i64 {
    x.try_into().unwrap_or(i64::MAX)
}

fn is_int(n: &str) -> bool {
    !n.contains(['.', 'e', 'E'])
}

/// A JSON number as Python shows it: an int normalised, a float as a Decimal.
fn py_number(v: &Value) -> String {
    let Value::Number(n) = v else {
        return py_value(v);
    };
    if is_int(n) && n == "-0" {
        "0".into()
    } else {
        n.to_string()
    }
}

/// Python's `repr` of a JSON value read with `parse_float=Decimal`.
fn py_value(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) if is_int(n) => py_number(v),
        Value::Number(n) => format!("Decimal('{n}')"),
        Value::String(s) => py_str(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(py_value).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", py_str(k), py_value(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// Python's `repr` of a string: quoted, with control and invisible characters escaped.
#[must_use]
pub fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..=0xa0).contains(&(c as u32)) || c == '\u{ad}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if matches!(c as u32, 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0xfeff | 0xfff9..=0xfffb | 0x1680 | 0x180e)
                || (0xd800..=0xdfff).contains(&(c as u32)) =>
            {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's whitespace (`str.isspace`).
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `int(text)` for a seat number: signs, surrounding whitespace and underscores
/// between digits; None if Python would refuse it.
fn py_int(text: &str) -> Option<i64> {
    let t = text.trim_matches(py_space);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        match b {
            b'_' => {}
            b'0'..=b'9' => value = value.saturating_mul(10).saturating_add(i64::from(b - b'0')),
            _ => return None,
        }
    }
    Some(if negative { -value } else { value })
}

/// An amount's text (`-?(0|[1-9][0-9]*)(\.[0-9]{1,4})?`) as 1/SCALE units; Err(true) if the
/// text is not an amount, Err(false) if it is larger than `MAX_AMOUNT`.
fn amount_units(text: &str) -> Result<i64, bool> {
    let (negative, body) = text.strip_prefix('-').map_or((false, text), |b| (true, b));
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (whole.len() > 1 && whole.starts_with('0')) {
        return Err(true);
    }
    let frac = match frac {
        Some(f) if digits(f) && f.len() <= PLACES => f,
        Some(_) => return Err(true),
        None => "",
    };
    if whole.len() > 13 {
        return Err(false);
    }
    let w: i64 = whole.parse().map_err(|_| true)?;
    let f: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<PLACES$}").parse().map_err(|_| true)?
    };
    if w > MAX_AMOUNT || (w == MAX_AMOUNT && f != 0) {
        return Err(false);
    }
    let units = w * SCALE + f;
    Ok(if negative { -units } else { units })
}

/// Where the CSV parser is within a record (Python's `csv` states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CsvState {
    StartRecord,
    StartField,
    InField,
    InQuoted,
    QuoteInQuoted,
    EatCrnl,
}

#[derive(Clone, Copy, Debug)]
enum Format {
    Csv(CsvLayout),
    JsonLines,
}

/// Column indices of a validated CSV header.
#[derive(Clone, Copy, Debug)]
struct CsvLayout {
    width: usize,
    round: [usize; 8],
    seat: [usize; 3],
    spots: usize,
    bets: [usize; MAX_SPOTS],
    paid: [usize; MAX_SPOTS],
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
    /// must agree), and the same of the row being read (a reused buffer).
    current: Vec<u8>,
    row_key: Vec<u8>,
    row_key_split: usize,
    /// Every (table id, round id) read, length-prefixed: a round is logged once. The set
    /// hashes with std's keyed `SipHash` (a random key per reader), so a log whose ids are
    /// chosen to collide cannot slow the reading down.
    seen: HashSet<Vec<u8>>,
    round_seats: [u64; 2],
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
            row_key: Vec::new(),
            row_key_split: 0,
            seen: HashSet::new(),
            round_seats: [0; 2],
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
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(data);
        let mut start = 0;
        let mut i = 0;
        while i < buf.len() {
            match buf[i] {
                b'\n' => {
                    self.physical_line(&buf[start..=i])?;
                    start = i + 1;
                }
                b'\r' => {
                    if i + 1 == buf.len() {
                        break; // a \r\n may be split across feeds
                    }
                    let end = if buf[i + 1] == b'\n' { i + 1 } else { i };
                    self.physical_line(&buf[start..=end])?;
                    start = end + 1;
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
        buf.drain(..start);
        self.pending = buf;
        Ok(())
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

    fn save_field(&mut self) {
        self.ends.push(self.record.len());
        self.field_start = self.record.len();
    }

    fn csv_error(&self, message: &str) -> ReadError {
        let (what, line) = if self.header_done {
            ("unreadable CSV row", self.line)
        } else {
            ("unreadable CSV header", 1)
        };
        self.error(line, "", &format!("{what}: {message}"))
    }

    fn add_char(&mut self, c: char) -> Result<(), ReadError> {
        self.record.push(c);
        let len = self.record.len() - self.field_start;
        if len > FIELD_LIMIT && self.record[self.field_start..].chars().count() > FIELD_LIMIT {
            return Err(self.csv_error(&format!("field larger than field limit ({FIELD_LIMIT})")));
        }
        Ok(())
    }

    /// One physical line through Python's csv state machine; a completed record is handled.
    fn csv_line(&mut self, text: &str) -> Result<(), ReadError> {
        let body = text.trim_end_matches(['\n', '\r']);
        if self.state == CsvState::StartRecord
            && !body.contains(['"', '\n', '\r'])
            && body.len() <= FIELD_LIMIT
        {
            // The common line: no quotes, one record; fields split at commas.
            if body.is_empty() {
                return self.csv_fields(&[]);
            }
            let mut buf = [""; 32];
            let mut n = 0;
            for field in body.split(',') {
                if n == buf.len() {
                    let fields: Vec<&str> = body.split(',').collect();
                    return self.csv_fields(&fields);
                }
                buf[n] = field;
                n += 1;
            }
            return self.csv_fields(&buf[..n]);
        }
        for c in text.chars() {
            self.csv_char(Some(c))?;
        }
        self.csv_char(None)?;
        if self.state == CsvState::StartRecord {
            let fields = std::mem::take(&mut self.ends);
            let record = std::mem::take(&mut self.record);
            self.field_start = 0;
            let result = self.csv_record(&record, &fields);
            self.record = record;
            self.record.clear();
            self.ends = fields;
            self.ends.clear();
            result?;
        }
        Ok(())
    }

    /// A field ends at a comma, a line break or the end of the line: the state that follows.
    fn end_field(&mut self, c: Option<char>, newline: bool) -> Option<CsvState> {
        let next = match c {
            None => CsvState::StartRecord,
            Some(_) if newline => CsvState::EatCrnl,
            Some(',') => CsvState::StartField,
            Some(_) => return None,
        };
        self.save_field();
        Some(next)
    }

    fn csv_char(&mut self, c: Option<char>) -> Result<(), ReadError> {
        use CsvState as S;
        let newline = matches!(c, Some('\n' | '\r'));
        let mut state = self.state;
        if state == S::StartRecord {
            match c {
                None => return Ok(()),
                Some(_) if newline => {
                    self.state = S::EatCrnl;
                    return Ok(());
                }
                Some(_) => state = S::StartField,
            }
        }
        self.state = match state {
            S::StartField if c == Some('"') => S::InQuoted,
            S::StartField | S::InField => {
                if let Some(next) = self.end_field(c, newline) {
                    next
                } else {
                    self.add_char(c.expect("end_field takes the end of line"))?;
                    S::InField
                }
            }
            S::InQuoted => match c {
                None => S::InQuoted,
                Some('"') => S::QuoteInQuoted,
                Some(ch) => {
                    self.add_char(ch)?;
                    S::InQuoted
                }
            },
            S::QuoteInQuoted => {
                if c == Some('"') {
                    self.add_char('"')?;
                    S::InQuoted
                } else if let Some(next) = self.end_field(c, newline) {
                    next
                } else {
                    return Err(self.csv_error("',' expected after '\"'"));
                }
            }
            S::EatCrnl => match c {
                None => S::StartRecord,
                Some(_) if newline => S::EatCrnl,
                Some(_) => {
                    return Err(self.csv_error(
                        "new-line character seen in unquoted field - do you need to open the file with newline=''?",
                    ))
                }
            },
            S::StartRecord => unreachable!("handled above"),
        };
        Ok(())
    }

    fn csv_record(&mut self, record: &str, ends: &[usize]) -> Result<(), ReadError> {
        let mut fields: Vec<&str> = Vec::with_capacity(ends.len());
        let mut start = 0;
        for &end in ends {
            fields.push(&record[start..end]);
            start = end;
        }
        self.csv_fields(&fields)
    }

    fn csv_fields(&mut self, fields: &[&str]) -> Result<(), ReadError> {
        if !self.header_done {
            self.header_done = true;
            return self.csv_header(fields);
        }
        if fields.is_empty() || (fields.len() == 1 && fields[0].trim_matches(py_space).is_empty()) {
            return Ok(()); // a blank line holds nothing
        }
        let Some(Format::Csv(layout)) = self.format else {
            unreachable!("the header sets the layout")
        };
        let line = self.line;
        if fields.len() != layout.width {
            return Err(self.error(
                line,
                "",
                &format!("{} fields, the header has {}", fields.len(), layout.width),
            ));
        }
        let key: [&str; 8] = std::array::from_fn(|i| fields[layout.round[i]]);
        let mut joined = std::mem::take(&mut self.row_key);
        joined.clear();
        for (i, field) in key.iter().enumerate() {
            joined.extend_from_slice(&(field.len() as u64).to_le_bytes());
            joined.extend_from_slice(field.as_bytes());
            if i == 1 {
                self.row_key_split = joined.len(); // table and round id end here
            }
        }
        let split = self.row_key_split;
        let same_round = self.current.len() >= split && self.current[..split] == joined[..split];
        let same_fields = same_round && self.current == joined;
        self.row_key = joined;
        if same_round && !same_fields {
            let cur = self.current_fields();
            let i = (0..8).find(|&i| cur[i] != key[i].as_bytes()).unwrap_or(0);
            return Err(self.error(
                line,
                ROUND_FIELDS[i],
                "differs from the round's first row (round fields must agree)",
            ));
        }
        if !same_round {
            if self.chunk.rounds() >= self.spec.rounds_per_chunk {
                let chunk = std::mem::take(&mut self.chunk);
                self.ready.push(chunk);
            }
            let round = key.map(In::Text);
            self.add_round(&round, line)?;
            std::mem::swap(&mut self.current, &mut self.row_key);
        }
        let seat = layout.seat.map(|i| In::Text(fields[i]));
        let bets: [In; MAX_SPOTS] = std::array::from_fn(|i| In::Text(fields[layout.bets[i]]));
        let paid: [In; MAX_SPOTS] = std::array::from_fn(|i| In::Text(fields[layout.paid[i]]));
        self.add_seat(
            &seat,
            &bets[..layout.spots],
            &paid[..layout.spots],
            line,
            "",
        )
    }

    /// The current round's fields, from their length-prefixed bytes.
    fn current_fields(&self) -> Vec<&[u8]> {
        let mut out = Vec::with_capacity(8);
        let mut rest = &self.current[..];
        while rest.len() >= 8 {
            let (len, tail) = rest.split_at(8);
            let len = u64::from_le_bytes(len.try_into().expect("8 bytes")) as usize;
            out.push(&tail[..len]);
            rest = &tail[len..];
        }
        out
    }

    fn csv_header(&mut self, fields: &[&str]) -> Result<(), ReadError> {
        let header: Vec<&str> = fields.iter().map(|h| h.trim_matches(py_space)).collect();
        let mut expected: Vec<String> = ROUND_FIELDS
            .iter()
            .chain(SEAT_FIELDS.iter())
            .map(|s| (*s).to_string())
            .collect();
        expected.extend(self.spec.spots.iter().map(|s| format!("{s}_bet")));
        expected.extend(self.spec.spots.iter().map(|s| format!("{s}_paid")));
        let missing = expected.iter().find(|c| !header.contains(&c.as_str()));
        let unknown = header.iter().find(|h| !expected.iter().any(|c| c == *h));
        let distinct: HashSet<&&str> = header.iter().collect();
        let problem = if let Some(m) = missing {
            format!("missing column {}", py_str(m))
        } else if let Some(u) = unknown {
            format!("unknown column {}", py_str(u))
        } else if distinct.len() != header.len() {
            "a column is named twice".to_string()
        } else {
            let index = |name: &str| {
                header
                    .iter()
                    .position(|h| *h == name)
                    .expect("every column is present")
            };
            let mut layout = CsvLayout {
                width: header.len(),
                round: ROUND_FIELDS.map(index),
                seat: SEAT_FIELDS.map(index),
                spots: self.spec.spots.len(),
                bets: [0; MAX_SPOTS],
                paid: [0; MAX_SPOTS],
            };
            for (i, s) in self.spec.spots.iter().enumerate() {
                layout.bets[i] = index(&format!("{s}_bet"));
                layout.paid[i] = index(&format!("{s}_paid"));
            }
            self.format = Some(Format::Csv(layout));
            return Ok(());
        };
        Err(self.error(
            1,
            "",
            &format!(
                "{problem}; a {} log has {}",
                self.spec.game,
                expected.join(",")
            ),
        ))
    }

    // ---- JSON Lines ----

    fn json_line(&mut self, text: &str) -> Result<(), ReadError> {
        let line = self.line;
        if text.trim_matches(py_space).is_empty() {
            return Ok(()); // a blank line holds nothing
        }
        let value = json::parse(text.trim_end_matches(['\n', '\r']))
            .map_err(|e| self.error(line, "", &e))?;
        check_json_numbers(&value).map_err(|e| self.error(line, "", &e))?;
        let Value::Object(record) = &value else {
            return Err(self.error(line, "", "expected a JSON object"));
        };
        if let Some(k) = record
            .keys()
            .find(|k| !ROUND_FIELDS.contains(k) && *k != "seats")
        {
            return Err(self.error(line, k, "unknown field"));
        }
        let round = ROUND_FIELDS.map(|f| In::of(record.get(f)));
        self.add_round(&round, line)?;
        let seats = match record.get("seats") {
            Some(Value::Array(s)) if !s.is_empty() => s,
            _ => return Err(self.error(line, "seats", "expected a non-empty array of seats")),
        };
        let spots = self.spec.spots.clone();
        let empty = Value::Object(Object::default());
        for (i, seat) in seats.iter().enumerate() {
            let prefix = format!("seats[{i}].");
            let Value::Object(seat) = seat else {
                return Err(self.error(line, &format!("seats[{i}]"), "expected an object"));
            };
            if let Some(k) = seat
                .keys()
                .find(|k| !SEAT_FIELDS.contains(k) && *k != "bets" && *k != "paid")
            {
                return Err(self.error(line, &format!("{prefix}{k}"), "unknown field"));
            }
            let mut maps = Vec::with_capacity(2);
            for name in ["bets", "paid"] {
                match seat.get(name).unwrap_or(&empty) {
                    Value::Object(m) if m.keys().all(|k| spots.iter().any(|s| s == k)) => {
                        maps.push(m);
                    }
                    _ => {
                        return Err(self.error(
                            line,
                            &format!("{prefix}{name}"),
                            &format!("expected an object with keys among {}", spots.join(", ")),
                        ))
                    }
                }
            }
            let fields = SEAT_FIELDS.map(|f| In::of(seat.get(f)));
            let bets: Vec<In> = spots.iter().map(|s| In::of(maps[0].get(s))).collect();
            let paid: Vec<In> = spots.iter().map(|s| In::of(maps[1].get(s))).collect();
            self.add_seat(&fields, &bets, &paid, line, &prefix)?;
        }
        if self.chunk.rounds() >= self.spec.rounds_per_chunk {
            let chunk = std::mem::take(&mut self.chunk);
            self.ready.push(chunk);
        }
        Ok(())
    }

    // ---- fields ----

    fn text(&self, value: In, line: u64, name: &str) -> Result<String, ReadError> {
        let text = match value {
            In::Text(s) => s.to_string(),
            In::Json(v @ Value::Number(n)) if is_int(n) => py_number(v),
            _ => {
                return Err(self.error(line, name, &format!("expected text, got {}", value.repr())))
            }
        };
        if text.is_empty() {
            return Err(self.error(line, name, "missing"));
        }
        if (name == "table_id" || name == "round_id") && text.len() > MAX_ID_BYTES {
            return Err(self.error(line, name, &format!("longer than {MAX_ID_BYTES} bytes")));
        }
        Ok(text)
    }

    /// A meter amount, or `METER_NOT_LOGGED` when the field is blank.
    fn meter(&self, value: In, line: u64, name: &str) -> Result<i64, ReadError> {
        if value.absent() {
            return Ok(METER_NOT_LOGGED);
        }
        self.amount(value, line, ("", name))
    }

    fn amount(&self, value: In, line: u64, name: Name) -> Result<i64, ReadError> {
        if value.absent() {
            return Ok(0);
        }
        let text = match value {
            In::Text(s) => s.to_string(),
            // An amount is written as a decimal: a number with an exponent (`1e1`, `0.1e2`) is
            // refused like the text "1e1", naming it as written.
            In::Json(v @ Value::Number(n)) if is_int(n) => py_number(v),
            In::Json(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(self.error_in(
                    line,
                    name,
                    &format!("expected an amount, got {}", value.repr()),
                ))
            }
        };
        amount_units(&text).map_err(|not_amount| {
            let message = if not_amount {
                format!(
                    "{} is not an amount (a decimal with at most {PLACES} places)",
                    py_str(&text)
                )
            } else {
                format!("{text} is larger than 1,000,000,000,000")
            };
            self.error_in(line, name, &message)
        })
    }

    fn card(&self, token: &str, line: u64, name: Name) -> Result<i16, ReadError> {
        if let [r, s] = token.as_bytes() {
            let rank = b"23456789TJQKA"
                .iter()
                .position(|x| *x == r.to_ascii_uppercase());
            let suit = b"DCHS".iter().position(|x| *x == s.to_ascii_uppercase());
            if let (Some(rank), Some(suit)) = (rank, suit) {
                return Ok(i16::from(cards::card(rank as u8, suit as u8)));
            }
        }
        match cards::parse_hand(token) {
            Ok(v) if v.len() == 1 => Ok(i16::from(v[0])),
            Ok(_) => Err(self.error_in(line, name, &format!("{} is not one card", py_str(token)))),
            Err(e) => Err(self.error_in(
                line,
                name,
                &format!("{} is not a card ({e})", py_str(token)),
            )),
        }
    }

    /// A hand into `out` (cleared); `exact`: exactly `hand_size` cards.
    fn cards(
        &self,
        value: In,
        line: u64,
        name: Name,
        exact: bool,
        out: &mut Vec<i16>,
    ) -> Result<(), ReadError> {
        out.clear();
        match value {
            In::Text(s) => {
                for token in s.split(|c: char| c == ',' || c == ';' || py_space(c)) {
                    if !token.is_empty() {
                        out.push(self.card(token, line, name)?);
                    }
                }
            }
            In::Json(Value::Array(items)) => {
                for item in items {
                    let Value::String(token) = item else {
                        return Err(self.error_in(
                            line,
                            name,
                            &format!("expected a card code, got {}", py_value(item)),
                        ));
                    };
                    out.push(self.card(token, line, name)?);
                }
            }
            _ => {
                return Err(self.error_in(
                    line,
                    name,
                    &format!("expected cards as text or a list, got {}", value.repr()),
                ))
            }
        }
        let size = self.spec.hand_size;
        if exact && out.len() != size {
            return Err(self.error_in(
                line,
                name,
                &format!(
                    "a {} hand has {size} cards, got {}",
                    self.spec.game,
                    out.len()
                ),
            ));
        }
        if out.len() > size {
            return Err(self.error_in(
                line,
                name,
                &format!("more than {size} cards ({})", out.len()),
            ));
        }
        Ok(())
    }

    fn events(&self, value: In, line: u64) -> Result<Vec<u8>, ReadError> {
        if value.absent() {
            return Ok(Vec::new());
        }
        let known = |item: &str| {
            self.spec
                .events
                .iter()
                .position(|e| e == item.trim_matches(py_space))
                .map(|i| i as u8)
        };
        let unknown = |repr: String| {
            self.error(
                line,
                "events",
                &format!(
                    "unknown event {repr} (known: {})",
                    self.spec.events.join(", ")
                ),
            )
        };
        let mut out = Vec::new();
        if let In::Json(Value::Array(items)) = value {
            for item in items {
                match item {
                    Value::String(s) => out.push(known(s).ok_or_else(|| unknown(py_str(s)))?),
                    other => return Err(unknown(py_value(other))),
                }
            }
        } else {
            for item in value.to_text().split([';', '|']) {
                out.push(known(item).ok_or_else(|| unknown(py_str(item)))?);
            }
        }
        Ok(out)
    }

    fn add_round(&mut self, f: &[In; 8], line: u64) -> Result<(), ReadError> {
        let table = self.text(f[0], line, "table_id")?;
        let round_id = self.text(f[1], line, "round_id")?;
        let mut id = Vec::with_capacity(table.len() + round_id.len() + 8);
        id.extend_from_slice(&(table.len() as u64).to_le_bytes());
        id.extend_from_slice(table.as_bytes());
        id.extend_from_slice(round_id.as_bytes());
        if !self.seen.insert(id) {
            return Err(self.error(
                line,
                "round_id",
                &format!(
                    "round {} of table {} is logged twice",
                    py_str(&round_id),
                    py_str(&table)
                ),
            ));
        }
        self.round_seats = [0; 2];
        let events = self.events(f[7], line)?;
        let void = events
            .iter()
            .any(|&e| usize::from(e) < self.spec.void_events);
        let mut dealer = Vec::with_capacity(self.spec.hand_size);
        self.cards(f[3], line, ("", "dealer"), !void, &mut dealer)?;
        let mut upcard = -1;
        if !f[4].absent() {
            let mut up = Vec::with_capacity(1);
            self.cards(f[4], line, ("", "upcard"), false, &mut up)?;
            if up.len() > 1 {
                return Err(self.error(
                    line,
                    "upcard",
                    &format!("{} is more than one card", f[4].repr()),
                ));
            }
            upcard = up.first().copied().unwrap_or(-1);
            if !dealer.contains(&upcard) {
                return Err(self.error(
                    line,
                    "upcard",
                    &format!("{} is not one of the dealer's cards", f[4].repr()),
                ));
            }
        } else if self.spec.upcard_required && !void {
            return Err(self.error(
                line,
                "upcard",
                "missing (Caribbean Stud deals one dealer card face up)",
            ));
        }
        let timestamp = self.text(f[2], line, "timestamp")?;
        let meter_before = self.meter(f[5], line, "meter_before")?;
        let meter_after = self.meter(f[6], line, "meter_after")?;
        let c = &mut self.chunk;
        c.table_id.push(table);
        c.round_id.push(round_id);
        c.timestamp.push(timestamp);
        c.line.push(wide(line));
        c.events.push(events);
        c.void.push(void);
        let size = self.spec.hand_size;
        dealer.resize(size, -1);
        c.dealer.extend_from_slice(&dealer);
        c.upcard.push(upcard);
        c.meter_before.push(meter_before);
        c.meter_after.push(meter_after);
        self.rounds += 1;
        Ok(())
    }

    fn add_seat(
        &mut self,
        f: &[In; 3],
        bets: &[In],
        paid: &[In],
        line: u64,
        prefix: &str,
    ) -> Result<(), ReadError> {
        let seat_name: Name = (prefix, "seat");
        let number = f[0];
        let n = match number {
            In::Json(Value::Bool(_)) => None,
            _ => py_int(&number.to_text()),
        };
        let Some(n) = n else {
            return Err(self.error_in(
                line,
                seat_name,
                &format!("expected a seat number, got {}", number.repr()),
            ));
        };
        if !(1..=99).contains(&n) {
            return Err(self.error_in(
                line,
                seat_name,
                &format!("seat {} is out of range 1..99", number.repr()),
            ));
        }
        let bit = n as usize;
        if self.round_seats[bit / 64] & (1 << (bit % 64)) != 0 {
            return Err(self.error_in(
                line,
                seat_name,
                &format!("seat {n} appears twice in the round"),
            ));
        }
        let r = self.chunk.rounds() - 1;
        let void = self.chunk.void[r];
        let mut hand = Vec::with_capacity(self.spec.hand_size);
        self.cards(f[1], line, (prefix, "cards"), !void, &mut hand)?;
        let decision = match f[2] {
            In::Text(s) => self.spec.decisions.iter().position(|d| d == s),
            In::Missing | In::Json(Value::Null | Value::Bool(false)) => Some(0),
            In::Json(Value::Number(n))
                if n.bytes()
                    .all(|b| matches!(b, b'-' | b'0' | b'.' | b'e' | b'E' | b'+')) =>
            {
                Some(0) // a zero is falsy: no decision
            }
            In::Json(Value::Array(a)) if a.is_empty() => Some(0),
            In::Json(Value::Object(o)) if o.is_empty() => Some(0),
            In::Json(_) => None,
        };
        let Some(decision) = decision else {
            let choices = self.spec.decisions[1..].join(" or ");
            return Err(self.error_in(
                line,
                (prefix, "decision"),
                &format!(
                    "{} is not a decision (expected {choices}, or empty without a bet against the dealer)",
                    f[2].repr()
                ),
            ));
        };
        let spots = self.spec.spots.len();
        let mut bet_units = Vec::with_capacity(spots);
        for (s, v) in self.bet_names.iter().zip(bets) {
            bet_units.push(self.amount(*v, line, (prefix, s))?);
        }
        let mut paid_units = Vec::with_capacity(spots);
        for (s, v) in self.paid_names.iter().zip(paid) {
            paid_units.push(self.amount(*v, line, (prefix, s))?);
        }
        if let Some(i) = bet_units.iter().position(|&b| b < 0) {
            return Err(self.error_in(
                line,
                (prefix, &self.bet_names[i]),
                "a bet cannot be negative",
            ));
        }
        self.round_seats[bit / 64] |= 1 << (bit % 64);
        let c = &mut self.chunk;
        c.seat_round.push(wide(r));
        c.seat_number.push(n);
        c.seat_line.push(wide(line));
        hand.resize(self.spec.hand_size, -1);
        c.seat_cards.extend_from_slice(&hand);
        c.decision.push(wide(decision));
        c.bets.extend_from_slice(&bet_units);
        c.paid.extend_from_slice(&paid_units);
        Ok(())
    }
}

/// Integers longer than `MAX_INT_DIGITS` digits are refused, as the Python side does.
fn check_json_numbers(v: &Value) -> Result<(), String> {
    match v {
        Value::Number(n) if is_int(n) && n.trim_start_matches('-').len() > MAX_INT_DIGITS => {
            let head: String = n.chars().take(40).collect();
            Err(format!(
                "number {head}... has more than {MAX_INT_DIGITS} digits"
            ))
        }
        Value::Array(items) => items.iter().try_for_each(check_json_numbers),
        Value::Object(m) => m.values().try_for_each(check_json_numbers),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q_poker() -> Spec {
        Spec {
            game: "q-poker".into(),
            hand_size: 3,
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
}
