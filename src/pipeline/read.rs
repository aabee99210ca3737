//! Stage 1 and 2, reading and scanning, as a reader thread runs them
//! (`pipeline.rs` starts the threads): a log file inflated and cut into
//! line-aligned chunks for the rayon workers to scan (`crate::scan`);
//! with `--state`, its fingerprint and the lines audited on an earlier
//! night (SPEC §6); the files that repeat an earlier one.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, mpsc};

use crate::accesslog::open::Compression;
use crate::accesslog::{self, Chunk, ChunkReader, FileFormat, FormatChoice, Recycler};
use crate::crawler::Identifier;
use crate::error::{Error, Position, Result};
use crate::progress::Progress;
use crate::state::fingerprint::{Fingerprint, Finished, Reading};
use crate::state::heads::Heads;
use crate::state::overlaps::{self, Overlaps};
use crate::state::{self};

/// Without `--state`, logs of one run that begin with the same lines (a log
/// and its copy, as logrotate's `copy` leaves `access.log.1` and an
/// `access.log` that begins with it) are each audited whole, as SPEC §6
/// has it: their common lines count twice, and a rate or delay row may
/// come of the doubling alone. Said, once a later file, so that such a row
/// is never taken for the crawler's own doing unwarned.
pub(super) fn warn_of_overlaps(overlaps: &Overlaps, paths: &[std::path::PathBuf]) {
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
pub(super) fn yield_to_readers() {
    let Ok(now) = rustix::process::getpriority_process(None) else {
        return;
    };
    let _ = rustix::process::setpriority_process(None, (now + WORKER_NICENESS).min(19));
}

/// A chunk on its way to the workers: the file it is from, the buffer's
/// way back, and the format in force at its first line.
pub(super) type Message = (usize, Chunk, Recycler, Arc<FileFormat>);

/// The format of each file, chosen by its reader from its first chunk.
pub(super) struct Formats<'a> {
    pub(super) choice: &'a FormatChoice,
    pub(super) quiet: bool,
    /// By file: the format's name and what standard error is to say of
    /// it, said in file order once every file is read, so that it does
    /// not depend on which reader came first.
    pub(super) chosen: Mutex<BTreeMap<usize, (String, Vec<String>)>>,
    /// Who a line's user agent claims to be, for a last line that grew
    /// since it was audited (`same_fetch`).
    pub(super) ident: &'a Identifier,
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
    pub(super) fn said(self) -> BTreeMap<usize, String> {
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
pub(super) fn read_one(
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

/// The files whose every line is the head of a file given before them in
/// the run — the same text (same lines, bytes and SHA-256), or the first
/// lines of a longer one, read again to know — with lines of their own to
/// skip. (A file that begins with an earlier one was read without its
/// head: `Overlaps::earlier_heads`.) Also, as (file, earlier), the files
/// that may be the head of a longer earlier one that cannot be read again
/// (standard input, a pipe): left out too, since audited whole they might
/// count every fetch twice, and said as errors by the caller.
pub(super) fn copies_of_earlier(
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

#[cfg(test)]
mod tests {
    use super::*;

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
