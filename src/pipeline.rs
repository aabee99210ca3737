//! The order of the stages and where the threads are (STYLE "Shape"):
//!
//! 1. read: one reader thread per log file (at most `--threads` at once)
//!    inflates and cuts the file into line-aligned chunks, sent through a
//!    bounded channel, so memory is chunk size × queue depth; with
//!    `--state` it fingerprints the file and sends only the lines after
//!    the head a night before audited;
//! 2. scan: rayon workers parse every line (`scan`) and give a `Fetch`
//!    record for each line whose user agent or address may be a crawler's;
//!    the records go into a `spill::Sorter`, which writes sorted runs to
//!    disk whenever they pass their share of `--memory`;
//! 3. verify: the addresses of those fetches are looked up (PTR map, live
//!    DNS) once the scan is done;
//! 4. judge: the runs are merged in SPEC §4's order and judged in batches:
//!    identity, then the `disallow` verdict in parallel while the next
//!    batch is merged, rates and delays in order, one count at a time;
//! 5. report: each row is written as it is judged, into the new report set
//!    (or standard output); the totals of the other reports are gathered
//!    on the way (`report::Digest`) and written at the end;
//! 6. state: with `--state`, what the next night needs (versions, each
//!    count's fetches of robots.txt and recent times, fingerprints, a row a
//!    night per crawler) is saved once the reports are whole, unless the
//!    run exits 2.
//!
//! Memory is bounded by `--memory`, whatever the number of fetches: the
//! chunks in flight, the sorter's buffer, a batch being judged, and totals
//! that grow with crawlers, rules and spoofing addresses only.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::net::IpAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use rayon::prelude::*;

use crate::Outcome;
use crate::accesslog::open::Compression;
use crate::accesslog::{self, Chunk, ChunkReader, FileFormat, FormatChoice, Recycler, Timestamp};
use crate::audit::{
    self, Counted, Counting, Impostor, Judge, Nights, Policy, SpoofReason, Violation,
};
use crate::config::{AuditConfig, WindowTz};
use crate::crawler::dns::{self, DnsOptions};
use crate::crawler::dns_cache::DnsCache;
use crate::crawler::{
    Client, CrawlerId, DnsAnswer, Identifier, Identity, Knowledge, PtrMap, Verification,
};
use crate::error::{Error, Position, Result};
use crate::fetch::Fetch;
use crate::progress::{self, Progress};
use crate::report::skipped::{self, SHOWN as SHOWN_SKIPS};
use crate::report::{self, Digest, Escaping, Names, summary::Totals};
use crate::robots::AgentRules;
use crate::robots::group::Reads;
use crate::robots::matcher::SelectionKey;
use crate::robots::versions::Versions;
use crate::scan::{ClientFetches, Scan, Scanner};
use crate::spill::{Merged, Sorter, SpillDir};
use crate::state::fingerprint::{Fingerprint, Finished, Reading};
use crate::state::heads::Heads;
use crate::state::overlaps::{self, Overlaps};
use crate::state::{self, NightRows, State, StateDir};

/// What reading the logs gave: the scan, the inputs that could not be
/// read whole with their errors, each file's fingerprint (with
/// `--state`), and the files whose every line another file of the run
/// holds (`copies_of_earlier`).
type LogsRead = (
    Scan,
    Vec<(usize, Error)>,
    BTreeMap<usize, Finished>,
    Vec<usize>,
);

/// Where the scan's workers hand what they keep: the fetches, and with
/// `--resolve` the fetches per address.
#[derive(Clone, Copy)]
struct Sorters<'s, 'd> {
    fetches: &'s Sorter<'d, Fetch>,
    addresses: Option<&'s Sorter<'d, ClientFetches>>,
}

/// Reads every log: reader threads feed chunks to rayon workers. Inputs
/// that cannot be read whole leave their error in the list, after their
/// readable lines were scanned.
fn read_logs(
    config: &AuditConfig,
    formats: &Formats<'_>,
    scanner: &Scanner<'_>,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    sorters: Sorters<'_, '_>,
    known: Option<(&[Fingerprint], i64)>,
) -> LogsRead {
    let Sorters {
        fetches: sorter,
        addresses,
    } = sorters;
    let errors: Mutex<Vec<(usize, Error)>> = Mutex::new(Vec::new());
    let finished: Mutex<BTreeMap<usize, Finished>> = Mutex::default();
    let next = AtomicUsize::new(0);
    let overlaps = Overlaps::new(config.logs.len());
    let state_known = known.map_or(0, |(known, _)| known.len());
    let workers = pool.current_num_threads();
    let readers = config.logs.len().min(workers).max(1);
    // A few chunks in flight keep every worker busy; the cap keeps memory
    // bounded on machines with many cores.
    let (tx, rx) = mpsc::sync_channel::<Message>((workers * 2).clamp(2, 8));

    let scan = std::thread::scope(|scope| {
        for _ in 0..readers {
            let tx = tx.clone();
            let (next, errors, finished, overlaps) = (&next, &errors, &finished, &overlaps);
            scope.spawn(move || {
                loop {
                    let file = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = config.logs.get(file) else {
                        break;
                    };
                    match read_one(file, path, formats, &tx, progress, known, overlaps) {
                        Ok(None) => overlaps.done(file, None),
                        Ok(Some(mut done)) => {
                            overlaps.done(file, Some(done.fingerprint.clone()));
                            // Heads that were files of this run are none
                            // of the state's.
                            done.matched.retain(|&i| i < state_known);
                            if let Ok(mut finished) = finished.lock() {
                                finished.insert(file, done);
                            }
                        }
                        Err(err) => {
                            overlaps.done(file, None);
                            if let Ok(mut errors) = errors.lock() {
                                errors.push((file, err));
                            }
                        }
                    }
                }
            });
        }
        drop(tx);
        pool.install(|| {
            rx.into_iter()
                .par_bridge()
                .map(|(file, chunk, recycler, format)| {
                    let (scan, fetches, counted) = scanner.scan(file, &chunk, &format);
                    progress.add_lines(scan.lines);
                    recycler.recycle(chunk.data);
                    sorter.extend(fetches);
                    if let Some(addresses) = addresses {
                        addresses.extend(counted);
                    }
                    scan
                })
                .reduce(Scan::default, Scan::merge)
        })
    });
    let mut errors = errors.into_inner().unwrap_or_default();
    let finished = finished.into_inner().unwrap_or_default();
    if known.is_none() {
        warn_of_overlaps(&overlaps, &config.logs);
    }
    let (copies, unknowable) = copies_of_earlier(&finished, &overlaps, &config.logs);
    for (file, earlier) in unknowable {
        errors.push((
            file,
            Error::Format {
                path: config.logs[file].clone(),
                at: Position::File,
                cause: format!(
                    "its first lines are those of {0}, and {0} (standard input or a pipe) \
                     cannot be read again to tell whether this log is its head, read twice; \
                     it was left out so that no fetch counts twice: give the logs by their \
                     file names",
                    config.logs[earlier].display()
                ),
            },
        ));
    }
    errors.sort_by_key(|(file, _)| *file);
    (scan, errors, finished, copies)
}

/// Without `--state`, logs of one run that begin with the same lines (a log
/// and its copy, as logrotate's `copy` leaves `access.log.1` and an
/// `access.log` that begins with it) are each audited whole, as SPEC §6
/// has it: their common lines count twice, and a rate or delay row may
/// come of the doubling alone. Said, once a later file, so that such a row
/// is never taken for the crawler's own doing unwarned.
fn warn_of_overlaps(overlaps: &Overlaps, paths: &[std::path::PathBuf]) {
    for file in 1..paths.len() {
        // Two lines at least, both kept and the same: logs that share
        // only a first line (IIS's `#Software:`, or one too long for the
        // first chunk to keep whole) are no copies.
        let Some(earlier) = overlaps.same_start(file).into_iter().find(|&earlier| {
            overlaps
                .agreeing_lines(file, earlier)
                .is_some_and(|n| n >= 2)
        }) else {
            continue;
        };
        crate::warn!(
            "robots-audit: warning: {} begins with the lines {} begins with (a log and its \
             copy?): without --state each log is audited whole, so lines in both count twice \
             and a request-rate or crawl-delay row may come of that alone; give --state, which \
             audits each line once, or only one of them",
            paths[file].display(),
            paths[earlier].display(),
        );
    }
}

/// How much lower than the rest of the program the workers run (nice).
const WORKER_NICENESS: i32 = 10;

/// Lowers the calling worker thread's priority (Linux keeps a nice value
/// per thread) by `WORKER_NICENESS`, so that where the readers and the
/// workers want more cores than there are, a reader's inflate, which every
/// worker waits on, runs first: with two cores, two workers and a reader
/// of equal weight, the reader got about two thirds of a core and the
/// workers idled waiting for its chunks (the heavy week: the scan 1.37 s
/// → 1.18 s, the whole audit 2.16 s → 1.93 s). It also leaves a busy web
/// server its cores while the audit runs beside it at night. A hint only:
/// where it cannot be set, the workers run as they are.
fn yield_to_readers() {
    let Ok(now) = rustix::process::getpriority_process(None) else {
        return;
    };
    let _ = rustix::process::setpriority_process(None, (now + WORKER_NICENESS).min(19));
}

/// A chunk on its way to the workers: the file it is from, the buffer's
/// way back, and the format in force at its first line.
type Message = (usize, Chunk, Recycler, Arc<FileFormat>);

/// The format of each file, chosen by its reader from its first chunk.
struct Formats<'a> {
    choice: &'a FormatChoice,
    quiet: bool,
    /// By file: the format's name and what standard error is to say of
    /// it, said in file order once every file is read, so that it does
    /// not depend on which reader came first.
    chosen: Mutex<BTreeMap<usize, (String, Vec<String>)>>,
    /// Who a line's user agent claims to be, for a last line that grew
    /// since it was audited (`same_fetch`).
    ident: &'a Identifier,
}

