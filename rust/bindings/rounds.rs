//! Bindings for the round-log reader: bytes in, chunks of columns out (lists of text, arrays
//! as little-endian bytes for `numpy.frombuffer`).

use std::sync::mpsc::{sync_channel, Receiver};

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};

use super::errors::CoreError;
use crate::logs::stream::{Piece, Pieces};
use crate::rounds::{Columns, RoundReader as Reader, Spec, MAX_SPOTS, ROUND_FIELDS, SEAT_FIELDS};

/// A streaming strict reader of one round log (docs/formats/round-logs.md).
#[pyclass(module = "tablecert._core")]
pub struct RoundReader {
    inner: Reader,
    /// What the reader was made with, for the one that reads an opened file.
    spec: Spec,
    path: String,
    events: Vec<String>,
    /// The file being read in the core (`open`), parsed on a thread of its own, until its end.
    parsed: Option<Receiver<Parsed>>,
}

/// What the parsing thread of an opened file hands on, in order.
enum Parsed {
    /// Chunks completed.
    Chunks(Vec<Columns>),
    /// The file is read (its last chunks came before): the reader, back.
    Done(Box<Reader>),
    /// The first failure, and the reader.
    Failed(String, Box<Reader>),
}

/// Parse the pieces of an opened file with `reader`, handing on each group of completed
/// chunks as it is made (at most one group waiting: memory stays at a few chunks).
fn parse_pieces(mut reader: Reader, mut pieces: Pieces) -> Receiver<Parsed> {
    let (tx, rx) = sync_channel(1);
    std::thread::Builder::new()
        .name("round-parser".into())
        .spawn(move || {
            let mut run = || -> Result<(), String> {
                while let Some(batch) = pieces.next_batch() {
                    for piece in batch.map_err(|e| e.0)? {
                        match piece {
                            Piece::Lines { data, .. } => reader.feed(&data)?,
                            Piece::Overlong { .. } => return Err(reader.overlong(MAX_LINE)),
                        }
                    }
                    if reader.has_ready() && tx.send(Parsed::Chunks(reader.take())).is_err() {
                        return Ok(()); // the caller stopped reading
                    }
                }
                reader.finish()?;
                let _ = tx.send(Parsed::Chunks(reader.take()));
                Ok(())
            };
            let outcome = run();
            let reader = Box::new(reader);
            let _ = tx.send(match outcome {
                Ok(()) => Parsed::Done(reader),
                Err(e) => Parsed::Failed(e, reader),
            });
        })
        .expect("starting the round log's parsing thread");
    rx
}

/// Bytes of whole lines handed from the reader thread at a time.
const PIECE_BYTES: usize = 1 << 20;
/// The longest line read (a round of a full table is a few kilobytes).
const MAX_LINE: usize = 1 << 24;

fn bytes_of<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> Bound<'py, PyByteArray> {
    PyByteArray::new_bound_with(py, values.len() * N, |buf| {
        for (chunk, v) in buf.chunks_exact_mut(N).zip(values) {
            chunk.copy_from_slice(&to_le(*v));
        }
        Ok(())
    })
    .expect("writing into a fresh bytearray cannot fail")
}

fn chunk_dict<'py>(
    py: Python<'py>,
    c: &Columns,
    events: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    // A table's rounds are logged one after another: one string for a run of the same id.
    let mut last: Option<(&str, Bound<'py, PyString>)> = None;
    let tables = c.table_id.iter().map(|t| match &last {
        Some((text, s)) if text == t => s.clone(),
        _ => {
            let s = PyString::new_bound(py, t);
            last = Some((t, s.clone()));
            s
        }
    });
    d.set_item("table_id", PyList::new_bound(py, tables))?;
    d.set_item("round_id", PyList::new_bound(py, &c.round_id))?;
    d.set_item("timestamp", PyList::new_bound(py, &c.timestamp))?;
    let names: Vec<Bound<'py, PyString>> =
        events.iter().map(|e| PyString::new_bound(py, e)).collect();
    let none = PyTuple::empty_bound(py);
    let rows = PyList::empty_bound(py);
    for e in &c.events {
        if e.is_empty() {
            rows.append(&none)?;
        } else {
            rows.append(PyTuple::new_bound(
                py,
                e.iter().map(|&i| names[usize::from(i)].clone()),
            ))?;
        }
    }
    d.set_item("events", rows)?;
    let i64s = |v: &[i64]| bytes_of(py, v, i64::to_le_bytes);
    let i16s = |v: &[i16]| bytes_of(py, v, i16::to_le_bytes);
    d.set_item("line", i64s(&c.line))?;
    d.set_item("dealer", i16s(&c.dealer))?;
    d.set_item("upcard", i16s(&c.upcard))?;
    d.set_item("meter_before", i64s(&c.meter_before))?;
    d.set_item("meter_after", i64s(&c.meter_after))?;
    let void: Vec<u8> = c.void.iter().map(|&v| u8::from(v)).collect();
    d.set_item("void", bytes_of(py, &void, |v: u8| [v]))?;
    d.set_item("seat_round", i64s(&c.seat_round))?;
    d.set_item("seat_number", i64s(&c.seat_number))?;
    d.set_item("seat_line", i64s(&c.seat_line))?;
    d.set_item("seat_cards", i16s(&c.seat_cards))?;
    d.set_item("decision", i64s(&c.decision))?;
    d.set_item("bets", i64s(&c.bets))?;
    d.set_item("paid", i64s(&c.paid))?;
    Ok(d)
}

