//! A log's bytes, read in the core: regular files and FIFOs, plain or gzip (every member in
//! turn, so `cat a.gz b.gz` is one log), cut into pieces of whole lines on a reader thread so
//! that the lines can be parsed in parallel while the next bytes are decompressed. Shared by
//! every line-oriented log reader (shuffler logs, round logs).
//!
//! gzip is recognised by its magic bytes, not the name. Anything after the last member, even
//! zero padding, is an error naming the compressed byte where it starts, as is a truncated or
//! corrupt member (header, deflate data, CRC-32 or length). A FIFO is opened without waiting
//! for a writer (with none, it reads as empty instead of hanging); directories, devices and
//! sockets are refused. Every message names the file as the caller spelled it.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use flate2::{Crc, Decompress, FlushDecompress, Status};

use super::members;

/// The two bytes that start every gzip member.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Bytes asked of the file per read.
const READ_SIZE: usize = 1 << 20;
/// Buffers of pieces a cutter keeps for the next pieces (what is waiting to be read and the
/// group being read, at most).
const SPARE_BUFFERS: usize = 8;

/// A log that cannot be read: the whole message, naming the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError(pub String);

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReadError {}

/// The system's text for an I/O error, without Rust's " (os error N)".
pub(crate) fn os_text(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(k) => text[..k].to_string(),
        None => text,
    }
}

/// Open a log: a regular file or a FIFO (opened without waiting for a writer), with its size
/// on disk (`None` for a FIFO). Directories, devices and sockets are refused.
pub fn open(path: &str) -> Result<(File, Option<u64>), ReadError> {
    let cannot = |e: &io::Error| ReadError(format!("{path}: cannot open: {}", os_text(e)));
    let kind = std::fs::metadata(path).map_err(|e| cannot(&e))?.file_type();
    let refused = if kind.is_file() || kind.is_fifo() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    };
    if let Some(what) = refused {
        return Err(ReadError(format!("{path}: is {what}, not a log file")));
    }
    let fifo = kind.is_fifo();
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(if fifo { libc::O_NONBLOCK } else { 0 })
        .open(path)
        .map_err(|e| cannot(&e))?;
    if fifo {
        // Opened at once; from here on a read waits for the writer, as a pipe read does.
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns, with integer arguments only.
        let ok = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
        };
        if !ok {
            return Err(cannot(&io::Error::last_os_error()));
        }
        return Ok((file, None));
    }
    let size = file.metadata().map_err(|e| cannot(&e))?.len();
    Ok((file, Some(size)))
}

/// Where a gzip stream is: between members, in a member's deflate data, or done.
enum Gzip {
    /// Plain text: the file's bytes as they are.
    Plain,
    /// At the start of a member (or after the last one).
    Between,
    /// Inside a member's deflate data; the CRC-32 of its output so far.
    Inside(Box<Decompress>, Crc),
    Done,
}

/// A log's decoded bytes: `read` fills a buffer with the next ones (plain or decompressed);
/// `consumed` is the count of file bytes used so far.
pub struct Decoder<R> {
    path: String,
    source: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    eof: bool,
    /// File bytes read so far.
    read: u64,
    state: Gzip,
    /// Stop after one member (`member_at`): `read` gives 0 at its end.
    one_member: bool,
    /// Members decoded so far.
    members: u64,
    /// The log ended where a member could have started (no byte left).
    ended: bool,
}

impl<R: Read> Decoder<R> {
    /// A decoder of `source` (named `path` in messages); gzip or plain is decided by the first
    /// two bytes.
    pub fn new(path: &str, source: R) -> Result<Decoder<R>, ReadError> {
        let mut d = Decoder {
            path: path.to_string(),
            source,
            buf: vec![0; READ_SIZE].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            read: 0,
            state: Gzip::Plain,
            one_member: false,
            members: 0,
            ended: false,
        };
        // A pipe may deliver one byte first.
        d.fill(GZIP_MAGIC.len())?;
        if d.pending().starts_with(&GZIP_MAGIC) {
            d.state = Gzip::Between;
        }
        Ok(d)
    }

