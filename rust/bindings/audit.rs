//! Bindings for the shuffler audit: the streaming log reader and tallies, and the simulators.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::errors::CoreError;
use crate::shuffler::deck::DeckKind;
use crate::shuffler::log::{Audit, InputMode, ReadFailure};
use crate::shuffler::simlog::{LogFormat, LogWriter};
use crate::shuffler::simulate::{Model, Simulator};
use crate::shuffler::tally::{Game, Tally};

fn deck_kind(name: &str) -> PyResult<DeckKind> {
    DeckKind::from_name(name).ok_or_else(|| {
        PyErr::from(CoreError::Rules(format!(
            "unknown deck {name:?}: expected cards52, mahjong136 or mahjong112"
        )))
    })
}

fn u64_bytes<'py>(py: Python<'py>, values: &[u64]) -> Bound<'py, PyBytes> {
    PyBytes::new_bound_with(py, values.len() * 8, |buf| {
        for (chunk, v) in buf.chunks_exact_mut(8).zip(values) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    })
    .expect("writing into a fresh bytes object cannot fail")
}

/// A tally as a dict: tables as (shape, little-endian u64 bytes), counts as ints.
fn tally_dict<'py>(py: Python<'py>, t: &Tally) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    for (name, shape, data) in t.tables() {
        d.set_item(name, (shape, u64_bytes(py, data)))?;
    }
    d.set_item("shuffles", t.shuffles)?;
    d.set_item("referenced", t.referenced)?;
    d.set_item("consecutive_pairs", t.consecutive_pairs)?;
    d.set_item("serial_sum", t.serial_sum)?;
    d.set_item("serial_sumsq", t.serial_sumsq)?;
    Ok(d)
}

/// What a group of lines read gave: the batches completed and the orders kept since the group
/// before, the file bytes used so far and the file's size on disk.
type Taken = (Vec<Tally>, Vec<u8>, u64, Option<u64>);

/// What a started read sends as it reads.
enum Message {
    Group(Taken),
    /// A file was read to its end, or failed (the read then stops).
    FileEnd(Result<(), ReadFailure<Stopped>>),
}

/// The caller stopped a started read (its hook failed or it went away).
struct Stopped;

/// Files being read on a thread of their own, started before the caller could take what
/// they give (`ShuffleAudit.start_files`).
struct Started {
    /// The files not yet handed over, in order.
    paths: VecDeque<String>,
    rx: Receiver<Message>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Audit>>,
    /// The batches and kept orders of files handed over without `on_batches`: back in the
    /// audit when it is (for `take_batches` / `take_orders`, as after a plain read).
    kept: (Vec<Tally>, Vec<u8>),
}

impl Started {
    /// Stop the read and have the audit back (the messages not taken are dropped).
    fn join(&mut self) -> Audit {
        self.stop.store(true, Ordering::Relaxed);
        while self.rx.try_recv().is_ok() {}
        let thread = self.thread.take().expect("a started read is joined once");
        // A panic on the reading thread is this process's own failure: raised as one here.
        let mut audit = thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let (mut batches, mut orders) = std::mem::take(&mut self.kept);
        batches.append(&mut audit.finished_batches);
        audit.finished_batches = batches;
        if let Some(kept) = audit.kept.as_mut() {
            orders.append(kept);
            *kept = orders;
        }
        audit
    }
}

/// One streaming audit over one or more logs of one deck kind.
#[pyclass(module = "tablecert._core")]
pub struct ShuffleAudit {
    inner: Audit,
    /// A read started by `start_files` whose files were not all handed over yet; `inner`
    /// is then a stand-in.
    started: Option<Started>,
}

impl ShuffleAudit {
    /// The audit, refused while a started read holds it.
    fn audit(&self) -> PyResult<&Audit> {
        match &self.started {
            None => Ok(&self.inner),
            Some(s) => Err(PyRuntimeError::new_err(format!(
                "a started read of {} more file(s) is not taken: read_file each of them first",
                s.paths.len()
            ))),
        }
    }

    fn audit_mut(&mut self) -> PyResult<&mut Audit> {
        self.audit()?;
        Ok(&mut self.inner)
    }

