//! A gzip log of several members (the project's simulator writes one per 4,096 shuffles, pigz
//! and bgzip write them too) decoded on several threads, with exactly the bytes and errors of
//! the decoder that reads its members in turn.
//!
//! gzip has no index of its members, so their starts are guessed: every place ahead of the
//! decoding where the bytes could start a member (the magic bytes, deflate, no reserved flag)
//! is a candidate, and candidates are inflated speculatively on the thread pool, each as one
//! member on its own. A candidate's output is used only when the member before it, decoded
//! from a start already proven, ends exactly where the candidate starts: decoding from a true
//! start is deterministic, so the chain from the log's first byte proves every member it
//! accepts. A false candidate (magic bytes inside compressed data or inside a header's extra
//! field) costs its speculative work and nothing else. Every member not proven so (the first,
//! one after a member no candidate started at, one whose speculative decode failed or grew
//! past `MEMBER_CAP`) is decoded in turn on the reading thread, by the same decoder as a
//! sequential read, so its errors are the same. A log of one member is decoded by that thread
//! alone. The speculative decodes are libdeflate's where the system has it (`libdeflate.rs`:
//! 2.5x `miniz_oxide`'s speed), `miniz_oxide`'s otherwise: both give a true member's bytes,
//! and a member either doubts is left to the in-turn decoder. Memory: at most `in_flight` members decoded ahead, each at most `MEMBER_CAP` bytes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;

use super::libdeflate::{self, Inflater, Library, Member};
use super::stream::{os_text, Decoder, ReadError, GZIP_MAGIC};

/// The most bytes a speculative decode keeps: a member larger than this is decoded in turn.
const MEMBER_CAP: usize = 16 << 20;
/// Compressed bytes read per call by a member's decoder and by the candidate scan.
const CHUNK: usize = 1 << 18;
/// Output bytes handed on per call while a member is decoded in turn.
const OUT: usize = 1 << 19;
/// The most compressed bytes a speculative decode by libdeflate reads: a member of at most
/// `MEMBER_CAP` bytes is shorter (its header's optional fields aside); a longer one is left
/// to `miniz_oxide`.
const INPUT_CAP: usize = 2 * MEMBER_CAP;
/// The first compressed bytes read for a candidate before any member's size is known.
const FIRST_WINDOW: usize = 1 << 20;

/// A log's bytes read by offset (`pread`), from `pos` on: a member's decoder reads from its
/// start without moving a shared file position.
struct ReadAt {
    file: Arc<File>,
    pos: u64,
}

impl Read for ReadAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Whether a member may start at `bytes[0]`: the magic bytes, the deflate method and no
/// reserved flag (the rest of the header is checked by decoding).
fn may_start(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[..2] == GZIP_MAGIC && bytes[2] == 8 && bytes[3] & 0xE0 == 0
}

