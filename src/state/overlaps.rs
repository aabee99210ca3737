//! Logs of one run that overlap (SPEC §6 "a log that grew is audited from
//! its first new line", within a night as across nights): takes what each
//! file's reader learns — its first line, then its fingerprint — and gives
//! a later file the fingerprints of the earlier files it may begin with,
//! and tells a later file that is wholly the head of an earlier one.
//!
//! logrotate's `copy` leaves `access.log.1` and an `access.log` that
//! begins with it; a cron job that gives both (`--log access.log.1 --log
//! access.log`) must audit each line once. The readers run at once, so a
//! reader whose first line is an earlier file's waits for that file's
//! fingerprint and reads it as one audited before: its head is never sent.
//! Waits only ever go to an earlier file, which is read or being read by
//! another reader, so they end. The other way round (the later file the
//! shorter, `--log access.log --log access.log.1`) the later file is
//! known to be a head only once both are read: the earlier file is read
//! again to its length (`is_head_of`) and the later one is forgotten, as a
//! copy is.

use std::path::Path;
use std::sync::{Condvar, Mutex};

use super::fingerprint::{Fingerprint, Reading};
use super::heads::Heads;
use crate::accesslog::{self, Chunk, ChunkReader};

/// What the readers have said of each file of the run.
pub struct Overlaps {
    files: Mutex<Vec<Said>>,
    changed: Condvar,
}

#[derive(Debug, Clone, Default)]
struct Said {
    /// The first line, with its line end, once read (`Some(None)`: the
    /// file has none).
    first: Option<Option<Box<[u8]>>>,
    /// Its first `PREFIX_LINES` lines (fewer when the first chunk ends, or
    /// past `PREFIX_BYTES`), each with its line end.
    prefix: Box<[u8]>,
    /// The prefix is the whole file, and its last line had no line end
    /// (cut, or still being written): a copy may go on where it stops.
    cut: bool,
    /// Once its reading ended: its fingerprint, when it gave one.
    done: Option<Option<Fingerprint>>,
}

impl Overlaps {
    pub fn new(files: usize) -> Overlaps {
        Overlaps {
            files: Mutex::new(vec![Said::default(); files]),
            changed: Condvar::new(),
        }
    }

    /// `file`'s first line, from its first chunk.
    pub fn first_line(&self, file: usize, first: Option<&Chunk>, unfinished: bool) {
        let line = first.and_then(first_line).map(Box::from);
        let prefix: Box<[u8]> = first.map(first_lines).unwrap_or_default().into();
        let cut = unfinished && first.is_some_and(|chunk| chunk.data.len() == prefix.len());
        self.say(file, |said| {
            said.first = Some(line);
            said.prefix = prefix;
            said.cut = cut;
        });
    }

    /// Whether the first lines of `file` and `earlier` that both first
    /// chunks hold (up to `PREFIX_LINES`) agree: a shorter file with
    /// fewer lines than that agrees only when it is wholly the other's
    /// head. Two IIS logs share their `#Software:` line, not their
    /// `#Date:` one. Where none can be compared, they may agree.
    pub fn prefixes_agree(&self, file: usize, earlier: usize) -> bool {
        self.agreeing_lines(file, earlier).is_some()
    }

    /// How many first lines of `file` and `earlier` both first chunks
    /// hold, when those agree (`prefixes_agree`); `None` when they differ.
    pub fn agreeing_lines(&self, file: usize, earlier: usize) -> Option<usize> {
        let Ok(files) = self.files.lock() else {
            return Some(0);
        };
        let (Some(a), Some(b)) = (files.get(file), files.get(earlier)) else {
            return Some(0);
        };
        let lines = |prefix: &[u8]| memchr::memchr_iter(b'\n', prefix).count();
        let both = lines(&a.prefix).min(lines(&b.prefix));
        if both == 0 {
            return Some(0);
        }
        let head = |prefix: &[u8], n: usize| -> Vec<u8> {
            let end = n
                .checked_sub(1)
                .and_then(|last| memchr::memchr_iter(b'\n', prefix).nth(last))
                .map_or(0, |at| at + 1);
            prefix[..end].to_vec()
        };
        // A whole file whose last line was cut agrees when that line is
        // the start of the other's line there.
        let (short, long) = if lines(&a.prefix) <= lines(&b.prefix) {
            (a, b)
        } else {
            (b, a)
        };
        if short.cut {
            let kept = head(&short.prefix, both - 1);
            let last = &short.prefix[kept.len()..short.prefix.len() - 1];
            let other = &long.prefix[kept.len().min(long.prefix.len())..];
            let agree = head(&long.prefix, both - 1) == kept && other.starts_with(last);
            return agree.then_some(both);
        }
        (head(&a.prefix, both) == head(&b.prefix, both)).then_some(both)
    }

