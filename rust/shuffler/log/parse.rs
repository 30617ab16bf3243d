//! The parallel span parse: the lines of a span of a file whose format is known, read into
//! records, orders and hashes without the audit's state, compiled for this CPU's features.

use super::format::{
    blank, line_text, overlong_reason, read_record, same_length_fields, same_length_line, Format,
    Outcome, Scratch,
};
use super::{InputMode, MAX_LINE};
use crate::cpu::{compiled_with, Avx512, Native};
use crate::shuffler::deck::DeckKind;
use crate::shuffler::hash::hash128_orders;
use crate::shuffler::stats;

/// One record line as read without the audit's state.
pub(super) struct Item {
    /// Line within its span, from 1.
    pub(super) line: u64,
    pub(super) events: Vec<String>,
    pub(super) kind: Kind,
}

pub(super) enum Kind {
    /// A complete deck of device `names[device]`: its orders are next in `orders`.
    Complete { device: usize, input: bool },
    Rejected {
        device: Option<String>,
        reason: String,
    },
}

/// A span of whole lines of a file whose format is known, read in parallel.
#[derive(Default)]
pub(super) struct Parsed {
    /// Lines read (up to and including an unreadable one), and the blank ones among them.
    pub(super) lines: u64,
    pub(super) blank: u64,
    pub(super) items: Vec<Item>,
    /// Each complete record's output order, then its input order when one is logged.
    pub(super) orders: Vec<u8>,
    pub(super) names: Vec<String>,
    /// Each complete record's `hash128` of its output, and of its permutation relative to its
    /// logged input when that is what it is judged against.
    pub(super) hashes: Vec<(u128, Option<u128>)>,
    /// An unreadable line: its line within the span, its byte in the file, the message.
    pub(super) fatal: Option<(u64, u64, &'static str)>,
}

impl Parsed {
    /// A line longer than `MAX_LINE`, dropped by the reader: one bad record.
    pub(super) fn overlong() -> Parsed {
        Parsed {
            lines: 1,
            items: vec![Item {
                line: 1,
                events: Vec::new(),
                kind: Kind::Rejected {
                    device: None,
                    reason: overlong_reason(),
                },
            }],
            ..Parsed::default()
        }
    }

    pub(super) fn name(&mut self, device: &str) -> usize {
        if let Some(i) = self.names.iter().rposition(|n| n == device) {
            return i;
        }
        self.names.push(device.to_string());
        self.names.len() - 1
    }

    /// Read the lines of `data` (starting at byte `offset` of the file).
    pub(super) fn read(
        deck: DeckKind,
        mode: InputMode,
        format: &Format,
        data: &[u8],
        offset: u64,
    ) -> Parsed {
        #[cfg(target_arch = "x86_64")]
        if let Some(native) = Native::detect() {
            // SAFETY: a `Native` is made only on a CPU that has the features (`Native::detect`).
            return unsafe { Parsed::read_native(deck, mode, format, data, offset, Some(native)) };
        }
        Parsed::read_portable(deck, mode, format, data, offset, None)
    }

    compiled_with!(
        native,
        fn read_native(
            deck: DeckKind,
            mode: InputMode,
            format: &Format,
            data: &[u8],
            offset: u64,
            native: Option<Native>,
        ) -> Parsed = Parsed::read_portable
    );

    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn read_portable(
        deck: DeckKind,
        mode: InputMode,
        format: &Format,
        data: &[u8],
        offset: u64,
        native: Option<Native>,
    ) -> Parsed {
        let mut p = Parsed::default();
        // A CSV line of the width before is checked and split in one pass (with AVX2).
        let delimiter = match format {
            Format::Csv(cols) => Some(cols.delimiter),
            Format::JsonLines => None,
        };
        // Room for the usual records (a deck's text is at least twice its length in bytes): the
        // buffers do not grow by copies as the span is read.
        p.orders.reserve(data.len() / 2);
        p.items.reserve(data.len() / 128);
        let mut s = Scratch::default();
        let mut rel = vec![0u8; deck.size()];
        // The orders are hashed after the span is read, several at a time: where each
        // record's output and relative permutation lie in `orders`.
        let mut hash_at: Vec<(usize, Option<usize>)> = Vec::with_capacity(data.len() / 128);
        let mut at = 0;
        // The length of the line before (without its newline).
        let mut width = 0;
        while at < data.len() {
            let start = at;
            p.lines += 1;
            let line = p.lines;
            let mut split = None;
            let fields = delimiter.and_then(|d| same_length_fields(data, start, width, d, native));
            let text = if let Some((text, fields)) = fields {
                at = start + width + 1;
                split = Some(fields);
                text
            } else if let Some(text) = same_length_line(data, start, width) {
                at = start + width + 1;
                text
            } else {
                let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |k| at + k);
                at = end + 1;
                let raw = &data[start..end];
                if raw.len() > MAX_LINE {
                    p.items.push(Item {
                        line,
                        events: Vec::new(),
                        kind: Kind::Rejected {
                            device: None,
                            reason: overlong_reason(),
                        },
                    });
                    continue;
                }
                width = raw.len();
                match line_text(raw, false) {
                    Ok(t) => t,
                    Err((k, message)) => {
                        p.fatal = Some((line, offset + (start + k) as u64, message));
                        break;
                    }
                }
            };
            if blank(text) {
                p.blank += 1;
                continue;
            }
            let (kind, events) = match read_record(deck, format, text, split, &mut s) {
                Outcome::Complete(rec) => {
                    let device = p.name(&rec.device);
                    let out_at = p.orders.len();
                    p.orders.extend_from_slice(&s.out);
                    if rec.has_input {
                        p.orders.extend_from_slice(&s.input);
                    }
                    let judged = matches!(mode, InputMode::Logged | InputMode::Auto)
                        && rec.has_input
                        && deck.distinct();
                    // The permutation relative to the input: kept for the tally, hashed with
                    // the output after the span.
                    let rel_at = p.orders.len();
                    if judged {
                        stats::relative_native(&s.out, &s.input, &mut rel, native);
                        p.orders.extend_from_slice(&rel);
                    }
                    hash_at.push((out_at, judged.then_some(rel_at)));
                    let input = rec.has_input;
                    (Kind::Complete { device, input }, rec.events)
                }
                Outcome::Incomplete(rec, reason) => (
                    Kind::Rejected {
                        device: Some(rec.device.into_owned()),
                        reason,
                    },
                    rec.events,
                ),
                Outcome::Bad(device, reason) => (Kind::Rejected { device, reason }, Vec::new()),
            };
            p.items.push(Item { line, events, kind });
        }
        let avx512 = Avx512::detect();
        hash128_orders(
            &p.orders,
            deck.size(),
            &hash_at,
            &mut p.hashes,
            avx512,
            native,
        );
        p
    }
}
