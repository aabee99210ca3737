//! One pass over the JSON object of a log line that keeps only the values
//! of the mapped keys: takes the line and the mapping's tree of keys
//! (dotted paths as nested `Node`s, and for a custom mapping also as one
//! flat key) and gives, for each mapped leaf, the
//! raw text of its value as the line writes it (a string with its quotes,
//! still escaped), borrowed from the line (SPEC §1 `json`).
//!
//! Why not a crate: serde_json (walking the mapped keys with borrowed raw
//! values), simd-json and sonic-rs all measured slower on a Caddy line
//! (`benches/HISTORY.md`): they check or build what the audit never reads.
//! This reader checks the grammar of the structure (objects, arrays,
//! commas and colons, literals, numbers, escapes) but not what a string
//! holds between its quotes. Where each string ends comes from
//! `json_quotes`, which marks the unescaped quotes 64 bytes at a time;
//! the escapes of a string are checked only when it holds a backslash.
//! A key is compared only when a mapped key at its level has its length
//! (a bitmask a level), then by its first eight bytes in one word.
//! Values it keeps are checked by the caller (UTF-8, type); a key written
//! with escapes is decoded by serde_json, the rare case.
//! `json_scan_tests.rs` holds it against serde_json's full parse.

use super::json_quotes::Quotes;

/// How deep objects and arrays may nest, as serde_json allows: a line of
/// brackets never exhausts the stack.
const MAX_DEPTH: usize = 128;

/// The mapped keys of one level of nesting. A key of the line is looked
/// up by its length and its first and last bytes (`slot`) in a table, not
/// searched for: nginx's schema names thirteen keys at its one level, and
/// most keys of a line have the length of one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Level {
    pub nodes: Vec<Node>,
    /// The lengths of the keys (`length_bit`), so that a key of the line
    /// none has the length of is passed by with one test.
    lengths: u64,
    /// By `slot`: one more than the index of the first node of that slot,
    /// 0 for none.
    slots: [u8; SLOTS],
    /// By node: one more than the index of the next node of its slot.
    next: Vec<u8>,
}

/// Entries of a level's table.
const SLOTS: usize = 64;

/// A key's entry in a level's table, from its length and first and last
/// bytes: keys that share all three share an entry, and are told apart
/// by `Node::names`.
#[inline(always)]
fn slot(key: &[u8]) -> usize {
    let (first, last) = match key {
        [] => (0, 0),
        [first, .., last] => (usize::from(*first), usize::from(*last)),
        [only] => (usize::from(*only), usize::from(*only)),
    };
    (key.len() ^ (first << 1) ^ (last * 3)) % SLOTS
}

impl Default for Level {
    fn default() -> Level {
        Level {
            nodes: Vec::new(),
            lengths: 0,
            slots: [0; SLOTS],
            next: Vec::new(),
        }
    }
}

impl Level {
    /// The node of `key`, as a line writes it without escapes and whose
    /// first eight bytes are `key_prefix` (`prefix`).
    #[inline(always)]
    fn find(&self, key: &[u8], key_prefix: u64) -> Option<&Node> {
        let mut at = self.slots[slot(key)];
        while let Some(index) = usize::from(at).checked_sub(1) {
            let node = self.nodes.get(index)?;
            if node.names(key, key_prefix) {
                return Some(node);
            }
            at = self.next.get(index).copied().unwrap_or(0);
        }
        None
    }

    /// Whether a key of the line with `key`'s length may be mapped here:
    /// most keys of a line are not the mapping's, and most of those differ
    /// in length from every key it names at their level.
    #[inline(always)]
    fn may_hold(&self, key: &[u8]) -> bool {
        self.lengths & length_bit(key.len()) != 0
    }

    /// Builds the table again after a node was added. The index of a
    /// node fits a byte: a mapping names at most a few dozen keys.
    fn index(&mut self) -> Result<(), String> {
        if self.nodes.len() >= usize::from(u8::MAX) {
            return Err("a JSON mapping names too many keys at one level".into());
        }
        self.lengths = self
            .nodes
            .iter()
            .fold(0, |bits, node| bits | length_bit(node.key.len()));
        self.slots = [0; SLOTS];
        self.next = vec![0; self.nodes.len()];
        // From the last node to the first, so that each slot's chain
        // runs in the mapping's order.
        for (index, node) in self.nodes.iter().enumerate().rev() {
            let entry = &mut self.slots[slot(node.key.as_bytes())];
            self.next[index] = *entry;
            *entry = index as u8 + 1;
        }
        Ok(())
    }
}