    /// Hand over the next file of the started read: its groups' batches, orders and progress
    /// to the hooks as they arrive (the GIL released while waiting), then its end.
    fn take_started(
        &mut self,
        py: Python<'_>,
        path: &str,
        progress: Option<&PyObject>,
        on_batches: Option<&PyObject>,
    ) -> PyResult<()> {
        let started = self.started.as_mut().expect("a started read");
        if started.paths.front().map(String::as_str) != Some(path) {
            return Err(PyRuntimeError::new_err(format!(
                "read_file({path:?}): the started read's next file is {:?}",
                started.paths.front()
            )));
        }
        let ended = loop {
            let rx = &mut started.rx;
            let message = py.allow_threads(move || rx.recv());
            match message {
                Ok(Message::Group(mut taken)) => {
                    if on_batches.is_none() {
                        started.kept.0.append(&mut taken.0);
                        started.kept.1.append(&mut taken.1);
                    }
                    if let Err(e) = deliver(py, taken, progress, on_batches) {
                        break Err(ReadFailure::Hook(e));
                    }
                }
                Ok(Message::FileEnd(result)) => {
                    break result.map_err(|e| match e {
                        ReadFailure::Read(e) => ReadFailure::Read(e),
                        ReadFailure::Log(e) => ReadFailure::Log(e),
                        ReadFailure::Hook(Stopped) => {
                            ReadFailure::Hook(PyRuntimeError::new_err("the read was stopped"))
                        }
                    })
                }
                // The thread ended without a word: it panicked (raised by `join`).
                Err(_) => break Ok(()),
            }
        };
        started.paths.pop_front();
        if ended.is_err() || started.paths.is_empty() {
            self.inner = started.join();
            self.started = None;
        }
        ended.map_err(failure)
    }
}

/// A group's batches and orders to `on_batches`, then the bytes used to `progress`.
fn deliver(
    py: Python<'_>,
    (batches, orders, used, size): Taken,
    progress: Option<&PyObject>,
    on_batches: Option<&PyObject>,
) -> PyResult<()> {
    py.check_signals()?;
    if let Some(hook) = on_batches {
        if !batches.is_empty() || !orders.is_empty() {
            let batches = batches
                .iter()
                .map(|t| tally_dict(py, t))
                .collect::<PyResult<Vec<_>>>()?;
            hook.call1(py, (batches, PyBytes::new_bound(py, &orders)))?;
        }
    }
    if let Some(hook) = progress {
        hook.call1(py, (used, size.unwrap_or(0)))?;
    }
    Ok(())
}

fn failure(e: ReadFailure<PyErr>) -> PyErr {
    match e {
        ReadFailure::Read(e) => e.into(),
        ReadFailure::Log(e) => e.into(),
        ReadFailure::Hook(e) => e,
    }
}

/// The batches and the kept orders taken from the audit after a group, when they are drained
/// (else they wait in the audit).
fn take_group(audit: &mut Audit, draining: bool, used: u64, size: Option<u64>) -> Taken {
    if !draining {
        return (Vec::new(), Vec::new(), used, size);
    }
    let orders = audit.kept.as_mut().map(std::mem::take).unwrap_or_default();
    (
        std::mem::take(&mut audit.finished_batches),
        orders,
        used,
        size,
    )
}

