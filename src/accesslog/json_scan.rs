//! One pass over the JSON object of a log line that keeps only the values
//! of the mapped keys: takes the line and the mapping's tree of keys
//! (dotted paths as nested `Node`s) and gives, for each mapped leaf, the
//! raw text of its value as the line writes it (a string with its quotes,
//! still escaped), borrowed from the line (SPEC §1 `json`).
//!
//! Why not a crate: serde_json (walking the mapped keys with borrowed raw
//! values), simd-json and sonic-rs all measured slower on a Caddy line
//! (README "JSON logs"): they check or build what the audit never reads.
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

/// A key of the mapping at one level of nesting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Node {
    pub key: Box<str>,
    /// The key's first eight bytes (fewer, zeros after), to compare with
    /// a key of the line in one word.
    prefix: u64,
    /// Where its value is kept, when it is a mapped field.
    pub leaf: Option<usize>,
    pub children: Vec<Node>,
    /// The lengths of the children's keys (`length_bit`), so that a key
    /// of the line no child has the length of is passed by with one test.
    child_lengths: u64,
}

/// Adds a dotted path to the tree.
pub(super) fn insert(nodes: &mut Vec<Node>, path: &str, leaf: usize) -> Result<(), String> {
    let (key, rest) = match path.split_once('.') {
        Some((key, rest)) => (key, Some(rest)),
        None => (path, None),
    };
    let at = match nodes.iter().position(|n| &*n.key == key) {
        Some(at) => at,
        None => {
            nodes.push(Node {
                key: key.into(),
                prefix: prefix(key.as_bytes()),
                leaf: None,
                children: Vec::new(),
                child_lengths: 0,
            });
            nodes.len() - 1
        }
    };
    let node = &mut nodes[at];
    match rest {
        Some(rest) => {
            insert(&mut node.children, rest, leaf)?;
            node.child_lengths = lengths(&node.children);
            Ok(())
        }
        None if node.leaf.is_some() => Err(format!("{path:?} is named twice in the mapping")),
        None => {
            node.leaf = Some(leaf);
            Ok(())
        }
    }
}

impl Node {
    /// Whether `key`, as a line writes it without escapes and whose
    /// `prefix` is `key_prefix`, is this node's.
    #[inline]
    fn names(&self, key: &[u8], key_prefix: u64) -> bool {
        // Most keys differ in length or in their first eight bytes: one
        // word compared, no call.
        let own = self.key.as_bytes();
        own.len() == key.len()
            && self.prefix == key_prefix
            && (key.len() <= 8 || own[8..] == key[8..])
    }
}

/// One bit for a key's length; keys of 63 bytes and more share the last.
#[inline(always)]
fn length_bit(len: usize) -> u64 {
    1u64 << len.min(63)
}

/// The lengths of the keys of `nodes`, one bit each.
fn lengths(nodes: &[Node]) -> u64 {
    nodes
        .iter()
        .fold(0, |bits, node| bits | length_bit(node.key.len()))
}

/// The first eight bytes of `key` in a word, zeros past its end.
#[inline]
fn prefix(key: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let len = key.len().min(8);
    word[..len].copy_from_slice(&key[..len]);
    u64::from_le_bytes(word)
}

/// The line is no well-formed JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Malformed;

/// Reads `line`, which must be one JSON object and nothing else but
/// blanks, keeping in `found[leaf]` the raw value of every mapped key (the
/// last one when a key is written twice).
pub(super) fn extract<'a>(
    line: &'a [u8],
    tree: &[Node],
    found: &mut [Option<&'a [u8]>],
) -> Result<(), Malformed> {
    let mut reader = Reader::new(line);
    let (at, byte) = reader.token(0);
    if byte != b'{' {
        return Err(Malformed);
    }
    let at = reader.object(at + 1, tree, lengths(tree), found, 1)?;
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
struct Reader<'a> {
    text: &'a [u8],
    quotes: Quotes<'a>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a [u8]) -> Reader<'a> {
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
        nodes: &[Node],
        node_lengths: u64,
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
                decoded(nodes, &self.text[quoted_from..end + 1])
            } else if node_lengths & length_bit(key.len()) == 0 {
                // Most keys of a line are not the mapping's, and most of
                // those differ in length from every key it names here.
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
                nodes.iter().find(|n| n.names(key, key_prefix))
            };
            let (start, first) = self.colon(end + 1)?;
            let end = match (node, first) {
                // Most values are strings: read here, without the
                // skipper's set-up.
                (_, b'"') => self.string(start + 1)?.0 + 1,
                (Some(node), b'{') if !node.children.is_empty() => {
                    if depth >= MAX_DEPTH {
                        return Err(Malformed);
                    }
                    self.object(
                        start + 1,
                        &node.children,
                        node.child_lengths,
                        found,
                        depth + 1,
                    )?
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
        if self.text[at..].starts_with(word) {
            Ok(at + word.len())
        } else {
            Err(Malformed)
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    #[inline(always)]
    fn number(&self, mut at: usize) -> Result<usize, Malformed> {
        if self.byte(at) == b'-' {
            at += 1;
        }
        match self.byte(at) {
            b'0' => at += 1,
            b'1'..=b'9' => at = self.digits(at + 1),
            _ => return Err(Malformed),
        }
        if self.byte(at) == b'.' {
            at = self.some_digits(at + 1)?;
        }
        if let b'e' | b'E' = self.byte(at) {
            at += 1;
            if let b'+' | b'-' = self.byte(at) {
                at += 1;
            }
            at = self.some_digits(at)?;
        }
        Ok(at)
    }

    #[inline(always)]
    fn digits(&self, mut at: usize) -> usize {
        while self.byte(at).is_ascii_digit() {
            at += 1;
        }
        at
    }

    #[inline(always)]
    fn some_digits(&self, at: usize) -> Result<usize, Malformed> {
        let end = self.digits(at);
        if end > at { Ok(end) } else { Err(Malformed) }
    }
}

/// The node a key written with escapes (`"User\u002DAgent"`) names, the
/// key compared as decoded.
#[cold]
fn decoded<'n>(nodes: &'n [Node], quoted: &[u8]) -> Option<&'n Node> {
    let decoded: String = serde_json::from_slice(quoted).ok()?;
    nodes.iter().find(|n| *n.key == *decoded)
}

/// Checks that every escape of the inside of a string is JSON's: `\"`,
/// `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` or `\u` and four hex digits.
/// The rare case: most strings of a log hold no backslash.
#[cold]
fn escapes(inside: &[u8]) -> Result<(), Malformed> {
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