/// A key of the mapping at one level of nesting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Node {
    pub key: Box<str>,
    /// The key's first eight bytes (fewer, zeros after), to compare with
    /// a key of the line in one word.
    prefix: u64,
    /// The key's last eight bytes when it is longer than eight: with the
    /// prefix, the whole key of up to sixteen bytes in two words.
    suffix: u64,
    /// Where its value is kept, when it is a mapped field.
    pub leaf: Option<usize>,
    pub children: Level,
}

/// Adds a dotted path to the tree.
pub(super) fn insert(level: &mut Level, path: &str, leaf: usize) -> Result<(), String> {
    let (key, rest) = match path.split_once('.') {
        Some((key, rest)) => (key, Some(rest)),
        None => (path, None),
    };
    let node = node_of(level, key)?;
    match rest {
        Some(rest) => insert(&mut node.children, rest, leaf),
        None if node.leaf.is_some() => Err(format!("{path:?} is named twice in the mapping")),
        None => {
            node.leaf = Some(leaf);
            Ok(())
        }
    }
}

/// Adds a dotted path as one key of the top level, dots and all, for the
/// same leaf as its nested reading: a line that writes `"url.original"`
/// flat (as Elastic's ECS loggers do) gives the value that
/// `{"url":{"original":…}}` would.
pub(super) fn insert_flat(level: &mut Level, path: &str, leaf: usize) -> Result<(), String> {
    let node = node_of(level, path)?;
    if node.leaf.is_some() {
        return Err(format!("{path:?} is named twice in the mapping"));
    }
    node.leaf = Some(leaf);
    Ok(())
}

/// The node of `key` at `level`, added when missing.
fn node_of<'l>(level: &'l mut Level, key: &str) -> Result<&'l mut Node, String> {
    let at = match level.nodes.iter().position(|n| &*n.key == key) {
        Some(at) => at,
        None => {
            level.nodes.push(Node {
                key: key.into(),
                prefix: prefix(key.as_bytes()),
                suffix: suffix(key.as_bytes()),
                leaf: None,
                children: Level::default(),
            });
            level.index()?;
            level.nodes.len() - 1
        }
    };
    Ok(&mut level.nodes[at])
}

impl Node {
    /// Whether `key`, as a line writes it without escapes and whose
    /// `prefix` is `key_prefix`, is this node's.
    #[inline(always)]
    fn names(&self, key: &[u8], key_prefix: u64) -> bool {
        // Keys of up to sixteen bytes are two words compared, no call.
        let own = self.key.as_bytes();
        if own.len() != key.len() || self.prefix != key_prefix {
            return false;
        }
        match key.last_chunk::<8>() {
            Some(last) if key.len() > 8 => {
                self.suffix == u64::from_le_bytes(*last)
                    && (key.len() <= 16 || own[8..key.len() - 8] == key[8..key.len() - 8])
            }
            _ => true,
        }
    }
}

/// One bit for a key's length; keys of 63 bytes and more share the last.
#[inline(always)]
fn length_bit(len: usize) -> u64 {
    1u64 << len.min(63)
}

/// The first eight bytes of `key` in a word, zeros past its end.
#[inline]
fn prefix(key: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let len = key.len().min(8);
    word[..len].copy_from_slice(&key[..len]);
    u64::from_le_bytes(word)
}

/// The last eight bytes of `key` in a word when it is longer than eight;
/// 0 otherwise (`prefix` holds it all).
fn suffix(key: &[u8]) -> u64 {
    match key.last_chunk::<8>() {
        Some(last) if key.len() > 8 => u64::from_le_bytes(*last),
        _ => 0,
    }
}

/// The line is no well-formed JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Malformed;

/// Reads `line`, which must be one JSON object and nothing else but
/// blanks, keeping in `found[leaf]` the raw value of every mapped key (the
/// last one when a key is written twice).
pub(super) fn extract<'a>(
    line: &'a [u8],
    tree: &Level,
    found: &mut [Option<&'a [u8]>],
) -> Result<(), Malformed> {
    let mut reader = Reader::new(line);
    let (at, byte) = reader.token(0);
    if byte != b'{' {
        return Err(Malformed);
    }
    let at = reader.object(at + 1, tree, found, 1)?;
    if reader.token(at).0 == line.len() {
        Ok(())
    } else {
        Err(Malformed)
    }
}