#[pymethods]
impl ShuffleAudit {
    #[new]
    #[pyo3(signature = (deck, input_order = "previous", hand_size = 0, hands = 0, round_robin = false, tie_breaks = None, batch_size = 0, keep_orders = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        deck: &str,
        input_order: &str,
        hand_size: usize,
        hands: usize,
        round_robin: bool,
        tie_breaks: Option<super::cards::TieBreaks>,
        batch_size: u64,
        keep_orders: bool,
    ) -> PyResult<Self> {
        let kind = deck_kind(deck)?;
        let mode = match input_order {
            "logged" => InputMode::Logged,
            "previous" => InputMode::Previous,
            "auto" => InputMode::Auto,
            "none" => InputMode::None,
            other => {
                return Err(CoreError::Rules(format!(
                    "input order {other:?}: expected auto, logged, previous or none"
                ))
                .into())
            }
        };
        let game = match (hand_size, tie_breaks) {
            (0, _) => None,
            (3 | 5, Some(tb))
                if kind == DeckKind::Cards52 && hands * hand_size <= 52 && hands > 0 =>
            {
                Some(Game {
                    hand_size,
                    hands,
                    round_robin,
                    tie_breaks: tb.0,
                })
            }
            _ => {
                return Err(CoreError::Rules(format!(
                    "cannot deal {hands} hands of {hand_size} cards from a {deck} deck"
                ))
                .into())
            }
        };
        let mut inner = Audit::new(kind, mode, game, batch_size);
        if keep_orders {
            inner.kept = Some(Vec::new());
        }
        Ok(ShuffleAudit {
            inner,
            started: None,
        })
    }

    fn begin_file(&mut self, name: &str) -> PyResult<()> {
        self.audit_mut()?.begin_file(name);
        Ok(())
    }

    /// Feed the next bytes of the current file (the GIL is released).
    fn feed(&mut self, py: Python<'_>, chunk: &Bound<'_, PyBytes>) -> PyResult<()> {
        let data = chunk.as_bytes();
        let inner = self.audit_mut()?;
        py.allow_threads(|| inner.feed(data)).map_err(PyErr::from)
    }

    /// Read one whole log file in the core (plain or gzip, a FIFO too; the GIL released):
    /// decompressed on a reader thread while its lines are parsed and tallied in parallel.
    /// After each group of lines, `on_batches(batches, orders)` receives the batches completed
    /// since the last call and the kept orders (when there are any; without it they wait for
    /// `take_batches` / `take_orders`), then `progress(bytes used, size on disk or 0)`.
    #[pyo3(signature = (path, progress = None, on_batches = None))]
    fn read_file(
        &mut self,
        py: Python<'_>,
        path: &str,
        progress: Option<PyObject>,
        on_batches: Option<PyObject>,
    ) -> PyResult<()> {
        if self.started.is_some() {
            return self.take_started(py, path, progress.as_ref(), on_batches.as_ref());
        }
        let inner = &mut self.inner;
        let draining = on_batches.is_some();
        // The batches and orders taken while the pool reads on; handed to Python (the
        // battery) while the next group is parsed.
        let take = |audit: &mut Audit, used, size| take_group(audit, draining, used, size);
        let call = |taken| {
            Python::with_gil(|py| deliver(py, taken, progress.as_ref(), on_batches.as_ref()))
        };
        py.allow_threads(|| inner.read_file(path, take, call))
            .map_err(failure)
    }

    /// Start reading `paths`, in order, on a thread of their own, before the caller is ready
    /// for what they give (the command's imports): each is then handed over by
    /// `read_file(path, ...)`, in the same order, with everything read meanwhile (every batch
    /// drained to `on_batches`). Until the last is handed over, or one fails, the audit's
    /// other methods are refused.
    fn start_files(&mut self, paths: Vec<String>) -> PyResult<()> {
        self.audit()?;
        if paths.is_empty() {
            return Ok(());
        }
        let stand_in = Audit::new(
            self.inner.deck,
            self.inner.mode,
            None,
            self.inner.batch_size,
        );
        let mut audit = std::mem::replace(&mut self.inner, stand_in);
        let (tx, rx) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let (list, halt) = (paths.clone(), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("tablecert-started-read".into())
            .spawn(move || {
                for path in list {
                    let take = |audit: &mut Audit, used, size| take_group(audit, true, used, size);
                    let send = |taken| {
                        if halt.load(Ordering::Relaxed) {
                            return Err(Stopped);
                        }
                        tx.send(Message::Group(taken)).map_err(|_| Stopped)
                    };
                    let result = audit.read_file(&path, take, send);
                    let failed = result.is_err();
                    if tx.send(Message::FileEnd(result)).is_err() || failed {
                        break;
                    }
                }
                audit
            });
        match thread {
            Ok(thread) => {
                self.started = Some(Started {
                    paths: paths.into(),
                    rx,
                    stop,
                    thread: Some(thread),
                    kept: (Vec::new(), Vec::new()),
                });
                Ok(())
            }
            Err(e) => Err(PyRuntimeError::new_err(format!(
                "cannot start a reader thread: {e}"
            ))),
        }
    }

    fn end_file(&mut self) -> PyResult<()> {
        self.audit_mut()?.end_file().map_err(PyErr::from)
    }

    fn finish(&mut self) -> PyResult<()> {
        self.audit_mut()?.finish();
        Ok(())
    }

    /// Shuffle `decks` decks with a simulated device and tally them directly (each shuffle's
    /// input is the previous output, logged).
    #[pyo3(signature = (model, decks, seed, device = "SIM-1"))]
    fn add_simulated(
        &mut self,
        py: Python<'_>,
        model: &str,
        decks: u64,
        seed: u64,
        device: &str,
    ) -> PyResult<()> {
        let model = Model::parse(model).map_err(CoreError::Rules)?;
        let inner = self.audit_mut()?;
        py.allow_threads(|| {
            let kind = inner.deck;
            let mut sim = Simulator::new(model, seed);
            let mut items: Vec<u8> = (0..kind.size() as u8).collect();
            let mut symbols = vec![0u8; kind.size()];
            for _ in 0..decks {
                for (s, &i) in symbols.iter_mut().zip(&items) {
                    *s = kind.symbol_of_item(i as usize);
                }
                inner.set_input(&symbols);
                sim.shuffle(&mut items);
                for (s, &i) in symbols.iter_mut().zip(&items) {
                    *s = kind.symbol_of_item(i as usize);
                }
                inner.add_order(device, &symbols, true);
            }
        });
        Ok(())
    }

    /// The orders accepted since the last call (symbol ids, one deck after another), when
    /// the audit was made with `keep_orders`.
    fn take_orders<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let kept = self
            .audit_mut()?
            .kept
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        Ok(PyBytes::new_bound(py, &kept))
    }

    #[getter]
    fn records(&self) -> PyResult<u64> {
        Ok(self.audit()?.records)
    }

    #[getter]
    fn bad_count(&self) -> PyResult<u64> {
        Ok(self.audit()?.bad_count)
    }

    /// Every line read: headers + records + bad records + blank lines.
    #[getter]
    fn lines(&self) -> PyResult<u64> {
        Ok(self.audit()?.lines)
    }

    #[getter]
    fn header_lines(&self) -> PyResult<u64> {
        Ok(self.audit()?.header_lines)
    }

    /// Empty or whitespace-only lines (not records).
    #[getter]
    fn blank_lines(&self) -> PyResult<u64> {
        Ok(self.audit()?.blank_lines)
    }

    #[getter]
    fn without_input(&self) -> PyResult<u64> {
        Ok(self.audit()?.without_input)
    }

    #[getter]
    fn records_with_events(&self) -> PyResult<u64> {
        Ok(self.audit()?.records_with_events)
    }

    /// The bad records kept (the first 1000), as (file, line, reason).
    fn bad_records(&self) -> PyResult<Vec<(String, u64, String)>> {
        let audit = self.audit()?;
        Ok(audit
            .bad
            .iter()
            .map(|b| (audit.files[b.file].clone(), b.line, b.reason.clone()))
            .collect())
    }

    /// The ids of the devices whose records were accepted, sorted.
    fn device_ids(&self) -> PyResult<Vec<String>> {
        Ok(self.audit()?.device_ids())
    }

    fn events(&self) -> PyResult<Vec<(String, u64)>> {
        Ok(self
            .audit()?
            .events
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect())
    }

    /// Repeated orders: offered and repeated counts of output orders and of permutations
    /// relative to the input, and the fraction of orders sampled.
    fn repeats(&self) -> PyResult<(u64, u64, u64, u64, f64)> {
        let r = &self.audit()?.repeats;
        Ok((
            r.offered[0],
            r.repeats[0],
            r.offered[1],
            r.repeats[1],
            r.sampled_fraction(),
        ))
    }

    /// The tallies of every shuffle read so far.
    fn tally<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        tally_dict(py, &self.audit()?.total)
    }

    /// The completed batches since the last call (each already counted in the total).
    fn take_batches<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        std::mem::take(&mut self.audit_mut()?.finished_batches)
            .iter()
            .map(|t| tally_dict(py, t))
            .collect()
    }
}