impl Formats<'_> {
    fn choose(
        &self,
        file: usize,
        path: &Path,
        first: Option<&Chunk>,
        unfinished: bool,
    ) -> Result<Arc<FileFormat>> {
        let format = self
            .choice
            .choose_by(first, unfinished)
            .map_err(|unfit| Error::Format {
                path: path.to_path_buf(),
                at: unfit.line.map_or(Position::File, Position::Line),
                cause: unfit.cause,
            })?;
        let has_lines = first.is_some_and(accesslog::detect::has_lines);
        // A file with no line to choose by (empty, or blank lines only)
        // was given no format: its reader's stand-in is no choice.
        let name = if self.choice.chooses() && !has_lines {
            "auto".to_string()
        } else {
            format.name()
        };
        let mut said = Vec::new();
        if self.choice.chooses() && !self.quiet && has_lines {
            said.push(format!(
                "robots-audit: {} is read as {name} (the format its first lines fit)",
                path.display()
            ));
        }
        if let Ok(mut chosen) = self.chosen.lock() {
            chosen.insert(file, (name, said));
        }
        Ok(format)
    }

    /// Says what was chosen, in file order; gives each file's format name.
    fn said(self) -> BTreeMap<usize, String> {
        let chosen = self.chosen.into_inner().unwrap_or_default();
        chosen
            .into_iter()
            .map(|(file, (name, said))| {
                for line in said {
                    crate::warn!("{line}");
                }
                (file, name)
            })
            .collect()
    }
}

/// Whether a log's last line as audited when unfinished (`then`) and as
/// it is now (`now`) are one fetch to the audit: the same fields, and a
/// user agent that claims the same crawler (or none) — a trailing field
/// the audit does not read may have been written since. A line either
/// reading cannot parse now (a W3C `#Fields:` change the fresh parser
/// does not know) is left as audited.
fn same_fetch(format: &FileFormat, ident: &Identifier, then: &[u8], now: &[u8]) -> bool {
    let mut parser = format.parser();
    let Ok(then) = parser.parse(then) else {
        return true;
    };
    let Ok(now) = parser.parse(now) else {
        return true;
    };
    let claim = |entry: &accesslog::Entry<'_>| {
        ident.by_user_agent(&entry.user_agent_text().unwrap_or_default())
    };
    accesslog::Entry {
        user_agent: None,
        ..then
    } == accesslog::Entry {
        user_agent: None,
        ..now
    } && claim(&then) == claim(&now)
}

/// Reads one log into the channel; the error, if any, comes after every
/// line before the damage was sent. With a state (`known`), the lines at
/// its head that are exactly a log audited before — on an earlier night,
/// or as a file given before it in this run (`overlaps`) — are not sent,
/// and the reading gives the log's fingerprint.
fn read_one(
    file: usize,
    path: &Path,
    formats: &Formats<'_>,
    tx: &mpsc::SyncSender<Message>,
    progress: &Progress,
    known: Option<(&[Fingerprint], i64)>,
    overlaps: &Overlaps,
) -> Result<Option<Finished>> {
    let mut sending = Sending::open(file, path, tx, progress)?;
    // The format is chosen where the file is opened, from its first chunk,
    // and travels with every chunk.
    let first = sending.next().transpose()?;
    // A last line not ended yet (the server is writing it) is no line to
    // choose a format by, and may be cut where a copy of the log goes on.
    let unfinished = sending.added_line_end();
    overlaps.first_line(file, first.as_ref(), unfinished);
    let ahead = first.as_ref().and_then(|first| sending.sample_ahead(first));
    let format = match &ahead {
        Some((sample, sample_unfinished)) => {
            formats.choose(file, path, Some(sample), *sample_unfinished)?
        }
        None => formats.choose(file, path, first.as_ref(), unfinished)?,
    };
    drop(ahead);
    let Some((known, audited_ms)) = known else {
        sending.send_all(first, format)?;
        return Ok(None);
    };
    let earlier = overlaps.earlier_heads(file, first.as_ref());
    let with_earlier: Vec<Fingerprint>;
    let known = if earlier.is_empty() {
        known
    } else {
        with_earlier = known.iter().cloned().chain(earlier).collect();
        &with_earlier[..]
    };
    // Lines already audited: held back (a few chunks at most) until the
    // fingerprints say how many of the first lines were audited before.
    let mut heads = Heads::new(Reading::new(known));
    let mut held = Vec::new();
    let mut held_bytes = 0;
    let mut overflow = false;
    let mut damage = None;
    let mut next = first;
    while let Some(chunk) = next.take() {
        heads.feed(&chunk, sending.added_line_end());
        if overflow {
            sending.recycler.recycle(chunk.data);
        } else {
            held_bytes += chunk.data.len();
            held.push(chunk);
            if held_bytes > HOLD_BYTES {
                // Too much to hold: go on fingerprinting, then read the
                // log again from its start.
                overflow = true;
                for chunk in held.drain(..) {
                    sending.recycler.recycle(chunk.data);
                }
            }
        }
        if !heads.reading.pending() {
            break;
        }
        match sending.next() {
            Some(Ok(chunk)) => next = Some(chunk),
            Some(Err(err)) => damage = Some(err),
            None => {}
        }
    }
    if heads.reading.pending() && damage.is_none() {
        // The log ended while its unfinished last line might still be the
        // tail of a log audited before.
        heads.reading.input_ended();
    }
    heads
        .reading
        .keep_grown_tails(|then, now| same_fetch(&format, formats.ident, then, now));
    let through = heads.reading.matched_lines();
    let chosen = Arc::clone(&format);
    let mut format = format;
    if !overflow {
        for chunk in held {
            format = sending.send_after(chunk, through, format, &mut heads);
        }
        if let Some(err) = damage {
            return Err(err);
        }
        while let Some(chunk) = sending.next() {
            format = sending.send_after(chunk?, through, format, &mut heads);
        }
        return Ok(Some(heads.reading.finish(audited_ms)));
    }
    if damage.is_none() && sending.ended_at(through) {
        // The whole log was audited before (a log renamed or compressed).
        return Ok(Some(heads.reading.finish(audited_ms)));
    }
    if !accesslog::rereadable(path) {
        return Err(Error::Format {
            path: path.to_path_buf(),
            at: Position::Line(through + 1),
            cause: format!(
                "its first {through} lines are a log already audited (--state), which was \
                 found past the first {} MiB; standard input or a pipe cannot be read again \
                 to audit the rest: give the log by its file name",
                HOLD_BYTES >> 20
            ),
        });
    }
    // Read again, sending only the lines after the head: from the same
    // file, or not at all. Logrotate may have renamed it (a new file under
    // the name) or cut it (copytruncate) since the first reading; lines
    // read from another file would be counted as the head's, and the
    // fingerprint would mark lines audited that never were.
    let changed = || Error::Format {
        path: path.to_path_buf(),
        at: Position::File,
        cause: format!(
            "the log changed while it was read (renamed or cut by logrotate?): its lines \
             after the first {through}, audited on an earlier night, were not audited; \
             run again"
        ),
    };
    crate::report::atomic::pause_at("reread");
    let mut again = Sending::open(file, path, tx, progress)?;
    if again.file_id != sending.file_id {
        return Err(changed());
    }
    let mut format = chosen;
    let mut read_to = 0;
    while let Some(chunk) = again.next() {
        let chunk = chunk?;
        read_to = (chunk.first_line + chunk.line_count).saturating_sub(1);
        format = again.send_after(chunk, through, format, &mut heads);
    }
    if read_to < through {
        return Err(changed());
    }
    Ok(Some(heads.reading.finish(audited_ms)))
}

/// The most of a log held back while its head may be a log audited
/// before; past it the log is read a second time.
const HOLD_BYTES: usize = 8 << 20;

/// Chunks read ahead of the first, at most, to choose a format by
/// (`Sending::sample_ahead`).
const AHEAD_CHUNKS: usize = 4;

/// One log being read and sent to the workers.
struct Sending<'a> {
    file: usize,
    reader: ChunkReader,
    consumed: Arc<std::sync::atomic::AtomicU64>,
    compression: Compression,
    /// The file read (device, inode), to tell a second reading is of it.
    file_id: Option<(u64, u64)>,
    /// Its size when opened (a regular file).
    size_at_open: Option<u64>,
    path: std::path::PathBuf,
    reported: u64,
    recycler: Recycler,
    tx: &'a mpsc::SyncSender<Message>,
    progress: &'a Progress,
    /// One past the last line read.
    next_line: u64,
    /// The channel was closed: the run is ending.
    closed: bool,
    /// Chunks read ahead to choose the format by (`sample_ahead`), handed
    /// out by `next` before any other, each with whether the reader had
    /// added its last line's end.
    ahead: std::collections::VecDeque<(Result<Chunk>, bool)>,
    /// Whether the reader added the line end of the last line of the chunk
    /// `next` gave last (the file ended in a line not ended yet).
    line_end_added: bool,
}

