//! Cutting a log into work: takes an `Input` and gives `Chunk`s of about
//! 1 MiB holding whole lines, each knowing the number of its first line, so
//! that workers can parse them in parallel and still name `file:line`
//! (STYLE "Hot path"; SPEC §1, §5 "A gzip file that is corrupt or ends early").
//!
//! Damage (a corrupt or truncated gzip, garbage after the last member, a
//! failing read) ends the stream: every complete line before it is delivered
//! first, then the error. A line longer than `MAX_LINE` is not kept: it
//! becomes an empty line marked as too long, so numbering stays exact and
//! memory stays bounded.

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};

use super::open::{Input, ReadCount};
use crate::error::{Error, Result};

/// The size a chunk is filled to before it is handed out.
pub const CHUNK_SIZE: usize = 1 << 20;

/// The longest line kept, in bytes, not counting its line end. Longer lines
/// are skipped as "line too long": no log format this tool reads writes such
/// lines, and keeping them would let one broken line grow memory at will.
pub const MAX_LINE: usize = 1 << 20;

/// How much is asked of the reader at a time.
pub const READ_SIZE: usize = 128 * 1024;

/// Room for a chunk, a carried-over partial line and one more read.
const BUFFER_SIZE: usize = if CHUNK_SIZE > MAX_LINE {
    CHUNK_SIZE
} else {
    MAX_LINE
} + READ_SIZE;

/// How many used buffers are kept for reuse.
const POOL: usize = 16;

/// Whole lines of a log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// The 1-based number of the first line in `data`.
    pub first_line: u64,
    /// Whole lines, each ending with LF (an LF is added to a last line that
    /// had none). A CR before the LF is kept; `lines` strips it.
    pub data: Vec<u8>,
    /// How many lines `data` holds (its LF count), known from reading.
    pub line_count: u64,
    /// Numbers of the lines that were longer than `MAX_LINE`, in order. Each
    /// stands in `data` as an empty line.
    pub too_long: Vec<u64>,
}

/// One line of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the file.
    pub number: u64,
    /// The text, without LF or CRLF.
    pub text: &'a [u8],
    /// The line was longer than `MAX_LINE` and its text was dropped.
    pub too_long: bool,
}

/// The lines of a chunk, in order.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
    number: u64,
    too_long: &'a [u64],
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let (mut text, rest) = match memchr::memchr(b'\n', self.rest) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &[][..]),
        };
        self.rest = rest;
        if let [head @ .., b'\r'] = text {
            text = head;
        }
        let number = self.number;
        if number == 1 {
            text = without_bom(text);
        }
        self.number += 1;
        let too_long = self.too_long.first() == Some(&number);
        if too_long {
            self.too_long = &self.too_long[1..];
        }
        Some(Line {
            number,
            text,
            too_long,
        })
    }
}

/// A file's first line without the UTF-8 byte-order mark some servers
/// write before it (IIS's UTF-8 W3C logs): the mark is no part of the
/// first field.
pub fn without_bom(first_line: &[u8]) -> &[u8] {
    first_line
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(first_line)
}

impl Chunk {
    /// The lines, numbered, without their line ends.
    pub fn lines(&self) -> Lines<'_> {
        Lines {
            rest: &self.data,
            number: self.first_line,
            too_long: &self.too_long,
        }
    }
}

/// Hands used chunk buffers back to the reader, from any thread.
#[derive(Debug, Clone)]
pub struct Recycler(SyncSender<Vec<u8>>);

