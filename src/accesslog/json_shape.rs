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
//! combined line" needed (`benches/HISTORY.md`).
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
//!
//! A shape is tried settled first: the values that stayed the learned
//! line's in the lines read since are compared as part of the text around
//! them, and only those that changed are read anew. The argument above
//! holds as it stands: a value compared as text is the learned line's
//! scalar in its place.

use super::json_quotes::stops16;
use super::json_scan::{Malformed, Reader, escapes, scalar_end};

/// Scalar values a shape holds at most: a line with more is left to the
/// general reader (a log line holds a few dozen). One bit each in
/// `ShapeMemory::holes`.
const MAX_VALUES: usize = 128;

/// Where a kept value starts or ends, from the learned line: an offset into
/// one of the texts between values (its end, for a value that is a scalar:
/// the text before it ends where it starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    text: u16,
    offset: u32,
}

/// One shape of the learned line: its texts, each a piece of that line,
/// with a value of the line read anew between two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shape {
    /// The texts between values, in order; there is one text more than
    /// there are values (the last closes the object).
    texts: Vec<Text>,
    /// Each kept value's slot in `found`, start and end.
    kept: Vec<(u8, Anchor, Anchor)>,
    /// Where each text starts in the line being read: room kept from line
    /// to line.
    starts: Vec<u32>,
}

/// One text between values, compared with the line's bytes as words: its
/// first eight bytes and its last eight (overlapping the first in a text
/// of fewer than sixteen), so that most texts are two compares with no
/// loop; the bytes between, in a longer text, with the learned line's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Text {
    /// Where it starts in the learned line, and its length.
    from: u32,
    len: u32,
    /// The first eight bytes (all of a shorter text, zeros after), and the
    /// last eight (of a text of eight bytes or more; 0 otherwise).
    head: u64,
    tail: u64,
}

impl Text {
    fn new(basis: &[u8], (start, end): (usize, usize)) -> Option<Text> {
        let text = &basis[start..end];
        let len = text.len();
        Some(Text {
            from: u32::try_from(start).ok()?,
            len: u32::try_from(len).ok()?,
            head: word_at(text, 0),
            tail: if len >= 8 { word_at(text, len - 8) } else { 0 },
        })
    }