impl RoundReader {
    fn chunks<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty_bound(py);
        for c in self.inner.take() {
            out.append(chunk_dict(py, &c, &self.events)?)?;
        }
        Ok(out)
    }
}

#[pymethods]
impl RoundReader {
    #[new]
    #[pyo3(signature = (path, game, hand_size, spots, decisions, events, void_events, upcard_required, rounds_per_chunk, dealer_hand_size=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        path: &str,
        game: &str,
        hand_size: usize,
        spots: Vec<String>,
        decisions: Vec<String>,
        events: Vec<String>,
        void_events: usize,
        upcard_required: bool,
        rounds_per_chunk: usize,
        dealer_hand_size: Option<usize>,
    ) -> PyResult<Self> {
        let dealer_size = dealer_hand_size.unwrap_or(hand_size);
        if !(1..=MAX_SPOTS).contains(&spots.len())
            || decisions.is_empty()
            || events.len() > 255
            || void_events > events.len()
            || !(1..=52).contains(&hand_size)
            || !(1..=52).contains(&dealer_size)
            || rounds_per_chunk == 0
        {
            return Err(CoreError::Argument("RoundReader: a game needs 1-4 spots, a hand of 1-52 cards, at most 255 events and chunks of at least one round".into()).into());
        }
        let spec = Spec {
            game: game.to_string(),
            hand_size,
            dealer_size,
            spots,
            decisions,
            events: events.clone(),
            void_events,
            upcard_required,
            rounds_per_chunk,
        };
        Ok(RoundReader {
            inner: Reader::new(spec.clone(), path),
            spec,
            path: path.to_string(),
            events,
            parsed: None,
        })
    }

    /// Read the next bytes of the file (the GIL is released); the chunks completed so far.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = data.as_bytes();
        let inner = &mut self.inner;
        py.allow_threads(|| inner.feed(bytes))
            .map_err(CoreError::Log)?;
        self.chunks(py)
    }

    /// Start reading the file at `path` in the core: decompressed (gzip by its magic bytes)
    /// and cut into whole lines on a reader thread, parsed on another while the caller works
    /// on the chunks `next_chunks` gives.
    fn open(&mut self, path: &str) -> PyResult<()> {
        let pieces = Pieces::open(path, PIECE_BYTES, MAX_LINE)?;
        let fresh = Reader::new(self.spec.clone(), &self.path);
        let reader = std::mem::replace(&mut self.inner, fresh);
        self.parsed = Some(parse_pieces(reader, pieces));
        Ok(())
    }

    /// The next chunks of the opened file (waiting for them with the GIL released), the last
    /// ones at its end; None once it is read.
    fn next_chunks<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let Some(parsed) = self.parsed.take() else {
            return Ok(None);
        };
        let (parsed, got) = py.allow_threads(move || {
            let got = parsed.recv();
            (parsed, got)
        });
        let chunks = match got {
            Ok(Parsed::Chunks(chunks)) => {
                self.parsed = Some(parsed);
                chunks
            }
            Ok(Parsed::Done(reader)) => {
                self.inner = *reader;
                return Ok(None);
            }
            Ok(Parsed::Failed(e, reader)) => {
                self.inner = *reader;
                return Err(CoreError::Log(e).into());
            }
            Err(_) => {
                return Err(CoreError::Log("the round log's parsing thread stopped".into()).into());
            }
        };
        let out = PyList::empty_bound(py);
        for c in &chunks {
            out.append(chunk_dict(py, c, &self.events)?)?;
        }
        Ok(Some(out))
    }

    /// The end of the file: the last chunks.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.inner.finish().map_err(CoreError::Log)?;
        self.chunks(py)
    }

    /// Rounds read so far.
    #[getter]
    fn rounds(&self) -> u64 {
        self.inner.rounds
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RoundReader>()?;
    m.add(
        "ROUND_LOG_FIELDS",
        (ROUND_FIELDS.to_vec(), SEAT_FIELDS.to_vec()),
    )?;
    Ok(())
}
