//! The shape a JSON log's lines share: takes a line the general reader
//! (`json_scan::extract`) read, with the values it kept, and learns the
//! line's text between its scalar values (the keys, brackets, colons,
//! commas and blanks); gives, for a later line of the same shape, the same
//! kept values after one pass of compares, or nothing, and the general
//! reader decides that line (SPEC §1 `json`).
//!
//! Why: nginx writes every line of a `log_format … escape=json` with the
//! format's own text between the values, so the lines of a file differ
//! only in their values; Caddy and Traefik write most lines of a file
//! alike too. Where the general reader looks up every key and walks every
//! member, this one compares the text between values and finds where each
//! value ends, which issue 11's "a JSON line at no more than twice a
//! combined line" needed (README "JSON logs").
//!
//! Why it reads what the general reader reads: a line it takes is the
//! learned line's text with each scalar value (a string, number, `true`,
//! `false` or `null`) put in place of another scalar, each checked as the
//! general reader checks it (a string's escapes, a number's grammar). Its
//! tokens are then the learned line's, in the same places of the same
//! objects and arrays, so the general reader would keep the values at the
//! same places: a key is text compared byte for byte, and a value can end
//! only where the next text starts (a number is read to its last digit,
//! a string to its closing quote, and the text after a value never starts
//! with what could continue it). `json_shape_tests.rs` holds the two
//! readers equal on lines changed at random.

use super::json_quotes::stops16;
use super::json_scan::{Malformed, Reader, escapes, scalar_end};

/// Scalar values a shape holds at most: a line with more is left to the
/// general reader (a log line holds a few dozen).
const MAX_VALUES: usize = 128;

/// Where a kept value starts or ends, from the learned line: an offset into
/// one of the texts between values (its end, for a value that is a scalar:
/// the text before it ends where it starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    text: u16,
    offset: u32,
}

/// One learned line's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shape {
    /// The texts between values, in order; there is one text more than
    /// there are values (the last closes the object).
    texts: Vec<Text>,
    /// The middle words of the texts longer than 16 bytes, little-endian
    /// (`Text::middle`).
    words: Vec<u64>,
    /// Each kept value's slot in `found`, start and end.
    kept: Vec<(u8, Anchor, Anchor)>,
    /// Where each text starts in the line being read: room kept from line
    /// to line.
    starts: Vec<u32>,
}

/// One text between values, as words compared with the line's: its first
/// eight bytes and its last eight (overlapping the first in a text of
/// fewer than sixteen), and the words between in `Shape::words`, so that
/// most texts of a log line are two compares, with no loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Text {
    len: u32,
    /// The first eight bytes (all of a shorter text, zeros after), and the
    /// last eight (of a text of eight bytes or more; 0 otherwise).
    head: u64,
    tail: u64,
    /// The words from byte 8 on that the last does not cover, in
    /// `Shape::words` from here: `(len - 9) / 8` of them past 16 bytes.
    middle: u32,
}

impl Text {
    fn new(text: &[u8], words: &mut Vec<u64>) -> Option<Text> {
        let len = text.len();
        let middle = u32::try_from(words.len()).ok()?;
        if len > 16 {
            words.extend((8..len - 8).step_by(8).map(|at| word_at(text, at)));
        }
        Some(Text {
            len: u32::try_from(len).ok()?,
            head: word_at(text, 0),
            tail: if len >= 8 { word_at(text, len - 8) } else { 0 },
            middle,
        })
    }

    /// Whether `line` holds this text at `at`.
    #[inline(always)]
    fn is_at(&self, line: &[u8], at: usize, words: &[u64]) -> bool {
        let len = self.len as usize;
        let Some(here) = line.get(at..at + len) else {
            return false;
        };
        match (here.first_chunk::<8>(), here.last_chunk::<8>()) {
            (Some(head), Some(tail)) => {
                u64::from_le_bytes(*head) == self.head
                    && u64::from_le_bytes(*tail) == self.tail
                    && (len <= 16 || {
                        let first = self.middle as usize;
                        (8..len - 8)
                            .step_by(8)
                            .enumerate()
                            .all(|(k, at)| words.get(first + k) == Some(&word_at(here, at)))
                    })
            }
            // Shorter than eight bytes: eight of the line read at once
            // when it has them, masked to the text's length.
            _ => {
                let word = match line.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
                    Some(word) if len > 0 => {
                        u64::from_le_bytes(*word) & (u64::MAX >> (64 - 8 * len))
                    }
                    _ => word_at(here, 0),
                };
                word == self.head
            }
        }
    }
}

