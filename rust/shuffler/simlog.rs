//! Simulated shuffler logs written by the core: a seeded device's orders, formatted as the
//! documented CSV or JSON Lines and gzip-compressed, chunk by chunk on every core.
//!
//! The orders are drawn in sequence from the simulator (one generator stream, so a seed names
//! one sequence of decks whatever the machine); formatting and compression run in parallel on
//! fixed chunks of shuffles. Chunk `j` always holds shuffles `j * chunk + 1 ..= (j + 1) * chunk`
//! and, compressed, is one gzip member of its own (a concatenation of members is one valid gzip
//! file), so the bytes written depend on the seed, the model and the chunk size only, never on
//! the number of threads or on how many chunks each call asks for.

use std::fmt::Write as _;
use std::io::Write as _;

use flate2::{Compression, GzBuilder};
use rayon::prelude::*;

use super::deck::DeckKind;
use super::simulate::Simulator;

/// The CSV header every simulated log starts with.
pub const CSV_HEADER: &str = "device_id,timestamp,shuffle_id,output,input\n";
/// Timestamp of shuffle 0 (2026-01-01T00:00:00Z); shuffle `k` is stamped 30 s after `k - 1`.
pub const FIRST_TIMESTAMP: u64 = 1_767_225_600;
pub const SECONDS_PER_SHUFFLE: u64 = 30;

/// The text format of a simulated log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// `device_id,timestamp,shuffle_id,output,input`, codes separated by spaces.
    Csv,
    /// One object per shuffle with the same fields; orders as arrays of codes.
    JsonLines,
}

/// The shuffles to come, in sequence: the simulator, the order it shuffles next (physical item
/// ids), and orders already made ahead of the log (rows of the deck's size).
struct Source {
    sim: Simulator,
    items: Vec<u8>,
    ahead: Vec<u8>,
}

impl Source {
    /// Append the next `count` orders (of `n` items) to `out`, those made ahead first.
    fn take(&mut self, count: usize, n: usize, out: &mut Vec<u8>) {
        let have = (self.ahead.len() / n).min(count);
        out.extend(self.ahead.drain(..have * n));
        for _ in have..count {
            self.sim.shuffle(&mut self.items);
            out.extend_from_slice(&self.items);
        }
    }

    /// Make orders ahead until `count` are waiting.
    fn make_ahead(&mut self, count: usize, n: usize) {
        for _ in self.ahead.len() / n..count {
            self.sim.shuffle(&mut self.items);
            self.ahead.extend_from_slice(&self.items);
        }
    }
}

/// Writes the log of one simulated device, a block of chunks at a time.
pub struct LogWriter {
    /// Always there but while a block is made (the next block's orders are made meanwhile).
    source: Option<Source>,
    deck: DeckKind,
    /// The last order written: the next shuffle's input.
    last: Vec<u8>,
    format: LogFormat,
    /// `None`: plain text; `Some(level)`: each chunk one gzip member at that level.
    gzip: Option<u32>,
    chunk: usize,
    total: u64,
    done: u64,
    /// The record's start up to the timestamp (`SIM-1,` or `{"device_id": "SIM-1", "timestamp": `).
    lead: Vec<u8>,
    /// Each physical item's code as written in an order, followed by the separator (`As `, or
    /// `"As", ` in JSON Lines), at most `CODE_STRIDE` bytes, one entry every `CODE_STRIDE`.
    codes: Vec<u8>,
    code_lengths: Vec<usize>,
    separator: usize,
}

const CODE_STRIDE: usize = 16;
/// The most shuffles one chunk may hold, and the most chunks one block makes (memory per call
/// stays bounded whatever the caller asks).
pub const MAX_CHUNK: usize = 1 << 20;
pub const MAX_CHUNKS_PER_BLOCK: usize = 1024;