    /// A decoder of the one gzip member that starts `offset` bytes into the log, `source`
    /// being the log's bytes from there (read `buffer` bytes at a time): `read` gives its
    /// bytes, then 0, and `consumed` is then the end of its trailer. Where no byte is left,
    /// `read` gives 0 at once and `log_ended` is true; any other bytes than a member are the
    /// error the whole log's decoder gives there, at the same compressed byte.
    pub fn member_at(path: &str, source: R, offset: u64, buffer: usize) -> Decoder<R> {
        Decoder {
            path: path.to_string(),
            source,
            buf: vec![0; buffer.max(GZIP_MAGIC.len())].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            read: offset,
            state: Gzip::Between,
            one_member: true,
            members: 0,
            ended: false,
        }
    }

    /// File bytes used so far (compressed bytes of a gzip log).
    #[must_use]
    pub fn consumed(&self) -> u64 {
        self.read - (self.end - self.start) as u64
    }

    /// Whether the log ended where another member could have started.
    #[must_use]
    pub fn log_ended(&self) -> bool {
        self.ended
    }

    fn pending(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Read until at least `want` bytes are pending or the file ends.
    fn fill(&mut self, want: usize) -> Result<(), ReadError> {
        while self.end - self.start < want && !self.eof {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            let end = self.end;
            self.end += self.read_source(Some(end), &mut [])?;
        }
        Ok(())
    }

    /// One read from the source, into `buf[at..]` (`None`: into `out`); 0 at its end.
    fn read_source(&mut self, at: Option<usize>, out: &mut [u8]) -> Result<usize, ReadError> {
        loop {
            let into = match at {
                Some(at) => &mut self.buf[at..],
                None => &mut *out,
            };
            match self.source.read(into) {
                Ok(n) => {
                    self.eof |= n == 0;
                    self.read += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(ReadError(format!(
                        "{}: read error at byte {}: {}",
                        self.path,
                        self.read,
                        os_text(&e)
                    )))
                }
            }
        }
    }

    fn corrupt(&self, what: &str) -> ReadError {
        ReadError(format!(
            "{}: corrupt or truncated gzip data near compressed byte {}: {what}",
            self.path,
            self.consumed()
        ))
    }

    fn truncated(&self) -> ReadError {
        ReadError(format!(
            "{}: corrupt or truncated gzip data: the file ends inside a member at compressed \
             byte {}",
            self.path, self.read
        ))
    }

    /// The next byte of a member's header or trailer.
    fn byte(&mut self) -> Result<u8, ReadError> {
        self.fill(1)?;
        if self.start == self.end {
            return Err(self.truncated());
        }
        self.start += 1;
        Ok(self.buf[self.start - 1])
    }

    fn le(&mut self, bytes: usize, crc: Option<&mut Crc>) -> Result<u32, ReadError> {
        let mut v = 0u32;
        let mut raw = [0u8; 4];
        for (i, slot) in raw[..bytes].iter_mut().enumerate() {
            *slot = self.byte()?;
            v |= u32::from(*slot) << (8 * i);
        }
        if let Some(c) = crc {
            c.update(&raw[..bytes]);
        }
        Ok(v)
    }

    /// Read a member's header (RFC 1952): the magic bytes were seen.
    fn header(&mut self) -> Result<(), ReadError> {
        let mut crc = Crc::new();
        let mut fixed = [0u8; 10];
        for slot in &mut fixed {
            *slot = self.byte()?;
        }
        crc.update(&fixed);
        if fixed[2] != 8 {
            return Err(self.corrupt("unknown compression method"));
        }
        let flags = fixed[3];
        if flags & 0xE0 != 0 {
            return Err(self.corrupt("reserved header flags set"));
        }
        if flags & 0x04 != 0 {
            let len = self.le(2, Some(&mut crc))?;
            for _ in 0..len {
                let b = self.byte()?;
                crc.update(&[b]);
            }
        }
        for flag in [0x08, 0x10] {
            if flags & flag != 0 {
                loop {
                    let b = self.byte()?;
                    crc.update(&[b]);
                    if b == 0 {
                        break;
                    }
                }
            }
        }
        if flags & 0x02 != 0 {
            let want = crc.sum() & 0xFFFF;
            if self.le(2, None)? != want {
                return Err(self.corrupt("header crc mismatch"));
            }
        }
        Ok(())
    }

    /// Fill `out` with the next decoded bytes; 0 at the end of the log.
    pub fn read(&mut self, out: &mut [u8]) -> Result<usize, ReadError> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            match &mut self.state {
                Gzip::Done => return Ok(0),
                Gzip::Plain => {
                    if self.start == self.end && !self.eof {
                        // Nothing buffered: read straight into `out` (one copy fewer).
                        return self.read_source(None, out);
                    }
                    self.fill(1)?;
                    let n = (self.end - self.start).min(out.len());
                    out[..n].copy_from_slice(&self.buf[self.start..self.start + n]);
                    self.start += n;
                    return Ok(n);
                }
                Gzip::Between => {
                    if self.one_member && self.members > 0 {
                        return Ok(0);
                    }
                    self.fill(GZIP_MAGIC.len())?;
                    if self.start == self.end {
                        self.ended = true;
                        self.state = Gzip::Done;
                        return Ok(0);
                    }
                    if !self.pending().starts_with(&GZIP_MAGIC) {
                        return Err(ReadError(format!(
                            "{}: the bytes after the gzip data (from compressed byte {}) are \
                             not a gzip member: trailing garbage or padding",
                            self.path,
                            self.consumed()
                        )));
                    }
                    self.header()?;
                    self.state = Gzip::Inside(Box::new(Decompress::new(false)), Crc::new());
                }
                Gzip::Inside(..) => {
                    let Gzip::Inside(mut inflate, mut crc) =
                        std::mem::replace(&mut self.state, Gzip::Done)
                    else {
                        unreachable!()
                    };
                    let made = self.inflate(&mut inflate, &mut crc, out);
                    if matches!(self.state, Gzip::Done) {
                        self.state = Gzip::Inside(inflate, crc);
                    }
                    let made = made?;
                    if made > 0 {
                        return Ok(made);
                    }
                }
            }
        }
    }

    /// Inflate the next bytes of a member into `out`; at its end, check the trailer and move
    /// on to the next member.
    fn inflate(
        &mut self,
        inflate: &mut Decompress,
        crc: &mut Crc,
        out: &mut [u8],
    ) -> Result<usize, ReadError> {
        if self.start == self.end {
            self.fill(1)?;
        }
        let (in0, out0) = (inflate.total_in(), inflate.total_out());
        let status = inflate
            .decompress(&self.buf[self.start..self.end], out, FlushDecompress::None)
            .map_err(|e| e.to_string());
        let used = (inflate.total_in() - in0) as usize;
        let made = (inflate.total_out() - out0) as usize;
        crc.update(&out[..made]);
        self.start += used;
        let status = status.map_err(|e| self.corrupt(&e))?;
        if status == Status::StreamEnd {
            let (sum, length) = (crc.sum(), crc.amount());
            if self.le(4, None)? != sum {
                return Err(self.corrupt("incorrect data check"));
            }
            if self.le(4, None)? != length {
                return Err(self.corrupt("incorrect length check"));
            }
            self.members += 1;
            self.state = Gzip::Between;
        } else if made == 0 && used == 0 && self.eof && self.start == self.end {
            return Err(self.truncated());
        }
        Ok(made)
    }
}

