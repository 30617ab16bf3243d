//! The placement engine: parsed spans put in file order (line numbers, events, bad records,
//! device chains, batches, repeated orders), then their orders tallied in parallel by segments
//! that never straddle a batch and added to the batches in file order.

use rayon::prelude::*;

use super::parse::{Kind, Parsed};
use super::{Audit, BadRecord, InputMode, LogError, MAX_BAD_KEPT, MIN_TASK};
use crate::shuffler::hash::hash128;
use crate::shuffler::stats;
use crate::shuffler::tally::{Collector, Filler, Tally};

/// Where a placed order's tally finds an order: in its span's `orders` or in the job's copies
/// of previous orders.
#[derive(Clone, Copy)]
pub(super) enum At {
    Orders(usize),
    Previous(usize),
}

/// One placed order, to be tallied: its output, the order it is judged against, and its
/// device's previous output.
pub(super) struct Slot {
    out: usize,
    reference: Option<At>,
    /// The output relative to the reference, when the parse made it (in `orders`).
    relative: Option<usize>,
    previous: Option<At>,
}

/// Orders of one batch (at most) within one span, tallied as one task.
#[derive(Default)]
pub(super) struct Segment {
    end: usize,
    /// The batch is complete after this segment.
    closes: bool,
    /// Completed coupon collections (histogram indices).
    coupons: Vec<usize>,
}

/// A span's placed orders.
#[derive(Default)]
pub(super) struct Job {
    slots: Vec<Slot>,
    previous: Vec<u8>,
    segments: Vec<Segment>,
}

/// Where a placed order's device's previous output is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Previous {
    /// It is the order's logged input (a device re-shuffling what it dealt, the usual log):
    /// not copied, and the tally knows the two are one order.
    Input,
    /// Appended to the caller's buffer.
    Appended,
}

/// What the order of an added shuffle decided.
pub(super) struct Placed {
    /// The device's previous output, when its chain is unbroken.
    previous: Option<Previous>,
    reference: Reference,
    coupon: Option<usize>,
    closes: bool,
}

pub(super) enum Reference {
    Input,
    Previous,
    None,
}

/// One device: its last output while its chain of orders is unbroken, its coupon collection.
pub(super) struct Device {
    pub(super) name: String,
    pub(super) last: Vec<u8>,
    pub(super) chained: bool,
    pub(super) collector: Option<Collector>,
}