/// Whether the log starts with the gzip magic bytes (what makes the sequential reader read it
/// as gzip).
pub fn is_gzip(file: &File) -> Result<bool, io::Error> {
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < head.len() {
        match file.read_at(&mut head[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got == head.len() && head == GZIP_MAGIC)
}

/// What a speculative decode of one candidate gave.
enum Speculated {
    /// The candidate decodes as one whole member, `out`, whose trailer ends at `end`.
    Member { out: Vec<u8>, end: u64 },
    /// It does not (an error, larger than `MEMBER_CAP`, or given up): not proven either way.
    Unknown,
}

/// A candidate being decoded on the pool.
struct Job {
    start: u64,
    cancel: Arc<AtomicBool>,
    rx: Receiver<Speculated>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The compressed size of the last member proven, to size the next candidates' reads.
struct Hint(AtomicU64);

impl Hint {
    /// The compressed bytes to read first for a candidate: half again the last member's
    /// size and 64 KiB more (one read for logs of members of about one size).
    fn window(&self) -> usize {
        match usize::try_from(self.0.load(Ordering::Relaxed)) {
            Ok(0) | Err(_) => FIRST_WINDOW,
            Ok(last) => (last + last / 2 + (64 << 10)).min(INPUT_CAP),
        }
    }

    fn proven(&self, size: u64) {
        self.0.store(size, Ordering::Relaxed);
    }
}

thread_local! {
    /// This thread's libdeflate decompressor, made at its first speculative decode.
    static INFLATER: RefCell<Option<Inflater>> = const { RefCell::new(None) };
}

/// Read `buf.len()` bytes at `at` or up to the file's end; how many were read (an error:
/// none, which the in-turn decoder then reports).
fn read_window(file: &File, at: u64, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return 0,
        }
    }
    got
}

/// Decode the one member that may start at `start` whole with libdeflate, from a window of
/// the file sized by the last member proven. `None` where libdeflate is not to decide: a
/// member with a header CRC (libdeflate does not check it), no decompressor, or a failure
/// with more of the file beyond the window (libdeflate does not say whether the member runs
/// past it or is not one: `miniz_oxide`'s streaming decode, which reads only what it needs
/// and stops at the first error, decides; so a false candidate costs one window's read more
/// than it did, not reads growing to `INPUT_CAP`).
fn speculate_whole(
    file: &File,
    library: Library,
    start: u64,
    hint: &Hint,
    cancel: &AtomicBool,
) -> Option<Speculated> {
    if cancel.load(Ordering::Relaxed) {
        return Some(Speculated::Unknown);
    }
    let window = hint.window();
    let mut input = vec![0u8; window];
    let got = read_window(file, start, &mut input);
    input.truncate(got);
    if input.len() >= 4 && input[3] & 0x02 != 0 {
        return None;
    }
    let mut out = Vec::new();
    let outcome = INFLATER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Inflater::new(library);
        }
        slot.as_mut()
            .map(|inflater| inflater.gzip_member(&input, &mut out, MEMBER_CAP))
    })?;
    match outcome {
        Member::Whole { used } => Some(Speculated::Member {
            out,
            end: start + used as u64,
        }),
        Member::Unreadable if got == window => None,
        Member::Unreadable | Member::TooLarge => Some(Speculated::Unknown),
    }
}

/// Decode the one member that may start at `start`, keeping at most `MEMBER_CAP` bytes.
fn speculate(file: Arc<File>, path: &str, start: u64, cancel: &AtomicBool) -> Speculated {
    let source = ReadAt { file, pos: start };
    let mut d = Decoder::member_at(path, source, start, CHUNK);
    let mut out = Vec::new();
    loop {
        if cancel.load(Ordering::Relaxed) || out.len() >= MEMBER_CAP {
            return Speculated::Unknown;
        }
        let at = out.len();
        out.resize(at + OUT.min(MEMBER_CAP - at), 0);
        match d.read(&mut out[at..]) {
            Ok(0) => {
                out.truncate(at);
                if d.log_ended() {
                    return Speculated::Unknown;
                }
                return Speculated::Member {
                    out,
                    end: d.consumed(),
                };
            }
            Ok(n) => out.truncate(at + n),
            Err(_) => return Speculated::Unknown,
        }
    }
}

/// The candidates of a log, found by a scan that runs ahead of the decoding.
struct Scan {
    file: Arc<File>,
    /// Bytes before this were scanned (a candidate needs 4 bytes from its start).
    pos: u64,
    done: bool,
    found: VecDeque<u64>,
    buf: Vec<u8>,
}

impl Scan {
    /// The next candidate after `after`, scanning further as needed; `None` at the log's end.
    fn next_after(&mut self, after: u64) -> Result<Option<u64>, io::Error> {
        loop {
            while self.found.front().is_some_and(|&c| c <= after) {
                self.found.pop_front();
            }
            if let Some(&c) = self.found.front() {
                self.found.pop_front();
                return Ok(Some(c));
            }
            if self.done {
                return Ok(None);
            }
            self.pos = self.pos.max(after + 1);
            self.scan_chunk()?;
        }
    }