/// What a line cutter hands on. A line longer than the cutter's `max_line` that arrived whole
/// may also come inside `Lines`: readers check each line's length.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// Whole lines, each ending in a newline except perhaps the log's last; `offset` is the
    /// decoded position of `data[0]`.
    Lines { data: Vec<u8>, offset: u64 },
    /// A line longer than the cutter's `max_line` bytes (not counting its newline), starting
    /// at `offset`: its bytes were dropped.
    Overlong { offset: u64 },
}

/// Cuts a byte stream into pieces of whole lines of about `target` bytes (at least one line);
/// memory stays within `target + max_line` plus one read.
pub struct LineCutter {
    target: usize,
    max_line: usize,
    /// The stream's bytes not yet handed on are `buf[..len]`; the rest of `buf` is room
    /// already written once (a recycled piece's bytes), so a read into it needs no zeroing.
    buf: Vec<u8>,
    len: usize,
    /// Buffers of pieces already read, given back (`recycle`): the next piece is cut into
    /// one, whose memory is already the process's (no new pages to fault in and clear).
    spare: Vec<Vec<u8>>,
    /// Decoded position of `buf[0]`.
    offset: u64,
    /// Inside a line longer than `max_line` (its start): dropped up to the next newline.
    skipping: Option<u64>,
}

impl LineCutter {
    /// `target` 0: every push hands on all the complete lines it has.
    #[must_use]
    pub fn new(target: usize, max_line: usize) -> LineCutter {
        LineCutter {
            target,
            max_line,
            buf: Vec::new(),
            len: 0,
            spare: Vec::new(),
            offset: 0,
            skipping: None,
        }
    }