impl Audit {
    /// Place parsed spans in file order, up to an unreadable line, and tally their orders.
    pub(super) fn place_and_tally(&mut self, mut parsed: Vec<Parsed>) -> Result<(), LogError> {
        let mut jobs = Vec::with_capacity(parsed.len());
        let mut failed = None;
        for p in &mut parsed {
            match self.place_span(p) {
                Ok(job) => jobs.push(job),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        self.tally_jobs(&parsed, &jobs);
        failed.map_or(Ok(()), Err)
    }

    /// Put a parsed span in file order: line numbers, events, bad records, device chains,
    /// batches and repeated orders; its orders are tallied later.
    pub(super) fn place_span(&mut self, p: &mut Parsed) -> Result<Job, LogError> {
        let n = self.deck.size();
        let mut job = Job::default();
        job.segments.push(Segment::default());
        let mut ids: Vec<Option<usize>> = vec![None; p.names.len()];
        let base = self.line;
        let mut cursor = 0;
        let mut hashes = p.hashes.iter();
        for item in std::mem::take(&mut p.items) {
            self.line = base + item.line;
            self.file_records += 1;
            self.count_events(&item.events);
            match item.kind {
                Kind::Complete { device, input } => {
                    let d = if let Some(d) = ids[device] {
                        d
                    } else {
                        let d = self.device(&p.names[device]);
                        ids[device] = Some(d);
                        d
                    };
                    let hashes = hashes.next().copied();
                    let mut next = || {
                        cursor += n;
                        cursor - n
                    };
                    let out = next();
                    let input = input.then(&mut next);
                    // Kept after the input when its hash was made in the parse.
                    let relative = hashes.and_then(|(_, against)| against).map(|_| next());
                    let at = job.previous.len();
                    let placed = self.place(
                        d,
                        &p.orders[out..out + n],
                        input.map(|i| &p.orders[i..i + n]),
                        &mut job.previous,
                        hashes,
                    );
                    let previous = placed.previous.and_then(|was| match was {
                        Previous::Input => input.map(At::Orders),
                        Previous::Appended => Some(At::Previous(at)),
                    });
                    let (reference, relative) = match placed.reference {
                        Reference::Input => (input.map(At::Orders), relative),
                        Reference::Previous => (previous, None),
                        Reference::None => (None, None),
                    };
                    job.slots.push(Slot {
                        out,
                        reference,
                        relative,
                        previous,
                    });
                    let segment = job.segments.last_mut().expect("one segment at least");
                    segment.coupons.extend(placed.coupon);
                    if placed.closes {
                        segment.end = job.slots.len();
                        segment.closes = true;
                        job.segments.push(Segment::default());
                    }
                }
                Kind::Rejected { device, reason } => self.reject(device.as_deref(), reason),
            }
        }
        if let Some(last) = job.segments.last_mut() {
            last.end = job.slots.len();
        }
        self.line = base + p.lines;
        self.lines += p.lines;
        self.blank_lines += p.blank;
        if let Some((line, byte, message)) = p.fatal {
            self.line = base + line;
            return Err(self.fatal(byte, message));
        }
        Ok(job)
    }

    /// Tally the placed orders by segments in parallel, then add the segment tallies to the
    /// batches in file order. Consecutive segments of one batch (across spans) are tallied as
    /// one task of at least `MIN_TASK` orders: a tally is a few hundred kilobytes to clear and
    /// merge, and integer sums do not depend on how the orders are grouped.
    pub(super) fn tally_jobs(&mut self, parsed: &[Parsed], jobs: &[Job]) {
        /// One task: segments `(job, start, segment)` tallied together, the last maybe closing
        /// its batch.
        type Task<'a> = Vec<(usize, usize, &'a Segment)>;
        let n = self.deck.size();
        let (deck, game) = (self.deck, self.total.game);
        let total: usize = jobs.iter().map(|job| job.slots.len()).sum();
        let size = (total / (2 * rayon::current_num_threads())).max(MIN_TASK);
        let mut tasks: Vec<Task<'_>> = vec![Vec::new()];
        let mut filled = 0;
        for (j, job) in jobs.iter().enumerate() {
            let mut start = 0;
            for segment in &job.segments {
                let task = tasks.last_mut().expect("one task at least");
                task.push((j, start, segment));
                filled += segment.end - start;
                start = segment.end;
                if segment.closes || filled >= size {
                    tasks.push(Vec::new());
                    filled = 0;
                }
            }
        }
        let tally = |task: &Task<'_>| {
            let mut t = Filler::new(deck, game);
            for &(j, start, segment) in task {
                let (orders, job) = (&parsed[j].orders, &jobs[j]);
                let order = |at: At| match at {
                    At::Orders(a) => &orders[a..a + n],
                    At::Previous(a) => &job.previous[a..a + n],
                };
                for slot in &job.slots[start..segment.end] {
                    let previous = slot.previous.map(order);
                    t.add(
                        &orders[slot.out..slot.out + n],
                        slot.reference.map(order),
                        slot.relative.map(|r| &orders[r..r + n]),
                        previous,
                    );
                }
            }
            t
        };
        let mut offers = std::mem::take(&mut self.offers);
        let repeats = &mut self.repeats;
        // The repeated-order sample is a large hash set filled in file order: on its own thread
        // while the tallies run on the others.
        let (tallies, ()) = rayon::join(
            || -> Vec<Filler> {
                if tasks.len() > 1 {
                    tasks.par_iter().map(tally).collect()
                } else {
                    tasks.iter().map(tally).collect()
                }
            },
            || {
                for (kind, h) in offers.drain(..) {
                    repeats.offer_hash(kind, h);
                }
            },
        );
        self.offers = offers;
        for (task, t) in tasks.iter().zip(tallies) {
            if task.iter().any(|(_, start, segment)| segment.end > *start) {
                t.add_to(&mut self.batch);
            }
            for (_, _, segment) in task {
                for &c in &segment.coupons {
                    self.batch.coupon[c] += 1;
                }
            }
            if task.last().is_some_and(|(_, _, segment)| segment.closes) {
                self.close_batch();
            }
        }
    }

    /// Offer the placed hashes to the repeated-order sample, in file order.
    pub(super) fn offer_placed(&mut self) {
        for (kind, h) in self.offers.drain(..) {
            self.repeats.offer_hash(kind, h);
        }
    }