impl<'a> Sending<'a> {
    fn open(
        file: usize,
        path: &Path,
        tx: &'a mpsc::SyncSender<Message>,
        progress: &'a Progress,
    ) -> Result<Sending<'a>> {
        let input = accesslog::open(path)?;
        let consumed = input.progress.consumed.clone();
        let compression = input.compression;
        let file_id = input.file_id;
        let size_at_open = input.progress.size;
        let reader = ChunkReader::new(input);
        let recycler = reader.recycler();
        Ok(Sending {
            file,
            reader,
            consumed,
            compression,
            file_id,
            size_at_open,
            path: path.to_path_buf(),
            reported: 0,
            recycler,
            tx,
            progress,
            next_line: 1,
            closed: false,
            ahead: std::collections::VecDeque::new(),
            line_end_added: false,
        })
    }

    /// Whether the last line of the chunk `next` gave last had no line end
    /// of its own (`ChunkReader::added_line_end`).
    fn added_line_end(&self) -> bool {
        self.line_end_added
    }

    /// The next chunk: one read ahead, or the next one read.
    fn next(&mut self) -> Option<Result<Chunk>> {
        if let Some((chunk, line_end_added)) = self.ahead.pop_front() {
            self.line_end_added = line_end_added;
            return Some(chunk);
        }
        let chunk = self.read()?;
        self.line_end_added = self.reader.added_line_end();
        Some(chunk)
    }

    /// Chunks after `first`, read ahead and kept for `next`, while the
    /// lines read so far hold fewer than a format's sample (`SAMPLE`)
    /// and at most `AHEAD_CHUNKS` of them: a first line of nearly a
    /// mebibyte (a run of NULs logrotate's copytruncate left, junk) fills
    /// the first chunk alone, and one line never chooses a file's format.
    /// Gives the lines to choose by, as one chunk, and whether its last
    /// line had no line end of its own; `None` when `first` holds enough.
    fn sample_ahead(&mut self, first: &Chunk) -> Option<(Chunk, bool)> {
        let enough = |chunk: &Chunk| {
            chunk
                .lines()
                .filter(|l| !l.too_long && !l.text.trim_ascii().is_empty())
                .take(accesslog::detect::SAMPLE)
                .count()
                >= accesslog::detect::SAMPLE
        };
        if enough(first) {
            return None;
        }
        // Copied from `first` only once a chunk follows it: most short
        // logs end with their first chunk.
        let mut sample: Option<Chunk> = None;
        let mut line_end_added = self.line_end_added;
        while self.ahead.len() < AHEAD_CHUNKS && sample.as_ref().is_none_or(|s| !enough(s)) {
            let Some(chunk) = self.read() else { break };
            let added = self.reader.added_line_end();
            self.ahead.push_back((chunk, added));
            // A damaged stream: its error comes in its place, after the
            // chunks before it; the lines read so far choose.
            let Some((Ok(chunk), _)) = self.ahead.back() else {
                break;
            };
            let sample = sample.get_or_insert_with(|| first.clone());
            sample.data.extend_from_slice(&chunk.data);
            sample.line_count += chunk.line_count;
            sample.too_long.extend_from_slice(&chunk.too_long);
            line_end_added = added;
        }
        sample.map(|sample| (sample, line_end_added))
    }

    /// The next chunk read, its bytes counted for the progress bar.
    fn read(&mut self) -> Option<Result<Chunk>> {
        if self.closed {
            return None;
        }
        let Some(chunk) = self.reader.next_chunk() else {
            // A plain log that ends before the size it had when opened was
            // cut while it was read (logrotate's copytruncate): its head
            // may have been taken for another log's, its lines counted
            // short. Never a quiet partial night.
            let consumed = self.consumed.load(Ordering::Relaxed);
            if self.compression == Compression::Plain
                && self.size_at_open.is_some_and(|size| consumed < size)
            {
                self.closed = true;
                return Some(Err(Error::Format {
                    path: self.path.clone(),
                    at: Position::File,
                    cause: format!(
                        "the log got shorter while it was read ({consumed} of the {} bytes it \
                         had; cut by logrotate's copytruncate?): run again",
                        self.size_at_open.unwrap_or_default()
                    ),
                }));
            }
            return None;
        };
        if let Ok(chunk) = &chunk {
            let now = self.consumed.load(Ordering::Relaxed);
            self.progress.add_read(
                self.compression,
                now.saturating_sub(self.reported),
                chunk.data.len() as u64,
            );
            self.reported = now;
            self.next_line = chunk.first_line + chunk.line_count;
        }
        Some(chunk)
    }

    /// True when the log ended with line `through`: nothing after it.
    fn ended_at(&mut self, through: u64) -> bool {
        self.next().is_none() && self.next_line <= through + 1
    }

    /// Sends a chunk with the format in force at its first line; gives
    /// the format in force after it.
    fn send(&mut self, chunk: Chunk, format: Arc<FileFormat>) -> Arc<FileFormat> {
        let next = accesslog::detect::carry(&format, &chunk);
        if self
            .tx
            .send((self.file, chunk, self.recycler.clone(), format))
            .is_err()
        {
            self.closed = true;
        }
        next
    }

    /// Sends every chunk, the first one given.
    fn send_all(&mut self, first: Option<Chunk>, mut format: Arc<FileFormat>) -> Result<()> {
        if let Some(first) = first {
            format = self.send(first, format);
        }
        while let Some(chunk) = self.next() {
            format = self.send(chunk?, format);
        }
        Ok(())
    }

    /// Feeds `chunk` to the fingerprint and sends its lines after line
    /// `through`; the format follows every line, sent or not.
    fn send_after(
        &mut self,
        chunk: Chunk,
        through: u64,
        format: Arc<FileFormat>,
        heads: &mut Heads<'_>,
    ) -> Arc<FileFormat> {
        heads.feed(&chunk, self.added_line_end());
        let (head, tail) = state::heads::split_after(chunk, through);
        let mut format = format;
        if let Some(head) = head {
            format = accesslog::detect::carry(&format, &head);
            self.recycler.recycle(head.data);
        }
        if let Some(tail) = tail {
            format = self.send(tail, format);
        }
        format
    }
}

/// What a fetch turned out to be, once its address's names are known.
enum Decided<'r> {
    /// A crawler's, with its `disallow` row if it has one.
    Counted(Counted, Option<Violation<'r>>),
    Impostor(Impostor),
    /// Nobody's: a crawler host's fetch that no crawler claims after all.
    Nobody,
    /// A crawler's, of another virtual host than `--host` names: not
    /// judged by this robots.txt.
    OtherHost,
    /// A crawler's fetch of `/robots.txt` before `--since`: it tells the
    /// judge what the crawler knew, and is neither counted nor written.
    Before(Counted),
}

/// Bytes an identity the judge remembers holds, about (its client field,
/// its PTR name, the maps' overhead): the cache's share of `--memory`
/// (a twentieth) is divided by it.
const IDENTITY_BYTES: usize = 320;

/// Who a client field with a claim is: the same for every fetch of it, so
/// decided once per distinct pair (matching PTR names against the crawlers'
/// patterns is the costly part), with why an impostor is one.
type Identities = HashMap<
    Option<CrawlerId>,
    HashMap<Box<[u8]>, Option<(Identity, Option<SpoofReason>)>, foldhash::fast::RandomState>,
    foldhash::fast::RandomState,
>;

/// Who `client` with `claim` is.
fn identify(
    ident: &Identifier,
    knowledge: &Knowledge,
    client: &[u8],
    claim: Option<CrawlerId>,
) -> Option<(Identity, Option<SpoofReason>)> {
    let client = crate::crawler::parse_client(client);
    let identity = knowledge.decide(ident, &client, claim)?;
    if identity.verification != Verification::Spoofed {
        return Some((identity, None));
    }
    // A name of the claimed crawler's own form is refuted only by its
    // forward lookup; any other name, by being another's.
    let addr = match client {
        Client::Addr(addr) => Some(addr),
        _ => None,
    };
    let reason = match identity.ptr.as_deref() {
        None => SpoofReason::NoPtr,
        Some(name) => match ident.by_name_claimed(name, addr, Some(identity.crawler)) {
            Some(id) if ident.same_token(id, identity.crawler) => SpoofReason::ForwardMismatch,
            _ => SpoofReason::PtrMismatch,
        },
    };
    Some((identity, Some(reason)))
}

/// Who made `fetch`, and the `disallow` verdict for a crawler's under the
/// robots.txt version in force at its time.
fn decide<'r>(
    identities: &Identities,
    policies: &[Vec<Policy<'r>>],
    versions: Option<&Versions>,
    fetch: Fetch,
) -> Decided<'r> {
    let known = identities
        .get(&fetch.claim)
        .and_then(|clients| clients.get(fetch.client()));
    let Some(Some((identity, reason))) = known else {
        return Decided::Nobody;
    };
    if let Some(reason) = *reason {
        if fetch.before_period {
            return Decided::Nobody;
        }
        return Decided::Impostor(Impostor {
            claimed: identity.crawler.index(),
            ptr: identity.ptr.clone(),
            reason,
            fetch,
        });
    }
    let counted = |fetch| Counted {
        fetch,
        crawler: identity.crawler.index(),
        verification: identity.verification,
        identified_by: identity.identified_by,
    };
    match (fetch.before_period, fetch.other_host) {
        (true, true) => return Decided::Nobody,
        (true, false) => return Decided::Before(counted(fetch)),
        (false, true) => return Decided::OtherHost,
        (false, false) => {}
    }
    let crawler = identity.crawler.index();
    let version = versions.map_or(0, |v| v.index_at(fetch.time.instant_ms()));
    let disallow = audit::disallow::judge(&policies[version][crawler], fetch.target());
    Decided::Counted(counted(fetch), disallow)
}

/// Fetches whose user agent claims no crawler, from addresses inside a
/// crawler's networks whose reverse lookup failed: only DNS could say
/// whether they are a crawler's, so they are in no report, and the run
/// cannot be called whole (`Knowledge::undecided`).
#[derive(Debug, Default)]
struct Undecided {
    fetches: u64,
    /// The first few addresses, for the message.
    addresses: Vec<IpAddr>,
}

impl Undecided {
    /// Addresses named in the message at most.
    const SHOWN: usize = 3;