    /// Bytes taken so far.
    #[must_use]
    pub fn position(&self) -> u64 {
        self.offset + self.len as u64
    }

    /// Room for at least `min` more bytes, to be written and then `commit`ted.
    pub fn room(&mut self, min: usize) -> &mut [u8] {
        if self.buf.len() < self.len + min {
            self.buf.resize(self.len + min, 0);
        }
        &mut self.buf[self.len..self.len + min]
    }

    /// Keep `n` of the bytes written into `room`, handing on what is ready.
    pub fn commit(&mut self, room: usize, n: usize, out: &mut Vec<Piece>) {
        debug_assert!(n <= room && self.len + room <= self.buf.len());
        let fresh = self.len;
        self.len += n;
        self.cut(fresh, out);
    }

    /// Take `data`, handing on what is ready.
    pub fn push(&mut self, data: &[u8], out: &mut Vec<Piece>) {
        let fresh = self.len;
        self.room(data.len()).copy_from_slice(data);
        self.len += data.len();
        self.cut(fresh, out);
    }

    /// Give back a piece's buffer for the pieces to come (a few are kept).
    pub fn recycle(&mut self, data: Vec<u8>) {
        if self.spare.len() < SPARE_BUFFERS {
            self.spare.push(data);
        }
    }

    fn cut(&mut self, fresh: usize, out: &mut Vec<Piece>) {
        if let Some(start) = self.skipping {
            match memchr::memchr(b'\n', &self.buf[fresh..self.len]) {
                None => {
                    self.offset += self.len as u64;
                    self.len = 0;
                    return;
                }
                Some(k) => {
                    self.skipping = None;
                    out.push(Piece::Overlong { offset: start });
                    self.drop_front(fresh + k + 1);
                }
            }
        }
        if self.len < self.target.max(1) {
            return;
        }
        match memchr::memrchr(b'\n', &self.buf[..self.len]) {
            Some(k) => {
                // The part line after the last newline goes on in a recycled buffer.
                let carry = self.len - (k + 1);
                let mut next = self.spare.pop().unwrap_or_default();
                if next.len() < carry {
                    next.resize(carry, 0);
                }
                next[..carry].copy_from_slice(&self.buf[k + 1..self.len]);
                let mut data = std::mem::replace(&mut self.buf, next);
                data.truncate(k + 1);
                self.len = carry;
                let offset = self.offset;
                self.offset += data.len() as u64;
                out.push(Piece::Lines { data, offset });
                // The carried part line may already be too long.
                self.check_overlong();
            }
            None => self.check_overlong(),
        }
    }

    fn drop_front(&mut self, n: usize) {
        self.buf.copy_within(n..self.len, 0);
        self.len -= n;
        self.offset += n as u64;
    }

    /// A part line already longer than `max_line`: dropped, and the rest of it up to the
    /// next newline.
    fn check_overlong(&mut self) {
        if self.len > self.max_line {
            self.skipping = Some(self.offset);
            self.drop_front(self.len);
        }
    }

    /// The end of the stream: the last line, even without a newline.
    pub fn finish(&mut self, out: &mut Vec<Piece>) {
        if let Some(start) = self.skipping.take() {
            out.push(Piece::Overlong { offset: start });
        } else if self.len > 0 {
            let mut data = std::mem::take(&mut self.buf);
            data.truncate(self.len);
            let offset = self.offset;
            self.offset += data.len() as u64;
            self.len = 0;
            out.push(Piece::Lines { data, offset });
        }
    }
}

/// A log read on its own thread: pieces of whole lines arrive in order, at most `bound`
/// waiting, so memory stays flat whatever the log's size.
pub struct Pieces {
    rx: Receiver<Result<Vec<Piece>, ReadError>>,
    /// Buffers of pieces read, back to the reader thread.
    back: Sender<Vec<u8>>,
    consumed: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
    /// The file's size on disk (`None` for a FIFO).
    pub size: Option<u64>,
}

