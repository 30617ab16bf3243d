//! The CSV side of the round reader: Python's `csv` state machine (strict: a quoted field may
//! span lines, a row is numbered by its last line), the header's layout and the rows of a round.

use std::collections::HashSet;

use super::python::{py_space, py_str, In};
use super::{Format, ReadError, RoundReader, FIELD_LIMIT, MAX_SPOTS, ROUND_FIELDS, SEAT_FIELDS};

/// Where the CSV parser is within a record (Python's `csv` states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CsvState {
    StartRecord,
    StartField,
    InField,
    InQuoted,
    QuoteInQuoted,
    EatCrnl,
}

/// Column indices of a validated CSV header.
#[derive(Clone, Copy, Debug)]
pub(super) struct CsvLayout {
    pub(super) width: usize,
    pub(super) round: [usize; 8],
    pub(super) seat: [usize; 3],
    pub(super) spots: usize,
    pub(super) bets: [usize; MAX_SPOTS],
    pub(super) paid: [usize; MAX_SPOTS],
}

impl RoundReader {
    pub(super) fn save_field(&mut self) {
        self.ends.push(self.record.len());
        self.field_start = self.record.len();
    }

    pub(super) fn csv_error(&self, message: &str) -> ReadError {
        let (what, line) = if self.header_done {
            ("unreadable CSV row", self.line)
        } else {
            ("unreadable CSV header", 1)
        };
        self.error(line, "", &format!("{what}: {message}"))
    }

    pub(super) fn add_char(&mut self, c: char) -> Result<(), ReadError> {
        self.record.push(c);
        let len = self.record.len() - self.field_start;
        if len > FIELD_LIMIT && self.record[self.field_start..].chars().count() > FIELD_LIMIT {
            return Err(self.csv_error(&format!("field larger than field limit ({FIELD_LIMIT})")));
        }
        Ok(())
    }

    /// One physical line through Python's csv state machine; a completed record is handled.
    pub(super) fn csv_line(&mut self, text: &str) -> Result<(), ReadError> {
        let body = text.trim_end_matches(['\n', '\r']);
        if self.state == CsvState::StartRecord
            && memchr::memchr3(b'"', b'\n', b'\r', body.as_bytes()).is_none()
            && body.len() <= FIELD_LIMIT
        {
            // The common line: no quotes, one record; fields split at commas.
            if body.is_empty() {
                return self.csv_fields(&[]);
            }
            // Commas found by memchr (a comma is one byte, so every cut is a char boundary).
            let bytes = body.as_bytes();
            let ends = memchr::memchr_iter(b',', bytes).chain(std::iter::once(bytes.len()));
            let mut buf = [""; 32];
            let (mut n, mut start) = (0, 0);
            for end in ends {
                if n == buf.len() {
                    let fields: Vec<&str> = body.split(',').collect();
                    return self.csv_fields(&fields);
                }
                buf[n] = &body[start..end];
                n += 1;
                start = end + 1;
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
    pub(super) fn end_field(&mut self, c: Option<char>, newline: bool) -> Option<CsvState> {
        let next = match c {
            None => CsvState::StartRecord,
            Some(_) if newline => CsvState::EatCrnl,
            Some(',') => CsvState::StartField,
            Some(_) => return None,
        };
        self.save_field();
        Some(next)
    }

    pub(super) fn csv_char(&mut self, c: Option<char>) -> Result<(), ReadError> {
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

    pub(super) fn csv_record(&mut self, record: &str, ends: &[usize]) -> Result<(), ReadError> {
        let mut fields: Vec<&str> = Vec::with_capacity(ends.len());
        let mut start = 0;
        for &end in ends {
            fields.push(&record[start..end]);
            start = end;
        }
        self.csv_fields(&fields)
    }

    pub(super) fn csv_fields(&mut self, fields: &[&str]) -> Result<(), ReadError> {
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
        // The round fields that agree with the current round's, in column order: a row of
        // the same round agrees on all of them, the first of another round's on fewer than 2.
        let agree = self.current_agrees(&key);
        if agree == 8 {
            // another row of the current round
        } else if agree >= 2 {
            return Err(self.error(
                line,
                ROUND_FIELDS[agree],
                "differs from the round's first row (round fields must agree)",
            ));
        } else {
            if self.chunk.rounds() >= self.spec.rounds_per_chunk {
                self.complete_chunk();
            }
            let round = key.map(In::Text);
            self.add_round(&round, line)?;
            let current = &mut self.current;
            current.clear();
            for field in key {
                current.extend_from_slice(&(field.len() as u64).to_le_bytes());
                current.extend_from_slice(field.as_bytes());
            }
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

    /// How many of `key`'s fields, from the first, are the current round's (its fields kept
    /// length-prefixed): 8 when all are.
    pub(super) fn current_agrees(&self, key: &[&str; 8]) -> usize {
        let mut rest = &self.current[..];
        for (i, field) in key.iter().enumerate() {
            let Some((len, tail)) = rest.split_first_chunk::<8>() else {
                return i;
            };
            let len = u64::from_le_bytes(*len) as usize;
            if tail.get(..len) != Some(field.as_bytes()) {
                return i;
            }
            rest = &tail[len..];
        }
        8
    }

    pub(super) fn csv_header(&mut self, fields: &[&str]) -> Result<(), ReadError> {
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
}