    fn note(&mut self, ident: &Identifier, knowledge: &Knowledge, client: &[u8]) {
        let client = crate::crawler::parse_client(client);
        if !knowledge.undecided(ident, &client) {
            return;
        }
        self.fetches += 1;
        if let crate::crawler::Client::Addr(addr) = client {
            let addr = addr.to_canonical();
            if self.addresses.len() < Self::SHOWN && !self.addresses.contains(&addr) {
                self.addresses.push(addr);
            }
        }
    }
}

/// The virtual hosts the crawler's fetches were of, as warnings name them:
/// the three with the most fetches, each with its count, then `…` when
/// there were more; each kept to 8 KiB as log text is in the reports (a
/// Host header is the client's to write).
fn hosts_seen(hosts: &std::collections::BTreeMap<Box<[u8]>, u64>) -> String {
    let mut seen: Vec<(&[u8], u64)> = hosts.iter().map(|(h, &n)| (&h[..], n)).collect();
    seen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<String> = seen
        .iter()
        .take(3)
        .map(|(host, n)| {
            let kept = crate::text::bound(host);
            format!("{} {n}", crate::text::escape_non_utf8(&kept))
        })
        .collect();
    format!(
        "{}{}",
        named.join(", "),
        if seen.len() > 3 { ", …" } else { "" }
    )
}

/// Fetches judged at once: identity and `disallow` in parallel, the rest
/// in order. Bounded in bytes too, since a fetch may hold a whole target
/// of up to a line's 1 MiB. Three batches are alive in the judging phase
/// (one merged while one is decided, one being written), so each is half
/// of what two once were.
const BATCH: usize = 2048;
const BATCH_BYTES: usize = 2 << 20;

/// What the judge hands to the writer, in order: a crawler's fetch with
/// the rows it made, or an impostor's fetch.
enum Judged<'r> {
    Counted(Counted, Vec<Violation<'r>>),
    Impostor(Impostor),
}

/// Batches judged but not yet written, beside the one being judged, the
/// next one being merged and the one being written: none, the judge hands
/// each batch over in person, so the judging phase holds three batches
/// (`BATCH_BYTES` each) and the rows' text of one, whatever the log.
const BATCHES_IN_FLIGHT: usize = 0;

/// Merges the sorted fetches and judges them, writing every row as it is
/// made; gives the totals for the other reports. The judging (merge,
/// identity, `disallow` in parallel, then rates and delays in order) and
/// the writing of its rows (reports, totals, the night's counts) run on
/// two threads, a batch apart, in the same order as one would.
#[allow(clippy::too_many_arguments)]
fn judge<'d, 'r>(
    pool: &rayon::ThreadPool,
    ident: &Identifier,
    knowledge: &Knowledge,
    policies: &[Vec<Policy<'r>>],
    judge: &mut Judge<'_, 'r>,
    versions: Option<&Versions>,
    sorter: Sorter<'_, Fetch>,
    rows: &mut report::Rows<'_, '_>,
    digest: Digest<'d>,
    gather: &mut report::html::build::Gather,
    nightly: Option<&mut NightRows>,
    copies: &[usize],
    identities_kept: usize,
    other_hosts: &mut u64,
    undecided: &mut Undecided,
) -> Result<Digest<'d>> {
    // On the pool: the last buffer's sort is shared by the workers.
    let mut merged = pool.install(|| sorter.finish())?;
    let (tx, rx) = mpsc::sync_channel::<Vec<Judged<'r>>>(BATCHES_IN_FLIGHT);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || write_judged(pool, rx, rows, digest, gather, nightly));
        let judged = (|| -> Result<()> {
            // The next batch, in the merge's order.
            let fill = |merged: &mut Merged<Fetch>| -> Result<Vec<Fetch>> {
                let mut batch = Vec::with_capacity(BATCH);
                let mut bytes = 0;
                while batch.len() < BATCH && bytes < BATCH_BYTES {
                    match merged.next() {
                        Some(fetch) => {
                            let fetch = fetch?;
                            if copies.contains(&(fetch.file as usize)) {
                                continue;
                            }
                            bytes += fetch.size();
                            batch.push(fetch);
                        }
                        None => break,
                    }
                }
                Ok(batch)
            };
            let mut batch = fill(&mut merged)?;
            let mut made: Vec<Violation<'r>> = Vec::new();
            let mut identities = Identities::default();
            loop {
                if batch.is_empty() {
                    return Ok(());
                }
                // A cache: bounded, so that a million made-up clients
                // cannot hold a million identities (SPEC §5 `--memory`).
                if identities.values().map(HashMap::len).sum::<usize>() > identities_kept {
                    identities.clear();
                }
                for fetch in &batch {
                    let clients = identities.entry(fetch.claim).or_default();
                    let known = match clients.get(fetch.client()) {
                        Some(who) => who.is_some(),
                        None => {
                            let who = identify(ident, knowledge, fetch.client(), fetch.claim);
                            let known = who.is_some();
                            clients.insert(fetch.client().into(), who);
                            known
                        }
                    };
                    if !known && fetch.claim.is_none() && !fetch.before_period && !fetch.other_host
                    {
                        undecided.note(ident, knowledge, fetch.client());
                    }
                }
                // The next batch is merged while this one is decided: the
                // merge is the one thing here that waits on nothing else.
                let (decided, next): (Vec<Decided<'r>>, _) = pool.install(|| {
                    rayon::join(
                        || {
                            batch
                                .par_drain(..)
                                .map(|fetch| decide(&identities, policies, versions, fetch))
                                .collect()
                        },
                        || fill(&mut merged),
                    )
                });
                let mut out = Vec::with_capacity(decided.len());
                for decided in decided {
                    match decided {
                        Decided::Counted(counted, disallow) => {
                            judge.judge(&counted, disallow, &mut made);
                            out.push(Judged::Counted(counted, std::mem::take(&mut made)));
                        }
                        Decided::Impostor(impostor) => out.push(Judged::Impostor(impostor)),
                        Decided::Nobody => {}
                        Decided::OtherHost => *other_hosts += 1,
                        Decided::Before(counted) => judge.observe_before(&counted),
                    }
                }
                if tx.send(out).is_err() {
                    // The writer stopped on an error, which it gives.
                    return Ok(());
                }
                batch = next?;
            }
        })();
        drop(tx);
        let written = match writer.join() {
            Ok(written) => written,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        judged?;
        written
    })
}

/// Judged fetches whose rows one worker formats at a time.
const FORMAT_SPAN: usize = 512;

/// Writes what the judge made, batch by batch in its order: each row into
/// the reports (formatted by the workers, written here in order), the
/// totals of the others, and the night's counts. A batch's rows are
/// formatted while its totals are counted: both only read the batch, and
/// on two cores the one runs beside the other rather than after it.
fn write_judged<'d>(
    pool: &rayon::ThreadPool,
    batches: mpsc::Receiver<Vec<Judged<'_>>>,
    rows: &mut report::Rows<'_, '_>,
    mut digest: Digest<'d>,
    gather: &mut report::html::build::Gather,
    mut nightly: Option<&mut NightRows>,
) -> Result<Digest<'d>> {
    let names = rows.names();
    for batch in batches {
        let format = || -> Vec<report::Formatted> {
            batch
                .par_chunks(FORMAT_SPAN)
                .map(|span| {
                    let mut out = report::Formatted::default();
                    for judged in span {
                        match judged {
                            Judged::Counted(counted, made) => {
                                for row in made {
                                    out.violation(&names, counted, row);
                                }
                            }
                            Judged::Impostor(impostor) => out.impostor(&names, impostor),
                        }
                    }
                    out
                })
                .collect()
        };
        let count = || count_judged(&batch, &mut digest, gather, nightly.as_deref_mut());
        let (formatted, ()) = pool.install(|| rayon::join(format, count));
        for span in formatted {
            rows.formatted(&span)?;
        }
    }
    // On the pool: the sort of the last (rule, target) pairs is shared.
    pool.install(|| digest.finish())
}

