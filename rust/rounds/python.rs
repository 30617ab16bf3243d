//! Values as Python reads and shows them: a field as read (CSV text or a JSON value), Python's
//! `repr` of strings and JSON values, its whitespace and its `int()` of a seat number, so that
//! every message names a value as the Python reader of the same log did.

use std::fmt::Write as _;

use crate::logs::json::Value;

/// A value as read: a CSV field is always text; a JSON value keeps its type.
#[derive(Clone, Copy)]
pub(super) enum In<'a> {
    Missing,
    Text(&'a str),
    Json(&'a Value<'a>),
}

impl<'a> In<'a> {
    pub(super) fn of(v: Option<&'a Value<'a>>) -> Self {
        match v {
            None => In::Missing,
            Some(Value::String(s)) => In::Text(s.as_ref()),
            Some(v) => In::Json(v),
        }
    }

    /// None, null or "": the field is absent.
    pub(super) fn absent(self) -> bool {
        match self {
            In::Missing | In::Json(Value::Null) => true,
            In::Text(s) => s.is_empty(),
            In::Json(_) => false,
        }
    }

    pub(super) fn repr(self) -> String {
        match self {
            In::Missing => "None".into(),
            In::Text(s) => py_str(s),
            In::Json(v) => py_value(v),
        }
    }

    /// Python's `str(value)` of the value.
    pub(super) fn to_text(self) -> String {
        match self {
            In::Missing => "None".into(),
            In::Text(s) => s.to_string(),
            In::Json(v @ Value::Number(_)) => py_number(v),
            In::Json(v) => py_value(v),
        }
    }
}

/// A count or line number as the i64 the arrays hold (never near the limit).
pub(super) fn wide<T: TryInto<i64>>(x: T) -> i64 {
    x.try_into().unwrap_or(i64::MAX)
}

pub(super) fn is_int(n: &str) -> bool {
    !n.contains(['.', 'e', 'E'])
}

/// A JSON number as Python shows it: an int normalised, a float as a Decimal.
pub(super) fn py_number(v: &Value) -> String {
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
pub(super) fn py_value(v: &Value) -> String {
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
pub(super) fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `int(text)` for a seat number: signs, surrounding whitespace and underscores
/// between digits; None if Python would refuse it.
pub(super) fn py_int(text: &str) -> Option<i64> {
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