/// Orders from a simulated device, as symbol ids, each shuffle applied to the previous output.
#[pyclass(module = "tablecert._core")]
pub struct ShuffleSimulator {
    sim: Simulator,
    deck: DeckKind,
    items: Vec<u8>,
}

#[pymethods]
impl ShuffleSimulator {
    #[new]
    #[pyo3(signature = (model, deck = "cards52", seed = 0))]
    fn new(model: &str, deck: &str, seed: u64) -> PyResult<Self> {
        let deck = deck_kind(deck)?;
        Ok(ShuffleSimulator {
            sim: Simulator::new(Model::parse(model).map_err(CoreError::Rules)?, seed),
            deck,
            items: (0..deck.size() as u8).collect(),
        })
    }

    #[getter]
    fn model(&self) -> String {
        self.sim.model.to_string()
    }

    /// The next `count` shuffles as symbol ids, `count * deck size` bytes.
    fn orders<'py>(&mut self, py: Python<'py>, count: usize) -> Bound<'py, PyBytes> {
        let n = self.deck.size();
        let mut out = vec![0u8; count * n];
        py.allow_threads(|| {
            for row in out.chunks_exact_mut(n) {
                self.sim.shuffle(&mut self.items);
                for (s, &i) in row.iter_mut().zip(&self.items) {
                    *s = self.deck.symbol_of_item(i as usize);
                }
            }
        });
        PyBytes::new_bound(py, &out)
    }
}