/// The totals and the night's counts of one judged batch, in its order.
fn count_judged(
    batch: &[Judged<'_>],
    digest: &mut Digest<'_>,
    gather: &mut report::html::build::Gather,
    mut nightly: Option<&mut NightRows>,
) {
    for judged in batch {
        match judged {
            Judged::Counted(counted, made) => {
                digest.counted(counted);
                gather.counted(counted);
                if let Some(nightly) = nightly.as_deref_mut() {
                    nightly.counted(counted.crawler, &counted.fetch.time);
                    for row in made.iter().filter(|row| row.accuses()) {
                        let time = &counted.fetch.time;
                        nightly.violation(counted.crawler, time, row.kind.as_str());
                    }
                }
                for row in made {
                    digest.violation(counted, row);
                    gather.violation(counted, row);
                }
            }
            Judged::Impostor(impostor) => {
                if let Some(nightly) = nightly.as_deref_mut() {
                    nightly.impostor(impostor.claimed, &impostor.fetch.time);
                }
                digest.impostor(impostor);
                gather.impostor(impostor);
            }
        }
    }
}

fn load_ptr_map(path: Option<&Path>, quiet: bool) -> Result<PtrMap> {
    let Some(path) = path else {
        return Ok(PtrMap::default());
    };
    let (map, bad) = PtrMap::load(path)?;
    // A map of which no line could be read (UTF-16, `NAME ADDRESS`) was
    // meant to name addresses and names none: every fetch it should have
    // refuted would count as the crawler's. Not a night to report.
    if let (true, Some(first)) = (map.is_empty(), bad.first()) {
        return Err(Error::Format {
            path: path.to_path_buf(),
            at: Position::Line(first.line),
            cause: format!(
                "{}; no line of the PTR map could be read ({} refused), so it names no address: \
                 expected ADDRESS NAME a line",
                first.cause,
                bad.len()
            ),
        });
    }
    if quiet && let Some(first) = bad.first() {
        // One line even under --quiet: the addresses of these lines have no
        // name from the map, and their fetches are judged without one.
        crate::warn!(
            "robots-audit: {}: {} line{} of the PTR map could not be read (the first, line {}: {})",
            path.display(),
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            first.line,
            first.cause
        );
    }
    if !quiet {
        for line in bad.iter().take(SHOWN_SKIPS) {
            crate::warn!(
                "robots-audit: {}:{}: {}",
                path.display(),
                line.line,
                line.cause
            );
        }
        if bad.len() > SHOWN_SKIPS {
            crate::warn!(
                "robots-audit: {}: {} more bad lines",
                path.display(),
                bad.len() - SHOWN_SKIPS
            );
        }
    }
    Ok(map)
}

/// The main job: audit every log against robots.txt and write the reports.
pub fn run(config: &AuditConfig) -> Result<Outcome> {
    accesslog::open::check_distinct(&config.logs)?;
    // A state another user may write is refused before any lock is made or
    // leftover swept, in it or in --out (which may be the same folder).
    if let Some(dir) = &config.state {
        state::check_trust(dir)?;
    }
    // The lock on --out comes before the first log line is read and is
    // held to the end (SPEC §5): a second run waits or gives up before it
    // has done any work. The state's lock is the same (one lock when both
    // name one folder).
    let out = config
        .out
        .as_deref()
        .map(|dir| report::OutDir::lock(dir, config.lock_wait))
        .transpose()?;
    let state_dir = config
        .state
        .as_deref()
        .map(|dir| StateDir::lock(dir, config.lock_wait, out.as_ref()))
        .transpose()?;
    let mut state = state_dir.as_ref().map(StateDir::load).transpose()?;
    let versions = Versions::gather(
        &config.robots_sources,
        state.as_ref().map(State::entries).unwrap_or_default(),
    )?;
    // SPEC §6: with one --robots file and no state, nothing of nights
    // applies.
    let nights =
        (config.robots_sources.history.is_some() || config.state.is_some()).then_some(Nights {
            versions: &versions,
            grace_ms: config.robots_grace_ms,
        });
    let choice = FormatChoice::new(&config.log_format)
        .map_err(|cause| Error::Usage(format!("--log-format: {cause}")))?
        .with_zone(config.log_tz.clone());
    if choice.needs_zone()
        && let Some(path) = config.logs.first()
    {
        // Never silently UTC (SPEC §1 "Times").
        return Err(Error::Format {
            path: path.clone(),
            at: Position::File,
            cause: "the log format writes times without a UTC offset; give --log-tz ZONE \
                    (an IANA name such as Europe/Prague, or +HHMM)"
                .to_string(),
        });
    }
    let ident = Identifier::with_profiles(config.profiles.as_deref())?;
    let formats = Formats {
        choice: &choice,
        quiet: config.quiet,
        chosen: Mutex::default(),
        ident: &ident,
    };
    let ptr_map = load_ptr_map(config.ptr_map.as_deref(), config.quiet)?;
    let mut crawler_addrs = ptr_map.crawler_addresses(&ident);
    if config.resolve {
        // Live DNS names addresses only after the scan: every fetch from the
        // crawlers' networks is kept, so that one whose address DNS then
        // names a crawler's is judged whatever its user agent (SPEC §2).
        crawler_addrs = crawler_addrs.with_networks(
            ident
                .profiles()
                .iter()
                .flat_map(|p| p.networks.iter().copied()),
        );
    }

    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = config.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool
        .start_handler(|_| yield_to_readers())
        .build()
        .map_err(|e| Error::Usage(format!("cannot start worker threads: {e}")))?;

    let progress = Progress::new(&progress::measure(&config.logs), config.quiet);
    let scanner = Scanner {
        ident: &ident,
        crawler_addrs: &crawler_addrs,
        proxies: &config.trusted_proxies,
        since: config.since,
        until: config.until,
        count_clients: config.resolve,
        hosts: &config.hosts,
    };
    // Runs spill into the state folder, else into $TMPDIR (SPEC §5).
    // Beside the state when it is ours to write (locked), else in $TMPDIR.
    let spill_parent = match &state_dir {
        Some(dir) if dir.is_locked() => dir.path().to_path_buf(),
        // An empty $TMPDIR is unset, as most tools read it.
        _ => match std::env::var_os("TMPDIR") {
            Some(dir) if !dir.is_empty() => std::path::PathBuf::from(dir),
            _ => std::path::PathBuf::from("/tmp"),
        },
    };
    let spill = SpillDir::new(&spill_parent);
    let budget = Budget::of(config.memory);
    let sorter: Sorter<'_, Fetch> = Sorter::new(budget.fetches, &spill);
    let addresses: Option<Sorter<'_, ClientFetches>> = config
        .resolve
        .then(|| Sorter::new(budget.addresses_sorted, &spill));
    let started_ms = now_ms();
    let known = state
        .as_ref()
        .map(|state| (&state.fingerprints[..], started_ms));
    let (mut scan, input_errors, mut finished, copies) = read_logs(
        config,
        &formats,
        &scanner,
        &pool,
        &progress,
        Sorters {
            fetches: &sorter,
            addresses: addresses.as_ref(),
        },
        known,
    );
    // A log given twice in one run (a copy under another name, or the head
    // of a log given before it) is audited once, under the first name, as
    // across nights.
    for &file in &copies {
        scan.forget_file(file);
        if let Some(done) = finished.get_mut(&file) {
            done.already_audited = done.fingerprint.lines_read();
        }
    }
    progress.finish();
    let mut chosen = formats.said();

    if let (true, Some(&(file, line, skip))) = (config.strict, scan.skips.first()) {
        return Err(Error::Format {
            path: config.logs[file].clone(),
            at: Position::Line(line),
            cause: skip.reason().to_string(),
        });
    }
    let mut input_errors = input_errors;
    let unread: Vec<usize> = input_errors.iter().map(|(file, _)| *file).collect();
    let already_audited: BTreeMap<usize, u64> = finished
        .iter()
        .map(|(&file, done)| (file, done.already_audited))
        .collect();
    let notice = skipped::notice(
        &config.logs,
        &scan.tallies,
        &scan.skips,
        &unread,
        &already_audited,
        &chosen,
        config.quiet,
    );
    for line in &notice.lines {
        crate::warn!("{line}");
    }
    // Crawler fetches of several virtual hosts, all judged by one
    // robots.txt, though each host has its own (RFC 9309 §2.3): said even
    // under --quiet, with the hosts and how to pick the site's.
    if config.hosts.is_empty() && (scan.hosts.len() > 1 || scan.more_hosts) {
        crate::warn!(
            "robots-audit: warning: fetches claiming a crawler name {}{} virtual hosts ({}), \
             all judged by this one robots.txt; give --host NAME for the site it belongs to",
            if scan.more_hosts { "more than " } else { "" },
            scan.hosts.len(),
            hosts_seen(&scan.hosts),
        );
    }
    // Trusted proxies named for a log that writes no forwarded-for value:
    // every client there is the proxy itself, and a crawler's fetch through
    // it cannot be verified. Said even under --quiet, once a file.
    if !config.trusted_proxies.is_empty() {
        for (&file, tally) in &scan.tallies {
            if tally.parsed() > 0 && tally.with_forwarded == 0 && !unread.contains(&file) {
                // The named formats have no forwarded-for field: their
                // lines may well carry one after the user agent (nginx's
                // default `main`), which only a format given can read.
                let format = chosen.get(&file).map(String::as_str).unwrap_or_default();
                let why = if matches!(format, "combined" | "common" | "vhost_combined") {
                    format!(
                        "it is read as {format}, which has no forwarded-for field: give \
                         --log-format with it (nginx's default `main` ends with \
                         \"$http_x_forwarded_for\")"
                    )
                } else {
                    "its lines carry no forwarded-for value".to_string()
                };
                crate::warn!(
                    "robots-audit: warning: {}: --trusted-proxy is given, but {why}: their \
                     clients are the connecting addresses, proxies included",
                    config.logs[file].display()
                );
            }
        }
    }
    input_errors.extend(notice.failed);
    input_errors.sort_by_key(|(file, _)| *file);

    let mut left_out_in_networks = false;
    // The addresses asked, and when asking began: a PTR map's names are
    // put to DNS forward in what is left of --dns-deadline.
    let mut asked: Option<(Vec<IpAddr>, DnsOptions, std::time::Instant)> = None;
    let (dns, mut dns_health, state_dns_cache) = match addresses {
        Some(addresses) => {
            let started = std::time::Instant::now();
            // What the DNS cache knows is known whatever the bound: an
            // impostor it named stays one.
            let options = dns_options(config);
            let cache = dns::load_cache(&options);
            let chosen = addresses_to_ask(
                addresses.finish()?,
                &ident,
                budget.addresses_asked,
                |addr| cache.0.get(addr).is_some(),
            )?;
            let mut resolved = resolve(&ident, &chosen.wanted, &options, cache);
            let left_out = chosen.left_out + chosen.left_out_in_networks;
            if left_out > 0 {
                crate::warn!(
                    "robots-audit: warning: --resolve: {left_out} address(es) were not looked \
                     up, more than --memory keeps ({} were: those the DNS cache knows, then \
                     inside a crawler's networks and outside them apart, those with the most \
                     fetches); their fetches stay unverified",
                    chosen.wanted.len()
                );
                // Addresses it could not check, as those past the deadline.
                resolved.1.failures += left_out;
            }
            left_out_in_networks = chosen.left_out_in_networks > 0;
            asked = Some((chosen.wanted.keys().copied().collect(), options, started));
            resolved
        }
        None => (Default::default(), report::run::DnsHealth::default(), None),
    };
    let mut knowledge = Knowledge::new(ptr_map, dns).with_networks_unasked(left_out_in_networks);
    if let Some((addresses, options, started)) = asked {
        // A map's name of a crawler is confirmed or refuted forward
        // (SPEC §2: "the forward lookup of a matching name answered
        // without this address"), whatever the reverse lookup said.
        let pairs = knowledge.given_to_confirm(&ident, addresses.into_iter());
        let left = options.deadline.saturating_sub(started.elapsed());
        let forward = dns::confirm_given(&pairs, &ident, &options, left);
        knowledge = knowledge.with_given_forward(forward);
    }

    // One compiled selection per robots.txt token and the records read:
    // SeznamBot, FreshBot and SeznamBot-test all read the SeznamBot groups
    // alike.
    let mut selections: Vec<(String, Reads)> = Vec::new();
    let token_of: Vec<usize> = ident
        .profiles()
        .iter()
        .map(|p| {
            let key = (crate::robots::agent::robot_of(&p.token), p.reads);
            selections
                .iter()
                .position(|s| *s == key)
                .unwrap_or_else(|| {
                    selections.push(key);
                    selections.len() - 1
                })
        })
        .collect();
    // Each version compiled once per selection; without nights only the
    // one version there is.
    let judged: &[_] = match nights {
        Some(_) => versions.all(),
        None => std::slice::from_ref(versions.latest()),
    };
    // Tokens that select the same groups of a version share its
    // compiled rules: (rules, the index into them of each selection).
    let rules: Vec<(Vec<AgentRules>, Vec<usize>)> = judged
        .iter()
        .map(|version| {
            let mut compiled: Vec<(Reads, SelectionKey, AgentRules)> = Vec::new();
            let mut read: Vec<(Reads, crate::robots::Robots)> = Vec::new();
            let shared = selections
                .iter()
                .map(|(token, reads)| {
                    let at = read
                        .iter()
                        .position(|(r, _)| r == reads)
                        .unwrap_or_else(|| {
                            read.push((*reads, version.robots().read_as(*reads)));
                            read.len() - 1
                        });
                    let robots = &read[at].1;
                    let key = robots.selection_key(token.as_bytes());
                    let found = compiled
                        .iter()
                        .position(|(r, k, _)| r == reads && *k == key);
                    found.unwrap_or_else(|| {
                        compiled.push((*reads, key, robots.rules_for(token.as_bytes())));
                        compiled.len() - 1
                    })
                })
                .collect();
            (
                compiled.into_iter().map(|(_, _, rules)| rules).collect(),
                shared,
            )
        })
        .collect();
    let policies: Vec<Vec<Policy<'_>>> = rules
        .iter()
        .map(|(rules, shared)| {
            ident
                .profiles()
                .iter()
                .zip(&token_of)
                .map(|(profile, &selection)| Policy::new(profile, &rules[shared[selection]]))
                .collect()
        })
        .collect();
    let counting = Counting {
        rate_by: config.rate_by,
        window_tz: config.window_tz.clone(),
    };

    let crawlers: Vec<String> = ident.profiles().iter().map(|p| p.name.clone()).collect();
    let names = Names {
        files: &config.logs,
        crawlers: &crawlers,
        escaping: if config.raw_csv {
            Escaping::Raw
        } else {
            Escaping::Safe
        },
    };
    let spilled_runs = sorter.runs();
    let mut rows = report::Rows::begin(names, out.as_ref())?;
    let digest = Digest::new(crawlers.len(), budget.targets, &spill);
    let mut gather = report::html::build::Gather::new(&crawlers);
    let mut judged_by = Judge::new(&policies, nights, &counting);
    judged_by.verifies = config.ptr_map.is_some() || config.resolve;
    if let Some(state) = &state {
        let mut strangers = Vec::new();
        let merged = judged_by.merged_by_upgrade(|name| state.counts.contains_key(name));
        for (name, count) in &state.counts {
            if merged.contains(name)
                || !judged_by.resume(name, count.robots_txt, &count.fetch_times_ms)
            {
                strangers.push((name.as_str(), count.robots_txt));
            }
        }
        judged_by.resume_other_rate_by(&strangers);
        let strangers: Vec<&str> = strangers.iter().map(|&(name, _)| name).collect();
        // Counts kept under the other --rate-by cannot be split or merged
        // into tonight's without guessing: said, never silently dropped.
        if !strangers.is_empty() {
            crate::warn!(
                "robots-audit: warning: the state's counts {} were kept under another --rate-by \
                 (or, by an older version, under a profile's token as written rather than its \
                 product token): rates, crawl delays and robots.txt fetches across midnight \
                 start afresh tonight (a 4xx on robots.txt they remember still stands)",
                strangers.join(", ")
            );
        }
    }
    let mut nightly = state.as_ref().map(|_| NightRows::default());
    let mut other_hosts = 0;
    let mut undecided = Undecided::default();
    let digest = judge(
        &pool,
        &ident,
        &knowledge,
        &policies,
        &mut judged_by,
        nights.map(|n| n.versions),
        sorter,
        &mut rows,
        digest,
        &mut gather,
        nightly.as_mut(),
        &copies,
        budget.identities,
        &mut other_hosts,
        &mut undecided,
    )?;
    // Said even under --quiet, and the night is not whole: with --state
    // these fetches would otherwise never be looked at again.
    dns_health.undecided_fetches = undecided.fetches;
    if undecided.fetches > 0 {
        let shown: Vec<String> = undecided
            .addresses
            .iter()
            .map(ToString::to_string)
            .collect();
        crate::warn!(
            "robots-audit: DNS failed for address(es) inside a crawler's networks ({}{}): their \
             {} fetch(es) whose user agent names no crawler may be the crawler's, and only DNS \
             could tell; they are in no report and the run is incomplete (exit 2, the state \
             left as it was): run again when the resolver answers",
            shown.join(", "),
            if undecided.addresses.len() == Undecided::SHOWN {
                ", …"
            } else {
                ""
            },
            undecided.fetches
        );
    }
    // A --host that names none of the fetches claiming a crawler (the log writes
    // `site.cz`, the flag says `www.site.cz`), or a --since/--until that
    // holds none of them (a cron line a day off, a window in the wrong
    // zone): every fetch was left out, which must not pass for a clean
    // night. Said even under --quiet. Fetches outside the window are
    // counted before they are judged (spoofed ones too, as claims), those
    // of other hosts after.
    // Said of the crawler's own fetches: a spoofed fetch audited inside
    // the window is none of them (SPEC §2), and the window's count, taken
    // before fetches are judged, holds spoofed claims too.
    let outside = scan.outside_period;
    let none_audited = digest.crawlers.iter().flatten().all(|c| c.fetches == 0);
    // A --host among several, or beside a log with no host field, that
    // names none of the hosts the crawler's fetches were of (a typo): the
    // night still audits the others, so the typo would pass unseen. Only
    // when every host seen is known (at most `HOSTS_KEPT` of them), and
    // not when the warning below says it of every fetch already.
    let said_below = none_audited && outside == 0 && other_hosts > 0;
    if !config.hosts.is_empty() && !scan.hosts.is_empty() && !scan.more_hosts && !said_below {
        for name in config.hosts.names() {
            if !scan.hosts.contains_key(name) {
                crate::warn!(
                    "robots-audit: warning: --host {} names none of the fetches claiming a \
                     crawler, whose virtual hosts are {}: is the name written as the log's \
                     virtual-host field writes it?",
                    crate::text::escape_non_utf8(name),
                    hosts_seen(&scan.hosts),
                );
            }
        }
    }
    if none_audited {
        match (outside, other_hosts) {
            (0, 0) => {}
            (0, hosts) => crate::warn!(
                "robots-audit: warning: every crawler fetch ({hosts}) was of another host than \
                 --host names{}: is the name written as the log's virtual-host field writes it?",
                if scan.hosts.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (the virtual hosts of fetches claiming a crawler, spoofed ones \
                         too: {}{})",
                        hosts_seen(&scan.hosts),
                        if scan.more_hosts { " and more" } else { "" }
                    )
                }
            ),
            (outside, 0) => crate::warn!(
                "robots-audit: warning: no crawler fetch was audited: {outside} fetches claiming \
                 a crawler were outside --since/--until; is the window the night's?"
            ),
            (outside, hosts) => crate::warn!(
                "robots-audit: warning: no crawler fetch was audited: {outside} fetches claiming \
                 a crawler were outside --since/--until, and the crawler's {hosts} within it of \
                 another host than --host names"
            ),
        }
    }
    let excused = judged_by.excused;
    let excused_by = std::mem::take(&mut judged_by.excused_by);

    if !input_errors.is_empty() {
        crate::interrupt::yield_to_handler();
    }
    for (_, err) in &input_errors {
        crate::warn!("robots-audit: {err}");
    }
    let outcome = if !input_errors.is_empty() || dns_health.unusable || undecided.fetches > 0 {
        Outcome::Incomplete
    } else if digest.accusing == 0 {
        // Rows whose note only informs (SPEC §5) are no finding.
        Outcome::Clean
    } else {
        Outcome::Findings
    };
    let arguments: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| crate::text::name_text(a.as_encoded_bytes()).into_owned())
        .collect();
    let errors: BTreeMap<usize, String> = input_errors
        .iter()
        .map(|(file, err)| (*file, err.to_string()))
        .collect();
    let robots_versions: Vec<(String, Option<String>)> = judged
        .iter()
        .map(|version| {
            let from = match (nights, &config.robots_sources.file) {
                // One version: in force as SPEC §6 dates a --robots file.
                (None, Some(file)) if config.robots_sources.since.is_none() => in_force_from(file),
                _ => Some(version.in_force_from().rfc3339()),
            };
            (version.robots_version().to_string(), from)
        })
        .collect();
    for file in 0..config.logs.len() {
        chosen.entry(file).or_insert_with(|| choice.name());
    }
    // What the next night needs (SPEC §6), kept only once the reports are
    // written whole and the run did not fail.
    if let Some(state) = &mut state {
        state.remember_versions(&versions);
        // Every count of this run, resumed from the state and carried on;
        // counts kept under another --rate-by (warned about) go.
        state.counts.clear();
        for (name, robots_txt, times, kept_ms) in judged_by.memories() {
            let mut memory = state::CountMemory {
                robots_txt,
                fetch_times_ms: times,
            };
            memory.keep_recent(kept_ms, KEPT_TIMES);
            state.counts.insert(name.to_string(), memory);
        }
        // An empty log matches nothing: no fingerprint to keep.
        for (file, done) in finished
            .iter()
            .filter(|(_, done)| done.fingerprint.lines_read() > 0)
        {
            let mut fingerprint = done.fingerprint.clone();
            if let Some(tail) = &mut fingerprint.tail {
                // Its line is the file's last: read, unless skipped (a
                // tail met again is read as it was the night before).
                let last = fingerprint.lines + 1;
                let tally = scan.tallies.get(file).copied().unwrap_or_default();
                let before = done.already_audited >= last;
                tail.parsed = if before {
                    previous_tail_parsed(state, done).unwrap_or(false)
                } else {
                    tally.last_skip != Some(last)
                };
            }
            state.add_fingerprint(fingerprint);
        }
        if let Some(nightly) = nightly.as_mut() {
            // Quiet nights are kept under the first crawler named as its
            // robots.txt token (SeznamBot), whatever fetched.
            let quiet = ident
                .profiles()
                .iter()
                .position(|p| p.name == p.token)
                .unwrap_or(0);
            for tally in scan.tallies.values() {
                if let (Some(first), Some(last)) = (&tally.first_time, &tally.last_time) {
                    nightly.covered(first, last, quiet);
                }
            }
        }
        for row in nightly.iter().flat_map(|n| n.rows(&crawlers)) {
            state.add_night(row);
        }
        state.expire(started_ms, config.state_days);
    }
    // The state is written before the reports and put in force after them
    // (SPEC §6): a state that cannot be written is known while run.json
    // can still say exit 2. A run that exits 2 never updates the state:
    // running again after the fix gives the same reports.
    let prepared = match (&state_dir, &state) {
        (Some(dir), Some(state)) if outcome != Outcome::Incomplete => Some(dir.prepare(state)),
        _ => None,
    };
    let state_failed = matches!(prepared, Some(Err(_)));
    let state_error = match &prepared {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let health = report::run::Health {
        arguments: &arguments,
        formats: &chosen,
        tallies: &scan.tallies,
        already_audited: &already_audited,
        errors: &errors,
        robots_versions: &robots_versions,
        dns_asked: config.resolve,
        dns: dns_health,
        excused_by_cache_grace: excused,
        left_out: report::run::LeftOut {
            outside_since_until: scan.outside_period,
            other_hosts,
        },
        state_error,
        exit_status: if state_failed {
            Outcome::Incomplete.exit_code()
        } else {
            outcome.exit_code()
        },
    };
    // The chart draws, at each minute, the Request-rate of the version in
    // force then (SPEC §6), as the rows were judged.
    let in_force_ms: Vec<(i64, i64)> = (0..judged.len())
        .map(|at| {
            let from = match at {
                0 => i64::MIN,
                _ => judged[at].in_force_from().instant_ms(),
            };
            let until = judged
                .get(at + 1)
                .map_or(i64::MAX, |next| next.in_force_from().instant_ms());
            (from, until)
        })
        .collect();
    let mut allowed: Vec<Vec<report::html::Allowance>> = vec![Vec::new(); crawlers.len()];
    for ((version, policies), &in_force) in judged.iter().zip(&policies).zip(&in_force_ms) {
        for (crawler, policy) in policies.iter().enumerate() {
            if let Some(lines) = allowed.get_mut(crawler) {
                lines.extend(report::html::build::allowances(
                    policy,
                    version.robots_version(),
                    in_force,
                ));
            }
        }
    }
    let sources = report::html::build::Sources {
        robots: judged
            .iter()
            .map(|version| (version.robots().bytes(), version.robots_version()))
            .collect(),
        in_force_ms,
        excused_by,
        allowed: &allowed,
        window_offset_min: match &config.window_tz {
            WindowTz::Utc => 0,
            WindowTz::Fixed(minutes) => *minutes,
            // Each timestamp's own offset, or a zone's that changes: the
            // chart reads windows in the offset of the first fetch.
            _ => scan
                .tallies
                .values()
                .find_map(|t| t.first_time)
                .map_or(0, |t| t.offset_min),
        },
        trend: state.as_ref().map(|state| trend_of(state, &crawlers)),
    };
    let mut page_data = report::html::build(gather, &digest, &names, &health, &sources);
    let page = report::html::render(&page_data);
    let whole = rows.finish(&digest, &health, &page)?;
    match prepared {
        Some(Ok(prepared)) if whole => {
            if let Err(e) = prepared.commit() {
                // The set in force says the night was whole; it is made to
                // say why it was not, as a state that could not be written
                // before the reports is said (run.json, report.html).
                if let Some(out) = &out {
                    let cause = e.to_string();
                    page_data.exit_status = Outcome::Incomplete.exit_code();
                    page_data.health.state_error = Some(cause.clone());
                    let health = report::run::Health {
                        state_error: Some(cause),
                        exit_status: Outcome::Incomplete.exit_code(),
                        ..health
                    };
                    let page = report::html::render(&page_data);
                    if let Err(amend) = report::amend(out, &digest, &names, &health, &page) {
                        crate::warn!(
                            "robots-audit: the reports in {} say the night was audited whole, \
                             but the state was not saved: {amend}",
                            out.path().display()
                        );
                    }
                }
                return Err(e);
            }
            // The state's DNS cache goes with it; it only saves time, so
            // a cache that cannot be written is a warning.
            if let (Some(cache), Some(path)) = (&state_dns_cache, &config.dns_cache)
                && let Err(e) = cache.save(path)
            {
                crate::warn!(
                    "robots-audit: DNS cache {} not written: {e}",
                    path.display()
                );
            }
        }
        // The reader of standard output closed it part way (`| head`):
        // rows it never read would not come again the next night.
        Some(Ok(_)) => crate::warn!(
            "robots-audit: warning: standard output was closed before the report was written \
             whole: the state is left as it was, so the next night reports these rows again"
        ),
        Some(Err(e)) => return Err(e),
        None => {}
    }
    if !config.quiet {
        let totals = Totals {
            lines: scan.lines,
            skipped: scan.skipped,
            not_requests: scan.tallies.values().map(|t| t.not_requests).sum(),
            dns_failures: dns_health.failures,
            outside_period: scan.outside_period,
            other_hosts,
            spilled_runs,
        };
        {
            use std::io::Write as _;
            let _ = std::io::stderr()
                .write_all(report::summary::human(&digest, &names, &totals).as_bytes());
        }
    }
    Ok(outcome)
}