impl Pieces {
    /// Open `path` and start reading it: pieces of about `target` bytes, lines longer than
    /// `max_line` reported as `Piece::Overlong`.
    pub fn open(path: &str, target: usize, max_line: usize) -> Result<Pieces, ReadError> {
        let (file, size) = open(path)?;
        let (tx, rx) = sync_channel(4);
        let (back, returned) = channel::<Vec<u8>>();
        let consumed = Arc::new(AtomicU64::new(0));
        let seen = Arc::clone(&consumed);
        let path = path.to_string();
        let thread = std::thread::Builder::new()
            .name("log-reader".into())
            .spawn(move || {
                let run = || -> Result<(), ReadError> {
                    let mut cutter = LineCutter::new(target, max_line);
                    let gzip = size.is_some()
                        && members::is_gzip(&file).map_err(|e| {
                            ReadError(format!("{path}: read error at byte 0: {}", os_text(&e)))
                        })?;
                    if gzip {
                        // A regular file of gzip members: decoded on several threads.
                        let threads = rayon::current_num_threads();
                        let in_flight = if threads > 1 { 2 * threads } else { 0 };
                        let part = target.clamp(1 << 12, READ_SIZE);
                        members::decode(file, &path, in_flight, |data, used| {
                            for data in returned.try_iter() {
                                cutter.recycle(data);
                            }
                            seen.store(used, Ordering::Release);
                            // A send per read's worth, as the plain read makes them.
                            data.chunks(part).all(|chunk| {
                                let mut ready = Vec::new();
                                cutter.push(chunk, &mut ready);
                                ready.is_empty() || tx.send(Ok(ready)).is_ok()
                            })
                        })?;
                        let mut ready = Vec::new();
                        cutter.finish(&mut ready);
                        if !ready.is_empty() {
                            let _ = tx.send(Ok(ready));
                        }
                        return Ok(());
                    }
                    let mut decoder = Decoder::new(&path, file)?;
                    loop {
                        for data in returned.try_iter() {
                            cutter.recycle(data);
                        }
                        let mut ready = Vec::new();
                        let room = READ_SIZE.min(target.max(1 << 12));
                        let n = decoder.read(cutter.room(room))?;
                        cutter.commit(room, n, &mut ready);
                        if n == 0 {
                            cutter.finish(&mut ready);
                        }
                        seen.store(decoder.consumed(), Ordering::Release);
                        if !ready.is_empty() && tx.send(Ok(ready)).is_err() {
                            return Ok(()); // the reader was dropped
                        }
                        if n == 0 {
                            return Ok(());
                        }
                    }
                };
                if let Err(e) = run() {
                    let _ = tx.send(Err(e));
                }
            })
            .map_err(|e| ReadError(format!("cannot start a reader thread: {e}")))?;
        Ok(Pieces {
            rx,
            back,
            consumed,
            thread: Some(thread),
            size,
        })
    }