impl Shape {
    /// The shape of `line` (without blanks around it), which the general
    /// reader read as one object keeping `found`; `None` when it holds more
    /// values than a shape may, or a kept value is not in the line.
    pub(super) fn learn(line: &[u8], found: &[Option<&[u8]>]) -> Option<Shape> {
        u32::try_from(line.len()).ok()?;
        let mut reader = Reader::new(line);
        // Where each text starts and ends in `line`.
        let mut spans: Vec<(usize, usize)> = Vec::new();
        // Open objects (true) and arrays (false), innermost last.
        let mut open: Vec<bool> = Vec::new();
        let mut key_due = false;
        let mut text_from = 0;
        let mut at = 0;
        while at < line.len() {
            match line[at] {
                b'{' => {
                    open.push(true);
                    key_due = true;
                    at += 1;
                }
                b'[' => {
                    open.push(false);
                    key_due = false;
                    at += 1;
                }
                b'}' | b']' => {
                    open.pop();
                    key_due = false;
                    at += 1;
                }
                b':' => {
                    key_due = false;
                    at += 1;
                }
                b',' => {
                    key_due = open.last() == Some(&true);
                    at += 1;
                }
                b' ' | b'\t' | b'\n' | b'\r' => at += 1,
                b'"' if key_due => at = reader.scalar(at).ok()?,
                _ => {
                    // A value: the text before it ends here.
                    if spans.len() == MAX_VALUES {
                        return None;
                    }
                    spans.push((text_from, at));
                    at = reader.scalar(at).ok()?;
                    text_from = at;
                }
            }
        }
        spans.push((text_from, line.len()));
        // A place in `line` as an anchor: the text it falls in (values are
        // never empty, so there is at most one).
        let anchor = |place: usize| -> Option<Anchor> {
            let i = spans
                .partition_point(|&(start, _)| start <= place)
                .checked_sub(1)?;
            let (start, end) = spans[i];
            (place <= end).then_some(Anchor {
                text: u16::try_from(i).ok()?,
                offset: u32::try_from(place - start).ok()?,
            })
        };
        let base = line.as_ptr().addr();
        let mut kept = Vec::new();
        for (slot, value) in found.iter().enumerate() {
            let Some(value) = value else { continue };
            let start = value.as_ptr().addr().checked_sub(base)?;
            let end = start + value.len();
            if end > line.len() {
                return None;
            }
            kept.push((u8::try_from(slot).ok()?, anchor(start)?, anchor(end)?));
        }
        let mut words = Vec::new();
        let texts = spans
            .iter()
            .map(|&(start, end)| Text::new(&line[start..end], &mut words))
            .collect::<Option<Vec<Text>>>()?;
        let starts = vec![0; texts.len()];
        Some(Shape {
            texts,
            words,
            kept,
            starts,
        })
    }

    /// Reads `line` (without blanks around it) when it has this shape,
    /// keeping in `found` what the general reader would; false, and
    /// `found` untouched, when it has not.
    pub(super) fn read<'a>(&mut self, line: &'a [u8], found: &mut [Option<&'a [u8]>]) -> bool {
        let Ok(len) = u32::try_from(line.len()) else {
            return false;
        };
        let mut at = 0u32;
        let last = self.texts.len() - 1;
        for (i, (text, start)) in self.texts.iter().zip(self.starts.iter_mut()).enumerate() {
            if !text.is_at(line, at as usize, &self.words) {
                return false;
            }
            *start = at;
            // No overflow: the text is within the line.
            at += text.len;
            if i == last {
                break;
            }
            match value_end(line, at as usize) {
                // Within the line, whose length fits.
                Some(end) => at = end as u32,
                None => return false,
            }
        }
        if at != len {
            return false;
        }
        let starts = &self.starts;
        let place = |a: Anchor| (starts[usize::from(a.text)] + a.offset) as usize;
        for &(slot, start, end) in &self.kept {
            if let Some(slot) = found.get_mut(usize::from(slot)) {
                *slot = Some(&line[place(start)..place(end)]);
            }
        }
        true
    }
}