/// Whether the tail that a file's last line matched had parsed, on the
/// night it was read: the state's fingerprints the file matched know.
fn previous_tail_parsed(state: &State, done: &Finished) -> Option<bool> {
    // `matched` indexes the fingerprints as the run read them; the ones
    // added since go after them.
    done.matched
        .iter()
        .filter_map(|&i| state.fingerprints.get(i))
        .filter(|f| f.lines + 1 == done.already_audited)
        .find_map(|f| f.tail.as_ref().map(|t| t.parsed))
}

/// The files whose every line is the head of a file given before them in
/// the run — the same text (same lines, bytes and SHA-256), or the first
/// lines of a longer one, read again to know — with lines of their own to
/// skip. (A file that begins with an earlier one was read without its
/// head: `Overlaps::earlier_heads`.) Also, as (file, earlier), the files
/// that may be the head of a longer earlier one that cannot be read again
/// (standard input, a pipe): left out too, since audited whole they might
/// count every fetch twice, and said as errors by the caller.
fn copies_of_earlier(
    finished: &BTreeMap<usize, Finished>,
    overlaps: &Overlaps,
    paths: &[std::path::PathBuf],
) -> (Vec<usize>, Vec<(usize, usize)>) {
    let mut copies = Vec::new();
    let mut unknowable = Vec::new();
    for (&file, done) in finished {
        let f = &done.fingerprint;
        if f.lines_read() <= done.already_audited {
            continue;
        }
        for earlier in overlaps.same_start(file) {
            let Some(e) = finished.get(&earlier).map(|e| &e.fingerprint) else {
                continue;
            };
            if (e.lines, e.bytes, &e.sha256, &e.tail) == (f.lines, f.bytes, &f.sha256, &f.tail) {
                copies.push(file);
                break;
            }
            if e.lines_read() > f.lines_read() && e.bytes >= f.bytes {
                if !accesslog::rereadable(&paths[earlier]) {
                    // Their first lines as far as both first chunks hold
                    // them: a head agrees with them all.
                    if overlaps.prefixes_agree(file, earlier) {
                        copies.push(file);
                        unknowable.push((file, earlier));
                        break;
                    }
                    continue;
                }
                if overlaps::is_head_of(f, &paths[earlier]) {
                    copies.push(file);
                    break;
                }
            }
        }
    }
    (copies, unknowable)
}