/// A simulated device's log, formatted and compressed in the core, a block of chunks at a time
/// (each chunk of `chunk` shuffles one gzip member when compressed; the bytes depend on the
/// arguments only, never on the number of threads or the blocks asked for).
#[pyclass(module = "tablecert._core")]
pub struct ShuffleLogWriter {
    inner: LogWriter,
}

#[pymethods]
impl ShuffleLogWriter {
    #[new]
    // Level 2 of miniz_oxide: a 52-card log about 10% larger than at level 6 (72 against 65
    // bytes a shuffle) in about a tenth of the time. Chunks of 4096 shuffles: about 1.4 MB of
    // text each, enough to keep both cores busy and the members' overhead negligible.
    #[pyo3(signature = (model, deck, seed, shuffles, device = "SIM-1", format = "csv", gzip = false, level = 2, chunk = 4096))]
    #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
    fn new(
        model: &str,
        deck: &str,
        seed: u64,
        shuffles: u64,
        device: &str,
        format: &str,
        gzip: bool,
        level: u32,
        chunk: usize,
    ) -> PyResult<Self> {
        let kind = deck_kind(deck)?;
        let sim = Simulator::new(Model::parse(model).map_err(CoreError::Rules)?, seed);
        let format = match format {
            "csv" => LogFormat::Csv,
            "jsonl" => LogFormat::JsonLines,
            other => {
                return Err(CoreError::Rules(format!(
                    "log format {other:?}: expected csv or jsonl"
                ))
                .into())
            }
        };
        let inner = LogWriter::new(
            sim,
            kind,
            device,
            format,
            gzip.then_some(level),
            chunk,
            shuffles,
        )
        .map_err(CoreError::Rules)?;
        Ok(ShuffleLogWriter { inner })
    }

    /// Shuffles written so far.
    #[getter]
    fn done(&self) -> u64 {
        self.inner.done()
    }

    /// The next `chunks` chunks of the log as bytes (empty once it is complete; the GIL is
    /// released while they are made).
    fn next_block<'py>(&mut self, py: Python<'py>, chunks: usize) -> Bound<'py, PyBytes> {
        let inner = &mut self.inner;
        let block = py.allow_threads(|| inner.next_block(chunks));
        PyBytes::new_bound(py, &block)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ShuffleAudit>()?;
    m.add_class::<ShuffleSimulator>()?;
    m.add_class::<ShuffleLogWriter>()?;
    Ok(())
}
