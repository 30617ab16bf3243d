//! The JSON Lines side of the round reader: one object per round, its seats an array.

use super::python::{is_int, py_space, In};
use super::{ReadError, RoundReader, MAX_INT_DIGITS, ROUND_FIELDS, SEAT_FIELDS};
use crate::logs::json::{self, Object, Value};

impl RoundReader {
    pub(super) fn json_line(&mut self, text: &str) -> Result<(), ReadError> {
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
            self.complete_chunk();
        }
        Ok(())
    }

    // ---- fields ----
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