/// The eight bytes of `text` from `at` as a little-endian word, or, when
/// `text` is shorter than eight bytes, all of it, zeros after.
#[inline(always)]
fn word_at(text: &[u8], at: usize) -> u64 {
    match text.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        Some(word) => u64::from_le_bytes(*word),
        None => {
            let mut word = [0u8; 8];
            let rest = text.get(at..).unwrap_or_default();
            word[..rest.len()].copy_from_slice(rest);
            u64::from_le_bytes(word)
        }
    }
}

/// Past the scalar value that starts at `at` (`json_scan::scalar_end`),
/// its strings' ends found by `string_end`; `None` for anything else.
#[inline(always)]
fn value_end(line: &[u8], at: usize) -> Option<usize> {
    scalar_end(line, at, |inside| string_end(line, inside).ok_or(Malformed)).ok()
}

/// The closing quote of the string whose inside starts at `at`: the first
/// quote no backslash escapes (a backslash escapes the byte after it);
/// its escapes, when it holds any, then checked by the general reader's
/// own `escapes`. `None` at a bad escape or no closing quote. The line's
/// quotes and backslashes 16 bytes at a time: most values of a log are
/// shorter.
#[inline(always)]
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    let mut escaped = false;
    loop {
        let found = match line.get(at..).and_then(|rest| rest.first_chunk::<16>()) {
            Some(block) => match stops16(block) {
                0 => {
                    at += 16;
                    continue;
                }
                stops => at + stops.trailing_zeros() as usize,
            },
            // The line's last bytes.
            None => {
                at + line
                    .get(at..)?
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\')?
            }
        };
        if line[found] == b'"' {
            if escaped {
                escapes(&line[start..found]).ok()?;
            }
            return Some(found);
        }
        escaped = true;
        at = found + 2;
    }
}

/// What a reader of one file remembers from line to line: the shape of the
/// last line read in full, while shapes pay.
#[derive(Debug, Clone, Default)]
pub struct ShapeMemory {
    shape: Option<Shape>,
    /// Lines the shape read, and lines it did not.
    hits: u32,
    misses: u32,
}

impl ShapeMemory {
    /// Reads `line` by the remembered shape; `false` when it has another,
    /// or when shapes do not pay.
    #[inline]
    pub(super) fn read<'a>(&mut self, line: &'a [u8], found: &mut [Option<&'a [u8]>]) -> bool {
        let read = self.pays() && self.shape.as_mut().is_some_and(|s| s.read(line, found));
        if read {
            self.hits = self.hits.saturating_add(1);
        }
        read
    }

    /// After the general reader read `line` keeping `found`: learns its
    /// shape while shapes pay.
    pub(super) fn learn(&mut self, line: &[u8], found: &[Option<&[u8]>]) {
        self.misses = self.misses.saturating_add(1);
        if self.pays() {
            self.shape = Shape::learn(line, found);
        }
    }

    /// Whether shapes pay: past the first lines, they must read at least as
    /// many lines as they miss. A line a shape misses costs the try and a
    /// learning on top of the general reader (a Caddy log whose lines
    /// carry one of four header sets in turn was read 5% slower than
    /// without shapes); once they do not pay, the reader of this chunk
    /// stops trying them.
    fn pays(&self) -> bool {
        self.misses <= LEARNING_FREE || self.misses <= self.hits
    }
}

/// Lines learned from at the start whatever the shapes read.
const LEARNING_FREE: u32 = 16;

#[cfg(test)]
#[path = "json_shape_tests.rs"]
mod tests;