    /// Scan the next `CHUNK` bytes for candidates.
    fn scan_chunk(&mut self) -> Result<(), io::Error> {
        self.buf.resize(CHUNK + 3, 0);
        let mut got = 0;
        while got < self.buf.len() {
            match self
                .file
                .read_at(&mut self.buf[got..], self.pos + got as u64)
            {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let bytes = &self.buf[..got];
        // Candidates start within the first `CHUNK` bytes; the 3 after let the last ones be
        // checked whole, and are scanned again with the next chunk.
        let starts = got.min(CHUNK);
        for k in memchr::memchr_iter(GZIP_MAGIC[0], &bytes[..starts]) {
            if may_start(&bytes[k..]) {
                self.found.push_back(self.pos + k as u64);
            }
        }
        if got < self.buf.len() {
            self.done = true;
        }
        self.pos += starts as u64;
        Ok(())
    }
}

/// How the members of a decoded log were proven.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    /// Members whose speculative decode the chain accepted.
    pub speculated: u64,
    /// Members (and the log's end) decoded in turn on the reading thread.
    pub in_turn: u64,
}

/// Decode the gzip log `file` (named `path`) member by member, several at once, handing its
/// bytes in order to `sink` with the compressed bytes proven used so far; `sink` returns
/// false to stop. `in_flight`: the most candidates decoded ahead (0: every member in turn).
pub fn decode(
    file: File,
    path: &str,
    in_flight: usize,
    sink: impl FnMut(&[u8], u64) -> bool,
) -> Result<Decoded, ReadError> {
    decode_with(file, path, in_flight, libdeflate::library(), sink)
}

/// `decode`, the speculative decodes made by `library` (libdeflate) where it is given and
/// by `miniz_oxide` otherwise.
fn decode_with(
    file: File,
    path: &str,
    in_flight: usize,
    library: Option<Library>,
    mut sink: impl FnMut(&[u8], u64) -> bool,
) -> Result<Decoded, ReadError> {
    let file = Arc::new(file);
    let hint = Arc::new(Hint(AtomicU64::new(0)));
    let cannot = |at: u64, e: &io::Error| {
        ReadError(format!("{path}: read error at byte {at}: {}", os_text(e)))
    };
    let mut decoded = Decoded::default();
    let mut scan = Scan {
        file: Arc::clone(&file),
        pos: 1,
        done: false,
        found: VecDeque::new(),
        buf: Vec::new(),
    };
    let mut jobs: VecDeque<Job> = VecDeque::new();
    let mut frontier = 0u64;
    let mut out = vec![0u8; OUT];
    loop {
        // Candidates the decoding has passed were false: their decodes are given up.
        while jobs.front().is_some_and(|j| j.start < frontier) {
            jobs.pop_front();
        }
        // Keep the pool busy with the next candidates.
        while jobs.len() < in_flight {
            let after = jobs.back().map_or(frontier, |j| j.start);
            let at = scan.pos;
            let Some(start) = scan.next_after(after).map_err(|e| cannot(at, &e))? else {
                break;
            };
            let (tx, rx) = channel();
            let cancel = Arc::new(AtomicBool::new(false));
            let (f, p, c) = (Arc::clone(&file), path.to_string(), Arc::clone(&cancel));
            let h = Arc::clone(&hint);
            rayon::spawn_fifo(move || {
                let whole = library.and_then(|l| speculate_whole(&f, l, start, &h, &c));
                let _ = tx.send(whole.unwrap_or_else(|| speculate(f, &p, start, &c)));
            });
            jobs.push_back(Job { start, cancel, rx });
        }
        if jobs.front().is_some_and(|j| j.start == frontier) {
            let job = jobs.pop_front().expect("a job at the frontier");
            if let Ok(Speculated::Member { out: bytes, end }) = job.rx.recv() {
                hint.proven(end - frontier);
                frontier = end;
                decoded.speculated += 1;
                if !sink(&bytes, frontier) {
                    return Ok(decoded);
                }
                continue;
            }
        }
        // Not proven by a candidate: the member (or the log's end) at the frontier, in turn.
        let source = ReadAt {
            file: Arc::clone(&file),
            pos: frontier,
        };
        let mut d = Decoder::member_at(path, source, frontier, CHUNK);
        decoded.in_turn += 1;
        loop {
            let n = d.read(&mut out)?;
            if n == 0 {
                break;
            }
            if !sink(&out[..n], frontier) {
                return Ok(decoded);
            }
        }
        if d.log_ended() {
            return Ok(decoded);
        }
        hint.proven(d.consumed() - frontier);
        frontier = d.consumed();
        if !sink(&[], frontier) {
            return Ok(decoded);
        }
    }
}

#[cfg(test)]
mod tests;