/// The raw text of the first element of the array `raw` (as `extract`
/// gave it, so already checked); `None` for an empty array.
pub(super) fn first_element(raw: &[u8]) -> Result<Option<&[u8]>, Malformed> {
    let mut reader = Reader::new(raw);
    let (at, byte) = reader.token(0);
    if byte != b'[' {
        return Err(Malformed);
    }
    let (start, first) = reader.token(at + 1);
    if first == b']' {
        return Ok(None);
    }
    let end = reader.skip(start, first, 1)?;
    Ok(Some(&raw[start..end]))
}

/// The line and where its strings end. Every step takes the place it
/// reads from and gives the place after what it read, so that the place
/// stays in a register rather than in memory.
pub(super) struct Reader<'a> {
    text: &'a [u8],
    quotes: Quotes<'a>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(text: &'a [u8]) -> Reader<'a> {
        Reader {
            text,
            quotes: Quotes::new(text),
        }
    }

    /// The byte at `at`, or 0 past the end: no token starts with 0, so
    /// the end of the text is refused wherever a token is due.
    #[inline(always)]
    fn byte(&self, at: usize) -> u8 {
        self.text.get(at).copied().unwrap_or(0)
    }

    /// The next token from `at` on, past blanks: where it is and its first
    /// byte (0 past the end). Most tokens follow the one before without a
    /// blank, and the byte looked at for blanks is the one given.
    #[inline(always)]
    fn token(&self, mut at: usize) -> (usize, u8) {
        let mut byte = self.byte(at);
        if byte > b' ' {
            return (at, byte);
        }
        while let b' ' | b'\t' | b'\n' | b'\r' = byte {
            at += 1;
            byte = self.byte(at);
        }
        (at, byte)
    }

    /// The members of an object that holds mapped keys, from past its `{`
    /// to past its `}`.
    fn object(
        &mut self,
        at: usize,
        level: &Level,
        found: &mut [Option<&'a [u8]>],
        depth: usize,
    ) -> Result<usize, Malformed> {
        let (mut at, mut byte) = self.token(at);
        if byte == b'}' {
            return Ok(at + 1);
        }
        loop {
            if byte != b'"' {
                return Err(Malformed);
            }
            let quoted_from = at;
            let (end, escaped) = self.string(at + 1)?;
            let key = &self.text[at + 1..end];
            let node = if escaped {
                decoded(level, &self.text[quoted_from..end + 1])
            } else if !level.may_hold(key) {
                None
            } else {
                let key_prefix = match self.text[at + 1..].first_chunk::<8>() {
                    // The eight bytes from the key's start, most often
                    // there (the key is followed by at least `":` and a
                    // value): masked to the key's length.
                    Some(word) if key.len() < 8 => {
                        u64::from_le_bytes(*word) & ((1u64 << (8 * key.len())) - 1)
                    }
                    Some(word) => u64::from_le_bytes(*word),
                    None => prefix(key),
                };
                level.find(key, key_prefix)
            };
            let (start, first) = self.colon(end + 1)?;
            let end = match (node, first) {
                // Most values are strings: read here, without the
                // skipper's set-up.
                (_, b'"') => self.string(start + 1)?.0 + 1,
                (Some(node), b'{') if !node.children.nodes.is_empty() => {
                    if depth >= MAX_DEPTH {
                        return Err(Malformed);
                    }
                    self.object(start + 1, &node.children, found, depth + 1)?
                }
                // Arrays of one string (Caddy's headers) read here too;
                // from any other element on, the skipper reads the rest.
                (_, b'[') => {
                    if depth >= MAX_DEPTH {
                        return Err(Malformed);
                    }
                    let (inner, inner_byte) = self.token(start + 1);
                    match inner_byte {
                        b']' => inner + 1,
                        b'"' => {
                            let after = self.string(inner + 1)?.0 + 1;
                            match self.token(after) {
                                (close, b']') => close + 1,
                                (comma, b',') => {
                                    let (at, byte) = self.token(comma + 1);
                                    self.skip_in(at, byte, 0, 1, depth)?
                                }
                                _ => return Err(Malformed),
                            }
                        }
                        _ => self.skip_in(inner, inner_byte, 0, 1, depth)?,
                    }
                }
                // Numbers and literals read here as well: the skipper's
                // set-up costs more than they do.
                (_, b'-' | b'0'..=b'9') => self.number(start)?,
                (_, b't') => self.literal(start, b"true")?,
                (_, b'f') => self.literal(start, b"false")?,
                (_, b'n') => self.literal(start, b"null")?,
                _ => self.skip(start, first, depth)?,
            };
            if let Some(&Node {
                leaf: Some(leaf), ..
            }) = node
                && let Some(slot) = found.get_mut(leaf)
            {
                *slot = Some(&self.text[start..end]);
            }
            let (next, next_byte) = self.token(end);
            match next_byte {
                b',' => (at, byte) = self.token(next + 1),
                b'}' => return Ok(next + 1),
                _ => return Err(Malformed),
            }
        }
    }

    /// Past a `:` and the blanks around it, from the blanks before it: the
    /// token after it and its first byte.
    #[inline(always)]
    fn colon(&self, at: usize) -> Result<(usize, u8), Malformed> {
        let (at, byte) = self.token(at);
        if byte != b':' {
            return Err(Malformed);
        }
        Ok(self.token(at + 1))
    }

    /// Past a key, from its opening quote, and the `:` after it: the token
    /// after it and its first byte.
    #[inline(always)]
    fn key(&mut self, (at, byte): (usize, u8)) -> Result<(usize, u8), Malformed> {
        if byte != b'"' {
            return Err(Malformed);
        }
        let (end, _) = self.string(at + 1)?;
        self.colon(end + 1)
    }

    /// One value that holds no mapped key, from its first byte `byte` at
    /// `at` (after blanks) to past its last, its grammar checked as
    /// `object` would: one loop with a stack of bits (1 an object, 0 an
    /// array) for what is open, rather than a call for each level, since
    /// most of a line is skipped. `depth` is how deeply the value is
    /// nested already.
    fn skip(&mut self, at: usize, byte: u8, depth: usize) -> Result<usize, Malformed> {
        self.skip_in(at, byte, 0, 0, depth)
    }

    /// `skip` from a value due within `levels` objects and arrays already
    /// open (`open` as `skip` keeps it), to past the last of them.
    fn skip_in(
        &mut self,
        mut at: usize,
        mut byte: u8,
        mut open: u128,
        mut levels: usize,
        depth: usize,
    ) -> Result<usize, Malformed> {
        loop {
            // A value is due, at `at`, starting with `byte`.
            let mut end = match byte {
                b'"' => self.string(at + 1)?.0 + 1,
                bracket @ (b'{' | b'[') => {
                    if depth + levels >= MAX_DEPTH {
                        return Err(Malformed);
                    }
                    let object = bracket == b'{';
                    let close = if object { b'}' } else { b']' };
                    let inner = self.token(at + 1);
                    if inner.1 == close {
                        inner.0 + 1
                    } else {
                        open = open << 1 | u128::from(object);
                        levels += 1;
                        (at, byte) = if object { self.key(inner)? } else { inner };
                        continue;
                    }
                }
                b't' => self.literal(at, b"true")?,
                b'f' => self.literal(at, b"false")?,
                b'n' => self.literal(at, b"null")?,
                b'-' | b'0'..=b'9' => self.number(at)?,
                _ => return Err(Malformed),
            };
            // A value ended: close what it ends, until a comma asks for
            // the next.
            loop {
                if levels == 0 {
                    return Ok(end);
                }
                let (next, next_byte) = self.token(end);
                let object = open & 1 == 1;
                match (next_byte, object) {
                    (b',', _) => {
                        let inner = self.token(next + 1);
                        (at, byte) = if object { self.key(inner)? } else { inner };
                        break;
                    }
                    (b'}', true) | (b']', false) => {
                        end = next + 1;
                        open >>= 1;
                        levels -= 1;
                    }
                    _ => return Err(Malformed),
                }
            }
        }
    }

    /// One scalar value from its first byte at `at` (`scalar_end`), its
    /// strings' ends from the quote masks.
    #[inline(always)]
    pub(super) fn scalar(&mut self, at: usize) -> Result<usize, Malformed> {
        let text = self.text;
        scalar_end(text, at, |inside| Ok(self.string(inside)?.0))
    }

    /// A string from past its opening quote: where its closing quote is,
    /// and whether it holds an escape. Escapes are checked to be JSON's.
    #[inline(always)]
    fn string(&mut self, at: usize) -> Result<(usize, bool), Malformed> {
        let (end, escaped) = self.quotes.next_quote(at).ok_or(Malformed)?;
        if escaped {
            escapes(self.text.get(at..end).ok_or(Malformed)?)?;
        }
        Ok((end, escaped))
    }

    fn literal(&self, at: usize, word: &[u8]) -> Result<usize, Malformed> {
        literal_end(self.text, at, word)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    #[inline(always)]
    fn number(&self, at: usize) -> Result<usize, Malformed> {
        number_end(self.text, at)
    }
}

/// Past the scalar value (a string, a number, `true`, `false` or `null`)
/// that starts at `at` in `text`, its grammar checked as `object` checks
/// it; `string` gives the closing quote of a string whose inside starts
/// where it is told (the general reader and `json_shape` find it apart).
#[inline(always)]
pub(super) fn scalar_end(
    text: &[u8],
    at: usize,
    string: impl FnOnce(usize) -> Result<usize, Malformed>,
) -> Result<usize, Malformed> {
    match text.get(at).copied().unwrap_or(0) {
        b'"' => Ok(string(at + 1)? + 1),
        b'-' | b'0'..=b'9' => number_end(text, at),
        b't' => literal_end(text, at, b"true"),
        b'f' => literal_end(text, at, b"false"),
        b'n' => literal_end(text, at, b"null"),
        _ => Err(Malformed),
    }
}

/// Past the literal `word` when `text` holds it at `at`.
#[inline(always)]
fn literal_end(text: &[u8], at: usize, word: &[u8]) -> Result<usize, Malformed> {
    if text.get(at..).is_some_and(|rest| rest.starts_with(word)) {
        Ok(at + word.len())
    } else {
        Err(Malformed)
    }
}

/// Past the number that starts at `at` in `text`:
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
#[inline(always)]
fn number_end(text: &[u8], mut at: usize) -> Result<usize, Malformed> {
    let byte = |at: usize| text.get(at).copied().unwrap_or(0);
    let digits = |at: usize| digits_end(text, at);
    let some_digits = |at: usize| {
        let end = digits(at);
        if end > at { Ok(end) } else { Err(Malformed) }
    };
    if byte(at) == b'-' {
        at += 1;
    }
    match byte(at) {
        b'0' => at += 1,
        b'1'..=b'9' => at = digits(at + 1),
        _ => return Err(Malformed),
    }
    if byte(at) == b'.' {
        at = some_digits(at + 1)?;
    }
    if let b'e' | b'E' = byte(at) {
        at += 1;
        if let b'+' | b'-' = byte(at) {
            at += 1;
        }
        at = some_digits(at)?;
    }
    Ok(at)
}

/// Past the ASCII digits of `text` from `at`: eight bytes at a time while
/// eight are left (a log's numbers are times and sizes of ten digits and
/// more), then byte by byte.
#[inline(always)]
pub(super) fn digits_end(text: &[u8], mut at: usize) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    while let Some(word) = text.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let word = u64::from_le_bytes(*word);
        // A byte is a digit when its high half is 3 and stays 3 with six
        // added (0x30 to 0x39). A byte that carries into the next (0xFA
        // and up) is no digit, and only the first byte that is none
        // counts: what the carry spoils lies after it.
        let high = (word & (0xF0 * LOW)) ^ (0x30 * LOW);
        let added = (word.wrapping_add(0x06 * LOW) & (0xF0 * LOW)) ^ (0x30 * LOW);
        let other = high | added;
        // The top bit of each byte that is not zero (no carry between
        // bytes: 0x7F + 0x7F fits one).
        let marks = (((other & (0x7F * LOW)) + 0x7F * LOW) | other) & (0x80 * LOW);
        if marks != 0 {
            return at + (marks.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while text.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

/// The node a key written with escapes (`"User\u002DAgent"`) names, the
/// key compared as decoded.
#[cold]
fn decoded<'n>(level: &'n Level, quoted: &[u8]) -> Option<&'n Node> {
    let decoded: String = serde_json::from_slice(quoted).ok()?;
    level.nodes.iter().find(|n| *n.key == *decoded)
}

/// Checks that every escape of the inside of a string is JSON's: `\"`,
/// `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` or `\u` and four hex digits.
/// The rare case: most strings of a log hold no backslash.
#[cold]
pub(super) fn escapes(inside: &[u8]) -> Result<(), Malformed> {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &inside[at..]) {
        at += found;
        match inside.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
            Some(b'u') => {
                let hex = inside.get(at + 2..at + 6).ok_or(Malformed)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return Err(Malformed);
                }
                at += 6;
            }
            _ => return Err(Malformed),
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "json_scan_tests.rs"]
mod tests;
