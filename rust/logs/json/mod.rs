//! A small strict JSON reader for one JSON Lines record: RFC 8259 objects of strings, numbers,
//! booleans, nulls and arrays, read into a tree that borrows from the line (a string without
//! escapes and every number are slices of it; only an escaped string is copied), with positions
//! in error messages. Strict: a key given twice in any object is an error, a number is kept as
//! written (never rounded), NaN and Infinity are refused, as are control characters and lone
//! surrogate escapes in strings, and nesting deeper than 32 levels.
//!
//! Faster than `serde_json` with the same rules (BENCHMARKS.md, "The JSON Lines reader:
//! borrowed, against `serde_json` with the same rules"); `benches/rust/json_lines.rs` measures
//! both against the owned reader it replaced (`owned`, kept for the tests and the bench).

use std::borrow::Cow;
use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// A number, kept as written.
    Number(Cow<'a, str>),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Object<'a>),
}

impl Value<'_> {
    /// The value as text: strings as they are, numbers as written.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::String(s) | Value::Number(s) => Some(s),
            _ => None,
        }
    }
}

/// An object's members, each key once, in key order (bytewise, as a `BTreeMap<String, _>`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a>(Vec<(Cow<'a, str>, Value<'a>)>);

impl<'a> Object<'a> {
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.0
            .binary_search_by(|(k, _)| k.as_ref().cmp(key))
            .ok()
            .map(|i| &self.0[i].1)
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The members in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    pub fn values(&self) -> impl Iterator<Item = &Value<'a>> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<'a> IntoIterator for Object<'a> {
    type Item = (Cow<'a, str>, Value<'a>);
    type IntoIter = std::vec::IntoIter<(Cow<'a, str>, Value<'a>)>;

    /// The members in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// An object being read: its members in the order given, each key refused if given before.
#[derive(Default)]
pub struct Members<'a> {
    members: Vec<(Cow<'a, str>, Value<'a>)>,
    /// The keys of a large object, to find a duplicate without scanning them all.
    seen: HashSet<Cow<'a, str>>,
}

/// Objects with more members than this look keys up in a hash set to find a duplicate.
const SCAN: usize = 16;

impl<'a> Members<'a> {
    /// Add a member; a key given before is an error naming it (`duplicate key 'k'`).
    pub fn push(&mut self, key: Cow<'a, str>, value: Value<'a>) -> Result<(), String> {
        let duplicate = if self.members.len() < SCAN {
            self.members.iter().any(|(k, _)| *k == key)
        } else {
            if self.seen.is_empty() {
                self.seen
                    .extend(self.members.iter().map(|(k, _)| k.clone()));
            }
            !self.seen.insert(key.clone())
        };
        if duplicate {
            return Err(duplicate_key(&key));
        }
        self.members.push((key, value));
        Ok(())
    }

    /// The object, its members in key order.
    #[must_use]
    pub fn finish(self) -> Object<'a> {
        let mut members = self.members;
        members.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Object(members)
    }
}
/// Deepest nesting of arrays and objects (as `tablecert.strict_json`).
pub const MAX_DEPTH: usize = 32;

/// The message of a key given twice, the key quoted as Python's `repr` does.
fn duplicate_key(key: &str) -> String {
    let quoted = if key.contains('\'') && !key.contains('"') {
        format!("\"{key}\"")
    } else {
        format!("'{}'", key.replace('\\', "\\\\").replace('\'', "\\'"))
    };
    format!("duplicate key {quoted}")
}

/// Where the first quote, backslash or control character (below 0x20) is among the eight bytes
/// of `word` (little-endian: byte 0 first), or 8 if none is: a byte equal to `b` is a zero
/// byte of `word ^ b...b`, and a byte below `n` (at most 0x80) sets its top bit in
/// `(word - n...n) & !word`. A borrow can set top bits above such a byte, never below it, so
/// the lowest bit set is exact.
#[inline]
fn first_special(word: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & TOPS;
    let found = below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
        | below(word, 0x20);
    (found.trailing_zeros() / 8) as usize
}