    /// The next pieces in order, waiting for them; `None` at the end of the log.
    pub fn next_batch(&mut self) -> Option<Result<Vec<Piece>, ReadError>> {
        let got = self.rx.recv().ok();
        if got.is_none() {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
        got
    }

    /// Give pieces' buffers back to the reader thread, once read, for the pieces to come.
    pub fn recycle(&self, pieces: Vec<Piece>) {
        for piece in pieces {
            if let Piece::Lines { data, .. } = piece {
                // The reader thread may have finished: the buffer is then dropped.
                let _ = self.back.send(data);
            }
        }
    }

    /// Pieces already waiting, without blocking.
    pub fn try_next(&mut self) -> Option<Result<Vec<Piece>, ReadError>> {
        self.rx.try_recv().ok()
    }

    /// File bytes used so far (compressed bytes of a gzip log).
    #[must_use]
    pub fn consumed(&self) -> u64 {
        self.consumed.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::fmt::Write as _;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn decode(bytes: &[u8]) -> Result<Vec<u8>, ReadError> {
        let mut d = Decoder::new("x.gz", bytes)?;
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = d.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    fn text() -> Vec<u8> {
        (0..5000u32)
            .flat_map(|i| format!("line {i} {}\n", i * 7919 % 1000).into_bytes())
            .collect()
    }

    #[test]
    fn members_in_turn_and_plain_as_is() {
        let t = text();
        assert_eq!(decode(&t).unwrap(), t);
        let mut two = gz(&t[..100]);
        two.extend(gz(&t[100..]));
        two.extend(gz(b""));
        assert_eq!(decode(&two).unwrap(), t);
        assert_eq!(decode(b"").unwrap(), b"");
        assert_eq!(decode(b"\x1f").unwrap(), b"\x1f");
    }

    #[test]
    fn trailing_truncated_and_corrupt_are_named() {
        let t = text();
        let one = gz(&t);
        for tail in [&b"\0\0\0"[..], b"garbage", b"\x1f"] {
            let mut padded = one.clone();
            padded.extend_from_slice(tail);
            assert_eq!(
                decode(&padded).unwrap_err().0,
                format!(
                    "x.gz: the bytes after the gzip data (from compressed byte {}) are not a \
                     gzip member: trailing garbage or padding",
                    one.len()
                )
            );
        }
        for cut in [5, one.len() / 2, one.len() - 3] {
            assert_eq!(
                decode(&one[..cut]).unwrap_err().0,
                format!(
                    "x.gz: corrupt or truncated gzip data: the file ends inside a member at \
                     compressed byte {cut}"
                )
            );
        }
        let mut bad_crc = one.clone();
        let k = bad_crc.len() - 6;
        bad_crc[k] ^= 1;
        let err = decode(&bad_crc).unwrap_err().0;
        assert!(
            err.starts_with("x.gz: corrupt or truncated gzip data near compressed byte"),
            "{err}"
        );
        assert!(err.ends_with("incorrect data check"), "{err}");
        let mut flipped = one.clone();
        for b in &mut flipped[20..60] {
            *b ^= 0x5A;
        }
        assert!(decode(&flipped)
            .unwrap_err()
            .0
            .starts_with("x.gz: corrupt or truncated gzip data"));
    }

    /// The pieces of `data` pushed `step` bytes at a time; the same when each piece's buffer
    /// is given back filled with newlines (and longer), as a reader thread's are.
    fn cut_all(data: &[u8], step: usize, target: usize, max_line: usize) -> Vec<Piece> {
        let mut pieces = Vec::new();
        for recycled in [false, true] {
            let mut c = LineCutter::new(target, max_line);
            let mut out = Vec::new();
            for part in data.chunks(step) {
                let mut ready = Vec::new();
                c.push(part, &mut ready);
                for piece in ready {
                    if let (true, Piece::Lines { data, offset }) = (recycled, &piece) {
                        out.push(Piece::Lines {
                            data: data.clone(),
                            offset: *offset,
                        });
                        let mut stale = data.clone();
                        stale.fill(b'\n');
                        stale.resize(stale.len() + 50, b'\n');
                        c.recycle(stale);
                    } else {
                        out.push(piece);
                    }
                }
            }
            c.finish(&mut out);
            pieces.push(out);
        }
        let recycled = pieces.pop().unwrap();
        assert_eq!(pieces[0], recycled, "recycled buffers");
        recycled
    }

    #[test]
    fn pieces_are_whole_lines_whatever_the_reads() {
        let t = text();
        for step in [1, 3, 64, 1000, t.len()] {
            for target in [0, 10, 4096] {
                let pieces = cut_all(&t, step, target, 100);
                let mut joined = Vec::new();
                for p in &pieces {
                    let Piece::Lines { data, offset } = p else {
                        panic!("no line is overlong")
                    };
                    assert_eq!(*offset, joined.len() as u64);
                    assert_eq!(data.last(), Some(&b'\n'));
                    joined.extend_from_slice(data);
                }
                assert_eq!(joined, t);
            }
        }
    }

    #[test]
    fn an_overlong_line_is_one_piece_of_its_own() {
        let long = "x".repeat(250);
        let log = format!("a\n{long}\nb\n{}\nc", "y".repeat(100));
        for step in [1, 7, 100, log.len()] {
            let pieces = cut_all(log.as_bytes(), step, 0, 100);
            let mut text = String::new();
            for p in pieces {
                match p {
                    Piece::Lines { data, offset } => {
                        let mut at = offset;
                        for line in std::str::from_utf8(&data).unwrap().split_inclusive('\n') {
                            if line.trim_end_matches('\n').len() > 100 {
                                writeln!(text, "<long at {at}>").unwrap();
                            } else {
                                text.push_str(line);
                            }
                            at += line.len() as u64;
                        }
                    }
                    Piece::Overlong { offset } => writeln!(text, "<long at {offset}>").unwrap(),
                }
            }
            assert_eq!(
                text,
                format!("a\n<long at 2>\nb\n{}\nc", "y".repeat(100)),
                "step {step}"
            );
        }
        let pieces = cut_all(format!("a\n{long}").as_bytes(), 5, 0, 100);
        assert_eq!(pieces.last(), Some(&Piece::Overlong { offset: 2 }));
    }
}