impl Recycler {
    /// Gives a used buffer back. Hand it back as it is rather than cleared:
    /// the reader keeps its bytes initialised, and a cleared buffer costs a
    /// fill. When enough buffers wait already, this one is dropped.
    pub fn recycle(&self, data: Vec<u8>) {
        match self.0.try_send(data) {
            Ok(()) | Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

enum State {
    Reading,
    /// Damage was met; the lines before it go out first, then this.
    Failed(Error),
    Done,
}

/// Reads an `Input` chunk by chunk. An iterator of `Result<Chunk>`: after an
/// error it ends.
pub struct ChunkReader {
    input: Input,
    /// The chunk being filled. Its length is always `BUFFER_SIZE`, all of it
    /// initialised; `filled` says how much holds text.
    buf: Vec<u8>,
    filled: usize,
    /// Where the last, unfinished line starts in `buf`.
    line_start: usize,
    /// The number of the first line in `buf`.
    first_line: u64,
    /// How many LFs `buf[..line_start]` holds.
    lines: u64,
    too_long: Vec<u64>,
    /// Inside a line that was too long: drop bytes up to its LF.
    skipping: bool,
    state: State,
    /// The log's last line had no LF and one was added.
    added_line_end: bool,
    returned: Receiver<Vec<u8>>,
    recycler: Recycler,
}

impl ChunkReader {
    pub fn new(input: Input) -> ChunkReader {
        let (sender, returned) = mpsc::sync_channel(POOL);
        ChunkReader {
            input,
            buf: vec![0; BUFFER_SIZE],
            filled: 0,
            line_start: 0,
            first_line: 1,
            lines: 0,
            too_long: Vec::new(),
            skipping: false,
            state: State::Reading,
            added_line_end: false,
            returned,
            recycler: Recycler(sender),
        }
    }

    /// A handle that gives used `Chunk::data` buffers back for reuse.
    pub fn recycler(&self) -> Recycler {
        self.recycler.clone()
    }

    /// How far reading has come, for a progress bar.
    pub fn progress(&self) -> &ReadCount {
        &self.input.progress
    }

    /// The log being read.
    pub fn input(&self) -> &Input {
        &self.input
    }

    /// True once the last chunk was handed out and its last line had no
    /// LF in the log (the chunk's final LF was added).
    pub fn added_line_end(&self) -> bool {
        self.added_line_end
    }

    /// A fresh buffer of `BUFFER_SIZE` initialised bytes, reused if one came
    /// back.
    fn fresh_buffer(&self) -> Vec<u8> {
        match self.returned.try_recv() {
            Ok(mut data) => {
                // Only the part past the old length needs zeroing.
                data.resize(BUFFER_SIZE, 0);
                data
            }
            Err(_) => vec![0; BUFFER_SIZE],
        }
    }

    /// Hands out `buf[..line_start]` and carries the unfinished line over.
    fn take_chunk(&mut self) -> Chunk {
        let mut next = self.fresh_buffer();
        let carry = self.filled - self.line_start;
        next[..carry].copy_from_slice(&self.buf[self.line_start..self.filled]);
        let mut data = std::mem::replace(&mut self.buf, next);
        data.truncate(self.line_start);
        let chunk = Chunk {
            first_line: self.first_line,
            data,
            line_count: self.lines,
            too_long: std::mem::take(&mut self.too_long),
        };
        self.first_line += self.lines;
        self.lines = 0;
        self.filled = carry;
        self.line_start = 0;
        chunk
    }

    /// Takes in `n` new bytes at `buf[filled..]`.
    fn take_in(&mut self, n: usize) {
        let mut start = self.filled;
        let mut end = start + n;
        if self.skipping {
            // Drop the rest of a line that was too long, up to and with its
            // LF: the placeholder already ended that line.
            match memchr::memchr(b'\n', &self.buf[start..end]) {
                None => return,
                Some(i) => {
                    self.buf.copy_within(start + i + 1..end, start);
                    end -= i + 1;
                    self.skipping = false;
                }
            }
        }
        self.filled = end;
        let Some(first) = memchr::memchr(b'\n', &self.buf[start..end]) else {
            if self.filled - self.line_start > MAX_LINE {
                // Keep an empty line in its place, remember its number, and
                // drop the rest of it as it comes.
                self.too_long.push(self.first_line + self.lines);
                self.buf[self.line_start] = b'\n';
                self.filled = self.line_start + 1;
                self.line_start = self.filled;
                self.lines += 1;
                self.skipping = true;
            }
            return;
        };
        // The first new LF ends the line that was unfinished; only that
        // line can be longer than a read.
        let lf = start + first;
        if lf - self.line_start > MAX_LINE {
            self.too_long.push(self.first_line + self.lines);
            self.buf.copy_within(lf..end, self.line_start);
            self.filled -= lf - self.line_start;
            start = self.line_start;
        }
        let fresh = &self.buf[start..self.filled];
        self.lines += memchr::memchr_iter(b'\n', fresh).count() as u64;
        if let Some(last) = memchr::memrchr(b'\n', fresh) {
            self.line_start = start + last + 1;
        }
    }

    /// The next chunk, or the error that ended the log, or `None` at its
    /// end.
    pub fn next_chunk(&mut self) -> Option<Result<Chunk>> {
        loop {
            match self.state {
                State::Done => return None,
                State::Failed(_) => {
                    if self.line_start > 0 {
                        // The unfinished line was cut by the damage: it is
                        // not a line, so it is not delivered.
                        self.filled = self.line_start;
                        return Some(Ok(self.take_chunk()));
                    }
                    return match std::mem::replace(&mut self.state, State::Done) {
                        State::Failed(error) => Some(Err(error)),
                        _ => None,
                    };
                }
                State::Reading => {}
            }
            // A chunk of nothing but lines too long (each kept as an empty
            // line) is not handed out while the next long line fills the
            // buffer: the lines after them join it, so that a log opening
            // with many such lines still has lines to choose its format
            // by. The buffer's read room past `MAX_LINE` bounds how many
            // are held so.
            let only_too_long =
                self.too_long.len() as u64 == self.lines && self.line_start < READ_SIZE / 2;
            if self.filled >= CHUNK_SIZE && self.line_start > 0 && !only_too_long {
                return Some(Ok(self.take_chunk()));
            }
            let room = (BUFFER_SIZE - self.filled).min(READ_SIZE);
            let end = self.filled + room;
            match self.input.reader.read(&mut self.buf[self.filled..end]) {
                Ok(0) => {
                    self.state = State::Done;
                    if self.filled > self.line_start {
                        // A last line without LF is still a line.
                        self.buf[self.filled] = b'\n';
                        self.filled += 1;
                        self.line_start = self.filled;
                        self.lines += 1;
                        self.added_line_end = true;
                    }
                    if self.line_start == 0 {
                        return None;
                    }
                    return Some(Ok(self.take_chunk()));
                }
                Ok(n) => self.take_in(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.state = State::Failed(self.input.read_error(e)),
            }
        }
    }
}

impl Iterator for ChunkReader {
    type Item = Result<Chunk>;

    fn next(&mut self) -> Option<Result<Chunk>> {
        self.next_chunk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accesslog::open::from_reader;
    use std::path::Path;

    fn chunks_of(bytes: &[u8]) -> Vec<Result<Chunk>> {
        let input = from_reader(
            Path::new("t"),
            Box::new(io::Cursor::new(bytes.to_vec())),
            None,
        )
        .unwrap();
        ChunkReader::new(input).collect()
    }

    fn lines_of(bytes: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
        let mut out = Vec::new();
        for chunk in chunks_of(bytes) {
            let chunk = chunk.unwrap();
            assert!(chunk.data.is_empty() || chunk.data.ends_with(b"\n"));
            let lf = memchr::memchr_iter(b'\n', &chunk.data).count() as u64;
            assert_eq!(chunk.line_count, lf);
            for line in chunk.lines() {
                out.push((line.number, line.text.to_vec(), line.too_long));
            }
        }
        out
    }

    #[test]
    fn reader_moves_to_a_thread_and_recycler_is_shared() {
        fn send<T: Send>() {}
        fn sync<T: Send + Sync>() {}
        send::<ChunkReader>();
        send::<Chunk>();
        sync::<Recycler>();
        sync::<crate::accesslog::LogFormat>();
    }

    #[test]
    fn small_inputs() {
        type Case = (&'static [u8], &'static [(u64, &'static [u8])]);
        let cases: &[Case] = &[
            (b"", &[]),
            (b"a", &[(1, b"a")]),
            (b"a\n", &[(1, b"a")]),
            (b"a\nb", &[(1, b"a"), (2, b"b")]),
            (b"a\r\nb\r\n", &[(1, b"a"), (2, b"b")]),
            (b"\n\n", &[(1, b""), (2, b"")]),
            (b"a\rb\n", &[(1, b"a\rb")]),
            (b"\xff\xfe\n", &[(1, b"\xff\xfe")]),
        ];
        for &(input, expected) in cases {
            let got = lines_of(input);
            let expected: Vec<_> = expected
                .iter()
                .map(|&(n, t)| (n, t.to_vec(), false))
                .collect();
            assert_eq!(got, expected, "{input:?}");
        }
    }

    /// A log opening with many lines too long: its first chunk still
    /// holds the lines after them, which its format is chosen by.
    #[test]
    fn lines_too_long_at_the_start_join_the_lines_after_them() {
        let mut text = Vec::new();
        for _ in 0..40 {
            text.extend(std::iter::repeat_n(b'y', MAX_LINE + 10));
            text.push(b'\n');
        }
        text.extend_from_slice(b"a\nb\n");
        let chunks: Vec<Chunk> = chunks_of(&text).into_iter().map(|c| c.unwrap()).collect();
        let first: Vec<(u64, Vec<u8>, bool)> = chunks[0]
            .lines()
            .map(|l| (l.number, l.text.to_vec(), l.too_long))
            .collect();
        assert_eq!(first.len(), 42, "{:?}", chunks.len());
        assert!(
            first[..40]
                .iter()
                .all(|(_, text, long)| *long && text.is_empty())
        );
        assert_eq!(first[40], (41, b"a".to_vec(), false));
        assert_eq!(first[41], (42, b"b".to_vec(), false));
    }

    #[test]
    fn many_chunks_keep_numbering() {
        let mut text = Vec::new();
        for i in 1..=200_000u32 {
            text.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        let chunks: Vec<Chunk> = chunks_of(&text).into_iter().map(|c| c.unwrap()).collect();
        assert!(chunks.len() > 1);
        let mut expected = 1;
        for chunk in &chunks {
            assert_eq!(chunk.first_line, expected);
            for line in chunk.lines() {
                assert_eq!(line.text, format!("line {expected}").as_bytes());
                expected += 1;
            }
        }
        assert_eq!(expected, 200_001);
    }

    #[test]
    fn overlong_lines_are_marked() {
        for size in [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, 3 * MAX_LINE + 17] {
            for tail in [&b"\nz\n"[..], b"\nz", b""] {
                let mut text = b"a\n".to_vec();
                text.extend(std::iter::repeat_n(b'x', size));
                text.extend_from_slice(tail);
                let got = lines_of(&text);
                assert_eq!(got[0], (1, b"a".to_vec(), false));
                let long = size > MAX_LINE;
                assert_eq!(got[1].0, 2);
                assert_eq!(got[1].2, long, "{size}");
                assert_eq!(got[1].1.len(), if long { 0 } else { size });
                if tail.len() > 1 {
                    assert_eq!(got[2], (3, b"z".to_vec(), false));
                    assert_eq!(got.len(), 3);
                } else {
                    assert_eq!(got.len(), 2);
                }
            }
        }
    }

    #[test]
    fn buffers_are_reused() {
        let text = vec![b'y'; 5 * CHUNK_SIZE]
            .chunks(99)
            .flat_map(|c| c.iter().copied().chain(Some(b'\n')))
            .collect::<Vec<u8>>();
        let input = from_reader(
            Path::new("t"),
            Box::new(io::Cursor::new(text.clone())),
            None,
        )
        .unwrap();
        let mut reader = ChunkReader::new(input);
        let recycler = reader.recycler();
        let mut total = Vec::new();
        while let Some(chunk) = reader.next_chunk() {
            let chunk = chunk.unwrap();
            total.extend_from_slice(&chunk.data);
            recycler.recycle(chunk.data);
        }
        assert_eq!(total, text);
    }
}
