//! Fingerprints of logs already audited (SPEC §6 "State"): takes a log's
//! text as it is read (decompressed, in pieces of any size) and the
//! fingerprints the state holds; gives how many of its first lines are
//! exactly a log audited before, and this log's own fingerprint for the
//! next night. Pure: the reader decides what to do with the answer.
//!
//! Design. A log is a byte string cut into lines by `\n`. Its
//! fingerprint is the number of lines N,
//! the number of bytes B they take, and the SHA-256 of those B bytes:
//! "the first N lines of this file are exactly that log" is then "after
//! N lines this file has read B bytes, and their SHA-256 is the same" —
//! all N lines compared, by content, whatever the file's name or
//! compression. SHA-256 is a running hash, so the hash of every prefix
//! is at hand while reading once; the reading stops at each N the state
//! knows of (a handful) and compares. A fingerprint also keeps
//! checkpoints: the first 64 bits of the hash after 1, 2, 4, 8, … lines.
//! They let a reading drop a candidate at the first checkpoint that
//! differs, so after a few lines the reader knows whether this file can
//! be an older log grown or renamed (`may_match`), without waiting for
//! line N; the final word is always the full hash at line N.
//!
//! A last line without its `\n` may still be being written, so it is no
//! line of N; but it was audited, so the fingerprint keeps it apart as
//! the `tail` (its length and the hash of all B bytes and it). A file
//! read later whose line N + 1 is exactly that tail — ended now, or still
//! not — audited it already: its head is N + 1 lines. A tail that grew
//! (the line was cut mid-write) is a new line, audited whole.
//!
//! How the pipeline uses it: the one reader thread of each file feeds its
//! decompressed chunks, in order, to a [`Reading`] made from the state's
//! fingerprints (through `state::heads`). While a known log may still be
//! its head (`pending`), the reader holds its chunks back, a few MiB at
//! most, then reads the file again; the lines of the head are never sent
//! to the workers, the line numbers of the others still count the whole
//! file, and run.json's `already_audited` counts them. At the end `finish`
//! gives the fingerprint the state keeps.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A log audited before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// N: the lines read.
    pub lines: u64,
    /// B: the bytes those lines take, line ends included.
    pub bytes: u64,
    /// SHA-256 of the B bytes, in hex.
    pub sha256: String,
    /// After 1, 2, 4, … lines (each at most N).
    pub checkpoints: Vec<Checkpoint>,
    /// When a run last audited (or met) this log, for expiry.
    pub audited_ms: i64,
    /// The last line when it had no line end: audited, no part of N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<Tail>,
}

/// A last line without its line end, as audited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tail {
    /// Its bytes.
    pub bytes: u64,
    /// SHA-256 of the B bytes of the lines and the tail's, in hex.
    pub sha256: String,
    /// The tail parsed as a line (its fields read, its fetch judged): a
    /// line that later grew from it (a trailing field the server had not
    /// yet written, `$request_time`, `time-taken`) is the same fetch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub parsed: bool,
}

impl Fingerprint {
    /// The lines of the log as its reader numbers them: N, and the tail.
    pub fn lines_read(&self) -> u64 {
        self.lines + u64::from(self.tail.is_some())
    }
}

/// The first 64 bits of the running hash after `lines` lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    pub lines: u64,
    pub bytes: u64,
    pub prefix: String,
}

/// Lower-case hex, as `sha256sum` writes a digest.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// What a whole reading found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Lines at the head of the file that are exactly a log audited
    /// before (0 if none): the audit starts at the line after.
    pub already_audited: u64,
    /// The known fingerprints that this file starts with (indices into
    /// the slice the reading was made from), longest last.
    pub matched: Vec<usize>,
    /// This file's own fingerprint.
    pub fingerprint: Fingerprint,
}

/// One log being read, against the fingerprints known.
#[derive(Debug, Clone)]
pub struct Reading<'k> {
    known: &'k [Fingerprint],
    /// Candidates still possible, by the line count at which they end.
    ends: BTreeMap<u64, Vec<usize>>,
    hasher: Sha256,
    /// Complete lines (ended by `\n`) taken in so far.
    lines: u64,
    bytes: u64,
    /// The bytes after the last line end: a line not yet complete. It is
    /// no part of a fingerprint, for a line still being written when the
    /// log is read is not yet the line that will be there.
    carry: Vec<u8>,
    next_checkpoint: u64,
    checkpoints: Vec<Checkpoint>,
    matched: Vec<usize>,
    /// Known logs matched through N that have a tail, by N + 1, with the
    /// hash after their N lines: line N + 1 decides.
    tails: BTreeMap<u64, Vec<(usize, Sha256)>>,
    /// Known logs whose tail is line N + 1 of this file too.
    matched_tails: Vec<usize>,
    /// Of those, the ones whose tail parsed and has grown since: the known
    /// log, line N + 1 as it is now, and the tail's length. The caller
    /// says whether the line is still the fetch audited then
    /// (`keep_grown_tails`).
    grown: Vec<(usize, Vec<u8>, usize)>,
    /// Every tail matches the start of line N + 1, parsed or not
    /// (`Reading::within`).
    any_tail_grows: bool,
}