    pub(super) fn close_batch(&mut self) {
        let done = std::mem::replace(&mut self.batch, Tally::new(self.deck, self.total.game));
        self.total.merge(&done);
        self.finished_batches.push(done);
    }

    pub(super) fn count_events(&mut self, events: &[String]) {
        for e in events {
            *self.events.entry(e.clone()).or_insert(0) += 1;
        }
        if !events.is_empty() {
            self.records_with_events += 1;
        }
    }

    pub(super) fn reject(&mut self, device: Option<&str>, reason: String) {
        if let Some(&d) = device.and_then(|d| self.names.get(d)) {
            // The device's chain of orders is broken: the next shuffle has no known input.
            self.devices[d].chained = false;
        }
        self.bad_count += 1;
        if self.bad.len() < MAX_BAD_KEPT {
            self.bad.push(BadRecord {
                file: self.files.len() - 1,
                line: self.line,
                reason,
            });
        }
    }

    /// The index of a device, known from now on.
    pub(super) fn device(&mut self, name: &str) -> usize {
        if let Some(&d) = self.names.get(name) {
            return d;
        }
        self.devices.push(Device {
            name: name.to_string(),
            last: Vec::new(),
            chained: false,
            collector: None,
        });
        self.names.insert(name.to_string(), self.devices.len() - 1);
        self.devices.len() - 1
    }

    /// Everything about one complete order of device `d` that depends on the orders before
    /// it (counts, its device's chain and coupon collection, repeated orders, batches); the
    /// device's previous output, if any and not the same as `input`, is appended to
    /// `previous`. The tally is the caller's.
    pub(super) fn place(
        &mut self,
        d: usize,
        out: &[u8],
        input: Option<&[u8]>,
        previous: &mut Vec<u8>,
        hashes: Option<(u128, Option<u128>)>,
    ) -> Placed {
        self.records += 1;
        if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(out);
        }
        let symbols = self.deck.symbols();
        let device = &mut self.devices[d];
        let chained = device.chained;
        let at = previous.len();
        let was = chained.then(|| {
            if input == Some(&device.last[..]) {
                Previous::Input
            } else {
                previous.extend_from_slice(&device.last);
                Previous::Appended
            }
        });
        let coupon = device
            .collector
            .get_or_insert_with(Collector::default)
            .add(out[0], symbols);
        device.last.clear();
        device.last.extend_from_slice(out);
        device.chained = true;
        if input.is_none() {
            self.without_input += 1; // in every mode: whether the log states inputs is news
        }
        let reference = match self.mode {
            InputMode::Logged | InputMode::Auto if input.is_some() => Reference::Input,
            InputMode::Previous | InputMode::Auto if chained => Reference::Previous,
            InputMode::Logged | InputMode::Previous | InputMode::Auto | InputMode::None => {
                Reference::None
            }
        };
        let (hash, relative) = hashes.unwrap_or_else(|| (hash128(0, out), None));
        self.offers.push((0, hash));
        let against = match reference {
            Reference::Input => input,
            Reference::Previous if was == Some(Previous::Input) => input,
            Reference::Previous => Some(&previous[at..]),
            Reference::None => None,
        };
        if let (Some(against), true) = (against, self.deck.distinct()) {
            let h = relative.unwrap_or_else(|| {
                self.rel.resize(out.len(), 0);
                stats::relative(out, against, &mut self.rel);
                hash128(1, &self.rel)
            });
            self.offers.push((1, h));
        }
        self.in_batch += 1;
        let closes = self.batch_size > 0 && self.in_batch >= self.batch_size;
        if closes {
            self.in_batch = 0;
        }
        Placed {
            previous: was,
            reference,
            coupon,
            closes,
        }
    }

    /// Place and tally one complete order at once.
    pub(super) fn add_direct(&mut self, device: &str, out: &[u8], input: Option<&[u8]>) {
        let d = self.device(device);
        let mut previous = Vec::new();
        let placed = self.place(d, out, input, &mut previous, None);
        let previous = placed.previous.map(|was| match was {
            Previous::Input => input.expect("an input equal to the previous output"),
            Previous::Appended => &previous[..],
        });
        let reference = match placed.reference {
            Reference::Input => input,
            Reference::Previous => previous,
            Reference::None => None,
        };
        self.offer_placed();
        self.batch.add(out, reference, previous);
        if let Some(c) = placed.coupon {
            self.batch.coupon[c] += 1;
        }
        if placed.closes {
            self.close_batch();
        }
    }
}