impl LogWriter {
    /// A writer of `total` shuffles of `sim` on `deck` for `device`. The device id is refused
    /// if the log's own reader would not read it back as it is (blank, a control character, a
    /// comma or a double quote).
    pub fn new(
        sim: Simulator,
        deck: DeckKind,
        device: &str,
        format: LogFormat,
        gzip: Option<u32>,
        chunk: usize,
        total: u64,
    ) -> Result<LogWriter, String> {
        if device.trim().is_empty()
            || device
                .chars()
                .any(|c| c.is_control() || c == ',' || c == '"')
        {
            return Err(format!(
                "device id {device:?}: expected printable text without commas, quotes, line \
                 breaks or control characters"
            ));
        }
        if !(1..=MAX_CHUNK).contains(&chunk) {
            return Err(format!(
                "chunk size {chunk}: expected 1 to {MAX_CHUNK} shuffles"
            ));
        }
        if let Some(level) = gzip {
            if level > 9 {
                return Err(format!("gzip level {level}: expected 0 to 9"));
            }
        }
        let code = |item: usize| deck.code(deck.symbol_of_item(item));
        let (lead, written): (String, Vec<String>) = match format {
            LogFormat::Csv => (
                format!("{device},"),
                (0..deck.size()).map(|i| code(i) + " ").collect(),
            ),
            LogFormat::JsonLines => (
                format!("{{\"device_id\": {}, \"timestamp\": ", json_string(device)),
                (0..deck.size())
                    .map(|i| json_string(&code(i)) + ", ")
                    .collect(),
            ),
        };
        let mut codes = vec![0u8; CODE_STRIDE * written.len()];
        for (slot, w) in codes.chunks_exact_mut(CODE_STRIDE).zip(&written) {
            slot[..w.len()].copy_from_slice(w.as_bytes());
        }
        Ok(LogWriter {
            source: Some(Source {
                sim,
                items: (0..deck.size() as u8).collect(),
                ahead: Vec::new(),
            }),
            last: (0..deck.size() as u8).collect(),
            deck,
            format,
            gzip,
            chunk,
            total,
            done: 0,
            lead: lead.into_bytes(),
            codes,
            code_lengths: written.iter().map(String::len).collect(),
            separator: if format == LogFormat::Csv { 1 } else { 2 },
        })
    }

