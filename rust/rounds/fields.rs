//! A round's fields checked and added to the columns: texts, meters, amounts, cards, events,
//! and the round and seat rows.

use super::python::{is_int, py_int, py_number, py_space, py_str, py_value, wide, In};
use super::{
    Name, ReadError, RoundReader, MAX_AMOUNT, MAX_ID_BYTES, MAX_SPOTS, METER_NOT_LOGGED, PLACES,
    SCALE,
};
use crate::cards;
use crate::logs::json::Value;

/// An amount's text (`-?(0|[1-9][0-9]*)(\.[0-9]{1,4})?`) as 1/SCALE units; Err(true) if the
/// text is not an amount, Err(false) if it is larger than `MAX_AMOUNT`.
pub(super) fn amount_units(text: &str) -> Result<i64, bool> {
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
    // the fraction's digits, padded with zeros to PLACES (it has at most PLACES digits)
    let f = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(PLACES)
        .fold(0i64, |f, d| f * 10 + i64::from(d - b'0'));
    if w > MAX_AMOUNT || (w == MAX_AMOUNT && f != 0) {
        return Err(false);
    }
    let units = w * SCALE + f;
    Ok(if negative { -units } else { units })
}

/// Not a rank or suit letter.
const NOT: u8 = u8::MAX;

/// `table[b]`: the index of byte `b` in `letters`, either case; `NOT` for any other byte.
const fn letter_table(letters: &[u8]) -> [u8; 256] {
    let mut t = [NOT; 256];
    let mut k = 0;
    while k < letters.len() {
        t[letters[k] as usize] = k as u8;
        t[letters[k].to_ascii_lowercase() as usize] = k as u8;
        k += 1;
    }
    t
}

/// The ASCII bytes that separate card codes: a comma, a semicolon, or Python's white space
/// (`py_space`).
pub(super) const CARD_SEPARATOR: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = c == b','
            || c == b';'
            || c.is_ascii_whitespace()
            || c == 0x0b
            || (c >= 0x1c && c <= 0x1f);
        b += 1;
    }
    t
};

/// A two-letter card code's rank and suit, as the card read takes them.
const RANK_OF: [u8; 256] = letter_table(b"23456789TJQKA");
const SUIT_OF: [u8; 256] = letter_table(b"DCHS");