    /// `file` was read (its fingerprint) or could not be (`None`).
    pub fn done(&self, file: usize, fingerprint: Option<Fingerprint>) {
        self.say(file, |said| {
            // An error before the first line: none to wait for.
            said.first.get_or_insert(None);
            said.done = Some(fingerprint);
        });
    }

    fn say(&self, file: usize, what: impl FnOnce(&mut Said)) {
        if let Ok(mut files) = self.files.lock() {
            if let Some(said) = files.get_mut(file) {
                what(said);
            }
            self.changed.notify_all();
        }
    }

    /// The fingerprints of the files before `file` whose first line is
    /// `file`'s, waiting for each to be read.
    pub fn earlier_heads(&self, file: usize, first: Option<&Chunk>) -> Vec<Fingerprint> {
        let Some(line) = first.and_then(first_line) else {
            return Vec::new();
        };
        let Ok(mut files) = self.files.lock() else {
            return Vec::new();
        };
        let mut heads = Vec::new();
        for earlier in 0..file.min(files.len()) {
            loop {
                let said = &files[earlier];
                let same = said.first.as_ref().map(|f| f.as_deref() == Some(line));
                match (same, &said.done) {
                    (Some(false), _) => break,
                    (Some(true), Some(done)) => {
                        heads.extend(done.clone());
                        break;
                    }
                    _ => match self.changed.wait(files) {
                        Ok(again) => files = again,
                        Err(_) => return heads,
                    },
                }
            }
        }
        heads
    }

    /// The files before `file` whose first line is `file`'s, as read.
    pub fn same_start(&self, file: usize) -> Vec<usize> {
        let Ok(files) = self.files.lock() else {
            return Vec::new();
        };
        let Some(Some(Some(line))) = files.get(file).map(|s| s.first.as_ref()) else {
            return Vec::new();
        };
        (0..file)
            .filter(|&e| matches!(&files[e].first, Some(Some(l)) if l == line))
            .collect()
    }
}

/// First lines kept to compare a later file with one that cannot be read
/// again (`Overlaps::prefixes_agree`), and the most bytes they take.
const PREFIX_LINES: usize = 16;
const PREFIX_BYTES: usize = 64 << 10;

/// The first lines of a chunk that starts a file, each with its line end:
/// up to `PREFIX_LINES` of them within `PREFIX_BYTES`.
fn first_lines(chunk: &Chunk) -> &[u8] {
    if chunk.first_line != 1 {
        return &[];
    }
    let data = &chunk.data[..chunk.data.len().min(PREFIX_BYTES)];
    let end = memchr::memchr_iter(b'\n', data)
        .take(PREFIX_LINES)
        .last()
        .map_or(0, |at| at + 1);
    &data[..end]
}

/// The first line of a chunk that starts a file, with its line end.
fn first_line(chunk: &Chunk) -> Option<&[u8]> {
    let end = memchr::memchr(b'\n', &chunk.data)?;
    (chunk.first_line == 1).then(|| &chunk.data[..=end])
}

/// Whether the log at `path` begins with every line of `head` (its
/// unfinished last line too), read again as its reader read it. A log that
/// cannot be read again (standard input, gone, damaged before the end of
/// `head`; `accesslog::rereadable`) is not known to: `false`.
pub fn is_head_of(head: &Fingerprint, path: &Path) -> bool {
    if !accesslog::rereadable(path) {
        return false;
    }
    let Ok(input) = accesslog::open(path) else {
        return false;
    };
    let mut reader = ChunkReader::new(input);
    let known = std::slice::from_ref(head);
    let mut heads = Heads::new(Reading::within(known));
    while heads.reading.pending() {
        match reader.next_chunk() {
            Some(Ok(chunk)) => {
                heads.feed(&chunk, reader.added_line_end());
                reader.recycler().recycle(chunk.data);
            }
            Some(Err(_)) => return false,
            None => {
                heads.reading.input_ended();
                break;
            }
        }
    }
    heads.reading.matched_lines() >= head.lines_read()
}
