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
    /// Where its value is kept, when it is a mapped field.
    pub leaf: Option<usize>,
    pub children: Vec<Node>,
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
                leaf: None,
                children: Vec::new(),
            });
            nodes.len() - 1
        }
    };
    let node = &mut nodes[at];
    match rest {
        Some(rest) => insert(&mut node.children, rest, leaf),
        None if node.leaf.is_some() => Err(format!("{path:?} is named twice in the mapping")),
        None => {
            node.leaf = Some(leaf);
            Ok(())
        }
    }
}

impl Node {
    /// Whether `key`, as a line writes it without escapes, is this node's.
    #[inline]
    fn names(&self, key: &[u8]) -> bool {
        // Most keys differ in length or first byte: no call to compare.
        let own = self.key.as_bytes();
        own.len() == key.len() && own.first() == key.first() && own == key
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
    tree: &[Node],
    found: &mut [Option<&'a [u8]>],
) -> Result<(), Malformed> {
    let mut reader = Reader::new(line);
    reader.blanks();
    if reader.peek() != Some(b'{') {
        return Err(Malformed);
    }
    reader.at += 1;
    reader.object(tree, found, 1)?;
    reader.blanks();
    if reader.at == line.len() {
        Ok(())
    } else {
        Err(Malformed)
    }
}

/// The raw text of the first element of the array `raw` (as `extract`
/// gave it, so already checked); `None` for an empty array.
pub(super) fn first_element(raw: &[u8]) -> Result<Option<&[u8]>, Malformed> {
    let mut reader = Reader::new(raw);
    reader.blanks();
    if reader.peek() != Some(b'[') {
        return Err(Malformed);
    }
    reader.at += 1;
    reader.blanks();
    if reader.peek() == Some(b']') {
        return Ok(None);
    }
    let start = reader.at;
    reader.skip(1)?;
    Ok(Some(&raw[start..reader.at]))
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    quotes: Quotes<'a>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a [u8]) -> Reader<'a> {
        Reader {
            text,
            at: 0,
            quotes: Quotes::new(text),
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    #[inline]
    fn blanks(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The members of an object that holds mapped keys, from past its `{`
    /// to past its `}`.
    fn object(
        &mut self,
        nodes: &[Node],
        found: &mut [Option<&'a [u8]>],
        depth: usize,
    ) -> Result<(), Malformed> {
        self.blanks();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.blanks();
            if self.peek() != Some(b'"') {
                return Err(Malformed);
            }
            let quoted_from = self.at;
            self.at += 1;
            let (key, escaped) = self.string()?;
            let node = if escaped {
                decoded(nodes, &self.text[quoted_from..self.at])
            } else {
                nodes.iter().find(|n| n.names(key))
            };
            self.colon()?;
            let raw = self.value(node, found, depth)?;
            if let Some(&Node {
                leaf: Some(leaf), ..
            }) = node
                && let Some(slot) = found.get_mut(leaf)
            {
                *slot = Some(raw);
            }
            self.blanks();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Malformed),
            }
        }
    }

    /// One value, from its first byte (after blanks) to past its last;
    /// an object whose key is a node with children is read for them,
    /// anything else skipped.
    fn value(
        &mut self,
        node: Option<&Node>,
        found: &mut [Option<&'a [u8]>],
        depth: usize,
    ) -> Result<&'a [u8], Malformed> {
        self.blanks();
        let start = self.at;
        match node {
            Some(node) if !node.children.is_empty() && self.peek() == Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                self.at += 1;
                self.object(&node.children, found, depth + 1)?;
            }
            _ => self.skip(depth)?,
        }
        Ok(&self.text[start..self.at])
    }

    /// Past a `:` and the blanks around it.
    #[inline]
    fn colon(&mut self) -> Result<(), Malformed> {
        self.blanks();
        if self.peek() != Some(b':') {
            return Err(Malformed);
        }
        self.at += 1;
        Ok(())
    }

    /// Past a key, from its opening quote, and the `:` after it.
    #[inline]
    fn key(&mut self) -> Result<(), Malformed> {
        self.blanks();
        if self.peek() != Some(b'"') {
            return Err(Malformed);
        }
        self.at += 1;
        self.string()?;
        self.colon()
    }

    /// One value that holds no mapped key, from its first byte (after
    /// blanks) to past its last, its grammar checked as `object` would:
    /// one loop with a stack of bits (1 an object, 0 an array) for what
    /// is open, rather than a call for each level, since most of a line
    /// is skipped. `depth` is how deeply the value is nested already.
    fn skip(&mut self, depth: usize) -> Result<(), Malformed> {
        let mut open: u128 = 0;
        let mut levels = 0usize;
        loop {
            // A value is due.
            self.blanks();
            match self.peek().ok_or(Malformed)? {
                b'"' => {
                    self.at += 1;
                    self.string()?;
                }
                bracket @ (b'{' | b'[') => {
                    if depth + levels >= MAX_DEPTH {
                        return Err(Malformed);
                    }
                    self.at += 1;
                    self.blanks();
                    let object = bracket == b'{';
                    let close = if object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                    } else {
                        open = open << 1 | u128::from(object);
                        levels += 1;
                        if object {
                            self.key()?;
                        }
                        continue;
                    }
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(Malformed),
            }
            // A value ended: close what it ends, until a comma asks for
            // the next.
            loop {
                if levels == 0 {
                    return Ok(());
                }
                self.blanks();
                let object = open & 1 == 1;
                match (self.peek(), object) {
                    (Some(b','), _) => {
                        self.at += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.at += 1;
                        open >>= 1;
                        levels -= 1;
                    }
                    _ => return Err(Malformed),
                }
            }
        }
    }

    /// A string from past its opening quote to past its closing one; gives
    /// what is between, still escaped, and whether it holds an escape.
    /// Escapes are checked to be JSON's.
    #[inline]
    fn string(&mut self) -> Result<(&'a [u8], bool), Malformed> {
        let start = self.at;
        let (end, escaped) = self.quotes.next_quote(start).ok_or(Malformed)?;
        let inside = &self.text[start..end];
        if escaped {
            escapes(inside)?;
        }
        self.at = end + 1;
        Ok((inside, escaped))
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Malformed> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(Malformed)
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Result<(), Malformed> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Malformed),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Result<(), Malformed> {
        let start = self.at;
        self.digits();
        if self.at > start {
            Ok(())
        } else {
            Err(Malformed)
        }
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