impl RoundReader {
    pub(super) fn text(&self, value: In, line: u64, name: &str) -> Result<String, ReadError> {
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
    pub(super) fn meter(&self, value: In, line: u64, name: &str) -> Result<i64, ReadError> {
        if value.absent() {
            return Ok(METER_NOT_LOGGED);
        }
        self.amount(value, line, ("", name))
    }

    pub(super) fn amount(&self, value: In, line: u64, name: Name) -> Result<i64, ReadError> {
        if value.absent() {
            return Ok(0);
        }
        let text: std::borrow::Cow<str> = match value {
            In::Text(s) => s.into(),
            // An amount is written as a decimal: a number with an exponent (`1e1`, `0.1e2`) is
            // refused like the text "1e1", naming it as written.
            In::Json(v @ Value::Number(n)) if is_int(n) => py_number(v).into(),
            In::Json(Value::Number(n)) => n.to_string().into(),
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

    pub(super) fn card(&self, token: &str, line: u64, name: Name) -> Result<i16, ReadError> {
        if let [r, s] = token.as_bytes() {
            let (rank, suit) = (RANK_OF[usize::from(*r)], SUIT_OF[usize::from(*s)]);
            if rank != NOT && suit != NOT {
                return Ok(i16::from(cards::card(rank, suit)));
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

    /// A hand of at most `size` cards into `out` (cleared); `exact`: exactly `size` cards.
    pub(super) fn cards(
        &self,
        value: In,
        line: u64,
        name: Name,
        (size, exact): (usize, bool),
        out: &mut Vec<i16>,
    ) -> Result<(), ReadError> {
        out.clear();
        match value {
            In::Text(s) if s.is_ascii() => {
                // The usual text: separators found by table (each one byte, so every cut is a
                // char boundary), as the split below finds them.
                let mut start = 0;
                for (i, &b) in s.as_bytes().iter().enumerate() {
                    if CARD_SEPARATOR[usize::from(b)] {
                        if i > start {
                            out.push(self.card(&s[start..i], line, name)?);
                        }
                        start = i + 1;
                    }
                }
                if s.len() > start {
                    out.push(self.card(&s[start..], line, name)?);
                }
            }
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

    pub(super) fn events(&self, value: In, line: u64) -> Result<Vec<u8>, ReadError> {
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

    pub(super) fn add_round(&mut self, f: &[In; 8], line: u64) -> Result<(), ReadError> {
        let table = self.text(f[0], line, "table_id")?;
        let round_id = self.text(f[1], line, "round_id")?;
        // The pair is looked up once the round's other fields are read, the memory it is
        // looked up in fetched meanwhile; a round logged twice is still the error named when
        // one of its later fields is wrong too.
        let h = self.seen.hash(&table, &round_id);
        self.seen.prefetch(h);
        let fields = self.round_fields(f, line);
        if !self.seen.insert_hash(h) {
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
        let (events, void, mut dealer, upcard, timestamp, [meter_before, meter_after]) = fields?;
        let c = &mut self.chunk;
        c.table_id.push(table);
        c.round_id.push(round_id);
        c.timestamp.push(timestamp);
        c.line.push(wide(line));
        c.events.push(events);
        c.void.push(void);
        dealer.resize(self.spec.dealer_size, -1);
        c.dealer.extend_from_slice(&dealer);
        c.upcard.push(upcard);
        c.meter_before.push(meter_before);
        c.meter_after.push(meter_after);
        self.hand = dealer;
        self.rounds += 1;
        Ok(())
    }

    /// A round's fields after its ids: events, whether void, the dealer's cards (in the
    /// reused hand buffer), the upcard, the timestamp and the meters.
    #[allow(clippy::type_complexity)]
    fn round_fields(
        &mut self,
        f: &[In; 8],
        line: u64,
    ) -> Result<(Vec<u8>, bool, Vec<i16>, i16, String, [i64; 2]), ReadError> {
        self.round_seats = [0; 2];
        let events = self.events(f[7], line)?;
        let void = events
            .iter()
            .any(|&e| usize::from(e) < self.spec.void_events);
        let mut dealer = std::mem::take(&mut self.hand);
        self.cards(
            f[3],
            line,
            ("", "dealer"),
            (self.spec.dealer_size, !void),
            &mut dealer,
        )?;
        let mut upcard = -1;
        if !f[4].absent() {
            let mut up = Vec::with_capacity(1);
            self.cards(
                f[4],
                line,
                ("", "upcard"),
                (self.spec.dealer_size, false),
                &mut up,
            )?;
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
        Ok((
            events,
            void,
            dealer,
            upcard,
            timestamp,
            [meter_before, meter_after],
        ))
    }

    pub(super) fn add_seat(
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
            In::Text(s) => py_int(s),
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
        let mut hand = std::mem::take(&mut self.hand);
        self.cards(
            f[1],
            line,
            (prefix, "cards"),
            (self.spec.hand_size, !void),
            &mut hand,
        )?;
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
        let (mut bet_units, mut paid_units) = ([0i64; MAX_SPOTS], [0i64; MAX_SPOTS]);
        let mut spots = 0;
        for ((s, v), slot) in self.bet_names.iter().zip(bets).zip(&mut bet_units) {
            *slot = self.amount(*v, line, (prefix, s))?;
            spots += 1;
        }
        let bet_units = &bet_units[..spots];
        let mut spots = 0;
        for ((s, v), slot) in self.paid_names.iter().zip(paid).zip(&mut paid_units) {
            *slot = self.amount(*v, line, (prefix, s))?;
            spots += 1;
        }
        let paid_units = &paid_units[..spots];
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
        c.bets.extend_from_slice(bet_units);
        c.paid.extend_from_slice(paid_units);
        self.hand = hand;
        Ok(())
    }
}