struct Reader<'a> {
    text: &'a str,
    s: &'a [u8],
    i: usize,
}

/// Parse one JSON document; the error names the byte column (1-based).
pub fn parse(text: &str) -> Result<Value<'_>, String> {
    let mut r = Reader {
        text,
        s: text.as_bytes(),
        i: 0,
    };
    let v = r.value(0)?;
    r.ws();
    if r.i != r.s.len() {
        return Err(r.err("unexpected text after the JSON value"));
    }
    Ok(v)
}

impl<'a> Reader<'a> {
    fn err(&self, what: &str) -> String {
        format!("invalid JSON at column {}: {what}", self.i + 1)
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, String> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end of line")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => {
                for word in ["NaN", "Infinity", "-Infinity"] {
                    if self.s[self.i..].starts_with(word.as_bytes()) {
                        return Err(format!("{word} is not a number JSON allows"));
                    }
                }
                Err(self.err("expected a value"))
            }
        }
    }

    fn word(&mut self, w: &str, v: Value<'a>) -> Result<Value<'a>, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.err("expected a value"))
        }
    }

    /// A number as RFC 8259 writes it: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`.
    fn number(&mut self) -> Result<Value<'a>, String> {
        let start = self.i;
        if self.s[self.i..].starts_with(b"-Infinity") {
            return Err("-Infinity is not a number JSON allows".to_string());
        }
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err("bad number")),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                return Err(self.err("bad number"));
            }
            self.digits();
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'-' | b'+')) {
                self.i += 1;
            }
            if !self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                return Err(self.err("bad number"));
            }
            self.digits();
        }
        // ASCII bounds: a slice of the line.
        Ok(Value::Number(Cow::Borrowed(&self.text[start..self.i])))
    }

    fn digits(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
    }

    /// Plain text from `self.i` up to the next quote, backslash or control character: eight
    /// bytes at a time while none of them is one, then byte by byte.
    fn plain(&mut self) {
        let s = self.s;
        let mut i = self.i;
        while let Some(word) = s.get(i..i + 8) {
            let k = first_special(u64::from_le_bytes(word.try_into().expect("eight bytes")));
            i += k;
            if k < 8 {
                self.i = i;
                return;
            }
        }
        while i < s.len() && !matches!(s[i], b'"' | b'\\' | 0..=0x1f) {
            i += 1;
        }
        self.i = i;
    }

    fn string(&mut self) -> Result<Cow<'a, str>, String> {
        self.i += 1;
        let start = self.i;
        self.plain();
        if self.s.get(self.i) == Some(&b'"') {
            // No escape: a slice of the line (the quotes are ASCII, so on character bounds).
            self.i += 1;
            return Ok(Cow::Borrowed(&self.text[start..self.i - 1]));
        }
        let mut out = String::from(&self.text[start..self.i]);
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return Err(self.err("unterminated string"));
            };
            self.i += 1;
            match b {
                b'"' => return Ok(Cow::Owned(out)),
                b'\\' => self.escape(&mut out)?,
                _ => return Err(self.err("control character in a string")),
            }
            let from = self.i;
            self.plain();
            out.push_str(&self.text[from..self.i]);
        }
    }

    /// The escape after a backslash, written to `out`.
    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let Some(&e) = self.s.get(self.i) else {
            return Err(self.err("unterminated string"));
        };
        self.i += 1;
        let c = match e {
            b'"' | b'\\' | b'/' => char::from(e),
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let c = self.hex4()?;
                let c = if (0xD800..0xDC00).contains(&c) {
                    if !self.s[self.i..].starts_with(b"\\u") {
                        return Err(self.err("lone surrogate escape"));
                    }
                    self.i += 2;
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(self.err("lone surrogate escape"));
                    }
                    0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    c
                };
                char::from_u32(c).ok_or_else(|| self.err("bad \\u escape"))?
            }
            _ => return Err(self.err("bad escape")),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(h)
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, String> {
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Value::Array(Vec::new()));
        }
        // Fewer regrowths of the usual arrays (52 cards, a table's seats).
        let mut items = Vec::with_capacity(8);
        loop {
            // A string item (card codes) read here, not through `value`, whose call costs
            // more than reading a short string (twice the time of the whole line).
            let at = self.i;
            self.ws();
            let item = if depth < MAX_DEPTH && self.s.get(self.i) == Some(&b'"') {
                Value::String(self.string()?)
            } else {
                // Too deep: the error names the column before the white space.
                self.i = at;
                self.value(depth + 1)?
            };
            items.push(item);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.err("expected , or ]")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, String> {
        self.i += 1;
        let mut members = Members::default();
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Value::Object(members.finish()));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a key string"));
            }
            let key = self.string()?;
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return Err(self.err("expected :"));
            }
            self.i += 1;
            // A string value read here, as an array's string items are.
            let at = self.i;
            self.ws();
            let v = if depth < MAX_DEPTH && self.s.get(self.i) == Some(&b'"') {
                Value::String(self.string()?)
            } else {
                self.i = at;
                self.value(depth + 1)?
            };
            // The value is read before the key is checked, as the reader always did: an
            // error inside it comes first.
            members.push(key, v)?;
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(members.finish()));
                }
                _ => return Err(self.err("expected , or }")),
            }
        }
    }
}