impl<'k> Reading<'k> {
    /// A reading that asks whether each known log lies wholly within this
    /// file's head, read in the same run: a tail cut mid-write (a copy
    /// taken while the server wrote) matches when line N + 1 starts with
    /// it, whether it parsed or not, since this file holds that line
    /// whole and its audit reads all of it.
    pub fn within(known: &'k [Fingerprint]) -> Reading<'k> {
        Reading {
            any_tail_grows: true,
            ..Reading::new(known)
        }
    }

    pub fn new(known: &'k [Fingerprint]) -> Reading<'k> {
        let mut ends: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        // A log that was only an unfinished line: its tail is line 1.
        let mut tails: BTreeMap<u64, Vec<(usize, Sha256)>> = BTreeMap::new();
        for (i, f) in known.iter().enumerate() {
            if f.lines > 0 {
                ends.entry(f.lines).or_default().push(i);
            } else if f.tail.is_some() {
                tails.entry(1).or_default().push((i, Sha256::new()));
            }
        }
        Reading {
            known,
            ends,
            hasher: Sha256::new(),
            lines: 0,
            bytes: 0,
            carry: Vec::new(),
            next_checkpoint: 1,
            checkpoints: Vec::new(),
            matched: Vec::new(),
            grown: Vec::new(),
            tails,
            matched_tails: Vec::new(),
            any_tail_grows: false,
        }
    }

    /// True while some known log may still be a head of this file (or has
    /// been found to be one).
    pub fn may_match(&self) -> bool {
        !self.matched.is_empty()
            || !self.ends.is_empty()
            || !self.tails.is_empty()
            || !self.matched_tails.is_empty()
    }

    /// True while a known log may still be found to be a head of this
    /// file: the reading has not yet passed every candidate's end (its
    /// tail's included).
    pub fn pending(&self) -> bool {
        !self.ends.is_empty() || !self.tails.is_empty()
    }

    /// The complete lines taken in so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Lines at the head of the file known so far to be a log audited
    /// before: the longest match found yet.
    pub fn matched_lines(&self) -> u64 {
        let lines = self.matched.iter().map(|&i| self.known[i].lines);
        let tails = self.matched_tails.iter().map(|&i| self.known[i].lines + 1);
        lines.chain(tails).max().unwrap_or(0)
    }

    /// Keeps as audited a grown tail only when `same` says the line as it
    /// is now (second) is the fetch its unfinished text (first) was read
    /// as: a trailing field the audit does not read was written since
    /// (nginx `$request_time`, IIS `time-taken`). A line whose growth
    /// changed what the audit reads (a user agent cut short, now a
    /// crawler's) is a new line, audited whole (SPEC §6: "exactly the N
    /// lines").
    pub fn keep_grown_tails(&mut self, same: impl Fn(&[u8], &[u8]) -> bool) {
        for (i, line, len) in std::mem::take(&mut self.grown) {
            if !same(&line[..len], &line) {
                self.matched_tails.retain(|&j| j != i);
            }
        }
    }

    /// The next line count at which the reading must stop and look.
    fn next_stop(&self) -> u64 {
        let end = self.ends.keys().next().copied().unwrap_or(u64::MAX);
        let tail = self.tails.keys().next().copied().unwrap_or(u64::MAX);
        end.min(tail).min(self.next_checkpoint)
    }

    /// Takes the next piece of the file's text.
    pub fn feed(&mut self, mut text: &[u8]) {
        if !self.carry.is_empty() {
            let Some(lf) = memchr::memchr(b'\n', text) else {
                self.carry.extend_from_slice(text);
                return;
            };
            let mut line = std::mem::take(&mut self.carry);
            line.extend_from_slice(&text[..=lf]);
            self.take_lines(&line);
            text = &text[lf + 1..];
        }
        match memchr::memrchr(b'\n', text) {
            Some(last) => {
                self.take_lines(&text[..=last]);
                self.carry.extend_from_slice(&text[last + 1..]);
            }
            None => self.carry.extend_from_slice(text),
        }
    }

    /// Takes in whole lines: `text` ends with `\n`.
    fn take_lines(&mut self, mut text: &[u8]) {
        while !text.is_empty() {
            let stop = self.next_stop();
            // Lines still to go before the stop; scan only that far.
            let wanted = stop - self.lines;
            let mut cut = None;
            let mut seen = 0u64;
            for pos in memchr::memchr_iter(b'\n', text) {
                seen += 1;
                if seen == wanted {
                    cut = Some(pos + 1);
                    break;
                }
            }
            match cut {
                Some(cut) => {
                    // The last stop was line N (`tails` are set there), so
                    // this piece is line N + 1 and its line end.
                    if let Some(list) = self.tails.remove(&stop) {
                        self.compare_tails(list, &text[..cut - 1]);
                    }
                    self.hasher.update(&text[..cut]);
                    self.bytes += cut as u64;
                    self.lines = stop;
                    text = &text[cut..];
                    self.look();
                }
                None => {
                    self.hasher.update(text);
                    self.bytes += text.len() as u64;
                    self.lines += seen;
                    text = &[];
                }
            }
        }
    }

    /// At a line end that is a stop: records a checkpoint, drops the
    /// candidates it rules out, and compares those that end here.
    fn look(&mut self) {
        let digest = self.hasher.clone().finalize();
        if self.lines == self.next_checkpoint {
            let prefix = hex(&digest[..8]);
            let here = (self.lines, self.bytes);
            let known = self.known;
            for list in self.ends.values_mut() {
                list.retain(|&i| {
                    known[i]
                        .checkpoints
                        .iter()
                        .find(|c| c.lines == here.0)
                        .is_some_and(|c| c.bytes == here.1 && c.prefix == prefix)
                });
            }
            self.ends.retain(|_, list| !list.is_empty());
            self.checkpoints.push(Checkpoint {
                lines: self.lines,
                bytes: self.bytes,
                prefix,
            });
            self.next_checkpoint = self.next_checkpoint.saturating_mul(2);
        }
        if let Some(list) = self.ends.remove(&self.lines) {
            let full = hex(&digest);
            for i in list {
                let f = &self.known[i];
                if f.bytes == self.bytes && f.sha256 == full {
                    self.matched.push(i);
                    if f.tail.is_some() {
                        self.tails
                            .entry(self.lines + 1)
                            .or_default()
                            .push((i, self.hasher.clone()));
                    }
                }
            }
        }
    }

    /// Line N + 1 of this file, without its line end, against the tails
    /// of the known logs matched through N: the same bytes, or, for a
    /// tail that parsed, the same bytes and more after them.
    fn compare_tails(&mut self, list: Vec<(usize, Sha256)>, line: &[u8]) {
        for (i, mut hasher) in list {
            let Some(tail) = &self.known[i].tail else {
                continue;
            };
            let Ok(len) = usize::try_from(tail.bytes) else {
                continue;
            };
            let fits = if tail.parsed || self.any_tail_grows {
                line.len() >= len
            } else {
                line.len() == len
            };
            if !fits {
                continue;
            }
            hasher.update(&line[..len]);
            if hex(&hasher.finalize()) == tail.sha256 {
                self.matched_tails.push(i);
                if line.len() > len {
                    self.grown.push((i, line.to_vec(), len));
                }
            }
        }
    }

    /// Says the file has no more text: a tail due at the line after the
    /// last whole one is compared with the unfinished line, and nothing
    /// is pending any more.
    pub fn input_ended(&mut self) {
        let carry = std::mem::take(&mut self.carry);
        if let Some(list) = self.tails.remove(&(self.lines + 1)) {
            self.compare_tails(list, &carry);
        }
        self.tails.clear();
        self.carry = carry;
    }

    /// The end of the file: what it matched, and its fingerprint — its
    /// complete lines, and apart from them a last line without its end
    /// (so a log met again once that line is finished still matches up to
    /// it, and knows that line was audited).
    pub fn finish(mut self, audited_ms: i64) -> Finished {
        // Candidates longer than the file cannot match.
        self.ends.clear();
        self.input_ended();
        let carry = std::mem::take(&mut self.carry);
        let tail = (!carry.is_empty()).then(|| {
            let mut hasher = self.hasher.clone();
            hasher.update(&carry);
            Tail {
                bytes: carry.len() as u64,
                sha256: hex(&hasher.finalize()),
                // The reader cannot tell; the pipeline says, from the
                // scan's tally.
                parsed: false,
            }
        });
        let already_audited = self.matched_lines();
        let sha256 = hex(&self.hasher.finalize());
        self.matched.extend(self.matched_tails.iter().copied());
        self.matched
            .sort_by_key(|&i| (self.known[i].lines, std::cmp::Reverse(i)));
        self.matched.dedup();
        Finished {
            already_audited,
            matched: self.matched,
            fingerprint: Fingerprint {
                lines: self.lines,
                bytes: self.bytes,
                sha256,
                checkpoints: self.checkpoints,
                audited_ms,
                tail,
            },
        }
    }
}

/// Fingerprints one whole text (for tests and small inputs).
pub fn of_text(known: &[Fingerprint], text: &[u8], audited_ms: i64) -> Finished {
    let mut reading = Reading::new(known);
    reading.feed(text);
    reading.finish(audited_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(range: std::ops::Range<u32>) -> Vec<u8> {
        range
            .flat_map(|i| {
                format!("10.0.0.1 - - [line {i}] \"GET /{i} HTTP/1.1\" 200 1\n").into_bytes()
            })
            .collect()
    }

    /// Feeds in pieces of every size from 1 byte up, so no cut position
    /// changes the answer.
    fn read_in_pieces(known: &[Fingerprint], text: &[u8], piece: usize) -> Finished {
        let mut reading = Reading::new(known);
        for chunk in text.chunks(piece.max(1)) {
            reading.feed(chunk);
        }
        reading.finish(0)
    }

    #[test]
    fn counts_lines_and_bytes_like_a_log_reader() {
        // (text, complete lines, the bytes they take)
        let cases: [(&[u8], u64, usize); 6] = [
            (b"", 0, 0),
            (b"a\n", 1, 2),
            (b"a\nb", 1, 2),
            (b"a\nb\n", 2, 4),
            (b"\n\n\n", 3, 3),
            (b"no line end", 0, 0),
        ];
        for (text, lines, bytes) in cases {
            for piece in 1..=4 {
                let f = read_in_pieces(&[], text, piece).fingerprint;
                assert_eq!(f.lines, lines, "{text:?} {piece}");
                assert_eq!(f.bytes, bytes as u64, "{text:?}");
                assert_eq!(f.sha256, hex(&Sha256::digest(&text[..bytes])), "{text:?}");
            }
        }
    }

    #[test]
    fn checkpoints_at_powers_of_two() {
        let f = of_text(&[], &lines(0..300), 0).fingerprint;
        let at: Vec<u64> = f.checkpoints.iter().map(|c| c.lines).collect();
        assert_eq!(at, vec![1, 2, 4, 8, 16, 32, 64, 128, 256]);
    }

    #[test]
    fn a_log_seen_again_a_grown_log_and_a_stranger() {
        let night1 = lines(0..100);
        let first = of_text(&[], &night1, 0);
        assert_eq!(first.already_audited, 0);
        let known = vec![first.fingerprint];
        let mut grown = night1.clone();
        grown.extend(lines(100..150));
        let mut changed = night1.clone();
        changed[night1.len() - 3] = b'X';
        let mut shorter = night1.clone();
        shorter.truncate(night1.len() - 40);
        // (what, text, lines already audited)
        let cases: Vec<(&str, Vec<u8>, u64)> = vec![
            (
                "the same log renamed (or decompressed from gzip)",
                night1.clone(),
                100,
            ),
            ("the same log grown by 50 lines", grown, 100),
            ("one byte of the last line differs", changed, 0),
            ("a log shorter than the one audited", shorter, 0),
            ("another log", lines(1000..1100), 0),
            ("an empty log", Vec::new(), 0),
            (
                "the first line lost its line end",
                {
                    let mut t = night1.clone();
                    let nl = t.iter().position(|&b| b == b'\n').unwrap();
                    t.remove(nl);
                    t
                },
                0,
            ),
        ];
        for (what, text, expected) in cases {
            for piece in [1, 7, 64, 4096, usize::MAX] {
                let got = read_in_pieces(&known, &text, piece);
                assert_eq!(got.already_audited, expected, "{what}, pieces of {piece}");
                assert_eq!(got.matched.is_empty(), expected == 0, "{what}");
            }
        }
    }

    #[test]
    fn the_longest_head_known_wins() {
        let a = lines(0..10);
        let mut b = a.clone();
        b.extend(lines(10..40));
        let mut c = b.clone();
        c.extend(lines(40..41));
        let known = vec![
            of_text(&[], &b, 1).fingerprint,
            of_text(&[], &a, 2).fingerprint,
        ];
        let got = of_text(&known, &c, 3);
        assert_eq!(got.already_audited, 40);
        assert_eq!(got.matched, vec![1, 0]);
    }

    /// A last line without its end was audited: met again, ended or
    /// still not, it is not audited again; grown (it was cut mid-write),
    /// it is a new line.
    #[test]
    fn a_last_line_without_its_end_is_audited_once() {
        let text = b"a\nb\nc".to_vec();
        let known = vec![of_text(&[], &text, 0).fingerprint];
        assert_eq!(known[0].lines, 2);
        assert_eq!(known[0].lines_read(), 3);
        // (what, text, lines already audited)
        let cases: [(&str, &[u8], u64); 7] = [
            ("the same, still without its end", b"a\nb\nc", 3),
            ("the line ended", b"a\nb\nc\n", 3),
            ("the line ended, and more after", b"a\nb\nc\nd\ne", 3),
            ("the line ended with CRLF", b"a\nb\nc\r\nd\n", 2),
            ("the line was cut mid-write", b"a\nb\ncd\n", 2),
            ("the line is gone", b"a\nb\n", 2),
            ("a stranger", b"a\nbc\n", 0),
        ];
        for (what, text, expected) in cases {
            for piece in [1, 2, 3, 5, usize::MAX] {
                let mut reading = Reading::new(&known);
                for chunk in text.chunks(piece) {
                    reading.feed(chunk);
                }
                reading.input_ended();
                assert_eq!(
                    reading.matched_lines(),
                    expected,
                    "{what}, pieces of {piece}"
                );
                assert!(!reading.pending(), "{what}");
                let got = read_in_pieces(&known, text, piece);
                assert_eq!(got.already_audited, expected, "{what}, pieces of {piece}");
            }
        }
        // Its own fingerprint keeps the tail: the next night knows it too.
        let again = of_text(&known, b"a\nb\nc\nd", 0).fingerprint;
        assert_eq!((again.lines, again.lines_read()), (3, 4));
        assert_eq!(of_text(&[again], b"a\nb\nc\nd\n", 0).already_audited, 4);
        // A log that was only an unfinished line.
        let lone = vec![of_text(&[], b"only", 0).fingerprint];
        assert_eq!(lone[0].lines_read(), 1);
        assert_eq!(of_text(&lone, b"only\nnext\n", 0).already_audited, 1);
        assert_eq!(of_text(&lone, b"only", 0).already_audited, 1);
        assert_eq!(of_text(&lone, b"onlyx\n", 0).already_audited, 0);
        // A doctored tail hash matches nothing past the lines.
        let mut fake = known[0].clone();
        if let Some(tail) = &mut fake.tail {
            tail.sha256 = "0".repeat(64);
        }
        assert_eq!(of_text(&[fake], b"a\nb\nc\n", 0).already_audited, 2);
    }

    /// A tail that parsed and then grew (the server had not yet written a
    /// trailing field) is the line audited before; one that did not parse
    /// and grew is a new line.
    #[test]
    fn a_tail_that_parsed_may_have_grown() {
        let mut known = of_text(&[], b"a\nb\nGET /x 200", 0).fingerprint;
        let grown: &[u8] = b"a\nb\nGET /x 200 0.013\nnext\n";
        assert_eq!(
            of_text(std::slice::from_ref(&known), grown, 0).already_audited,
            2
        );
        if let Some(tail) = &mut known.tail {
            tail.parsed = true;
        }
        let known = [known];
        assert_eq!(of_text(&known, grown, 0).already_audited, 3);
        assert_eq!(of_text(&known, b"a\nb\nGET /x 200\n", 0).already_audited, 3);
        assert_eq!(
            of_text(&known, b"a\nb\nGET /y 200 0.1\n", 0).already_audited,
            2
        );
        assert_eq!(of_text(&known, b"a\nb\nGET /x 20\n", 0).already_audited, 2);
    }

    #[test]
    fn checkpoints_rule_out_a_stranger_early() {
        let night1 = lines(0..10_000);
        let known = vec![of_text(&[], &night1, 0).fingerprint];
        let mut reading = Reading::new(&known);
        reading.feed(&lines(5000..5004));
        assert!(!reading.may_match());
        let mut reading = Reading::new(&known);
        reading.feed(&lines(0..4));
        assert!(reading.may_match());
    }

    #[test]
    fn a_doctored_checkpoint_cannot_make_a_match() {
        // The final word is the full hash: equal checkpoints alone are not
        // enough.
        let night1 = lines(0..8);
        let mut fake = of_text(&[], &night1, 0).fingerprint;
        fake.sha256 = "0".repeat(64);
        assert_eq!(of_text(&[fake], &night1, 0).already_audited, 0);
    }
}