    /// Shuffles written so far.
    #[must_use]
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The next `chunks` chunks of the log (at least one, at most `MAX_CHUNKS_PER_BLOCK`;
    /// fewer at its end; empty once complete): the header first if the format has one, then
    /// the records, compressed if asked.
    pub fn next_block(&mut self, chunks: usize) -> Vec<u8> {
        let left = self.total - self.done;
        let chunks = chunks.clamp(1, MAX_CHUNKS_PER_BLOCK);
        let shuffles = left.min(chunks as u64 * self.chunk as u64) as usize;
        if shuffles == 0 {
            return Vec::new();
        }
        // The orders in sequence: row k holds shuffle k's input, row k + 1 its output.
        let n = self.deck.size();
        let mut source = self.source.take().expect("the writer's source");
        let mut orders = Vec::with_capacity((shuffles + 1) * n);
        orders.extend_from_slice(&self.last);
        source.take(shuffles, n, &mut orders);
        self.last.copy_from_slice(&orders[shuffles * n..]);
        // As many orders as this block's are made for the next one while this one is written
        // (one sequence of shuffles whichever block makes them: the same log).
        let next = usize::try_from(self.total - self.done - shuffles as u64)
            .unwrap_or(usize::MAX)
            .min(shuffles);
        let this = &*self;
        let first_id = this.done + 1;
        let header = this.done == 0 && this.format == LogFormat::Csv;
        let (parts, ()) = rayon::join(
            || this.write_block(&orders, shuffles, first_id, header),
            || source.make_ahead(next, n),
        );
        self.source = Some(source);
        self.done += shuffles as u64;
        parts.concat()
    }

    /// The chunks of a block, formatted and compressed in parallel.
    fn write_block(
        &self,
        orders: &[u8],
        shuffles: usize,
        first_id: u64,
        header: bool,
    ) -> Vec<Vec<u8>> {
        let n = self.deck.size();
        (0..shuffles.div_ceil(self.chunk))
            .into_par_iter()
            .map(|c| {
                let start = c * self.chunk;
                let end = shuffles.min(start + self.chunk);
                let mut text = Vec::with_capacity((end - start) * self.row_bytes() + 64);
                if header && c == 0 {
                    text.extend_from_slice(CSV_HEADER.as_bytes());
                }
                for k in start..end {
                    let input = &orders[k * n..(k + 1) * n];
                    let output = &orders[(k + 1) * n..(k + 2) * n];
                    self.write_record(&mut text, first_id + k as u64, output, input);
                }
                match self.gzip {
                    None => text,
                    Some(level) => gzip_member(&text, level),
                }
            })
            .collect()
    }

    /// About how many bytes one record takes.
    fn row_bytes(&self) -> usize {
        let code = self.code_lengths.iter().max().unwrap_or(&0);
        self.lead.len() + 80 + 2 * self.deck.size() * code
    }

    fn write_record(&self, text: &mut Vec<u8>, id: u64, output: &[u8], input: &[u8]) {
        let mut digits = [0u8; 20];
        text.extend_from_slice(&self.lead);
        text.extend_from_slice(decimal(
            FIRST_TIMESTAMP + id * SECONDS_PER_SHUFFLE,
            &mut digits,
        ));
        let [to_id, to_output, to_input, end] = match self.format {
            LogFormat::Csv => [&b","[..], b",", b",", b"\n"],
            LogFormat::JsonLines => [
                &b", \"shuffle_id\": "[..],
                b", \"output\": [",
                b"], \"input\": [",
                b"]}\n",
            ],
        };
        text.extend_from_slice(to_id);
        text.extend_from_slice(decimal(id, &mut digits));
        text.extend_from_slice(to_output);
        self.write_order(text, output);
        text.extend_from_slice(to_input);
        self.write_order(text, input);
        text.extend_from_slice(end);
    }

    /// The codes of `order`, separated (each code is stored with the separator after it; the
    /// last one is taken back). Every code is copied as a whole `CODE_STRIDE`-byte slot (one
    /// fixed-size move) and the end advanced by its length only.
    fn write_order(&self, text: &mut Vec<u8>, order: &[u8]) {
        let mut end = text.len();
        text.resize(end + order.len() * CODE_STRIDE, 0);
        for &item in order {
            let at = item as usize * CODE_STRIDE;
            text[end..end + CODE_STRIDE].copy_from_slice(&self.codes[at..at + CODE_STRIDE]);
            end += self.code_lengths[item as usize];
        }
        text.truncate(end - self.separator);
    }
}

/// One complete gzip member (no name, modification time 0, so the bytes depend on the text
/// only).
#[must_use]
pub fn gzip_member(text: &[u8], level: u32) -> Vec<u8> {
    let mut gz = GzBuilder::new().mtime(0).write(
        Vec::with_capacity(text.len() / 3 + 64),
        Compression::new(level),
    );
    gz.write_all(text)
        .expect("compressing into memory cannot fail");
    gz.finish().expect("compressing into memory cannot fail")
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
#[must_use]
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The decimal digits of `value`, written into the end of `buf`.
fn decimal(mut value: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buf[at..];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;
    use crate::shuffler::simulate::Model;

    fn writer(
        model: &str,
        deck: &str,
        format: LogFormat,
        gzip: Option<u32>,
        chunk: usize,
        total: u64,
    ) -> LogWriter {
        let sim = Simulator::new(Model::parse(model).unwrap(), 11);
        LogWriter::new(
            sim,
            DeckKind::from_name(deck).unwrap(),
            "SIM-1",
            format,
            gzip,
            chunk,
            total,
        )
        .unwrap()
    }

    fn whole(mut w: LogWriter, chunks: usize) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let block = w.next_block(chunks);
            if block.is_empty() {
                return out;
            }
            out.extend(block);
        }
    }

    fn gunzip(data: &[u8]) -> Vec<u8> {
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(data)
            .read_to_end(&mut text)
            .unwrap();
        text
    }