/// The most fetch times a count keeps for the next night: a bound on the
/// state's size far above what a rate period holds of a real crawler.
const KEPT_TIMES: usize = 1_000_000;

/// Milliseconds since the epoch, now.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The trend of report.html (SPEC §7): the last 30 nights of the state,
/// tonight's included.
fn trend_of(state: &State, crawlers: &[String]) -> Vec<report::html::Night> {
    let mut nights: BTreeMap<&str, report::html::Night> = BTreeMap::new();
    for crawler in crawlers {
        for row in state.trend(crawler, TREND_NIGHTS) {
            let night = nights
                .entry(row.night.as_str())
                .or_insert_with(|| report::html::Night {
                    date: row.night.clone(),
                    crawlers: Vec::new(),
                });
            night.crawlers.push((
                row.crawler.clone(),
                row.fetches,
                row.violations.values().sum(),
            ));
        }
    }
    let nights: Vec<report::html::Night> = nights.into_values().collect();
    let start = nights.len().saturating_sub(TREND_NIGHTS);
    nights[start..].to_vec()
}

/// Nights in report.html's trend.
const TREND_NIGHTS: usize = 30;

/// How `--memory` is shared out. The rest of it goes to what does not
/// grow with the log: the program, the chunks in flight, a batch being
/// judged, the merge's read buffers.
struct Budget {
    /// Fetch records held before a sorted run spills.
    fetches: usize,
    /// (rule, target) pairs held before they spill.
    targets: usize,
    /// Identities the judge remembers before it starts over.
    identities: usize,
    /// Bytes of (address, fetches) records held before they spill
    /// (`--resolve`).
    addresses_sorted: usize,
    /// Addresses outside the crawlers' networks looked up at most
    /// (`--resolve`): each costs its answer, its place in the order of
    /// lookups and in the cache, a few hundred bytes.
    addresses_asked: usize,
}