    /// Whether `line` holds this text at `at`; `basis` is the learned line.
    #[inline(always)]
    fn is_at(&self, line: &[u8], at: usize, basis: &[u8]) -> bool {
        let len = self.len as usize;
        let Some(here) = line.get(at..at + len) else {
            return false;
        };
        match (here.first_chunk::<8>(), here.last_chunk::<8>()) {
            (Some(head), Some(tail)) => {
                u64::from_le_bytes(*head) == self.head
                    && u64::from_le_bytes(*tail) == self.tail
                    && (len <= 16 || {
                        let from = self.from as usize;
                        basis
                            .get(from..from + len)
                            .is_some_and(|learned| same_middle(here, learned))
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

    fn end(&self) -> usize {
        (self.from + self.len) as usize
    }
}

impl Shape {
    /// The shape of `line` (without blanks around it), which the general
    /// reader read as one object keeping `found`, with every value read
    /// anew; `None` when it holds more values than a shape may, or a kept
    /// value is not in the line.
    fn learn(line: &[u8], found: &[Option<&[u8]>]) -> Option<Shape> {
        u32::try_from(line.len()).ok()?;
        let spans = texts_of(line)?;
        let base = line.as_ptr().addr();
        let mut kept = Vec::new();
        for (slot, value) in found.iter().enumerate() {
            let Some(value) = value else { continue };
            let start = value.as_ptr().addr().checked_sub(base)?;
            let end = start + value.len();
            if end > line.len() {
                return None;
            }
            kept.push((u8::try_from(slot).ok()?, start, end));
        }
        Shape::build(line, &spans, &kept)
    }

    /// The shape whose texts are `spans` of the learned line `basis`,
    /// keeping the values at `kept` (slot, start and end in `basis`).
    fn build(basis: &[u8], spans: &[(usize, usize)], kept: &[(u8, usize, usize)]) -> Option<Shape> {
        // A place in `basis` as an anchor: the text it falls in (values
        // are never empty, so there is at most one).
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
        let kept = kept
            .iter()
            .map(|&(slot, start, end)| Some((slot, anchor(start)?, anchor(end)?)))
            .collect::<Option<Vec<_>>>()?;
        let texts = spans
            .iter()
            .map(|&span| Text::new(basis, span))
            .collect::<Option<Vec<Text>>>()?;
        let starts = vec![0; texts.len()];
        Some(Shape {
            texts,
            kept,
            starts,
        })
    }

    /// This shape, learned from `basis` with every value read anew, with
    /// only the values of `holes` read anew: the others are the learned
    /// line's, compared as part of the texts around them.
    fn settled(&self, basis: &[u8], holes: u128) -> Option<Shape> {
        let mut spans = Vec::new();
        let mut from = 0;
        for (value, pair) in self.texts.windows(2).enumerate() {
            if holes & (1 << value) != 0 {
                spans.push((from, pair[0].end()));
                from = pair[1].from as usize;
            }
        }
        spans.push((from, basis.len()));
        let place = |a: Anchor| self.texts[usize::from(a.text)].from as usize + a.offset as usize;
        let kept: Vec<(u8, usize, usize)> = self
            .kept
            .iter()
            .map(|&(slot, start, end)| (slot, place(start), place(end)))
            .collect();
        Shape::build(basis, &spans, &kept)
    }

    /// The values of the line this shape read last (`read` gave true) that
    /// are not the learned line's, one bit each.
    fn changed(&self, basis: &[u8], line: &[u8]) -> u128 {
        let mut changed = 0;
        for (value, (pair, starts)) in self
            .texts
            .windows(2)
            .zip(self.starts.windows(2))
            .enumerate()
        {
            let was = &basis[pair[0].end()..pair[1].from as usize];
            let is = &line[(starts[0] + pair[0].len) as usize..starts[1] as usize];
            if was != is {
                changed |= 1 << value;
            }
        }
        changed
    }

    /// Reads `line` (without blanks around it) when it has this shape,
    /// keeping in `found` what the general reader would; false, and
    /// `found` untouched, when it has not. `basis` is the learned line.
    #[inline]
    fn read<'a>(&mut self, basis: &[u8], line: &'a [u8], found: &mut [Option<&'a [u8]>]) -> bool {
        if u32::try_from(line.len()).is_err() {
            return false;
        }
        let Some((last, texts)) = self.texts.split_last() else {
            return false;
        };
        let mut at = 0usize;
        for (text, start) in texts.iter().zip(self.starts.iter_mut()) {
            if !text.is_at(line, at, basis) {
                return false;
            }
            // Within the line, whose length fits.
            *start = at as u32;
            match value_end(line, at + text.len as usize) {
                Some(end) => at = end,
                None => return false,
            }
        }
        if !last.is_at(line, at, basis) || at + last.len as usize != line.len() {
            return false;
        }
        if let Some(start) = self.starts.last_mut() {
            *start = at as u32;
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

/// Where each text between scalar values starts and ends in `line`, which
/// the general reader read as one object; `None` past `MAX_VALUES` values.
fn texts_of(line: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut reader = Reader::new(line);
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
    Some(spans)
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

/// Whether two texts of the same length, more than 16 bytes, whose first
/// and last eight bytes are known to be equal, are equal: a text of up to
/// `INLINE` bytes by eight-byte words (the last overlapping the one
/// before), a longer one by the library's compare, whose call costs more
/// than a few words.
#[inline(always)]
fn same_middle(here: &[u8], learned: &[u8]) -> bool {
    const INLINE: usize = 48;
    let len = here.len();
    if learned.len() != len || len <= 16 {
        return here == learned;
    }
    if len > INLINE {
        return here[8..len - 8] == learned[8..len - 8];
    }
    let mut at = 8;
    loop {
        // Past the last whole word: the word that ends where the tail
        // starts.
        let word = at.min(len - 16);
        if word_at(here, word) != word_at(learned, word) {
            return false;
        }
        if word == len - 16 {
            return true;
        }
        at += 8;
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
        // One range check a block: `get` of sixteen bytes, then as an
        // array.
        let block = line
            .get(at..at.wrapping_add(16))
            .and_then(|block| <&[u8; 16]>::try_from(block).ok());
        let found = match block {
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

/// What a reader of one file remembers from line to line: the last line
/// read in full, its shape with every value read anew, and that shape
/// settled, while shapes pay.
#[derive(Debug, Clone, Default)]
pub struct ShapeMemory {
    /// The line learned from.
    basis: Vec<u8>,
    /// Its shape, every value read anew.
    shape: Option<Shape>,
    /// Its shape with the values that stayed the same read as text: only
    /// the `holes` are read anew. A line's values change few at a time —
    /// a Caddy line's TLS details, most headers and the host stay the same
    /// from line to line, its time, address, port, target and size do not
    /// — so that most of the line is compared in long runs.
    settled: Option<Shape>,
    /// The values that were not the learned line's in a line read since,
    /// one bit each.
    holes: u128,
    /// Lines a shape read, and lines it did not.
    hits: u32,
    misses: u32,
}

impl ShapeMemory {
    /// Reads `line` by a remembered shape; `false` when it has another,
    /// or when shapes do not pay.
    #[inline]
    pub(super) fn read<'a>(&mut self, line: &'a [u8], found: &mut [Option<&'a [u8]>]) -> bool {
        if !self.pays() {
            return false;
        }
        let read = self
            .settled
            .as_mut()
            .is_some_and(|settled| settled.read(&self.basis, line, found))
            || self.shape.as_mut().is_some_and(|shape| {
                if !shape.read(&self.basis, line, found) {
                    return false;
                }
                // A value that changed for the first time is read anew
                // from now on: the settled shape is made again (at most
                // once a value, and once after learning).
                let holes = self.holes | shape.changed(&self.basis, line);
                if holes != self.holes || self.settled.is_none() {
                    self.holes = holes;
                    self.settled = shape.settled(&self.basis, holes);
                }
                true
            });
        if read {
            self.hits = self.hits.saturating_add(1);
        }
        read
    }

    /// After the general reader read `line` keeping `found`: learns it
    /// while shapes pay.
    pub(super) fn learn(&mut self, line: &[u8], found: &[Option<&[u8]>]) {
        self.misses = self.misses.saturating_add(1);
        if self.pays() {
            self.shape = Shape::learn(line, found);
            self.basis.clear();
            // Kept only when a shape was learned from it (not from a line
            // of too many values or past u32's length).
            if self.shape.is_some() {
                self.basis.extend_from_slice(line);
            }
            self.settled = None;
            self.holes = 0;
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