/// The reader this one replaced (an owned tree), the yardstick of the bench and the oracle of
/// the property test below.
#[cfg(test)]
#[allow(dead_code, clippy::pedantic)]
mod owned;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_records() {
        let v = parse(r#"{"a": "x\"y\u00e9", "b": [1, -2.5e3, true, null], "c": {}}"#).unwrap();
        let Value::Object(m) = v else { panic!() };
        assert_eq!(m.get("a"), Some(&Value::String("x\"yé".into())));
        assert_eq!(
            *m.get("b").unwrap(),
            Value::Array(vec![
                Value::Number("1".into()),
                Value::Number("-2.5e3".into()),
                Value::Bool(true),
                Value::Null
            ])
        );
        assert_eq!(
            parse(r#""\ud83c\udca1""#).unwrap(),
            Value::String("🂡".into())
        );
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(
            parse(r#"{"a": 1,}"#).unwrap_err(),
            "invalid JSON at column 9: expected a key string"
        );
        assert!(parse(r#"{"a": "x"#).unwrap_err().contains("unterminated"));
        assert!(parse(r#"{"a": 1} x"#).unwrap_err().contains("column 10"));
        assert_eq!(
            parse(r#"{"a": 1, "a": 2}"#).unwrap_err(),
            "duplicate key 'a'"
        );
        for bad in ["01", "1.", "-", "1e", "+1", ".5", "1-2"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("NaN")
            .unwrap_err()
            .starts_with("NaN is not a number JSON allows"));
        assert!(parse("-Infinity")
            .unwrap_err()
            .starts_with("-Infinity is not"));
        assert!(parse("\"a\tb\"").unwrap_err().contains("control character"));
    }

    #[test]
    fn eight_bytes_at_a_time_find_what_byte_by_byte_finds() {
        // Where the first special byte is, as a byte-by-byte search finds it.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let interesting = [
            b'"',
            b'\\',
            0,
            0x1f,
            0x20,
            0x21,
            b'"' + 1,
            b'\\' - 1,
            0x7f,
            0x80,
            0xff,
        ];
        for k in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut word = x.to_le_bytes();
            // Mostly plain bytes, some interesting ones anywhere.
            for (j, b) in word.iter_mut().enumerate() {
                let r = (x >> (j * 5)) as usize;
                if r.is_multiple_of(3) || k % 2 == 0 {
                    *b = interesting[(r / 3) % interesting.len()];
                } else if *b < 0x20 || *b == b'"' || *b == b'\\' {
                    *b = b'a';
                }
            }
            let expected = word
                .iter()
                .position(|b| matches!(b, b'"' | b'\\' | 0..=0x1f))
                .unwrap_or(8);
            assert_eq!(
                first_special(u64::from_le_bytes(word)),
                expected,
                "{word:?}"
            );
        }
    }

    #[test]
    fn strings_without_escapes_and_numbers_borrow_from_the_line() {
        let line = r#"{"a": "plain", "b": "esc\naped", "c": -12.5e3}"#;
        let Value::Object(m) = parse(line).unwrap() else {
            panic!()
        };
        assert!(matches!(
            m.get("a"),
            Some(Value::String(Cow::Borrowed("plain")))
        ));
        assert!(matches!(m.get("b"), Some(Value::String(Cow::Owned(s))) if s == "esc\naped"));
        assert!(matches!(
            m.get("c"),
            Some(Value::Number(Cow::Borrowed("-12.5e3")))
        ));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn duplicate_keys_are_refused_at_every_depth_and_however_spelled() {
        for (line, key) in [
            (r#"{"a": {"b": 1, "b": 2}}"#, "'b'"),
            (r#"{"a": [{"x": 0}, {"c": {"d": [], "d": null}}]}"#, "'d'"),
            (r#"[[[{"e": 1, "f": 2, "e": 3}]]]"#, "'e'"),
            (r#"{"a": 1, "\u0061": 2}"#, "'a'"),
            (r#"{"\/": 1, "/": 2}"#, "'/'"),
            (r#"{"é": 1, "\u00e9": 2}"#, "'é'"),
            (r#"{"it's": 1, "it\u0027s": 2}"#, "\"it's\""),
            (r#"{"a\\b": 1, "a\u005cb": 2}"#, r"'a\\b'"),
        ] {
            assert_eq!(
                parse(line).unwrap_err(),
                format!("duplicate key {key}"),
                "{line}"
            );
        }
        // An error inside the repeated key's value comes first, as the reader always did.
        assert!(parse(r#"{"a": 1, "a": {"b": 1, "b": 2}}"#)
            .unwrap_err()
            .ends_with("'b'"));
        // Large objects find the duplicate through the hash set, at any position.
        for at in [0, 15, 16, 17, 99] {
            let mut members: Vec<String> = (0..100).map(|k| format!("\"k{k}\": {k}")).collect();
            members.push(format!("\"k{at}\": 0"));
            let line = format!("{{{}}}", members.join(", "));
            assert_eq!(parse(&line).unwrap_err(), format!("duplicate key 'k{at}'"));
            members.pop();
            let line = format!("{{{}}}", members.join(", "));
            let Value::Object(m) = parse(&line).unwrap() else {
                panic!()
            };
            assert_eq!(m.len(), 100);
            assert_eq!(m.get("k42"), Some(&Value::Number("42".into())));
        }
    }

    #[test]
    fn numbers_are_kept_as_written() {
        for n in [
            "0",
            "-0",
            "12345678901234567890123456789012345678901234567890",
            "1e999",
            "-1E-999",
            "0.10000000000000000000000001",
            "2.50e1",
        ] {
            assert_eq!(parse(n).unwrap(), Value::Number(n.into()));
            let line = format!("[{n}]");
            assert_eq!(
                parse(&line).unwrap(),
                Value::Array(vec![Value::Number(n.into())])
            );
        }
        for word in ["NaN", "Infinity", "-Infinity"] {
            assert_eq!(
                parse(&format!("{{\"a\": [{word}]}}")).unwrap_err(),
                format!("{word} is not a number JSON allows")
            );
        }
    }

    #[test]
    fn nesting_deeper_than_32_levels_is_refused() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(MAX_DEPTH + 1)).is_ok());
        assert_eq!(
            parse(&deep(MAX_DEPTH + 2)).unwrap_err(),
            "invalid JSON at column 34: nested too deeply"
        );
        // A hostile line nested a million levels is refused without exhausting the stack.
        assert!(parse(&deep(1 << 20))
            .unwrap_err()
            .contains("nested too deeply"));
        let objects = format!("{}1{}", "{\"a\": ".repeat(40), "}".repeat(40));
        assert!(parse(&objects).unwrap_err().contains("nested too deeply"));
    }

    #[test]
    fn lone_surrogates_are_refused() {
        for (line, message) in [
            (
                r#""\ud800""#,
                "invalid JSON at column 8: lone surrogate escape",
            ),
            (
                r#""\ud800x""#,
                "invalid JSON at column 8: lone surrogate escape",
            ),
            // A high surrogate followed by an escape that is not a low one: the old reader
            // read it as some other character (U+10041 here).
            (
                r#""\ud800\u0041""#,
                "invalid JSON at column 14: lone surrogate escape",
            ),
            (
                r#""\udbff\udbff""#,
                "invalid JSON at column 14: lone surrogate escape",
            ),
            (r#""\udc00""#, "invalid JSON at column 8: bad \\u escape"),
            (
                r#""\ud800\uZZZZ""#,
                "invalid JSON at column 10: bad \\u escape",
            ),
        ] {
            assert_eq!(parse(line).unwrap_err(), message, "{line}");
        }
        assert_eq!(
            parse(r#""\udbff\udfff""#).unwrap(),
            Value::String("\u{10ffff}".into())
        );
    }

    /// Lines to read: values of every kind (keys among few spellings, so duplicates at every
    /// depth, escapes of every kind, numbers of every shape), then the same text mutated.
    struct Lines(u64);

    impl Lines {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn pick<'t>(&mut self, from: &[&'t str]) -> &'t str {
            from[(self.next() % from.len() as u64) as usize]
        }

        fn ws(&mut self) -> &'static str {
            self.pick(&["", "", "", " ", "\t", "\r\n "])
        }

        /// Mostly valid pieces; one in 32 is not (a lone surrogate, a bad escape, a control
        /// character).
        fn string(&mut self, out: &mut String) {
            out.push('"');
            for _ in 0..self.next() % 4 {
                let piece = if self.next().is_multiple_of(32) {
                    self.pick(&[
                        "\\ud800",
                        "\\udc00",
                        "\\ud800\\u0041",
                        "\\x",
                        "\u{1}",
                        "\\u12",
                    ])
                } else {
                    self.pick(&[
                        "a",
                        "b",
                        "\\u0061",
                        "é",
                        "\\u00e9",
                        "\\n",
                        "\\\"",
                        "\\\\",
                        "\\/",
                        "🂡",
                        "\\ud83c\\udca1",
                        "\\uD83C\\uDCA1",
                        "'",
                        "\u{7f}",
                    ])
                };
                out.push_str(piece);
            }
            out.push('"');
        }

        fn value(&mut self, depth: usize, out: &mut String) {
            let kind = if depth > 36 { 9 } else { self.next() % 10 };
            out.push_str(self.ws());
            match kind {
                0..=2 => {
                    out.push('{');
                    for k in 0..self.next() % 4 {
                        if k > 0 {
                            out.push(',');
                        }
                        out.push_str(self.ws());
                        self.string(out);
                        out.push_str(self.ws());
                        out.push(':');
                        self.value(depth + 1, out);
                    }
                    out.push_str(self.ws());
                    out.push('}');
                }
                3..=4 => {
                    out.push('[');
                    for k in 0..self.next() % 4 {
                        if k > 0 {
                            out.push(',');
                        }
                        self.value(depth + 1, out);
                    }
                    out.push(']');
                }
                5 => self.string(out),
                6 => {
                    let n = if self.next().is_multiple_of(16) {
                        self.pick(&[
                            "01",
                            "1.",
                            "-",
                            "+1",
                            ".5",
                            "1e",
                            "NaN",
                            "Infinity",
                            "-Infinity",
                        ])
                    } else {
                        self.pick(&[
                            "0",
                            "-0",
                            "7",
                            "-12",
                            "1.5",
                            "2.50e1",
                            "1E+9",
                            "3e-2",
                            "123456789012345678901234567890123",
                            "1e999",
                        ])
                    };
                    out.push_str(n);
                }
                7 => out.push_str(
                    self.pick(&["true", "false", "null", "true", "false", "null", "nul"]),
                ),
                _ => {
                    let n = self.next() % 1000;
                    out.push_str(&n.to_string());
                }
            }
            out.push_str(self.ws());
        }

        /// A generated line, or one mutated by a few character edits.
        fn line(&mut self) -> String {
            let mut out = String::new();
            if self.next().is_multiple_of(8) {
                // Deep nesting around the limit.
                let depth = 28 + (self.next() % 8) as usize;
                out.push_str(&"[".repeat(depth));
                self.value(0, &mut out);
                out.push_str(&"]".repeat(depth));
            } else {
                self.value(0, &mut out);
            }
            if self.next().is_multiple_of(3) {
                let mut chars: Vec<char> = out.chars().collect();
                for _ in 0..=self.next() % 3 {
                    let at = (self.next() % (chars.len() as u64 + 1)) as usize;
                    let c = self
                        .pick(&[
                            "\"", "\\", "{", "}", "[", "]", ",", ":", "u", "d", "8", "0", "-", "e",
                            ".", " ", "\u{1}", "é", "N",
                        ])
                        .chars()
                        .next()
                        .unwrap();
                    match self.next() % 3 {
                        0 => chars.insert(at, c),
                        1 if at < chars.len() => {
                            chars.remove(at);
                        }
                        _ if at < chars.len() => chars[at] = c,
                        _ => chars.push(c),
                    }
                }
                out = chars.into_iter().collect();
            }
            out
        }
    }

    use super::owned;

    fn to_owned(v: &Value) -> owned::Value {
        match v {
            Value::Null => owned::Value::Null,
            Value::Bool(b) => owned::Value::Bool(*b),
            Value::Number(n) => owned::Value::Number(n.to_string()),
            Value::String(s) => owned::Value::String(s.to_string()),
            Value::Array(items) => owned::Value::Array(items.iter().map(to_owned).collect()),
            Value::Object(m) => owned::Value::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), to_owned(v)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn reads_as_the_owned_reader_did_on_generated_and_mutated_lines() {
        let mut lines = Lines(0x2545_f491_4f6c_dd1d);
        let (mut accepted, mut duplicates, mut deep) = (0, 0, 0);
        for _ in 0..100_000 {
            let line = lines.line();
            let old = owned::parse(&line);
            match parse(&line) {
                Ok(v) => {
                    assert_eq!(Ok(to_owned(&v)), old, "{line}");
                    // Key order is the owned map's: bytewise.
                    if let (Value::Object(m), Ok(owned::Value::Object(o))) = (&v, &old) {
                        assert!(m.keys().eq(o.keys().map(String::as_str)));
                    }
                    accepted += 1;
                }
                Err(e) => {
                    assert_eq!(Err(e.clone()), old, "{line}");
                    duplicates += usize::from(e.starts_with("duplicate key"));
                    deep += usize::from(e.ends_with("nested too deeply"));
                }
            }
        }
        // Both outcomes, and the strict rules, are exercised often.
        assert!(accepted > 20_000 && accepted < 80_000, "{accepted}");
        assert!(duplicates > 1_000, "{duplicates}");
        assert!(deep > 1_000, "{deep}");
    }
}