/// Memory one address looked up holds, all told (`Budget::addresses_asked`).
const ADDRESS_ASKED_BYTES: usize = 512;

impl Budget {
    fn of(memory: u64) -> Budget {
        let memory = usize::try_from(memory).unwrap_or(usize::MAX);
        // Measured: the program with its chunks in flight stays near
        // 20 MiB whatever the log; the shares leave room for the merge's
        // read buffers and a batch being judged.
        Budget {
            fetches: memory / 20 * 7,
            targets: memory / 10,
            identities: (memory / 20 / IDENTITY_BYTES).max(1024),
            addresses_sorted: memory / 40,
            addresses_asked: (memory / 10 / ADDRESS_ASKED_BYTES).max(1024),
        }
    }
}

/// When a `--robots FILE` came into force: its modification time, as
/// RFC 3339 in UTC (SPEC §6); `None` when the file system does not say.
fn in_force_from(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    let time = Timestamp {
        unix: i64::try_from(since.as_secs()).ok()?,
        millis: 0,
        offset_min: 0,
    };
    Some(time.rfc3339())
}

/// What DNS said; how it went (`report::run::DnsHealth`); and the state's
/// DNS cache, to write with the state (SPEC §6: a run that exits 2
/// updates nothing of it).
type Resolved = (
    HashMap<IpAddr, DnsAnswer>,
    report::run::DnsHealth,
    Option<DnsCache>,
);

/// The addresses to look up (`addresses_to_ask`), and how many were left
/// out, outside a crawler's networks and inside them.
struct ToAsk {
    wanted: HashMap<IpAddr, u64>,
    left_out: u64,
    left_out_in_networks: u64,
}

/// The addresses to look up, with their fetches, from every address a
/// kept fetch came from (in address order, each once): every one the DNS
/// cache knows (`cached`: an answer costs no question, and an impostor it
/// named stays one), then, inside a crawler's networks and outside them
/// apart, the `limit` with the most fetches, the lower address first among
/// equals, so that the choice is the same at any `--threads` (SPEC §5: the
/// addresses of a log of made-up clients never outgrow `--memory`; SPEC
/// §2: the genuine crawlers' are asked first, whatever the others).
fn addresses_to_ask(
    addresses: impl Iterator<Item = Result<ClientFetches>>,
    ident: &Identifier,
    limit: usize,
    cached: impl Fn(IpAddr) -> bool,
) -> Result<ToAsk> {
    let mut wanted = HashMap::new();
    // The best `limit` of each side so far, the worst on top.
    let mut inside: BinaryHeap<(Reverse<u64>, IpAddr)> = BinaryHeap::new();
    let mut outside: BinaryHeap<(Reverse<u64>, IpAddr)> = BinaryHeap::new();
    let (mut left_out, mut left_out_in_networks) = (0u64, 0u64);
    for counted in addresses {
        let ClientFetches { addr, fetches } = counted?;
        if cached(addr) {
            wanted.insert(addr, fetches);
            continue;
        }
        let (best, dropped) = if ident.in_networks(addr) {
            (&mut inside, &mut left_out_in_networks)
        } else {
            (&mut outside, &mut left_out)
        };
        best.push((Reverse(fetches), addr));
        if best.len() > limit {
            best.pop();
            *dropped += 1;
        }
    }
    let chosen = inside.into_iter().chain(outside);
    wanted.extend(chosen.map(|(Reverse(fetches), addr)| (addr, fetches)));
    Ok(ToAsk {
        wanted,
        left_out,
        left_out_in_networks,
    })
}

/// How `--resolve` asks: the flags, and the DNS cache written with the
/// state when it is the state's (SPEC §6).
fn dns_options(config: &AuditConfig) -> DnsOptions {
    let in_state = match (&config.state, &config.dns_cache) {
        (Some(state), Some(cache)) => *cache == StateDir::dns_cache(state),
        _ => false,
    };
    DnsOptions {
        server: config.dns_server,
        timeout: config.dns_timeout,
        deadline: config.dns_deadline,
        cache_path: config.dns_cache.clone(),
        defer_save: in_state,
        max_age: config.dns_cache_max_age,
        ..DnsOptions::default()
    }
}

/// Live DNS for the addresses that claim a crawler or are named crawler
/// hosts; never for browsers, with the DNS cache already read
/// (`dns::load_cache`). Returns the answers, how many addresses
/// could not be checked, whether no resolver could be used at all (the
/// run then goes on, unverified, and exits 2), and the state's cache.
fn resolve(
    ident: &Identifier,
    addresses: &HashMap<IpAddr, u64>,
    options: &DnsOptions,
    cache: (DnsCache, Option<String>),
) -> Resolved {
    // With their fetches: the most fetched are asked first.
    let addrs = addresses.iter().map(|(&addr, &n)| (addr, n));
    let (answers, stats) = dns::resolve_cached(addrs, ident, options, cache);
    if let Some(cause) = &stats.unusable {
        crate::warn!(
            "robots-audit: --resolve: {cause}; fetches not in the DNS cache are left \
             unverified (give --dns-server)"
        );
    }
    for warning in &stats.warnings {
        crate::warn!("robots-audit: {warning}");
    }
    let health = report::run::DnsHealth {
        failures: stats.failures as u64,
        unusable: stats.unusable.is_some(),
        broken: stats.denied_in_networks.len() as u64,
        deadline_reached: stats.deadline_hit,
        undecided_fetches: 0,
    };
    (answers, health, stats.unsaved)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `addresses_to_ask` against its plain reading: every address the
    /// cache knows, and of the others, inside the networks and outside
    /// apart, the `limit` first by most fetches, then lower address; the
    /// rest counted.
    #[test]
    fn addresses_to_ask_keeps_the_cached_and_the_most_fetched_of_each_side() {
        let ident = Identifier::with_profiles(None).expect("built-in profiles");
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..300 {
            let mut counted: Vec<ClientFetches> = Vec::new();
            for _ in 0..next() % 60 {
                let r = next();
                // Some inside Seznam's 77.75.72.0/21, most outside; fetch
                // counts that tie often.
                let addr = if r % 3 == 0 {
                    IpAddr::from([77, 75, 72 + (r >> 8) as u8 % 8, (r >> 16) as u8])
                } else {
                    IpAddr::from([10, 0, (r >> 8) as u8 % 4, (r >> 16) as u8])
                };
                if counted.iter().all(|c| c.addr != addr) {
                    counted.push(ClientFetches {
                        addr,
                        fetches: 1 + (r >> 24) % 4,
                    });
                }
            }
            counted.sort_by_key(|c| c.addr);
            let limit = (round % 20) as usize;
            // The cache knows addresses whose last octet is a multiple of 7.
            let cached = |addr: IpAddr| match addr {
                IpAddr::V4(v4) => v4.octets()[3] % 7 == 0,
                IpAddr::V6(_) => false,
            };
            let chosen = addresses_to_ask(counted.iter().copied().map(Ok), &ident, limit, cached)
                .expect("no error");

            let mut expected: HashMap<IpAddr, u64> = HashMap::new();
            let mut left = [0u64; 2];
            for (side, inside) in [false, true].into_iter().enumerate() {
                let mut others: Vec<ClientFetches> = counted
                    .iter()
                    .copied()
                    .filter(|c| !cached(c.addr) && ident.in_networks(c.addr) == inside)
                    .collect();
                others.sort_by_key(|c| (Reverse(c.fetches), c.addr));
                expected.extend(others.iter().take(limit).map(|c| (c.addr, c.fetches)));
                left[side] = others.len().saturating_sub(limit) as u64;
            }
            expected.extend(
                counted
                    .iter()
                    .filter(|c| cached(c.addr))
                    .map(|c| (c.addr, c.fetches)),
            );
            assert_eq!(chosen.wanted, expected, "round {round}");
            assert_eq!(
                [chosen.left_out, chosen.left_out_in_networks],
                left,
                "round {round}"
            );
        }
    }

    /// A worker lowers its own priority, not the program's: the reader
    /// threads keep theirs.
    #[test]
    fn workers_yield_and_the_rest_do_not() {
        let mine = rustix::process::getpriority_process(None).unwrap();
        let worker = std::thread::spawn(|| {
            let before = rustix::process::getpriority_process(None).unwrap();
            yield_to_readers();
            (before, rustix::process::getpriority_process(None).unwrap())
        })
        .join()
        .unwrap();
        assert_eq!(worker, (mine, (mine + WORKER_NICENESS).min(19)));
        assert_eq!(rustix::process::getpriority_process(None).unwrap(), mine);
    }
}