    /// The obviously correct log: one shuffle after another, each row formatted on its own.
    fn reference(model: &str, deck: &str, format: LogFormat, total: u64) -> String {
        let kind = DeckKind::from_name(deck).unwrap();
        let mut sim = Simulator::new(Model::parse(model).unwrap(), 11);
        let mut items: Vec<u8> = (0..kind.size() as u8).collect();
        let codes = |items: &[u8], json: bool| -> String {
            let each: Vec<String> = items
                .iter()
                .map(|&i| kind.code(kind.symbol_of_item(i as usize)))
                .map(|c| if json { format!("\"{c}\"") } else { c })
                .collect();
            each.join(if json { ", " } else { " " })
        };
        let mut text = String::new();
        if format == LogFormat::Csv {
            text.push_str(CSV_HEADER);
        }
        for id in 1..=total {
            let input = items.clone();
            sim.shuffle(&mut items);
            let ts = 1_767_225_600 + 30 * id;
            let _ = match format {
                LogFormat::Csv => writeln!(
                    text,
                    "SIM-1,{ts},{id},{},{}",
                    codes(&items, false),
                    codes(&input, false)
                ),
                LogFormat::JsonLines => writeln!(
                    text,
                    "{{\"device_id\": \"SIM-1\", \"timestamp\": {ts}, \"shuffle_id\": {id}, \
                     \"output\": [{}], \"input\": [{}]}}",
                    codes(&items, true),
                    codes(&input, true)
                ),
            };
        }
        text
    }

    #[test]
    fn text_is_the_reference_log() {
        for (model, deck) in [
            ("fair", "cards52"),
            ("riffle:2", "cards52"),
            ("fair", "mahjong136"),
        ] {
            for format in [LogFormat::Csv, LogFormat::JsonLines] {
                let want = reference(model, deck, format, 23);
                let plain = whole(writer(model, deck, format, None, 5, 23), 2);
                assert_eq!(String::from_utf8(plain).unwrap(), want, "{model} {deck}");
                let packed = whole(writer(model, deck, format, Some(6), 5, 23), 3);
                assert_eq!(String::from_utf8(gunzip(&packed)).unwrap(), want);
            }
        }
    }

    #[test]
    fn bytes_do_not_depend_on_threads_or_blocks() {
        let run = |threads: usize, chunks: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    whole(
                        writer("fair", "cards52", LogFormat::Csv, Some(6), 7, 100),
                        chunks,
                    )
                })
        };
        let one = run(1, 1);
        assert_eq!(run(2, 1), one);
        assert_eq!(run(2, 3), one);
        assert_eq!(run(3, 100), one);
        // Blocks of changing sizes: the orders made ahead for one block serve the next in part,
        // or not all of them.
        let mut w = writer("fair", "cards52", LogFormat::Csv, Some(6), 7, 100);
        let mut varied = Vec::new();
        for chunks in [3, 1, 1, 4, 2, 1, 100].into_iter().cycle() {
            let block = w.next_block(chunks);
            if block.is_empty() {
                break;
            }
            varied.extend(block);
        }
        assert_eq!(varied, one);
        // 100 shuffles in chunks of 7: 15 members.
        let members = one.windows(4).filter(|w| w == &[0x1f, 0x8b, 8, 0]).count();
        assert_eq!(members, 15);
    }

    #[test]
    fn bad_device_ids_are_refused() {
        for bad in ["", "  ", "a,b", "a\"b", "a\nb", "a\u{1b}b"] {
            let sim = Simulator::new(Model::Fair, 1);
            assert!(
                LogWriter::new(sim, DeckKind::Cards52, bad, LogFormat::Csv, None, 1, 1).is_err()
            );
        }
        let refused = |chunk: usize, level: Option<u32>| {
            let sim = Simulator::new(Model::Fair, 1);
            LogWriter::new(sim, DeckKind::Cards52, "A", LogFormat::Csv, level, chunk, 1)
                .err()
                .unwrap_or_default()
        };
        assert_eq!(
            refused(0, None),
            "chunk size 0: expected 1 to 1048576 shuffles"
        );
        assert_eq!(
            refused(MAX_CHUNK + 1, None),
            "chunk size 1048577: expected 1 to 1048576 shuffles"
        );
        assert_eq!(refused(1, Some(10)), "gzip level 10: expected 0 to 9");
        assert_eq!(refused(MAX_CHUNK, Some(9)), "");
        assert_eq!(json_string("a\\b\u{1}"), "\"a\\\\b\\u0001\"");
        let mut buf = [0u8; 20];
        assert_eq!(decimal(0, &mut buf), b"0");
        assert_eq!(decimal(u64::MAX, &mut buf), u64::MAX.to_string().as_bytes());
    }
}
